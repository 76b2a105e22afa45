"""topi.nn.depthwise_conv2d_nchwc, topi.nn.{max,avg}_pool2d (and pool2d), topi.nn.global_{max,avg}_pool2d
(and global_pool2d): csrc/topi/nn/depthwise_conv2d.cc, csrc/topi/x86/*/depthwise_conv2d.cc, csrc/topi/nn/pool.cc.

Depthwise is checked against a float64 numpy convolution, pooling against the ops' numpy references (which fix
ceil_mode's dropped window and count_include_pad's divisor), on every ISA path, with 1 and 2 threads, in plain
NCHW and blocked NCHW{c}c layouts (packed here), with fused epilogues, and every bad input raises an error that
names the kernel.
"""
import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from blocked import pack, unpack
from tvmlite.ir import Op
from tvmlite.relay.op.op import get_reference

DW = "topi.nn.depthwise_conv2d_nchwc"


def _func(name):
    return tvmlite.get_global_func(name)


# -- layouts -------------------------------------------------------------------------------------------------------
def block_size(channels):
    """The block docs/compiler.md gives a tensor of this many channels: the largest of 16, 8, 4, 2, 1 dividing it."""
    return next(b for b in (16, 8, 4, 2, 1) if channels % b == 0)


def pack_depthwise_weight(w, c):
    """(C, 1, KH, KW) -> OIHW1i{c}o, (C/c, 1, KH, KW, 1, c)."""
    ch, _, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(ch // c, c, 1, kh, kw).transpose(0, 2, 3, 4, 1)[:, :, :, :, None, :])


def run(kernel, attrs, *inputs, out_shape):
    out = tvmlite.nd.empty(out_shape, "float32")
    _func(kernel)(attrs)(*[tvmlite.nd.array(np.ascontiguousarray(x)) for x in inputs], out)
    return out.numpy()


# -- depthwise -----------------------------------------------------------------------------------------------------
def _pads(padding):
    p = list(padding)
    if len(p) == 4:
        return p
    p = p * 2 if len(p) == 1 else p
    return [p[0], p[1], p[0], p[1]]


def depthwise_ref(x, w, strides, padding, dilation):
    """float64 depthwise convolution (multiplier 1) of NCHW x with (C, 1, KH, KW) w."""
    top, left, bottom, right = _pads(padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (top, bottom), (left, right)])
    kh, kw = w.shape[2:]
    (sh, sw), (dh, dw) = strides, dilation
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
            y += patch * w[:, 0, i, j].astype(np.float64)[None, :, None, None]
    return y


def check_depthwise(rng, channels, hw, k, strides, padding, dilation, block, batch=2, epilogue=None, layout=False):
    """Run the kernel on (batch, channels, *hw) data in NCHW{block}c (block 0: plain NCHW) against numpy."""
    x = rng.standard_normal((batch, channels) + hw).astype(np.float32)
    w = rng.standard_normal((channels, 1, k, k)).astype(np.float32)
    bias = rng.standard_normal(channels).astype(np.float32)
    ref = depthwise_ref(x, w, strides, padding, dilation)
    attrs = {"strides": list(strides), "padding": list(padding), "dilation": list(dilation), "groups": channels}
    if layout:  # the layout attrs the relay op carries
        attrs.update(data_layout=f"NCHW{block}c" if block else "NCHW", kernel_size=[k, k],
                     kernel_layout=f"OIHW1i{block}o" if block else "OIHW", out_layout="")
    extra = []
    if epilogue:
        attrs["epilogue"] = "add r0 r0 in0; clip r0 r0 0 6"
        ref = np.clip(ref + bias[None, :, None, None], 0, 6)
        extra = [bias.reshape(1, channels, 1, 1) if not block else
                 pack(bias.reshape(1, channels, 1, 1), block)]
    if block:
        got = unpack(run(DW, attrs, pack(x, block), pack_depthwise_weight(w, block), *extra,
                         out_shape=pack(ref, block).shape))
    else:
        got = run(DW, attrs, x, w, *extra, out_shape=ref.shape)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


