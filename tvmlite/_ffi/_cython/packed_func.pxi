# packed_func.pxi: Python value <-> TVMLiteAny conversion, calls, Python callbacks and the global registry.
#
# The common call path (<= 8 arguments of plain types or objects) allocates nothing: argument values live in a
# stack array and no temporary objects are made. Conversions that must make an object (list -> Array, callable ->
# Function, numpy -> NDArray) record it in a per-argument temp slot, released after the call.

DEF MAX_STACK_ARGS = 8

cdef extern from "Python.h":
    bint PyObject_CheckBuffer(object o)
    tuple PySequence_Tuple(object o)
    list PyDict_Items(object d)
    # No `except`: NULL with UnicodeEncodeError set is handled (a str strict UTF-8 rejects takes the slow path).
    const char* utf8_or_null "PyUnicode_AsUTF8AndSize"(object s, Py_ssize_t* size)
    void PyErr_Clear()


cdef str _callee_name(object fname):
    """Name used in argument errors: fname is a name, or the Function being called (named lazily: only on error)."""
    if isinstance(fname, Function):
        return (<Function>fname)._name or "tvmlite.Function"
    return str(fname)


cdef int make_arg(object arg, TVMLiteAny* out, TVMLiteObject** temp, object fname, int index) except -1:
    """Fill out with a view of arg. A created object goes to *temp (the caller releases it after the call).
    fname (a name or the Function called) appears in error messages.

    An object argument is held too (a reference in *temp), not borrowed: converting the values after it (list
    items, dict values, later arguments) can run Python code that re-initialises its wrapper
    (``__init_handle_by_constructor__``), which drops the object the wrapper held."""
    cdef int overflow = 0
    cdef Py_ssize_t size
    cdef const char* s
    out.reserved = 0
    if arg is None:
        out.type_index = kTVMLiteNone
        out.v_int64 = 0
    elif PyBool_Check(arg):
        out.type_index = kTVMLiteBool
        out.v_int64 = 1 if arg is True else 0
    elif PyLong_CheckExact(arg):
        out.type_index = kTVMLiteInt
        out.v_int64 = PyLong_AsLongLongAndOverflow(arg, &overflow)
        if overflow:
            raise OverflowError(f"{_callee_name(fname)}: argument #{index} ({arg}) does not fit in int64")
    elif PyFloat_CheckExact(arg):
        out.type_index = kTVMLiteFloat
        out.v_float64 = arg
    elif isinstance(arg, ObjectBase):
        if (<ObjectBase>arg).chandle == NULL:
            raise ValueError(f"{_callee_name(fname)}: argument #{index} is a {type(arg).__name__} whose handle is null "
                             f"(never constructed or released)")
        out.type_index = (<ObjectBase>arg).chandle.type_index
        out.v_obj = (<ObjectBase>arg).chandle
        TVMLiteObjectIncRef(out.v_obj)
        temp[0] = out.v_obj
    elif PyUnicode_Check(arg):
        s = utf8_or_null(arg, &size)
        if s != NULL and memchr(s, 0, size) == NULL:
            out.type_index = kTVMLiteRawStr
            out.v_c_str = s
        else:  # an embedded NUL would cut a C string short, or strict UTF-8 failed: pass a String object
            if s == NULL:
                PyErr_Clear()
                data = str_utf8_fallback(arg, _callee_name(fname), index)
                s, size = data, len(data)
            check_call(TVMLiteStringCreate(kTVMLiteString, s, size, temp))
            out.type_index = kTVMLiteString
            out.v_obj = temp[0]
    elif isinstance(arg, DataType):
        out.type_index = kTVMLiteDataType
        out.v_int64 = 0
        out.v_dtype = (<DataType>arg).cdtype
    elif isinstance(arg, Device):
        out.type_index = kTVMLiteDevice
        out.v_int64 = 0
        out.v_device = (<Device>arg).cdevice
    elif isinstance(arg, (list, tuple)):
        temp[0] = make_array(arg, fname, index)
        out.type_index = kTVMLiteArray
        out.v_obj = temp[0]
    elif isinstance(arg, dict):
        temp[0] = make_map(arg, fname, index)
        out.type_index = kTVMLiteMap
        out.v_obj = temp[0]
    elif isinstance(arg, (bytes, bytearray)):
        s = arg
        check_call(TVMLiteStringCreate(kTVMLiteBytes, s, len(arg), temp))
        out.type_index = kTVMLiteBytes
        out.v_obj = temp[0]
    elif PyObject_CheckBuffer(arg) and _has_len(arg):  # numpy arrays, memoryview, array.array (not scalars)
        temp[0] = ndarray_handle_from_python(arg)
        out.type_index = kTVMLiteNDArray
        out.v_obj = temp[0]
    elif isinstance(arg, int):  # int subclasses such as IntEnum
        return make_arg(int.__index__(arg), out, temp, fname, index)
    elif isinstance(arg, float):
        return make_arg(float.__float__(arg), out, temp, fname, index)
    elif (value := numpy_scalar_value(arg, _callee_name(fname), index)) is not None:  # an exact bool/int/float
        return make_arg(value, out, temp, fname, index)
    elif hasattr(arg, "__dlpack__"):  # other array libraries
        temp[0] = ndarray_handle_from_python(arg)
        out.type_index = kTVMLiteNDArray
        out.v_obj = temp[0]
    elif callable(arg):
        temp[0] = function_handle_from_callable(arg)
        out.type_index = kTVMLiteFunction
        out.v_obj = temp[0]
    else:
        raise TypeError(f"{_callee_name(fname)}: argument #{index} has type "
                        f"{type(arg).__module__}.{type(arg).__qualname__}, "
                        f"which tvmlite cannot pass to C++")
    return 0


