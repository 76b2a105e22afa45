"""The building blocks of torchvision / timm models beyond tvmlite.models' five, as their exporters write them,
through from_onnx -> build(target="cpu") -> run, against onnxruntime (the oracle): each one once failed at run time,
ran numpy references, or ran the portable kernels. Each case also pins that no node of it runs a reference.

MobileNetV3 / EfficientNet squeeze-excite (ReduceMean or GlobalAveragePool, HardSigmoid or Sigmoid, Mul), ResNeXt
and RegNet grouped convs of 4 channels a group, FastViT's depthwise conv with a channel multiplier, ShuffleNetV2's
odd channel counts and channel shuffle, GhostNet's concat then channel slice, ReXNet's channel counts no 8 divides
(padded to whole blocks) with SiLU, squeeze-excite and a residual over its first channels, ViT's q / k / v split,
LeViT's and PoolFormer's layer scale (Reshape then Mul), XCiT's L2 normalisation (ReduceL2, Clip, Expand, Div).
"""
import json

import numpy as np
import pytest

import tvmlite
from tvmlite.models._builder import Builder, example_input

ort = pytest.importorskip("onnxruntime")


def squeeze_excite(b, x, c, reduce_mean):
    pooled = (b.node("ReduceMean", [x], "mean", axes=[2, 3], keepdims=1)
              if reduce_mean else b.node("GlobalAveragePool", [x], "gap"))
    s = b.relu(b.conv(pooled, c, max(c // 4, 4), 1, bias=True))
    s = b.node("HardSigmoid", [b.conv(s, max(c // 4, 4), c, 1, bias=True)], "hsig", alpha=1 / 6, beta=0.5)
    return b.node("Mul", [x, s], "se")


def se_block(reduce_mean):
    b = Builder(seed=1)
    y = b.node("HardSwish", [b.conv_bn("x", 8, 24, 3, act=None)], "hswish")
    y = b.conv_bn(y, 24, 24, 5, groups=24, act=None)
    y = squeeze_excite(b, y, 24, reduce_mean)
    y = b.conv_bn(y, 24, 16, 1, act=None)
    return b.make_model([("x", (1, 8, 14, 14))], [(y, None)], "se", check=False)


def grouped_narrow():
    b = Builder(seed=2)
    y = b.conv_bn("x", 16, 64, 1)
    y = b.conv_bn(y, 64, 64, 3, groups=16)                 # 4 channels a group (ResNeXt 32x4d, RegNet)
    y = b.conv_bn(y, 64, 48, 3, stride=2, groups=8)        # 8 in / 6 out a group: four merged
    y = b.conv_bn(y, 48, 48, 3, groups=24)                 # 2 a group
    return b.make_model([("x", (1, 16, 12, 12))], [(y, None)], "grouped", check=False)


def depthwise_multiplier():
    b = Builder(seed=3)
    y = b.conv_bn("x", 16, 32, 7, stride=2, groups=16)      # FastViT: groups == C, O == 2C
    y = b.conv_bn(y, 32, 96, 3, groups=32, act=None)       # O == 3C
    return b.make_model([("x", (1, 16, 16, 16))], [(y, None)], "dw_multiplier", check=False)


def shuffle_block():
    """ShuffleNetV2's stride-1 unit over 116 channels (blocks of 4), with its odd 58-channel halves."""
    b = Builder(seed=4)
    x = b.conv_bn("x", 24, 116, 1)
    left, right = "half_left", "half_right"
    b.node("Split", [x, b.const("split", np.array([58, 58], "int64"))], outputs=[left, right], axis=1)
    r = b.conv_bn(right, 58, 58, 1)
    r = b.conv_bn(r, 58, 58, 3, groups=58, act=None)
    r = b.conv_bn(r, 58, 58, 1)
    y = b.node("Concat", [left, r], "cat", axis=1)
    y = b.node("Reshape", [y, b.const("shape", np.array([1, 2, 58, 10, 10], "int64"))], "rs")
    y = b.node("Transpose", [y], "tr", perm=[0, 2, 1, 3, 4])
    y = b.node("Reshape", [y, b.const("shape", np.array([1, 116, 10, 10], "int64"))], "rs")
    return b.make_model([("x", (1, 24, 10, 10))], [(y, None)], "shuffle", check=False)


def ghost_module():
    """GhostNet: a primary conv, a cheap depthwise on it, concat, then the first oup channels."""
    b = Builder(seed=5)
    primary = b.conv_bn("x", 16, 12, 1)
    cheap = b.conv_bn(primary, 12, 12, 3, groups=12)
    y = b.node("Concat", [primary, cheap], "cat", axis=1)
    y = b.node("Slice", [y, b.const("starts", np.array([0], "int64")), b.const("ends", np.array([16], "int64")),
                         b.const("axes", np.array([1], "int64"))], "slice")
    y = b.node("Add", [y, b.conv_bn("x", 16, 16, 1, act=None)], "res")
    return b.make_model([("x", (1, 16, 9, 9))], [(y, None)], "ghost", check=False)


def rexnet_block():
    """ReXNet: 27 -> 38 channels (padded to 32 / 40 in blocks of 8), SiLU, a depthwise conv, a squeeze-excite to 12
    channels, ReLU6, a divide that would turn the padding into NaN, and the residual added to the first 27 channels
    (Slice, Add, Concat)."""
    b = Builder(seed=8)
    x = b.conv_bn("x", 8, 27, 3)
    y = b.conv_bn(x, 27, 162, 1, act=None)
    y = b.node("Mul", [y, b.node("Sigmoid", [y], "sig")], "silu")
    y = b.conv_bn(y, 162, 162, 3, groups=162, act=None)
    pooled = b.node("ReduceMean", [y], "mean", axes=[2, 3], keepdims=1)
    s = b.node("Sigmoid", [b.conv(b.relu(b.conv(pooled, 162, 12, 1, bias=True)), 12, 162, 1, bias=True)], "sig")
    y = b.relu6(b.node("Mul", [y, s], "se"))
    y = b.conv_bn(y, 162, 38, 1, act=None)

    def channels(t, start, end):
        return b.node("Slice", [t, b.const("starts", np.array([start], "int64")),
                                b.const("ends", np.array([end], "int64")), b.const("axes", np.array([1], "int64"))])

    head = b.node("Add", [channels(y, 0, 27), x], "res")
    y = b.node("Concat", [head, channels(y, 27, 38)], "cat", axis=1)
    y = b.conv_bn(y, 38, 50, 3, stride=2, act=None)
    r = b.relu(y)                           # r / (r + eps): 0 / 0 in padded channels, so it runs on NCHW
    y = b.node("Div", [r, b.node("Add", [r, b.weight("eps", (1, 50, 1, 1), positive=True)])], "div")
    y = b.conv_bn(y, 50, 16, 1)
    return b.make_model([("x", (1, 8, 14, 14))], [(y, None)], "rexnet", check=False)


def attention_split():
    """A ViT block's q / k / v from one Linear, split three ways, and its layer-scaled residual."""
    b = Builder(seed=6)
    d, heads = 32, 2
    qkv = b.linear("x", d, 3 * d)
    q, k, v = (f"{n}_p" for n in "qkv")
    b.node("Split", [qkv, b.const("split", np.array([d, d, d], "int64"))], outputs=[q, k, v], axis=2)

    def heads_first(t):
        t = b.node("Reshape", [t, b.const("shape", np.array([1, 10, heads, d // heads], "int64"))], "rs")
        return b.node("Transpose", [t], "tr", perm=[0, 2, 1, 3])

    scores = b.node("MatMul", [heads_first(q), b.node("Transpose", [heads_first(k)], "tr", perm=[0, 1, 3, 2])])
    att = b.node("Softmax", [b.node("Mul", [scores, b.const("scale", np.float32((d // heads) ** -0.5))])],
                 axis=-1)
    o = b.node("Transpose", [b.node("MatMul", [att, heads_first(v)])], "tr", perm=[0, 2, 1, 3])
    o = b.linear(b.node("Reshape", [o, b.const("shape", np.array([1, 10, d], "int64"))], "rs"), d, d)
    gamma = b.node("Reshape", [b.weight("gamma", (d,), scale=0.1), b.const("shape", np.array([1, 1, d], "int64"))])
    y = b.node("Add", ["x", b.node("Mul", [gamma, o])], "res")
    return b.make_model([("x", (1, 10, d))], [(y, None)], "attention", check=False)


def l2_normalize():
    """F.normalize(x, dim=-1): ReduceL2, Clip(min=eps), Expand, Div (XCiT's cross-covariance attention)."""
    b = Builder(seed=7)
    norm = b.node("ReduceL2", ["x"], "l2", axes=[-1], keepdims=1)
    norm = b.node("Clip", [norm, b.const("eps", np.float32(1e-12))], "clip")
    norm = b.node("Expand", [norm, b.const("shape", np.array([2, 6, 20], "int64"))], "expand")
    y = b.node("Div", ["x", norm], "div")
    return b.make_model([("x", (2, 6, 20))], [(y, None)], "l2_normalize", check=False)


CASES = {
    "squeeze_excite_reduce_mean": lambda: se_block(True),
    "squeeze_excite_global_pool": lambda: se_block(False),
    "grouped_narrow": grouped_narrow,
    "depthwise_multiplier": depthwise_multiplier,
    "shuffle_block": shuffle_block,
    "ghost_module": ghost_module,
    "rexnet_block": rexnet_block,
    "attention_split": attention_split,
    "l2_normalize": l2_normalize,
}


@pytest.mark.parametrize("name", list(CASES))
def test_pattern_matches_onnxruntime_natively(name):
    model = CASES[name]()
    feeds = example_input(model, seed=3)
    (want,) = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target="cpu", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**feeds)
    gm.run()
    got = gm.get_output(0).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(want).max())))
    nodes = json.loads(lib.get_graph_json())["nodes"]
    references = [n["name"] for n in nodes if n["op"] != "null" and n["attrs"]["func_name"] ==
                  "relay.backend.reference"]
    assert references == []
