"""NDArray: copies from numpy, zero-copy DLPack in both directions, numpy arguments, buffers, alignment, lifetime."""
import array as pyarray
import gc
import weakref

import numpy as np
import pytest

import tvmlite
from tvmlite.runtime import NDArray

echo = tvmlite.get_global_func("testing.echo")
apply = tvmlite.get_global_func("testing.apply")
nop = tvmlite.get_global_func("testing.nop")

DTYPES = ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
          "float16"]


def _sample(dtype, shape=(3, 4)):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    return (np.arange(n) * 3 % 7 - (2 if np.dtype(dtype).kind in "if" else 0)).astype(dtype).reshape(shape)


# ----------------------------------------------------------------------------------------------------------------
# tvmlite.nd.array / numpy()
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_array_copies_values_and_keeps_dtype(dtype):
    src = _sample(dtype)
    x = tvmlite.nd.array(src)
    assert isinstance(x, NDArray)
    assert x.dtype == dtype
    assert x.shape == src.shape
    out = x.numpy()
    assert out.dtype == src.dtype
    np.testing.assert_array_equal(out, src)


def test_array_is_a_copy():
    src = np.arange(6, dtype="float32")
    x = tvmlite.nd.array(src)
    assert x.data_ptr != src.ctypes.data
    src[0] = 100
    assert x.numpy()[0] == 0


def test_array_from_non_contiguous_numpy_is_compact_copy():
    src = np.arange(24, dtype="int32").reshape(4, 6)[::2, 1::2]
    x = tvmlite.nd.array(src)
    assert x.shape == (2, 3)
    assert x.strides is None
    np.testing.assert_array_equal(x.numpy(), src)


def test_array_from_python_lists():
    x = tvmlite.nd.array([[1, 2], [3, 4]], dtype="int32")
    assert x.dtype == "int32" and x.shape == (2, 2)
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [3, 4]])
    assert tvmlite.nd.array([1.5, 2.5]).dtype == "float32"  # Python floats default to float32, as in TVM


def test_array_scalar_and_empty_shapes():
    s = tvmlite.nd.array(np.float64(3.5))
    assert s.shape == () and s.ndim == 0
    assert s.numpy() == 3.5
    e = tvmlite.nd.array(np.zeros((0, 3), "float32"))
    assert e.shape == (0, 3)
    assert e.numpy().shape == (0, 3)


def test_numpy_returns_a_copy():
    x = tvmlite.nd.array(np.zeros(4, "float32"))
    out = x.numpy()
    out[:] = 5
    assert x.numpy()[0] == 0
    assert out.ctypes.data != x.data_ptr


def test_copyfrom():
    x = tvmlite.nd.empty((2, 2), "float64")
    x.copyfrom(np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [3, 4]])


# ----------------------------------------------------------------------------------------------------------------
# Zero-copy: np.from_dlpack(nd), tvmlite.nd.from_dlpack(np)
# ----------------------------------------------------------------------------------------------------------------

def test_numpy_from_dlpack_is_zero_copy():
    x = tvmlite.nd.array(np.zeros((2, 3), "float32"))
    view = np.from_dlpack(x)
    assert view.ctypes.data == x.data_ptr
    view[1, 2] = 7.0
    assert x.numpy()[1, 2] == 7.0
    assert np.from_dlpack(x)[1, 2] == 7.0


def test_numpy_view_keeps_ndarray_alive():
    x = tvmlite.nd.array(np.arange(1000, dtype="float64"))
    view = np.from_dlpack(x)
    del x
    gc.collect()
    assert view[999] == 999.0
    view[0] = 1.0  # still writable memory


def test_tvmlite_from_dlpack_is_zero_copy():
    src = np.arange(10, dtype="float32")
    x = tvmlite.nd.from_dlpack(src)
    assert x.data_ptr == src.ctypes.data
    assert x.shape == (10,) and x.dtype == "float32"
    src[3] = 42
    assert np.from_dlpack(x)[3] == 42
    np.from_dlpack(x)[4] = -1
    assert src[4] == -1


