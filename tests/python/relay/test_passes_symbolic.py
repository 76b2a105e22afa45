"""The cpu pipeline's passes on symbolic dims (issue 31): a model whose batch (or sequence, or spatial) dims are
SizeVars (`N`, `batch`, `seq`) optimises to the same structure as its static version wherever a rule does not read
the dim's value: the same fused groups (conv + bias + relu, dense + bias + gelu), the same NCHW{c}c convs, and the
named dims kept through to main's result (not a fresh `?`). A rule that does read a spatial value (the Winograd
choice) takes the direct conv, right for every size. The optimised symbolic module computes what the static one
does, at two shapes, through the debug target and the cpu build."""
import collections
import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import tvmlite
from tvmlite import ir, relay
from tvmlite.frontend import from_onnx
from tvmlite.models import cnn
from tvmlite.relay.backend import cpu_pipeline

from ir_calls import calls_of


def _block_layout():
    """The blocked layout of 16 or 32 channels on this CPU: AlterOpLayout's block is the ISA's vector width."""
    return "NCHW16c" if tvmlite.get_global_func("topi.cpu_isa")() == "avx512" else "NCHW8c"


def _optimized(mod, params=None):
    return cpu_pipeline.optimize(cpu_pipeline.bind_params(relay.transform.InferType()(mod), params))


def _optimized_onnx(model):
    return _optimized(*from_onnx(model))


def _structure(mod):
    """(groups, convs): the multiset of fused groups, each the sorted op names of one Primitive function (a bare op
    call outside any group is a group of its own), and the multiset of (conv op, data_layout) over the module."""
    calls = calls_of(mod["main"].body)
    inside = set()
    groups = collections.Counter()
    for call in calls:
        if isinstance(call.op, relay.Function):
            members = [c for c in calls_of(call.op.body) if isinstance(c.op, ir.Op)]
            inside.update(members)
            groups[tuple(sorted(c.op.name for c in members))] += 1
    for call in calls:
        if isinstance(call.op, ir.Op) and call not in inside:
            groups[(call.op.name,)] += 1
    convs = collections.Counter((c.op.name, str(c.attrs.data_layout)) for c in calls
                                if isinstance(c.op, ir.Op) and "conv" in c.op.name)
    return groups, convs


def _dims(mod):
    """main's result dims: ints, or the SizeVars' names."""
    shape = mod["main"].body.checked_type.shape
    return [d.name_hint if isinstance(d, ir.SizeVar) else int(d) for d in shape]


def _blocked(convs):
    return sum(n for (_, layout), n in convs.items() if re.fullmatch(r"NCHW\d+c", layout))


def _run(lib, name, x):
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(name, x)
    gm.run()
    return gm.get_output(0).numpy()


# ---- an encoder built with onnx.helper: MatMul + Add, attention, LayerNormalization, Softmax, GELU (Erf form) ----

