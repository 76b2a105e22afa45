"""ONNX models with 1-D and 3-D Conv / ConvTranspose (+ bias, Relu, BatchNormalization) built for the cpu target:
the same outputs as the debug target (the ops' numpy references), through native kernels only (no
relay.backend.reference node), with bias and activation fused into the conv's node. Pads, auto_pad (SAME_UPPER,
SAME_LOWER, VALID), strides, dilations, groups, depthwise, batch > 1 and channels that are no multiple of a block.
"""
import gc
import json

import numpy as np
import pytest

from onnx import TensorProto, helper, numpy_helper

import tvmlite
from tvmlite.relay.frontend import from_onnx
from tvmlite.runtime import GraphModule


@pytest.fixture(autouse=True, scope="module")
def _collect_cycles():
    yield
    gc.collect()


def model(nodes, x_shape, inits, opset=13):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def build_and_run(m, x, target):
    mod, params = from_onnx(m)
    lib = tvmlite.build(mod, target=target, params=params)
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(x=x)
    gm.run()
    return lib, gm.get_output(0).numpy()


def check(m, x):
    """cpu == debug; returns the cpu graph's kernel nodes, (func_name, epilogue), views left out."""
    lib, got = build_and_run(m, x, "cpu")
    _, want = build_and_run(m, x, "debug")
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale)
    nodes = [(n["attrs"]["func_name"], n["attrs"].get("kernel_attrs", {}).get("epilogue", ""))
             for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]
    nodes = [n for n in nodes if n[0] != "__nop"]
    assert all(name != "relay.backend.reference" for name, _ in nodes), nodes
    return nodes


def conv_nodes(nodes):
    return [n for n in nodes if n[0].startswith("topi.nn.") and "conv" in n[0]]


def conv_bias_relu(rng, cin, cout, kernel, transpose=False, **attrs):
    """Conv (or ConvTranspose) + bias + Relu, and its initializers."""
    group = attrs.get("group", 1)
    w_shape = (cin, cout // group, *kernel) if transpose else (cout, cin // group, *kernel)
    inits = {"w": (rng.standard_normal(w_shape) * 0.3).astype("float32"),
             "b": rng.standard_normal(cout).astype("float32")}
    nodes = [helper.make_node("ConvTranspose" if transpose else "Conv", ["x", "w", "b"], ["c"],
                              kernel_shape=list(kernel), **attrs),
             helper.make_node("Relu", ["c"], ["y"])]
    return nodes, inits


# ---------------------------------------------------------------------------------------------------------------
# 1-D

CONV1D = {
    "wav2vec_k3_s2": (2, 32, 61, 32, [3], dict(strides=[2], pads=[1, 1])),
    "wav2vec_first_k10_s5": (1, 1, 80, 16, [10], dict(strides=[5])),
    "tcn_dilated_causal": (1, 16, 40, 16, [3], dict(dilations=[4], pads=[8, 0])),
    "same_upper_s2": (1, 12, 33, 24, [4], dict(strides=[2], auto_pad="SAME_UPPER")),
    "same_lower_odd": (2, 8, 17, 8, [4], dict(auto_pad="SAME_LOWER")),
    "valid": (1, 8, 20, 12, [5], dict(auto_pad="VALID")),
    "grouped": (1, 16, 25, 32, [3], dict(group=4, pads=[1, 1])),
    "depthwise": (2, 24, 31, 24, [5], dict(group=24, pads=[2, 2])),
    "pointwise_odd_channels": (1, 5, 19, 7, [1], dict()),
}


@pytest.mark.parametrize("name", list(CONV1D))
def test_conv1d_bias_relu(rng, name):
    n, c, length, o, kernel, attrs = CONV1D[name]
    nodes, inits = conv_bias_relu(rng, c, o, kernel, **attrs)
    got = check(model(nodes, [n, c, length], inits), rng.standard_normal((n, c, length)).astype("float32"))
    convs = conv_nodes(got)
    assert len(convs) == 1 and convs[0][0] in ("topi.nn.conv2d_nchwc", "topi.nn.depthwise_conv2d_nchwc")
    assert "add" in convs[0][1] and "relu" in convs[0][1]  # bias and Relu in the conv's node


def test_conv1d_stack_stays_blocked(rng):
    """A wav2vec-style feature encoder: Conv k10 s5 on the waveform, then Conv k3 s2 twice, each with bias + Relu:
    no reshape or transform between the convs, one transform out (the 1-channel input is NCHW1c as it is)."""
    c = 32
    inits, nodes, prev = {}, [], "x"
    for i, (cin, k, s) in enumerate([(1, 10, 5), (c, 3, 2), (c, 3, 2)]):
        inits[f"w{i}"] = (rng.standard_normal((c, cin, k)) * 0.3).astype("float32")
        inits[f"b{i}"] = rng.standard_normal(c).astype("float32")
        nodes += [helper.make_node("Conv", [prev, f"w{i}", f"b{i}"], [f"c{i}"], kernel_shape=[k], strides=[s]),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}" if i < 2 else "y"])]
        prev = f"r{i}"
    got = check(model(nodes, [1, 1, 400], inits), rng.standard_normal((1, 1, 400)).astype("float32"))
    assert [name for name, _ in got] == ["topi.nn.conv2d_nchwc"] * 3 + ["topi.layout_transform"]


def test_conv1d_batchnorm_folds(rng):
    """Conv1d + BatchNormalization + Relu (a TCN block): the norm folds into the conv; one fused node."""
    c = 16
    inits = {"w": (rng.standard_normal((c, c, 3)) * 0.3).astype("float32"),
             "scale": rng.uniform(0.5, 2, c).astype("float32"), "bias": rng.standard_normal(c).astype("float32"),
             "mean": rng.standard_normal(c).astype("float32"), "var": rng.uniform(0.5, 2, c).astype("float32")}
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3], pads=[1, 1]),
             helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"]),
             helper.make_node("Relu", ["n"], ["y"])]
    got = check(model(nodes, [2, c, 30], inits), rng.standard_normal((2, c, 30)).astype("float32"))
    assert len(conv_nodes(got)) == 1 and [n for n, _ in got].count("topi.elemwise") == 0


