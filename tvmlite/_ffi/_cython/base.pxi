# base.pxi: declarations of the C API (csrc/include/tvmlite/c_api.h) and error translation.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memchr
from libc.stdlib cimport malloc, free
from cpython.ref cimport PyObject, Py_INCREF, Py_DECREF

# Callable without the GIL: deleters run on whatever thread drops the last reference.
cdef extern from "Python.h" nogil:
    int Py_IsInitialized()
    ctypedef int GILState "PyGILState_STATE"
    GILState gil_ensure "PyGILState_Ensure"()
    void gil_release "PyGILState_Release"(GILState state)
    void py_decref "Py_DecRef"(PyObject* o)
    void buffer_release "PyBuffer_Release"(Py_buffer* view)

cdef extern from "Python.h":
    # Vectorcall (PEP 590), used to give Function instances a tuple-free call path.
    ctypedef PyObject* (*vectorcallfunc)(PyObject* callable, PyObject** args, size_t nargsf, PyObject* kwnames)
    Py_ssize_t PyVectorcall_NARGS(size_t nargsf)
    PyObject** PySequence_Fast_ITEMS(object o)
    enum: Py_TPFLAGS_HAVE_VECTORCALL
    ctypedef struct PySequenceMethods:
        void* sq_length
    ctypedef struct PyTypeObject:
        Py_ssize_t tp_vectorcall_offset
        unsigned long tp_flags
        PySequenceMethods* tp_as_sequence
    PyTypeObject* Py_TYPE(object o)
    const char* PyUnicode_AsUTF8AndSize(object s, Py_ssize_t* size) except NULL
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    object PyBytes_FromStringAndSize(const char* s, Py_ssize_t size)
    long long PyLong_AsLongLongAndOverflow(object o, int* overflow) except? -1
    bint PyLong_CheckExact(object o)
    bint PyFloat_CheckExact(object o)
    bint PyUnicode_Check(object o)
    bint PyBool_Check(object o)

