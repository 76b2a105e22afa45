"""The injective kernels (csrc/topi/transform): concatenate, transpose, take, gather, gather_nd, strided_slice,
nn.pad, copy, cast and where against the relay ops' numpy references, over shapes, negative axes and dtypes; their
epilogues; their registration as the relay ops' FTVMLiteKernel; and bad input raising errors that name the kernel.
"""
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from tvmlite.relay.op.op import get_reference

DTYPES = ["float32", "int32", "int64"]


def _kernel(name, **attrs):
    return tvmlite.get_global_func(name)(attrs)


def run(name, attrs, inputs, out_shape, out_dtype):
    """Call kernel name(attrs) on numpy inputs with a fresh output; returns it as numpy."""
    out = tvmlite.nd.empty(tuple(out_shape), out_dtype)
    _kernel(name, **attrs)(*[tvmlite.nd.array(np.asarray(x, order="C")) for x in inputs], out)
    return out.numpy()


def check_reference(op, attrs, inputs, dtype):
    """topi.<op>(attrs) on numpy inputs gives exactly what relay's reference of op gives."""
    want = get_reference(op)(SimpleNamespace(**attrs), *inputs)
    np.testing.assert_array_equal(run("topi." + op, attrs, inputs, want.shape, dtype), want)


def _data(rng, shape, dtype):
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-1000, 1000, size=shape).astype(dtype)


# --------------------------------------------------------------------------------------------- concatenate

@pytest.mark.parametrize("dtype", DTYPES + ["uint8", "bool"])
@pytest.mark.parametrize("shapes,axis", [
    ([(3, 5), (4, 5)], 0),
    ([(3, 5), (3, 1), (3, 7)], 1),
    ([(3, 5), (3, 1), (3, 7)], -1),
    ([(2, 3, 4, 5), (2, 1, 4, 5), (2, 6, 4, 5)], 1),
    ([(2, 16, 7, 7, 16), (2, 3, 7, 7, 16)], -4),
    ([(1000, 33), (500, 33)], 0),
    ([(7,), (0,), (9,)], 0),
    ([(4, 5)], 0),
])
def test_concatenate(shapes, axis, dtype, threads, rng):
    xs = [_data(rng, s, dtype) if dtype != "bool" else rng.random(s) > 0.5 for s in shapes]
    want = get_reference("concatenate")(SimpleNamespace(axis=axis), xs)
    got = run("topi.concatenate", {"axis": axis}, xs, want.shape, want.dtype.name)
    np.testing.assert_array_equal(got, want)


def test_concatenate_errors():
    f = _kernel("topi.concatenate", axis=1)
    a = tvmlite.nd.array(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"topi.concatenate: input 1 of shape \(3, 3\) does not concatenate"):
        f(a, tvmlite.nd.array(np.zeros((3, 3), "float32")), tvmlite.nd.empty((2, 6), "float32"))
    with pytest.raises(ValueError, match="topi.concatenate: the inputs have 6 along axis 1, out 7"):
        f(a, a, tvmlite.nd.empty((2, 7), "float32"))
    with pytest.raises(TypeError, match="topi.concatenate: dtypes differ: int32 and float32"):
        f(a, tvmlite.nd.array(np.zeros((2, 3), "int32")), tvmlite.nd.empty((2, 6), "float32"))
    with pytest.raises(ValueError, match="topi.concatenate: axis 2 is out of range for rank 2"):
        _kernel("topi.concatenate", axis=2)(a, a, tvmlite.nd.empty((2, 6), "float32"))
    with pytest.raises(TypeError, match="topi.concatenate: expected at least 2 tensor arguments"):
        f(a)


# ----------------------------------------------------------------------------------------------- transpose