def _encoder(batch, seq, hidden=32, heads=2, ffn=64, seed=0):
    """One BERT-style layer over tokens (batch, seq, hidden); Reshape by [0, 0, ...] as exporters write it for a
    symbolic batch and sequence."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def init(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(name, shape):
        return init(name, (rng.standard_normal(shape) * 0.1).astype("float32"))

    def node(op, inputs, **attrs):
        out = f"{op.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def linear(x, din, dout, name):
        return node("Add", [node("MatMul", [x, weight(name + "_w", (din, dout))]), weight(name + "_b", (dout,))])

    def layer_norm(x, name):
        return node("LayerNormalization", [x, weight(name + "_g", (hidden,)), weight(name + "_b", (hidden,))],
                    axis=-1, epsilon=1e-5)

    head_dim = hidden // heads
    split = init("split_shape", np.array([0, 0, heads, head_dim], "int64"))
    merge = init("merge_shape", np.array([0, 0, hidden], "int64"))

    def heads_of(t, perm):
        return node("Transpose", [node("Reshape", [t, split])], perm=perm)

    x = "tokens"
    q = heads_of(linear(x, hidden, hidden, "q"), [0, 2, 1, 3])
    k = heads_of(linear(x, hidden, hidden, "k"), [0, 2, 3, 1])
    v = heads_of(linear(x, hidden, hidden, "v"), [0, 2, 1, 3])
    scores = node("Mul", [node("MatMul", [q, k]), init("scale", np.array(head_dim ** -0.5, "float32"))])
    att = node("MatMul", [node("Softmax", [scores], axis=-1), v])
    o = node("Reshape", [node("Transpose", [att], perm=[0, 2, 1, 3]), merge])
    x = layer_norm(node("Add", [x, linear(o, hidden, hidden, "o")]), "ln1")
    h = linear(x, hidden, ffn, "ffn1")
    erf = node("Erf", [node("Div", [h, init("sqrt2", np.array(np.sqrt(2.0), "float32"))])])
    h = node("Mul", [node("Mul", [h, node("Add", [erf, init("one", np.array(1.0, "float32"))])]),
                     init("half", np.array(0.5, "float32"))])
    x = layer_norm(node("Add", [x, linear(h, ffn, hidden, "ffn2")]), "ln2")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(nodes, "encoder",
                              [helper.make_tensor_value_info("tokens", TensorProto.FLOAT, [batch, seq, hidden])],
                              [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [batch, seq, hidden])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


# name -> (symbolic model, static model of shape, input name, input shape of a given size, result dims)
CASES = {
    "resnet18": (lambda: cnn.resnet(18, batch="N", image_size=32, width=0.25),
                 lambda n: cnn.resnet(18, batch=n, image_size=32, width=0.25),
                 "input", lambda n: (n, 3, 32, 32), ["N", 1000]),
    "mobilenet_v2": (lambda: cnn.mobilenet_v2(batch="N", image_size=32, width=0.35),
                     lambda n: cnn.mobilenet_v2(batch=n, image_size=32, width=0.35),
                     "input", lambda n: (n, 3, 32, 32), ["N", 1000]),
    "encoder": (lambda: _encoder("batch", "seq"), lambda n: _encoder(n, 2 * n + 1),
                "tokens", lambda n: (n, 2 * n + 1, 32), ["batch", "seq", 32]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_symbolic_optimises_like_static(name):
    symbolic, static, _, _, dims = CASES[name]
    sym = _optimized_onnx(symbolic())
    groups, convs = _structure(sym)
    want_groups, want_convs = _structure(_optimized_onnx(static(2)))
    assert groups == want_groups
    assert convs == want_convs
    assert _dims(sym) == dims
    assert "?" not in str(sym)  # every dim downstream is the input's SizeVar or static


def test_groups_are_fused():
    """What the comparison above would also accept if both sides lost it: the anchors' epilogues in one group."""
    groups, convs = _structure(_optimized_onnx(CASES["resnet18"][0]()))
    assert groups[("add", "nn.contrib_conv2d_NCHWc", "nn.relu")] > 0          # conv + bias + relu
    assert groups[("add", "add", "nn.contrib_conv2d_NCHWc", "nn.relu")] > 0   # ... + residual
    assert ("nn.conv2d", "NCHW") not in convs and _blocked(convs) == sum(convs.values()) == 20
    groups, _ = _structure(_optimized_onnx(CASES["encoder"][0]()))
    assert groups[("add", "nn.contrib_dense_pack", "nn.gelu")] == 1
    assert groups[("add", "add", "nn.contrib_dense_pack")] == 2               # dense + bias + residual
    assert groups[("add", "nn.contrib_dense_pack")] == 3                      # q, k, v


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("target", ["debug", "cpu"])
def test_symbolic_build_runs_every_shape(name, target):
    symbolic, static, input_name, shape, _ = CASES[name]
    lib = tvmlite.build(_optimized_onnx(symbolic()), target=target)
    rng = np.random.default_rng(0)
    for n in (1, 3):
        x = rng.standard_normal(shape(n)).astype("float32")
        want = _run(tvmlite.build(_optimized_onnx(static(n)), target="cpu"), input_name, x)
        got = _run(lib, input_name, x)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# ---- relay graphs: the rules that read a spatial value, and fusion's shape check ----

