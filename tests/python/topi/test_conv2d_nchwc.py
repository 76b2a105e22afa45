"""topi.nn.conv2d_nchwc against a numpy convolution, on every ISA path and thread count, plus its error paths.

The kernel reads blocked tensors (data NCHW{ic}c, weight OIHW{ic}i{oc}o, out NCHW{oc}c); the helpers below pack
plain NCHW / OIHW arrays into those layouts and unpack the output, so the reference stays a plain conv.
"""
import numpy as np
import pytest

import tvmlite
from tvmlite.ir.op import Op

from thread_helpers import same_results_in_threads

conv2d_nchwc = tvmlite.get_global_func("topi.nn.conv2d_nchwc")

KERNEL = "topi.nn.conv2d_nchwc"


# ---------------------------------------------------------------------------------------------------------------
# layouts and the reference


def pack_data(x, ic):
    """(N, C, H, W) -> (N, C/ic, H, W, ic)."""
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // ic, ic, h, w).transpose(0, 1, 3, 4, 2))


def pack_weight(w, ic, oc):
    """(O, C/g, KH, KW) -> (O/oc, C/g/ic, KH, KW, ic, oc)."""
    o, cg, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(o // oc, oc, cg // ic, ic, kh, kw).transpose(0, 2, 4, 5, 3, 1))


def pack_out(y, oc):
    """(N, O, OH, OW) -> (N, O/oc, OH, OW, oc): also how bias and residual inputs are laid out."""
    return pack_data(y, oc)


def unpack_out(y, oc):
    n, ob, oh, ow, _ = y.shape
    return y.transpose(0, 1, 4, 2, 3).reshape(n, ob * oc, oh, ow)


def normalize_padding(padding):
    """relay's rules: 1 value -> all sides, 2 -> (h, w) both sides, 4 -> (top, left, bottom, right)."""
    p = list(padding)
    if len(p) == 1:
        p = p * 4
    elif len(p) == 2:
        p = p + p
    return p


def conv_ref(x, w, strides, padding, dilation, groups):
    """A plain float64 grouped conv2d (NCHW, OIHW)."""
    sh, sw = strides
    dh, dw = dilation
    top, left, bottom, right = normalize_padding(padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (top, bottom), (left, right)])
    n, c, h, wd = xp.shape
    o, cg, kh, kw = w.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    og = o // groups
    y = np.zeros((n, o, oh, ow))
    for g in range(groups):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * og:(g + 1) * og].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xg[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
                y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, wg[:, :, i, j])
    return y


def silu(v):
    return v / (1 + np.exp(-v))


# ---------------------------------------------------------------------------------------------------------------
# fixtures: every ISA path, 1 and 2 threads