@pytest.mark.parametrize("dtype", DTYPES + ["uint8", "float64"])
@pytest.mark.parametrize("shape,axes", [
    ((5, 7), []),
    ((5, 7), [1, 0]),
    ((33, 17), [-1, -2]),
    ((2, 3, 4), [0, 2, 1]),
    ((2, 3, 4), [2, 1, 0]),
    ((2, 3, 4), [1, 0, 2]),
    ((2, 8, 5, 6), [0, 2, 3, 1]),      # NCHW -> NHWC
    ((2, 5, 6, 8), [0, 3, 1, 2]),      # NHWC -> NCHW
    ((3, 1, 4, 1, 5), [4, 2, 0, 3, 1]),
    ((200, 130), [1, 0]),
    ((1, 1), [1, 0]),
    ((4,), [0]),
    ((0, 3), [1, 0]),
])
def test_transpose(shape, axes, dtype, threads, rng):
    x = _data(rng, shape, dtype)
    check_reference("transpose", {"axes": axes}, [x], dtype)


def test_transpose_errors():
    x = tvmlite.nd.array(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"topi.transpose: out must have shape \(3, 2\), got \(2, 3\)"):
        _kernel("topi.transpose", axes=[1, 0])(x, tvmlite.nd.empty((2, 3), "float32"))
    with pytest.raises(ValueError, match="topi.transpose: axes has 3 entries for data of rank 2"):
        _kernel("topi.transpose", axes=[0, 1, 2])(x, tvmlite.nd.empty((2, 3), "float32"))
    with pytest.raises(ValueError, match="topi.transpose: axis 0 repeats in axes"):
        _kernel("topi.transpose", axes=[0, -2])(x, tvmlite.nd.empty((2, 3), "float32"))
    with pytest.raises(TypeError, match="topi.transpose: dtypes differ"):
        _kernel("topi.transpose", axes=[])(x, tvmlite.nd.empty((3, 2), "int32"))


# ---------------------------------------------------------------------------------------------------- take

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ["int32", "int64"])
@pytest.mark.parametrize("mode", ["fast", "clip", "wrap"])
@pytest.mark.parametrize("shape,axis,ishape,batch_dims", [
    ((10,), 0, (4,), 0),
    ((10, 6), 0, (3, 2), 0),           # embedding lookup
    ((10, 6), 1, (5,), 0),
    ((10, 6), -1, (), 0),
    ((4, 5, 6), 1, (2, 3), 0),
    ((4, 5, 6), -2, (7,), 0),
    ((3, 5, 6), 1, (3, 4), 1),         # batch_dims
    ((3, 5, 6), 2, (3, 4), -1),
    ((2, 3, 5, 6), 2, (2, 3, 4), 2),
    ((2000, 17), 0, (3000,), 0),
])
def test_take(shape, axis, ishape, batch_dims, mode, itype, dtype, threads, rng):
    x = _data(rng, shape, dtype)
    n = shape[axis]
    lo, hi = (-n, n) if mode == "fast" else (-3 * n, 3 * n)
    idx = rng.integers(lo, hi, size=ishape).astype(itype)
    attrs = dict(axis=axis, batch_dims=batch_dims, mode=mode)
    check_reference("take", attrs, [x, idx], dtype)


def test_take_negative_and_out_of_range():
    x = np.arange(5, dtype="float32")
    idx = np.array([-1, -5, 0, 4], "int64")
    np.testing.assert_array_equal(run("topi.take", {"axis": 0}, [x, idx], (4,), "float32"), [4, 0, 0, 4])
    for bad in (5, -6):
        with pytest.raises(IndexError, match=f"topi.take: index {bad} is out of range for a dim of 5"):
            run("topi.take", {"axis": 0}, [x, np.array([0, bad], "int32")], (2,), "float32")


