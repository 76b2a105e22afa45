"""nn ops: builders, type relations (shapes, dtypes, symbolic dims, errors) and the debug executor's results
against direct loop implementations written here (independent of the references in tvmlite/relay/op/nn/_nn.py)."""
import gc
import itertools

import numpy as np
import pytest

from tvmlite import relay
from tvmlite.ir import SizeVar

from relay_helpers import run, run_tuple, shape_of, typed


@pytest.fixture(autouse=True, scope="module")
def _collect_cycles():
    """pytest.raises tracebacks and executor closures form reference cycles holding IR objects; free them when the
    module ends so later tests that count live objects (test_ctypes_backend, test_leak) start from a clean heap."""
    yield
    gc.collect()


# ---- direct loop implementations (the test's own oracle) -----------------------------------------------------

def loop_conv2d(x, w, stride, pads, dil, groups):
    (sh, sw), (pt, pl, pb, pr), (dh, dw) = stride, pads, dil
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for b, oc, i, j in itertools.product(range(n), range(o), range(oh), range(ow)):
        g = oc // og
        acc = 0.0
        for ic, u, v in itertools.product(range(cg), range(kh), range(kw)):
            y, xx = i * sh + u * dh - pt, j * sw + v * dw - pl
            if 0 <= y < h and 0 <= xx < wd:
                acc += x[b, g * cg + ic, y, xx] * w[oc, ic, u, v]
        out[b, oc, i, j] = acc
    return out


def loop_conv2d_transpose(x, w, stride, pads, dil, out_pad, groups):
    (sh, sw), (pt, pl, pb, pr), (dh, dw), (oph, opw) = stride, pads, dil, out_pad
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    oh = (h - 1) * sh - pt - pb + dh * (kh - 1) + 1 + oph
    ow = (wd - 1) * sw - pl - pr + dw * (kw - 1) + 1 + opw
    out = np.zeros((n, og * groups, oh, ow))
    cg = c // groups
    for b, ic, i, j, u, v in itertools.product(range(n), range(c), range(h), range(wd), range(kh), range(kw)):
        g = ic // cg
        y, xx = i * sh + u * dh - pt, j * sw + v * dw - pl
        if 0 <= y < oh and 0 <= xx < ow:
            for k in range(og):
                out[b, g * og + k, y, xx] += x[b, ic, i, j] * w[ic, k, u, v]
    return out


def loop_pool2d(x, kernel, stride, pads, ceil_mode, mode, count_include_pad=False, dil=(1, 1)):
    (kh, kw), (sh, sw), (pt, pl, pb, pr), (dh, dw) = kernel, stride, pads, dil
    n, c, h, wd = x.shape

    def size(i, k, s, p0, p1, d):
        span = i + p0 + p1 - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= i + p0:
            out -= 1
        return out

    oh, ow = size(h, kh, sh, pt, pb, dh), size(wd, kw, sw, pl, pr, dw)
    out = np.zeros((n, c, oh, ow))
    idx = np.zeros((n, c, oh, ow), np.int64)
    for b, ch, i, j in itertools.product(range(n), range(c), range(oh), range(ow)):
        vals, count, best, best_at = [], 0, None, None
        for u, v in itertools.product(range(kh), range(kw)):
            y, xx = i * sh + u * dh - pt, j * sw + v * dw - pl
            if -pt <= y < h + pb and -pl <= xx < wd + pr:
                count += 1
            if 0 <= y < h and 0 <= xx < wd:
                vals.append(x[b, ch, y, xx])
                if best is None or x[b, ch, y, xx] > best:
                    best, best_at = x[b, ch, y, xx], ((b * c + ch) * h + y) * wd + xx
        if mode == "max":
            out[b, ch, i, j], idx[b, ch, i, j] = best, best_at
        else:
            out[b, ch, i, j] = sum(vals) / (count if count_include_pad else len(vals))
    return out, idx


# ---- convolution -------------------------------------------------------------------------------------------------

