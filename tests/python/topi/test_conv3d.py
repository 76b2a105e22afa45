"""The 3-D convolution kernels against float64 numpy, on every ISA path and thread count, plus their error paths:

    topi.nn.conv3d                    data (N, C/ic, D, H, W, ic) or NCDHW, weight (O/oc, C/g/ic, KD, KH, KW, ic, oc)
                                      or OIDHW -> out (N, O/oc, OD, OH, OW, oc) or NCDHW (conv2d_nchwc's machinery)
    topi.nn.depthwise_conv3d_ncdhwc   data NCDHW{c}c or NCDHW, weight (C/c, 1, KD, KH, KW, 1, c) or (C, 1, KD, KH, KW)
    topi.nn.conv3d_transpose          data NCDHW, weight IODHW (C, O/g, KD, KH, KW) -> NCDHW (GEMM + col2vol)

The helpers pack plain NCDHW / OIDHW arrays into the blocked layouts and unpack the output, so the references stay
plain convs.
"""
import itertools

import numpy as np
import pytest

import tvmlite
from tvmlite.ir.op import Op
from tvmlite.relay.op.op import get_reference

conv3d = tvmlite.get_global_func("topi.nn.conv3d")
depthwise3d = tvmlite.get_global_func("topi.nn.depthwise_conv3d_ncdhwc")
conv3d_transpose = tvmlite.get_global_func("topi.nn.conv3d_transpose")

CONV = "topi.nn.conv3d"
DEPTHWISE = "topi.nn.depthwise_conv3d_ncdhwc"
TRANSPOSE = "topi.nn.conv3d_transpose"


# ---------------------------------------------------------------------------------------------------------------
# layouts and references


def pack_data(x, c):
    """(N, C, D, H, W) -> (N, C/c, D, H, W, c)."""
    n, ch, d, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, ch // c, c, d, h, w).transpose(0, 1, 3, 4, 5, 2))


def unpack(y):
    n, cb, d, h, w, c = y.shape
    return y.transpose(0, 1, 5, 2, 3, 4).reshape(n, cb * c, d, h, w)