def test_take_errors():
    x = tvmlite.nd.array(np.zeros((4, 5), "float32"))
    i = tvmlite.nd.array(np.zeros(3, "int64"))
    with pytest.raises(TypeError, match="topi.take: indices must be int32 or int64, got float32"):
        _kernel("topi.take", axis=0)(x, tvmlite.nd.array(np.zeros(3, "float32")), tvmlite.nd.empty((3, 5), "float32"))
    with pytest.raises(ValueError, match=r"topi.take: out must have shape \(3, 5\), got \(3, 4\)"):
        _kernel("topi.take", axis=0)(x, i, tvmlite.nd.empty((3, 4), "float32"))
    with pytest.raises(ValueError, match="topi.take: mode 'nearest'"):
        _kernel("topi.take", mode="nearest")
    with pytest.raises(ValueError, match="topi.take: axis -3 is out of range for rank 2"):
        _kernel("topi.take", axis=-3)(x, i, tvmlite.nd.empty((3, 5), "float32"))
    with pytest.raises(ValueError, match="topi.take: batch dim 0 differs"):
        _kernel("topi.take", axis=1, batch_dims=1)(x, tvmlite.nd.array(np.zeros((3, 2), "int64")),
                                                   tvmlite.nd.empty((4, 2), "float32"))


# -------------------------------------------------------------------------------------------------- gather

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ["int32", "int64"])
@pytest.mark.parametrize("shape,axis,ishape", [
    ((7,), 0, (12,)),
    ((4, 5), 0, (6, 5)),
    ((4, 5), 1, (4, 9)),
    ((4, 5), -1, (2, 3)),                 # smaller than data off the axis
    ((3, 4, 5), 1, (3, 7, 5)),
    ((3, 4, 5), -3, (2, 2, 2)),
    ((300, 70), 1, (300, 70)),
])
def test_gather(shape, axis, ishape, itype, dtype, threads, rng):
    x = _data(rng, shape, dtype)
    n = shape[axis]
    idx = rng.integers(-n, n, size=ishape).astype(itype)
    check_reference("gather", {"axis": axis}, [x, idx], dtype)


