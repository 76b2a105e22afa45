"""topi.nn.conv2d_winograd_nchwc (csrc/topi/nn/conv2d_winograd.cc): Winograd F(4x4) and F(2x2) 3x3 convolution, and
the polyphase F(2x2, 2x2) and F(4x4, 2x2) of stride 2, against a float64 direct convolution, over odd sizes, every
padding form, batches, channel blocks, both thread counts and every ISA path; fused epilogues; the matrices'
identities; when AlterOpLayout should pick it; bad input raises errors that name the kernel."""
import numpy as np
import pytest

import tvmlite
from blocked import pack, unpack

_get = tvmlite.get_global_func
KERNEL = "topi.nn.conv2d_winograd_nchwc"


def matrices(m, stride=1):
    return [np.array([[float(v) for v in row] for row in mat])
            for mat in _get("topi.nn.winograd_matrices")(m, stride)]


def direct(x, w, pads, stride=1):
    """float64 cross-correlation of x (N, C, H, W) with w (O, C, 3, 3), pads (top, left, bottom, right)."""
    top, left, bottom, right = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    oh, ow = (xp.shape[2] - 3) // stride + 1, (xp.shape[3] - 3) // stride + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(3):
        for j in range(3):
            window = xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            out += np.einsum("nchw,oc->nohw", window, w[:, :, i, j].astype(np.float64))
    return out


