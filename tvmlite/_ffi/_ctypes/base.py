"""C API declarations (csrc/include/tvmlite/c_api.h) for ctypes, and error translation (the twin of base.pxi)."""
import ctypes
import itertools
import operator
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, Union, byref, c_char_p, c_double, c_int, c_int32, c_int64,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p, c_size_t)

from tvmlite._ffi.error import error_from_c, error_kind_and_message

# ---------------------------------------------------------------------------------------------------------------
# The shared library
# ---------------------------------------------------------------------------------------------------------------
_LIB_PATH = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib",
                                          "libtvmlite.so"))
if not os.path.exists(_LIB_PATH):
    raise ImportError(f"tvmlite ctypes backend: the C++ runtime {_LIB_PATH} is missing; build it with "
                      "`pip install -e .` (or `pip install .`)")
try:
    # PyDLL keeps the GIL during calls, as the Cython core does (deleters and callbacks then run without a
    # release/re-acquire round trip). The same file is loaded once per process, so both cores share one runtime.
    _LIB = ctypes.PyDLL(_LIB_PATH)
    # CDLL releases the GIL: used only to call functions flagged long-running.
    _LIB_NOGIL = ctypes.CDLL(_LIB_PATH)
except OSError as err:  # pragma: no cover - depends on the build
    raise ImportError(f"tvmlite ctypes backend: cannot load {_LIB_PATH}: {err}") from err

# ---------------------------------------------------------------------------------------------------------------
# Constants: read from the runtime's table (TVMLiteGetABIConstants), never restated here
# ---------------------------------------------------------------------------------------------------------------


class TVMLiteABIConstant(Structure):
    _fields_ = [("name", c_char_p), ("value", c_int64)]


def _read_abi_constants():
    table, num = POINTER(TVMLiteABIConstant)(), c_int32()
    _LIB.TVMLiteGetABIConstants(byref(table), byref(num))
    return {c.name.decode(): c.value for c in table[:num.value]}


#: Every constant and layout fact of c_api.h, named as in C: "kTVMLiteInt", "sizeof(TVMLiteAny)",
#: "offsetof(TVMLiteObject, type_index)".
ABI = _read_abi_constants()
# The enum values under their C names (kTVMLiteInt, kTVMLiteFieldOptional, kDLCPU, DLPACK_FLAG_BITMASK_READ_ONLY...);
# a name the runtime does not export fails the importing module's `from .base import`.
globals().update((name, value) for name, value in ABI.items() if "(" not in name)

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# ---------------------------------------------------------------------------------------------------------------
# Structs
# ---------------------------------------------------------------------------------------------------------------


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLDevice(Structure):
    _fields_ = [("device_type", c_int), ("device_id", c_int32)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p),
                            ("deleter", CFUNCTYPE(None, POINTER(DLManagedTensor)))]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    pass


DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p),
                                     ("deleter", CFUNCTYPE(None, POINTER(DLManagedTensorVersioned))),
                                     ("flags", c_uint64), ("dl_tensor", DLTensor)]


class _AnyValue(Union):
    # v_obj is a plain address (int): handles are kept as ints throughout this backend.
    _fields_ = [("v_int64", c_int64), ("v_float64", c_double), ("v_ptr", c_void_p), ("v_c_str", c_char_p),
                ("v_obj", c_size_t), ("v_dtype", DLDataType), ("v_device", DLDevice)]


class TVMLiteAny(Structure):
    """The 16-byte tagged value. The union is anonymous so fields read as ``any.v_int64``."""
    _anonymous_ = ("u",)
    _fields_ = [("type_index", c_int32), ("reserved", c_uint32), ("u", _AnyValue)]


class TVMLiteByteArray(Structure):
    _fields_ = [("data", c_void_p), ("size", c_int64)]


TVMLiteFieldGetter = ctypes.PYFUNCTYPE(c_int, c_void_p, POINTER(TVMLiteAny))
TVMLiteFieldSetter = ctypes.PYFUNCTYPE(c_int, c_void_p, POINTER(TVMLiteAny))


class TVMLiteDynFieldSpec(Structure):
    _fields_ = [("name", TVMLiteByteArray), ("type_str", TVMLiteByteArray), ("static_type_index", c_int32),
                ("flags", c_int32)]


class TVMLiteFieldInfo(Structure):
    _fields_ = [("name", TVMLiteByteArray), ("type_str", TVMLiteByteArray), ("offset", c_int64),
                ("static_type_index", c_int32), ("flags", c_int32), ("getter", TVMLiteFieldGetter),
                ("setter", TVMLiteFieldSetter)]