# name: (N, C, H, W, O, KH, KW, strides, padding, dilation, groups, ic, oc, epilogue)
CASES = {
    "3x3_s1_p1_13": (1, 32, 13, 13, 32, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "relu r0 r0"),
    "3x3_s2_p1_15": (1, 32, 15, 15, 64, 3, 3, [2, 2], [1], [1, 1], 1, 16, 16, "bias"),
    "3x3_two_row_tiles_7": (1, 32, 6, 7, 64, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "bias_relu"),
    "3x3_cb_passes_7_batch2": (2, 64, 7, 7, 128, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "bias_residual_relu"),
    "3x3_cb_passes_s2_9": (1, 80, 17, 17, 256, 3, 3, [2, 2], [1, 1], [1, 1], 1, 16, 16, "silu"),
    "3x3_s2_three_blocks_two_rows": (1, 16, 8, 8, 48, 3, 3, [2, 2], [1, 1], [1, 1], 1, 16, 16, "bias"),
    "3x3_s1_wide_31": (1, 16, 5, 31, 32, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, ""),
    "1x1_s1_7_batch2": (2, 64, 7, 7, 32, 1, 1, [1, 1], [0], [1, 1], 1, 16, 16, "bias_residual_relu"),
    "1x1_s1_56": (1, 16, 16, 17, 48, 1, 1, [1, 1], [0, 0], [1, 1], 1, 16, 16, "silu"),
    "1x1_s2_13": (1, 32, 13, 13, 64, 1, 1, [2, 2], [0, 0], [1, 1], 1, 16, 16, "clip"),
    "1x1_pad2_rows_in_padding": (1, 16, 5, 5, 16, 1, 1, [1, 1], [2, 2], [1, 1], 1, 16, 16, "bias"),
    "stem_7x7_s2_ic3": (1, 3, 15, 15, 32, 7, 7, [2, 2], [3, 3], [1, 1], 1, 3, 16, "bias_relu"),
    "stem_7x7_s2_ic3_oc8": (1, 3, 15, 15, 24, 7, 7, [2, 2], [3, 3], [1, 1], 1, 3, 8, "clip"),
    "stem_7x7_s2_nchw": (1, 3, 13, 13, 16, 7, 7, 2, [3, 3, 3, 3], [1, 1], 1, 1, 16, ""),
    "5x5_s1_p2_oc8": (1, 8, 13, 13, 24, 5, 5, [1, 1], [2, 2], [1, 1], 1, 8, 8, "bias"),
    "3x3_dilation2": (1, 16, 13, 13, 16, 3, 3, [1, 1], [2, 2], [2, 2], 1, 16, 16, "relu r0 r0"),
    "3x3_asym_pad_oc8": (1, 16, 13, 13, 40, 3, 3, [1, 1], [0, 1, 2, 1], [1, 1], 1, 16, 8, "residual"),
    "3x3_s2_dil2_asym": (1, 16, 15, 15, 16, 3, 3, [2, 2], [2, 1, 0, 2], [2, 2], 1, 16, 16, ""),
    "groups2_oc8": (1, 32, 13, 13, 32, 3, 3, [1, 1], [1, 1], [1, 1], 2, 8, 8, "bias"),
    "groups4_oc16": (2, 64, 7, 7, 64, 3, 3, [1, 1], [1, 1], [1, 1], 4, 16, 16, "relu r0 r0"),
    "c40_ic8_o24_7": (1, 40, 7, 7, 24, 3, 3, [1, 1], [1, 1], [1, 1], 1, 8, 8, "silu"),
    "c24_oc8_to_oc16": (1, 24, 9, 9, 32, 3, 3, [2, 2], [1, 1], [1, 1], 1, 8, 16, "bias"),
    "oc16_avx2_halves_s1": (1, 16, 7, 11, 48, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "bias"),
    "odd_blocks_ic4_oc4": (1, 12, 7, 7, 8, 3, 3, [1, 1], [1, 1], [1, 1], 1, 4, 4, "relu r0 r0"),
    "huge_stride_and_padding": (1, 16, 5, 5, 16, 1, 1, [100, 100], [100, 100], [1, 1], 1, 16, 16, "bias"),
    # padding read in place (AVX-512): border columns from the edge strips, in tiles of up to 14 rows; kernel rows
    # skipped at the top and bottom (two-row tiles split where their rows skip different ones)
    "borders_tall_3x3_p1_30x9": (1, 32, 30, 9, 32, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "bias_residual_relu"),
    "borders_cb_passes_row_pairs_7": (1, 128, 7, 7, 256, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "bias_relu"),
    "borders_one_interior_column": (2, 16, 6, 3, 16, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "relu r0 r0"),
    "borders_5x5_s2_pad_beyond_stride": (1, 32, 12, 19, 32, 5, 5, [2, 2], [3, 2, 1, 4], [1, 1], 1, 16, 16, "silu"),
    # wide rows (> 14 columns) with every kind of padding
    "wide_stem_7x7_s2_w40": (1, 3, 21, 40, 32, 7, 7, [2, 2], [3, 3], [1, 1], 1, 3, 16, "bias_relu"),
    "wide_3x3_dil2_w33": (1, 16, 9, 33, 32, 3, 3, [1, 1], [2, 2], [2, 2], 1, 16, 16, "relu r0 r0"),
    "wide_5x5_s2_asym_w37": (1, 16, 11, 37, 32, 5, 5, [2, 2], [0, 3, 2, 1], [1, 1], 1, 16, 16, "bias"),
    "wide_1x1_pad2_w20": (1, 16, 4, 20, 32, 1, 1, [1, 1], [2, 2], [1, 1], 1, 16, 16, "bias"),
    "wide_dil3_pad4_w16": (2, 32, 6, 16, 64, 3, 3, [1, 1], [3, 4, 3, 4], [3, 3], 2, 16, 16, "silu"),
    # large enough (> 4M multiply-adds) to be cut across threads
    "parallel_3x3_28": (1, 64, 28, 28, 64, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 16, "bias_residual_relu"),
    "parallel_1x1_flat_28": (1, 64, 28, 28, 128, 1, 1, [1, 1], [0], [1, 1], 1, 16, 16, "silu"),
    # five block groups of one 49-pixel run each: the runs cut in two, so that two threads balance
    "parallel_1x1_flat_five_groups_7": (1, 640, 7, 7, 160, 1, 1, [1, 1], [0], [1, 1], 1, 16, 16, "bias_residual_relu"),
    "parallel_ic4_oc4_24": (1, 32, 24, 24, 32, 3, 3, [1, 1], [1, 1], [1, 1], 1, 4, 4, "bias"),
    "parallel_1x1_flat_oc8_three_blocks": (1, 96, 23, 23, 24, 1, 1, [1, 1], [0], [1, 1], 1, 16, 8,
                                           "bias_residual_relu"),
    "parallel_3x3_oc8_nine_blocks_batch2": (2, 32, 15, 15, 72, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 8, "clip"),
    "1x1_s1_oc8_five_blocks_w30": (1, 16, 3, 30, 40, 1, 1, [1, 1], [0], [1, 1], 1, 16, 8, "bias"),
    "3x3_s2_oc8_groups3": (1, 48, 11, 11, 72, 3, 3, [2, 2], [1, 1], [1, 1], 3, 8, 8, "bias_relu"),
    # 1x1 over 8-channel input blocks: the ymm tiles' single channel-block loop (flat runs, strided, padded, grouped)
    "1x1_ic8_flat_oc8": (1, 64, 9, 11, 48, 1, 1, [1, 1], [0], [1, 1], 1, 8, 8, "bias_relu"),
    "1x1_ic8_s2_oc16_batch2": (2, 40, 13, 13, 32, 1, 1, [2, 2], [0], [1, 1], 1, 8, 16, "bias_residual_relu"),
    "1x1_ic8_pad1_rows": (1, 16, 5, 6, 24, 1, 1, [1, 1], [1], [1, 1], 1, 8, 8, "silu"),
    "1x1_ic8_groups2": (1, 32, 7, 7, 32, 1, 1, [1, 1], [0], [1, 1], 2, 8, 8, "clip"),
    # 7-column outputs on the 8-lane paths: tiles of consecutive pixels across rows (gathered columns)
    "gather_3x3_7": (1, 32, 7, 7, 32, 3, 3, [1, 1], [1, 1], [1, 1], 1, 8, 8, "bias_residual_relu"),
    "gather_3x3_s2_dil2_asym_batch2": (2, 16, 14, 14, 48, 3, 3, [2, 2], [2, 1, 2, 2], [2, 2], 1, 8, 8, "silu"),
    "gather_groups2": (1, 32, 7, 7, 32, 3, 3, [1, 1], [1, 1], [1, 1], 2, 8, 8, "clip"),
    "gather_oc16_one_block": (1, 16, 9, 9, 16, 3, 3, [1, 1], [0], [1, 1], 1, 8, 16, "bias"),
    # small maps whose 3x3 weights overflow L1, on the 8-lane paths: passes over the input channels adding to the
    # partial sums in out (gathered runs, a plane cut in two parts; an interpreted epilogue after the last pass)
    "cb_passes_gather_ic8_7_batch2": (2, 128, 7, 7, 64, 3, 3, [1, 1], [1, 1], [1, 1], 1, 8, 8, "bias_residual_relu"),
    "cb_passes_s2_ic8_14": (1, 128, 28, 28, 128, 3, 3, [2, 2], [1, 1], [1, 1], 1, 8, 8, "silu"),
    # narrow maps with >= 256 output channels a group on the 8-lane paths: a 1x1 conv over the input's im2col
    "im2col_3x3_s2_7": (1, 64, 14, 14, 256, 3, 3, [2, 2], [1, 1], [1, 1], 1, 8, 8, "bias_residual_relu"),
    "im2col_dil_asym_groups2_batch2": (2, 32, 9, 13, 512, 3, 2, [1, 2], [2, 1, 0, 2], [2, 3], 2, 8, 8, "silu"),
    "im2col_5x5_oc16_4": (1, 48, 4, 4, 256, 5, 5, [1, 1], [2, 2], [1, 1], 1, 16, 16, "bias_relu"),
    "im2col_interpreted_epilogue_7": (1, 16, 7, 7, 256, 3, 3, [1, 1], [1, 1], [1, 1], 1, 8, 8, "silu"),
    # strided (or padded) 1x1 convs with >= 128 output channels a group over 8-channel blocks: their subsample
    "im2col_1x1_s2_14": (1, 32, 14, 14, 128, 1, 1, [2, 2], [0, 0], [1, 1], 1, 8, 8, "bias_residual_relu"),
    "im2col_1x1_strides23_pad_groups2_batch2": (2, 16, 9, 11, 256, 1, 1, [2, 3], [1, 0, 2, 1], [1, 1], 2, 8, 8, "silu"),
    "im2col_1x1_s2_oc16_13": (1, 24, 13, 13, 128, 1, 1, [2, 2], [0], [1, 1], 1, 8, 16, "bias_relu"),
    "plain_nchw": (2, 5, 7, 9, 7, 3, 3, [1, 2], [1, 1], [1, 1], 1, 1, 1, "bias"),
    # plain NCHW / OIHW tensors whose channels allow blocks: packed, run blocked, unpacked
    "plain_nchw_packed_3x3": (2, 32, 9, 11, 48, 3, 3, [1, 2], [1, 0, 2, 1], [1, 1], 1, 1, 1, "bias_residual_relu"),
    "plain_nchw_packed_stem": (1, 3, 17, 17, 16, 7, 7, [2, 2], [3, 3], [1, 1], 1, 1, 1, "bias_relu"),
    "plain_nchw_packed_groups_oc8": (1, 16, 7, 7, 16, 3, 3, [1, 1], [1, 1], [1, 1], 2, 1, 1, "residual"),
    "plain_nchw_packed_1x1_big": (1, 64, 28, 28, 64, 1, 1, [1, 1], [0], [1, 1], 1, 1, 1, "silu"),
    "plain_nchw_padded_out_5x5": (1, 6, 11, 11, 20, 5, 5, [1, 1], [2, 2], [1, 1], 1, 1, 1, "clip"),
    # blocks of 2 / 4 (channels no 8 divides: ShuffleNet's 58 / 116): re-blocked, output channels padded to 8s
    "small_blocks_1x1_ic2_oc2_c58": (1, 58, 14, 14, 58, 1, 1, [1, 1], [0], [1, 1], 1, 2, 2, "bias_relu"),
    "small_blocks_3x3_s2_ic4_oc4_c116": (2, 116, 9, 9, 116, 3, 3, [2, 2], [1, 1], [1, 1], 1, 4, 4,
                                         "bias_residual_relu"),
    "small_blocks_1x1_ic4_oc2_o30": (1, 20, 7, 7, 30, 1, 1, [1, 1], [0], [1, 1], 1, 4, 2, "silu"),
    "small_blocks_oc4_o24_unpadded": (1, 16, 6, 6, 24, 3, 3, [1, 1], [1, 1], [1, 1], 1, 16, 4, "residual"),
}