def _conv_relu(shape, rng, channels=32):
    x = relay.var("x", shape=shape, dtype="float32")
    w = relay.const(rng.standard_normal((channels, shape[1], 3, 3)).astype("float32"))
    b = relay.const(rng.standard_normal((channels, 1, 1)).astype("float32"))
    y = relay.nn.relu(relay.add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    return ir.IRModule.from_expr(relay.Function([x], y))


def test_winograd_with_symbolic_batch_per_shape_with_symbolic_plane(rng):
    """The tile choice reads the output plane, not the batch: a symbolic N keeps the static choice (Winograd for
    a 28x28 plane of 32 channels), a symbolic H / W takes the conv that chooses per run-time plane
    (tests/python/relay/test_winograd_per_shape.py); both stay blocked and fused."""
    n, h, w = ir.SizeVar("N"), ir.SizeVar("H"), ir.SizeVar("W")
    static = _structure(_optimized(_conv_relu((1, 32, 28, 28), np.random.default_rng(0))))
    assert static[1] == {("nn.contrib_conv2d_winograd_without_weight_transform", _block_layout()): 1}
    batch = _optimized(_conv_relu((n, 32, 28, 28), np.random.default_rng(0)))
    assert _structure(batch) == static
    plane = _structure(_optimized(_conv_relu((n, 32, h, w), np.random.default_rng(0))))
    per_shape = bool(len(tvmlite.get_global_func("topi.nn.conv2d_winograd_tiles")(32, 32, 1)))
    anchor = "nn.contrib_conv2d_winograd_per_shape" if per_shape else "nn.contrib_conv2d_NCHWc"
    assert plane[1] == {(anchor, _block_layout()): 1}
    assert plane[0][("add", anchor, "nn.relu")] == 1
    lib = tvmlite.build(batch, target="debug")
    for size in (1, 2):
        x = rng.standard_normal((size, 32, 28, 28)).astype("float32")
        want = _run(tvmlite.build(_optimized(_conv_relu((size, 32, 28, 28), np.random.default_rng(0))),
                                  target="debug"), "x", x)
        np.testing.assert_allclose(_run(lib, "x", x), want, rtol=1e-4, atol=1e-4)


def test_symbolic_plane_residual_fuses(rng):
    """A 3x3 pad-1 stride-1 conv keeps its input's symbolic H and W (the window relation's "same" case), so the
    identity residual add joins the second conv's group as over a static plane, blocked, computing the same
    values."""
    n, h, w = ir.SizeVar("N"), ir.SizeVar("H"), ir.SizeVar("W")
    x = relay.var("x", shape=(n, 16, h, w), dtype="float32")

    def conv(t):
        weight = relay.const(rng.standard_normal((16, 16, 3, 3)).astype("float32") * 0.1)
        return relay.nn.conv2d(t, weight, padding=(1, 1))

    y = relay.nn.relu(relay.add(conv(relay.nn.relu(conv(x))), x))
    mod = ir.IRModule.from_expr(relay.Function([x], y))
    opt = _optimized(mod)
    groups, convs = _structure(opt)
    # the conv choosing per run-time plane where a Winograd tile suits 16 channels (AVX-512), else the direct one
    per_shape = bool(len(tvmlite.get_global_func("topi.nn.conv2d_winograd_tiles")(16, 16, 1)))
    anchor = "nn.contrib_conv2d_winograd_per_shape" if per_shape else "nn.contrib_conv2d_NCHWc"
    assert convs == {(anchor, _block_layout()): 2}
    transforms = [c for c in calls_of(opt["main"].body) if getattr(c.op, "name", None) == "layout_transform"]
    assert len(transforms) == 2  # one into the blocks after the input, one out at the result
    assert groups == {("layout_transform",): 2, (anchor, "nn.relu"): 1, ("add", anchor, "nn.relu"): 1}
    assert str(opt["main"].body.checked_type) == "Tensor[(N, 16, H, W), float32]"
    lib = tvmlite.build(opt, target="debug")
    want = tvmlite.build(mod, target="debug")
    for shape in ((1, 16, 6, 7), (2, 16, 5, 5)):
        data = rng.standard_normal(shape).astype("float32")
        np.testing.assert_allclose(_run(lib, "x", data), _run(want, "x", data), rtol=1e-4, atol=1e-4)


def test_strided_windows_over_one_dim_share_their_output_dim(rng):
    """Two strided windows that compute the same size over the same symbolic dim (ResNet's downsampling block: a 3x3
    stride-2 conv padded 1 and the 1x1 stride-2 shortcut, both (H - 1) // 2 + 1) give the same output dim, so the
    residual add still joins a conv's group; a window computing another size gets a dim of its own."""
    n, h, w = ir.SizeVar("N"), ir.SizeVar("H"), ir.SizeVar("W")
    x = relay.var("x", shape=(n, 16, h, w), dtype="float32")

    def conv(t, k, stride, pad):
        weight = relay.const(rng.standard_normal((16, 16, k, k)).astype("float32") * 0.1)
        return relay.nn.conv2d(t, weight, strides=stride, padding=pad)

    main, shortcut, other = conv(x, 3, 2, 1), conv(x, 1, 2, 0), conv(x, 3, 2, 0)
    y = relay.nn.relu(relay.add(main, shortcut))
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.Tuple([y, other]))))
    (y_type, other_type) = mod["main"].body.checked_type.fields
    main_dims = list(mod["main"].body.fields[0].args[0].args[0].checked_type.shape)
    assert main_dims[2].same_as(y_type.shape[2]) and main_dims[3].same_as(y_type.shape[3])
    assert not other_type.shape[2].same_as(y_type.shape[2])  # (H - 3) // 2 + 1
    groups, _ = _structure(_optimized(ir.IRModule.from_expr(relay.Function([x], y))))
    assert sum(n for g, n in groups.items() if "add" in g and any("conv" in op for op in g)) == 1
    lib = tvmlite.build(ir.IRModule.from_expr(relay.Function([x], y)), target="cpu")
    want = tvmlite.build(ir.IRModule.from_expr(relay.Function([x], y)), target="debug")
    for shape in ((1, 16, 9, 7), (2, 16, 6, 6)):
        data = rng.standard_normal(shape).astype("float32")
        np.testing.assert_allclose(_run(lib, "x", data), _run(want, "x", data), rtol=1e-4, atol=1e-4)


