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
from tvmlite.relay.expr_functor import ExprVisitor
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


# -- no constant past the limit anywhere in the module, and the values still right ---------------------------------
BIG = FOLD_LIMIT + 2  # even: a tile of a 2-element constant


def _largest_constant(mod, params):
    """The element count of the largest constant in main (params included): what the import allocated and keeps."""
    sizes = [np.asarray(v).size for v in params.values()]

    class Sizes(ExprVisitor):
        def visit_constant(self, const):
            sizes.append(const.data.numpy().size)

    Sizes().visit(mod["main"])
    return max(sizes, default=0)


def _run(mod, params, **inputs):
    gm = tvmlite.runtime.GraphModule(tvmlite.build(mod, target="debug", params=params)["default"](tvmlite.cpu(0)))
    gm.set_input(**inputs)
    gm.run()
    return gm.get_output(0).numpy()


def _model(nodes, inputs, opset, elem=F):
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("op", ["Expand", "ConstantOfShape", "Tile"])
def test_big_result_of_constants_is_computed_at_run_time(op):
    """A result of constants past FOLD_LIMIT is left to run time (whichever family converts it), and is right."""
    ort = pytest.importorskip("onnxruntime")
    x = np.array([1.5, -2.0], "float32")
    producer = {"Expand": helper.make_node("Expand", ["x", "k"], ["big"]),
                "ConstantOfShape": helper.make_node("ConstantOfShape", ["k"], ["big"],
                                                    value=numpy_helper.from_array(np.array([1.5], "float32"))),
                "Tile": helper.make_node("Tile", ["x", "k"], ["big"])}[op]
    k = np.array([BIG // 2] if op == "Tile" else [BIG // 2, 2], "int64")
    nodes = [_constant("x", x), _constant("k", k), producer, helper.make_node("Add", ["a", "big"], ["y"])]
    model = _model(nodes, [helper.make_tensor_value_info("a", F, [1])], 13)
    mod, params = tvmlite.frontend.from_onnx(model)
    assert _largest_constant(mod, params) <= FOLD_LIMIT
    a = np.array([0.25], "float32")
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"a": a})[0]
    np.testing.assert_array_equal(_run(mod, params, a=a), want)


@pytest.mark.parametrize("op, fn", [("Add", np.add), ("Pow", np.power)])
def test_legacy_broadcast_of_a_big_computed_b_makes_no_constant(op, fn):
    """Before opset 7, B broadcast along an axis is reshaped to (N, 1). A B computed from constants but left to run
    time (past FOLD_LIMIT) stays an expression: the converter does not fold it itself into an N-element constant."""
    b = np.array([1.0, 2.0], "float32")
    nodes = [_constant("b", b), _constant("reps", np.array([BIG // 2], "int64")),
             helper.make_node("Tile", ["b", "reps"], ["big"]),
             helper.make_node(op, ["a", "big"], ["y"], broadcast=1, axis=0)]
    model = _model(nodes, [helper.make_tensor_value_info("a", F, [BIG, 2])], 6)
    mod, params = tvmlite.frontend.from_onnx(model)
    assert _largest_constant(mod, params) <= FOLD_LIMIT
    a = np.arange(2 * BIG, dtype="float32").reshape(BIG, 2) % 7
    np.testing.assert_array_equal(_run(mod, params, a=a), fn(a, np.tile(b, BIG // 2)[:, None]))