def test_from_dlpack_of_ndarray_is_itself():
    x = tvmlite.nd.empty((3,), "int32")
    assert tvmlite.nd.from_dlpack(x) is x


def test_from_dlpack_of_plain_buffer():
    buf = pyarray.array("d", [1.0, 2.0, 3.0])
    x = tvmlite.nd.from_dlpack(buf)
    assert x.dtype == "float64" and x.shape == (3,)
    np.from_dlpack(x)[0] = 9.0
    assert buf[0] == 9.0


def test_from_dlpack_unsupported_object_is_type_error():
    with pytest.raises(TypeError, match="from_dlpack"):
        tvmlite.nd.from_dlpack(object())
    with pytest.raises(TypeError):
        tvmlite.nd.from_dlpack([1, 2, 3])


def test_ndarray_viewing_numpy_keeps_it_alive_after_name_deleted():
    src = np.arange(10000, dtype="int64")
    x = tvmlite.nd.from_dlpack(src)
    del src
    gc.collect()
    view = np.from_dlpack(x)
    assert view[9999] == 9999
    assert view.sum() == 9999 * 10000 // 2


def test_ndarray_from_numpy_argument_keeps_it_alive():
    src = np.arange(1000, dtype="float64")
    x = echo(src)  # the NDArray made for the argument escapes through the return value
    ref = weakref.ref(src)
    del src
    gc.collect()
    assert np.from_dlpack(x)[999] == 999.0
    assert ref() is not None  # still held by the NDArray
    del x
    gc.collect()
    assert ref() is None  # and released with it


def test_from_dlpack_releases_source_when_done():
    src = np.arange(10, dtype="float32")
    ref = weakref.ref(src)
    x = tvmlite.nd.from_dlpack(src)
    del src
    gc.collect()
    assert ref() is not None
    del x
    gc.collect()
    assert ref() is None


# ----------------------------------------------------------------------------------------------------------------
# numpy arrays as arguments
# ----------------------------------------------------------------------------------------------------------------

def test_numpy_argument_is_passed_without_copy():
    src = np.arange(12, dtype="float32").reshape(3, 4)
    out = echo(src)
    assert isinstance(out, NDArray)
    assert out.data_ptr == src.ctypes.data
    assert out.shape == (3, 4) and out.dtype == "float32"
    assert out.strides is None


def test_numpy_argument_seen_by_python_callback():
    src = np.arange(6, dtype="int32")

    def cb(x):
        assert isinstance(x, NDArray)
        np.from_dlpack(x)[0] = 99  # writes through to the caller's array
        return int(np.from_dlpack(x).sum())

    assert apply(cb, src) == 99 + 15
    assert src[0] == 99


