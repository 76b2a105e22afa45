"""The build's pass sequence on an imported ONNX CNN (conv, batch norm, relu, silu, residual add, pooling, Gemm):
BatchNorm ends up inside the first conv's weight and bias, the silu and the residual add fuse into the second
conv, and the optimised module computes what the imported one does."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import relay_helpers  # noqa: E402

_EPILOGUE_OPS = ["add", "multiply", "nn.relu", "sigmoid"]


@pytest.fixture(autouse=True)
def epilogue_ops():
    with relay_helpers.epilogue_ops(_EPILOGUE_OPS):
        yield


def _model(rng):
    def init(name, shape, positive=False):
        a = rng.uniform(0.5, 2, shape) if positive else 0.3 * rng.standard_normal(shape)
        return numpy_helper.from_array(a.astype("float32"), name)

    inits = [init("w1", (8, 3, 3, 3)), init("g", (8,)), init("b", (8,)), init("m", (8,)), init("v", (8,), True),
             init("w2", (8, 8, 3, 3)), init("wf", (10, 8)), init("bf", (10,))]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "g", "b", "m", "v"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["c2"], ["s2"]),
        helper.make_node("Mul", ["c2", "s2"], ["silu"]),
        helper.make_node("Add", ["silu", "r1"], ["res"]),
        helper.make_node("GlobalAveragePool", ["res"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["fl"]),
        helper.make_node("Gemm", ["fl", "wf", "bf"], ["y"], transB=1),
    ]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _groups(mod):
    """The op names of each Primitive function of main, in evaluation order."""
    groups = []

    class Groups(relay.ExprVisitor):
        def visit_function(self, func):
            if "Primitive" in func.attrs:
                names = []

                class Ops(relay.ExprVisitor):
                    def visit_call(self, call):
                        names.append(call.op.name)

                Ops().visit(func.body)
                groups.append(names)

    Groups().visit(mod["main"])
    return groups


def test_build_sequence_on_an_onnx_cnn(run_relay, rng):
    mod, params = tvmlite.frontend.from_onnx(_model(rng))
    t = relay.transform
    bound = ir.IRModule({"main": t.bind_params_by_name(mod["main"], params)})
    seq = tvmlite.transform.Sequential([t.InferType(), t.SimplifyInference(), t.FoldConstant(), t.FoldScaleAxis(),
                                        t.FoldConstant(), t.FuseOps(), t.DeadCodeElimination()])
    with tvmlite.transform.PassContext(opt_level=3):
        opt = seq(bound)
    assert [p.name_hint for p in opt["main"].params] == ["x"]
    groups = _groups(opt)
    assert ["nn.conv2d", "add", "nn.relu"] in groups  # batch norm folded: its shift is the bias add
    assert ["nn.conv2d", "sigmoid", "multiply", "add"] in groups  # silu + residual
    assert not any("nn.batch_norm" in g or "multiply" in g and "nn.conv2d" not in g for g in groups)
    x = rng.standard_normal((2, 3, 8, 8)).astype("float32")
    want = run_relay(mod, {"x": x, **params})[0]
    got = run_relay(opt, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # at opt_level 2 FoldScaleAxis (level 3) does not run: the scale stays a multiply in the first group
    with tvmlite.transform.PassContext(opt_level=2):
        opt2 = seq(bound)
    assert ["nn.conv2d", "multiply", "add", "nn.relu"] in _groups(opt2)