DW_CASES = [
    # channels, (H, W), kernel, strides, padding, dilation
    (32, (13, 17), 3, (1, 1), [1], (1, 1)),
    (32, (14, 14), 3, (2, 2), [0, 0, 1, 1], (1, 1)),   # TF-style asymmetric "SAME" for stride 2
    (24, (15, 9), 3, (2, 2), [1, 1], (1, 1)),
    (40, (11, 30), 5, (3, 3), [2, 1, 0, 3], (2, 2)),
    (8, (7, 7), 1, (1, 1), [0], (1, 1)),
    (16, (5, 23), 2, (1, 2), [1, 0], (1, 3)),
    (32, (3, 3), 3, (1, 1), [1], (1, 1)),               # every column a border column
    (32, (9, 40), 3, (1, 1), [0], (1, 1)),              # no padding: 38 interior columns, tiles of 13, 13, 12
    (32, (12, 37), 5, (1, 1), [4], (2, 2)),             # block 16, 5 taps dilated: the general interior tile
    # block 16, 3 taps: tiles whose outside columns are known at compile time (pad 1) or found at run time
    (16, (5, 40), 3, (1, 1), [1], (1, 1)),              # tiles of 14, 13, 13: left edge, none, right edge
    (16, (13, 13), 3, (2, 2), [1], (1, 1)),             # stride 2, one tile with both edges
    (32, (6, 7), 3, (1, 1), [2], (1, 1)),               # pad 2: two outside columns each side, found at run time
    # block 8, 3 taps: AVX2's whole-row tiles (at most 12 columns)
    (8, (5, 30), 3, (1, 1), [1], (1, 1)),               # tiles of 10: left edge, none, right edge
    (24, (7, 7), 3, (1, 1), [1], (1, 1)),               # one tile with both edges
    (40, (14, 14), 3, (2, 2), [0, 0, 1, 1], (1, 1)),    # stride 2, only the right edge outside
    (8, (6, 7), 3, (1, 1), [2], (1, 1)),                # pad 2: found at run time
    # blocks of 2 and 4 (channels no 8 divides): each tap swept over its columns, in vectors at stride 1
    (58, (14, 15), 3, (1, 1), [1], (1, 1)),             # block 2
    (116, (7, 9), 5, (2, 2), [2, 1, 2, 3], (1, 1)),     # block 4, stride 2
    (36, (9, 11), 3, (1, 1), [2], (2, 2)),              # block 4, dilated
    (6, (5, 21), 9, (1, 1), [4], (1, 1)),               # block 2, MixNet's 9x9
]


@pytest.mark.parametrize("case", DW_CASES, ids=lambda c: f"C{c[0]}_{c[1][0]}x{c[1][1]}_k{c[2]}_s{c[3][0]}")
def test_depthwise_blocked(rng, isa, threads, case):
    channels = case[0]
    check_depthwise(rng, *case, block=block_size(channels))


@pytest.mark.parametrize("case,block", [(c, b) for c in DW_CASES[:4] for b in (0, 2, 4, 8, 16)
                                        if not b or c[0] % b == 0],
                         ids=lambda v: f"C{v[0]}_k{v[2]}_s{v[3][0]}" if isinstance(v, tuple) else f"block{v}")
def test_depthwise_every_block(rng, isa, case, block):
    """Blocks other than the tensor's natural one (and plain NCHW, block 0) that divide the channels take the
    portable or narrower paths."""
    check_depthwise(rng, *case, block=block)
    check_depthwise(rng, *case, block=block, layout=True)


@pytest.mark.parametrize("block", [0, 2, 4, 8, 16])
def test_depthwise_bias_relu6_epilogue(rng, isa, threads, block):
    check_depthwise(rng, 32, (12, 13), 3, (2, 2), [1], (1, 1), block, epilogue=True)
    check_depthwise(rng, 32, (12, 13), 3, (1, 1), [1], (1, 1), block, epilogue=True)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


