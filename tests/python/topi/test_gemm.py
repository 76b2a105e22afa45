"""The GEMM family (csrc/topi/nn/gemm.cc): topi.nn.dense, dense_pack, matmul and batch_matmul against numpy in
float64, on every ISA path and with 1 and 2 threads; epilogues land on the right elements; bad input raises errors
that name the kernel; nn.contrib_dense_pack type-checks and its reference is nn.dense on the unpacked weight."""
import math

import numpy as np
import pytest

import tvmlite
from lowering import lowering_attrs
from thread_helpers import run_threads
from tvmlite import ir, relay
from tvmlite.ir.op import Op
from tvmlite.relay.op.op import get_reference

_get = tvmlite.get_global_func


def _nd(a):
    return tvmlite.nd.array(np.ascontiguousarray(a, dtype=np.float32))


def _run(name, attrs, *inputs, out_shape):
    out = tvmlite.nd.array(np.full(out_shape, np.nan, np.float32))
    _get(name)(attrs)(*[_nd(x) for x in inputs], out)
    return out.numpy()


def _pack(w, nb):
    """nn.dense's weight (N, K) as the packed (N / nb, K, nb) ("NK{nb}n")."""
    n, k = w.shape
    return np.ascontiguousarray(w.reshape(n // nb, nb, k).transpose(0, 2, 1))


def _close(got, want, k):
    tol = 1e-5 * max(1, k) ** 0.5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# (M, K, N): every M, K and N of the sweep appears; tails of N (100, 24) and K (7) included; (1, 512, 1000):
# ResNet-18's classifier, cut across threads by its weight bytes, a partial group of rows last; M of 49: Winograd's
# F(4x4, 2x2) GEMMs at 28x28 (six 8-row tiles and one of a row)
SHAPES = [(1, 7, 8), (1, 768, 3072), (1, 512, 1000), (3, 64, 24), (3, 1, 100), (17, 768, 100), (17, 7, 3072),
          (49, 512, 128), (64, 64, 768), (64, 1, 8), (197, 768, 768), (197, 7, 24), (5, 0, 8)]


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_dense_matches_numpy(isa, threads, rng, m, k, n):
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    got = _run("topi.nn.dense", {}, x, w, out_shape=(m, n))
    _close(got, x.astype(np.float64) @ w.T.astype(np.float64), k)


@pytest.mark.parametrize("m,k,n", [(38416, 4, 4), (37, 64, 7), (9, 3, 1), (100, 65, 4)])
def test_dense_narrow_and_short(isa, threads, rng, m, k, n):
    """N narrower than a panel and K <= 64 (CaiT's talking heads, 4 x 4 over 38416 rows): N dot products a row,
    the epilogue on each part; K = 65 takes the GEMM."""
    x = rng.standard_normal((1, m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    got = _run("topi.nn.dense", {"epilogue": "add r0 r0 in0; relu r0 r0"}, x, w, bias, out_shape=(1, m, n))
    _close(got, np.maximum(x.astype(np.float64) @ w.T.astype(np.float64) + bias, 0), k)


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_dense_pack_matches_numpy(isa, threads, rng, m, k, n):
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    nb = _get("topi.nn.dense_pack_block")(n) or (8 if n % 8 == 0 else 4)  # 0 (no rewrite): test a width anyway
    got = _run("topi.nn.dense_pack", {"weight_layout": f"NK{nb}n", "units": n}, x, _pack(w, nb), out_shape=(m, n))
    _close(got, x.astype(np.float64) @ w.T.astype(np.float64), k)


@pytest.mark.parametrize("nb", [1, 2, 4, 8, 16, 32, 48, 64])
def test_dense_pack_any_panel_width(isa, rng, nb):
    """A weight packed under one ISA runs under any other: every panel width is served."""
    x = rng.standard_normal((2, 3, 45)).astype(np.float32)  # leading dims flatten to M = 6
    w = rng.standard_normal((192, 45)).astype(np.float32)
    got = _run("topi.nn.dense_pack", {}, x, _pack(w, nb), out_shape=(2, 3, 192))
    _close(got, x.astype(np.float64) @ w.T.astype(np.float64), 45)


# (M, N) where the column tiles are dealt out evenly (N = 64: 32 + 32 on AVX-512) and the work is cut into parts of
# equal weight per thread, a part ending inside a column tile: tails of M and N, one row tile, many row tiles.
BALANCED = [(8, 64), (64, 64), (128, 64), (40, 80), (9, 112), (29, 128), (16, 70), (3, 64), (200, 48)]


@pytest.mark.parametrize("m,n", BALANCED)
def test_dense_balanced_column_tiles(isa, threads, rng, m, n):
    """Each column tile and part of the split gets its own columns and rows (K = 800 crosses a K block), the bias of
    its own columns (in registers on AVX-512, interpreted elsewhere), and the result does not depend on the thread
    count: every element is the same sequence of FMAs whichever thread computes it."""
    k = 800
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    program = "add r1 r0 in0; relu r0 r1"
    got = _run("topi.nn.dense", {"epilogue": program}, x, w, bias, out_shape=(m, n))
    want = np.maximum(x.astype(np.float64) @ w.T.astype(np.float64) + bias, 0)
    _close(got, want, k)
    set_threads = _get("runtime.set_num_threads")
    try:
        set_threads(3 - threads)
        again = _run("topi.nn.dense", {"epilogue": program}, x, w, bias, out_shape=(m, n))
    finally:
        set_threads(threads)
    np.testing.assert_array_equal(got, again)


def test_dense_pack_block():
    """16 (AVX-512) or 8 (AVX2) when it divides N; otherwise 0: nn.dense (full vectors, padded tail) is faster."""
    block = _get("topi.nn.dense_pack_block")
    set_isa = _get("topi.set_cpu_isa")
    try:
        if set_isa("avx512") == "avx512":  # an AVX2 CPU runs its own path (the other two cases)
            assert [block(n) for n in (768, 3072, 24, 1000, 30522, 7)] == [16, 16, 0, 0, 0, 0]
        set_isa("avx2")
        assert [block(n) for n in (768, 24, 1000, 30522, 7)] == [8, 8, 8, 0, 0]
        set_isa("scalar")
        assert [block(n) for n in (768, 24, 1000, 30522, 7)] == [16, 8, 8, 0, 0]
    finally:
        set_isa("avx512")
    with pytest.raises(ValueError, match="topi.nn.dense_pack_block"):
        block(0)


MATMUL_CASES = [
    ((5, 7), (7, 9), False, False),
    ((2, 3, 17, 64), (64, 24), False, False),          # B shared: one GEMM over every batch row
    ((2, 1, 4, 8), (3, 8, 100), False, False),        # batch broadcast both ways
    ((3, 100, 8), (8,), False, False),                # 1-D b: its N dim is dropped
    ((8,), (4, 8, 20), False, False),                 # 1-D a: its M dim is dropped
    ((8,), (8,), False, False),                       # vector dot -> scalar
    ((4, 33, 6), (4, 24, 33), True, True),            # both transposed
    ((33, 6), (2, 33, 40), True, False),
    ((1, 197, 64), (12, 197, 64), False, True),       # attention-like q k^T, batch broadcast from 1
    ((12, 197, 197), (12, 197, 64), False, False),    # attention-like p v
    ((3, 0, 5), (5, 4), False, False),                # M = 0
    ((3, 2, 0), (0, 4), False, False),                # K = 0: zeros
]


def _np_matmul(a, b, ta, tb):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    if ta and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if tb and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    return np.asarray(np.matmul(a, b))


@pytest.mark.parametrize("sa,sb,ta,tb", MATMUL_CASES)
def test_matmul_matches_numpy(isa, threads, rng, sa, sb, ta, tb):
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    want = _np_matmul(a, b, ta, tb)
    got = _run("topi.nn.matmul", {"transpose_a": ta, "transpose_b": tb}, a, b, out_shape=want.shape)
    _close(got, want, a.shape[-2 if ta and a.ndim > 1 else -1])


@pytest.mark.parametrize("sx,sy,ta,tb", [
    ((3, 17, 64), (3, 24, 64), False, True),    # TVM's default: y (B, N, K)
    ((3, 17, 64), (3, 64, 24), False, False),
    ((3, 64, 17), (1, 24, 64), True, True),      # y's batch broadcasts
    ((1, 64, 17), (4, 64, 100), True, False),    # x's batch broadcasts
    ((12, 128, 64), (12, 128, 64), False, True),
])
def test_batch_matmul_matches_numpy(isa, threads, rng, sx, sy, ta, tb):
    x = rng.standard_normal(sx).astype(np.float32)
    y = rng.standard_normal(sy).astype(np.float32)
    want = _np_matmul(x, y, ta, tb)
    got = _run("topi.nn.batch_matmul", {"transpose_a": ta, "transpose_b": tb}, x, y, out_shape=want.shape)
    _close(got, want, sx[1] if ta else sx[2])


@pytest.mark.parametrize("k", [1, 5, 16, 17, 33, 64, 100])
@pytest.mark.parametrize("n", [1, 7, 16, 24, 40, 129])
def test_batch_matmul_transpose_b_packs_any_k_and_n(isa, threads, rng, k, n):
    """y (B, N, K) is packed by transposing vector blocks in registers: K and N not multiples of the block (16 / 8)
    leave partial blocks, zero-padded in the last panel."""
    x = rng.standard_normal((3, 11, k)).astype(np.float32)
    y = rng.standard_normal((3, n, k)).astype(np.float32)
    got = _run("topi.nn.batch_matmul", {"transpose_b": True}, x, y, out_shape=(3, 11, n))
    _close(got, _np_matmul(x, y, False, True), k)


@pytest.mark.parametrize("sx,sy,ta", [
    ((3, 11, 33), (3, 33, 64), False),        # y (B, K, N) read in place: N a multiple of the vector width
    ((2, 5, 17), (2, 17, 256), False),        # the widest read in place
    ((2, 5, 17), (2, 17, 272), False),        # wider: packed
    ((4, 1, 9), (4, 9, 48), False),           # M = 1
    ((3, 19, 7), (1, 19, 32), True),          # transposed x, y's batch broadcast
    ((2, 128, 128), (2, 128, 64), False),     # attention's scores @ V
])
def test_batch_matmul_reads_row_major_y_in_place(isa, threads, rng, sx, sy, ta):
    x = rng.standard_normal(sx).astype(np.float32)
    y = rng.standard_normal(sy).astype(np.float32)
    want = _np_matmul(x, y, ta, False)
    got = _run("topi.nn.batch_matmul", {"transpose_a": ta, "transpose_b": False}, x, y, out_shape=want.shape)
    _close(got, want, sx[1] if ta else sx[2])
    got = _run("topi.nn.matmul", {"transpose_a": ta}, x[:, None], y[:, None], out_shape=want.shape[:1] + (1,) +
               want.shape[1:])
    _close(got[:, 0], want, sx[1] if ta else sx[2])


def test_batch_matmul_defaults_to_transpose_b(rng):
    x = rng.standard_normal((2, 5, 7)).astype(np.float32)
    y = rng.standard_normal((2, 3, 7)).astype(np.float32)
    got = _run("topi.nn.batch_matmul", {}, x, y, out_shape=(2, 5, 3))
    _close(got, _np_matmul(x, y, False, True), 7)


def _epilogue_ref(program, *inputs, shape):
    """The epilogue applied by topi.elemwise (the interpreter the kernels share) to a float64 product."""
    return _run("topi.elemwise", {"epilogue": program}, *inputs, out_shape=shape)


@pytest.mark.parametrize("kernel", ["topi.nn.dense", "topi.nn.dense_pack"])
@pytest.mark.parametrize("m,k,n", [(1, 768, 3072), (3, 64, 100), (17, 64, 24), (64, 300, 768)])
def test_dense_bias_gelu_residual_epilogue(isa, threads, rng, kernel, m, k, n):
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    res = rng.standard_normal((m, n)).astype(np.float32)
    program = "add r0 r0 in0; gelu r0 r0; add r0 r0 in1"
    weight = _pack(w, _get("topi.nn.dense_pack_block")(n) or 4) if kernel.endswith("pack") else w
    got = _run(kernel, {"epilogue": program}, x, weight, bias, res, out_shape=(m, n))
    prod = (x.astype(np.float64) @ w.T.astype(np.float64)).astype(np.float32)
    want = _epilogue_ref("copy r0 in0; add r0 r0 in1; gelu r0 r0; add r0 r0 in2", prod, bias, res, shape=(m, n))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _gelu(x):
    x = x.astype(np.float64)
    return (0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))).astype(np.float32)


# (program, numpy of (product, per-column bias, full residual)); the first twelve run in the AVX-512 and AVX2 tiles'
# registers on full tiles (the lowering names intermediates r1..), the rest through the interpreter. N = 100 adds a
# partial tile.
TAIL_FORMS = [
    ("add r0 r0 in0", lambda y, b, r: y + b),
    ("add r1 r0 in0; add r0 in1 r1", lambda y, b, r: r + (y + b)),
    ("add r1 in0 r0; relu r0 r1", lambda y, b, r: np.maximum(y + b, 0)),
    ("add r1 r0 in1; clip r0 r1 -0.5 0.5", lambda y, b, r: np.clip(y + r, -0.5, 0.5)),
    ("relu r0 r0", lambda y, b, r: np.maximum(y, 0)),
    ("div r0 r0 8", lambda y, b, r: y / np.float32(8)),                       # as a multiply by 0.125
    ("div r1 r0 -3; add r0 r1 in1", lambda y, b, r: y / np.float32(-3) + r),   # a divide
    ("mul r1 0.3 r0; add r1 r1 in0; relu r0 r1", lambda y, b, r: np.maximum(np.float32(0.3) * y + b, 0)),
    ("mul r0 r0 0.125; add r0 r0 in0; add r0 r0 in1", lambda y, b, r: y * np.float32(0.125) + b + r),
    ("add r1 r0 in0; gelu r0 r1", lambda y, b, r: _gelu(y + b)),               # a transformer FFN's
    ("gelu r0 r0", lambda y, b, r: _gelu(y)),
    ("mul r0 r0 0.5; add r0 r0 in1; gelu r0 r0", lambda y, b, r: _gelu(y * np.float32(0.5) + r)),
    ("add r1 r0 in0; mul r0 r1 2", lambda y, b, r: (y + b) * 2),                # a scale after an add
    ("mul r0 r0 in0", lambda y, b, r: y * b),                                    # a scale by an input
    ("add r1 r0 in0; relu r1 r1", lambda y, b, r: y),
    ("add r0 r0 in0; mul r0 r0 in1", lambda y, b, r: (y + b) * r),
    ("gelu r1 r0; add r0 r1 in0", lambda y, b, r: _gelu(y) + b),                # an add after the activation
]


@pytest.mark.parametrize("kernel", ["topi.nn.dense", "topi.nn.dense_pack"])
@pytest.mark.parametrize("form", TAIL_FORMS, ids=lambda f: f[0].replace(" ", "_"))
@pytest.mark.parametrize("m,k,n", [(19, 40, 96), (9, 33, 100)])
def test_dense_epilogue_in_registers_and_interpreted_agree(isa, rng, kernel, form, m, k, n):
    """Bias / residual adds then relu / clip are applied as the tile is stored; every form gives the interpreter's
    values, NaN included, and the bias may come as (N,) or (1, N)."""
    program, fn = form
    x = rng.standard_normal((m, k)).astype(np.float32)
    x[2, 3] = np.nan
    w = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    res = rng.standard_normal((m, n)).astype(np.float32)
    weight = _pack(w, _get("topi.nn.dense_pack_block")(n) or 4) if kernel.endswith("pack") else w
    prod = (x.astype(np.float64) @ w.T.astype(np.float64)).astype(np.float32)
    with np.errstate(invalid="ignore"):
        want = fn(prod, bias, res)
    for b in (bias, bias[None]):
        extra = (b, res) if "in1" in program else (b,) if "in0" in program else ()
        got = _run(kernel, {"epilogue": program}, x, weight, *extra, out_shape=(m, n))
        assert np.isnan(got[2]).all()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("form", TAIL_FORMS, ids=lambda f: f[0].replace(" ", "_"))
@pytest.mark.parametrize("m,k,n", [(19, 40, 96), (9, 900, 100)])
def test_dense_tail_in_registers_is_the_interpreters_bit_for_bit(isa, rng, form, m, k, n):
    """The epilogue applied in the tile's registers (full tiles; K = 900 over two K blocks on AVX-512) gives exactly
    the interpreter's float32 values on the kernel's own product (topi.elemwise on the plain GEMM's output)."""
    program = form[0]
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
    extra = [rng.standard_normal(n).astype(np.float32), rng.standard_normal((m, n)).astype(np.float32)]
    extra = extra[:2] if "in1" in program else extra[:1] if "in0" in program else []
    weight = _pack(w, _get("topi.nn.dense_pack_block")(n) or 4)
    plain = _run("topi.nn.dense_pack", {}, x, weight, out_shape=(m, n))
    got = _run("topi.nn.dense_pack", {"epilogue": program}, x, weight, *extra, out_shape=(m, n))
    shifted = program.replace("in1", "in2").replace("in0", "in1")
    want = _epilogue_ref("copy r0 in0; " + shifted, plain, *extra, shape=(m, n))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("sa,sb", [((4, 33, 40), (40, 24)), ((4, 33, 40), (4, 40, 24)), ((40,), (3, 40, 24))])
def test_matmul_epilogue_uses_output_positions(threads, rng, sa, sb):
    """Per-batch GEMMs apply the epilogue at their own flat offsets: a full-shape input catches a wrong one."""
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    prod = _np_matmul(a, b, False, False).astype(np.float32)
    extra = rng.standard_normal(prod.shape).astype(np.float32)
    got = _run("topi.nn.matmul", {"epilogue": "mul r0 r0 in0; relu r0 r0"}, a, b, extra, out_shape=prod.shape)
    want = np.maximum(prod * extra, 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel,tb", [("topi.nn.batch_matmul", True), ("topi.nn.batch_matmul", False),
                                       ("topi.nn.matmul", False)])
@pytest.mark.parametrize("m,k,n", [(128, 64, 128), (19, 33, 100), (9, 16, 48)])
@pytest.mark.parametrize("program", ["div r0 r0 8", "div r0 r0 8; add r0 r0 in0", "mul r0 r0 0.3; add r0 r0 in1",
                                     "div r0 r0 7"])
def test_attention_scores_scale_and_mask_epilogue(isa, threads, rng, kernel, tb, m, k, n, program):
    """Attention scores q k^T / sqrt(d) + mask: the scale, then a mask broadcast over heads and rows (1, 1, N) or of
    the output's shape, applied in the tile's registers (full tiles) or by the interpreter (tails), per batch at the
    batch's own offsets; a NaN stays in its row."""
    x = rng.standard_normal((3, m, k)).astype(np.float32)
    x[1, 2, 5] = np.nan
    y = rng.standard_normal((3, n, k) if tb else (3, k, n)).astype(np.float32)
    mask = np.where(rng.random((1, 1, n)) < 0.2, -1e4, 0).astype(np.float32)
    full = rng.standard_normal((3, m, n)).astype(np.float32)
    prod = _np_matmul(x, y, False, tb).astype(np.float32)
    attrs = {"epilogue": program, "transpose_b": tb} if kernel.endswith("batch_matmul") else {"epilogue": program}
    extra = (mask, full) if "in1" in program else (mask,) if "in0" in program else ()
    got = _run(kernel, attrs, x, y, *extra, out_shape=prod.shape)
    want = _epilogue_ref("copy r0 in0; " + program.replace("in1", "in2").replace("in0", "in1"), prod, *extra,
                         shape=prod.shape)
    assert np.isnan(got[1, 2]).all() and not np.isnan(got[0]).any()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("sa,sb,tb", [
    ((12, 1, 64), (12, 64, 33), False),      # a decode step's q @ K^T (K^T materialised; N = past + 1)
    ((12, 1, 64), (12, 33, 64), True),       # the same with K as it is (B's columns contiguous)
    ((12, 1, 33), (12, 33, 64), False),      # P @ V with N = 64 (read in place) ...
    ((2, 1, 40), (2, 40, 300), False),       # ... and with N wider than in-place reads take
    ((1, 6, 1, 64), (2, 6, 64, 1500), False),  # batch broadcast from 1, Whisper's cross-attention width
    ((3, 1, 0), (3, 0, 5), False),           # K = 0
])
def test_matmul_one_row_per_batch_reads_b_in_place(isa, threads, rng, sa, sb, tb):
    """M = 1 (decode steps) is a matrix-vector product over B where it is, with the epilogue at each batch's own
    offsets; a NaN in a row stays in that row."""
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    if a.size:
        a.reshape(-1)[0] = np.nan
    prod = _np_matmul(a, b, False, tb).astype(np.float32)
    extra = rng.standard_normal(prod.shape).astype(np.float32)
    got = _run("topi.nn.matmul", {"transpose_b": tb, "epilogue": "add r0 r0 in0"}, a, b, extra, out_shape=prod.shape)
    np.testing.assert_allclose(got, prod + extra, rtol=1e-4, atol=1e-3 * max(1, sa[-1]) ** 0.5)


@pytest.mark.parametrize("sa,sb", [
    ((1, 6, 1, 64), (1, 6, 33, 64)),      # Whisper-tiny's decode step, past 32
    ((1, 6, 1, 64), (2, 6, 130, 64)),     # q's batch broadcast
    ((2, 1, 1, 37), (1, 6, 7, 37)),       # both broadcast; K not a multiple of a vector, N of a group of 4
    ((3, 1, 5), (3, 2, 5)),               # K shorter than a vector, N = 2
    ((1, 1, 64), (1, 1500, 64)),          # Whisper's cross-attention width, one batch
])
@pytest.mark.parametrize("program", ["", "div r0 r0 8"])
def test_matmul_one_row_transpose_b_reads_k_rows(isa, threads, rng, sa, sb, program):
    """A decode step's q @ K^T with K as it is (transpose_b, the form SimplifyExpr folds attention's transpose into):
    dot products of q with K's contiguous rows, batches broadcast; a NaN in q poisons its row, one in a row of K its
    column, and nothing else."""
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    a.reshape(-1, sa[-1])[0, 0] = np.nan
    b.reshape(-1, sb[-1])[-1, -1] = np.nan
    want = _np_matmul(a, b, False, True)
    if program:
        want = want / 8
    attrs = {"transpose_b": True, "epilogue": program} if program else {"transpose_b": True}
    got = _run("topi.nn.matmul", attrs, a, b, out_shape=want.shape)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.isnan(got).any()
    ok = ~np.isnan(want)
    _close(got[ok], want[ok], sa[-1])


def test_kernels_are_registered_for_their_ops():
    for op, kernel in [("nn.dense", "topi.nn.dense"), ("nn.contrib_dense_pack", "topi.nn.dense_pack"),
                       ("nn.matmul", "topi.nn.matmul"), ("nn.batch_matmul", "topi.nn.batch_matmul")]:
        assert str(Op.get(op).get_attr("FTVMLiteKernel")) == kernel
        assert _get(kernel) is not None


# ---------------------------------------------------------------------------------------------------------------
# Bad input


def _call(name, attrs, *arrays):
    _get(name)(attrs)(*[tvmlite.nd.array(a) for a in arrays])


def test_dense_bad_inputs_name_the_kernel():
    x, w, out = np.zeros((2, 8), np.float32), np.zeros((4, 8), np.float32), np.zeros((2, 4), np.float32)
    with pytest.raises(TypeError, match=r"topi.nn.dense: data must be float32, got float64"):
        _call("topi.nn.dense", {}, x.astype(np.float64), w, out)
    with pytest.raises(ValueError, match=r"topi.nn.dense: weight must be \(units, K\) with K = 8"):
        _call("topi.nn.dense", {}, x, np.zeros((4, 7), np.float32), out)
    with pytest.raises(ValueError, match=r"topi.nn.dense: out must have shape \(2, 4\)"):
        _call("topi.nn.dense", {}, x, w, np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match=r"topi.nn.dense: weight has 4 rows, attribute units = 5"):
        _call("topi.nn.dense", {"units": 5}, x, w, out)
    with pytest.raises(TypeError, match=r"topi.nn.dense: out_dtype must be float32"):
        _get("topi.nn.dense")({"out_dtype": "int32"})
    with pytest.raises(TypeError, match=r"topi.nn.dense: expected at least 3 tensor arguments"):
        _call("topi.nn.dense", {}, x, w)
    with pytest.raises(ValueError, match=r"topi.nn.dense"):
        _get("topi.nn.dense")({"epilogue": "frobnicate r0 r0"})


def test_dense_pack_bad_inputs_name_the_kernel():
    x, out = np.zeros((2, 8), np.float32), np.zeros((2, 32), np.float32)
    wp = np.zeros((2, 8, 16), np.float32)
    with pytest.raises(ValueError, match=r"topi.nn.dense_pack: weight_layout must be NK\{nb\}n"):
        _get("topi.nn.dense_pack")({"weight_layout": "NC16c"})
    with pytest.raises(ValueError, match=r"topi.nn.dense_pack: weight has panel width 16 but weight_layout says 8"):
        _call("topi.nn.dense_pack", {"weight_layout": "NK8n"}, x, wp, out)
    with pytest.raises(ValueError, match=r"topi.nn.dense_pack: weight must have 3 dimensions"):
        _call("topi.nn.dense_pack", {}, x, np.zeros((32, 8), np.float32), out)
    with pytest.raises(ValueError, match=r"topi.nn.dense_pack: weight must be \(N / nb, K, nb\) with K = 8"):
        _call("topi.nn.dense_pack", {}, x, np.zeros((2, 9, 16), np.float32), out)
    with pytest.raises(ValueError, match=r"topi.nn.dense_pack: weight gives 32 output units, attribute units = 16 "
                                         r"\(panels of 16 hold units in \(16, 32\]\)"):
        _call("topi.nn.dense_pack", {"units": 16}, x, wp, out)


def test_matmul_bad_inputs_name_the_kernel():
    with pytest.raises(ValueError, match=r"topi.nn.matmul: reduction dims disagree: \(2, 3\) \(K = 3\) and \(4, 5\)"):
        _call("topi.nn.matmul", {}, np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32),
              np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match=r"topi.nn.matmul: batch dims do not broadcast"):
        _call("topi.nn.matmul", {}, np.zeros((2, 2, 3), np.float32), np.zeros((3, 3, 5), np.float32),
              np.zeros((2, 2, 5), np.float32))
    with pytest.raises(ValueError, match=r"topi.nn.matmul: tensor_a must have rank >= 1"):
        _call("topi.nn.matmul", {}, np.zeros((), np.float32), np.zeros((3,), np.float32), np.zeros((), np.float32))
    with pytest.raises(ValueError, match=r"topi.nn.batch_matmul: x must have 3 dimensions"):
        _call("topi.nn.batch_matmul", {}, np.zeros((2, 3), np.float32), np.zeros((1, 4, 3), np.float32),
              np.zeros((1, 2, 4), np.float32))
    with pytest.raises(ValueError, match=r"topi.nn.batch_matmul: out must have shape \(2, 2, 4\)"):
        _call("topi.nn.batch_matmul", {}, np.zeros((2, 2, 3), np.float32), np.zeros((1, 4, 3), np.float32),
              np.zeros((1, 2, 4), np.float32))