def test_gather_errors():
    x = tvmlite.nd.array(np.zeros((4, 5), "float32"))
    with pytest.raises(IndexError, match="topi.gather: index 4 is out of range for a dim of 4"):
        _kernel("topi.gather", axis=0)(x, tvmlite.nd.array(np.array([[0, 4]], "int64")),
                                       tvmlite.nd.empty((1, 2), "float32"))
    with pytest.raises(ValueError, match="topi.gather: indices .* must have the rank of data"):
        _kernel("topi.gather", axis=0)(x, tvmlite.nd.array(np.zeros(3, "int64")), tvmlite.nd.empty((3,), "float32"))
    with pytest.raises(ValueError, match="topi.gather: indices .* is larger than data .* on dim 1"):
        _kernel("topi.gather", axis=0)(x, tvmlite.nd.array(np.zeros((2, 6), "int64")),
                                       tvmlite.nd.empty((2, 6), "float32"))
    with pytest.raises(TypeError, match="topi.gather: indices must be int32 or int64, got uint8"):
        _kernel("topi.gather", axis=0)(x, tvmlite.nd.array(np.zeros((2, 5), "uint8")),
                                       tvmlite.nd.empty((2, 5), "float32"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ["int32", "int64"])
@pytest.mark.parametrize("shape,ishape,batch_dims", [
    ((5, 6), (3, 1), 0),
    ((5, 6), (3, 2), 0),
    ((5, 6), (2, 4, 2), 0),
    ((4, 5, 6), (7, 0), 0),               # k = 0: whole data per index row
    ((4, 5, 6, 3), (2, 2), 0),
    ((3, 5, 6), (3, 4, 1), 1),            # batch_dims
    ((3, 5, 6, 2), (3, 4, 2), 1),
    ((2, 3, 5, 6), (2, 3, 1), 2),
    ((2000, 64), (3000, 1), 0),
])
def test_gather_nd(shape, ishape, batch_dims, itype, dtype, threads, rng):
    x = _data(rng, shape, dtype)
    k = ishape[-1]
    idx = np.stack([rng.integers(-shape[batch_dims + j], shape[batch_dims + j], size=ishape[:-1]) for j in range(k)],
                   axis=-1).astype(itype) if k else np.zeros(ishape, itype)
    check_reference("gather_nd", {"batch_dims": batch_dims}, [x, idx], dtype)


def test_gather_nd_errors():
    x = tvmlite.nd.array(np.zeros((4, 5), "float32"))
    with pytest.raises(IndexError, match="topi.gather_nd: index -6 is out of range for a dim of 5"):
        _kernel("topi.gather_nd")(x, tvmlite.nd.array(np.array([[0, -6]], "int64")), tvmlite.nd.empty((1,), "float32"))
    with pytest.raises(ValueError, match=r"topi.gather_nd: indices \(1, 3\) address 3 dims of data"):
        _kernel("topi.gather_nd")(x, tvmlite.nd.array(np.zeros((1, 3), "int64")), tvmlite.nd.empty((1,), "float32"))
    with pytest.raises(ValueError, match="topi.gather_nd: batch_dims 2 must be in"):
        _kernel("topi.gather_nd", batch_dims=2)(x, tvmlite.nd.array(np.zeros((4, 1), "int64")),
                                                tvmlite.nd.empty((4,), "float32"))
    with pytest.raises(ValueError, match=r"topi.gather_nd: out must have shape \(2, 5\)"):
        _kernel("topi.gather_nd")(x, tvmlite.nd.array(np.zeros((2, 1), "int64")), tvmlite.nd.empty((2, 4), "float32"))


# ------------------------------------------------------------------------------------------- strided_slice

BIG = 2**31 - 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,begin,end,strides,axes,mode", [
    ((10,), [2], [8], [1], None, "end"),
    ((10,), [8], [2], [-2], None, "end"),
    ((10,), [-3], [BIG], [], None, "end"),
    ((10,), [-1], [-BIG], [-1], None, "end"),
    ((6, 7), [1, 2], [5, 7], [2, 3], None, "end"),
    ((6, 7), [1], [-1], [1], None, "end"),
    ((2, 6, 7, 5), [1, 0], [5, 7], [2], [1, -2], "end"),
    ((2, 6, 7, 5), [4], [1], [-1], [-1], "end"),
    ((2, 6, 7, 5), [0, 0, 0, 0], [2, 6, 7, 5], [1, 1, 1, 1], None, "end"),
    ((4, 9), [1, -4], [2, -1], [], None, "size"),
    ((4, 9), [-2], [5], [], [1], "size"),
    ((300, 40), [7, 3], [290, 39], [3, 5], None, "end"),
    ((5, 5), [3], [1], [1], None, "end"),   # empty
])
def test_strided_slice(shape, begin, end, strides, axes, mode, dtype, threads, rng):
    x = _data(rng, shape, dtype)
    attrs = dict(begin=begin, end=end, strides=strides, axes=axes, slice_mode=mode)
    want = get_reference("strided_slice")(SimpleNamespace(**attrs), x)
    kattrs = {k: v for k, v in attrs.items() if v is not None}
    got = run("topi.strided_slice", kattrs, [x], want.shape, dtype)
    np.testing.assert_array_equal(got, want)


def test_strided_slice_errors():
    x = tvmlite.nd.array(np.zeros((4, 5), "float32"))
    with pytest.raises(ValueError, match=r"topi.strided_slice: out must have shape \(2, 5\), got \(3, 5\)"):
        _kernel("topi.strided_slice", begin=[1], end=[3])(x, tvmlite.nd.empty((3, 5), "float32"))
    with pytest.raises(ValueError, match="topi.strided_slice: step 0"):
        _kernel("topi.strided_slice", begin=[1], end=[3], strides=[0])
    with pytest.raises(ValueError, match="topi.strided_slice: begin has 1 entries, end has 2"):
        _kernel("topi.strided_slice", begin=[1], end=[3, 4])
    with pytest.raises(ValueError, match="topi.strided_slice: slice_mode 'start'"):
        _kernel("topi.strided_slice", begin=[1], end=[3], slice_mode="start")
    with pytest.raises(ValueError, match="topi.strided_slice: 3 bounds for data of rank 2"):
        _kernel("topi.strided_slice", begin=[0, 0, 0], end=[1, 1, 1])(x, tvmlite.nd.empty((1, 1), "float32"))
    with pytest.raises(ValueError, match="topi.strided_slice: axis 1 is sliced twice"):
        _kernel("topi.strided_slice", begin=[0, 0], end=[1, 1], axes=[1, -1])(x, tvmlite.nd.empty((4, 1), "float32"))