@pytest.mark.parametrize("make", [
    lambda: np.arange(20, dtype="int32").reshape(4, 5)[::2, 1::2],
    lambda: np.arange(20, dtype="float64").reshape(4, 5).T,
    lambda: np.arange(10, dtype="int16")[::3],
    lambda: np.arange(10, dtype="float32")[::-1],
])
def test_non_contiguous_numpy_argument_keeps_strides(make):
    src = make()
    out = echo(src)
    assert out.shape == src.shape
    expected = tuple(s // src.itemsize for s in src.strides)
    assert out.strides == expected
    np.testing.assert_array_equal(np.from_dlpack(out), src)
    copy = out.numpy()
    assert not np.shares_memory(copy, src)
    np.testing.assert_array_equal(copy, src)


def test_non_contiguous_argument_shares_memory():
    base = np.zeros((4, 6), "float32")
    view = base[1::2, ::3]
    out = echo(view)
    np.from_dlpack(out)[:] = 1.0
    assert base.sum() == view.size
    assert (base[1::2, ::3] == 1.0).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_argument_dtypes(dtype):
    src = _sample(dtype, (5,))
    out = echo(src)
    assert out.dtype == dtype
    np.testing.assert_array_equal(np.from_dlpack(out), src)


def test_numpy_scalars_are_python_scalars():
    assert echo(np.float32(1.5)) == 1.5 and type(echo(np.float32(1.5))) is float
    assert echo(np.int64(3)) == 3 and type(echo(np.int64(3))) is int
    assert echo(np.bool_(True)) is True


def test_memoryview_argument():
    data = bytearray(b"\x01\x02\x03\x04")
    out = echo(memoryview(data))
    assert isinstance(out, NDArray)
    assert out.dtype == "uint8" and out.shape == (4,)
    np.from_dlpack(out)[0] = 200
    assert data[0] == 200


def test_memoryview_of_numpy_keeps_dtype_and_shape():
    src = np.arange(6, dtype="float64").reshape(2, 3)
    out = echo(memoryview(src))
    assert out.dtype == "float64" and out.shape == (2, 3)
    np.testing.assert_array_equal(out.numpy(), src)


def test_ndarray_argument_is_the_same_object():
    x = tvmlite.nd.empty((2,), "float32")
    assert echo(x).same_as(x)
    assert type(echo(x)) is NDArray


def test_ndarrays_in_containers():
    a = tvmlite.nd.array(np.ones(2, "float32"))
    arr = echo([a, np.zeros(3, "int8")])
    assert arr[0].same_as(a)
    assert isinstance(arr[1], NDArray) and arr[1].dtype == "int8"


# ----------------------------------------------------------------------------------------------------------------
# empty, alignment, properties
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,dtype", [((1,), "int8"), ((3, 5), "float32"), ((7,), "float64"), ((2, 3, 4), "uint8"),
                                         ((0,), "float32"), ((), "int64")])
def test_empty_is_64_byte_aligned(shape, dtype):
    arrays = [tvmlite.nd.empty(shape, dtype) for _ in range(8)]
    for x in arrays:
        assert x.data_ptr % 64 == 0


def test_properties():
    x = tvmlite.nd.empty((2, 3, 4), "int16")
    assert x.shape == (2, 3, 4)
    assert x.ndim == 3
    assert x.dtype == "int16"
    assert x.device == tvmlite.cpu(0)
    assert x.device.device_type == 1 and x.device.device_id == 0
    assert x.strides is None
    assert x.__dlpack_device__() == (1, 0)
    assert "shape=(2, 3, 4)" in repr(x) and "int16" in repr(x)


def test_empty_with_device_and_datatype():
    x = tvmlite.nd.empty([4], tvmlite.DataType("float32"), tvmlite.device("cpu"))
    assert x.dtype == "float32" and x.device == tvmlite.cpu()


def test_empty_bad_dtype_is_an_error():
    with pytest.raises(ValueError, match="foo"):
        tvmlite.nd.empty((2,), "foo")


def test_unknown_device_name_is_value_error():
    with pytest.raises(ValueError, match="cuda"):
        tvmlite.device("cuda")


def test_null_ndarray_is_a_clear_error():
    x = NDArray.__new__(NDArray)
    with pytest.raises(ValueError, match="null"):
        x.shape
    with pytest.raises((ValueError, TypeError), match="(?i)null"):
        x.__dlpack__()
    with pytest.raises((ValueError, TypeError), match="(?i)null"):
        np.from_dlpack(x)
    assert "null" in repr(x)


# ----------------------------------------------------------------------------------------------------------------
# DLPack versions
# ----------------------------------------------------------------------------------------------------------------

def _capsule_name(capsule):
    import ctypes

    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


def test_dlpack_versioned_capsule():
    x = tvmlite.nd.empty((2,), "float32")
    cap = x.__dlpack__(max_version=(1, 0))
    assert type(cap).__name__ == "PyCapsule"
    assert _capsule_name(cap) == "dltensor_versioned"


def test_dlpack_legacy_capsule():
    x = tvmlite.nd.empty((2,), "float32")
    assert _capsule_name(x.__dlpack__()) == "dltensor"
    assert _capsule_name(x.__dlpack__(max_version=(0, 8))) == "dltensor"


def test_unconsumed_capsules_do_not_leak():
    from tvmlite.testing import object_count

    x = tvmlite.nd.empty((2,), "float32")
    gc.collect()
    before = object_count()
    for _ in range(100):
        x.__dlpack__()
        x.__dlpack__(max_version=(1, 0))
    gc.collect()
    assert object_count() == before