cdef extern from "tvmlite/c_api.h" nogil:
    ctypedef struct DLDataType:
        uint8_t code
        uint8_t bits
        uint16_t lanes
    ctypedef struct DLDevice:
        int device_type
        int32_t device_id
    ctypedef struct DLTensor:
        void* data
        DLDevice device
        int32_t ndim
        DLDataType dtype
        int64_t* shape
        int64_t* strides
        uint64_t byte_offset
    ctypedef struct DLManagedTensor:
        DLTensor dl_tensor
        void* manager_ctx
        void (*deleter)(DLManagedTensor*)
    ctypedef struct DLPackVersion:
        uint32_t major
        uint32_t minor
    ctypedef struct DLManagedTensorVersioned:
        DLPackVersion version
        void* manager_ctx
        void (*deleter)(DLManagedTensorVersioned*)
        uint64_t flags
        DLTensor dl_tensor

    enum:
        kDLCPU
        kDLCUDA
        kDLCUDAHost
        kDLOpenCL
        kDLVulkan
        kDLMetal
        kDLROCM
        kDLExtDev
        kDLOneAPI
        kDLWebGPU
        kDLHexagon
        DLPACK_FLAG_BITMASK_READ_ONLY
        kDLInt
        kDLUInt
        kDLFloat
        kDLBfloat
        kDLBool
        kDLOpaqueHandle
        kDLComplex
        kTVMLiteNone
        kTVMLiteInt
        kTVMLiteBool
        kTVMLiteFloat
        kTVMLiteOpaquePtr
        kTVMLiteDataType
        kTVMLiteDevice
        kTVMLiteDLTensorPtr
        kTVMLiteRawStr
        kTVMLiteByteArrayPtr
        kTVMLiteTensorView
        kTVMLiteStaticObjectBegin
        kTVMLiteObject
        kTVMLiteString
        kTVMLiteBytes
        kTVMLiteError
        kTVMLiteFunction
        kTVMLiteArray
        kTVMLiteMap
        kTVMLiteShape
        kTVMLiteNDArray
        kTVMLiteModule
        kTVMLiteDynObjectBegin
        kTVMLiteMaxNDim
        kTVMLiteFunctionLongRunning
        kTVMLiteFieldWritable
        kTVMLiteFieldOptional

    ctypedef struct TVMLiteObject:
        int64_t ref_count
        int32_t type_index
        uint32_t reserved
        void (*deleter)(TVMLiteObject*)
    ctypedef TVMLiteObject* TVMLiteObjectHandle

    ctypedef struct TVMLiteByteArray:
        const char* data
        int64_t size

    ctypedef struct TVMLiteAny:
        int32_t type_index
        uint32_t reserved
        int64_t v_int64
        double v_float64
        void* v_ptr
        const char* v_c_str
        TVMLiteObject* v_obj
        DLDataType v_dtype
        DLDevice v_device

    ctypedef struct TVMLiteStringCell:
        const char* data
        int64_t size
    ctypedef struct TVMLiteSeqCell:
        TVMLiteAny* data
        int64_t size
        int64_t capacity
    ctypedef struct TVMLiteShapeCell:
        const int64_t* data
        int64_t size
    ctypedef struct TVMLiteTensorView:
        DLTensor tensor
        int (*retain)(TVMLiteTensorView* self, TVMLiteObject** out)
        void* owner
    ctypedef struct TVMLiteNDArrayObject:
        TVMLiteObject header
        DLTensor tensor
        uint64_t flags
    ctypedef struct TVMLiteErrorCell:
        TVMLiteByteArray kind
        TVMLiteByteArray message
        TVMLiteByteArray backtrace
        void* payload
        void (*payload_deleter)(void*)

    ctypedef int (*TVMLiteFieldGetter)(void* field_addr, TVMLiteAny* out)
    ctypedef int (*TVMLiteFieldSetter)(void* field_addr, const TVMLiteAny* value)
    ctypedef struct TVMLiteFieldInfo:
        TVMLiteByteArray name
        TVMLiteByteArray type_str
        int64_t offset
        int32_t static_type_index
        int32_t flags
        TVMLiteFieldGetter getter
        TVMLiteFieldSetter setter
    ctypedef struct TVMLiteTypeInfo:
        int32_t type_index
        int32_t type_depth
        TVMLiteByteArray type_key
        const int32_t* ancestors
        int32_t num_fields
        const TVMLiteFieldInfo* fields

    ctypedef int (*TVMLiteSafeCall)(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result)
    ctypedef struct TVMLiteFunctionCell:
        TVMLiteSafeCall safe_call
        int32_t flags
        void* resource

    void TVMLiteObjectIncRef(TVMLiteObjectHandle h)
    void TVMLiteObjectDecRef(TVMLiteObjectHandle h)
    int64_t TVMLiteObjectLiveCount()
    int TVMLiteAnyViewToOwned(const TVMLiteAny* view, TVMLiteAny* out)
    void TVMLiteAnyRelease(TVMLiteAny* value)

    int TVMLiteTypeKeyToIndex(const char* type_key, int32_t* out)
    const TVMLiteTypeInfo* TVMLiteGetTypeInfo(int32_t type_index)
    int TVMLiteTypeIsInstance(int32_t derived_index, int32_t base_index)
    ctypedef struct TVMLiteDynFieldSpec:
        TVMLiteByteArray name
        TVMLiteByteArray type_str
        int32_t static_type_index
        int32_t flags
    enum: kTVMLiteDynFieldSelf
    int TVMLiteTypeDefineDynamic(const char* type_key, int32_t parent_type_index, const TVMLiteDynFieldSpec* fields,
                                 int32_t num_fields, int32_t* out)
    int TVMLiteTypeIsDynamic(int32_t type_index)
    int TVMLiteObjectSetField(TVMLiteObjectHandle obj, const TVMLiteFieldInfo* field, const TVMLiteAny* value)
    int TVMLiteDynObjectCreate(int32_t type_index, const TVMLiteAny* values, int32_t num_values,
                               TVMLiteObjectHandle* out)

    int TVMLiteErrorCreate(const char* kind, const char* message, const char* backtrace, TVMLiteObjectHandle* out)
    void TVMLiteErrorSetPayload(TVMLiteObjectHandle error, void* payload, void (*payload_deleter)(void*))
    void TVMLiteErrorSetRaised(TVMLiteObjectHandle error)
    void TVMLiteErrorSetRaisedFromCStr(const char* kind, const char* message)
    void TVMLiteErrorMoveFromRaised(TVMLiteObjectHandle* out)

    int TVMLiteFunctionCall(TVMLiteObjectHandle func, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result)
    int TVMLiteFunctionCreate(void* resource, TVMLiteSafeCall safe_call, void (*deleter)(void*),
                              TVMLiteObjectHandle* out)
    void* TVMLiteFunctionGetResource(TVMLiteObjectHandle func)
    int TVMLiteFunctionSetGlobal(const char* name, TVMLiteObjectHandle func, int can_override)
    int TVMLiteFunctionGetGlobal(const char* name, TVMLiteObjectHandle* out)
    int TVMLiteFunctionRemoveGlobal(const char* name)
    int TVMLiteFunctionListGlobalNames(TVMLiteObjectHandle* out)

    int TVMLiteStringCreate(int32_t type_index, const char* data, int64_t size, TVMLiteObjectHandle* out)
    int TVMLiteArrayCreate(const TVMLiteAny* items, int64_t num_items, TVMLiteObjectHandle* out)
    int TVMLiteMapCreate(const TVMLiteAny* kv, int64_t num_pairs, TVMLiteObjectHandle* out)
    int64_t TVMLiteMapSize(TVMLiteObjectHandle map)
    int TVMLiteMapGet(TVMLiteObjectHandle map, const TVMLiteAny* key, TVMLiteAny* out)
    int TVMLiteMapItemAt(TVMLiteObjectHandle map, int64_t index, TVMLiteAny* key, TVMLiteAny* value)
    int TVMLiteShapeCreate(const int64_t* dims, int64_t ndim, TVMLiteObjectHandle* out)

    int TVMLiteNDArrayEmpty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device,
                            TVMLiteObjectHandle* out)
    int TVMLiteNDArrayFromExternal(const DLTensor* tensor, uint64_t flags, void* manager_ctx, void (*deleter)(void*),
                                   TVMLiteObjectHandle* out)
    int TVMLiteNDArrayFromDLPack(DLManagedTensor* managed, TVMLiteObjectHandle* out)
    int TVMLiteNDArrayFromDLPackVersioned(DLManagedTensorVersioned* managed, TVMLiteObjectHandle* out)
    int TVMLiteNDArrayToDLPack(TVMLiteObjectHandle array, DLManagedTensor** out)
    int TVMLiteNDArrayToDLPackVersioned(TVMLiteObjectHandle array, DLManagedTensorVersioned** out)

    int TVMLiteDataTypeFromString(const char* s, DLDataType* out)
    int TVMLiteDataTypeToString(DLDataType dtype, TVMLiteObjectHandle* out)
    int TVMLiteDeviceCreate(int64_t device_type, int64_t device_id, DLDevice* out)