# ----------------------------------------------------------------------------------------------------- pad

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap"])
@pytest.mark.parametrize("shape,widths", [
    ((5,), [2, 3]),
    ((4, 6), [1, 2, 3, 0]),
    ((2, 3, 5, 7), [0, 0, 0, 0, 1, 1, 2, 2]),
    ((2, 3, 5, 7), [0, 0, 1, 0, 0, 3, 9, 8]),      # wider than the axis: reflect repeats, wrap cycles
    ((3, 8), [-1, 2, 2, -3]),                     # negative: crop
    ((1, 6), [2, 2, 1, 1]),
    ((130, 129), [3, 4, 5, 6]),
    ((2, 3, 5, 7, 4), [0, 0, 0, 0, 1, 2, 2, 1, 0, 0]),   # a blocked layout's spatial pad: the block joins W
    ((3, 5, 6), [1, 0, -1, 2, 0, 0]),               # crop then pad, the last axis joining
    ((4, 3, 2), [0, 1, 0, 0, 0, 0]),                # two trailing axes join the first
])
def test_pad(shape, widths, mode, dtype, threads, rng):
    x = _data(rng, shape, dtype)
    value = np.array(7, dtype=dtype)
    attrs = dict(pad_width=widths, pad_mode=mode)
    check_reference("nn.pad", attrs, [x, value], dtype)


def test_pad_value_shape_one():
    x = np.ones((2, 2), "float32")
    got = run("topi.nn.pad", {"pad_width": [1, 0, 0, 1]}, [x, np.array([-2.5], "float32")], (3, 3), "float32")
    np.testing.assert_array_equal(got, np.pad(x, [(1, 0), (0, 1)], constant_values=-2.5))


def test_pad_errors():
    x = tvmlite.nd.array(np.zeros((4, 5), "float32"))
    v = tvmlite.nd.array(np.zeros((), "float32"))
    with pytest.raises(ValueError, match="topi.nn.pad: pad_mode 'mirror'"):
        _kernel("topi.nn.pad", pad_width=[0, 0, 0, 0], pad_mode="mirror")
    with pytest.raises(ValueError, match="topi.nn.pad: pad_width has 2 values, expected 2 per axis"):
        _kernel("topi.nn.pad", pad_width=[1, 1])(x, v, tvmlite.nd.empty((6, 5), "float32"))
    with pytest.raises(ValueError, match=r"topi.nn.pad: out must have shape \(6, 5\)"):
        _kernel("topi.nn.pad", pad_width=[1, 1, 0, 0])(x, v, tvmlite.nd.empty((6, 6), "float32"))
    with pytest.raises(TypeError, match="topi.nn.pad: dtypes differ"):
        _kernel("topi.nn.pad", pad_width=[1, 1, 0, 0])(x, tvmlite.nd.array(np.zeros((), "int32")),
                                                       tvmlite.nd.empty((6, 5), "float32"))
    with pytest.raises(ValueError, match="topi.nn.pad: pad_value must hold one value"):
        _kernel("topi.nn.pad", pad_width=[1, 1, 0, 0])(x, tvmlite.nd.array(np.zeros(2, "float32")),
                                                       tvmlite.nd.empty((6, 5), "float32"))
    with pytest.raises(ValueError, match="crops more than axis 0"):
        _kernel("topi.nn.pad", pad_width=[-3, -2, 0, 0])(x, v, tvmlite.nd.empty((0, 5), "float32"))
    with pytest.raises(ValueError, match="cannot pad the empty axis 0"):
        _kernel("topi.nn.pad", pad_width=[-4, 1, 0, 0], pad_mode="edge")(x, v, tvmlite.nd.empty((1, 5), "float32"))


