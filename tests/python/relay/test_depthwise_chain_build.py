"""The lowering's depthwise chains (csrc/backend/fuse_depthwise_chains.cc): an inverted bottleneck (1x1 expand,
depthwise, 1x1 project) built for the cpu becomes one topi.nn.depthwise_chain_nchwc node where its intermediates
outgrow L2 on AVX-512 (banded), or over smaller planes a chain of its expand and depthwise only (split by channel
blocks; the project stays a node), keeps a stage apart when another node (or the graph's output) reads the tensor
between, and matches the debug target's reference executor every time."""
import json

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import tvmlite
from tvmlite import models
from tvmlite.runtime import GraphModule

CHAIN = "topi.nn.depthwise_chain_nchwc"
AVX512 = tvmlite.get_global_func("topi.cpu_isa")() == "avx512"
VECTOR = tvmlite.get_global_func("topi.cpu_isa")() in ("avx512", "avx2")  # banded chains; split ones AVX-512 only


def block(c, e, size, extra_outputs=(), seed=0, act="relu6", k=3):
    """ONNX: x -> Conv1x1(e) -> act -> depthwise kxk -> act -> Conv1x1(c) -> + x; act relu6 (MobileNetV2's, a Clip)
    or silu (EfficientNet's, x * Sigmoid(x))."""
    rng = np.random.default_rng(seed)

    def init(name, *shape, scale=1.0):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [init("w1", e, c, 1, 1, scale=c ** -0.5), init("b1", e), init("w2", e, 1, k, k, scale=1 / k),
             init("b2", e), init("w3", c, e, 1, 1, scale=e ** -0.5), init("b3", c),
             numpy_helper.from_array(np.float32(0), "lo"), numpy_helper.from_array(np.float32(6), "hi")]
    def activation(src, dst):
        if act == "relu6":
            return [helper.make_node("Clip", [src, "lo", "hi"], [dst])]
        return [helper.make_node("Sigmoid", [src], [dst + "_s"]), helper.make_node("Mul", [src, dst + "_s"], [dst])]

    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["e1"]), *activation("e1", "a1"),
             helper.make_node("Conv", ["a1", "w2", "b2"], ["e2"], group=e, pads=[k // 2] * 4), *activation("e2", "a2"),
             helper.make_node("Conv", ["a2", "w3", "b3"], ["e3"]),
             helper.make_node("Add", ["e3", "x"], ["y"])]
    shapes = {"a1": (1, e, size, size), "a2": (1, e, size, size)}
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, c, size, size))]
    outputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n]) for n in extra_outputs]
    graph = helper.make_graph(nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                             (1, c, size, size))], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def build_and_compare(model):
    """Build for cpu, compare every output with the debug target's; the cpu graph's chain nodes' stages."""
    mod, params = tvmlite.frontend.from_onnx(model)
    feeds = models.example_input(model, seed=1)
    results = []
    for target in ("cpu", "debug"):
        lib = tvmlite.build(mod, target=target, params=params)
        gm = GraphModule(lib["default"](tvmlite.cpu(0)))
        gm.set_input(**feeds)
        gm.run()
        results.append(([gm.get_output(i).numpy() for i in range(gm.get_num_outputs())], lib))
    (got, lib), (want, _) = results
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    nodes = json.loads(lib.get_graph_json())["nodes"]
    return [n["attrs"]["kernel_attrs"]["stages"] for n in nodes
            if n["op"] == "tvm_op" and n["attrs"]["func_name"] == CHAIN]


@pytest.mark.parametrize("extra, stages", [
    ((), ["expand,depthwise,project"]),
    (("a1",), ["depthwise,project"]),   # the expand's output is read by the graph: the expand stays a node
    (("a2",), ["expand,depthwise"]),    # the depthwise's output too: the project stays a node
    (("a1", "a2"), []),
])
def test_inverted_bottleneck_chains(extra, stages):
    got = build_and_compare(block(24, 144, 56, extra))
    assert got == (stages if VECTOR else [])


@pytest.mark.parametrize("k", [3, 5])
def test_silu_blocks_chain(k):
    """EfficientNet's MBConv (SiLU, 3x3 or 5x5 depthwise): its epilogues are not register tails; the chain runs them
    with the interpreter on each band's rows."""
    got = build_and_compare(block(24, 144, 56, act="silu", k=k))
    assert got == (["expand,depthwise,project"] if VECTOR else [])


@pytest.mark.parametrize("extra, stages", [
    ((), ["expand,depthwise"]),      # banding does not pay at 14x14: the expand and depthwise split by channels
    (("a1",), []),                   # no expand: the depthwise and project stay apart
    (("a2",), ["expand,depthwise"]),
    (("a1", "a2"), []),
])
def test_small_maps_split_expand_and_depthwise(extra, stages):
    got = build_and_compare(block(96, 576, 14, extra))
    assert got == (stages if AVX512 else [])


@pytest.mark.parametrize("act, k, size", [("relu6", 3, 7), ("silu", 5, 14)])
def test_small_map_blocks_split(act, k, size):
    """Small maps (a 75 KB intermediate, 7x7; EfficientNet's SiLU and 5x5) split as well."""
    got = build_and_compare(block(32, 96, size, act=act, k=k))
    assert got == (["expand,depthwise"] if AVX512 else [])


def test_mobilenet_v2_chains():
    model = models.mobilenet_v2(image_size=112, num_classes=10, seed=2)
    stages = build_and_compare(model)
    # 112x112 input: the 56x56 -> 28x28 block is banded; the 32-channel first block (its depthwise after the 3x3 s2
    # stem, no 1x1 expand) stays apart; every later block's expand and depthwise split by channels
    assert stages == (["expand,depthwise,project"] if VECTOR else []) + (["expand,depthwise"] * 15 if AVX512 else [])


@pytest.mark.parametrize("ctx, chains", [
    (dict(opt_level=3), True),
    (dict(opt_level=3, disabled_pass=["FuseDepthwiseChains"]), False),
    (dict(opt_level=2), False),
])
def test_pass_context_controls_chains(ctx, chains):
    with tvmlite.transform.PassContext(**ctx):
        got = build_and_compare(block(24, 144, 56))
    assert got == (["expand,depthwise,project"] if chains and VECTOR else [])