EPILOGUES = {
    "": "",
    "relu r0 r0": "relu r0 r0",
    "bias": "add r0 r0 in0",
    "bias_relu": "add r0 r0 in0; relu r0 r0",
    "residual": "add r0 r0 in0",
    "bias_residual_relu": "add r0 r0 in0; add r0 r0 in1; relu r0 r0",
    "clip": "clip r0 r0 0 6",
    "silu": "silu r0 r0",
}


def run_case(case, rng):
    n, c, h, w, o, kh, kw, strides, padding, dilation, groups, ic, oc, epi = case
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    wt = rng.standard_normal((o, c // groups, kh, kw)).astype("float32")
    st = [strides] * 2 if isinstance(strides, int) else strides
    ref = conv_ref(x, wt, st, padding, dilation, groups)
    extra = []
    bias = rng.standard_normal(o).astype("float32")
    residual = rng.standard_normal(ref.shape).astype("float32")
    if epi in ("bias", "bias_relu", "bias_residual_relu"):
        ref = ref + bias.reshape(1, o, 1, 1)
        extra.append(pack_out(bias.reshape(1, o, 1, 1), oc) if oc > 1 or ic > 1 else bias.reshape(1, o, 1, 1))
    if epi in ("residual", "bias_residual_relu"):
        ref = ref + residual
        extra.append(pack_out(residual, oc) if oc > 1 or ic > 1 else residual)
    if epi in ("relu r0 r0", "bias_relu", "bias_residual_relu"):
        ref = np.maximum(ref, 0)
    if epi == "clip":
        ref = np.clip(ref, 0, 6)
    if epi == "silu":
        ref = silu(ref)
    blocked = ic > 1 or oc > 1
    data = pack_data(x, ic) if ic > 1 else x  # ic == 1: the 4-D NCHW form
    weight = pack_weight(wt, ic, oc) if blocked else wt
    out_shape = pack_out(ref, oc).shape if blocked else ref.shape
    attrs = {"strides": strides, "padding": padding, "dilation": dilation, "groups": groups}
    if EPILOGUES[epi]:
        attrs["epilogue"] = EPILOGUES[epi]
    kernel = conv2d_nchwc(attrs)
    out = tvmlite.nd.empty(out_shape)
    kernel(tvmlite.nd.array(data), tvmlite.nd.array(weight), *[tvmlite.nd.array(e) for e in extra], out)
    got = unpack_out(out.numpy(), oc) if blocked else out.numpy()
    return got, ref


@pytest.mark.parametrize("name", list(CASES))
def test_conv2d_nchwc_matches_numpy(name, isa, threads, rng):
    got, ref = run_case(CASES[name], rng)
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * scale)


def random_case(rng):
    """Any blocks, kernel, stride, dilation, asymmetric padding and groups; sizes that keep the window valid."""
    groups = int(rng.choice([1, 1, 2, 3]))
    ic, oc = int(rng.choice([1, 2, 3, 4, 8, 16])), int(rng.choice([1, 4, 8, 16, 16]))
    c, o = ic * int(rng.integers(1, 4)) * groups, oc * int(rng.integers(1, 5)) * groups
    kh, kw, sh, sw = (int(v) for v in rng.integers(1, [6, 6, 4, 4]))
    dh, dw = (int(v) for v in rng.integers(1, 3, 2))
    pad = [int(v) for v in rng.integers(0, 4, 4)]
    h = int(rng.integers(max(1, dh * (kh - 1) + 1 - pad[0] - pad[2]), 20))
    w = int(rng.integers(max(1, dw * (kw - 1) + 1 - pad[1] - pad[3]), 40))
    epi = str(rng.choice(["", "bias", "relu r0 r0", "bias_residual_relu"]))
    return (int(rng.integers(1, 3)), c, h, w, o, kh, kw, [sh, sw], pad, [dh, dw], groups, ic, oc, epi)


@pytest.mark.parametrize("seed", range(3))
def test_conv2d_nchwc_random_configs(seed, isa, threads):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        case = random_case(rng)
        got, ref = run_case(case, rng)
        scale = max(1.0, float(np.abs(ref).max()))
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * scale, err_msg=str(case))