def pack_weight(w, ic, oc):
    """(O, C/g, KD, KH, KW) -> (O/oc, C/g/ic, KD, KH, KW, ic, oc)."""
    o, cg, kd, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(o // oc, oc, cg // ic, ic, kd, kh, kw).transpose(0, 2, 4, 5, 6, 3, 1))


def pads6(padding):
    """relay's rules: 1 value -> all sides, 3 -> (d, h, w) both sides, 6 -> (front, top, left, back, bottom, right)."""
    p = [padding] if isinstance(padding, int) else list(padding)
    return p * 6 if len(p) == 1 else (p + p if len(p) == 3 else p)


def triple(v):
    return [v] * 3 if isinstance(v, int) else (list(v) * 3 if len(v) == 1 else list(v))


def conv_ref(x, w, strides, padding, dilation, groups):
    """A plain float64 grouped conv3d (NCDHW, OIDHW)."""
    s, d, p = triple(strides), triple(dilation), pads6(padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(p[i], p[3 + i]) for i in range(3)])
    o, cg, *k = w.shape
    out = [(xp.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(3)]
    og = o // groups
    y = np.zeros((x.shape[0], o, *out))
    for g in range(groups):
        xg, wg = xp[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og].astype(np.float64)
        for off in itertools.product(*(range(kk) for kk in k)):
            sl = tuple(slice(off[i] * d[i], off[i] * d[i] + (out[i] - 1) * s[i] + 1, s[i]) for i in range(3))
            y[:, g * og:(g + 1) * og] += np.einsum("ncdhw,oc->nodhw", xg[(slice(None),) * 2 + sl],
                                                   wg[(slice(None),) * 2 + off])
    return y


def conv_transpose_ref(x, w, strides, padding, dilation, output_padding, groups):
    """The definition, in float64: every input pixel scatters its weighted kernel into the output."""
    s, d, op, p = triple(strides), triple(dilation), triple(output_padding), pads6(padding)
    n, c, *sp = x.shape
    _, og, *k = w.shape
    cg = c // groups
    out = [(sp[i] - 1) * s[i] - p[i] - p[3 + i] + d[i] * (k[i] - 1) + 1 + op[i] for i in range(3)]
    full_size = [max((sp[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1, p[i] + out[i]) for i in range(3)]
    full = np.zeros((n, groups * og, *full_size))
    for g in range(groups):
        xg, wg = x[:, g * cg:(g + 1) * cg].astype(np.float64), w[g * cg:(g + 1) * cg].astype(np.float64)
        for off in itertools.product(*(range(kk) for kk in k)):
            sl = tuple(slice(off[i] * d[i], off[i] * d[i] + (sp[i] - 1) * s[i] + 1, s[i]) for i in range(3))
            full[(slice(None), slice(g * og, (g + 1) * og)) + sl] += np.einsum(
                "ncdhw,co->nodhw", xg, wg[(slice(None),) * 2 + off])
    return full[(slice(None),) * 2 + tuple(slice(p[i], p[i] + out[i]) for i in range(3))]


def silu(v):
    return v / (1 + np.exp(-v))


EPILOGUES = {
    "": "",
    "relu": "relu r0 r0",
    "bias": "add r0 r0 in0",
    "bias_relu": "add r1 r0 in0; relu r0 r1",  # the lowering's register naming
    "bias_residual_relu": "add r0 r0 in0; add r0 r0 in1; relu r0 r0",
    "clip": "clip r0 r0 0 6",
    "bias_clip": "add r0 r0 in0; clip r0 r0 0 6",
    "silu": "silu r0 r0",
}


def with_epilogue(ref, epi, rng, pack):
    """ref with the epilogue applied, and the epilogue's inputs (per-channel bias, residual) packed by pack."""
    extra = []
    o = ref.shape[1]
    if "bias" in epi:
        bias = rng.standard_normal((1, o, 1, 1, 1)).astype("float32")
        ref = ref + bias
        extra.append(pack(bias))
    if "residual" in epi:
        residual = rng.standard_normal(ref.shape).astype("float32")
        ref = ref + residual
        extra.append(pack(residual))
    if "relu" in epi:
        ref = np.maximum(ref, 0)
    if "clip" in epi:
        ref = np.clip(ref, 0, 6)
    if epi == "silu":
        ref = silu(ref)
    return ref, extra


def assert_close(got, ref, msg=""):
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * scale, err_msg=msg)


# ---------------------------------------------------------------------------------------------------------------
# topi.nn.conv3d

# name: (N, C, D, H, W, O, (KD, KH, KW), strides, padding, dilation, groups, ic, oc, epilogue); ic = oc = 1: NCDHW
CASES = {
    "c3d_3x3x3_p1": (1, 16, 5, 7, 9, 32, (3, 3, 3), 1, [1], 1, 1, 16, 16, "bias_relu"),
    "c3d_3x3x3_p1_batch2": (2, 16, 4, 6, 6, 16, (3, 3, 3), [1, 1, 1], [1, 1, 1], 1, 1, 16, 16, "bias_residual_relu"),
    "temporal_s2_spatial_s2": (1, 8, 7, 9, 9, 16, (3, 3, 3), [2, 2, 2], [1, 1, 1], 1, 1, 8, 16, "relu"),
    "r2plus1d_spatial_1x3x3": (1, 16, 4, 9, 9, 32, (1, 3, 3), [1, 2, 2], [0, 1, 1], 1, 1, 16, 16, "bias"),
    "r2plus1d_temporal_3x1x1": (1, 32, 6, 5, 5, 16, (3, 1, 1), [1, 1, 1], [1, 0, 0], 1, 1, 16, 16, "bias_clip"),
    "pointwise_1x1x1": (2, 32, 3, 5, 7, 48, (1, 1, 1), 1, [0], 1, 1, 16, 16, "silu"),
    "pointwise_1x1x1_s2": (1, 16, 5, 7, 7, 16, (1, 1, 1), [2, 2, 2], [0], 1, 1, 16, 16, "bias"),
    "pointwise_1x1x1_ic8_depth_padding": (1, 16, 3, 4, 5, 16, (1, 1, 1), 1, [2, 0, 0, 1, 0, 0], 1, 1, 8, 8,
                                          "bias_relu"),
    "gather_3x3x3_7x7_oc8": (1, 16, 3, 7, 7, 16, (3, 3, 3), 1, [1], 1, 1, 8, 8, "bias_relu"),  # 8-lane: across rows
    "asym_pads_dilation": (1, 16, 6, 8, 7, 16, (3, 2, 3), [1, 2, 1], [2, 0, 1, 0, 1, 2], [2, 1, 1], 1, 16, 16, ""),
    "depth_padding_beyond_taps": (1, 16, 2, 5, 5, 16, (1, 3, 3), [1, 1, 1], [2, 1, 1, 3, 1, 1], 1, 1, 16, 16,
                                  "bias_relu"),
    "groups2": (1, 32, 4, 6, 6, 32, (3, 3, 3), 1, [1], 1, 2, 16, 16, "bias"),
    "groups4_oc8": (1, 32, 3, 5, 6, 32, (3, 3, 3), 1, [1], 1, 4, 8, 8, "relu"),
    "oc8_ic4": (1, 12, 4, 5, 5, 24, (3, 3, 3), 1, [1], 1, 1, 4, 8, "bias"),
    "odd_blocks_ic3_oc16": (1, 3, 5, 9, 9, 16, (3, 7, 7), [1, 2, 2], [1, 3, 3], 1, 1, 3, 16, "bias_relu"),
    "cb_passes_small_map": (1, 128, 3, 7, 7, 64, (3, 3, 3), 1, [1], 1, 1, 16, 16, "bias_residual_relu"),
    "wide_rows_w33": (1, 16, 3, 4, 33, 32, (3, 3, 3), 1, [1], 1, 1, 16, 16, "clip"),
    "unet_3d_32ch": (1, 32, 8, 12, 12, 32, (3, 3, 3), 1, [1], 1, 1, 16, 16, "bias_relu"),
    "plain_ncdhw": (2, 5, 4, 6, 7, 7, (3, 3, 3), [1, 1, 2], [1], 1, 1, 1, 1, "bias"),
    "plain_ncdhw_packed": (1, 16, 4, 6, 6, 32, (3, 3, 3), 1, [1, 0, 1, 1, 2, 1], 1, 1, 1, 1, "bias_residual_relu"),
    "plain_ncdhw_groups": (1, 16, 3, 5, 5, 16, (3, 3, 3), 1, [1], 1, 2, 1, 1, "relu"),
    "plain_ncdhw_one_channel_groups": (1, 6, 3, 5, 5, 12, (3, 3, 3), 1, [1], 1, 6, 1, 1, "bias"),
    "huge_stride_and_padding": (1, 16, 3, 3, 3, 16, (1, 1, 1), [50, 50, 50], [50], 1, 1, 16, 16, "bias"),
    # H / W padding read in place (AVX-512): edge strips per depth slice, kernel rows and depth taps in the padding
    # skipped; weight passes over the input channels with border columns; every column a border one (padded copy)
    "borders_tall_depth_taps_in_padding": (2, 16, 3, 20, 9, 16, (3, 3, 3), [1, 1, 1], [2, 1, 1, 1, 1, 2], [2, 1, 1], 1,
                                           16, 16, "bias_residual_relu"),
    "borders_cb_passes_s2": (1, 128, 4, 9, 9, 64, (3, 3, 3), [1, 2, 2], [1, 1, 1], 1, 1, 16, 16, "silu"),
    "borders_5x5_asym_one_interior_column": (1, 16, 3, 6, 5, 32, (2, 5, 5), [1, 1, 2], [0, 2, 2, 1, 3, 1], 1, 1, 16,
                                             16, "bias"),
    "borders_no_interior_column": (1, 16, 2, 4, 2, 16, (1, 3, 3), 1, [0, 1, 1, 0, 1, 1], 1, 1, 16, 16, "relu"),
}


def _call(kernel, attrs, data, weight, extra, ref, out_block):
    """kernel(attrs) on numpy data, weight and epilogue tensors, into an output of ref's shape (NCDHW{out_block}c when
    out_block is set): (got, ref), got back in NCDHW."""
    out = tvmlite.nd.empty(ref.shape if out_block is None else pack_data(ref, out_block).shape)
    kernel(attrs)(tvmlite.nd.array(data), tvmlite.nd.array(weight), *[tvmlite.nd.array(e) for e in extra], out)
    return (out.numpy() if out_block is None else unpack(out.numpy())), ref


def run_conv3d(case, rng):
    n, c, d, h, w, o, k, strides, padding, dilation, groups, ic, oc, epi = case
    x = rng.standard_normal((n, c, d, h, w)).astype("float32")
    wt = rng.standard_normal((o, c // groups, *k)).astype("float32")
    blocked = ic > 1 or oc > 1
    ref, extra = with_epilogue(conv_ref(x, wt, strides, padding, dilation, groups), epi, rng,
                               lambda a: pack_data(a, oc) if blocked else a)
    data = pack_data(x, ic) if blocked else x
    weight = pack_weight(wt, ic, oc) if blocked else wt
    attrs = {"strides": strides, "padding": padding, "dilation": dilation, "groups": groups,
             "epilogue": EPILOGUES[epi]}
    return _call(conv3d, attrs, data, weight, extra, ref, oc if blocked else None)


@pytest.mark.parametrize("name", list(CASES))
def test_conv3d_matches_numpy(name, isa, threads, rng):
    got, ref = run_conv3d(CASES[name], rng)
    assert_close(got, ref)


def random_conv3d_case(rng):
    """Any blocks, kernel, stride, dilation, asymmetric padding and groups; sizes that keep the window valid."""
    groups = int(rng.choice([1, 1, 2]))
    ic, oc = int(rng.choice([1, 3, 4, 8, 16])), int(rng.choice([1, 8, 16, 16]))
    if (ic == 1) != (oc == 1):
        ic = oc = 1 if rng.random() < 0.5 else 16
    c, o = ic * int(rng.integers(1, 3)) * groups, oc * int(rng.integers(1, 3)) * groups
    k = [int(v) for v in rng.integers(1, 4, 3)]
    s = [int(v) for v in rng.integers(1, 3, 3)]
    dl = [int(v) for v in rng.integers(1, 3, 3)]
    pad = [int(v) for v in rng.integers(0, 3, 6)]
    sizes = [int(rng.integers(max(1, dl[i] * (k[i] - 1) + 1 - pad[i] - pad[3 + i]), hi))
             for i, hi in enumerate((6, 8, 12))]
    epi = str(rng.choice(["", "bias", "relu", "bias_residual_relu", "silu"]))
    return (int(rng.integers(1, 3)), c, *sizes, o, tuple(k), s, pad, dl, groups, ic, oc, epi)


@pytest.mark.parametrize("seed", range(2))
def test_conv3d_random_configs(seed, isa, threads):
    rng = np.random.default_rng(seed)
    for _ in range(12):
        case = random_conv3d_case(rng)
        got, ref = run_conv3d(case, rng)
        assert_close(got, ref, str(case))


def test_conv3d_of_depth_one_is_conv2d(rng):
    """D = KD = 1: the same numbers as topi.nn.conv2d_nchwc on the (N, C/c, H, W, c) views, bit for bit."""
    x = rng.standard_normal((1, 2, 1, 9, 9, 16)).astype("float32")
    w = rng.standard_normal((2, 2, 1, 3, 3, 16, 16)).astype("float32")
    out3, out2 = tvmlite.nd.empty((1, 2, 1, 9, 9, 16)), tvmlite.nd.empty((1, 2, 9, 9, 16))
    conv3d({"padding": [0, 1, 1]})(tvmlite.nd.array(x), tvmlite.nd.array(w), out3)
    tvmlite.get_global_func("topi.nn.conv2d_nchwc")({"padding": [1, 1]})(
        tvmlite.nd.array(x[:, :, 0]), tvmlite.nd.array(w[:, :, 0]), out2)
    np.testing.assert_array_equal(out3.numpy()[:, :, 0], out2.numpy())


def test_conv3d_matches_the_relay_reference(rng):
    """The blocked op's reference (nn.contrib_conv3d_NCDHWc, what the debug target runs) agrees too."""
    from tvmlite import relay

    x = rng.standard_normal((1, 16, 4, 5, 6)).astype("float32")
    w = rng.standard_normal((32, 16, 3, 3, 3)).astype("float32")
    call = relay.nn.conv3d(relay.var("x", shape=x.shape), relay.var("w", shape=w.shape), padding=(1, 1, 1))
    want = get_reference("nn.conv3d")(call.attrs, x, w)
    out = tvmlite.nd.empty((1, 2, 4, 5, 6, 16))
    conv3d({"padding": [1, 1, 1]})(tvmlite.nd.array(pack_data(x, 16)), tvmlite.nd.array(pack_weight(w, 16, 16)), out)
    assert_close(unpack(out.numpy()), want)


# ---------------------------------------------------------------------------------------------------------------
# topi.nn.depthwise_conv3d_ncdhwc

# name: (N, C, D, H, W, (KD, KH, KW), strides, padding, dilation, c, epilogue); c = 1: plain NCDHW
DW_CASES = {
    "x3d_3x3x3_c16": (1, 32, 5, 9, 9, (3, 3, 3), 1, [1], 1, 16, "bias_relu"),
    "x3d_s2_c16_batch2": (2, 16, 6, 11, 11, (3, 3, 3), [1, 2, 2], [1], 1, 16, "bias_clip"),
    "csn_temporal_5x1x1_c8": (1, 24, 7, 5, 6, (5, 1, 1), 1, [2, 0, 0], 1, 8, "bias"),
    "asym_dilated_c16": (1, 16, 6, 7, 8, (3, 3, 3), [2, 1, 1], [2, 1, 0, 1, 1, 2], [2, 1, 2], 16, "silu"),
    "rows_in_depth_padding": (1, 16, 1, 5, 5, (1, 3, 3), 1, [2, 1, 1], 1, 16, "bias_relu"),
    "residual_c4": (1, 8, 4, 6, 6, (3, 3, 3), 1, [1], 1, 4, "bias_residual_relu"),
    "plain_ncdhw": (2, 5, 4, 6, 7, (3, 3, 3), [1, 1, 2], [1], 1, 1, "bias_relu"),
    "plain_ncdhw_no_epilogue": (1, 3, 5, 5, 5, (2, 3, 3), [2, 1, 1], [0, 1, 1], 1, 1, ""),
}


def run_depthwise3d(case, rng):
    n, c, d, h, w, k, strides, padding, dilation, blk, epi = case
    x = rng.standard_normal((n, c, d, h, w)).astype("float32")
    wt = rng.standard_normal((c, 1, *k)).astype("float32")
    blocked = blk > 1
    ref, extra = with_epilogue(conv_ref(x, wt, strides, padding, dilation, c), epi, rng,
                               lambda a: pack_data(a, blk) if blocked else a)
    data = pack_data(x, blk) if blocked else x
    weight = pack_weight(wt, 1, blk) if blocked else wt
    attrs = {"strides": strides, "padding": padding, "dilation": dilation, "groups": c, "epilogue": EPILOGUES[epi]}
    return _call(depthwise3d, attrs, data, weight, extra, ref, blk if blocked else None)


@pytest.mark.parametrize("name", list(DW_CASES))
def test_depthwise_conv3d_matches_numpy(name, isa, threads, rng):
    got, ref = run_depthwise3d(DW_CASES[name], rng)
    assert_close(got, ref)


# ---------------------------------------------------------------------------------------------------------------
# topi.nn.conv3d_transpose

# name: (N, C, D, H, W, O, (KD, KH, KW), strides, padding, dilation, output_padding, groups, epilogue)
TR_CASES = {
    "unet3d_up_2x2x2_s2": (1, 16, 3, 4, 4, 8, (2, 2, 2), 2, [0], 1, 0, 1, "bias"),
    "3x3x3_s2_p1_op1": (1, 8, 3, 4, 5, 8, (3, 3, 3), 2, [1], 1, 1, 1, "bias_relu"),
    "asym_pads_dilation_batch2": (2, 6, 3, 4, 3, 4, (3, 2, 3), [1, 2, 2], [1, 0, 2, 0, 1, 1], [2, 1, 1],
                                  [0, 1, 0], 1, "bias_residual_relu"),
    "groups2": (1, 8, 3, 3, 4, 6, (2, 3, 3), [2, 1, 2], [0, 1, 1], 1, 0, 2, "silu"),
    "stride_beyond_kernel": (1, 4, 2, 3, 3, 4, (1, 2, 2), [3, 3, 3], [0], 1, [2, 1, 0], 1, "bias"),
    # cols (O/G * taps x D * H * W) above 2^22 floats: computed in chunks of input pixels, added into the output
    "chunked_cols": (1, 2, 16, 24, 24, 24, (3, 3, 3), 1, [1], 1, 0, 1, "bias_relu"),
}


def run_transpose3d(case, rng):
    n, c, d, h, w, o, k, strides, padding, dilation, output_padding, groups, epi = case
    x = rng.standard_normal((n, c, d, h, w)).astype("float32")
    wt = rng.standard_normal((c, o // groups, *k)).astype("float32")
    ref, extra = with_epilogue(conv_transpose_ref(x, wt, strides, padding, dilation, output_padding, groups), epi,
                               rng, lambda a: a)  # plain NCDHW: the bias (1, O, 1, 1, 1) broadcasts as it is
    attrs = {"strides": strides, "padding": padding, "dilation": dilation, "output_padding": output_padding,
             "groups": groups, "epilogue": EPILOGUES[epi]}
    out = tvmlite.nd.empty(ref.shape)
    conv3d_transpose(attrs)(tvmlite.nd.array(x), tvmlite.nd.array(wt), *[tvmlite.nd.array(e) for e in extra], out)
    return out.numpy(), ref


@pytest.mark.parametrize("name", list(TR_CASES))
def test_conv3d_transpose_matches_numpy(name, isa, threads, rng):
    got, ref = run_transpose3d(TR_CASES[name], rng)
    assert_close(got, ref)


def test_conv3d_transpose_matches_the_relay_reference(rng):
    from tvmlite import relay

    x = rng.standard_normal((1, 8, 3, 4, 5)).astype("float32")
    w = rng.standard_normal((8, 4, 3, 3, 3)).astype("float32")
    call = relay.nn.conv3d_transpose(relay.var("x", shape=x.shape), relay.var("w", shape=w.shape), strides=(2, 2, 2),
                                     padding=(1, 1, 1), output_padding=(1, 1, 1))
    want = get_reference("nn.conv3d_transpose")(call.attrs, x, w)
    out = tvmlite.nd.empty(want.shape)
    conv3d_transpose({"strides": [2, 2, 2], "padding": [1, 1, 1], "output_padding": [1, 1, 1]})(
        tvmlite.nd.array(x), tvmlite.nd.array(w), out)
    assert_close(out.numpy(), want)


# ---------------------------------------------------------------------------------------------------------------
# bad input


def _conv_args(c=16, d=4, h=6, w=6, o=16, k=3, ic=16, oc=16):
    data = tvmlite.nd.array(np.zeros((1, c // ic, d, h, w, ic), "float32"))
    weight = tvmlite.nd.array(np.zeros((o // oc, c // ic, k, k, k, ic, oc), "float32"))
    out = tvmlite.nd.empty((1, o // oc, d - k + 1, h - k + 1, w - k + 1, oc))
    return data, weight, out


def test_conv3d_bad_tensors():
    data, weight, out = _conv_args()
    with pytest.raises(TypeError, match=CONV + ".*data.*float32"):
        conv3d({})(tvmlite.nd.array(np.zeros((1, 1, 4, 6, 6, 16), "float64")), weight, out)
    with pytest.raises(ValueError, match=CONV + ": data must be NCDHW"):
        conv3d({})(tvmlite.nd.array(np.zeros((1, 1, 6, 16), "float32")), weight, out)
    with pytest.raises(ValueError, match=CONV + ": weight must be OIDHW"):
        conv3d({})(data, tvmlite.nd.array(np.zeros((1, 1, 3, 3, 16, 16), "float32")), out)
    with pytest.raises(ValueError, match=CONV + ": out must be NCDHW"):
        conv3d({})(data, weight, tvmlite.nd.empty((1, 1, 4, 16)))
    with pytest.raises(ValueError, match=CONV + r": out is 5-D \(NCDHW\) but weight .* has output block 16"):
        conv3d({})(data, weight, tvmlite.nd.empty((1, 16, 2, 4, 4)))
    with pytest.raises(ValueError, match=CONV + ": out must have shape"):
        conv3d({})(data, weight, tvmlite.nd.empty((1, 1, 2, 4, 5, 16)))
    with pytest.raises(ValueError, match=CONV + ": mismatched blocks"):
        conv3d({})(tvmlite.nd.array(np.zeros((1, 2, 4, 6, 6, 8), "float32")), weight, out)
    with pytest.raises(ValueError, match=CONV + ".*groups"):
        conv3d({"groups": 2})(data, weight, out)
    with pytest.raises(ValueError, match=CONV + ".*larger than the padded input"):
        conv3d({})(*_conv_args(d=2)[:2], tvmlite.nd.empty((1, 1, 1, 4, 4, 16)))
    with pytest.raises(ValueError, match=CONV + ": depthwise convolution .* is topi.nn.depthwise_conv3d_ncdhwc"):
        conv3d({"groups": 16})(data, tvmlite.nd.array(np.zeros((1, 1, 3, 3, 3, 1, 16), "float32")), out)
    with pytest.raises(TypeError, match=CONV + ": expected at least 4 tensor arguments"):
        conv3d({"epilogue": "add r0 r0 in0"})(data, weight, out)
    with pytest.raises(ValueError, match=CONV + ".*broadcast"):
        conv3d({"epilogue": "add r0 r0 in0"})(data, weight, tvmlite.nd.array(np.zeros((1, 1, 1, 1, 1, 8), "float32")),
                                              out)


@pytest.mark.parametrize("attrs, error, message", [
    ({"strides": [1, 1]}, ValueError, "strides needs 1 or 3 values"),
    ({"padding": [1, 1, 1, 1]}, ValueError, "padding needs 1, 3 or 6 values"),
    ({"dilation": [0]}, ValueError, "dilation"),
    ({"groups": 0}, ValueError, "groups"),
    ({"data_layout": "NDHWC"}, NotImplementedError, "data_layout 'NDHWC' is not supported"),
    ({"data_layout": "NCHW16c"}, NotImplementedError, "data_layout"),
    ({"kernel_layout": "DHWIO"}, NotImplementedError, "kernel_layout"),
    ({"out_layout": "NDHWC"}, NotImplementedError, "out_layout"),
    ({"out_dtype": "float16"}, NotImplementedError, "out_dtype"),
    ({"epilogue": "frobnicate r0 r0"}, ValueError, "unknown op"),
])
def test_conv3d_bad_attrs(attrs, error, message):
    with pytest.raises(error, match=CONV + ".*" + message):
        conv3d(attrs)


def test_conv3d_accepts_the_attrs_the_lowering_passes():
    data, weight, out = _conv_args()
    attrs = {"strides": [1, 1, 1], "padding": [0, 0, 0, 0, 0, 0], "dilation": [1, 1, 1], "groups": 1,
             "channels": 16, "kernel_size": [3, 3, 3], "data_layout": "NCDHW16c", "kernel_layout": "OIDHW16i16o",
             "out_layout": "", "out_dtype": "float32"}
    conv3d(attrs)(data, weight, out)
    conv3d(dict(attrs, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="NCDHW"))


def test_depthwise_conv3d_bad_input():
    data = tvmlite.nd.array(np.zeros((1, 1, 4, 6, 6, 16), "float32"))
    weight = tvmlite.nd.array(np.zeros((1, 1, 3, 3, 3, 1, 16), "float32"))
    out = tvmlite.nd.empty((1, 1, 2, 4, 4, 16))
    depthwise3d({})(data, weight, out)
    with pytest.raises(ValueError, match=DEPTHWISE + ": data must be"):
        depthwise3d({})(tvmlite.nd.array(np.zeros((1, 1, 6, 16), "float32")), weight, out)
    with pytest.raises(ValueError, match=DEPTHWISE + ": weight has shape"):
        depthwise3d({})(data, tvmlite.nd.array(np.zeros((1, 1, 3, 3, 1, 16), "float32")), out)
    with pytest.raises(ValueError, match=DEPTHWISE + ": channel multiplier 2"):
        depthwise3d({})(data, tvmlite.nd.array(np.zeros((2, 1, 3, 3, 3, 1, 16), "float32")), out)
    with pytest.raises(ValueError, match=DEPTHWISE + ": groups = 8 must equal the channels"):
        depthwise3d({"groups": 8})(data, weight, out)
    with pytest.raises(ValueError, match=DEPTHWISE + ": out must have shape"):
        depthwise3d({})(data, weight, tvmlite.nd.empty((1, 1, 4, 4, 4, 16)))
    with pytest.raises(ValueError, match=DEPTHWISE + ": kernel 3 .* does not fit"):
        depthwise3d({})(tvmlite.nd.array(np.zeros((1, 1, 2, 6, 6, 16), "float32")), weight, out)
    with pytest.raises(ValueError, match=DEPTHWISE + ": data does not match data_layout"):
        depthwise3d({"data_layout": "NCDHW"})(data, weight, out)
    with pytest.raises(ValueError, match=DEPTHWISE + ": data_layout 'NCHW16c' is not supported"):
        depthwise3d({"data_layout": "NCHW16c"})
    with pytest.raises(ValueError, match=DEPTHWISE + ": strides needs 1 or 3"):
        depthwise3d({"strides": [1, 1]})
    with pytest.raises(ValueError, match=DEPTHWISE + ": out_dtype 'float16'"):
        depthwise3d({"out_dtype": "float16"})


def test_conv3d_transpose_bad_input():
    data = tvmlite.nd.array(np.zeros((1, 4, 3, 3, 3), "float32"))
    weight = tvmlite.nd.array(np.zeros((4, 2, 2, 2, 2), "float32"))
    out = tvmlite.nd.empty((1, 2, 4, 4, 4))
    conv3d_transpose({})(data, weight, out)
    with pytest.raises(ValueError, match=TRANSPOSE + ": data must be NCDHW"):
        conv3d_transpose({})(tvmlite.nd.array(np.zeros((1, 4, 3, 3), "float32")), weight, out)
    with pytest.raises(ValueError, match=TRANSPOSE + ": weight must be IODHW"):
        conv3d_transpose({})(data, tvmlite.nd.array(np.zeros((4, 2, 2, 2), "float32")), out)
    with pytest.raises(ValueError, match=TRANSPOSE + r": weight \(5, 2, 2, 2, 2\) is for 5 input channels"):
        conv3d_transpose({})(data, tvmlite.nd.array(np.zeros((5, 2, 2, 2, 2), "float32")), out)
    with pytest.raises(ValueError, match=TRANSPOSE + ": out"):
        conv3d_transpose({})(data, weight, tvmlite.nd.empty((1, 2, 4, 4, 5)))
    with pytest.raises(ValueError, match=TRANSPOSE + ": spatial dim 2 of the output would be"):
        conv3d_transpose({"padding": [0, 0, 5]})(data, weight, out)
    with pytest.raises(ValueError, match=TRANSPOSE + r".*2x2x2 kernel, attribute kernel_size = \(3, 3, 3\)"):
        conv3d_transpose({"kernel_size": [3, 3, 3]})(data, weight, out)
    for attrs, error, message in [({"strides": [1, 1]}, ValueError, "strides needs 1 or 3 values"),
                                  ({"output_padding": [1, 1]}, ValueError, "output_padding needs 1 or 3 values"),
                                  ({"kernel_size": [1, 2]}, ValueError, "kernel_size needs 1 or 3 values"),
                                  ({"data_layout": "NCHW"}, NotImplementedError, "data_layout 'NCHW'"),
                                  ({"kernel_layout": "IOHW"}, NotImplementedError, "kernel_layout 'IOHW'"),
                                  ({"out_dtype": "float16"}, TypeError, "out_dtype must be float32")]:
        with pytest.raises(error, match=TRANSPOSE + ": " + message):
            conv3d_transpose(attrs)


def test_kernels_are_registered_for_the_ops():
    for op, kernel in [("nn.conv3d", CONV), ("nn.contrib_conv3d_NCDHWc", CONV),
                       ("nn.contrib_depthwise_conv3d_NCDHWc", DEPTHWISE), ("nn.conv3d_transpose", TRANSPOSE)]:
        assert str(Op.get(op).get_attr("FTVMLiteKernel")) == kernel