cdef extern from *:
    int64_t __atomic_fetch_sub(int64_t* ptr, int64_t val, int order) nogil
    enum: __ATOMIC_RELEASE


cdef inline void* object_cell(TVMLiteObject* h) noexcept nogil:
    """The C cell that follows an object's header (String, Array, Function, Error...)."""
    return <void*>((<char*>h) + sizeof(TVMLiteObject))


cdef inline str byte_array_str(TVMLiteByteArray b):
    return PyUnicode_DecodeUTF8(b.data, b.size, "replace")


cdef object _import_from(str module, str name):
    """A name from a Python module, kept in a C global: the core's module namespace exports only its own API."""
    return getattr(__import__(module, fromlist=[name]), name)


# Conversion rules shared with the ctypes backend (tvmlite/_ffi/values.py).
cdef object c_name = _import_from("tvmlite._ffi.values", "c_name")
cdef object numpy_scalar_value = _import_from("tvmlite._ffi.values", "numpy_scalar_value")
cdef object str_utf8_fallback = _import_from("tvmlite._ffi.values", "str_utf8_fallback")
cdef object dlpack_export_version = _import_from("tvmlite._ffi.values", "dlpack_export_version")
cdef object shape_dims = _import_from("tvmlite._ffi.values", "shape_dims")
cdef object device_numbers = _import_from("tvmlite._ffi.values", "device_numbers")
cdef object dtype_name = _import_from("tvmlite._ffi.values", "dtype_name")
cdef object data_type_eq = _import_from("tvmlite._ffi.values", "data_type_eq")
cdef object dyn_field_specs = _import_from("tvmlite._ffi.values", "dyn_field_specs")


