"""Python value <-> TVMLiteAny conversion, calls, Python callbacks and the global registry (twin of
packed_func.pxi).

Conversions that must make an object (list -> Array, callable -> Function, numpy -> NDArray) record its handle in a
``temps`` list, released after the call.
"""
import ctypes
import sys
import threading
from ctypes import byref, c_int32, c_void_p

from .base import (ANY_SIZE, ANY_VALUE_OFFSET, FUNCTION_FLAGS_OFFSET, INT64_MAX, INT64_MIN, LIB, RELEASE_HELD_ADDR,
                   SEQ_DATA_OFFSET, SEQ_SIZE_OFFSET, TYPE_INDEX_OFFSET, FunctionCall, FunctionCallNoGIL, ObjectDecRef,
                   ObjectIncRef, SafeCall, TVMLiteAny, check_call, held, hold, leak, raise_last_error,
                   set_raised_from_py_exception, string_cell_bytes)
from .base import (kTVMLiteArray, kTVMLiteBool, kTVMLiteBytes, kTVMLiteDataType,
                   kTVMLiteDevice, kTVMLiteFloat, kTVMLiteFunction,
                   kTVMLiteFunctionLongRunning, kTVMLiteInt, kTVMLiteMap, kTVMLiteNDArray, kTVMLiteNone,
                   kTVMLiteOpaquePtr, kTVMLiteRawStr, kTVMLiteStaticObjectBegin, kTVMLiteString)
from .object import ObjectBase, _type_key_of, make_object, new_reference, set_default_class
from .ndarray import DataType, Device, check_buffer, make_data_type, make_device, ndarray_handle_from_python
from ..values import c_name, numpy_scalar_value, str_utf8_fallback

_i32_at = c_int32.from_address
_AnyViewToOwned = LIB.TVMLiteAnyViewToOwned
_GetResource = LIB.TVMLiteFunctionGetResource


def _new_object(type_index, data):
    """A new String or Bytes object holding a copy of data."""
    out = c_void_p()
    check_call(LIB.TVMLiteStringCreate(type_index, data, len(data), byref(out)))
    return out.value


def make_arg(arg, out, temps, fname, index):
    """Fill out (a TVMLiteAny) with a view of arg. A created object's handle goes to temps (released after the
    call by the caller). Strings are borrowed from bytes that out keeps alive (ctypes records them)."""
    t = type(arg)
    if arg is None:
        out.type_index = kTVMLiteNone
        out.v_int64 = 0
    elif t is bool:
        out.type_index = kTVMLiteBool
        out.v_int64 = 1 if arg else 0
    elif t is int:
        if not INT64_MIN <= arg <= INT64_MAX:
            raise OverflowError(f"{fname}: argument #{index} ({arg}) does not fit in int64")
        out.type_index = kTVMLiteInt
        out.v_int64 = arg
    elif t is float:
        out.type_index = kTVMLiteFloat
        out.v_float64 = arg
    elif isinstance(arg, ObjectBase):
        h = arg.chandle
        if not h:
            raise ValueError(f"{fname}: argument #{index} is a {type(arg).__name__} whose handle is null "
                             f"(never constructed or released)")
        out.type_index = _i32_at(h + TYPE_INDEX_OFFSET).value
        out.v_obj = h
        # Held, not borrowed: converting the values after it can run Python code that re-initialises arg's wrapper
        # (__init_handle_by_constructor__), which drops the object it held.
        ObjectIncRef(h)
        temps.append(h)
    elif isinstance(arg, str):
        try:
            s = arg.encode("utf-8")
            borrowed = b"\0" not in s  # an embedded NUL would cut a C string short
        except UnicodeEncodeError:  # surrogate escapes go back to their bytes; a lone surrogate is a ValueError
            s, borrowed = str_utf8_fallback(arg, fname, index), False
        if borrowed:
            out.type_index = kTVMLiteRawStr
            out.v_c_str = s
        else:  # pass a String object
            h = _new_object(kTVMLiteString, s)
            temps.append(h)
            out.type_index = kTVMLiteString
            out.v_obj = h
    elif isinstance(arg, DataType):
        out.type_index = kTVMLiteDataType
        out.v_int64 = 0
        out.v_dtype = arg._cdtype
    elif isinstance(arg, Device):
        out.type_index = kTVMLiteDevice
        out.v_int64 = 0
        out.v_device = arg._cdevice
    elif isinstance(arg, (list, tuple)):
        h = make_array(arg, fname, index)
        temps.append(h)
        out.type_index = kTVMLiteArray
        out.v_obj = h
    elif isinstance(arg, dict):
        h = make_map(arg, fname, index)
        temps.append(h)
        out.type_index = kTVMLiteMap
        out.v_obj = h
    elif isinstance(arg, (bytes, bytearray)):
        h = _new_object(kTVMLiteBytes, bytes(arg))
        temps.append(h)
        out.type_index = kTVMLiteBytes
        out.v_obj = h
    elif check_buffer(arg) and hasattr(t, "__len__"):  # numpy arrays, memoryview, array.array (not scalars)
        h = ndarray_handle_from_python(arg)
        temps.append(h)
        out.type_index = kTVMLiteNDArray
        out.v_obj = h
    elif isinstance(arg, int):  # int subclasses such as IntEnum (the base slot: no user code runs)
        return make_arg(int.__index__(arg), out, temps, fname, index)
    elif isinstance(arg, float):
        return make_arg(float.__float__(arg), out, temps, fname, index)
    elif (value := numpy_scalar_value(arg, fname, index)) is not None:  # an exact bool/int/float
        return make_arg(value, out, temps, fname, index)
    elif hasattr(arg, "__dlpack__"):  # other array libraries
        h = ndarray_handle_from_python(arg)
        temps.append(h)
        out.type_index = kTVMLiteNDArray
        out.v_obj = h
    elif callable(arg):
        h = function_handle_from_callable(arg)
        temps.append(h)
        out.type_index = kTVMLiteFunction
        out.v_obj = h
    else:
        raise TypeError(f"{fname}: argument #{index} has type {type(arg).__module__}.{type(arg).__qualname__}, "
                        f"which tvmlite cannot pass to C++")
    return 0