# ---------------------------------------------------------------------------------------------------------------
# The relay op nn.contrib_dense_pack


def _infer(expr):
    return relay.transform.InferType()(ir.IRModule.from_expr(expr))["main"].body


def test_contrib_dense_pack_type():
    x = relay.var("x", shape=(2, 7, 64))
    w = relay.var("w", shape=(48, 64, 16))
    call = relay.nn.contrib_dense_pack(x, w, weight_layout="NK16n")
    assert str(_infer(call).checked_type) == "Tensor[(2, 7, 768), float32]"
    assert str(_infer(relay.nn.contrib_dense_pack(x, w, units=768)).checked_type) == "Tensor[(2, 7, 768), float32]"
    with pytest.raises(ValueError, match="does not match weight_layout 'NK8n'"):
        _infer(relay.nn.contrib_dense_pack(x, w, weight_layout="NK8n"))
    with pytest.raises(ValueError, match="reduction dims disagree"):
        _infer(relay.nn.contrib_dense_pack(relay.var("y", shape=(3, 65)), w))
    with pytest.raises(ValueError, match="units = 700 disagrees"):
        _infer(relay.nn.contrib_dense_pack(x, w, units=700))
    with pytest.raises(ValueError, match="weight_layout must be NK"):
        _infer(relay.nn.contrib_dense_pack(x, w, weight_layout="OI16o"))