def test_conv2d_shapes_and_symbolic_batch():
    n = SizeVar("n")
    x = relay.var("x", shape=(n, 4, 10, 12))
    w = relay.var("w", shape=(8, 2, 3, 3))
    ty = typed(relay.nn.conv2d(x, w, strides=(2, 1), padding=(1, 0, 2, 1), dilation=(1, 2), groups=2), x, w)
    assert shape_of(ty) == ("n", 8, 6, 9)
    assert ty.dtype == "float32"
    # padding as 1 value and as N values (begin = end)
    assert shape_of(typed(relay.nn.conv2d(x, w, padding=1, groups=2), x, w)) == ("n", 8, 10, 12)
    assert shape_of(typed(relay.nn.conv2d(x, w, padding=(1, 2), groups=2), x, w)) == ("n", 8, 10, 14)
    # a symbolic spatial dim gives an unknown output dim
    xs = relay.var("xs", shape=(1, 4, SizeVar("h"), 12))
    assert shape_of(typed(relay.nn.conv2d(xs, w, groups=2), xs, w)) == (1, 8, "?", 10)


def test_conv1d_conv3d_depthwise_shapes():
    x = relay.var("x", shape=(2, 3, 17))
    w = relay.var("w", shape=(6, 1, 5))
    assert shape_of(typed(relay.nn.conv1d(x, w, strides=3, padding=2, groups=3), x, w)) == (2, 6, 6)
    x3 = relay.var("x3", shape=(1, 2, 5, 6, 7))
    w3 = relay.var("w3", shape=(4, 2, 3, 3, 3))
    assert shape_of(typed(relay.nn.conv3d(x3, w3, padding=(1, 0, 0, 1, 0, 0)), x3, w3)) == (1, 4, 5, 4, 5)
    ty = typed(relay.nn.conv3d(x3, w3, out_dtype="float64"), x3, w3)
    assert ty.dtype == "float64"


@pytest.mark.parametrize("weight_shape, kwargs, message", [
    ((8, 4, 3), {}, "weight (out_channels, in_channels / groups, kernel...) must have rank 4, got shape (8, 4, 3)"),
    ((6, 2, 3, 3), {"groups": 4}, "out_channels 6 of weight (6, 2, 3, 3) is not divisible by groups = 4"),
    ((8, 3, 3, 3), {}, "in_channels mismatch: data (1, 4, 5, 5) has 4 channels, weight (8, 3, 3, 3) expects 3"),
    ((8, 4, 7, 3), {}, "the kernel (extent 7 = dilation 1 * (7 - 1) + 1) is larger than the padded input (5 + 0 + 0"),
    ((8, 4, 3, 3), {"dilation": (3, 1)}, "is larger than the padded input"),
    ((8, 4, 3, 3), {"padding": (1, 1, 1)}, "padding needs 1, 2 or 4 values for a 2-D window, got 3"),
    ((8, 4, 3, 3), {"strides": 0}, "strides[0] = 0 is out of range"),
    ((8, 4, 3, 3), {"kernel_size": (2, 3)}, "kernel_size[0] = 2 disagrees with weight shape (8, 4, 3, 3)"),
    ((8, 4, 3, 3), {"channels": 5}, "channels = 5 disagrees with weight shape (8, 4, 3, 3)"),
])
def test_conv2d_errors(weight_shape, kwargs, message):
    x = relay.var("x", shape=(1, 4, 5, 5))
    w = relay.var("w", shape=weight_shape)
    with pytest.raises(ValueError) as info:
        typed(relay.nn.conv2d(x, w, **kwargs), x, w)
    assert message in str(info.value)
    assert "nn.conv2d" in str(info.value)


def test_conv_errors_rank_dtype_layout():
    x = relay.var("x", shape=(4, 5, 5))
    w = relay.var("w", shape=(8, 4, 3, 3))
    with pytest.raises(ValueError, match=r"data \(batch, channels, spatial...\) must have rank 4, got shape "
                                         r"\(4, 5, 5\)"):
        typed(relay.nn.conv2d(x, w), x, w)
    x = relay.var("x", shape=(1, 4, 5, 5))
    wi = relay.var("wi", shape=(8, 4, 3, 3), dtype="float16")
    with pytest.raises(TypeError, match="data and weight dtypes differ"):
        typed(relay.nn.conv2d(x, wi), x, wi)
    with pytest.raises(NotImplementedError, match="data_layout 'NHWC' is not supported"):
        typed(relay.nn.conv2d(x, w, data_layout="NHWC"), x, w)
    with pytest.raises(ValueError, match="groups = 0 must be >= 1"):
        typed(relay.nn.conv2d(x, w, groups=0), x, w)


