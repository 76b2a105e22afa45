"""1-D and 3-D convolutions (and their transposes) on the cpu target:

  - Legalize: nn.conv1d / nn.conv1d_transpose become 2-D ones over H = 1, the squeeze sunk below the elementwise
    tail and cancelled against the next conv's expand_dims;
  - AlterOpLayout: nn.conv3d becomes nn.contrib_conv3d_NCDHWc (depthwise: nn.contrib_depthwise_conv3d_NCDHWc) on
    NCDHW{c}c, bias / elementwise ops / concatenates stay blocked;
  - FoldScaleAxis folds per-channel scales into conv1d / conv3d weights;
  - tvmlite.build(target="cpu") gives the debug target's outputs through native kernels (no reference node for the
    convs), with bias and activation fused into the conv's node, at opt_level 3 and with the layout pass off.
"""
import json

import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay.expr import Call
from tvmlite.relay.transform_layout import AlterOpLayout
from tvmlite.runtime import GraphModule

from ir_calls import calls_of, op_names


def calls(mod, name):
    return [c for c in calls_of(mod["main"].body) if isinstance(c.op, ir.Op) and c.op.name == name]


def _constant_subgraph(e):
    if isinstance(e, relay.Constant):
        return True
    return isinstance(e, Call) and all(_constant_subgraph(a) for a in e.args)


def activation_transforms(mod):
    """layout_transforms of activations, not of constants (weights, biases: those fold at build)."""
    return [(c.attrs.src_layout, c.attrs.dst_layout) for c in calls(mod, "layout_transform")
            if not _constant_subgraph(c.args[0])]


def const(rng, *shape, scale=0.3):
    return relay.const((rng.standard_normal(shape) * scale).astype("float32"))


def f32(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


def legalize(func):
    return relay.transform.Legalize()(ir.IRModule.from_expr(func))


def run(func, inputs, target, opt_level=3, params=None):
    with tvmlite.transform.PassContext(opt_level=opt_level):
        lib = tvmlite.build(ir.IRModule.from_expr(func), target=target, params=params)
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**inputs)
    gm.run()
    return lib, gm.get_output(0).numpy()


def check(func, inputs, opt_level=3, rtol=1e-4, atol=1e-4):
    """cpu vs debug outputs; returns the cpu graph's kernel nodes (func_name, kernel_attrs)."""
    lib, got = run(func, inputs, "cpu", opt_level)
    _, want = run(func, inputs, "debug", opt_level)
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale)
    return [(n["attrs"]["func_name"], n["attrs"].get("kernel_attrs", {}))
            for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]


def kernel_names(nodes):
    return [name for name, _ in nodes if name != "__nop"]


# ---------------------------------------------------------------------------------------------------------------
# Legalize


def test_conv1d_becomes_conv2d_over_one_row():
    x, w = relay.var("x", shape=(2, 8, 21)), relay.var("w", shape=(16, 4, 3))
    y = relay.nn.conv1d(x, w, strides=2, padding=(1, 2), dilation=2, groups=2, channels=16, kernel_size=3)
    mod = legalize(relay.Function([x, w], y))
    assert op_names(mod) == ["expand_dims", "expand_dims", "nn.conv2d", "squeeze"]
    conv = calls(mod, "nn.conv2d")[0]
    a = conv.attrs
    assert list(a.strides) == [1, 2] and list(a.padding) == [0, 1, 0, 2] and list(a.dilation) == [1, 2]
    assert a.groups == 2 and a.channels == 16 and list(a.kernel_size) == [1, 3]
    assert (a.data_layout, a.kernel_layout) == ("NCHW", "OIHW")
    assert [int(d) for d in mod["main"].body.checked_type.shape] == [2, 16, 10]


def test_conv1d_transpose_becomes_conv2d_transpose():
    x, w = relay.var("x", shape=(1, 6, 9)), relay.var("w", shape=(6, 4, 4))
    y = relay.nn.conv1d_transpose(x, w, strides=2, padding=(1, 0), output_padding=1, kernel_size=4)
    mod = legalize(relay.Function([x, w], y))
    assert op_names(mod) == ["expand_dims", "expand_dims", "nn.conv2d_transpose", "squeeze"]
    a = calls(mod, "nn.conv2d_transpose")[0].attrs
    assert list(a.strides) == [1, 2] and list(a.padding) == [0, 1, 0, 0] and list(a.output_padding) == [0, 1]
    assert (a.data_layout, a.kernel_layout) == ("NCHW", "IOHW") and list(a.kernel_size) == [1, 4]