class TVMLiteTypeInfo(Structure):
    _fields_ = [("type_index", c_int32), ("type_depth", c_int32), ("type_key", TVMLiteByteArray),
                ("ancestors", POINTER(c_int32)), ("num_fields", c_int32), ("fields", POINTER(TVMLiteFieldInfo)),
                ("creator", c_void_p)]


class TVMLiteErrorCell(Structure):
    _fields_ = [("kind", TVMLiteByteArray), ("message", TVMLiteByteArray), ("backtrace", TVMLiteByteArray),
                ("payload", c_void_p), ("payload_deleter", c_void_p)]




def _c_layouts(abi):
    """{struct name: (sizeof, {field: offsetof})} from the table's "sizeof(S)" and "offsetof(S, f)" entries."""
    layouts = {}
    for key, value in abi.items():
        if key.startswith("sizeof("):
            layouts.setdefault(key[7:-1], [None, {}])[0] = value
        elif key.startswith("offsetof("):
            struct, field = key[9:-1].split(", ")
            layouts.setdefault(struct, [None, {}])[1][field] = value
    return layouts


C_LAYOUTS = _c_layouts(ABI)


def check_layout(struct):
    """The differences between a ctypes Structure and the C struct of the same name (an empty list when they agree):
    its size and the offset of every field the runtime's table lists."""
    name = struct.__name__
    size, offsets = C_LAYOUTS.get(name, (None, {}))
    problems = []
    if size != ctypes.sizeof(struct):
        problems.append(f"sizeof({name}) is {size} in C, {ctypes.sizeof(struct)} here")
    for field_name, offset in offsets.items():
        field = getattr(struct, field_name, None)
        if field is None or field.offset != offset:
            problems.append(f"offsetof({name}, {field_name}) is {offset} in C, "
                            f"{None if field is None else field.offset} here")
    return problems


MIRRORED_STRUCTS = (DLDataType, DLDevice, DLTensor, DLManagedTensor, DLPackVersion, DLManagedTensorVersioned,
                    TVMLiteAny, TVMLiteByteArray, TVMLiteDynFieldSpec, TVMLiteFieldInfo, TVMLiteTypeInfo,
                    TVMLiteErrorCell)
_problems = [p for struct in MIRRORED_STRUCTS for p in check_layout(struct)]
if _problems:
    raise ImportError("tvmlite ctypes backend: its structures do not match the runtime's (" + _LIB_PATH + "): " +
                      "; ".join(_problems))
del _problems

# Byte offsets from an object handle (cells directly follow the header) and within arrays of values.
HEADER_SIZE = ABI["sizeof(TVMLiteObject)"]
TYPE_INDEX_OFFSET = ABI["offsetof(TVMLiteObject, type_index)"]
ANY_SIZE = ABI["sizeof(TVMLiteAny)"]
ANY_VALUE_OFFSET = ABI["offsetof(TVMLiteAny, v_int64)"]
STRING_DATA_OFFSET = HEADER_SIZE + ABI["offsetof(TVMLiteStringCell, data)"]
STRING_SIZE_OFFSET = HEADER_SIZE + ABI["offsetof(TVMLiteStringCell, size)"]
SEQ_DATA_OFFSET = HEADER_SIZE + ABI["offsetof(TVMLiteSeqCell, data)"]
SEQ_SIZE_OFFSET = HEADER_SIZE + ABI["offsetof(TVMLiteSeqCell, size)"]
SHAPE_DATA_OFFSET = HEADER_SIZE + ABI["offsetof(TVMLiteShapeCell, data)"]
SHAPE_SIZE_OFFSET = HEADER_SIZE + ABI["offsetof(TVMLiteShapeCell, size)"]
FUNCTION_FLAGS_OFFSET = HEADER_SIZE + ABI["offsetof(TVMLiteFunctionCell, flags)"]
ERROR_CELL_OFFSET = HEADER_SIZE
NDARRAY_TENSOR_OFFSET = ABI["offsetof(TVMLiteNDArrayObject, tensor)"]
NDARRAY_FLAGS_OFFSET = ABI["offsetof(TVMLiteNDArrayObject, flags)"]

SafeCall = CFUNCTYPE(c_int, c_void_p, POINTER(TVMLiteAny), c_int32, POINTER(TVMLiteAny))
Deleter = CFUNCTYPE(None, c_void_p)