@pytest.mark.parametrize("nb", [16, 8, 4])
def test_contrib_dense_pack_reference_is_dense_on_unpacked_weight(rng, nb):
    x = rng.standard_normal((3, 5, 40)).astype(np.float32)
    w = rng.standard_normal((48, 40)).astype(np.float32)
    dense = relay.nn.dense(relay.var("x", shape=x.shape), relay.var("w", shape=w.shape))
    packed = relay.nn.contrib_dense_pack(relay.var("x", shape=x.shape), relay.var("w", shape=(48 // nb, 40, nb)),
                                         weight_layout=f"NK{nb}n")
    want = get_reference("nn.dense")(dense.attrs, x, w)
    got = get_reference("nn.contrib_dense_pack")(packed.attrs, x, _pack(w, nb))
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float32
    # and the kernel agrees with both
    kernel = _run("topi.nn.dense_pack", {"weight_layout": f"NK{nb}n"}, x, _pack(w, nb), out_shape=(3, 5, 48))
    _close(kernel, want, 40)


# ---------------------------------------------------------------------------------------------------------------
# The kernels as the lowering calls them (attrs from lowering.lowering_attrs)


def _gemm_calls(rng):
    x3 = rng.standard_normal((2, 5, 32)).astype(np.float32)
    w = rng.standard_normal((48, 32)).astype(np.float32)
    b = rng.standard_normal((32, 24)).astype(np.float32)
    bt = rng.standard_normal((2, 24, 32)).astype(np.float32)

    def v(name, a):
        return relay.var(name, shape=a.shape)
    return [
        (relay.nn.dense(v("x", x3), v("w", w), units=48), [x3, w]),
        (relay.nn.contrib_dense_pack(v("x", x3), v("w", _pack(w, 16)), units=48), [x3, _pack(w, 16)]),
        (relay.nn.contrib_dense_pack(v("x", x3), v("w", _pack(w, 8)), weight_layout="NK8n"), [x3, _pack(w, 8)]),
        (relay.nn.matmul(v("x", x3), v("b", b)), [x3, b]),
        (relay.nn.matmul(v("x", x3), v("b", bt), transpose_b=True), [x3, bt]),
        (relay.nn.batch_matmul(v("x", x3), v("b", bt)), [x3, bt]),
        (relay.nn.batch_matmul(v("x", x3), v("b", bt.transpose(0, 2, 1).copy()), transpose_b=False),
         [x3, bt.transpose(0, 2, 1).copy()]),
    ]


def test_kernels_take_the_relay_attrs_as_lowered(rng):
    for call, inputs in _gemm_calls(rng):
        op = call.op.name
        want = get_reference(op)(call.attrs, *inputs)
        kernel = str(Op.get(op).get_attr("FTVMLiteKernel"))
        got = _run(kernel, lowering_attrs(call), *inputs, out_shape=want.shape)
        _close(got, want, 32)


def test_concurrent_calls_keep_their_own_scratch(rng):
    """Per-call packing uses thread-local scratch: Python threads running the kernels at once (GIL released) each
    get their own product."""
    cases = []
    for i in range(4):
        a = rng.standard_normal((3, 40 + 7 * i, 33 + i)).astype(np.float32)
        b = rng.standard_normal((33 + i, 50 + 13 * i)).astype(np.float32)
        cases.append((a, b, _np_matmul(a, b, False, False)))
    kernels = [_get("topi.nn.matmul")({}), _get("topi.nn.dense")({})]
    errors = []

    def work(a, b, want):
        try:
            for _ in range(20):
                out = tvmlite.nd.array(np.zeros(want.shape, np.float32))
                kernels[0](_nd(a), _nd(b), out)
                _close(out.numpy(), want, a.shape[-1])
                out2 = tvmlite.nd.array(np.zeros(want.shape, np.float32))
                kernels[1](_nd(a), _nd(b.T), out2)
                _close(out2.numpy(), want, a.shape[-1])
        except Exception as e:  # noqa: BLE001  (reported below, on the main thread)
            errors.append(e)

    run_threads(lambda k: work(*cases[k]), len(cases))
    assert not errors, errors[0]