EPILOGUES = [
    # program, numpy of (conv, in0), in0's shape as a function of (out NCHW shape): "channel" | "full" | None
    ("add r0 r0 in0; clip r0 r0 0 6", lambda y, b: np.clip(y + b, 0, 6), "channel"),   # in registers
    ("add r0 in0 r0; relu r0 r0", lambda y, b: np.maximum(y + b, 0), "channel"),        # in registers
    ("add r0 r0 in0", lambda y, b: y + b, "channel"),                                   # in registers
    ("relu r0 r0", lambda y, b: np.maximum(y, 0), None),                                # in registers
    ("clip r0 r0 -1 0.5", lambda y, b: np.clip(y, -1, 0.5), None),                      # in registers
    # the lowering's form: intermediates in fresh registers, the chain ending in r0
    ("add r1 r0 in0; clip r0 r1 0 6", lambda y, b: np.clip(y + b, 0, 6), "channel"),   # in registers
    ("add r2 in0 r0; relu r0 r2", lambda y, b: np.maximum(y + b, 0), "channel"),        # in registers
    ("clip r0 r0 2 -1", lambda y, b: np.where(y < 2, 2, np.where(y > -1, -1, y)), None),  # lo > hi: interpreter
    ("add r1 r0 in0; relu r1 r1", lambda y, b: y, "channel"),                           # r0 kept: interpreter
    ("add r0 r0 in0; clip r0 r0 0 6", lambda y, b: np.clip(y + b, 0, 6), "full"),      # interpreter
    ("add r0 r0 in0; sigmoid r0 r0", lambda y, b: _sigmoid(y + b), "channel"),          # interpreter
    ("clip r0 r0 0 6; add r0 r0 in0", lambda y, b: np.clip(y, 0, 6) + b, "channel"),   # interpreter
    ("add r0 r0 in0; relu r0 r0; add r0 r0 1", lambda y, b: np.maximum(y + b, 0) + 1, "channel"),
]


@pytest.mark.parametrize("block", [0, 8, 16])
@pytest.mark.parametrize("epilogue", EPILOGUES, ids=lambda e: f"{e[0].replace(' ', '_')}-{e[2]}")
def test_depthwise_epilogue_forms(rng, isa, block, epilogue):
    """Bias and relu/relu6 run in the rows' registers, any other program through the interpreter: same values,
    NaN included."""
    program, fn, bias_kind = epilogue
    channels, hw = 32, (9, 20)
    x = rng.standard_normal((2, channels) + hw).astype(np.float32)
    x[0, 3, 4, 5] = np.nan
    w = rng.standard_normal((channels, 1, 3, 3)).astype(np.float32)
    conv = depthwise_ref(x, w, (1, 1), [1], (1, 1))
    extra, b = [], 0.0
    if bias_kind:
        b = rng.standard_normal((1, channels, 1, 1) if bias_kind == "channel" else conv.shape).astype(np.float32)
        extra = [pack(b, block) if block else b]
        if bias_kind == "channel":  # also without the leading 1, as relay's broadcast allows
            extra = [extra[0][0]]
    with np.errstate(invalid="ignore", over="ignore"):
        ref = fn(conv, b)
    attrs = {"padding": [1], "groups": channels, "epilogue": program}
    if block:
        got = unpack(run(DW, attrs, pack(x, block), pack_depthwise_weight(w, block), *extra,
                         out_shape=pack(conv, block).shape))
    else:
        got = run(DW, attrs, x, w, *extra, out_shape=conv.shape)
    assert np.isnan(got[0, 3, 4, 5])
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("channels,size,stride", [(32, 28, 1), (96, 28, 2), (160, 7, 1)])
def test_depthwise_mobilenet_v2_layers(rng, isa, channels, size, stride):
    """MobileNetV2's 3x3 depthwise layers (scaled-down spatial sizes): pads 1, stride 1 or 2, batch 1."""
    check_depthwise(rng, channels, (size, size), 3, (stride, stride), [1], (1, 1), 16, batch=1, epilogue=True)