# ----------------------------------------------------------------------------------------------- copy, cast

@pytest.mark.parametrize("dtype", DTYPES + ["uint8", "float64"])
@pytest.mark.parametrize("shape,out_shape", [((3, 4), (3, 4)), ((3, 4), (12,)), ((2, 3, 4), (4, 6)),
                                             (((1 << 17) + 3,), ((1 << 17) + 3,)), ((0,), (0,))], ids=str)
def test_copy(shape, out_shape, dtype, threads, rng):
    """copy is also the contiguous reshape: any out with as many elements."""
    x = _data(rng, shape, dtype)
    got = run("topi.copy", {}, [x], out_shape, dtype)
    np.testing.assert_array_equal(got, x.reshape(out_shape))


def test_copy_errors():
    x = tvmlite.nd.array(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match="topi.copy: out has 7 elements, data 6"):
        _kernel("topi.copy")(x, tvmlite.nd.empty((7,), "float32"))
    with pytest.raises(TypeError, match="topi.copy: dtypes differ: float32 and int32"):
        _kernel("topi.copy")(x, tvmlite.nd.empty((6,), "int32"))


CAST_TYPES = ["float32", "float64", "int8", "uint8", "int32", "int64", "bool"]


@pytest.mark.parametrize("src", CAST_TYPES)
@pytest.mark.parametrize("dst", CAST_TYPES)
def test_cast(src, dst, rng):
    if src.startswith("float"):
        x = (rng.standard_normal(1001) * 50).astype(src)
        x[:4] = [0.0, -0.0, 0.5, -0.99]
        if dst in ("int8", "uint8"):
            x = np.clip(x, -120, 120)  # numpy's C cast of an out-of-range float to 8 bits is undefined behaviour
    elif src == "bool":
        x = rng.random(1001) > 0.5
    else:
        x = rng.integers(-100, 100, 1001).astype(src) if src != "uint8" else rng.integers(0, 255, 1001).astype(src)
    want = get_reference("cast")(SimpleNamespace(dtype=dst, saturate=True, round_mode="up"), x)
    got = run("topi.cast", {"dtype": dst}, [x], x.shape, dst)
    np.testing.assert_array_equal(got, want)


def test_cast_specials():
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.9, -2.9], "float32")
    np.testing.assert_array_equal(run("topi.cast", {"dtype": "bool"}, [x], x.shape, "bool"), x != 0)
    i32 = run("topi.cast", {"dtype": "int32"}, [x], x.shape, "int32")
    assert list(i32) == [-2**31] * 5 + [2, -2]  # x86's and numpy's answer on these machines
    i64 = run("topi.cast", {"dtype": "int64"}, [x], x.shape, "int64")
    assert list(i64[:3]) == [-2**63] * 3 and list(i64[3:]) == [3000000000, -3000000000, 2, -2]


def test_cast_errors():
    x = tvmlite.nd.array(np.zeros(3, "float32"))
    with pytest.raises(ValueError, match="topi.cast: dtype 'float16' is not supported"):
        _kernel("topi.cast", dtype="float16")
    with pytest.raises(ValueError, match="topi.cast: missing attribute 'dtype'"):
        _kernel("topi.cast")
    with pytest.raises(TypeError, match=r"topi.cast: out must be int32 \(attr dtype\), got int64"):
        _kernel("topi.cast", dtype="int32")(x, tvmlite.nd.empty((3,), "int64"))
    with pytest.raises(ValueError, match=r"topi.cast: out must have shape \(3,\)"):
        _kernel("topi.cast", dtype="int32")(x, tvmlite.nd.empty((4,), "int32"))
    with pytest.raises(TypeError, match="topi.cast: data dtype float16 is not supported"):
        _kernel("topi.cast", dtype="int32")(tvmlite.nd.array(np.zeros(3, "float16")), tvmlite.nd.empty((3,), "int32"))