def test_fusion_needs_the_anchors_shape(rng):
    """An add whose result takes another input's symbolic dims (H2 against the conv's H) might broadcast the conv's
    output wider at run time (the conv's H may be 1): it does not join the conv's group, and the build computes the
    broadcast. A (N, 16, 1, 1) operand joins; so does one whose dims are the conv's own."""
    n, h, w, h2, w2 = (ir.SizeVar(s) for s in ("N", "H", "W", "H2", "W2"))
    for other, fused in (((n, 16, h2, w2), False), ((n, 16, 1, 1), True), ((n, 16, h, w), True)):
        x = relay.var("x", shape=(n, 16, h, w), dtype="float32")
        r = relay.var("r", shape=other, dtype="float32")
        weight = relay.const(rng.standard_normal((16, 16, 1, 1)).astype("float32"))
        y = relay.add(relay.nn.conv2d(x, weight), r)
        opt = relay.transform.FuseOps()(relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x, r], y))))
        groups, _ = _structure(opt)
        assert (groups[("add", "nn.conv2d")] == 1) is fused, (other, groups)
    x, r = relay.var("x", shape=(n, 16, h, w)), relay.var("r", shape=(n, 16, h2, w2))
    lib = tvmlite.build(relay.Function([x, r], relay.add(relay.nn.conv2d(x, weight), r)), target="cpu")
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    xs, rs = np.ones((1, 16, 1, 1), "float32"), np.ones((1, 16, 3, 3), "float32")
    gm.set_input(x=xs, r=rs)
    gm.run()
    want = np.einsum("oi,nihw->nohw", weight.data.numpy()[:, :, 0, 0], xs) + rs
    np.testing.assert_allclose(gm.get_output(0).numpy(), want, rtol=1e-5)


def test_legalize_with_symbolic_length(rng):
    """Legalize reads ranks and the split axis only: a conv1d chain over (N, 8, L) becomes blocked 2-D convs with
    their bias and gelu fused, as over a static length, and a split of the static last axis of (N, L, 96) becomes
    strided_slices."""
    n, length = ir.SizeVar("N"), ir.SizeVar("L")

    def conv1d_chain(shape):
        weights = np.random.default_rng(0)
        x = relay.var("x", shape=shape, dtype="float32")
        y = x
        for cin, cout in ((8, 16), (16, 16)):
            w = relay.const(weights.standard_normal((cout, cin, 3)).astype("float32"))
            b = relay.const(weights.standard_normal((cout,)).astype("float32"))
            y = relay.nn.gelu(relay.nn.bias_add(relay.nn.conv1d(y, w, padding=(1, 1)), b))
        return ir.IRModule.from_expr(relay.Function([x], y))

    static = _structure(_optimized(conv1d_chain((2, 8, 50))))
    assert static[0][("add", "nn.contrib_conv2d_NCHWc", "nn.gelu")] == 2
    assert _structure(_optimized(conv1d_chain((n, 8, length)))) == static

    x = relay.var("x", shape=(n, length, 96), dtype="float32")
    pieces = relay.split(x, 3, axis=2)
    opt = _optimized(ir.IRModule.from_expr(relay.Function([x], relay.add(pieces[0], pieces[2]))))
    groups, _ = _structure(opt)
    assert groups == {("strided_slice",): 2, ("add",): 1}
    assert _dims(opt) == ["N", "L", 32]
    data = rng.standard_normal((2, 3, 96)).astype("float32")
    np.testing.assert_allclose(_run(tvmlite.build(opt, target="debug"), "x", data), data[..., :32] + data[..., 64:])