def _dw_args(c=16, cb=2, h=6, w=6, k=3):
    x = np.zeros((1, cb, h, w, c), np.float32)
    wt = np.zeros((cb, 1, k, k, 1, c), np.float32)
    return x, wt, (1, cb, h - k + 1, w - k + 1, c)


def _nd(*arrays):
    return [tvmlite.nd.array(a) for a in arrays]


def test_depthwise_bad_input():
    f = _func(DW)({"groups": 32})
    x, w, shape = _dw_args()
    out = tvmlite.nd.empty(shape, "float32")
    with pytest.raises(TypeError, match=DW + ": data must be float32"):
        f(*_nd(x.astype(np.float64), w), out)
    with pytest.raises(ValueError, match=DW + ": data must be .* got rank 3"):
        f(*_nd(x[0, 0], w), out)
    with pytest.raises(ValueError, match=DW + r": weight has shape \(2, 1, 3, 3, 1, 8\), expected"):
        f(*_nd(x, w[..., :8].copy()), out)
    with pytest.raises(ValueError, match=DW + ": weight has shape .* expected .* for blocked data"):
        f(*_nd(x, w[0]), out)
    with pytest.raises(ValueError, match=DW + ": out must have shape"):
        f(*_nd(x, w), tvmlite.nd.empty((1, 2, 3, 3, 16), "float32"))
    with pytest.raises(ValueError, match=DW + r": the 7x7 kernel .* does not fit"):
        f(*_nd(x, np.zeros((2, 1, 7, 7, 1, 16), np.float32)), out)
    with pytest.raises(TypeError, match=DW + ": expected at least 3 tensor arguments"):
        f(*_nd(x, w))
    g = _func(DW)({"data_layout": "NCHW8c"})
    with pytest.raises(ValueError, match=DW + r": data does not match data_layout \(block 8\): its shape is 5-D "
                                           "with block 16"):
        g(*_nd(x, w), out)
    with pytest.raises(ValueError, match=DW + r": groups = 32 must equal the channels \(48\)"):
        f(*_nd(np.zeros((1, 3, 6, 6, 16), np.float32), np.zeros((3, 1, 3, 3, 1, 16), np.float32)),
          tvmlite.nd.empty((1, 3, 4, 4, 16), "float32"))


def test_depthwise_channel_multiplier_is_refused():
    f = _func(DW)({})
    x = np.zeros((1, 8, 5, 5), np.float32)
    w = np.zeros((16, 1, 3, 3), np.float32)
    with pytest.raises(ValueError, match=DW + ": channel multiplier 2 is not supported"):
        f(*_nd(x, w), tvmlite.nd.empty((1, 16, 3, 3), "float32"))
    with pytest.raises(ValueError, match=DW + ": channel multiplier 2 is not supported"):
        f(*_nd(pack(x, 8), pack_depthwise_weight(w, 16)), tvmlite.nd.empty((1, 1, 3, 3, 16), "float32"))


@pytest.mark.parametrize("attrs,message", [
    ({"padding": [1, 1, 1]}, "padding needs 1, 2 or 4 values"),
    ({"strides": [0, 1]}, r"strides\[0\] = 0 is out of range"),
    ({"dilation": [1, 1, 1]}, "dilation needs 1 or 2 values"),
    ({"groups": 0}, "groups = 0 must be >= 1"),
    ({"strides": 2}, "attribute 'strides' must be a list of ints"),
    ({"epilogue": "frobnicate r0 r0"}, ""),
    ({"out_dtype": "float16"}, "out_dtype 'float16' is not supported"),
    ({"data_layout": "NHWC"}, "data_layout 'NHWC' is not supported"),
])
def test_depthwise_bad_attrs(attrs, message):
    with pytest.raises((ValueError, TypeError), match=DW + ": " + message):
        _func(DW)(attrs)