def transform_weight(w, m, ob, stride=1):
    """(O, C, 3, 3) -> (alpha, alpha, O / ob, C, ob): G g G^T packed into output blocks ("HWOI{ob}o"). Stride 2:
    (m + 1, m + 1, O / ob, 4C, ob), element (i, j) holding the G k G^T of the parity phases it has, ee eo oe oo, then
    zeros."""
    _, _, g = matrices(m, stride)
    w = w.astype(np.float64)
    if stride == 1:
        u = np.einsum("ak,ockl,bl->aboc", g, w, g)
    else:
        o, c = w.shape[:2]
        taps = np.zeros((o, c, 4, 4))
        taps[:, :, :3, :3] = w
        phase = [np.einsum("ak,ockl,bl->aboc", g, taps[:, :, p::2, q::2], g) for p in (0, 1) for q in (0, 1)]
        last = m  # the infinite point's element, where an odd phase's 1-tap filter is zero
        u = np.zeros((m + 1, m + 1, o, 4 * c))
        for i in range(m + 1):
            for j in range(m + 1):
                has = [ph for ph in range(4) if (ph < 2 or i < last) and (ph % 2 == 0 or j < last)]
                for ph in set(range(4)) - set(has):
                    assert not phase[ph][i, j].any()
                u[i, j, :, :len(has) * c] = np.concatenate([phase[ph][i, j] for ph in has], axis=1)
    u = u.astype(np.float32)
    a, _, o, c = u.shape
    return np.ascontiguousarray(u.reshape(a, a, o // ob, ob, c).transpose(0, 1, 2, 4, 3))


def run(attrs, x, u, *extra, out_shape):
    out = tvmlite.nd.array(np.full(out_shape, np.nan, np.float32))
    _get(KERNEL)(attrs)(tvmlite.nd.array(x), tvmlite.nd.array(u), *[tvmlite.nd.array(e) for e in extra], out)
    return out.numpy()


def check(rng, m, n, c, o, h, w, padding, block=16, out_block=16, stride=1):
    # top, left, bottom, right
    pads = padding * 4 if len(padding) == 1 else padding * 2 if len(padding) == 2 else padding
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    want = direct(x, wt, pads, stride)
    got = run({"tile_size": m, "padding": list(padding), "strides": [stride, stride]}, pack(x, block),
              transform_weight(wt, m, out_block, stride), out_shape=pack(want, out_block).shape)
    # F(4x4)'s transforms scale values by up to ~100: its error is larger than the direct conv's, still ~1e-5
    # relative to the outputs' magnitude
    np.testing.assert_allclose(unpack(got), want, rtol=0, atol=(3e-4 if m == 4 else 5e-5) * np.abs(want).max())


CASES = [
    # (m, n, c, o, h, w, padding)
    (4, 1, 64, 64, 16, 16, [1]),
    (4, 2, 32, 48, 13, 9, [1]),        # tiles past the output's edge, batch 2
    (4, 1, 16, 32, 7, 23, [0]),        # no padding
    (4, 1, 32, 16, 10, 11, [2, 0]),    # padding (top/bottom, left/right)
    (4, 1, 16, 16, 6, 6, [0, 1, 2, 0]),  # asymmetric: top, left, bottom, right
    (2, 1, 128, 32, 7, 7, [1]),
    (2, 2, 48, 16, 5, 9, [1, 0]),
    (4, 1, 16, 16, 3, 3, [0]),         # a single output pixel
]


@pytest.mark.parametrize("case", CASES,
                         ids=lambda c: "F%d_n%d_c%d_o%d_%dx%d_p%s" % (c[:6] + ("-".join(map(str, c[6])),)))
def test_winograd_matches_direct(rng, isa, threads, case):
    check(rng, *case)


@pytest.mark.parametrize("block,out_block", [(8, 8), (4, 16), (16, 8), (1, 4)])
def test_winograd_any_blocks(rng, isa, block, out_block):
    check(rng, 4, 1, 32, 32, 9, 10, [1], block=block, out_block=out_block)


STRIDE2_CASES = [
    # (n, c, o, h, w, padding)
    (1, 64, 64, 16, 16, [1]),
    (1, 32, 48, 56, 56, [1]),          # ResNet's plane: 28x28 out, 14x14 tiles
    (2, 32, 48, 13, 9, [1]),           # odd sizes: the last tile row and column half past the output, batch 2
    (1, 16, 32, 7, 23, [0]),           # no padding
    (1, 32, 16, 10, 11, [2, 0]),       # padding (top/bottom, left/right)
    (1, 16, 16, 6, 6, [0, 1, 2, 0]),   # asymmetric: top, left, bottom, right
    (1, 16, 16, 8, 8, [0, 0, 1, 1]),   # "same_upper" of an even input
    (1, 16, 16, 3, 3, [0]),            # a single output pixel
    (1, 256, 32, 9, 9, [1]),           # K of 1024 for the four-phase elements (two GEMM K blocks)
]


@pytest.mark.parametrize("case", STRIDE2_CASES,
                         ids=lambda c: "n%d_c%d_o%d_%dx%d_p%s" % (c[:5] + ("-".join(map(str, c[5])),)))
@pytest.mark.parametrize("m", [2, 4])
def test_winograd_stride2_matches_direct(rng, isa, threads, case, m):
    n, c, o, h, w, padding = case
    check(rng, m, n, c, o, h, w, padding, stride=2)


@pytest.mark.parametrize("block,out_block", [(8, 8), (4, 16), (16, 8), (1, 4), (3, 16)])
@pytest.mark.parametrize("m", [2, 4])
def test_winograd_stride2_any_blocks(rng, isa, block, out_block, m):
    check(rng, m, 1, 48, 32, 11, 10, [1], block=block, out_block=out_block, stride=2)


@pytest.mark.parametrize("program,fn", [
    ("add r1 r0 in0; relu r0 r1", lambda y, b, r: np.maximum(y + b, 0)),
    ("add r1 r0 in0; add r2 r1 in1; relu r0 r2", lambda y, b, r: np.maximum(y + b + r, 0)),
    ("add r0 r0 in0; sigmoid r0 r0", lambda y, b, r: 1 / (1 + np.exp(-(y + b)))),
])
@pytest.mark.parametrize("m,stride", [(4, 1), (2, 2), (4, 2)])
def test_winograd_epilogue(rng, threads, program, fn, m, stride):
    """The epilogue runs on each finished band of output rows, with a per-channel and a full-shape input."""
    x = rng.standard_normal((1, 32, 11, 9)).astype(np.float32)
    wt = (rng.standard_normal((32, 32, 3, 3)) / 17).astype(np.float32)
    conv = direct(x, wt, [1, 1, 1, 1], stride)
    bias = rng.standard_normal((1, 32, 1, 1)).astype(np.float32)
    res = rng.standard_normal(conv.shape).astype(np.float32)
    extra = [pack(bias, 16)] + ([pack(res, 16)] if "in1" in program else [])
    got = run({"tile_size": m, "padding": [1], "strides": [stride, stride], "epilogue": program}, pack(x, 16),
              transform_weight(wt, m, 16, stride), *extra, out_shape=pack(conv, 16).shape)
    np.testing.assert_allclose(unpack(got), fn(conv, bias, res), rtol=1e-4, atol=1e-4)


def _assert_correlation(at, bt, g, m, r, rng):
    """A^T [(G k G^T) * (B^T d B)] A, for F(m x m, r x r)'s matrices, is the valid r x r correlation of a random
    (m + r - 1)^2 tile d with a random filter k."""
    t = m + r - 1
    assert at.shape == (m, t) and bt.shape == (t, t) and g.shape == (t, r)
    d = rng.standard_normal((t, t))
    k = rng.standard_normal((r, r))
    y = at @ ((g @ k @ g.T) * (bt @ d @ bt.T)) @ at.T
    want = np.array([[np.sum(d[i:i + r, j:j + r] * k) for j in range(m)] for i in range(m)])
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m", [2, 4])
def test_matrices_compute_a_correlation(rng, m):
    """A^T [(G g G^T) * (B^T d B)] A is the valid 3x3 correlation of an (m + 2)^2 tile: the identity the kernel
    and the relay references rely on."""
    _assert_correlation(*matrices(m), m, 3, rng)


@pytest.mark.parametrize("m", [2, 4])
def test_stride2_matrices_compute_the_phases(rng, m):
    """F(m x m, 2 x 2): A^T [(G k G^T) * (B^T e B)] A is the valid 2x2 correlation of an (m + 1)^2 tile; a 1-tap
    filter's row or column (an odd phase's) transforms to zero in the last element, which the kernel skips, and B^T's
    other rows never read the tile's last row, which an odd phase's window leaves out."""
    at, bt, g = matrices(m, 2)
    _assert_correlation(at, bt, g, m, 2, rng)
    assert (g @ np.array([1.5, 0.0]))[m] == 0
    assert not bt[:m, m].any()


def test_tile_policy(isa):
    tile = _get("topi.nn.conv2d_winograd_tile")
    if str(isa) == "scalar":
        assert tile(64, 64, 56, 56, 1) == 0  # no vector GEMM: the direct conv
        assert tile(64, 128, 28, 28, 2) == 0
        return
    if str(isa) == "avx2":  # 8-channel blocks
        assert tile(64, 64, 56, 56, 1) == 4
        assert tile(32, 32, 56, 56, 1) == 4
        assert tile(16, 16, 56, 56, 1) == 0    # lost at two threads
        assert tile(40, 64, 56, 56, 1) == 4    # whole 8-channel blocks
        assert tile(36, 64, 56, 56, 1) == 0
        assert tile(64, 64, 7, 7, 1) == 4      # 7x7: F(4x4) while its weights stay small
        assert tile(256, 256, 7, 7, 1) == 4
        assert tile(256, 512, 7, 7, 1) == 2
        assert tile(512, 512, 7, 7, 1) == 2
        assert tile(32, 32, 7, 7, 1) == 0
        assert tile(512, 512, 6, 6, 1) == 0
        assert tile(2**62, 2**62, 7, 7, 1) == 2  # the product in double, no overflow
        assert tile(64, 128, 28, 28, 2) == 4   # stride 2 as on AVX-512
        assert tile(256, 256, 14, 14, 2) == 2
        assert tile(256, 512, 7, 7, 2) == 0
        assert tile(64, 64, 2**63 - 1, 2**63 - 1, 2) == 4
        assert tile(64, 64, -2**63, 28, 2) == 0 and tile(64, 64, 0, 28, 1) == 0
        return
    assert tile(64, 64, 56, 56, 1) == 4
    assert tile(256, 256, 14, 14, 1) == 4
    assert tile(512, 512, 7, 7, 1) == 2
    assert tile(64, 64, 7, 7, 1) == 0      # too few channels for F(2x2) to pay
    assert tile(24, 64, 56, 56, 1) == 0    # not whole 16-channel blocks
    assert tile(512, 512, 4, 4, 1) == 0
    assert tile(64, 128, 28, 28, 2) == 4   # stride 2: the polyphase F(4x4, 2x2), whole tiles
    assert tile(128, 128, 56, 56, 2) == 4
    assert tile(256, 256, 14, 14, 2) == 2  # F(2x2, 2x2): F(4x4)'s tiles would reach 16x16
    assert tile(64, 64, 30, 30, 2) == 2    # F(4x4)'s multiplies 0.92 of F(2x2)'s: not worth its transforms
    assert tile(64, 64, 2**63 - 1, 2**63 - 1, 2) == 4  # any int64 sizes, no overflow
    assert tile(64, 64, -2**63, 28, 2) == 0 and tile(64, 64, 0, 28, 1) == 0
    assert tile(256, 512, 7, 7, 2) == 0    # a quarter of the tiles' outputs past the edge
    assert tile(32, 64, 28, 28, 2) == 0    # too few channels: the GEMMs' K is 128, 64, 32
    assert tile(64, 64, 28, 28, 3) == 0


def test_winograd_bad_input(rng):
    f = _get(KERNEL)({"tile_size": 4, "padding": [1]})
    x = tvmlite.nd.array(np.zeros((1, 2, 8, 8, 16), np.float32))
    out = tvmlite.nd.array(np.zeros((1, 2, 8, 8, 16), np.float32))
    with pytest.raises(ValueError, match="conv2d_winograd_nchwc.*weight"):
        f(x, tvmlite.nd.array(np.zeros((4, 4, 2, 32, 16), np.float32)), out)  # alpha 4 for tile_size 4
    with pytest.raises(ValueError, match="conv2d_winograd_nchwc.*weight"):
        f(x, tvmlite.nd.array(np.zeros((6, 6, 2, 16, 16), np.float32)), out)  # 16 input channels, data has 32
    with pytest.raises(ValueError, match="conv2d_winograd_nchwc"):
        f(x, tvmlite.nd.array(np.zeros((6, 6, 2, 32, 16), np.float32)),
          tvmlite.nd.array(np.zeros((1, 2, 7, 8, 16), np.float32)))  # wrong output shape
    with pytest.raises(ValueError, match="conv2d_winograd_nchwc.*rank|conv2d_winograd_nchwc.*5"):
        f(tvmlite.nd.array(np.zeros((1, 32, 8, 8), np.float32)),
          tvmlite.nd.array(np.zeros((6, 6, 2, 32, 16), np.float32)), out)
    with pytest.raises(ValueError, match="block of 128; at most 64"):
        f(tvmlite.nd.array(np.zeros((1, 1, 8, 8, 128), np.float32)),
          tvmlite.nd.array(np.zeros((6, 6, 8, 128, 16), np.float32)), tvmlite.nd.array(np.zeros((1, 8, 8, 8, 16),
                                                                                                  np.float32)))
    huge = _get(KERNEL)({"tile_size": 4, "padding": [600]})
    with pytest.raises(ValueError, match="padded far beyond"):
        huge(tvmlite.nd.array(np.zeros((1, 1, 1, 1, 16), np.float32)),
             tvmlite.nd.array(np.zeros((6, 6, 1, 16, 16), np.float32)),
             tvmlite.nd.array(np.zeros((1, 1, 1199, 1199, 16), np.float32)))
    with pytest.raises(TypeError, match="conv2d_winograd_nchwc"):
        f(tvmlite.nd.array(np.zeros((1, 2, 8, 8, 16), np.float64)),
          tvmlite.nd.array(np.zeros((6, 6, 2, 32, 16), np.float32)), out)
    s2 = _get(KERNEL)({"tile_size": 2, "strides": [2, 2], "padding": [1]})
    half = tvmlite.nd.array(np.zeros((1, 2, 4, 4, 16), np.float32))
    with pytest.raises(ValueError, match=r"conv2d_winograd_nchwc.*weight.*\(3, 3, O / ob, 128, ob\)"):
        s2(x, tvmlite.nd.array(np.zeros((3, 3, 2, 32, 16), np.float32)), half)  # C rows, not the phases' 4C
    with pytest.raises(ValueError, match="conv2d_winograd_nchwc.*weight"):
        s2(x, tvmlite.nd.array(np.zeros((4, 4, 2, 128, 16), np.float32)), half)  # alpha 3 for stride 2
    with pytest.raises(ValueError, match="conv2d_winograd_nchwc"):
        s2(x, tvmlite.nd.array(np.zeros((3, 3, 2, 128, 16), np.float32)), out)  # the stride-1 output shape
    with pytest.raises(ValueError, match="too small"):
        _get(KERNEL)({"tile_size": 2, "strides": [2, 2], "padding": [0]})(
            tvmlite.nd.array(np.zeros((1, 1, 2, 5, 16), np.float32)),
            tvmlite.nd.array(np.zeros((3, 3, 1, 64, 16), np.float32)),
            tvmlite.nd.array(np.zeros((1, 1, 1, 2, 16), np.float32)))


@pytest.mark.parametrize("attrs,message", [
    ({"tile_size": 3}, "tile_size must be 2 or 4"),
    ({"strides": [3, 3], "tile_size": 2}, "strides of 1 or 2"),
    ({"strides": [2, 1], "tile_size": 2}, "strides of 1 or 2"),
    ({"dilation": [2, 2]}, "dilation of 1"),
    ({"kernel_size": [5, 5]}, r"kernel_size must be \(3, 3\)"),
    ({"groups": 2}, "groups must be 1"),
])
def test_winograd_bad_attrs(attrs, message):
    with pytest.raises(ValueError, match=message):
        _get(KERNEL)(attrs)
    with pytest.raises(ValueError, match="tile_size must be 2 or 4"):
        _get("topi.nn.winograd_matrices")(3, 1)
    with pytest.raises(ValueError, match="stride must be 1 or 2"):
        _get("topi.nn.winograd_matrices")(4, 3)