cdef inline TVMLiteByteArray bytes_view(bytes b):
    """A borrowed view of b (valid while b lives)."""
    cdef TVMLiteByteArray out
    out.data = b
    out.size = len(b)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Errors: this file reads and fills the C error cell; what the exception is comes from tvmlite/_ffi/error.py.
# ---------------------------------------------------------------------------------------------------------------
cdef object error_from_c = _import_from("tvmlite._ffi.error", "error_from_c")
cdef object error_kind_and_message = _import_from("tvmlite._ffi.error", "error_kind_and_message")


cdef void _release_py_object(void* obj) noexcept nogil:
    """Deleter for Python objects held by C++ (callbacks, exception payloads, buffers).

    It may run on any thread, without the GIL, or after the interpreter is gone (a thread-local error slot is
    cleared at thread exit): then the object is leaked on purpose rather than touched.
    """
    cdef GILState state
    if not Py_IsInitialized():
        return
    state = gil_ensure()
    py_decref(<PyObject*>obj)
    gil_release(state)


cdef int raise_last_error() except -1:
    """Raise this thread's pending C error as a Python exception. A Python exception that crossed C++ (raised in a
    callback) comes back as the same object, its traceback extended by the frames it passed."""
    cdef TVMLiteObjectHandle err = NULL
    cdef TVMLiteErrorCell* cell
    TVMLiteErrorMoveFromRaised(&err)
    if err == NULL:  # the runtime always leaves an error; be defensive rather than crash
        raise error_from_c("InternalError", "a call failed without setting an error", "")
    cell = <TVMLiteErrorCell*>object_cell(err)
    if cell.payload != NULL and cell.payload_deleter == _release_py_object:
        exc = <object>cell.payload
        TVMLiteObjectDecRef(err)
        raise exc
    kind = byte_array_str(cell.kind)
    message = byte_array_str(cell.message)
    where = byte_array_str(cell.backtrace)
    TVMLiteObjectDecRef(err)
    raise error_from_c(kind, message, where)


cdef inline int check_call(int ret) except -1:
    if ret != 0:
        raise_last_error()
    return 0


cdef void drop_last_error() noexcept:
    """Drop this thread's pending error (when a failure is an expected answer)."""
    cdef TVMLiteObjectHandle err = NULL
    TVMLiteErrorMoveFromRaised(&err)
    TVMLiteObjectDecRef(err)


cdef int set_raised_from_py_exception(object exc) noexcept:
    """Store a Python exception as this thread's pending C error, keeping the exception object as payload."""
    cdef TVMLiteObjectHandle err = NULL
    try:
        kind, message = error_kind_and_message(exc)
    except BaseException:  # only the call itself can fail here (MemoryError): the helper catches the rest
        kind, message = b"RuntimeError", b"<exception could not be formatted>"
    if TVMLiteErrorCreate(kind, message, NULL, &err) != 0:
        return -1
    Py_INCREF(exc)
    TVMLiteErrorSetPayload(err, <void*>exc, _release_py_object)
    TVMLiteErrorSetRaised(err)
    TVMLiteObjectDecRef(err)
    return 0