def test_dlpack_copy_true_and_other_device_are_buffer_errors():
    x = tvmlite.nd.empty((2,), "float32")
    with pytest.raises(BufferError):
        x.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(2, 0))
    assert _capsule_name(x.__dlpack__(dl_device=(1, 0))) == "dltensor"


def test_both_dlpack_versions_consumed_by_numpy():
    x = tvmlite.nd.array(np.arange(4, dtype="int32"))

    class Legacy:  # a producer that only speaks the pre-1.0 protocol
        def __dlpack__(self, stream=None):
            return x.__dlpack__()

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    legacy = np.from_dlpack(Legacy())
    assert legacy.ctypes.data == x.data_ptr
    np.testing.assert_array_equal(legacy, [0, 1, 2, 3])


def test_tvmlite_consumes_legacy_producer():
    src = np.arange(5, dtype="float64")

    class LegacyOnly:
        def __dlpack__(self, stream=None):  # rejects max_version: tvmlite must fall back
            return src.__dlpack__()

        def __dlpack_device__(self):
            return src.__dlpack_device__()

    x = tvmlite.nd.from_dlpack(LegacyOnly())
    assert x.data_ptr == src.ctypes.data
    np.testing.assert_array_equal(x.numpy(), src)


def test_bad_dlpack_producer_is_type_error():
    class Bad:
        def __dlpack__(self, stream=None, max_version=None):
            return "not a capsule"

    with pytest.raises(TypeError, match="DLPack capsule"):
        tvmlite.nd.from_dlpack(Bad())


# ----------------------------------------------------------------------------------------------------------------
# Bad inputs
# ----------------------------------------------------------------------------------------------------------------

def test_object_array_argument_is_type_error():
    with pytest.raises(TypeError, match="format"):
        echo(np.array([object(), 1], dtype=object))


def test_string_array_argument_is_type_error():
    with pytest.raises(TypeError):
        echo(np.array(["ab", "cd"]))


def test_complex_array_argument_is_type_error():
    with pytest.raises(TypeError):
        nop(np.array([1 + 2j]))


def test_object_array_from_dlpack_is_an_error_not_a_crash():
    with pytest.raises((TypeError, BufferError)):
        tvmlite.nd.from_dlpack(np.array([object(), 1], dtype=object))


def test_object_array_to_nd_array_is_type_error():
    with pytest.raises(TypeError, match="object"):
        tvmlite.nd.array(np.array([object(), 1], dtype=object))


def test_big_endian_argument_is_rejected():
    with pytest.raises(TypeError, match="format"):
        echo(np.arange(3, dtype=">i4"))


def test_read_only_buffer_stays_read_only():
    data = bytes(range(16))
    ro = np.frombuffer(data, dtype=np.uint8)
    assert not ro.flags.writeable
    view = np.from_dlpack(echo(ro))
    try:
        assert not view.flags.writeable
    finally:
        del view
    ro2 = np.arange(3.0)
    ro2.flags.writeable = False
    assert not np.from_dlpack(tvmlite.nd.from_dlpack(ro2)).flags.writeable


def test_too_many_dimensions_is_value_error():
    with pytest.raises(ValueError, match="at most 32"):
        tvmlite.nd.empty((1,) * 33, "float32")
    src = np.zeros((1,) * 33, "float32")
    with pytest.raises(ValueError, match="at most 32"):
        echo(src)


def test_negative_shape_is_an_error():
    with pytest.raises((ValueError, TypeError, OverflowError)):
        tvmlite.nd.empty((-1, 2), "float32")


def test_copyfrom_shape_mismatch_is_an_error():
    x = tvmlite.nd.empty((2,), "float32")
    with pytest.raises(ValueError):
        x.copyfrom(np.zeros(3, "float32"))