# -- pooling -------------------------------------------------------------------------------------------------------
def pool_ref(kind, x, attrs):
    """The op's numpy reference on NCHW x; attrs as the kernel takes them (relay's field names)."""
    fields = {"layout": "NCHW", "out_layout": "", "count_include_pad": 0, "ceil_mode": 0, "dilation": [],
              "strides": [], "padding": []}
    fields.update(attrs)
    return get_reference(f"nn.{kind}_pool2d")(SimpleNamespace(**fields), x)


def check_pool(rng, kind, channels, hw, attrs, block, batch=2, kernel=None, epilogue=False):
    x = rng.standard_normal((batch, channels) + hw).astype(np.float32)
    ref = pool_ref(kind, x, attrs).astype(np.float64)
    attrs = dict(attrs, layout=f"NCHW{block}c" if block else "NCHW")
    if kernel == "topi.nn.pool2d":
        attrs["pool_type"] = kind
    extra = []
    if epilogue:
        bias = rng.standard_normal(channels).astype(np.float32)
        attrs["epilogue"] = "add r0 r0 in0; clip r0 r0 0 6"
        ref = np.clip(ref + bias[None, :, None, None], 0, 6)
        extra = [pack(bias.reshape(1, channels, 1, 1), block) if block else bias.reshape(1, channels, 1, 1)]
    kernel = kernel or f"topi.nn.{kind}_pool2d"
    if block:
        got = unpack(run(kernel, attrs, pack(x, block), *extra, out_shape=pack(ref, block).shape))
    else:
        got = run(kernel, attrs, x, *extra, out_shape=ref.shape)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


POOL_CASES = [
    # (H, W), attrs
    ((13, 17), {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1], "ceil_mode": 1}),
    ((13, 17), {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1], "ceil_mode": 1, "count_include_pad": 1}),
    ((8, 9), {"pool_size": [2, 2], "strides": [2, 2], "padding": [0, 0, 1, 1], "ceil_mode": 1,
              "count_include_pad": 1}),
    ((10, 11), {"pool_size": [3, 3], "strides": [3, 3], "padding": [2, 0, 1, 2], "dilation": [2, 2],
                "count_include_pad": 1}),
    ((7, 7), {"pool_size": [5], "strides": [1], "padding": [2]}),
    ((9, 9), {"pool_size": [1, 1], "strides": [2, 2], "ceil_mode": 1}),
    ((6, 13), {"pool_size": [3, 2], "strides": [1, 3], "padding": [1, 1, 0, 1], "ceil_mode": 1}),
    ((12, 12), {"pool_size": [2, 2], "strides": [2, 2]}),
    ((5, 5), {"pool_size": [2, 2], "strides": [2, 2], "dilation": [3, 3], "padding": [2], "ceil_mode": 1}),
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("channels", [8, 24, 32, 40])
@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: "_".join(f"{k}{v}" for k, v in c[1].items()))
def test_pool_blocked_and_nchw(rng, isa, threads, kind, channels, case):
    hw, attrs = case
    check_pool(rng, kind, channels, hw, attrs, block_size(channels))
    check_pool(rng, kind, channels, hw, attrs, 0)


@pytest.mark.parametrize("block", [0, 4, 16])
def test_pool2d_with_pool_type(rng, isa, block):
    for kind in ("max", "avg"):
        check_pool(rng, kind, 32, (11, 10), POOL_CASES[1][1], block, kernel="topi.nn.pool2d")


@pytest.mark.parametrize("block", [0, 8, 16])
def test_pool_epilogue(rng, isa, threads, block):
    check_pool(rng, "max", 32, (23, 19), POOL_CASES[0][1], block, epilogue=True)
    check_pool(rng, "avg", 32, (23, 19), POOL_CASES[1][1], block, epilogue=True)