@pytest.mark.parametrize("stride, pads, dil, groups", [
    ((1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 1), (1, 0, 2, 1), (1, 2), 2),
    ((1, 2), (2, 2, 2, 2), (2, 1), 4),  # depthwise
])
def test_conv2d_values(stride, pads, dil, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 7, 8)).astype("float32")
    w = rng.standard_normal((4, 4 // groups, 3, 2)).astype("float32")
    out = run(lambda a, b: relay.nn.conv2d(a, b, strides=stride, padding=pads, dilation=dil, groups=groups),
              {"x": x, "w": w})
    np.testing.assert_allclose(out, loop_conv2d(x, w, stride, pads, dil, groups), rtol=1e-5, atol=1e-5)


def test_conv1d_and_conv3d_values_match_conv2d_loops():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 9)).astype("float32")
    w = rng.standard_normal((3, 2, 3)).astype("float32")
    out = run(lambda a, b: relay.nn.conv1d(a, b, strides=2, padding=(1, 0)), {"x": x, "w": w})
    ref = loop_conv2d(x[:, :, None], w[:, :, None], (1, 2), (0, 1, 0, 0), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    x3 = rng.standard_normal((1, 2, 1, 5, 6)).astype("float32")
    w3 = rng.standard_normal((3, 2, 1, 2, 3)).astype("float32")
    out = run(lambda a, b: relay.nn.conv3d(a, b, padding=(0, 1, 1, 0, 0, 1)), {"x": x3, "w": w3})
    ref = loop_conv2d(x3[:, :, 0], w3[:, :, 0], (1, 1), (1, 1, 0, 1), (1, 1), 1)[:, :, None]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_conv2d_transpose_shape_and_values():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 3, 4)).astype("float32")
    w = rng.standard_normal((4, 3, 3, 2)).astype("float32")  # IOHW: 4 in, 3 * groups out
    kwargs = dict(strides=(2, 3), padding=(1, 0, 0, 1), dilation=(1, 2), output_padding=(1, 2), groups=2)
    xv, wv = relay.var("x", shape=x.shape), relay.var("w", shape=w.shape)
    assert shape_of(typed(relay.nn.conv2d_transpose(xv, wv, **kwargs), xv, wv)) == (1, 6, 7, 13)
    out = run(lambda a, b: relay.nn.conv2d_transpose(a, b, **kwargs), {"x": x, "w": w})
    ref = loop_conv2d_transpose(x, w, (2, 3), (1, 0, 0, 1), (1, 2), (1, 2), 2)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_conv_transpose_errors():
    x = relay.var("x", shape=(1, 4, 3))
    w = relay.var("w", shape=(5, 2, 3))
    with pytest.raises(ValueError, match=r"in_channels mismatch: data \(1, 4, 3\) has 4 channels, weight "
                                         r"\(5, 2, 3\) has 5"):
        typed(relay.nn.conv1d_transpose(x, w), x, w)
    w = relay.var("w", shape=(4, 2, 3))
    with pytest.raises(ValueError, match="spatial dim 0 of the output would be -1"):
        typed(relay.nn.conv1d_transpose(x, w, padding=3), x, w)


def test_conv_integer():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 255, (1, 2, 5, 5)).astype("uint8")
    w = rng.integers(-128, 127, (3, 2, 2, 2)).astype("int8")
    xz = np.array(7, "uint8")
    wz = np.array([1, -2, 3], "int8")
    out = run(lambda a, b, c, d: relay.nn.conv2d_integer(a, b, c, d, padding=1),
              {"x": x, "w": w, "xz": xz, "wz": wz})
    assert out.dtype == np.int32
    ref = loop_conv2d(x.astype(np.int64) - 7, w.astype(np.int64) - wz.reshape(3, 1, 1, 1), (1, 1), (1, 1, 1, 1),
                      (1, 1), 1)
    np.testing.assert_array_equal(out, ref.astype(np.int32))


# ---- pooling -----------------------------------------------------------------------------------------------------

