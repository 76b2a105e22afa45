"""A numpy reference that fails (an allocation failure above all) reports the op and keeps its class, on every path
that runs references: the debug executor and FoldConstant (relay.backend.eval_const); the ONNX importer's folding
leaves such an op to run time. numpy's _ArrayMemoryError takes (shape, dtype), not a message, so rebuilding it as
``type(err)(message)`` used to fail with a TypeError about its __init__ instead."""
import numpy as np
import pytest

import onnx  # noqa: E402,F401  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import tvmlite
from tvmlite import ir, relay
from tvmlite.error import TVMLiteError
from tvmlite.relay.backend import const_eval, debug_executor
from tvmlite.relay.frontend.onnx import fold as onnx_fold
from tvmlite.relay.op import op as op_registry

_MESSAGE = "Unable to allocate 4.00 EiB for an array with shape (1152921504606846976,) and data type float32"


def _out_of_memory(attrs, *args):
    from numpy._core._exceptions import _ArrayMemoryError

    raise _ArrayMemoryError((1 << 60,), np.dtype("float32"))


@pytest.fixture
def tile_runs_out_of_memory(monkeypatch):
    """The reference of "tile" raises numpy's allocation failure, wherever it is looked up."""
    real = op_registry.get_reference

    def get_reference(name):
        return _out_of_memory if name == "tile" else real(name)

    for module in (op_registry, debug_executor, const_eval, onnx_fold):
        monkeypatch.setattr(module, "get_reference", get_reference)


def _assert_memory_error(err, context):
    assert isinstance(err, MemoryError) and isinstance(err, TVMLiteError)
    assert str(err) == f"{context}: {_MESSAGE}"
    assert type(err.__cause__).__name__ == "MemoryError" and err.__cause__.shape == (1 << 60,)


def _debug_run(func, **inputs):
    lib = tvmlite.build(ir.IRModule.from_expr(func), target="debug")
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**inputs)
    gm.run()


def test_debug_executor(tile_runs_out_of_memory):
    x = relay.var("x", shape=(2,))
    with pytest.raises(MemoryError) as info:
        _debug_run(relay.Function([x], relay.tile(relay.exp(x), [3])), x=np.zeros(2, "float32"))
    _assert_memory_error(info.value, "tile")


def test_debug_executor_real_allocation():
    # 4 EiB is more than any 64-bit address space: np.tile's allocation fails at once, whatever the overcommit.
    x = relay.var("x", shape=(1,))
    with pytest.raises(MemoryError, match=r"^tile: Unable to allocate 4.00 EiB for an array with shape "
                                          r"\(1152921504606846976, 1\) and data type float32$"):
        _debug_run(relay.Function([x], relay.tile(x, [1 << 60])), x=np.zeros(1, "float32"))


def test_debug_executor_inside_a_branch(tile_runs_out_of_memory):
    # Reported against the op inside the branch, then against the op that ran the branch; still a MemoryError.
    x, c = relay.var("x", shape=(2,)), relay.var("c", shape=(), dtype="bool")
    body = relay.if_(c, relay.Function([], relay.tile(x, [1])), relay.Function([], x))
    with pytest.raises(MemoryError) as info:
        _debug_run(relay.Function([x, c], body), x=np.zeros(2, "float32"), c=np.array(True))
    assert str(info.value) == f"if: tile: {_MESSAGE}"
    assert str(info.value.__cause__) == f"tile: {_MESSAGE}"


def test_fold_constant(tile_runs_out_of_memory):
    call = relay.tile(relay.const(np.ones(2, "float32")), [2])
    with pytest.raises(MemoryError) as info:
        relay.transform.FoldConstant()(ir.IRModule.from_expr(relay.Function([], call)))
    _assert_memory_error(info.value, "FoldConstant: evaluating tile")


def test_onnx_import_leaves_a_failing_reference_to_run_time(tile_runs_out_of_memory):
    # Tile of Constants: the importer's folding (fold.py) reads a reference that fails as "not computable at
    # import", so the import keeps the Tile, and its failure is reported when it runs, with the op and its class.
    nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones(2, "float32"))),
             helper.make_node("Tile", ["c", "reps"], ["y"], name="tile_1")]
    graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
                              initializer=[numpy_helper.from_array(np.array([2], "int64"), "reps")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    mod, params = tvmlite.frontend.from_onnx(model)
    assert mod["main"].body.op.name == "tile"
    with pytest.raises(MemoryError) as info:
        _debug_run(mod["main"])
    _assert_memory_error(info.value, "tile")