# ---------------------------------------------------------------------------------------------------------------
# Function prototypes
# ---------------------------------------------------------------------------------------------------------------
_h = c_void_p  # handles are passed as addresses
_ph = POINTER(c_void_p)
_PROTOTYPES = {
    "TVMLiteObjectIncRef": (None, [_h]),
    "TVMLiteObjectDecRef": (None, [_h]),
    "TVMLiteObjectLiveCount": (c_int64, []),
    "TVMLiteAnyViewToOwned": (c_int, [POINTER(TVMLiteAny), POINTER(TVMLiteAny)]),
    "TVMLiteAnyRelease": (None, [POINTER(TVMLiteAny)]),
    "TVMLiteTypeKeyToIndex": (c_int, [c_char_p, POINTER(c_int32)]),
    "TVMLiteGetTypeInfo": (POINTER(TVMLiteTypeInfo), [c_int32]),
    "TVMLiteTypeIsInstance": (c_int, [c_int32, c_int32]),
    "TVMLiteTypeDefineDynamic": (c_int, [c_char_p, c_int32, POINTER(TVMLiteDynFieldSpec), c_int32,
                                         POINTER(c_int32)]),
    "TVMLiteTypeIsDynamic": (c_int, [c_int32]),
    "TVMLiteDynObjectCreate": (c_int, [c_int32, POINTER(TVMLiteAny), c_int32, _ph]),
    "TVMLiteObjectSetField": (c_int, [_h, c_void_p, POINTER(TVMLiteAny)]),
    "TVMLiteErrorCreate": (c_int, [c_char_p, c_char_p, c_char_p, _ph]),
    "TVMLiteErrorSetPayload": (None, [_h, c_void_p, c_void_p]),
    "TVMLiteErrorSetRaised": (None, [_h]),
    "TVMLiteErrorSetRaisedFromCStr": (None, [c_char_p, c_char_p]),
    "TVMLiteErrorMoveFromRaised": (None, [_ph]),
    "TVMLiteFunctionCall": (c_int, [_h, POINTER(TVMLiteAny), c_int32, POINTER(TVMLiteAny)]),
    "TVMLiteFunctionCreate": (c_int, [c_void_p, c_void_p, c_void_p, _ph]),
    "TVMLiteFunctionGetResource": (c_void_p, [_h]),
    "TVMLiteFunctionSetFlags": (None, [_h, c_int32]),
    "TVMLiteFunctionSetGlobal": (c_int, [c_char_p, _h, c_int]),
    "TVMLiteFunctionGetGlobal": (c_int, [c_char_p, _ph]),
    "TVMLiteFunctionRemoveGlobal": (c_int, [c_char_p]),
    "TVMLiteFunctionListGlobalNames": (c_int, [_ph]),
    "TVMLiteStringCreate": (c_int, [c_int32, c_char_p, c_int64, _ph]),
    "TVMLiteArrayCreate": (c_int, [POINTER(TVMLiteAny), c_int64, _ph]),
    "TVMLiteMapCreate": (c_int, [POINTER(TVMLiteAny), c_int64, _ph]),
    "TVMLiteMapSize": (c_int64, [_h]),
    "TVMLiteMapGet": (c_int, [_h, POINTER(TVMLiteAny), POINTER(TVMLiteAny)]),
    "TVMLiteMapItemAt": (c_int, [_h, c_int64, POINTER(TVMLiteAny), POINTER(TVMLiteAny)]),
    "TVMLiteShapeCreate": (c_int, [POINTER(c_int64), c_int64, _ph]),
    "TVMLiteNDArrayEmpty": (c_int, [POINTER(c_int64), c_int32, DLDataType, DLDevice, _ph]),
    "TVMLiteNDArrayFromExternal": (c_int, [POINTER(DLTensor), ctypes.c_uint64, c_void_p, c_void_p, _ph]),
    "TVMLiteNDArrayFromDLPack": (c_int, [c_void_p, _ph]),
    "TVMLiteNDArrayFromDLPackVersioned": (c_int, [c_void_p, _ph]),
    "TVMLiteNDArrayToDLPack": (c_int, [_h, _ph]),
    "TVMLiteNDArrayToDLPackVersioned": (c_int, [_h, _ph]),
    "TVMLiteDataTypeFromString": (c_int, [c_char_p, POINTER(DLDataType)]),
    "TVMLiteDataTypeToString": (c_int, [DLDataType, _ph]),
    "TVMLiteDeviceCreate": (c_int, [c_int64, c_int64, POINTER(DLDevice)]),
    "TVMLiteGetABIConstants": (c_int, [POINTER(POINTER(TVMLiteABIConstant)), POINTER(c_int32)]),
}
for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _fn = getattr(_LIB, _name)
    _fn.restype, _fn.argtypes = _restype, _argtypes
del _name, _restype, _argtypes, _fn