CONV1D_TRANSPOSE = {
    "upsample_k4_s2_p1": (2, 16, 20, 8, [4], dict(strides=[2], pads=[1, 1])),
    "output_padding": (1, 8, 9, 8, [3], dict(strides=[2], pads=[1, 1], output_padding=[1])),
    "grouped_dilated": (1, 8, 11, 4, [3], dict(group=2, dilations=[2])),
    "output_shape_same_upper": (1, 6, 10, 6, [3], dict(strides=[2], auto_pad="SAME_UPPER")),
}


@pytest.mark.parametrize("name", list(CONV1D_TRANSPOSE))
def test_conv1d_transpose_bias_relu(rng, name):
    n, c, length, o, kernel, attrs = CONV1D_TRANSPOSE[name]
    nodes, inits = conv_bias_relu(rng, c, o, kernel, transpose=True, **attrs)
    got = check(model(nodes, [n, c, length], inits), rng.standard_normal((n, c, length)).astype("float32"))
    convs = conv_nodes(got)
    assert [name for name, _ in convs] == ["topi.nn.conv2d_transpose"]
    assert "add" in convs[0][1] and "relu" in convs[0][1]


# ---------------------------------------------------------------------------------------------------------------
# 3-D

CONV3D = {
    "c3d_3x3x3": (1, 16, 4, 8, 8, 16, [3, 3, 3], dict(pads=[1] * 6)),
    "c3d_stem_odd_channels": (1, 3, 5, 9, 9, 16, [3, 3, 3], dict(pads=[1] * 6)),
    "i3d_stem_7x7x7_s2": (1, 3, 8, 16, 16, 16, [7, 7, 7], dict(strides=[2, 2, 2], pads=[3] * 6)),
    "r2plus1d_spatial": (2, 16, 3, 9, 9, 24, [1, 3, 3], dict(strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1])),
    "same_upper_s2": (1, 8, 5, 7, 7, 16, [3, 3, 3], dict(strides=[2, 2, 2], auto_pad="SAME_UPPER")),
    "same_lower_even_kernel": (1, 8, 4, 6, 6, 8, [2, 2, 2], dict(auto_pad="SAME_LOWER")),
    "asym_pads_dilations": (1, 8, 6, 8, 7, 8, [3, 3, 2], dict(dilations=[2, 1, 2], pads=[2, 0, 1, 1, 1, 0])),
    "grouped": (1, 16, 3, 6, 6, 32, [3, 3, 3], dict(group=2, pads=[1] * 6)),
    "depthwise": (2, 32, 4, 7, 7, 32, [3, 3, 3], dict(group=32, pads=[1] * 6, strides=[1, 2, 2])),
    "unet3d_pointwise": (1, 32, 4, 6, 6, 2, [1, 1, 1], dict()),
}