def test_pool_empty_window_follows_the_reference(rng, isa):
    """A dilated window can miss the input entirely (every tap in the padding): max gives -inf, avg 0/0 = nan."""
    attrs = {"pool_size": [2, 2], "dilation": [3, 3], "padding": [1, 1], "strides": [1, 1]}
    x = rng.standard_normal((1, 16, 2, 2)).astype(np.float32)
    for kind, block in itertools.product(("max", "avg"), (0, 8, 16)):
        ref = pool_ref(kind, x, attrs)
        layout = {"layout": f"NCHW{block}c"} if block else {}
        if block:
            got = unpack(run(f"topi.nn.{kind}_pool2d", dict(attrs, **layout), pack(x, block),
                             out_shape=pack(ref, block).shape))
        else:
            got = run(f"topi.nn.{kind}_pool2d", attrs, x, out_shape=ref.shape)
        np.testing.assert_array_equal(got, ref)


GLOBAL_SHAPES = [(2, 32, 7, 7), (1, 24, 13, 5), (2, 40, 1, 1), (1, 8, 56, 56)]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("shape", GLOBAL_SHAPES, ids=str)
def test_global_pool(rng, threads, kind, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    ref = get_reference(f"nn.global_{kind}_pool")(SimpleNamespace(layout="", p=2.0), x)
    for block in (0, block_size(shape[1]), 4):
        for kernel, attrs in ((f"topi.nn.global_{kind}_pool2d", {}),
                              ("topi.nn.global_pool2d", {"pool_type": kind})):
            attrs = dict(attrs, layout=f"NCHW{block}c" if block else "NCHW")
            if block:
                got = unpack(run(kernel, attrs, pack(x, block), out_shape=pack(ref, block).shape))
            else:
                got = run(kernel, attrs, x, out_shape=ref.shape)
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("shape", [(2, 12, 37), (1, 8, 3, 4, 5), (2, 3, 0)], ids=str)
def test_global_pool_other_ranks(rng, threads, kind, shape):
    """Unblocked global pooling over one or three spatial dims (GlobalAveragePool on (N, C, L), as Swin's and
    wav2vec2's heads export it): the plane is every dim after C, like the op's reference."""
    x = rng.standard_normal(shape).astype(np.float32)
    if 0 in shape:
        with pytest.raises(tvmlite.TVMLiteError, match="empty spatial extent"):
            run(f"topi.nn.global_{kind}_pool2d", {}, x, out_shape=shape[:2] + (1,))
        return
    ref = get_reference(f"nn.global_{kind}_pool")(SimpleNamespace(layout="", p=2.0), x)
    assert ref.shape == shape[:2] + (1,) * (len(shape) - 2)
    got = run(f"topi.nn.global_{kind}_pool2d", {}, x, out_shape=ref.shape)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("block", [0, 16])
def test_global_pool_epilogue(rng, threads, block):
    x = rng.standard_normal((2, 32, 7, 7)).astype(np.float32)
    bias = rng.standard_normal(32).astype(np.float32)
    ref = np.clip(x.astype(np.float64).mean(axis=(2, 3), keepdims=True) + bias[None, :, None, None], 0, 6)
    attrs = {"layout": f"NCHW{block}c" if block else "NCHW", "epilogue": "add r0 r0 in0; clip r0 r0 0 6"}
    b = bias.reshape(1, 32, 1, 1)
    if block:
        got = unpack(run("topi.nn.global_avg_pool2d", attrs, pack(x, block), pack(b, block),
                         out_shape=(2, 32 // block, 1, 1, block)))
    else:
        got = run("topi.nn.global_avg_pool2d", attrs, x, b, out_shape=(2, 32, 1, 1))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel,attrs,message", [
    ("topi.nn.max_pool2d", {}, "missing attribute 'pool_size'"),
    ("topi.nn.max_pool2d", {"pool_size": [2, 2, 2]}, "pool_size needs 1 or 2 values"),
    ("topi.nn.max_pool2d", {"pool_size": [0, 2]}, r"pool_size \(0, 2\) must be positive"),
    ("topi.nn.avg_pool2d", {"pool_size": [3, 3], "padding": [3]},
     r"padding \(3, 3\) of spatial dim 0 must be smaller than the pooling window"),
    ("topi.nn.avg_pool2d", {"pool_size": [3, 3], "padding": [1, 1, 1]}, "padding needs 1, 2 or 4 values"),
    ("topi.nn.max_pool2d", {"pool_size": [2], "layout": "NHWC"}, "layout 'NHWC' is not supported"),
    ("topi.nn.max_pool2d", {"pool_size": [2], "layout": "NCHW16c", "out_layout": "NCHW"},
     "out_layout 'NCHW' must be empty or the layout"),
    ("topi.nn.pool2d", {"pool_size": [2]}, "missing attribute 'pool_type'"),
    ("topi.nn.pool2d", {"pool_size": [2], "pool_type": "lp"}, "pool_type must be 'max' or 'avg'"),
    ("topi.nn.global_pool2d", {"pool_type": "min"}, "pool_type must be 'max' or 'avg'"),
    ("topi.nn.global_avg_pool2d", {"layout": "NCDHW"}, "layout 'NCDHW' is not supported"),
])
def test_pool_bad_attrs(kernel, attrs, message):
    with pytest.raises((ValueError, TypeError), match=kernel + ": " + message):
        _func(kernel)(attrs)


def test_pool_bad_input():
    name = "topi.nn.max_pool2d"
    f = _func(name)({"pool_size": [2, 2], "strides": [2, 2], "layout": "NCHW16c"})
    x = np.zeros((1, 2, 6, 6, 16), np.float32)
    out = tvmlite.nd.empty((1, 2, 3, 3, 16), "float32")
    with pytest.raises(TypeError, match=name + ": data must be float32"):
        f(tvmlite.nd.array(x.astype(np.int32)), out)
    with pytest.raises(ValueError, match=name + ": data must have rank 5 for layout NCHW16c"):
        f(tvmlite.nd.array(x[..., 0].copy()), out)
    with pytest.raises(ValueError, match=name + ": data has block 8 in its last dim, but layout NCHW16c says 16"):
        f(tvmlite.nd.array(x[..., :8].copy()), out)
    with pytest.raises(ValueError, match=name + r": out must have shape \(1, 2, 3, 3, 16\)"):
        f(tvmlite.nd.array(x), tvmlite.nd.empty((1, 2, 2, 2, 16), "float32"))
    with pytest.raises(ValueError, match=name + ": the 2x2 window .* does not fit"):
        f(tvmlite.nd.array(np.zeros((1, 2, 1, 6, 16), np.float32)), out)
    g = _func("topi.nn.global_avg_pool2d")({})
    with pytest.raises(ValueError, match=r"topi.nn.global_avg_pool2d: out must have shape \(1, 3, 1, 1\)"):
        g(tvmlite.nd.array(np.zeros((1, 3, 4, 4), np.float32)), tvmlite.nd.empty((1, 3, 1), "float32"))
    with pytest.raises(ValueError, match="topi.nn.global_avg_pool2d: data has an empty spatial extent"):
        g(tvmlite.nd.array(np.zeros((1, 3, 0, 4), np.float32)), tvmlite.nd.empty((1, 3, 1, 1), "float32"))


@pytest.mark.parametrize("op,kernel", [
    ("nn.max_pool2d", "topi.nn.max_pool2d"), ("nn.avg_pool2d", "topi.nn.avg_pool2d"),
    ("nn.global_max_pool", "topi.nn.global_max_pool2d"), ("nn.global_avg_pool", "topi.nn.global_avg_pool2d"),
    ("nn.contrib_depthwise_conv2d_NCHWc", DW),
])
def test_ops_name_their_kernel(op, kernel):
    assert Op.get(op).get_attr("FTVMLiteKernel") == kernel
