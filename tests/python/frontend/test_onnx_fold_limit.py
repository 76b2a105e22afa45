"""Results the shape converters compute at import (ConstantOfShape, Range, and any Expand / Tile / ... of constants)
are made as constants only up to FOLD_LIMIT elements: a hostile model's huge constant shape gives an expression of
its static type, never a multi-gigabyte allocation while the model is read.

The huge cases ask for 2**60 elements: should the limit break, numpy's allocation fails at once (more than any
address space), so the test fails with a MemoryError rather than filling the machine's memory."""
import numpy as np
import pytest

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import tvmlite
from tvmlite.relay import expr as _expr
from tvmlite.relay.frontend.onnx.importer import FOLD_LIMIT

F, I64 = TensorProto.FLOAT, TensorProto.INT64
HUGE = 1 << 60


def convert(nodes, initializers, elem=F):
    graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info("y", elem, None)],
                              initializer=[numpy_helper.from_array(np.asarray(v), k) for k, v in initializers.items()])
    mod, _ = tvmlite.frontend.from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))
    return mod["main"].body


def _constant(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value)))


@pytest.mark.parametrize("n,folded", [(FOLD_LIMIT, True), (FOLD_LIMIT + 1, False), (HUGE, False)])
def test_constant_of_shape(n, folded):
    body = convert([helper.make_node("ConstantOfShape", ["s"], ["y"])], {"s": np.array([n], "int64")})
    assert isinstance(body, _expr.Constant) is folded
    assert [int(d) for d in body.checked_type.shape] == [n]


@pytest.mark.parametrize("n,folded", [(8, True), (HUGE, False)])
def test_range(n, folded):
    body = convert([helper.make_node("Range", ["a", "b", "c"], ["y"])],
                   {"a": np.array(0, "int64"), "b": np.array(n, "int64"), "c": np.array(1, "int64")}, I64)
    assert isinstance(body, _expr.Constant) is folded
    if folded:
        assert body.data.numpy().tolist() == list(range(n))


@pytest.mark.parametrize("op,second", [("Tile", np.array([HUGE], "int64")), ("Expand", np.array([HUGE], "int64"))])
def test_data_movement_of_constants(op, second):
    body = convert([_constant("x", np.ones(1, "float32")), helper.make_node(op, ["x", "k"], ["y"])], {"k": second})
    assert not isinstance(body, _expr.Constant)
    assert [int(d) for d in body.checked_type.shape] == [HUGE]
    small = convert([_constant("x", np.ones(1, "float32")), helper.make_node(op, ["x", "k"], ["y"])],
                    {"k": np.array([3], "int64")})
    assert isinstance(small, _expr.Constant) and small.data.numpy().tolist() == [1.0, 1.0, 1.0]
