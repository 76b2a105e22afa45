"""topi.layout_transform against the op's numpy reference (and hand-written packing): the NCHW <-> NCHW{c}c fast
paths and the general index map, every element size, round trips, and each bad-input error."""
import numpy as np
import pytest

import tvmlite
from tvmlite.relay.op._layout import transform_array
from tvmlite.relay.op.layout import transform_shape

_FACTORY = tvmlite.get_global_func("topi.layout_transform")


def kernel(src, dst):
    return _FACTORY({"src_layout": src, "dst_layout": dst})


def apply(src, dst, x):
    out = tvmlite.nd.empty(transform_shape(x.shape, src, dst), str(x.dtype))
    kernel(src, dst)(tvmlite.nd.array(x), out)
    return out.numpy()


def pack_nchw(x, c):
    n, ch, h, w = x.shape
    return x.reshape(n, ch // c, c, h, w).transpose(0, 1, 3, 4, 2)


@pytest.mark.parametrize("shape", [(1, 16, 7, 7), (2, 64, 56, 57), (3, 32, 1, 1), (1, 48, 5, 130)])
@pytest.mark.parametrize("block", [16, 8, 4, 2, 1])
def test_nchwc_fast_paths(rng, shape, block):
    x = rng.standard_normal(shape).astype("float32")
    packed = apply("NCHW", f"NCHW{block}c", x)
    np.testing.assert_array_equal(packed, pack_nchw(x, block))
    np.testing.assert_array_equal(apply(f"NCHW{block}c", "NCHW", packed), x)


@pytest.mark.parametrize("shape", [(1, 16, 3, 7, 7), (2, 32, 4, 5, 9), (1, 48, 1, 1, 1)])
@pytest.mark.parametrize("block", [16, 8, 1])
def test_ncdhwc_fast_paths(rng, shape, block, threads):
    """NCDHW <-> NCDHW{c}c (the 3-D convs' activations) and re-blocking take the NCHW paths over D * H * W pixels."""
    x = rng.standard_normal(shape).astype("float32")
    packed = apply("NCDHW", f"NCDHW{block}c", x)
    np.testing.assert_array_equal(packed, transform_array(x, "NCDHW", f"NCDHW{block}c"))
    np.testing.assert_array_equal(apply(f"NCDHW{block}c", "NCDHW", packed), x)
    if block == 16:
        np.testing.assert_array_equal(apply("NCDHW16c", "NCDHW8c", packed), transform_array(x, "NCDHW", "NCDHW8c"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int64", "bool", "int16"])
def test_dtypes(rng, dtype):
    """Every element size, the fast paths (c = 8: vector width for 4-byte elements; c = 3: a stem's block, fixed for
    4-byte elements; c = 6: the generic inner loop) and the general map."""
    x = (rng.standard_normal((2, 24, 5, 3)) * 50).astype(dtype)
    for src, dst in [("NCHW", "NCHW8c"), ("NCHW", "NCHW3c"), ("NCHW", "NCHW6c"), ("NCHW", "NHWC"), ("NCHW", "NC4cHW")]:
        y = apply(src, dst, x)
        np.testing.assert_array_equal(y, transform_array(x, src, dst))
        np.testing.assert_array_equal(apply(dst, src, y), x)
    packed = transform_array(x, "NCHW", "NCHW8c")
    np.testing.assert_array_equal(apply("NCHW8c", "NCHW4c", packed), transform_array(x, "NCHW", "NCHW4c"))


def test_sixteen_byte_elements(rng):
    """complex128 (16 bytes) takes the byte-copy path."""
    x = (rng.standard_normal((2, 8, 3, 3)) + 1j * rng.standard_normal((2, 8, 3, 3))).astype("complex128")
    src = tvmlite.nd.empty(x.shape, "complex128")
    src.copyfrom(x)
    for dst_layout in ["NCHW4c", "NHWC"]:
        out = tvmlite.nd.empty(transform_shape(x.shape, "NCHW", dst_layout), "complex128")
        kernel("NCHW", dst_layout)(src, out)
        np.testing.assert_array_equal(out.numpy(), transform_array(x, "NCHW", dst_layout))


@pytest.mark.parametrize("shape, src, dst", [
    ((64, 32, 3, 3), "OIHW", "OIHW16i16o"),
    ((24, 40, 1, 3), "OIHW", "OIHW8i8o"),
    ((48, 3, 7, 7), "OIHW", "OIHW1i16o"),
    ((32, 1, 3, 3), "OIHW", "OIHW1i8o"),
    ((40, 17), "NK", "NK8n"),
    ((2, 32, 3, 3, 16), "NCHW16c", "NCHW8c"),
    ((2, 4, 3, 3, 8), "NCHW8c", "NCHW16c"),
    ((1, 3, 5, 7, 4), "NCHW4c", "NCHW2c"),
    ((3, 2, 6, 2, 12), "NCHW12c", "NCHW8c"),
    ((4, 2, 3, 3, 16, 16), "OIHW16i16o", "OIHW8i16o"),       # general path, runs of 16
    ((2, 4, 3, 5, 8), "NCHW8c", "NHWC"),
    ((24, 1, 1), "CHW", "CHW8c"),
    ((1, 2, 3, 4, 5), "NCDHW", "NDHWC"),
])
def test_general_layouts(rng, shape, src, dst):
    x = rng.standard_normal(shape).astype("float32")
    y = apply(src, dst, x)
    np.testing.assert_array_equal(y, transform_array(x, src, dst))
    np.testing.assert_array_equal(apply(dst, src, y), x)


def test_weight_packing_by_hand(rng):
    w = rng.standard_normal((32, 16, 3, 3)).astype("float32")
    y = apply("OIHW", "OIHW8i16o", w)
    assert y.shape == (2, 2, 3, 3, 8, 16)
    for o, i, kh, kw in [(0, 0, 0, 0), (31, 15, 2, 2), (17, 9, 1, 2)]:
        assert y[o // 16, i // 8, kh, kw, i % 8, o % 16] == w[o, i, kh, kw]


def test_empty(rng):
    x = np.zeros((0, 16, 3, 3), "float32")
    assert apply("NCHW", "NCHW8c", x).shape == (0, 2, 3, 3, 8)
    # an empty tensor may have dims far beyond memory: nothing is sized by them
    kernel("NCHW", "NHWC")(tvmlite.nd.empty((0, 2 ** 40, 1, 1), "float32"),
                           tvmlite.nd.empty((0, 1, 1, 2 ** 40), "float32"))


@pytest.mark.parametrize("src, dst, shape", [
    ("NCHW8c", "NCHW", (1, 3, 7, 9, 8)),        # the unpack fast path
    ("NCHW", "NCHW16c", (2, 32, 5, 3)),         # the pack fast path
    ("NCHW16c", "NCHW8c", (1, 2, 4, 4, 16)),    # re-blocking
    ("NCHW", "NHWC", (1, 24, 3, 70)),           # the general map
    ("NCHW8c", "NCHW", (1, 4, 1, 1, 8)),        # one pixel: a plain copy
])
def test_epilogue(rng, src, dst, shape, threads):
    """A fused float32 tail (a squeeze-excite's multiply after the transform back to NCHW): the copy, then the
    program over the output, its inputs broadcast against the output's shape."""
    x = rng.standard_normal(shape).astype("float32")
    want = transform_array(x, src, dst)
    scale = rng.standard_normal((1,) * (want.ndim - 1) + (want.shape[-1],)).astype("float32")
    bias = rng.standard_normal(want.shape).astype("float32")
    f = _FACTORY({"src_layout": src, "dst_layout": dst, "epilogue": "mul r0 in0 r0; add r0 r0 in1; relu r0 r0"})
    out = tvmlite.nd.empty(want.shape, "float32")
    f(tvmlite.nd.array(x), tvmlite.nd.array(scale), tvmlite.nd.array(bias), out)
    np.testing.assert_allclose(out.numpy(), np.maximum(want * scale + bias, 0), rtol=1e-6, atol=1e-6)


def test_epilogue_errors(rng):
    f = _FACTORY({"src_layout": "NCHW8c", "dst_layout": "NCHW", "epilogue": "mul r0 in0 r0"})
    x = tvmlite.nd.array(rng.standard_normal((1, 2, 3, 3, 8)).astype("float32"))
    scale = tvmlite.nd.array(np.ones((1, 16, 1, 1), "float32"))
    out = tvmlite.nd.empty((1, 16, 3, 3), "float32")
    with pytest.raises(TypeError, match="topi.layout_transform: expected at least 3 tensor arguments"):
        f(x, out)
    with pytest.raises(TypeError, match="topi.layout_transform: expected 3 tensor arguments"):
        f(x, scale, scale, out)
    with pytest.raises(ValueError, match="topi.layout_transform"):  # does not broadcast to out
        f(x, tvmlite.nd.array(np.ones((1, 8, 1, 1), "float32")), out)
    g = _FACTORY({"src_layout": "NCHW8c", "dst_layout": "NCHW", "epilogue": "mul r0 in0 r0"})
    with pytest.raises(TypeError, match="topi.layout_transform"):  # the epilogue computes in float32
        g(tvmlite.nd.array(np.ones((1, 2, 3, 3, 8), "int32")), scale, tvmlite.nd.empty((1, 16, 3, 3), "int32"))
    with pytest.raises(ValueError, match="topi.layout_transform"):
        _FACTORY({"src_layout": "NCHW8c", "dst_layout": "NCHW", "epilogue": "frobnicate r0"})


def test_registered_for_the_op():
    from tvmlite.relay import op

    assert op.get("layout_transform").get_attr("FTVMLiteKernel") == "topi.layout_transform"


@pytest.mark.parametrize("attrs, error, message", [
    ({"src_layout": "NCHW"}, ValueError, "topi.layout_transform: missing attribute 'dst_layout'"),
    ({"src_layout": "NCHW", "dst_layout": "NCHW1_c"}, ValueError, "topi.layout_transform: layout 'NCHW1_c'"),
    ({"src_layout": "NCHW", "dst_layout": "OIHW"}, ValueError,
     "topi.layout_transform: layouts 'NCHW' and 'OIHW' do not have the same primal axes"),
    ({"src_layout": 3, "dst_layout": "NCHW"}, TypeError, "src_layout"),
])
def test_factory_errors(attrs, error, message):
    with pytest.raises(error, match=message):
        _FACTORY(attrs)


def test_call_errors(rng):
    f = kernel("NCHW", "NCHW16c")
    x = tvmlite.nd.array(rng.standard_normal((1, 32, 4, 4)).astype("float32"))
    with pytest.raises(TypeError, match="topi.layout_transform: expected at least 2"):
        f(x)
    with pytest.raises(TypeError, match="topi.layout_transform: expected 2 tensor arguments"):
        f(x, x, tvmlite.nd.empty((1, 2, 4, 4, 16), "float32"))
    with pytest.raises(ValueError, match="topi.layout_transform: .*must have rank 4"):
        f(tvmlite.nd.empty((32, 4, 4), "float32"), tvmlite.nd.empty((1, 2, 4, 4, 16), "float32"))
    with pytest.raises(ValueError, match="topi.layout_transform: axis 'C' of extent 24 .* not divisible by the fac"):
        f(tvmlite.nd.empty((1, 24, 4, 4), "float32"), tvmlite.nd.empty((1, 2, 4, 4, 16), "float32"))
    with pytest.raises(ValueError, match=r"topi.layout_transform: out must have shape \(1, 2, 4, 4, 16\), got"):
        f(x, tvmlite.nd.empty((1, 2, 4, 4, 8), "float32"))
    with pytest.raises(TypeError, match="topi.layout_transform: out must have data's dtype"):
        f(x, tvmlite.nd.empty((1, 2, 4, 4, 16), "float64"))
    g = kernel("NCHW16c", "NCHW")
    with pytest.raises(ValueError, match="topi.layout_transform: sub-axis 'c' .* factor 16 but the tensor's dim is 8"):
        g(tvmlite.nd.empty((1, 2, 4, 4, 8), "float32"), tvmlite.nd.empty((1, 16, 4, 4), "float32"))
    with pytest.raises(TypeError, match="topi.layout_transform: elements of 4 bits"):
        f(tvmlite.nd.empty((1, 32, 4, 4), "int4"), tvmlite.nd.empty((1, 2, 4, 4, 16), "int4"))