cdef inline bint _converts_without_python_code(object arg):
    """Whether make_arg converts arg without running any Python code (no __index__, __dlpack__ probe, list item)."""
    return (arg is None or PyBool_Check(arg) or PyLong_CheckExact(arg) or PyFloat_CheckExact(arg)
            or PyUnicode_Check(arg) or isinstance(arg, (DataType, Device)))


cdef inline bint _has_len(object o):
    """Whether o's type defines len() (checked on the type slot: an attribute lookup would cost more)."""
    cdef PySequenceMethods* sq = Py_TYPE(o).tp_as_sequence
    return sq != NULL and sq.sq_length != NULL


cdef extern from "Python.h":
    int Py_EnterRecursiveCall(const char* where)  # nonzero (with RecursionError set) past the limit
    void Py_LeaveRecursiveCall()


cdef TVMLiteObject* make_array(object seq, object fname, int index) except NULL:
    # Nested lists convert recursively: a self-referential or absurdly deep one is a RecursionError, not a crash.
    if Py_EnterRecursiveCall(" while converting a list argument to an Array") != 0:
        return NULL  # RecursionError is set
    try:
        return _make_array(seq, fname, index)
    finally:
        Py_LeaveRecursiveCall()


cdef TVMLiteObject* _make_array(object seq, object fname, int index) except NULL:
    # A snapshot: converting an item runs Python code (__index__, callbacks) that may resize or clear seq, and the
    # snapshot keeps the items alive meanwhile.
    cdef tuple items_py = PySequence_Tuple(seq)
    cdef Py_ssize_t n = len(items_py), i, done = 0
    cdef TVMLiteAny* items = <TVMLiteAny*>malloc(sizeof(TVMLiteAny) * (n + 1))
    cdef TVMLiteObject** temps = <TVMLiteObject**>malloc(sizeof(TVMLiteObject*) * (n + 1))
    cdef TVMLiteObject* out = NULL
    if items == NULL or temps == NULL:
        free(items)
        free(temps)
        raise MemoryError()
    try:
        for i in range(n):
            temps[i] = NULL
            make_arg(items_py[i], &items[i], &temps[i], fname, index)
            done = i + 1
        check_call(TVMLiteArrayCreate(items, n, &out))
    finally:
        for i in range(done):
            TVMLiteObjectDecRef(temps[i])
        free(items)
        free(temps)
    return out


cdef TVMLiteObject* make_map(dict d, object fname, int index) except NULL:
    if Py_EnterRecursiveCall(" while converting a dict argument to a Map") != 0:
        return NULL
    try:
        return _make_map(d, fname, index)
    finally:
        Py_LeaveRecursiveCall()