def test_pool_shapes_ceil_mode():
    n = SizeVar("n")
    x = relay.var("x", shape=(n, 3, 5, 6))
    # ceil: (5 + 0 - 2) / 2 -> 2 windows, (6 - 2) / 2 -> 3
    assert shape_of(typed(relay.nn.max_pool2d(x, pool_size=2, strides=2, ceil_mode=True), x)) == ("n", 3, 3, 3)
    assert shape_of(typed(relay.nn.max_pool2d(x, pool_size=2, strides=2), x)) == ("n", 3, 2, 3)
    # ceil_mode drops a last window that would start in the end padding
    x1 = relay.var("x1", shape=(1, 1, 4))
    assert shape_of(typed(relay.nn.avg_pool1d(x1, pool_size=2, strides=2, padding=(1, 1), ceil_mode=True),
                          x1)) == (1, 1, 3)
    ty = typed(relay.nn.max_pool3d_with_argmax(relay.var("y", shape=(1, 2, 4, 4, 4)), pool_size=2, strides=2),
               relay.var("y", shape=(1, 2, 4, 4, 4)))
    assert [shape_of(f) for f in ty.fields] == [(1, 2, 2, 2, 2)] * 2
    assert ty.fields[1].dtype == "int64"


def test_pool_errors():
    x = relay.var("x", shape=(1, 3, 5, 6))
    with pytest.raises(ValueError, match=r"nn.max_pool3d: data \(batch, channels, spatial...\) must have rank 5, "
                                         r"got shape \(1, 3, 5, 6\)"):
        v = relay.var("v", shape=(1, 3, 5, 6))
        typed(relay.nn.max_pool3d(v, pool_size=2), v)
    with pytest.raises(ValueError, match="the kernel .* is larger than the padded input"):
        typed(relay.nn.max_pool2d(x, pool_size=(6, 2)), x)
    with pytest.raises(ValueError, match="must be smaller than the pooling window"):
        typed(relay.nn.avg_pool2d(x, pool_size=2, padding=2), x)
    xi = relay.var("xi", shape=(1, 3, 5, 6), dtype="int32")
    with pytest.raises(TypeError, match="needs a float input"):
        typed(relay.nn.avg_pool2d(xi, pool_size=2), xi)
    with pytest.raises(ValueError, match="p = -1 must be positive"):
        typed(relay.nn.lp_pool2d(x, pool_size=2, p=-1), x)


@pytest.mark.parametrize("kernel, stride, pads, ceil_mode, count_include_pad, dil", [
    ((2, 2), (2, 2), (0, 0, 0, 0), True, False, (1, 1)),
    ((3, 2), (2, 1), (1, 0, 1, 1), False, True, (1, 1)),
    ((3, 3), (2, 2), (1, 1, 1, 1), True, True, (1, 1)),
    ((2, 2), (1, 2), (1, 0, 0, 1), True, False, (2, 1)),
])
def test_pool2d_values(kernel, stride, pads, ceil_mode, count_include_pad, dil):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 6, 7)).astype("float32")
    ref_max, ref_idx = loop_pool2d(x, kernel, stride, pads, ceil_mode, "max", dil=dil)
    ref_avg, _ = loop_pool2d(x, kernel, stride, pads, ceil_mode, "avg", count_include_pad, dil=dil)
    common = dict(pool_size=kernel, strides=stride, padding=pads, ceil_mode=ceil_mode, dilation=dil)
    np.testing.assert_allclose(run(lambda a: relay.nn.max_pool2d(a, **common), {"x": x}), ref_max, rtol=1e-6)
    np.testing.assert_allclose(
        run(lambda a: relay.nn.avg_pool2d(a, count_include_pad=count_include_pad, **common), {"x": x}), ref_avg,
        rtol=1e-5, atol=1e-6)
    values, indices = run_tuple(lambda a: relay.nn.max_pool2d_with_argmax(a, **common), {"x": x}, 2)
    np.testing.assert_allclose(values, ref_max, rtol=1e-6)
    np.testing.assert_array_equal(indices, ref_idx)
    assert np.array_equal(x.ravel()[indices], values)


def test_max_pool_argmax_column_major():
    x = np.arange(2 * 1 * 3 * 4, dtype="float32").reshape(2, 1, 3, 4)
    values, indices = run_tuple(lambda a: relay.nn.max_pool2d_with_argmax(a, pool_size=2, storage_order=1),
                                {"x": x}, 2)
    # the max of each 2x2 window is its bottom-right element (h + 1, w + 1); column-major: c * 12 + h + w * 3
    h, w = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    expected = (h + 1) + (w + 1) * 3 + np.arange(2).reshape(2, 1, 1, 1) * 12
    np.testing.assert_array_equal(indices, expected)
    np.testing.assert_array_equal(values, x[:, :, 1:, 1:])