def release_temps(temps):
    for h in temps:
        ObjectDecRef(h)


def make_args(values, fname, index=None):
    """(array of views, temps) for a sequence; error messages name argument index (or each position)."""
    n = len(values)
    if n == 0:
        return None, []
    arr = (TVMLiteAny * n)()
    temps = []
    try:
        for i in range(n):
            make_arg(values[i], arr[i], temps, fname, i if index is None else index)
    except BaseException:
        release_temps(temps)
        raise
    return arr, temps


# Nested lists and dicts convert recursively, in Python frames. At the interpreter's recursion limit every call
# fails, the clean-up calls that release the temporaries of the frames being unwound included: a self-referential
# list leaked objects. So the nesting stops with a RecursionError while there is room left to clean up.
_nesting = threading.local()
_FRAMES_PER_LEVEL = 3  # make_arg -> make_array/make_map -> make_args
_CLEANUP_FRAMES = 40


def _enter_container():
    """Count one more level of container nesting; RecursionError when the clean-up would have no room left."""
    depth = getattr(_nesting, "depth", 0)
    if depth == 0:  # the outermost container: how deep is the stack already?
        frame, used = sys._getframe(), 0
        while frame is not None:
            used += 1
            frame = frame.f_back
        _nesting.levels = (sys.getrecursionlimit() - used - _CLEANUP_FRAMES) // _FRAMES_PER_LEVEL
    if depth >= _nesting.levels:
        raise RecursionError("maximum recursion depth exceeded while converting a nested list or dict argument")
    _nesting.depth = depth + 1


def make_array(seq, fname, index):
    """A new Array handle holding the converted items of seq."""
    _enter_container()
    try:
        # A snapshot: converting an item runs Python code that may resize seq, and it keeps the items alive.
        seq = tuple(seq)
        items, temps = make_args(seq, fname, index)
        out = c_void_p()
        try:
            check_call(LIB.TVMLiteArrayCreate(items, len(seq), byref(out)))
        finally:
            release_temps(temps)
        return out.value
    finally:
        _nesting.depth -= 1