cdef TVMLiteObject* _make_map(dict d, object fname, int index) except NULL:
    # A snapshot of the pairs, for the same reasons as in _make_array: d may change while its items convert.
    cdef list pairs = PyDict_Items(d)
    cdef Py_ssize_t n = len(pairs), i = 0, done = 0
    cdef TVMLiteAny* kv = <TVMLiteAny*>malloc(sizeof(TVMLiteAny) * (2 * n + 1))
    cdef TVMLiteObject** temps = <TVMLiteObject**>malloc(sizeof(TVMLiteObject*) * (2 * n + 1))
    cdef TVMLiteObject* out = NULL
    if kv == NULL or temps == NULL:
        free(kv)
        free(temps)
        raise MemoryError()
    try:
        for k, v in pairs:
            temps[i] = NULL
            make_arg(k, &kv[i], &temps[i], fname, index)
            done = i + 1
            temps[i + 1] = NULL
            make_arg(v, &kv[i + 1], &temps[i + 1], fname, index)
            done = i + 2
            i += 2
        check_call(TVMLiteMapCreate(kv, n, &out))
    finally:
        for i in range(done):
            TVMLiteObjectDecRef(temps[i])
        free(kv)
        free(temps)
    return out


cdef object make_ret(TVMLiteAny* v):
    """Turn an owned value into a Python object, taking over its reference."""
    cdef int32_t t = v.type_index
    cdef TVMLiteStringCell* cell
    if t == kTVMLiteNone:
        return None
    if t == kTVMLiteInt:
        return v.v_int64
    if t == kTVMLiteBool:
        return v.v_int64 != 0
    if t == kTVMLiteFloat:
        return v.v_float64
    if t == kTVMLiteString or t == kTVMLiteBytes:
        cell = <TVMLiteStringCell*>object_cell(v.v_obj)
        try:
            if t == kTVMLiteString:
                return PyUnicode_DecodeUTF8(cell.data, cell.size, "surrogateescape")
            return PyBytes_FromStringAndSize(cell.data, cell.size)
        finally:
            TVMLiteObjectDecRef(v.v_obj)
    if t >= kTVMLiteStaticObjectBegin:
        return make_object(v.v_obj)
    if t == kTVMLiteDataType:
        return make_data_type(v.v_dtype)
    if t == kTVMLiteDevice:
        return make_device(v.v_device)
    if t == kTVMLiteOpaquePtr:
        import ctypes
        return ctypes.c_void_p(<size_t>v.v_ptr)
    raise TypeError(f"tvmlite: cannot return a value of type index {t} to Python")


cdef object make_ret_view(const TVMLiteAny* v):
    """Turn a borrowed value (a callback argument) into a Python object, owning what it needs to."""
    cdef TVMLiteAny owned
    if v.type_index >= kTVMLiteStaticObjectBegin:
        TVMLiteObjectIncRef(v.v_obj)
        owned = v[0]
        return make_ret(&owned)
    # The C API knows which value kinds borrow memory (raw strings, byte arrays, tensors) and must be copied or
    # retained; plain values come back unchanged. No list of kinds to keep in step with the ABI here.
    check_call(TVMLiteAnyViewToOwned(v, &owned))
    return make_ret(&owned)


cdef class Function(ObjectBase):
    """A packed function: a C++ function, a Python callable wrapped for C++, or anything else with the C calling
    convention. Call it like a Python function (positional arguments only)."""
    # Vectorcall entry (PEP 590): Python calls it with the caller's argument array, no tuple is built.
    cdef vectorcallfunc _vectorcall
    cdef public object _name

    def __cinit__(self):
        self._vectorcall = <vectorcallfunc>_function_vectorcall

    def __call__(self, *args, **kwargs):
        # Used only when vectorcall is not (a Python subclass of Function, or a caller that builds a tuple).
        cdef TVMLiteAny result
        if kwargs:
            _reject_keywords(self, tuple(kwargs))
        call_function(self, PySequence_Fast_ITEMS(args), len(args), &result)
        return make_ret(&result)

    def __repr__(self):
        return f"<tvmlite.Function {self._name}>" if self._name else "<tvmlite.Function>"

    def __reduce__(self):
        raise TypeError(f"{self!r} cannot be pickled: functions are code, not data")