# ---------------------------------------------------------------------------------------------------- where

@pytest.mark.parametrize("dtype", DTYPES + ["uint8"])
@pytest.mark.parametrize("cshape,xshape,yshape", [
    ((4, 5), (4, 5), (4, 5)),
    ((4, 5), (1,), (5,)),
    ((4, 1), (1, 5), ()),
    ((2, 1, 6), (3, 1), (2, 3, 6)),
    ((1,), (7, 9), (7, 9)),
    ((300, 300), (300, 1), (1, 300)),
])
def test_where(cshape, xshape, yshape, dtype, threads, rng):
    c = rng.random(cshape) > 0.5
    x, y = _data(rng, xshape, dtype), _data(rng, yshape, dtype)
    want = get_reference("where")(SimpleNamespace(), c, x, y)
    got = run("topi.where", {}, [c, x, y], want.shape, dtype)
    np.testing.assert_array_equal(got, want)
    got_u8 = run("topi.where", {}, [c.astype("uint8") * 3, x, y], want.shape, dtype)  # nonzero bytes are true
    np.testing.assert_array_equal(got_u8, want)


def test_where_errors():
    c = tvmlite.nd.array(np.zeros((2, 3), bool))
    x = tvmlite.nd.array(np.zeros((2, 3), "float32"))
    out = tvmlite.nd.empty((2, 3), "float32")
    with pytest.raises(TypeError, match="topi.where: condition must be bool"):
        _kernel("topi.where")(x, x, x, out)
    with pytest.raises(TypeError, match="topi.where: dtypes differ"):
        _kernel("topi.where")(c, x, tvmlite.nd.array(np.zeros((2, 3), "int32")), out)
    with pytest.raises(ValueError, match=r"topi.where: y of shape \(4,\) does not broadcast"):
        _kernel("topi.where")(c, x, tvmlite.nd.array(np.zeros(4, "float32")), out)


# ------------------------------------------------------------------------------------------------ epilogues

@pytest.mark.parametrize("kernel,attrs,make", [
    ("topi.copy", {}, lambda x: [x]),
    ("topi.transpose", {"axes": [1, 0, 2]}, lambda x: [x.transpose(1, 0, 2).copy()]),
    ("topi.transpose", {"axes": [0, 2, 1]}, lambda x: [x.transpose(0, 2, 1).copy()]),
    ("topi.concatenate", {"axis": 2}, lambda x: [x[:, :, :10], x[:, :, 10:]]),
    ("topi.strided_slice", {"begin": [0], "end": [BIG], "strides": [1]}, lambda x: [x]),
    ("topi.cast", {"dtype": "float32"}, lambda x: [x.astype("float64")]),
])
def test_epilogue_after_kernel(kernel, attrs, make, threads, rng):
    """An epilogue on a float32 output runs after the move: out = relu(move(x) + bias) * 2."""
    x = rng.standard_normal((40, 30, 33)).astype("float32")
    bias = rng.standard_normal(33).astype("float32")
    ins = make(x)
    got = run(kernel, dict(attrs, epilogue="add r0 r0 in0; relu r0 r0; mul r0 r0 2"), [*ins, bias], x.shape,
              "float32")
    np.testing.assert_allclose(got, np.maximum(x + bias, 0) * 2, rtol=1e-6)


