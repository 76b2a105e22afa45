"""DataType, Device, NDArray, DLPack import/export and zero-copy wrapping of Python buffers (twin of ndarray.pxi)."""
import ctypes
from ctypes import POINTER, Structure, byref, c_char_p, c_int, c_int32, c_int64, c_ssize_t, c_void_p

from .base import (DLPACK_FLAG_BITMASK_READ_ONLY, LIB, NDARRAY_FLAGS_OFFSET, NDARRAY_TENSOR_OFFSET, RELEASE_HELD_ADDR,
                   TYPE_INDEX_OFFSET, DLDataType, DLDevice, DLTensor, DLManagedTensor, DLManagedTensorVersioned,
                   ObjectDecRef, as_c_int, check_call, hold, kTVMLiteMaxNDim, kTVMLiteNDArray, leak,
                   string_cell_bytes)
from .base import (kDLBool, kDLCPU, kDLCUDA, kDLCUDAHost, kDLExtDev, kDLFloat, kDLHexagon, kDLInt, kDLMetal,
                   kDLOneAPI, kDLOpenCL, kDLROCM, kDLUInt, kDLVulkan, kDLWebGPU)
from . import _capsule as _capsule_destructors
from ..values import data_type_eq, device_numbers, dlpack_export_version, dtype_name, shape_dims
from .object import ObjectBase, make_object, new_reference, set_default_class

MAX_NDIM = kTVMLiteMaxNDim

# ---------------------------------------------------------------------------------------------------------------
# CPython API used here. Private prototypes: the shared ctypes.pythonapi attributes are left untouched.
# ---------------------------------------------------------------------------------------------------------------


class Py_buffer(Structure):
    _fields_ = [("buf", c_void_p), ("obj", c_void_p), ("len", c_ssize_t), ("itemsize", c_ssize_t),
                ("readonly", c_int), ("ndim", c_int), ("format", c_char_p), ("shape", POINTER(c_ssize_t)),
                ("strides", POINTER(c_ssize_t)), ("suboffsets", POINTER(c_ssize_t)), ("internal", c_void_p)]