def make_map(d, fname, index):
    """A new Map handle holding the converted items of dict d."""
    _enter_container()
    try:
        flat = []
        for k, v in list(dict.items(d)):  # a snapshot, as in make_array: d may change while its items convert
            flat += (k, v)
        kv, temps = make_args(flat, fname, index)
        out = c_void_p()
        try:
            check_call(LIB.TVMLiteMapCreate(kv, len(flat) // 2, byref(out)))
        finally:
            release_temps(temps)
        return out.value
    finally:
        _nesting.depth -= 1


def make_ret(v):
    """Turn an owned value (a TVMLiteAny) into a Python object, taking over its reference."""
    t = v.type_index
    if t == kTVMLiteNone:
        return None
    if t == kTVMLiteInt:
        return v.v_int64
    if t == kTVMLiteBool:
        return v.v_int64 != 0
    if t == kTVMLiteFloat:
        return v.v_float64
    if t >= kTVMLiteStaticObjectBegin:
        h = v.v_obj
        if t == kTVMLiteString or t == kTVMLiteBytes:
            try:
                data = string_cell_bytes(h)
            finally:
                ObjectDecRef(h)
            return data.decode("utf-8", "surrogateescape") if t == kTVMLiteString else data
        return make_object(h)
    if t == kTVMLiteDataType:
        return make_data_type(v.v_dtype)
    if t == kTVMLiteDevice:
        return make_device(v.v_device)
    if t == kTVMLiteOpaquePtr:
        return ctypes.c_void_p(v.v_ptr)
    raise TypeError(f"tvmlite: cannot return a value of type index {t} to Python")


def make_ret_view(v):
    """Turn a borrowed value (a callback argument) into a Python object, owning what it needs to."""
    if v.type_index >= kTVMLiteStaticObjectBegin:
        ObjectIncRef(v.v_obj)
        return make_ret(v)
    # The C API knows which value kinds borrow memory (raw strings, byte arrays, tensors) and must be copied or
    # retained; plain values come back unchanged. No list of kinds to keep in step with the ABI here (as in Cython).
    owned = TVMLiteAny()
    check_call(_AnyViewToOwned(byref(v), byref(owned)))
    return make_ret(owned)


class Function(ObjectBase):
    """A packed function: a C++ function, a Python callable wrapped for C++, or anything else with the C calling
    convention. Call it like a Python function (positional arguments only)."""
    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        self = ObjectBase.__new__(cls)
        self._name = None
        return self

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{self._name or 'tvmlite.Function'}: packed functions take positional arguments only, "
                            f"got keywords {sorted(kwargs)}")
        result = call_function(self, args)
        if result.type_index >= kTVMLiteStaticObjectBegin:
            # A function that returns one of its argument objects gives back that same Python object (as the
            # Cython core does): identity and the Python subclass survive the round trip.
            h = result.v_obj
            for arg in args:
                if isinstance(arg, ObjectBase) and arg.chandle == h:
                    ObjectDecRef(h)
                    return arg
        return make_ret(result)

    def __repr__(self):
        return f"<tvmlite.Function {self._name}>" if self._name else "<tvmlite.Function>"

    def __reduce__(self):
        raise TypeError(f"{self!r} cannot be pickled: functions are code, not data")


set_default_class(kTVMLiteFunction, Function)


def call_function(func, args):
    """Call func with Python arguments; returns the owned result (a TVMLiteAny)."""
    h = func.chandle
    if not h:
        raise ValueError("cannot call a Function whose handle is null")
    if _i32_at(h + TYPE_INDEX_OFFSET).value != kTVMLiteFunction:
        raise TypeError(f"cannot call {type(func).__name__}: it holds a "
                        f"{_type_key_of(_i32_at(h + TYPE_INDEX_OFFSET).value)}, not a runtime.Function")
    # The cell's flags (after safe_call) say whether to release the GIL (long-running functions), as Cython does.
    flags = _i32_at(h + FUNCTION_FLAGS_OFFSET).value
    call = FunctionCallNoGIL if flags & kTVMLiteFunctionLongRunning else FunctionCall
    result = TVMLiteAny()
    if args:
        values, temps = make_args(args, func._name or "tvmlite.Function")
        try:
            ret = call(h, values, len(args), byref(result))
        finally:
            release_temps(temps)
    else:
        ret = call(h, None, 0, byref(result))
    if ret != 0:
        raise_last_error()
    return result


# ---------------------------------------------------------------------------------------------------------------
# Python callables called from C++
# ---------------------------------------------------------------------------------------------------------------

def _py_safe_call(self, args, num_args, result):
    """The C calling convention for a Python callable. An exception is kept whole in the error's payload."""
    try:
        pyfunc = held(_GetResource(self))
        rv = pyfunc(*[make_ret_view(args[i]) for i in range(num_args)]) if num_args else pyfunc()
        if rv is None:  # result is pre-set to None by the caller
            return 0
        view = TVMLiteAny()
        temps = []
        try:
            make_arg(rv, view, temps, "callback return value", 0)
            check_call(_AnyViewToOwned(byref(view), result))
        finally:
            release_temps(temps)
        return 0
    except BaseException as exc:  # noqa: B902 - everything, KeyboardInterrupt included, goes back to the caller
        set_raised_from_py_exception(exc)
        return -1


_PY_SAFE_CALL = leak(SafeCall(_py_safe_call))  # C++ may call it until the process ends
_PY_SAFE_CALL_ADDR = ctypes.cast(_PY_SAFE_CALL, c_void_p).value


def function_handle_from_callable(pyfunc):
    """A new Function handle that calls pyfunc (or a new reference to pyfunc when it is a Function)."""
    if isinstance(pyfunc, Function):
        return new_reference(pyfunc, "cannot pass a Function whose handle is null")
    if not callable(pyfunc):
        raise TypeError(f"expected a callable, got {type(pyfunc).__name__}")
    out = c_void_p()
    # On failure TVMLiteFunctionCreate calls the deleter itself, so the held callable is never leaked.
    check_call(LIB.TVMLiteFunctionCreate(hold(pyfunc), _PY_SAFE_CALL_ADDR, RELEASE_HELD_ADDR, byref(out)))
    return out.value


def convert_to_function(pyfunc, name=None):
    """Wrap a Python callable as a :class:`Function` that C++ can call."""
    f = make_object(function_handle_from_callable(pyfunc))
    f._name = name if name is not None else getattr(pyfunc, "__qualname__", None)
    return f


def convert(value):
    """Convert a Python value to its tvmlite form: list/tuple -> Array, dict -> Map, callable -> Function, ...

    Values that have no object form (ints, floats, str, None) come back unchanged.
    """
    view = TVMLiteAny()
    owned = TVMLiteAny()
    temps = []
    try:
        make_arg(value, view, temps, "convert", 0)
        check_call(_AnyViewToOwned(byref(view), byref(owned)))
    finally:
        release_temps(temps)
    return make_ret(owned)


# ---------------------------------------------------------------------------------------------------------------
# Global registry
# ---------------------------------------------------------------------------------------------------------------

def get_global_func(name, allow_missing=False):
    """The global function registered under name; None or ValueError when there is none."""
    out = c_void_p()
    check_call(LIB.TVMLiteFunctionGetGlobal(c_name(name, "get_global_func: name"), byref(out)))
    if not out.value:
        if allow_missing:
            return None
        raise ValueError(f"Cannot find global function {name}")
    f = make_object(out.value)
    f._name = name
    return f


def register_global_func(name, func, override=False):
    """Register func (a callable or Function) as a global function; ValueError when taken and not override."""
    cname = c_name(name, "register_func: name")
    if not callable(func):
        raise TypeError(f"register_func: '{name}' must be registered with a callable, got {type(func).__name__}")
    h = function_handle_from_callable(func)
    try:
        check_call(LIB.TVMLiteFunctionSetGlobal(cname, h, 1 if override else 0))
    finally:
        ObjectDecRef(h)


def remove_global_func(name):
    check_call(LIB.TVMLiteFunctionRemoveGlobal(c_name(name, "remove_global_func: name")))


def list_global_func_names():
    """Names of all registered global functions."""
    out = c_void_p()
    check_call(LIB.TVMLiteFunctionListGlobalNames(byref(out)))
    h = out.value
    try:
        data = ctypes.c_size_t.from_address(h + SEQ_DATA_OFFSET).value
        size = ctypes.c_int64.from_address(h + SEQ_SIZE_OFFSET).value
        # Each item is a TVMLiteAny holding a String: read its handle (v_obj) straight from the value.
        return [string_cell_bytes(ctypes.c_size_t.from_address(data + ANY_SIZE * i + ANY_VALUE_OFFSET).value)
                .decode("utf-8", "surrogateescape") for i in range(size)]
    finally:
        ObjectDecRef(h)

