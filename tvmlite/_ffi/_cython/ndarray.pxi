# ndarray.pxi: DataType, Device, NDArray, DLPack import/export and zero-copy wrapping of Python buffers.
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_RECORDS_RO
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_IsValid, PyCapsule_GetPointer, PyCapsule_SetName


cdef class DataType:
    """An element type such as ``float32``; compares equal to its name."""
    cdef DLDataType cdtype

    def __init__(self, dtype):
        if isinstance(dtype, DataType):
            self.cdtype = (<DataType>dtype).cdtype
            return
        check_call(TVMLiteDataTypeFromString(dtype_name(dtype).encode("utf-8"), &self.cdtype))

    @property
    def type_code(self):
        return self.cdtype.code

    @property
    def bits(self):
        return self.cdtype.bits

    @property
    def lanes(self):
        return self.cdtype.lanes

    def __str__(self):
        cdef TVMLiteObject* out = NULL
        cdef TVMLiteStringCell* cell
        check_call(TVMLiteDataTypeToString(self.cdtype, &out))
        cell = <TVMLiteStringCell*>object_cell(out)
        s = PyUnicode_DecodeUTF8(cell.data, cell.size, "strict")
        TVMLiteObjectDecRef(out)
        return s

    def __repr__(self):
        return f"DataType({str(self)!r})"

    def __eq__(self, other):
        return data_type_eq(self, other, DataType)

    def __hash__(self):
        return hash(str(self))

    def __reduce__(self):
        return (DataType, (str(self),))


cdef object make_data_type(DLDataType t):
    cdef DataType d = DataType.__new__(DataType)
    d.cdtype = t
    return d


cdef dict _DEVICE_NAMES = {kDLCPU: "cpu", kDLCUDA: "cuda", kDLCUDAHost: "cuda_host", kDLOpenCL: "opencl", kDLVulkan: "vulkan",
                 kDLMetal: "metal", kDLROCM: "rocm", kDLExtDev: "ext_dev", kDLOneAPI: "oneapi", kDLWebGPU: "webgpu",
                 kDLHexagon: "hexagon"}


cdef class Device:
    """A device: kind (DLPack device type) and ordinal. tvmlite computes on ``cpu(0)``."""
    cdef DLDevice cdevice

    def __cinit__(self):
        self.cdevice.device_type = kDLCPU  # even Device.__new__(Device) holds a valid device
        self.cdevice.device_id = 0

    def __init__(self, device_type, device_id=0):
        # C checks the numbers: a Device never holds a value outside DLDeviceType, so save_json/structural_hash
        # never see one.
        cdef int64_t checked_type, checked_id
        checked_type, checked_id = device_numbers(device_type, device_id)
        check_call(TVMLiteDeviceCreate(checked_type, checked_id, &self.cdevice))

    @property
    def device_type(self):
        return self.cdevice.device_type

    @property
    def device_id(self):
        return self.cdevice.device_id

    def __repr__(self):
        return f"{_DEVICE_NAMES.get(self.cdevice.device_type, 'device' + str(self.cdevice.device_type))}" \
               f"({self.cdevice.device_id})"

    def __eq__(self, other):
        if not isinstance(other, Device):
            return NotImplemented
        return (self.cdevice.device_type == (<Device>other).cdevice.device_type
                and self.cdevice.device_id == (<Device>other).cdevice.device_id)

    def __hash__(self):
        return hash((self.cdevice.device_type, self.cdevice.device_id))

    def __reduce__(self):
        return (Device, (self.cdevice.device_type, self.cdevice.device_id))

    def _dlpack_tuple(self):
        return (self.cdevice.device_type, self.cdevice.device_id)


cdef object make_device(DLDevice d):
    cdef Device dev = Device.__new__(Device)
    dev.cdevice = d
    return dev