def test_repeated_calls_reuse_the_bound_kernel(rng):
    """The bound kernel is called many times with different tensors (as the executor does): same answers."""
    kernel = conv2d_nchwc({"strides": [1, 1], "padding": [1, 1], "epilogue": "add r0 r0 in0"})
    for _ in range(3):
        x = rng.standard_normal((1, 16, 9, 9)).astype("float32")
        wt = rng.standard_normal((32, 16, 3, 3)).astype("float32")
        b = rng.standard_normal((1, 32, 1, 1)).astype("float32")
        out = tvmlite.nd.empty((1, 2, 9, 9, 16))
        kernel(tvmlite.nd.array(pack_data(x, 16)), tvmlite.nd.array(pack_weight(wt, 16, 16)),
               tvmlite.nd.array(pack_out(b, 16)), out)
        ref = conv_ref(x, wt, [1, 1], [1, 1], [1, 1], 1) + b
        np.testing.assert_allclose(unpack_out(out.numpy(), 16), ref, rtol=1e-4, atol=1e-3)


def test_concurrent_callers_get_their_own_padded_input(rng):
    """Two Python threads running padded convs of different sizes at once (each pads into its own buffer)."""
    expected = same_results_in_threads(run_case, [CASES["3x3_s1_p1_13"], CASES["stem_7x7_s2_ic3"]], 20)
    for got, ref in expected:
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shape", [(1, 32, 13, 13, 64, 3, 1, 16), (2, 64, 7, 7, 128, 3, 1, 16),
                                   (1, 32, 9, 9, 48, 1, 1, 16), (1, 16, 11, 11, 32, 3, 2, 16),
                                   (1, 32, 13, 13, 24, 1, 1, 8), (2, 16, 9, 9, 72, 3, 1, 8),
                                   (1, 16, 11, 11, 40, 3, 2, 8)])