def test_read_only_flag_and_legacy_export():
    ro = tvmlite.nd.from_dlpack(np.frombuffer(b"abcd", dtype=np.uint8))
    assert ro.read_only
    assert not tvmlite.nd.array(np.zeros(3, "float32")).read_only
    # The pre-1.0 DLPack format cannot mark memory read-only, so that export is refused rather than made writable.
    with pytest.raises(BufferError, match="read-only"):
        ro.__dlpack__()
    assert not np.from_dlpack(ro).flags.writeable


# ----------------------------------------------------------------------------------------------------------------
# Invalid devices, shapes and DLPack arguments are refused where they come in
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    ((-5, 0), "-5 is not a DLPack device type"),
    ((0, 0), "0 is not a DLPack device type"),
    ((5, 0), "5 is not a DLPack device type"),
    ((17, 0), "17 is not a DLPack device type"),
    ((2**40, 0), "is not a DLPack device type"),
    ((1, -1), r"device id must be in \[0, 2\*\*31\), got -1"),
    ((1, 2**31), r"device id must be in \[0, 2\*\*31\), got 2147483648"),
])
def test_invalid_device_cannot_be_made(args, message):
    # No Device holds a value outside DLDeviceType, so save_json and structural_hash never see one.
    with pytest.raises(ValueError, match=message):
        tvmlite.runtime.Device(*args)
    with pytest.raises(ValueError, match=message):
        tvmlite.nd.device(*args)


@pytest.mark.parametrize("args, error, message", [
    ((1.5, 0), TypeError, "Device: device_type must be an int, got float"),  # not truncated to cpu(0)
    ((1, 2.7), TypeError, "Device: device_id must be an int, got float"),
    (("1", 0), TypeError, "Device: device_type must be an int, got str"),
    ((None, 0), TypeError, "Device: device_type must be an int, got NoneType"),
    ((2**64, 0), ValueError, "Device: device_type 18446744073709551616 is out of range"),
])
def test_device_numbers_must_be_ints(args, error, message):
    with pytest.raises(error, match=message):
        tvmlite.runtime.Device(*args)


def test_device_accepts_integer_likes():
    assert tvmlite.runtime.Device(np.int32(1), np.uint8(0)) == tvmlite.nd.cpu(0)


def test_device_made_without_init_is_cpu():
    dev = tvmlite.runtime.Device.__new__(tvmlite.runtime.Device)
    assert dev == tvmlite.nd.cpu(0)
    assert tvmlite.load_json(tvmlite.save_json(dev)) == dev


@pytest.mark.parametrize("shape, message", [
    ((-1, 2), r"dimension -1 of shape \(-1, 2\) is out of range"),
    ((2**63,), r"dimension 9223372036854775808 of shape .* is out of range"),
    ((2**40, 2**40), r"would have more than 2\*\*63 - 1 bytes"),
    ((2**62, 2**62, 0), r"would have more than 2\*\*63 - 1 bytes"),  # overflow is an error even with a zero dim
])
def test_empty_with_bad_shape_is_value_error(shape, message):
    with pytest.raises(ValueError, match=message):
        tvmlite.nd.empty(shape, "float32")


def test_empty_with_non_integer_shape_is_type_error():
    with pytest.raises(TypeError, match=r"nd.empty: shape must hold ints, got float"):
        tvmlite.nd.empty((2.0,), "float32")
    with pytest.raises(TypeError, match=r"nd.empty: shape must be a sequence of ints, got int"):
        tvmlite.nd.empty(3, "float32")


@pytest.mark.parametrize("kwargs, error, message", [
    ({"max_version": ()}, TypeError, r"max_version must be None or a \(major, minor\) tuple of ints, got \(\)"),
    ({"max_version": (1,)}, TypeError, "max_version must be None or a"),
    ({"max_version": "10"}, TypeError, "max_version must be None or a"),
    ({"max_version": (1.0, 0)}, TypeError, "max_version must be None or a"),
    ({"dl_device": 1}, TypeError, r"dl_device must be None or a \(device_type, device_id\) tuple of ints, got 1"),
    ({"dl_device": (1, 0, 0)}, TypeError, "dl_device must be None or a"),
    ({"stream": "s"}, TypeError, "stream must be None or an int, got str"),
    ({"copy": 1}, TypeError, "copy must be None or a bool, got int"),
    ({"copy": True}, BufferError, "copy=True is not supported"),
    ({"dl_device": (2, 0)}, BufferError, r"cannot export to device \(2, 0\)"),
])
def test_dlpack_export_arguments_are_checked(kwargs, error, message):
    x = tvmlite.nd.empty((2,), "float32")
    with pytest.raises(error, match=message):
        x.__dlpack__(**kwargs)