cdef class NDArrayBase(ObjectBase):
    """Base of tvmlite.runtime.NDArray: the tensor's facts (shape, dtype, strides...) and DLPack export
    (``np.from_dlpack(x)`` shares its memory); ``numpy()`` and the repr are the runtime class's."""

    cdef inline DLTensor* _tensor(self) except NULL:
        self._checked_cell(kTVMLiteNDArray)
        return &(<TVMLiteNDArrayObject*>self.chandle).tensor

    @property
    def shape(self):
        cdef DLTensor* t = self._tensor()
        return tuple(t.shape[i] for i in range(t.ndim))

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
        cdef DLTensor* t = self._tensor()
        if t.strides == NULL:
            return None
        return tuple(t.strides[i] for i in range(t.ndim))

    @property
    def read_only(self):
        """Whether the memory must not be written (it wraps a read-only buffer)."""
        self._tensor()
        return ((<TVMLiteNDArrayObject*>self.chandle).flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0

    @property
    def data_ptr(self):
        cdef DLTensor* t = self._tensor()
        return <size_t>t.data + t.byte_offset

    def __dlpack_device__(self):
        cdef DLTensor* t = self._tensor()
        return (t.device.device_type, t.device.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export as a DLPack capsule that shares this array's memory (the capsule keeps the array alive)."""
        cdef DLManagedTensor* legacy
        cdef DLManagedTensorVersioned* versioned
        self._tensor()  # checks the handle
        if dlpack_export_version(self.__dlpack_device__(), stream, max_version, dl_device, copy):
            check_call(TVMLiteNDArrayToDLPackVersioned(self.chandle, &versioned))
            return PyCapsule_New(versioned, b"dltensor_versioned", _versioned_capsule_destructor)
        check_call(TVMLiteNDArrayToDLPack(self.chandle, &legacy))
        return PyCapsule_New(legacy, b"dltensor", _legacy_capsule_destructor)


cdef extern from "dlpack_capsule.h":
    # C, shared with the ctypes backend: they set the pending exception aside around the deleter.
    void _legacy_capsule_destructor "TVMLiteLegacyCapsuleDestructor"(object capsule) noexcept
    void _versioned_capsule_destructor "TVMLiteVersionedCapsuleDestructor"(object capsule) noexcept


cdef TVMLiteObject* ndarray_handle_from_dlpack(object obj) except NULL:
    """Consume obj.__dlpack__() (1.0 when the producer supports it) into a new NDArray handle."""
    cdef TVMLiteObject* out = NULL
    cdef void* p
    try:
        capsule = obj.__dlpack__(max_version=(1, 0))
    except TypeError:
        capsule = obj.__dlpack__()
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        p = PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        PyCapsule_SetName(capsule, b"used_dltensor_versioned")
        check_call(TVMLiteNDArrayFromDLPackVersioned(<DLManagedTensorVersioned*>p, &out))
    elif PyCapsule_IsValid(capsule, b"dltensor"):
        p = PyCapsule_GetPointer(capsule, b"dltensor")
        PyCapsule_SetName(capsule, b"used_dltensor")
        check_call(TVMLiteNDArrayFromDLPack(<DLManagedTensor*>p, &out))
    else:
        raise TypeError(f"{type(obj).__name__}.__dlpack__() did not return a DLPack capsule")
    return out


cdef struct BufferCtx:
    Py_buffer view


cdef void _release_buffer(void* p) noexcept nogil:
    cdef GILState state
    cdef BufferCtx* ctx = <BufferCtx*>p
    if Py_IsInitialized():
        state = gil_ensure()
        buffer_release(&ctx.view)
        gil_release(state)
    free(ctx)


cdef int _dtype_from_format(const char* fmt, Py_ssize_t itemsize, DLDataType* out) except -1:
    """struct-module format of a buffer -> DLDataType (native byte order only)."""
    cdef char c
    if fmt == NULL:
        fmt = b"B"
    if fmt[0] in (b"@", b"=", b"<"):
        fmt += 1
    c = fmt[0]
    if c == 0 or fmt[1] != 0:
        raise TypeError(f"tvmlite cannot wrap a buffer of format {fmt!r}")
    out.lanes = 1
    out.bits = <uint8_t>(itemsize * 8)
    if c in (b"b", b"h", b"i", b"l", b"q", b"n"):
        out.code = kDLInt
    elif c in (b"B", b"H", b"I", b"L", b"Q", b"N"):
        out.code = kDLUInt
    elif c in (b"e", b"f", b"d"):
        out.code = kDLFloat
    elif c == b"?":
        out.code = kDLBool
    else:
        raise TypeError(f"tvmlite cannot wrap a buffer of format {fmt!r}")
    return 0


cdef TVMLiteObject* ndarray_handle_from_buffer(object obj) except NULL:
    """A new NDArray handle sharing obj's memory; the buffer is held until the NDArray dies."""
    learn_numpy_type(obj)
    cdef BufferCtx* ctx = <BufferCtx*>malloc(sizeof(BufferCtx))
    cdef DLTensor t
    cdef int64_t strides[kTVMLiteMaxNDim]
    cdef int64_t shape[kTVMLiteMaxNDim]
    cdef TVMLiteObject* out = NULL
    cdef int i
    cdef bint compact = True
    cdef Py_ssize_t expected
    cdef Py_ssize_t stride
    if ctx == NULL:
        raise MemoryError()
    if PyObject_GetBuffer(obj, &ctx.view, PyBUF_RECORDS_RO) != 0:
        free(ctx)
        return NULL
    try:
        if ctx.view.ndim > kTVMLiteMaxNDim:
            raise ValueError(f"tvmlite supports at most {kTVMLiteMaxNDim} dimensions, got {ctx.view.ndim}")
        _dtype_from_format(ctx.view.format, ctx.view.itemsize, &t.dtype)
        expected = ctx.view.itemsize
        if ctx.view.ndim > 0 and ctx.view.shape == NULL:
            raise ValueError(f"tvmlite cannot wrap a buffer of {type(obj).__name__} without a shape")
        for i in range(ctx.view.ndim - 1, -1, -1):
            shape[i] = ctx.view.shape[i]
            # An exporter may leave strides NULL even when asked for them (numpy datetime64 scalars do): by the
            # buffer protocol that means C-contiguous.
            stride = ctx.view.strides[i] if ctx.view.strides != NULL else expected
            if stride % ctx.view.itemsize != 0:
                raise ValueError("tvmlite cannot wrap a buffer whose strides are not a multiple of its item size")
            strides[i] = stride // ctx.view.itemsize
            if shape[i] != 1 and stride != expected:
                compact = False
            expected *= shape[i]
    except BaseException:
        PyBuffer_Release(&ctx.view)
        free(ctx)
        raise
    t.data = ctx.view.buf
    t.device.device_type = kDLCPU
    t.device.device_id = 0
    t.ndim = ctx.view.ndim
    t.shape = shape
    t.strides = NULL if compact else strides
    t.byte_offset = 0
    # From here the NDArray owns ctx: even on failure TVMLiteNDArrayFromExternal calls _release_buffer.
    check_call(TVMLiteNDArrayFromExternal(&t, DLPACK_FLAG_BITMASK_READ_ONLY if ctx.view.readonly else 0, ctx,
                                          _release_buffer, &out))
    return out


cdef TVMLiteObject* ndarray_handle_from_python(object obj) except NULL:
    if isinstance(obj, NDArrayBase):
        TVMLiteObjectIncRef((<NDArrayBase>obj).chandle)
        return (<NDArrayBase>obj).chandle
    if PyObject_CheckBuffer(obj):
        return ndarray_handle_from_buffer(obj)
    if hasattr(obj, "__dlpack__"):
        return ndarray_handle_from_dlpack(obj)
    raise TypeError(f"cannot convert {type(obj).__name__} to an NDArray")


# ---------------------------------------------------------------------------------------------------------------
# numpy arrays as borrowed tensor views (see TVMLiteTensorView in c_api.h and numpy_view.h)
# ---------------------------------------------------------------------------------------------------------------
cdef extern from "numpy_view.h":
    bint TVMLiteNumpyFillView(object arr, TVMLiteTensorView* view)
    void* TVMLiteNumpyData(object arr)
    int TVMLiteNumpyNDim(object arr)
    int64_t TVMLiteNumpyDim(object arr, int i)
    int TVMLiteNumpyTypeNum(object arr)

# numpy.ndarray once seen and checked (NULL until then, or forever when the struct mirror does not match).
cdef void* _np_ndarray_type = NULL
cdef bint _np_checked = False


cdef void learn_numpy_type(object arr):
    """Remember numpy.ndarray after checking numpy_view.h's struct mirror against this array's own account."""
    global _np_ndarray_type, _np_checked
    if _np_checked:
        return
    t = type(arr)
    if t.__name__ != "ndarray" or t.__module__ != "numpy":
        return
    _np_checked = True
    try:
        iface = arr.__array_interface__
        ok = (iface["data"][0] == <size_t>TVMLiteNumpyData(arr) and TVMLiteNumpyNDim(arr) == arr.ndim
              and all(TVMLiteNumpyDim(arr, i) == arr.shape[i] for i in range(arr.ndim))
              and TVMLiteNumpyTypeNum(arr) == arr.dtype.num)
    except Exception:
        ok = False
    if ok:
        _np_ndarray_type = <void*>t


cdef int _retain_numpy_view(TVMLiteTensorView* view, TVMLiteObject** out) noexcept with gil:
    """A callee keeps a borrowed numpy argument: give it an NDArray that holds the numpy array."""
    try:
        out[0] = ndarray_handle_from_buffer(<object>view.owner)
        return 0
    except BaseException as exc:
        set_raised_from_py_exception(exc)
        return -1


cdef inline bint numpy_view_arg(object arg, TVMLiteTensorView* view, TVMLiteAny* out):
    """Pass a plain numpy array as a borrowed tensor view (no allocation). False: take the general path."""
    if <void*>Py_TYPE(arg) != _np_ndarray_type or not TVMLiteNumpyFillView(arg, view):
        return False
    view.retain = _retain_numpy_view
    out.type_index = kTVMLiteTensorView
    out.reserved = 0
    out.v_ptr = view
    return True


def from_dlpack(obj):
    """Wrap any DLPack producer (numpy, PyTorch, ...) or Python buffer as an NDArray sharing its memory."""
    if isinstance(obj, NDArrayBase):
        return obj
    if hasattr(obj, "__dlpack__"):
        return make_object(ndarray_handle_from_dlpack(obj))
    if PyObject_CheckBuffer(obj):
        return make_object(ndarray_handle_from_buffer(obj))
    raise TypeError(f"from_dlpack: {type(obj).__name__} supports neither __dlpack__ nor the buffer protocol")


def ndarray_empty(shape, dtype, Device device=None):
    """An uninitialised compact NDArray (64-byte aligned)."""
    cdef int64_t dims[kTVMLiteMaxNDim]
    cdef DLDevice dev
    cdef TVMLiteObject* out = NULL
    cdef DataType dt = dtype if isinstance(dtype, DataType) else DataType(dtype)
    shape = shape_dims(shape, "nd.empty")
    if len(shape) > kTVMLiteMaxNDim:
        raise ValueError(f"tvmlite supports at most {kTVMLiteMaxNDim} dimensions, got {len(shape)}")
    for i, d in enumerate(shape):
        dims[i] = d
    dev.device_type = kDLCPU if device is None else device.cdevice.device_type
    dev.device_id = 0 if device is None else device.cdevice.device_id
    check_call(TVMLiteNDArrayEmpty(dims, len(shape), dt.cdtype, dev, &out))
    return make_object(out)