def test_lp_and_global_pools():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    out = run(lambda a: relay.nn.lp_pool2d(a, pool_size=(2, 3), p=3), {"x": x})
    ref = np.zeros((2, 3, 3, 3))
    for i, j in itertools.product(range(3), range(3)):
        ref[:, :, i, j] = (np.abs(x[:, :, i:i + 2, j:j + 3].astype(np.float64)) ** 3).sum(axis=(2, 3)) ** (1 / 3)
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    np.testing.assert_allclose(run(lambda a: relay.nn.global_avg_pool2d(a), {"x": x}),
                               x.mean(axis=(2, 3), keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(run(lambda a: relay.nn.global_max_pool(a), {"x": x}),
                                  x.max(axis=(2, 3), keepdims=True))
    np.testing.assert_allclose(run(lambda a: relay.nn.global_lp_pool(a, p=2), {"x": x}),
                               np.sqrt((x.astype(np.float64) ** 2).sum(axis=(2, 3), keepdims=True)), rtol=1e-5)
    v = relay.var("v", shape=(SizeVar("n"), 3, SizeVar("h"), 7, 2))
    assert shape_of(typed(relay.nn.global_avg_pool(v), v)) == ("n", 3, 1, 1, 1)
    with pytest.raises(ValueError, match=r"rank 3 to 5 .*got shape \(3, 4\)"):
        v2 = relay.var("v2", shape=(3, 4))
        typed(relay.nn.global_max_pool(v2), v2)


# ---- matrix products -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("sa, sb, expected", [
    ((3,), (3,), ()),
    ((3,), (2, 3, 4), (2, 4)),
    ((5, 2, 3), (3,), (5, 2)),
    ((2, 1, 4, 3), (5, 3, 6), (2, 5, 4, 6)),
])
def test_matmul_numpy_semantics(sa, sb, expected):
    rng = np.random.default_rng(6)
    a = rng.standard_normal(sa).astype("float32")
    b = rng.standard_normal(sb).astype("float32")
    av, bv = relay.var("a", shape=sa), relay.var("b", shape=sb)
    assert shape_of(typed(relay.nn.matmul(av, bv), av, bv)) == expected
    out = run(lambda x, y: relay.nn.matmul(x, y), {"a": a, "b": b})
    ref = np.einsum("...k,k->...", a, b) if len(sb) == 1 else None
    if len(sa) == 1 and len(sb) == 1:
        ref = (a * b).sum()
    elif len(sa) == 1:
        ref = np.einsum("k,...kn->...n", a, b)
    elif len(sb) > 1:
        ref = (a[..., :, :, None] * b[..., None, :, :]).sum(axis=-2)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_matmul_transposes_dense_batch_matmul():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 3)).astype("float32")
    b = rng.standard_normal((5, 4)).astype("float32")
    out = run(lambda x, y: relay.nn.matmul(x, y, transpose_a=True, transpose_b=True), {"a": a, "b": b})
    np.testing.assert_allclose(out, a.T @ b.T, rtol=1e-5)
    d = rng.standard_normal((2, 6, 3)).astype("float32")
    w = rng.standard_normal((7, 3)).astype("float32")
    np.testing.assert_allclose(run(lambda x, y: relay.nn.dense(x, y), {"d": d, "w": w}),
                               np.einsum("bik,nk->bin", d, w), rtol=1e-5)
    x = rng.standard_normal((1, 2, 3)).astype("float32")
    y = rng.standard_normal((4, 5, 3)).astype("float32")
    np.testing.assert_allclose(run(lambda p, q: relay.nn.batch_matmul(p, q), {"x": x, "y": y}),
                               np.einsum("bmk,bnk->bmn", np.broadcast_to(x, (4, 2, 3)), y), rtol=1e-5)
    n = SizeVar("n")
    xv, yv = relay.var("x", shape=(n, 2, 3)), relay.var("y", shape=(n, 3, 5))
    assert shape_of(typed(relay.nn.batch_matmul(xv, yv, transpose_b=False), xv, yv)) == ("n", 2, 5)


def test_matmul_errors():
    a, b = relay.var("a", shape=(2, 3)), relay.var("b", shape=(4, 5))
    with pytest.raises(ValueError, match=r"reduction dims disagree: \(2, 3\) \(K = 3\) and \(4, 5\) \(K = 4\)"):
        typed(relay.nn.matmul(a, b), a, b)
    c, d = relay.var("c", shape=(2, 2, 3)), relay.var("d", shape=(3, 3, 4))
    with pytest.raises(ValueError, match="do not broadcast"):
        typed(relay.nn.matmul(c, d), c, d)
    s = relay.var("s", shape=())
    with pytest.raises(ValueError, match="rank >= 1"):
        typed(relay.nn.matmul(s, b), s, b)
    w = relay.var("w", shape=(4, 2))
    with pytest.raises(ValueError, match=r"reduction dims disagree"):
        typed(relay.nn.dense(a, w), a, w)
    with pytest.raises(ValueError, match=r"x \(batch, M, K\) must have rank 3"):
        typed(relay.nn.batch_matmul(a, c), a, c)