def test_squeeze_sinks_below_the_elementwise_tail_and_cancels(rng):
    """conv1d -> bias_add -> relu -> (x + residual) * per-channel -> conv1d: one squeeze left, at the end."""
    x = relay.var("x", shape=(1, 8, 16))
    r = relay.var("r", shape=(1, 16, 16))
    y = relay.nn.bias_add(relay.nn.conv1d(x, const(rng, 16, 8, 3), padding=1), const(rng, 16))
    y = relay.multiply(relay.add(relay.nn.relu(y), r), const(rng, 16, 1))
    y = relay.clip(y, 0.0, 6.0)
    y = relay.nn.conv1d(y, const(rng, 8, 16, 1))
    func = relay.Function([x, r], y)
    mod = legalize(func)
    names = op_names(mod)
    assert names.count("squeeze") == 1 and names[-1] == "squeeze"  # (producers first)
    assert names.count("nn.conv2d") == 2 and "nn.conv1d" not in names
    # x and r get a unit H (views); the (16, 1) scale gets one before its last axis: (16, 1, 1)
    assert names.count("expand_dims") == 2 + 2 + 1
    inputs = {"x": f32(rng, 1, 8, 16), "r": f32(rng, 1, 16, 16)}
    _, want = run(func, inputs, "debug", opt_level=0)
    _, got = run(mod["main"], inputs, "debug", opt_level=0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_squeeze_does_not_sink_through_axis_ops_or_rank_changes(rng):
    x = relay.var("x", shape=(1, 4, 10))
    c = relay.nn.conv1d(x, const(rng, 4, 4, 3))
    y = relay.sum(c, axis=[2])  # a reduction: the squeeze stays before it
    mod = legalize(relay.Function([x], relay.add(y, relay.const(np.float32(1)))))
    assert op_names(mod).index("squeeze") < op_names(mod).index("sum")


def test_legalize_keeps_other_ops_and_layouts(rng):
    x = relay.var("x", shape=(1, 4, 6, 6))
    func = relay.Function([x], relay.nn.relu(relay.nn.conv2d(x, const(rng, 4, 4, 3, 3))))
    assert op_names(legalize(func)) == ["nn.conv2d", "nn.relu"]


# ---------------------------------------------------------------------------------------------------------------
# AlterOpLayout and FoldScaleAxis on 3-D convs


def unet3d_block(rng, x, cin, cout):
    y = relay.nn.conv3d(x, const(rng, cout, cin, 3, 3, 3), padding=(1, 1, 1))
    y = relay.nn.relu(relay.nn.bias_add(y, const(rng, cout)))
    return relay.nn.relu(relay.add(relay.nn.conv3d(y, const(rng, cout, cout, 3, 3, 3), padding=(1, 1, 1)),
                                   const(rng, cout, 1, 1, 1)))


def test_conv3d_chain_stays_blocked(rng):
    x = relay.var("x", shape=(1, 8, 4, 6, 6))
    a = unet3d_block(rng, x, 8, 16)
    b = relay.nn.conv3d(a, const(rng, 16, 1, 3, 3, 3), padding=(1, 1, 1), groups=16)  # depthwise
    y = relay.concatenate([a, relay.nn.relu(b)], axis=1)
    y = relay.nn.conv3d(y, const(rng, 32, 32, 1, 1, 1))
    mod = AlterOpLayout(max_block=16)(ir.IRModule.from_expr(relay.Function([x], y)))
    layouts = [(c.attrs.data_layout, c.attrs.kernel_layout) for c in calls(mod, "nn.contrib_conv3d_NCDHWc")]
    assert layouts == [("NCDHW8c", "OIDHW8i16o"), ("NCDHW16c", "OIDHW16i16o"), ("NCDHW16c", "OIDHW16i16o")]
    dw = calls(mod, "nn.contrib_depthwise_conv3d_NCDHWc")
    assert [(c.attrs.data_layout, c.attrs.kernel_layout) for c in dw] == [("NCDHW16c", "OIDHW1i16o")]
    transforms = activation_transforms(mod)
    assert ("NCDHW", "NCDHW8c") in transforms and ("NCDHW16c", "NCDHW") in transforms
    assert len([t for t in transforms if t[0] == "NCDHW16c"]) == 1  # only the output leaves the blocked part
    inputs = {"x": f32(rng, 1, 8, 4, 6, 6)}
    func = relay.Function([x], y)
    _, want = run(func, inputs, "debug", opt_level=0)
    _, got = run(mod["main"], inputs, "debug", opt_level=0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("rank, groups", [(2, 1), (2, 2), (3, 1), (3, 4)])
def test_constant_transposed_conv_weights_are_packed(rng, rank, groups):
    """AlterOpLayout packs a constant IOHW / IODHW weight per group ("IOHW{C/groups}i"), which FoldConstant folds:
    the kernel then reads it as its GEMM's A. A weight that is a graph input stays plain."""
    spatial = (5, 6) if rank == 2 else (3, 4, 5)
    x = relay.var("x", shape=(1, 8, *spatial))
    op = getattr(relay.nn, f"conv{rank}d_transpose")
    y = op(x, const(rng, 8, 3, *([3] * rank)), strides=2, padding=[1] * rank, groups=groups)
    mod = AlterOpLayout(max_block=16)(ir.IRModule.from_expr(relay.Function([x], y)))
    conv = calls(mod, f"nn.conv{rank}d_transpose")[0]
    plain = "IOHW" if rank == 2 else "IODHW"
    assert conv.attrs.kernel_layout == f"{plain}{8 // groups}i"
    assert [(c.attrs.src_layout, c.attrs.dst_layout) for c in calls(mod, "layout_transform")] == \
        [(plain, f"{plain}{8 // groups}i")]
    inputs = {"x": f32(rng, 1, 8, *spatial)}
    _, want = run(relay.Function([x], y), inputs, "debug", opt_level=0)
    _, got = run(mod["main"], inputs, "debug", opt_level=0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    w = relay.var("w", shape=(8, 3, *([3] * rank)))
    mod = AlterOpLayout(max_block=16)(ir.IRModule.from_expr(relay.Function([x, w], op(x, w, groups=groups))))
    assert calls(mod, f"nn.conv{rank}d_transpose")[0].attrs.kernel_layout == plain


@pytest.mark.parametrize("rank", [1, 3])
def test_fold_scale_axis_folds_into_conv1d_and_conv3d(rng, rank):
    spatial = (9,) if rank == 1 else (3, 4, 5)
    x = relay.var("x", shape=(2, 6, *spatial))
    conv = getattr(relay.nn, f"conv{rank}d")(x, const(rng, 8, 6, *([3] * rank)), padding=[1] * rank)
    y = relay.multiply(relay.nn.bias_add(conv, const(rng, 8)), const(rng, 8, *([1] * rank)))
    mod = ir.IRModule.from_expr(relay.Function([x], y))
    folded = relay.transform.FoldConstant()(relay.transform.FoldScaleAxis()(mod))
    assert "multiply" not in op_names(folded)
    inputs = {"x": f32(rng, 2, 6, *spatial)}
    _, want = run(mod["main"], inputs, "debug", opt_level=0)
    _, got = run(folded["main"], inputs, "debug", opt_level=0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------------------------------------------
# builds: native kernels, fused epilogues, the debug target's numbers


def conv1d_net(rng, c=16, length=37):
    """wav2vec-like: conv k3 s2 + bias + relu, a depthwise k5 + bias + relu, a 1x1 + bias with a residual."""
    x = relay.var("x", shape=(2, c, length))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv1d(x, const(rng, 32, c, 3), strides=2, padding=1),
                                        const(rng, 32)))
    z = relay.nn.relu(relay.nn.bias_add(relay.nn.conv1d(y, const(rng, 32, 1, 5), padding=2, groups=32),
                                        const(rng, 32)))
    z = relay.add(relay.nn.bias_add(relay.nn.conv1d(z, const(rng, 32, 32, 1)), const(rng, 32)), y)
    return relay.Function([x], z), {"x": f32(rng, 2, c, length)}


@pytest.mark.parametrize("opt_level", [3, 2])
def test_conv1d_net_is_native_and_fused(rng, opt_level):
    func, inputs = conv1d_net(rng)
    nodes = check(func, inputs, opt_level)
    names = kernel_names(nodes)
    assert "relay.backend.reference" not in names
    convs = [(n, a) for n, a in nodes if n.startswith("topi.nn.") and "conv" in n]
    assert len(convs) == 3
    if opt_level == 3:  # blocked: conv2d_nchwc, the depthwise kernel, conv2d_nchwc; bias and relu in each node
        assert [n for n, _ in convs] == ["topi.nn.conv2d_nchwc", "topi.nn.depthwise_conv2d_nchwc",
                                         "topi.nn.conv2d_nchwc"]
        assert names.count("topi.layout_transform") == 2  # in, and out
        assert [a["epilogue"].count("add") for _, a in convs] == [1, 1, 2]
        assert ["relu" in a["epilogue"] for _, a in convs] == [True, True, False]


@pytest.mark.parametrize("attrs", [
    dict(strides=1, padding=(0, 0), dilation=1, groups=1),
    dict(strides=3, padding=(2, 1), dilation=2, groups=1),
    dict(strides=1, padding=(3, 3), dilation=3, groups=4),
    dict(strides=2, padding=(1, 0), dilation=1, groups=16),  # depthwise
])
@pytest.mark.parametrize("batch", [1, 3])
def test_conv1d_configs(rng, attrs, batch):
    x = relay.var("x", shape=(batch, 16, 29))
    groups = attrs["groups"]
    y = relay.nn.conv1d(x, const(rng, 16, 16 // groups, 3), **attrs)
    y = relay.nn.relu(relay.nn.bias_add(y, const(rng, 16)))
    nodes = check(relay.Function([x], y), {"x": f32(rng, batch, 16, 29)})
    assert "relay.backend.reference" not in kernel_names(nodes)


@pytest.mark.parametrize("opt_level", [3, 1])
def test_conv1d_transpose_is_native_and_fused(rng, opt_level):
    x = relay.var("x", shape=(2, 16, 25))
    y = relay.nn.conv1d_transpose(x, const(rng, 16, 8, 4), strides=2, padding=(1, 1), output_padding=1)
    y = relay.nn.relu(relay.nn.bias_add(y, const(rng, 8)))
    nodes = check(relay.Function([x], y), {"x": f32(rng, 2, 16, 25)}, opt_level)
    convs = [(n, a) for n, a in nodes if n == "topi.nn.conv2d_transpose"]
    assert len(convs) == 1 and "relay.backend.reference" not in kernel_names(nodes)
    assert "add" in convs[0][1]["epilogue"] and "relu" in convs[0][1]["epilogue"]
    assert convs[0][1]["kernel_layout"] == ("IOHW16i" if opt_level == 3 else "IOHW")  # packed at build


@pytest.mark.parametrize("opt_level", [3, 2])
def test_conv3d_net_is_native_and_fused(rng, opt_level):
    x = relay.var("x", shape=(1, 8, 4, 6, 6))
    a = unet3d_block(rng, x, 8, 16)
    b = relay.nn.relu(relay.nn.bias_add(relay.nn.conv3d(a, const(rng, 16, 1, 3, 3, 3), padding=(1, 1, 1),
                                                        groups=16), const(rng, 16)))
    c = relay.nn.conv3d(relay.concatenate([a, b], axis=1), const(rng, 32, 8, 1, 3, 3), padding=(0, 1, 1),
                        strides=(1, 2, 2), groups=4)
    nodes = check(relay.Function([x], c), {"x": f32(rng, 1, 8, 4, 6, 6)}, opt_level)
    names = kernel_names(nodes)
    assert "relay.backend.reference" not in names
    if opt_level == 3:
        assert names.count("topi.nn.conv3d") == 3 and names.count("topi.nn.depthwise_conv3d_ncdhwc") == 1
        assert names.count("topi.layout_transform") == 2
        # bias + relu in the first three convs' nodes (the depthwise one's too), nothing in the last
        fused = [a["epilogue"] for n, a in nodes if n in ("topi.nn.conv3d", "topi.nn.depthwise_conv3d_ncdhwc")]
        assert all("add" in e and "relu" in e for e in fused[:3]) and fused[3] == ""
    else:  # the plain NCDHW paths: conv3d (blocks of 1) for every conv, the depthwise one included
        assert names.count("topi.nn.conv3d") == 4


@pytest.mark.parametrize("attrs, kernel", [
    (dict(strides=(2, 2, 2), padding=(0, 0, 0), output_padding=(0, 0, 0), groups=1), (2, 2, 2)),
    (dict(strides=(1, 2, 2), padding=(1, 1, 1), output_padding=(0, 1, 1), groups=2), (3, 3, 3)),
])
def test_conv3d_transpose_is_native_and_fused(rng, attrs, kernel):
    x = relay.var("x", shape=(2, 8, 3, 5, 5))
    out_channels = 4 * attrs["groups"]  # weight (C, O / groups, ...)
    y = relay.nn.conv3d_transpose(x, const(rng, 8, 4, *kernel), **attrs)
    y = relay.nn.relu(relay.nn.bias_add(y, const(rng, out_channels)))
    nodes = check(relay.Function([x], y), {"x": f32(rng, 2, 8, 3, 5, 5)})
    convs = [(n, a) for n, a in nodes if n == "topi.nn.conv3d_transpose"]
    assert len(convs) == 1 and "relay.backend.reference" not in kernel_names(nodes)
    assert "add" in convs[0][1]["epilogue"] and "relu" in convs[0][1]["epilogue"]