def _pyapi(name, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


check_buffer = _pyapi("PyObject_CheckBuffer", c_int, ctypes.py_object)
_GetBuffer = _pyapi("PyObject_GetBuffer", c_int, ctypes.py_object, POINTER(Py_buffer), c_int)
_ReleaseBuffer = _pyapi("PyBuffer_Release", None, POINTER(Py_buffer))
_CapsuleNew = _pyapi("PyCapsule_New", ctypes.py_object, c_void_p, c_void_p, c_void_p)
_CapsuleIsValid = _pyapi("PyCapsule_IsValid", c_int, ctypes.py_object, c_char_p)
_CapsuleGetPointer = _pyapi("PyCapsule_GetPointer", c_void_p, ctypes.py_object, c_char_p)
_CapsuleSetName = _pyapi("PyCapsule_SetName", c_int, ctypes.py_object, c_void_p)
PyBUF_RECORDS_RO = 0x1C  # PyBUF_STRIDES | PyBUF_FORMAT


def _static_cstr(s):
    """A C string that lives for the process: capsule names must outlive every capsule."""
    return ctypes.addressof(leak(ctypes.create_string_buffer(s)))


_NAME_LEGACY = _static_cstr(b"dltensor")
_NAME_VERSIONED = _static_cstr(b"dltensor_versioned")
_NAME_USED_LEGACY = _static_cstr(b"used_dltensor")
_NAME_USED_VERSIONED = _static_cstr(b"used_dltensor_versioned")
_DLPackDeleter = ctypes.CFUNCTYPE(None, c_void_p)
_LEGACY_DELETER_OFFSET = DLManagedTensor.deleter.offset
_VERSIONED_DELETER_OFFSET = DLManagedTensorVersioned.deleter.offset


# ---------------------------------------------------------------------------------------------------------------
# DataType and Device
# ---------------------------------------------------------------------------------------------------------------
_DTYPE_STR = {}  # (code, bits, lanes) -> canonical name; names never change


class DataType:
    """An element type such as ``float32``; compares equal to its name."""
    __slots__ = ("_cdtype",)

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        self._cdtype = DLDataType()
        return self

    def __init__(self, dtype):
        if isinstance(dtype, DataType):
            self._cdtype = DLDataType(dtype._cdtype.code, dtype._cdtype.bits, dtype._cdtype.lanes)
            return
        check_call(LIB.TVMLiteDataTypeFromString(dtype_name(dtype).encode("utf-8"), byref(self._cdtype)))

    @property
    def type_code(self):
        return self._cdtype.code

    @property
    def bits(self):
        return self._cdtype.bits

    @property
    def lanes(self):
        return self._cdtype.lanes

    def _key(self):
        t = self._cdtype
        return (t.code, t.bits, t.lanes)

    def __str__(self):
        key = self._key()
        s = _DTYPE_STR.get(key)
        if s is None:
            out = c_void_p()
            check_call(LIB.TVMLiteDataTypeToString(self._cdtype, byref(out)))
            try:
                s = string_cell_bytes(out.value).decode("utf-8")
            finally:
                ObjectDecRef(out.value)
            _DTYPE_STR[key] = s
        return s

    def __repr__(self):
        return f"DataType({str(self)!r})"

    def __eq__(self, other):
        return data_type_eq(self, other, DataType)

    def __hash__(self):
        return hash(str(self))

    def __reduce__(self):
        return (DataType, (str(self),))


def make_data_type(t):
    """A DataType holding a copy of t (a DLDataType, possibly inside memory that is about to change)."""
    d = object.__new__(DataType)
    d._cdtype = DLDataType(t.code, t.bits, t.lanes)
    return d


_DEVICE_NAMES = {kDLCPU: "cpu", kDLCUDA: "cuda", kDLCUDAHost: "cuda_host", kDLOpenCL: "opencl", kDLVulkan: "vulkan",
                 kDLMetal: "metal", kDLROCM: "rocm", kDLExtDev: "ext_dev", kDLOneAPI: "oneapi", kDLWebGPU: "webgpu",
                 kDLHexagon: "hexagon"}


class Device:
    """A device: kind (DLPack device type) and ordinal. tvmlite computes on ``cpu(0)``."""
    __slots__ = ("_cdevice",)

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        self._cdevice = DLDevice(kDLCPU, 0)  # even Device.__new__(Device) holds a valid device
        return self

    def __init__(self, device_type, device_id=0):
        # C checks the numbers: a Device never holds a value outside DLDeviceType, so save_json/structural_hash
        # never see one.
        dev = DLDevice()
        check_call(LIB.TVMLiteDeviceCreate(*device_numbers(device_type, device_id), byref(dev)))
        self._cdevice = dev

    @property
    def device_type(self):
        return self._cdevice.device_type

    @property
    def device_id(self):
        return self._cdevice.device_id

    def __repr__(self):
        d = self._cdevice
        return f"{_DEVICE_NAMES.get(d.device_type, 'device' + str(d.device_type))}({d.device_id})"

    def __eq__(self, other):
        if not isinstance(other, Device):
            return NotImplemented
        return self._dlpack_tuple() == other._dlpack_tuple()

    def __hash__(self):
        return hash(self._dlpack_tuple())

    def __reduce__(self):
        return (Device, self._dlpack_tuple())

    def _dlpack_tuple(self):
        return (self._cdevice.device_type, self._cdevice.device_id)


def make_device(d):
    dev = object.__new__(Device)
    dev._cdevice = DLDevice(d.device_type, d.device_id)
    return dev


# ---------------------------------------------------------------------------------------------------------------
# NDArray
# ---------------------------------------------------------------------------------------------------------------


class NDArrayBase(ObjectBase):
    """Base of tvmlite.runtime.NDArray: the tensor's facts (shape, dtype, strides...) and DLPack export
    (``np.from_dlpack(x)`` shares its memory); ``numpy()`` and the repr are the runtime class's."""
    __slots__ = ()

    def _tensor(self):
        h = self.chandle
        if not h:
            raise ValueError("NDArray handle is null")
        tindex = c_int32.from_address(h + TYPE_INDEX_OFFSET).value
        if tindex != kTVMLiteNDArray and not LIB.TVMLiteTypeIsInstance(tindex, kTVMLiteNDArray):
            raise TypeError(f"{type(self).__name__} wraps an object of type {self.type_key}, not runtime.NDArray")
        return DLTensor.from_address(h + NDARRAY_TENSOR_OFFSET)

    @property
    def shape(self):
        t = self._tensor()
        return tuple(t.shape[:t.ndim])

    @property
    def ndim(self):
        return self._tensor().ndim

    @property
    def dtype(self):
        """Element type name, e.g. ``"float32"``."""
        return str(make_data_type(self._tensor().dtype))

    @property
    def device(self):
        return make_device(self._tensor().device)

    @property
    def strides(self):
        """Strides in elements, or None when compact row-major."""
        t = self._tensor()
        return tuple(t.strides[:t.ndim]) if t.strides else None

    @property
    def read_only(self):
        """Whether the memory must not be written (it wraps a read-only buffer)."""
        self._tensor()  # checks the handle
        flags = ctypes.c_uint64.from_address(self.chandle + NDARRAY_FLAGS_OFFSET).value
        return bool(flags & DLPACK_FLAG_BITMASK_READ_ONLY)

    @property
    def data_ptr(self):
        t = self._tensor()
        return (t.data or 0) + t.byte_offset

    def __dlpack_device__(self):
        d = self._tensor().device
        return (d.device_type, d.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export as a DLPack capsule that shares this array's memory (the capsule keeps the array alive)."""
        out = c_void_p()
        if dlpack_export_version(self.__dlpack_device__(), stream, max_version, dl_device, copy):
            check_call(LIB.TVMLiteNDArrayToDLPackVersioned(self.chandle, byref(out)))
            return _capsule(out.value, _NAME_VERSIONED, _VERSIONED_DESTRUCTOR_ADDR, _VERSIONED_DELETER_OFFSET)
        check_call(LIB.TVMLiteNDArrayToDLPack(self.chandle, byref(out)))
        return _capsule(out.value, _NAME_LEGACY, _LEGACY_DESTRUCTOR_ADDR, _LEGACY_DELETER_OFFSET)


set_default_class(kTVMLiteNDArray, NDArrayBase)


def _call_dlpack_deleter(managed, deleter_offset):
    fn = ctypes.c_size_t.from_address(managed + deleter_offset).value
    if fn:
        _DLPackDeleter(fn)(managed)


def _capsule(managed, name, destructor, deleter_offset):
    try:
        return _CapsuleNew(managed, name, destructor)
    except BaseException:
        _call_dlpack_deleter(managed, deleter_offset)
        raise


# The capsule destructors are C (tvmlite/_ffi/_cython/dlpack_capsule.h): a ctypes callback can neither run with a
# consumer's exception pending nor hand it back.
_LEGACY_DESTRUCTOR_ADDR = _capsule_destructors.LEGACY_DESTRUCTOR
_VERSIONED_DESTRUCTOR_ADDR = _capsule_destructors.VERSIONED_DESTRUCTOR


def ndarray_handle_from_dlpack(obj):
    """Consume obj.__dlpack__() (1.0 when the producer supports it) into a new NDArray handle."""
    out = c_void_p()
    try:
        capsule = obj.__dlpack__(max_version=(1, 0))
    except TypeError:
        capsule = obj.__dlpack__()
    if _CapsuleIsValid(capsule, b"dltensor_versioned"):
        p = _CapsuleGetPointer(capsule, b"dltensor_versioned")
        _CapsuleSetName(capsule, _NAME_USED_VERSIONED)
        check_call(LIB.TVMLiteNDArrayFromDLPackVersioned(p, byref(out)))
    elif _CapsuleIsValid(capsule, b"dltensor"):
        p = _CapsuleGetPointer(capsule, b"dltensor")
        _CapsuleSetName(capsule, _NAME_USED_LEGACY)
        check_call(LIB.TVMLiteNDArrayFromDLPack(p, byref(out)))
    else:
        raise TypeError(f"{type(obj).__name__}.__dlpack__() did not return a DLPack capsule")
    return out.value


class _HeldBuffer:
    """A Py_buffer acquired from an exporter, released when the NDArray wrapping it dies (and drops this)."""
    __slots__ = ("view", "acquired")

    def __init__(self):
        self.view = Py_buffer()
        self.acquired = False

    def __del__(self, _release=_ReleaseBuffer):
        if self.acquired:
            self.acquired = False
            _release(byref(self.view))


_FORMAT_CODES = {}
for _chars, _code in (("bhilqn", kDLInt), ("BHILQN", kDLUInt), ("efd", kDLFloat), ("?", kDLBool)):
    for _c in _chars:
        _FORMAT_CODES[_c] = _code
del _chars, _code, _c


def _dtype_from_format(fmt, itemsize):
    """struct-module format of a buffer -> DLDataType (native byte order only)."""
    text = (fmt if fmt is not None else b"B").decode("latin-1")
    stripped = text[1:] if text[:1] in ("@", "=", "<") else text
    code = _FORMAT_CODES.get(stripped) if len(stripped) == 1 else None
    if code is None:
        raise TypeError(f"tvmlite cannot wrap a buffer of format {stripped.encode('latin-1')!r}")
    return DLDataType(code, itemsize * 8, 1)


def ndarray_handle_from_buffer(obj):
    """A new NDArray handle sharing obj's memory; the buffer is held until the NDArray dies."""
    holder = _HeldBuffer()
    view = holder.view
    _GetBuffer(obj, byref(view), PyBUF_RECORDS_RO)  # raises the exporter's error on failure
    holder.acquired = True
    ndim = view.ndim
    if ndim > MAX_NDIM:
        raise ValueError(f"tvmlite supports at most {MAX_NDIM} dimensions, got {ndim}")
    t = DLTensor()
    t.dtype = _dtype_from_format(view.format, view.itemsize)
    shape = (c_int64 * max(ndim, 1))()
    strides = (c_int64 * max(ndim, 1))()
    compact = True
    expected = view.itemsize
    if ndim > 0 and not view.shape:
        raise ValueError(f"tvmlite cannot wrap a buffer of {type(obj).__name__} without a shape")
    for i in range(ndim - 1, -1, -1):
        shape[i] = view.shape[i]
        # An exporter may leave strides NULL even when asked for them (numpy datetime64 scalars do): by the buffer
        # protocol that means C-contiguous.
        stride = view.strides[i] if view.strides else expected
        if stride % view.itemsize != 0:
            raise ValueError("tvmlite cannot wrap a buffer whose strides are not a multiple of its item size")
        strides[i] = stride // view.itemsize
        if shape[i] != 1 and stride != expected:
            compact = False
        expected *= shape[i]
    t.data = view.buf
    t.device = DLDevice(kDLCPU, 0)
    t.ndim = ndim
    t.shape = ctypes.cast(shape, POINTER(c_int64))
    t.strides = None if compact else ctypes.cast(strides, POINTER(c_int64))
    t.byte_offset = 0
    out = c_void_p()
    # From here the NDArray owns the holder: even on failure TVMLiteNDArrayFromExternal calls the deleter.
    flags = DLPACK_FLAG_BITMASK_READ_ONLY if view.readonly else 0  # read-only memory stays read-only
    check_call(LIB.TVMLiteNDArrayFromExternal(byref(t), flags, hold(holder), RELEASE_HELD_ADDR, byref(out)))
    return out.value


def ndarray_handle_from_python(obj):
    if isinstance(obj, NDArrayBase):
        return new_reference(obj, "NDArray handle is null")
    if check_buffer(obj):
        return ndarray_handle_from_buffer(obj)
    if hasattr(obj, "__dlpack__"):
        return ndarray_handle_from_dlpack(obj)
    raise TypeError(f"cannot convert {type(obj).__name__} to an NDArray")


def from_dlpack(obj):
    """Wrap any DLPack producer (numpy, PyTorch, ...) or Python buffer as an NDArray sharing its memory."""
    if isinstance(obj, NDArrayBase):
        return obj
    if hasattr(obj, "__dlpack__"):
        return make_object(ndarray_handle_from_dlpack(obj))
    if check_buffer(obj):
        return make_object(ndarray_handle_from_buffer(obj))
    raise TypeError(f"from_dlpack: {type(obj).__name__} supports neither __dlpack__ nor the buffer protocol")


def ndarray_empty(shape, dtype, device=None):
    """An uninitialised compact NDArray (64-byte aligned)."""
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"Argument 'device' has incorrect type (expected Device, got {type(device).__name__})")
    dt = dtype if isinstance(dtype, DataType) else DataType(dtype)
    shape = shape_dims(shape, "nd.empty")
    if len(shape) > MAX_NDIM:
        raise ValueError(f"tvmlite supports at most {MAX_NDIM} dimensions, got {len(shape)}")
    dims = (c_int64 * max(len(shape), 1))(*[as_c_int(d, 64) for d in shape])
    dev = DLDevice(kDLCPU, 0) if device is None else DLDevice(device.device_type, device.device_id)
    out = c_void_p()
    check_call(LIB.TVMLiteNDArrayEmpty(dims, len(shape), dt._cdtype, dev, byref(out)))
    return make_object(out.value)