cdef object _function_vectorcall(Function self, PyObject** args, size_t nargsf, PyObject* kwnames):
    cdef TVMLiteAny result
    cdef Py_ssize_t n = PyVectorcall_NARGS(nargsf)
    if kwnames != NULL and len(<object>kwnames) != 0:
        _reject_keywords(self, <object>kwnames)
    call_function(self, args, n, &result)
    if result.type_index >= kTVMLiteStaticObjectBegin:
        return _ret_object_reusing_args(&result, args, n)
    return make_ret(&result)


cdef object _ret_object_reusing_args(TVMLiteAny* result, PyObject** args, Py_ssize_t n):
    """A function that returns one of its argument objects gets that same Python object back: identity and the
    Python subclass survive the round trip, and no wrapper is allocated."""
    cdef Py_ssize_t i
    for i in range(n):
        arg = <object>args[i]
        if isinstance(arg, ObjectBase) and (<ObjectBase>arg).chandle == result.v_obj:
            # The argument still holds a reference, so this one is never the last: no destruction to run.
            __atomic_fetch_sub(&result.v_obj.ref_count, 1, __ATOMIC_RELEASE)
            return arg
    return make_ret(result)


cdef int _raise_uncallable(Function func) except -1:
    if func.chandle == NULL:
        raise ValueError("cannot call a Function whose handle is null")
    raise TypeError(f"cannot call {type(func).__name__}: it holds a {_type_key_of(func.chandle.type_index)}, "
                    f"not a runtime.Function")


cdef int _reject_keywords(Function self, tuple names) except -1:
    raise TypeError(f"{self._name or 'tvmlite.Function'}: packed functions take positional arguments only, "
                    f"got keywords {sorted(names)}")


cdef void _enable_function_vectorcall():
    """Point Function's type at the per-instance vectorcall slot (Cython does not do this for __call__)."""
    cdef Function probe = Function.__new__(Function)
    cdef PyTypeObject* tp = <PyTypeObject*>Function
    tp.tp_vectorcall_offset = <Py_ssize_t>(<char*>&probe._vectorcall - <char*><PyObject*>probe)
    tp.tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL


_enable_function_vectorcall()


cdef int call_function(Function func, PyObject** args, Py_ssize_t n, TVMLiteAny* result) except -1:
    """Call func with Python arguments args[0:n]; result receives an owned value."""
    global tvmlite_gil_call_depth
    cdef TVMLiteAny stack_values[MAX_STACK_ARGS]
    cdef TVMLiteObject* stack_temps[MAX_STACK_ARGS]
    cdef TVMLiteTensorView tensor_views[MAX_STACK_ARGS]
    cdef TVMLiteAny* values = stack_values
    cdef TVMLiteObject** temps = stack_temps
    cdef Py_ssize_t i, j, done = 0
    cdef TVMLiteObject* h = func.chandle
    cdef TVMLiteFunctionCell* cell
    cdef int ret, saved_depth
    cdef bint hold_objects = False
    if h == NULL or h.type_index != kTVMLiteFunction:
        _raise_uncallable(func)
    if n > MAX_STACK_ARGS:
        values = <TVMLiteAny*>malloc(sizeof(TVMLiteAny) * n)
        temps = <TVMLiteObject**>malloc(sizeof(TVMLiteObject*) * n)
        if values == NULL or temps == NULL:
            free(values)
            free(temps)
            raise MemoryError()
    try:
        for i in range(n):
            temps[i] = NULL
            done = i + 1
            arg = <object>args[i]
            if isinstance(arg, ObjectBase) and (<ObjectBase>arg).chandle != NULL:  # objects: the common case
                values[i].type_index = (<ObjectBase>arg).chandle.type_index
                values[i].reserved = 0
                values[i].v_obj = (<ObjectBase>arg).chandle
                if hold_objects:
                    TVMLiteObjectIncRef(values[i].v_obj)
                    temps[i] = values[i].v_obj
                continue
            # numpy arrays travel as borrowed views in this call's stack (first MAX_STACK_ARGS arguments).
            if i < MAX_STACK_ARGS and numpy_view_arg(arg, &tensor_views[i], &values[i]):
                continue
            if not hold_objects and not _converts_without_python_code(arg):
                # Converting arg may run Python code, which may re-initialise the wrapper of an object argument
                # and so drop the object an earlier slot borrows: from here on, object arguments are held.
                hold_objects = True
                for j in range(i):
                    if values[j].type_index >= kTVMLiteStaticObjectBegin and temps[j] == NULL:
                        TVMLiteObjectIncRef(values[j].v_obj)
                        temps[j] = values[j].v_obj
            make_arg(arg, &values[i], &temps[i], func, i)
        cell = <TVMLiteFunctionCell*>object_cell(h)
        result.type_index = kTVMLiteNone
        result.v_int64 = 0
        if cell.flags & kTVMLiteFunctionLongRunning:
            saved_depth = tvmlite_gil_call_depth
            tvmlite_gil_call_depth = 0  # callbacks from inside must take the GIL back
            with nogil:
                ret = cell.safe_call(h, values, <int32_t>n, result)
            tvmlite_gil_call_depth = saved_depth
        else:
            tvmlite_gil_call_depth += 1
            ret = cell.safe_call(h, values, <int32_t>n, result)
            tvmlite_gil_call_depth -= 1
    finally:
        for i in range(done):
            if temps[i] != NULL:
                TVMLiteObjectDecRef(temps[i])
        if values != stack_values:
            free(values)
            free(temps)
    if ret != 0:
        raise_last_error()
    return 0