@pytest.mark.parametrize("program", [
    "add r0 r0 in0; relu r0 r0",
    "add r0 in1 r0; add r0 r0 in0; relu r0 r0",
    "add r0 r0 in0; add r0 r0 in1; clip r0 r0 -0.5 6",
    "add r0 in1 r0",
    "clip r0 r0 0 6",
    "add r0 r0 in0; clip r0 r0 6 -1",            # lo > hi: compare and blend, not max then min
    "add r0 r0 in1; clip r0 r0 6 -1",            # a residual with lo > hi: the general form
    "add r0 r0 in1; add r0 in1 r0; relu r0 r0",  # two residual adds: the general form
    "add r0 r0 in0",                             # the ymm tiles' branch-free form: no activation
    "add r0 r0 in0; add r0 r0 in0; relu r0 r0",  # two per-channel adds
    "add r1 r0 in0; add r2 in1 r1; relu r0 r2",  # the lowering's register naming
    "add r1 r0 in0; relu r1 r1; copy r0 r1",     # not a chain ending in r0 by an add or activation: interpreter
])
def test_epilogue_in_registers_matches_the_interpreter(shape, program, isa, rng):
    """Bias / residual / relu / clip run in registers (AVX-512, and the ymm tiles of AVX2): bit for bit what the
    interpreter computes (the same program with a trailing copy is not recognised, so it runs through the
    interpreter), NaN, inf and -0 included, in the residual and in the bias."""
    n, c, h, w, o, k, s, oc = shape
    p = k // 2
    oh = (h + 2 * p - k) // s + 1
    x = pack_data(rng.standard_normal((n, c, h, w)).astype("float32"), 16)
    wt = pack_weight(rng.standard_normal((o, c, k, k)).astype("float32"), 16, oc)
    bias = rng.standard_normal((1, o // oc, 1, 1, oc)).astype("float32")
    residual = rng.standard_normal((n, o // oc, oh, oh, oc)).astype("float32")
    residual.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    bias.flat[-4:] = [np.nan, np.inf, -np.inf, -0.0]
    args = [tvmlite.nd.array(a) for a in (x, wt, bias, residual)]
    outs = []
    for text in (program, program + "; copy r0 r0"):
        out = tvmlite.nd.empty((n, o // oc, oh, oh, oc))
        conv2d_nchwc({"strides": [s, s], "padding": [p], "epilogue": text})(*args, out)
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


# ---------------------------------------------------------------------------------------------------------------
# bad input


def _args(n=1, c=16, h=8, w=8, o=16, k=3, ic=16, oc=16, dtype="float32"):
    data = tvmlite.nd.array(np.zeros((n, c // ic, h, w, ic), dtype))
    weight = tvmlite.nd.array(np.zeros((o // oc, c // ic, k, k, ic, oc), "float32"))
    out = tvmlite.nd.empty((n, o // oc, h - k + 1, w - k + 1, oc))
    return data, weight, out


def test_bad_dtype():
    data, weight, out = _args(dtype="float64")
    with pytest.raises(TypeError, match=KERNEL + ".*data.*float32"):
        conv2d_nchwc({})(data, weight, out)


def test_bad_rank():
    _, weight, out = _args()
    data = tvmlite.nd.array(np.zeros((1, 16, 8), "float32"))
    with pytest.raises(ValueError, match=KERNEL + ": data must be"):
        conv2d_nchwc({})(data, weight, out)
    data, _, out = _args()
    weight = tvmlite.nd.array(np.zeros((1, 1, 3, 3, 16), "float32"))
    with pytest.raises(ValueError, match=KERNEL + ": weight must be"):
        conv2d_nchwc({})(data, weight, out)


def test_mismatched_blocks():
    data = tvmlite.nd.array(np.zeros((1, 2, 8, 8, 8), "float32"))
    weight = tvmlite.nd.array(np.zeros((1, 1, 3, 3, 16, 16), "float32"))
    out = tvmlite.nd.empty((1, 1, 6, 6, 16))
    with pytest.raises(ValueError, match=KERNEL + ": mismatched blocks"):
        conv2d_nchwc({})(data, weight, out)


def test_wrong_channels_for_groups():
    data, weight, out = _args()
    with pytest.raises(ValueError, match=KERNEL + ".*groups"):
        conv2d_nchwc({"groups": 2})(data, weight, out)


def test_depthwise_is_rejected():
    data = tvmlite.nd.array(np.zeros((1, 1, 8, 8, 16), "float32"))
    weight = tvmlite.nd.array(np.zeros((1, 1, 3, 3, 1, 16), "float32"))
    out = tvmlite.nd.empty((1, 1, 6, 6, 16))
    with pytest.raises(ValueError, match=KERNEL + ".*(depthwise|mismatched)"):
        conv2d_nchwc({"groups": 16})(data, weight, out)


def test_grouped_plain_nchw_with_one_channel_per_group(rng):
    """4-D data (blocks of 1) with groups == C is an ordinary grouped conv to this kernel: it must be exact."""
    x = rng.standard_normal((1, 6, 9, 9)).astype("float32")
    wt = rng.standard_normal((12, 1, 3, 3)).astype("float32")
    out = tvmlite.nd.empty((1, 12, 9, 9))
    conv2d_nchwc({"padding": [1], "groups": 6})(tvmlite.nd.array(x), tvmlite.nd.array(wt), out)
    np.testing.assert_allclose(out.numpy(), conv_ref(x, wt, [1, 1], [1], [1, 1], 6), rtol=1e-4, atol=1e-4)


def test_wrong_out_shape():
    data, weight, _ = _args()
    out = tvmlite.nd.empty((1, 1, 8, 8, 16))
    with pytest.raises(ValueError, match=KERNEL + ": out must have shape"):
        conv2d_nchwc({})(data, weight, out)


def test_kernel_larger_than_input():
    data, weight, _ = _args(h=2, w=2)
    out = tvmlite.nd.empty((1, 1, 1, 1, 16))
    with pytest.raises(ValueError, match=KERNEL + ".*larger than the padded input"):
        conv2d_nchwc({})(data, weight, out)


@pytest.mark.parametrize("attrs, error, message", [
    ({"strides": [-1, 1]}, ValueError, "strides"),
    ({"strides": [0]}, ValueError, "strides"),
    ({"padding": [1, 1, 1]}, ValueError, "padding needs"),
    ({"padding": [-1]}, ValueError, "padding"),
    ({"dilation": [1, 2, 3]}, ValueError, "dilation"),
    ({"groups": 0}, ValueError, "groups"),
    ({"strides": "2"}, TypeError, "strides"),
    ({"epilogue": "frobnicate r0 r0"}, ValueError, "unknown op"),
])
def test_bad_attrs(attrs, error, message):
    with pytest.raises(error, match=KERNEL + ".*" + message):
        conv2d_nchwc(attrs)


def test_kernel_is_registered_for_the_conv_ops():
    for op in ("nn.contrib_conv2d_NCHWc", "nn.conv2d"):
        assert str(Op.get(op).get_attr("FTVMLiteKernel")) == KERNEL


def test_relay_attrs_the_lowering_passes_are_accepted():
    """The lowering hands every Conv2DAttrs field (by reflection); blocked and plain layouts are what we compute."""
    data, weight, out = _args()
    attrs = {"strides": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1], "groups": 1, "channels": 16,
             "kernel_size": [3, 3], "data_layout": "NCHW16c", "kernel_layout": "OIHW16i16o", "out_layout": "",
             "out_dtype": "float32"}
    conv2d_nchwc(attrs)(data, weight, out)
    conv2d_nchwc(dict(attrs, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW"))


@pytest.mark.parametrize("key, value", [("data_layout", "NHWC"), ("kernel_layout", "HWIO"),
                                        ("out_layout", "NHWC16c"), ("data_layout", "NCHW16"),
                                        ("kernel_layout", "OIHW16i"), ("out_dtype", "float16")])
def test_other_layouts_and_dtypes_are_not_implemented(key, value):
    """Raising at the factory sends the lowering to the reference for these."""
    with pytest.raises(NotImplementedError, match=KERNEL + ".*" + key):
        conv2d_nchwc({key: value})


def test_missing_epilogue_input():
    data, weight, out = _args()
    with pytest.raises(TypeError, match=KERNEL):
        conv2d_nchwc({"epilogue": "add r0 r0 in0"})(data, weight, out)


def test_epilogue_input_not_broadcastable():
    data, weight, out = _args()
    bias = tvmlite.nd.array(np.zeros((1, 1, 1, 1, 8), "float32"))
    with pytest.raises(ValueError, match=KERNEL + ".*broadcast"):
        conv2d_nchwc({"epilogue": "add r0 r0 in0"})(data, weight, bias, out)
