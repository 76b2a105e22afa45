"""Symbolic input dims a consumer's weight fixes (tvmlite/relay/frontend/onnx/input_dims.py): optimum's
pixel_values (batch_size, num_channels, height, width) into a Conv gets its channels from the weight at import, so the
stem conv is blocked like every other; MatMul and Gemm fix their inputs' inner dims; two weights that disagree leave
the dim symbolic; a dim_param named on several inputs is fixed on all; a wrong input fails at set_input."""
import json

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import tvmlite
from tvmlite.frontend import from_onnx
from tvmlite.relay.frontend.onnx.input_dims import dims_fixed_by_weights


def _model(nodes, inputs, outputs, weights):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              [numpy_helper.from_array(v.astype(np.float32), k) for k, v in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _input(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def _vision(rng, group=1, channels=6):
    w = rng.standard_normal((12, channels // group, 3, 3))
    return _model([helper.make_node("Conv", ["pixel_values", "w"], ["y"], pads=[1, 1, 1, 1], group=group)],
                  [_input("pixel_values", ["batch_size", "num_channels", "height", "width"])],
                  [_input("y", ["batch_size", 12, "height", "width"])], {"w": w})


def _input_type(mod, name):
    param = next(p for p in mod["main"].params if p.name_hint == name)
    return [d if isinstance(d, int) else str(d) for d in param.type_annotation.shape]


@pytest.mark.parametrize("group,channels", [(1, 6), (2, 6), (6, 6)])
def test_conv_fixes_the_channels(rng, group, channels):
    model = _vision(rng, group, channels)
    assert dims_fixed_by_weights(model.graph) == {"num_channels": channels}
    mod, _ = from_onnx(model)
    assert _input_type(mod, "pixel_values") == ["batch_size", channels, "height", "width"]


def test_the_stem_conv_is_blocked_and_runs_every_shape(rng):
    model = _vision(rng)
    mod, params = from_onnx(model)
    lib = tvmlite.build(mod, target="cpu", params=params)
    kernels = [n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]
    assert "topi.layout_transform" in kernels  # into NCHW{c}c for the blocked conv, not the plain NCHW one
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in ((1, 6, 9, 11), (2, 6, 16, 16)):
        x = rng.standard_normal(shape).astype(np.float32)
        gm.set_input(pixel_values=x)
        gm.run()
        np.testing.assert_allclose(gm.get_output(0).numpy(), sess.run(None, {"pixel_values": x})[0],
                                   rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match=r"set_input: input 'pixel_values' has shape \(-1, 6, -1, -1\)"):
        gm.set_input(pixel_values=np.zeros((1, 5, 9, 9), np.float32))


def test_matmul_and_gemm_fix_the_inner_dim(rng):
    model = _model([helper.make_node("MatMul", ["a", "w"], ["y"]),
                    helper.make_node("Gemm", ["b", "v"], ["z"], transA=1, transB=1)],
                   [_input("a", ["batch", "seq", "hidden"]), _input("b", ["k", "m"])],
                   [_input("y", ["batch", "seq", 4]), _input("z", ["m", 3])],
                   {"w": rng.standard_normal((16, 4)), "v": rng.standard_normal((3, 5))})
    assert dims_fixed_by_weights(model.graph) == {"hidden": 16, "k": 5}
    mod, _ = from_onnx(model)
    assert _input_type(mod, "a") == ["batch", "seq", 16]
    assert _input_type(mod, "b") == [5, "m"]


def test_a_dim_named_twice_is_fixed_everywhere_unless_weights_disagree(rng):
    def model(second_channels):
        return _model([helper.make_node("Conv", ["x", "w"], ["y"]), helper.make_node("Conv", ["z", "v"], ["t"])],
                      [_input("x", ["n", "c", 5, 5]), _input("z", ["n", "c", 5, 5])],
                      [_input("y", ["n", 2, 3, 3]), _input("t", ["n", 2, 3, 3])],
                      {"w": rng.standard_normal((2, 4, 3, 3)), "v": rng.standard_normal((2, second_channels, 3, 3))})

    assert dims_fixed_by_weights(model(4).graph) == {"c": 4}
    assert _input_type(from_onnx(model(4))[0], "z") == ["n", 4, 5, 5]
    assert dims_fixed_by_weights(model(3).graph) == {}  # one of the two convs would fail at run time: not guessed
    assert _input_type(from_onnx(model(3))[0], "x") == ["n", "c", 5, 5]


def test_shape_given_by_the_user_wins(rng):
    mod, _ = from_onnx(_vision(rng), shape={"pixel_values": (1, "num_channels", 8, 8)})
    assert _input_type(mod, "pixel_values") == [1, "num_channels", 8, 8]