# ---------------------------------------------------------------------------------------------------------------
# Python callables called from C++
# ---------------------------------------------------------------------------------------------------------------

cdef extern from "py_callback.h":
    int tvmlite_gil_call_depth
    int (*tvmlite_py_callback_impl)(void*, const TVMLiteAny*, int32_t, TVMLiteAny*)
    int (*tvmlite_py_raise_impl)()
    int (*tvmlite_py_set_result_impl)(PyObject*, TVMLiteAny*)
    int TVMLitePyCallback(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result) nogil
    object PyObject_Vectorcall(object callable, PyObject** args, size_t nargsf, PyObject* kwnames)


cdef int _py_callback_impl(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result) noexcept:
    """Call the Python callable behind a Function (GIL held). An exception is kept whole in the error's payload."""
    cdef PyObject* stack_argv[MAX_STACK_ARGS]
    cdef PyObject** argv = stack_argv
    cdef TVMLiteAny view
    cdef TVMLiteObject* temp = NULL
    cdef int32_t i
    cdef list keep = None
    try:
        pyfunc = <object>(<TVMLiteFunctionCell*>object_cell(<TVMLiteObject*>self)).resource
        if num_args > MAX_STACK_ARGS:
            keep = [make_ret_view(&args[i]) for i in range(num_args)]
            rv = pyfunc(*keep)
        else:
            keep = [make_ret_view(&args[i]) for i in range(num_args)] if num_args else None
            for i in range(num_args):
                argv[i] = <PyObject*>keep[i]
            rv = PyObject_Vectorcall(pyfunc, argv, num_args, NULL)
        if rv is None:
            return 0  # result is already None
        make_arg(rv, &view, &temp, "callback return value", 0)
        try:
            check_call(TVMLiteAnyViewToOwned(&view, result))
        finally:
            TVMLiteObjectDecRef(temp)
        return 0
    except BaseException as exc:
        set_raised_from_py_exception(exc)
        return -1


cdef extern from "Python.h":
    void PyErr_Fetch(PyObject** ptype, PyObject** pvalue, PyObject** ptb)
    void PyErr_NormalizeException(PyObject** ptype, PyObject** pvalue, PyObject** ptb)
    int PyException_SetTraceback(PyObject* ex, PyObject* tb)
    void Py_XDECREF(PyObject* o)


cdef int _py_raise_impl() noexcept:
    """The Python exception being raised (by a callback) becomes the pending tvmlite error, kept whole."""
    cdef PyObject* etype = NULL
    cdef PyObject* evalue = NULL
    cdef PyObject* etb = NULL
    PyErr_Fetch(&etype, &evalue, &etb)
    PyErr_NormalizeException(&etype, &evalue, &etb)
    if etb != NULL:
        PyException_SetTraceback(evalue, etb)
    exc = <object>evalue
    Py_XDECREF(etype)
    Py_XDECREF(evalue)
    Py_XDECREF(etb)
    set_raised_from_py_exception(exc)
    return -1


cdef int _py_set_result_impl(PyObject* rv, TVMLiteAny* result) noexcept:
    cdef TVMLiteAny view
    cdef TVMLiteObject* temp = NULL
    try:
        make_arg(<object>rv, &view, &temp, "callback return value", 0)
        try:
            check_call(TVMLiteAnyViewToOwned(&view, result))
        finally:
            TVMLiteObjectDecRef(temp)
        return 0
    except BaseException as exc:
        set_raised_from_py_exception(exc)
        return -1