LIB = _LIB
FunctionCallNoGIL = _LIB_NOGIL.TVMLiteFunctionCall
FunctionCallNoGIL.restype, FunctionCallNoGIL.argtypes = _PROTOTYPES["TVMLiteFunctionCall"]
# Bound once: hot paths and __del__ (which may run while the interpreter tears modules down) use these names.
ObjectIncRef = _LIB.TVMLiteObjectIncRef
ObjectDecRef = _LIB.TVMLiteObjectDecRef
FunctionCall = _LIB.TVMLiteFunctionCall


def _pyapi(name, restype, *argtypes):
    """A private prototype of a CPython API function (never mutate the shared ctypes.pythonapi attributes)."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


Py_IncRef = _pyapi("Py_IncRef", None, ctypes.py_object)


def as_c_int(value, bits=32):
    """Convert like a Cython C-integer argument: integers (or __index__), floats truncated (as Cython does),
    range-checked."""
    if isinstance(value, float):
        value = int(value)
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError("an integer is required") from None
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise OverflowError(f"value too large to convert to int{bits}_t")
    return value


# ---------------------------------------------------------------------------------------------------------------
# Memory helpers
# ---------------------------------------------------------------------------------------------------------------
_i64_at = c_int64.from_address
_ptr_at = c_size_t.from_address


def byte_array_str(b, errors="replace"):
    """A TVMLiteByteArray decoded as UTF-8."""
    if not b.size:
        return ""
    return ctypes.string_at(b.data, b.size).decode("utf-8", errors)


def string_cell_bytes(h):
    """The bytes of a String/Bytes object (TVMLiteStringCell after the header)."""
    size = _i64_at(h + STRING_SIZE_OFFSET).value
    return ctypes.string_at(_ptr_at(h + STRING_DATA_OFFSET).value, size) if size else b""


def leak(obj):
    """Keep obj alive for the whole process: C code may use it after this module's globals are torn down."""
    Py_IncRef(obj)
    return obj


# ---------------------------------------------------------------------------------------------------------------
# Python objects held by C++ (callbacks, exception payloads, buffers): a table keyed by a fresh integer
# ---------------------------------------------------------------------------------------------------------------
_HELD = {}
_next_key = itertools.count(1).__next__  # 0 would read as NULL


def hold(obj):
    """Keep obj alive for C++; returns the key (a pointer-sized int) that RELEASE_HELD(key) frees."""
    key = _next_key()
    _HELD[key] = obj
    return key


def held(key):
    return _HELD[key]


def _release_held(key, _pop=_HELD.pop):
    # ctypes callbacks take the GIL themselves, so this is safe on any thread.
    _pop(key, None)


RELEASE_HELD = leak(Deleter(_release_held))
RELEASE_HELD_ADDR = ctypes.cast(RELEASE_HELD, c_void_p).value

# ---------------------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------------------


def move_from_raised():
    """Take this thread's pending error handle (an int, or 0)."""
    err = c_void_p()
    _LIB.TVMLiteErrorMoveFromRaised(byref(err))
    return err.value or 0


def raise_last_error():
    """Raise this thread's pending C error as a Python exception. A Python exception that crossed C++ (raised in
    a callback) comes back as the same object, its traceback extended by the frames it passed."""
    err = move_from_raised()
    if not err:  # the runtime always leaves an error; be defensive rather than crash
        raise error_from_c("InternalError", "a call failed without setting an error", "")
    try:
        cell = TVMLiteErrorCell.from_address(err + ERROR_CELL_OFFSET)
        if cell.payload and cell.payload_deleter == RELEASE_HELD_ADDR:
            exc = _HELD.get(cell.payload)
            if exc is not None:
                raise exc
        kind = byte_array_str(cell.kind)
        message = byte_array_str(cell.message)
        where = byte_array_str(cell.backtrace)
    finally:
        ObjectDecRef(err)
    raise error_from_c(kind, message, where)


def check_call(ret):
    if ret != 0:
        raise_last_error()


def drop_last_error():
    """Drop this thread's pending error (when a failure is an expected answer)."""
    ObjectDecRef(move_from_raised())


def set_raised_from_py_exception(exc):
    """Store a Python exception as this thread's pending C error, keeping the exception object as payload."""
    kind, message = error_kind_and_message(exc)
    err = c_void_p()
    if _LIB.TVMLiteErrorCreate(kind, message, None, byref(err)) != 0:
        return -1
    _LIB.TVMLiteErrorSetPayload(err, hold(exc), RELEASE_HELD_ADDR)
    _LIB.TVMLiteErrorSetRaised(err)
    ObjectDecRef(err)
    return 0