def test_epilogue_on_take_pad_where(rng):
    x = rng.standard_normal((6, 8)).astype("float32")
    idx = np.array([5, 0, -1], "int64")
    got = run("topi.take", {"axis": 0, "epilogue": "mul r0 r0 in0"}, [x, idx, np.float32([3])], (3, 8), "float32")
    np.testing.assert_allclose(got, x[[5, 0, -1]] * 3)
    got = run("topi.nn.pad", {"pad_width": [1, 1, 0, 0], "epilogue": "exp r0 r0"}, [x, np.float32(0)], (8, 8),
              "float32")
    np.testing.assert_allclose(got, np.exp(np.pad(x, [(1, 1), (0, 0)])), rtol=1e-5)
    c = x > 0
    got = run("topi.where", {"epilogue": "neg r0 r0"}, [c, x, np.float32([0])], x.shape, "float32")
    np.testing.assert_array_equal(got, -np.where(c, x, 0))


def test_epilogue_needs_float32_out():
    x = tvmlite.nd.array(np.zeros(4, "int32"))
    with pytest.raises(TypeError, match="topi.copy: out must be float32, got int32"):
        _kernel("topi.copy", epilogue="relu r0 r0")(x, tvmlite.nd.empty((4,), "int32"))
    with pytest.raises(ValueError, match="topi.copy: bad epilogue instruction"):
        _kernel("topi.copy", epilogue="relu r9 r0")


@pytest.mark.parametrize("op,kernel", [("concatenate", "topi.concatenate"), ("transpose", "topi.transpose"),
                                       ("take", "topi.take"), ("strided_slice", "topi.strided_slice"),
                                       ("nn.pad", "topi.nn.pad"), ("copy", "topi.copy"), ("cast", "topi.cast"),
                                       ("where", "topi.where"), ("gather", "topi.gather"),
                                       ("gather_nd", "topi.gather_nd")])
def test_registered_as_relay_kernel(op, kernel):
    from tvmlite import ir

    assert str(ir.Op.get(op).get_attr("FTVMLiteKernel")) == kernel
    assert tvmlite.get_global_func(kernel) is not None


@pytest.mark.parametrize("case", ["transpose", "transpose_rows", "pad", "slice", "gather", "take", "cast"])
def test_big_shapes_split_across_threads(case, threads, rng):
    """Shapes big enough that every kernel's parallel walk cuts them into several chunks (2 threads)."""
    x = rng.standard_normal((700, 600)).astype("float32")
    if case == "transpose":
        want, name, attrs, ins = x.T, "topi.transpose", {"axes": [1, 0]}, [x]
    elif case == "transpose_rows":
        x3 = x.reshape(70, 10, 600)
        want, name, attrs, ins = x3.transpose(1, 0, 2), "topi.transpose", {"axes": [1, 0, 2]}, [x3]
    elif case == "pad":
        want = np.pad(x, [(3, 2), (1, 4)], mode="reflect")
        name, attrs, ins = "topi.nn.pad", {"pad_width": [3, 2, 1, 4], "pad_mode": "reflect"}, [x, np.float32(0)]
    elif case == "slice":
        want, name = x[1::2, ::-3], "topi.strided_slice"
        attrs, ins = {"begin": [1, -1], "end": [BIG, -BIG], "strides": [2, -3]}, [x]
    elif case == "gather":
        idx = rng.integers(-600, 600, size=x.shape).astype("int64")
        want = get_reference("gather")(SimpleNamespace(axis=1), x, idx)
        name, attrs, ins = "topi.gather", {"axis": 1}, [x, idx]
    elif case == "take":
        idx = rng.integers(0, 700, size=(50, 30)).astype("int32")
        want, name, attrs, ins = np.take(x, idx, axis=0), "topi.take", {"axis": 0}, [x, idx]
    else:
        want, name, attrs, ins = (x * 100).astype("int64"), "topi.cast", {"dtype": "int64"}, [x * 100]
    got = run(name, attrs, ins, want.shape, want.dtype.name)
    np.testing.assert_array_equal(got, want)