tvmlite_py_callback_impl = _py_callback_impl
tvmlite_py_raise_impl = _py_raise_impl
tvmlite_py_set_result_impl = _py_set_result_impl


cdef TVMLiteObject* function_handle_from_callable(object pyfunc) except NULL:
    """A new Function object that calls pyfunc."""
    cdef TVMLiteObject* out = NULL
    if isinstance(pyfunc, Function):
        if (<Function>pyfunc).chandle == NULL:
            raise ValueError("cannot use a Function whose handle is null")
        TVMLiteObjectIncRef((<Function>pyfunc).chandle)
        return (<Function>pyfunc).chandle
    if not callable(pyfunc):
        raise TypeError(f"expected a callable, got {type(pyfunc).__name__}")
    Py_INCREF(pyfunc)
    # On failure TVMLiteFunctionCreate calls the deleter itself, so the reference is never leaked.
    check_call(TVMLiteFunctionCreate(<void*>pyfunc, TVMLitePyCallback, _release_py_object, &out))
    return out


cdef Function make_function(TVMLiteObject* h, object name):
    """Wrap a function handle (taking its reference) as a Function, whatever class is registered for it."""
    cls = _class_for_index(h.type_index)
    if not issubclass(cls, Function):  # nothing registered for runtime.Function (the core used on its own)
        cls = Function
    cdef Function f = <Function>TVMLiteNewInstance(cls)
    f.chandle = h
    f._name = name
    return f


def convert_to_function(pyfunc, name=None):
    """Wrap a Python callable as a :class:`Function` that C++ can call."""
    return make_function(function_handle_from_callable(pyfunc),
                         name if name is not None else getattr(pyfunc, "__qualname__", None))


def convert(value):
    """Convert a Python value to its tvmlite form: list/tuple -> Array, dict -> Map, callable -> Function, ...

    Values that have no object form (ints, floats, str, None) come back unchanged.
    """
    cdef TVMLiteAny view, owned
    cdef TVMLiteObject* temp = NULL
    make_arg(value, &view, &temp, "convert", 0)
    try:
        check_call(TVMLiteAnyViewToOwned(&view, &owned))
    finally:
        TVMLiteObjectDecRef(temp)
    return make_ret(&owned)


# ---------------------------------------------------------------------------------------------------------------
# Global registry
# ---------------------------------------------------------------------------------------------------------------

def get_global_func(str name, bint allow_missing=False):
    """The global function registered under name; None or ValueError when there is none."""
    cdef TVMLiteObject* out = NULL
    check_call(TVMLiteFunctionGetGlobal(c_name(name, "get_global_func: name"), &out))
    if out == NULL:
        if allow_missing:
            return None
        raise ValueError(f"Cannot find global function {name}")
    return make_function(out, name)


def register_global_func(str name, func, bint override=False):
    """Register func (a callable or Function) as a global function; ValueError when taken and not override."""
    cdef TVMLiteObject* h
    cdef bytes cname = c_name(name, "register_func: name")
    if not callable(func):
        raise TypeError(f"register_func: '{name}' must be registered with a callable, got {type(func).__name__}")
    h = function_handle_from_callable(func)
    try:
        check_call(TVMLiteFunctionSetGlobal(cname, h, 1 if override else 0))
    finally:
        TVMLiteObjectDecRef(h)


def remove_global_func(str name):
    check_call(TVMLiteFunctionRemoveGlobal(c_name(name, "remove_global_func: name")))


def list_global_func_names():
    """Names of all registered global functions."""
    cdef TVMLiteObject* out = NULL
    cdef TVMLiteSeqCell* cell
    cdef TVMLiteStringCell* s
    check_call(TVMLiteFunctionListGlobalNames(&out))
    try:
        cell = <TVMLiteSeqCell*>object_cell(out)
        names = []
        for i in range(cell.size):
            s = <TVMLiteStringCell*>object_cell(cell.data[i].v_obj)
            names.append(PyUnicode_DecodeUTF8(s.data, s.size, "surrogateescape"))
        return names
    finally:
        TVMLiteObjectDecRef(out)