@pytest.mark.parametrize("name", list(CONV3D))
def test_conv3d_bias_relu(rng, name):
    n, c, d, h, w, o, kernel, attrs = CONV3D[name]
    nodes, inits = conv_bias_relu(rng, c, o, kernel, **attrs)
    got = check(model(nodes, [n, c, d, h, w], inits), rng.standard_normal((n, c, d, h, w)).astype("float32"))
    convs = conv_nodes(got)
    assert len(convs) == 1 and convs[0][0] in ("topi.nn.conv3d", "topi.nn.depthwise_conv3d_ncdhwc")
    assert "add" in convs[0][1] and "relu" in convs[0][1]


def test_conv3d_unet_block_with_batchnorm(rng):
    """A 3-D U-Net block: (Conv3d + BatchNorm + Relu) x 2, the norms folded, the pair blocked end to end."""
    c = 16
    inits, nodes, prev = {}, [], "x"
    for i, cin in enumerate([8, c]):
        inits.update({f"w{i}": (rng.standard_normal((c, cin, 3, 3, 3)) * 0.2).astype("float32"),
                      f"s{i}": rng.uniform(0.5, 2, c).astype("float32"),
                      f"b{i}": rng.standard_normal(c).astype("float32"),
                      f"m{i}": rng.standard_normal(c).astype("float32"),
                      f"v{i}": rng.uniform(0.5, 2, c).astype("float32")})
        nodes += [helper.make_node("Conv", [prev, f"w{i}"], [f"c{i}"], kernel_shape=[3, 3, 3], pads=[1] * 6),
                  helper.make_node("BatchNormalization", [f"c{i}", f"s{i}", f"b{i}", f"m{i}", f"v{i}"], [f"n{i}"]),
                  helper.make_node("Relu", [f"n{i}"], [f"r{i}" if i == 0 else "y"])]
        prev = f"r{i}"
    got = check(model(nodes, [1, 8, 4, 8, 8], inits), rng.standard_normal((1, 8, 4, 8, 8)).astype("float32"))
    assert [name for name, _ in got] == ["topi.layout_transform", "topi.nn.conv3d", "topi.nn.conv3d",
                                         "topi.layout_transform"]


CONV3D_TRANSPOSE = {
    "unet3d_up_2x2x2": (1, 16, 3, 4, 4, 8, [2, 2, 2], dict(strides=[2, 2, 2])),
    "k3_s2_output_padding": (2, 8, 2, 3, 3, 8, [3, 3, 3], dict(strides=[2, 2, 2], pads=[1] * 6,
                                                               output_padding=[1, 1, 1])),
    "grouped_temporal_only": (1, 8, 3, 4, 4, 4, [3, 1, 1], dict(strides=[2, 1, 1], group=2)),
}


@pytest.mark.parametrize("name", list(CONV3D_TRANSPOSE))
def test_conv3d_transpose_bias_relu(rng, name):
    n, c, d, h, w, o, kernel, attrs = CONV3D_TRANSPOSE[name]
    nodes, inits = conv_bias_relu(rng, c, o, kernel, transpose=True, **attrs)
    got = check(model(nodes, [n, c, d, h, w], inits), rng.standard_normal((n, c, d, h, w)).astype("float32"))
    convs = conv_nodes(got)
    assert [name for name, _ in convs] == ["topi.nn.conv3d_transpose"]
    assert "add" in convs[0][1] and "relu" in convs[0][1]