def test_dlpack_export_accepts_the_standard_arguments():
    x = tvmlite.nd.array(np.arange(3, dtype="float32"))
    for kwargs in ({}, {"max_version": (1, 0)}, {"max_version": (0, 8)}, {"stream": None, "copy": False},
                   {"dl_device": (1, 0), "max_version": (1, 2)}):
        np.testing.assert_array_equal(np.from_dlpack(_Producer(x.__dlpack__(**kwargs))), [0, 1, 2])


class _Producer:
    """Hands out one ready-made DLPack capsule."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def _foreign_tensor(shape, strides=None, ndim=None, dtype=(2, 32, 1), nbytes=64, device_type=1):
    """A legacy DLPack capsule over our own buffer, built field by field (as a buggy or hostile producer could),
    and a list that records its deleter's calls."""
    import ctypes

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                    ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                    ("byte_offset", ctypes.c_uint64)]

    Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    class Managed(ctypes.Structure):
        _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", Deleter)]

    calls = []
    buf = ctypes.create_string_buffer(nbytes)
    dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    steps = (ctypes.c_int64 * max(len(strides), 1))(*strides) if strides is not None else None
    m = Managed()
    m.dl_tensor = DLTensor(ctypes.addressof(buf), device_type, 0, len(shape) if ndim is None else ndim, *dtype,
                           ctypes.addressof(dims), ctypes.addressof(steps) if steps is not None else None, 0)
    deleter = Deleter(lambda p: calls.append(p))
    m.deleter = deleter
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule = new_capsule(ctypes.addressof(m), b"dltensor", None)
    return capsule, calls, (buf, dims, steps, m, deleter)  # the caller keeps the last item alive


@pytest.mark.parametrize("tensor, message", [
    (dict(shape=(2, -3)), "NDArray dimension must be >= 0, got -3"),
    (dict(shape=(2, 2**62)), r"would have more than 2\*\*63 - 1 bytes"),
    (dict(shape=(1,), ndim=-1), "at most 32 dimensions, got -1"),
    (dict(shape=(1,) * 40), "at most 32 dimensions, got 40"),
    (dict(shape=(2, 3), strides=(2**62, 1)), "stride 4611686018427387904 of dimension 0 reaches outside"),
    (dict(shape=(2, 3), strides=(-2**63, 1)), "reaches outside"),
    (dict(shape=(2,), dtype=(99, 32, 1)), r"invalid data type \(code 99, bits 32, lanes 1\)"),
    (dict(shape=(2,), dtype=(2, 0, 1)), r"invalid data type \(code 2, bits 0, lanes 1\)"),
    (dict(shape=(2,), dtype=(2, 32, 0)), r"invalid data type \(code 2, bits 32, lanes 0\)"),
    (dict(shape=(2,), device_type=-5), "tvmlite runs on the CPU; got a tensor on device type -5"),  # not an enum
    (dict(shape=(2,), device_type=2), "tvmlite runs on the CPU; got a tensor on device type 2"),
])
def test_absurd_dlpack_tensor_is_value_error(tensor, message):
    capsule, calls, keep = _foreign_tensor(**tensor)
    with pytest.raises(ValueError, match=message):
        tvmlite.nd.from_dlpack(_Producer(capsule))
    assert len(calls) == 1  # refused, but still handed back to its producer


def test_negative_strides_from_dlpack_are_fine():
    capsule, calls, keep = _foreign_tensor(shape=(4,), strides=(-1,))
    x = tvmlite.nd.from_dlpack(_Producer(capsule))
    assert x.shape == (4,) and x.strides == (-1,)
    del x
    gc.collect()
    assert len(calls) == 1