def test_matmul_integer():
    rng = np.random.default_rng(8)
    a = rng.integers(0, 255, (3, 4)).astype("uint8")
    b = rng.integers(-128, 127, (4, 2)).astype("int8")
    za = np.array([1, 2, 3], "uint8")
    zb = np.array(-4, "int8")
    out = run(lambda w, x, y, z: relay.nn.matmul_integer(w, x, y, z), {"a": a, "b": b, "za": za, "zb": zb})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, (a.astype(np.int64) - za[:, None]) @ (b.astype(np.int64) + 4))


def test_einsum_types_values_and_errors():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    y = rng.standard_normal((4, 5)).astype("float32")
    xv, yv = relay.var("x", shape=(SizeVar("n"), 3, 4)), relay.var("y", shape=(4, 5))
    assert shape_of(typed(relay.nn.einsum([xv, yv], "...ij,jk->...ik"), xv, yv)) == ("n", 3, 5)
    assert shape_of(typed(relay.nn.einsum([xv, yv], "bij,jk"), xv, yv)) == ("n", 3, 5)  # implicit: b, i, k
    assert shape_of(typed(relay.nn.einsum([yv], "ij->"), yv)) == ()
    out = run(lambda p, q: relay.nn.einsum([p, q], "bij,jk->bki"), {"x": x, "y": y})
    np.testing.assert_allclose(out, (x[:, :, :, None] * y[None, None]).sum(axis=2).transpose(0, 2, 1), rtol=1e-5)
    sq = rng.standard_normal((3, 3)).astype("float32")
    np.testing.assert_allclose(run(lambda p: relay.nn.einsum([p], "ii->i"), {"sq": sq}), np.diag(sq))
    for eq, message in [("ij,jk->ik", "has 2 input terms for 1 inputs"), ("ijk->i", "term 0 names 3 dims"),
                        ("ij->ix", "output label 'x' is in no input"), ("ij->ii", "output label 'i' is repeated"),
                        ("i.j->i", "outside a single '...'"), ("i1->i", "unexpected character '1'")]:
        with pytest.raises(ValueError, match=message):
            typed(relay.nn.einsum([yv], eq), yv)
    with pytest.raises(ValueError, match="label 'j' has sizes 5 and 4"):
        typed(relay.nn.einsum([yv, yv], "ij,jk->ik"), yv)


def test_bias_add():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    b = np.array([1, 2, 3], "float32")
    np.testing.assert_array_equal(run(lambda p, q: relay.nn.bias_add(p, q), {"x": x, "b": b}),
                                  x + b[None, :, None])
    xv, bv = relay.var("x", shape=(2, 3, 4)), relay.var("b", shape=(4,))
    with pytest.raises(ValueError, match=r"bias \(4,\) does not match axis 1 of data \(2, 3, 4\)"):
        typed(relay.nn.bias_add(xv, bv), xv, bv)
    assert shape_of(typed(relay.nn.bias_add(xv, bv, axis=-1), xv, bv)) == (2, 3, 4)


def test_attrs_are_typed_objects():
    x, w = relay.var("x", shape=(1, 4, 5, 5)), relay.var("w", shape=(8, 4, 3, 3))
    call = relay.nn.conv2d(x, w, strides=2, padding=(1, 1), out_dtype="float64")
    assert type(call.attrs).__name__ == "Conv2DAttrs"
    assert list(call.attrs.strides) == [2] and list(call.attrs.padding) == [1, 1]
    assert str(call.attrs.out_dtype) == "float64"
    assert relay.nn.avg_pool3d(relay.var("v", shape=(1, 1, 2, 2, 2)), count_include_pad=True).attrs.count_include_pad


def test_max_unpool_and_col2im_relations():
    x, i = relay.var("x", shape=(SizeVar("n"), 2, 3, 3)), relay.var("i", shape=(SizeVar("n"), 2, 3, 3), dtype="int64")
    assert shape_of(typed(relay.nn.max_unpool2d(x, i, pool_size=2, strides=2), x, i)) == ("n", 2, 6, 6)
    assert shape_of(typed(relay.nn.max_unpool2d(x, i, pool_size=2, strides=2, output_size=(7, 6)), x, i)) == \
        ("n", 2, 7, 6)
    with pytest.raises(ValueError, match=r"output_size\[0\] = 5 is smaller than the unpooled size 6"):
        typed(relay.nn.max_unpool2d(x, i, pool_size=2, strides=2, output_size=(5, 6)), x, i)
    j = relay.var("j", shape=(1, 2, 3, 4), dtype="int64")
    with pytest.raises(ValueError, match=r"indices \(1, 2, 3, 4\) must have data's shape"):
        typed(relay.nn.max_unpool2d(x, j, pool_size=2), x, j)
    cols = relay.var("cols", shape=(1, 12, 16))
    assert shape_of(typed(relay.nn.col2im(cols, (5, 5), (2, 2)), cols)) == (1, 3, 5, 5)
    with pytest.raises(ValueError, match=r"dim 2 of data \(1, 12, 16\) must be the number of sliding blocks, 4"):
        typed(relay.nn.col2im(cols, (5, 5), (2, 2), strides=2), cols)
    with pytest.raises(ValueError, match="not divisible by the block size 5"):
        typed(relay.nn.col2im(cols, (5, 5), (1, 5)), cols)
    with pytest.raises(ValueError, match="image_shape needs 1 to 3 values, got 4"):
        typed(relay.nn.col2im(cols, (2, 2, 2, 2), (1, 1, 1, 1)), cols)


def test_max_unpool_inverts_max_pool_indices():
    x = np.random.default_rng(10).standard_normal((1, 2, 4, 6)).astype("float32")
    values, indices = run_tuple(lambda a: relay.nn.max_pool2d_with_argmax(a, pool_size=2, strides=2), {"x": x}, 2)
    out = run(lambda v, i: relay.nn.max_unpool2d(v, i, pool_size=2, strides=2), {"v": values, "i": indices})
    expected = np.where(np.repeat(np.repeat(values, 2, 2), 2, 3) == x, x, 0)
    np.testing.assert_array_equal(out, expected)


def test_deformable_conv2d():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1, 4, 5, 6)).astype("float32")
    w = rng.standard_normal((2, 2, 3, 3)).astype("float32")
    zero = np.zeros((1, 2 * 2 * 9, 5, 6), "float32")  # deformable_groups 2, padding 1
    kwargs = dict(padding=1, deformable_groups=2, groups=2)
    out = run(lambda a, b, c: relay.nn.deformable_conv2d(a, b, c, **kwargs), {"x": x, "off": zero, "w": w})
    np.testing.assert_allclose(out, loop_conv2d(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 2), rtol=1e-5, atol=1e-5)
    # a constant offset of (0.5, -1) samples halfway between rows, one column to the left, zero outside
    off = np.tile(np.array([0.5, -1.0], "float32"), 2 * 9).reshape(1, 36, 1, 1) * np.ones((1, 1, 5, 6), "float32")
    mask = np.full((1, 2 * 9, 5, 6), 0.5, "float32")
    out = run(lambda a, b, c, d: relay.nn.modulated_deformable_conv2d(a, b, c, d, **kwargs),
              {"x": x, "off": off, "w": w, "mask": mask})
    # the padded grid position (h, w), h in [-1, H], w in [-1, W], samples (h + 0.5, w - 1): zero outside x
    xe = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (2, 2), (2, 2)))
    h, wd = x.shape[2] + 2, x.shape[3] + 2
    shifted = 0.5 * (xe[:, :, 1:1 + h, 0:wd] + xe[:, :, 2:2 + h, 0:wd])
    np.testing.assert_allclose(out, 0.5 * loop_conv2d(shifted, w, (1, 1), (0, 0, 0, 0), (1, 1), 2), rtol=1e-5,
                               atol=1e-5)
    xv, ov, wv = relay.var("x", shape=x.shape), relay.var("o", shape=(1, 18, 5, 6)), relay.var("w", shape=w.shape)
    with pytest.raises(ValueError, match=r"offset \(1, 18, 5, 6\): dim 1 must be 36"):
        typed(relay.nn.deformable_conv2d(xv, ov, wv, **kwargs), xv, ov, wv)
