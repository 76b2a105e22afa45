# object.pxi: the handle class, the type-index -> Python class table, and reflected field access.

cdef extern from "fast_new.h":
    object TVMLiteNewInstance(object cls)
    PyObject* (*tvmlite_init_by_ctor_impl)(PyObject* self, PyObject** args, Py_ssize_t nargs)
    int TVMLiteInstallInitByCtor(object cls) except -1
    int (*tvmlite_ctor_init_impl)(PyObject* self, PyObject* ctor, PyObject** args, Py_ssize_t nargs)
    int TVMLiteInstallConstructor(object cls, object ctor) except -1

# Classes registered with register_object, indexed by type index (None where nothing is registered).
cdef list _REGISTERED = []
# Resolved classes: _REGISTERED plus, for unregistered types, the nearest registered ancestor. Rebuilt lazily.
cdef list _RESOLVED = []
# The type index each class was registered for; the core's own bases (Function, ArrayBase...) are seeded in core.pyx.
cdef dict _CLASS_INDEX = {}
# What a class's instances may hold: objects of this index or a child (from the nearest registered class in its MRO).
cdef dict _ADOPTABLE = {}


cdef class ObjectBase:
    """Base of every Python class that wraps a tvmlite object; holds one strong reference to it."""
    cdef TVMLiteObject* chandle
    cdef object __weakref__

    def __dealloc__(self):
        if self.chandle != NULL:
            TVMLiteObjectDecRef(self.chandle)
            self.chandle = NULL

    @property
    def handle(self):
        """Address of the object (an int), or None when this wrapper holds nothing."""
        return None if self.chandle == NULL else <size_t>self.chandle

    @property
    def type_key(self):
        return _type_key_of(self._checked_handle_index())

    @property
    def type_index(self):
        return self._checked_handle_index()

    cdef int32_t _checked_handle_index(self) except -1:
        if self.chandle == NULL:
            raise ValueError(f"{type(self).__name__}: the object handle is null (never constructed or released)")
        return self.chandle.type_index

    cdef void* _checked_cell(self, int32_t expected_index) except NULL:
        """The C cell after the header, once the object is known to be of expected_index (whose layout we read).
        A wrapper can hold another type (a constructor returning something else): reading it would be a crash."""
        if self._checked_handle_index() != expected_index:
            raise TypeError(f"{type(self).__name__} holds a {_type_key_of(self.chandle.type_index)}, "
                            f"not a {_type_key_of(expected_index)}")
        return object_cell(self.chandle)

    def same_as(self, other):
        """Whether both refer to the same object (identity, not structure)."""
        return isinstance(other, ObjectBase) and self.chandle == (<ObjectBase>other).chandle

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        return not self.same_as(other)

    def __hash__(self):
        return <size_t>self.chandle >> 4

    def __repr__(self):
        if self.chandle == NULL:
            return f"<{type(self).__name__} (null)>"
        cdef const TVMLiteFieldInfo* f
        cdef TVMLiteAny out
        fields = _fields_of(self.chandle.type_index)
        if not fields:
            return f"{_type_key_of(self.chandle.type_index)}(0x{<size_t>self.chandle:x})"
        parts = []
        for p in fields:  # read through the getters: the class may lack descriptors for a subtype's fields
            f = <const TVMLiteFieldInfo*><size_t>p
            out.type_index = kTVMLiteNone
            check_call(f.getter(<char*>self.chandle + f.offset, &out))
            parts.append(f"{byte_array_str(f.name)}={make_ret(&out)!r}")
        return f"{_type_key_of(self.chandle.type_index)}({', '.join(parts)})"

    def __dir__(self):
        base = set(object.__dir__(self))
        if self.chandle != NULL:
            base.update(_field_names_of(self.chandle.type_index))
        return sorted(base)


cdef object _init_by_ctor(object self, PyObject** args, Py_ssize_t nargs):
    """ObjectBase.__init_handle_by_constructor__(fconstructor, *args): the object becomes fconstructor(*args)."""
    cdef TVMLiteAny result
    if not isinstance(self, ObjectBase):
        raise TypeError("__init_handle_by_constructor__ must be called on a tvmlite object")
    if nargs < 1 or not isinstance(<object>args[0], Function):
        raise TypeError(f"__init_handle_by_constructor__: fconstructor must be a Function, "
                        f"got {type(<object>args[0]).__name__ if nargs else 'nothing'}")
    call_function(<Function>args[0], args + 1, nargs - 1, &result)
    if result.type_index < kTVMLiteStaticObjectBegin:
        TVMLiteAnyRelease(&result)
        raise TypeError(f"__init_handle_by_constructor__: {(<Function>args[0])._name or 'constructor'} "
                        f"did not return an object")
    adopt_handle(<ObjectBase>self, result.v_obj)
    return None


cdef int32_t _adoptable_index(object cls) except -1:
    """The type every object held by an instance of cls must have (or derive from)."""
    found = _ADOPTABLE.get(cls)
    if found is None:
        found = next((_CLASS_INDEX[c] for c in cls.__mro__ if c in _CLASS_INDEX), kTVMLiteObject)
        _ADOPTABLE[cls] = found
    return found


# One-entry cache of _adoptable_index for the hot path (constructions tend to repeat one class); cleared with it.
cdef object _adopt_cache_cls = None
cdef int32_t _adopt_cache_index = kTVMLiteObject


cdef inline int adopt_handle(ObjectBase obj, TVMLiteObject* h) except -1:
    """Make obj hold h once h's type fits obj's class: a Function holding a Pair would jump to garbage when called,
    and a Pair wrapper holding anything else would read foreign fields. Takes over h's reference, and drops it
    when h does not fit."""
    cdef int32_t want
    if type(obj) is _adopt_cache_cls:
        want = _adopt_cache_index
    else:
        want = _adopt_lookup(obj, h)
    if h.type_index != want and want != kTVMLiteObject and not TVMLiteTypeIsInstance(h.type_index, want):
        return _refuse_adoption(obj, h, want)
    if obj.chandle != NULL:
        TVMLiteObjectDecRef(obj.chandle)
    obj.chandle = h
    return 0


cdef int32_t _adopt_lookup(ObjectBase obj, TVMLiteObject* h) except -1:
    """_adoptable_index for obj's class, remembered in the one-entry cache. Drops h on failure."""
    global _adopt_cache_cls, _adopt_cache_index
    try:
        want = _adoptable_index(type(obj))
    except BaseException:
        TVMLiteObjectDecRef(h)
        raise
    _adopt_cache_cls, _adopt_cache_index = type(obj), want
    return want


cdef int _refuse_adoption(ObjectBase obj, TVMLiteObject* h, int32_t want) except -1:
    cdef int32_t got = h.type_index
    TVMLiteObjectDecRef(h)
    raise TypeError(f"{type(obj).__name__} holds {_type_key_of(want)} objects; the constructor returned a "
                    f"{_type_key_of(got)}")


cdef void _clear_adoption_caches():
    global _adopt_cache_cls
    _ADOPTABLE.clear()
    _adopt_cache_cls = None


# A cdef function returning object returns NULL with the exception set: the C API convention of a method.
tvmlite_init_by_ctor_impl = <PyObject* (*)(PyObject*, PyObject**, Py_ssize_t) noexcept>_init_by_ctor


cdef int _ctor_init(PyObject* self, PyObject* ctor, PyObject** args, Py_ssize_t nargs) except -1:
    """tp_init of a class with a C++ constructor: the object becomes ctor(*args)."""
    cdef TVMLiteAny result
    if not isinstance(<object>ctor, Function):
        raise TypeError(f"{type(<object>self).__name__}._tvmlite_ctor must be a Function")
    call_function(<Function>ctor, args, nargs, &result)
    if result.type_index < kTVMLiteStaticObjectBegin:
        TVMLiteAnyRelease(&result)
        raise TypeError(f"{(<Function>ctor)._name or 'constructor'} did not return an object")
    adopt_handle(<ObjectBase><object>self, result.v_obj)
    return 0


tvmlite_ctor_init_impl = <int (*)(PyObject*, PyObject*, PyObject**, Py_ssize_t) noexcept>_ctor_init


def _install_constructor(cls, Function ctor):
    """cls(*args) makes its object with ctor(*args) (a C++ constructor), in one C call."""
    if not (isinstance(cls, type) and issubclass(cls, ObjectBase)):
        raise TypeError(f"_install_constructor: {cls!r} must be a subclass of tvmlite.Object")
    TVMLiteInstallConstructor(cls, ctor)


cdef inline object _type_key_of(int32_t tindex):
    cdef const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(tindex)
    return "<unknown>" if info == NULL else byte_array_str(info.type_key)


cdef object _field_entry(const TVMLiteFieldInfo* f, int32_t owner, bint with_owner):
    if with_owner:
        return (<size_t>f, owner)
    return <size_t>f


cdef list _fields_of(int32_t tindex, bint with_owner=False):
    """All reflected fields of a type, inherited ones first, as pointers wrapped in ints (or (pointer, owner type
    index) pairs with_owner)."""
    cdef const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(tindex)
    cdef const TVMLiteTypeInfo* anc
    cdef list out = []
    cdef int32_t d, i
    if info == NULL:
        return out
    for d in range(info.type_depth):
        anc = TVMLiteGetTypeInfo(info.ancestors[d])
        for i in range(anc.num_fields):
            out.append(_field_entry(&anc.fields[i], anc.type_index, with_owner))
    for i in range(info.num_fields):
        out.append(_field_entry(&info.fields[i], tindex, with_owner))
    return out


cdef tuple _field_names_of(int32_t tindex):
    cdef const TVMLiteFieldInfo* f
    names = []
    for p in _fields_of(tindex):
        f = <const TVMLiteFieldInfo*><size_t>p
        names.append(byte_array_str(f.name))
    return tuple(names)


cdef class FieldDescriptor:
    """Attribute access to one reflected field: reads through the field's C getter, no dictionary lookups."""
    cdef const TVMLiteFieldInfo* info
    cdef int32_t owner_index  # the type that declares the field; the offset is only valid inside its objects
    cdef readonly str name
    cdef readonly str type_str

    cdef ObjectBase _checked_owner(self, object obj):
        """obj as an ObjectBase whose object really has this field (a wrong offset would read foreign memory)."""
        if self.info == NULL or not isinstance(obj, ObjectBase):
            raise TypeError(f"field descriptor '{self.name}' used on {type(obj).__name__}")
        cdef ObjectBase o = <ObjectBase>obj
        if o.chandle == NULL:
            raise ValueError(f"cannot access field '{self.name}': the object handle is null")
        if o.chandle.type_index != self.owner_index and not TVMLiteTypeIsInstance(o.chandle.type_index,
                                                                                  self.owner_index):
            raise TypeError(f"field '{self.name}' belongs to {_type_key_of(self.owner_index)}, "
                            f"not {_type_key_of(o.chandle.type_index)}")
        return o

    def __get__(self, obj, objtype):
        cdef TVMLiteAny out
        if obj is None:
            return self
        cdef ObjectBase o = self._checked_owner(obj)
        out.type_index = kTVMLiteNone
        check_call(self.info.getter(<char*>o.chandle + self.info.offset, &out))
        return make_ret(&out)

    def __set__(self, obj, value):
        cdef TVMLiteAny arg
        cdef TVMLiteObject* temp = NULL
        cdef ObjectBase o = self._checked_owner(obj)
        if not (self.info.flags & kTVMLiteFieldWritable):
            raise AttributeError(f"field '{self.name}' of {_type_key_of(self.owner_index)} is read-only")
        make_arg(value, &arg, &temp, f"{_type_key_of(self.owner_index)}.{self.name}", 0)
        try:
            check_call(TVMLiteObjectSetField(o.chandle, self.info, &arg))
        finally:
            TVMLiteObjectDecRef(temp)

    def __delete__(self, obj):
        raise AttributeError(f"field '{self.name}' of {_type_key_of(self.owner_index)} cannot be deleted")

    def __repr__(self):
        return f"<field {self.name}: {self.type_str}>"


cdef object _class_for_index(int32_t tindex):
    """The Python class for a type index: its registered class, else its nearest registered ancestor's."""
    cdef const TVMLiteTypeInfo* info
    cdef int32_t d
    if tindex < len(_RESOLVED):
        cls = _RESOLVED[tindex]
        if cls is not None:
            return cls
    else:
        _RESOLVED.extend([None] * (tindex + 1 - len(_RESOLVED)))
    cls = _REGISTERED[tindex] if tindex < len(_REGISTERED) else None
    if cls is None:
        info = TVMLiteGetTypeInfo(tindex)
        cls = ObjectBase
        if info != NULL:
            for d in range(info.type_depth - 1, -1, -1):
                a = info.ancestors[d]
                if a < len(_REGISTERED) and _REGISTERED[a] is not None:
                    cls = _REGISTERED[a]
                    break
    _RESOLVED[tindex] = cls
    return cls


cdef object make_object(TVMLiteObject* h):
    """Wrap a handle (taking over its reference) in its Python class, without running __init__."""
    cdef int32_t tindex = h.type_index
    cls = _RESOLVED[tindex] if tindex < len(_RESOLVED) else None
    if cls is None:
        cls = _class_for_index(tindex)
    cdef ObjectBase obj = <ObjectBase>TVMLiteNewInstance(cls)
    obj.chandle = h
    return obj


def _type_key_to_index(str type_key, bint allow_missing=False):
    """Type index of a key; None (allow_missing) or KeyError when it is not registered."""
    cdef int32_t out
    if TVMLiteTypeKeyToIndex(c_name(type_key, "type key"), &out) != 0:
        if allow_missing:
            drop_last_error()
            return None
        raise_last_error()
    return out


def _type_info(int32_t tindex):
    """(type_key, ancestors, fields) of a type index; fields are (name, type_str, static_type_index, writable)."""
    cdef const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(tindex)
    cdef const TVMLiteFieldInfo* f
    if info == NULL:
        raise KeyError(f"unknown type index {tindex}")
    ancestors = tuple(info.ancestors[d] for d in range(info.type_depth))
    fields = []
    for p in _fields_of(tindex):
        f = <const TVMLiteFieldInfo*><size_t>p
        fields.append((byte_array_str(f.name), byte_array_str(f.type_str), f.static_type_index,
                       bool(f.flags & kTVMLiteFieldWritable)))
    return byte_array_str(info.type_key), ancestors, tuple(fields)


def _register_object_class(int32_t tindex, cls):
    """Map a type index to a Python class and give the class one descriptor per reflected field.

    Fields the class defines itself (a property of the same name) are left alone.
    """
    cdef FieldDescriptor desc
    cdef const TVMLiteFieldInfo* f
    cdef int32_t base_index
    if not (isinstance(cls, type) and issubclass(cls, ObjectBase)):
        raise TypeError(f"register_object: {cls!r} must be a subclass of tvmlite.Object")
    if TVMLiteGetTypeInfo(tindex) == NULL:
        raise KeyError(f"register_object: unknown type index {tindex}")
    base_index = _adoptable_index(cls.__mro__[1]) if len(cls.__mro__) > 1 else kTVMLiteObject
    if not TVMLiteTypeIsInstance(tindex, base_index):
        raise TypeError(f"register_object: {cls.__name__} derives from a class for {_type_key_of(base_index)}, "
                        f"so it cannot stand for {_type_key_of(tindex)}, which is not one")
    _CLASS_INDEX[cls] = tindex
    _clear_adoption_caches()
    if tindex >= len(_REGISTERED):
        _REGISTERED.extend([None] * (tindex + 1 - len(_REGISTERED)))
    _REGISTERED[tindex] = cls
    _RESOLVED.clear()  # ancestors' resolutions may change; rebuilt lazily
    for p, owner in _fields_of(tindex, True):
        f = <const TVMLiteFieldInfo*><size_t>p
        name = byte_array_str(f.name)
        if name in cls.__dict__ and not isinstance(cls.__dict__[name], FieldDescriptor):
            continue
        desc = FieldDescriptor.__new__(FieldDescriptor)
        desc.info = f
        desc.owner_index = owner
        desc.name = name
        desc.type_str = byte_array_str(f.type_str)
        setattr(cls, name, desc)
    return cls


def _define_object_type(str type_key, int32_t parent_index, list fields):
    """Define a type in Python, atomically: fields is [(name, type_str, static_type_index, optional)], where
    DYN_FIELD_SELF stands for the type itself. Returns its index.

    Defining the same key again with the same parent and fields returns the same index; anything else is a
    ValueError (a type's layout never changes).
    """
    cdef int32_t tindex
    cdef list encoded = dyn_field_specs(type_key, fields)  # alive until the call returns: specs borrow its names
    cdef Py_ssize_t n = len(encoded), i
    cdef TVMLiteDynFieldSpec* specs = <TVMLiteDynFieldSpec*>malloc(sizeof(TVMLiteDynFieldSpec) * (n + 1))
    if specs == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            name, type_str, static_index, optional = encoded[i]
            specs[i].name = bytes_view(name)
            specs[i].type_str = bytes_view(type_str)
            specs[i].static_type_index = static_index
            specs[i].flags = kTVMLiteFieldOptional if optional else 0
        check_call(TVMLiteTypeDefineDynamic(c_name(type_key, "register_object: type key"), parent_index, specs,
                                            <int32_t>n, &tindex))
    finally:
        free(specs)
    return tindex


DYN_FIELD_SELF = kTVMLiteDynFieldSelf


def _type_is_dynamic(int32_t tindex):
    """Whether tindex names a type defined at run time (from Python)."""
    return TVMLiteTypeIsDynamic(tindex) != 0


def _dyn_object_init(ObjectBase self, int32_t tindex, tuple values):
    """Construct a Python-defined object in place from its field values (in field order)."""
    cdef int32_t n = len(values)
    cdef TVMLiteAny* args = <TVMLiteAny*>malloc(sizeof(TVMLiteAny) * (n + 1))
    cdef TVMLiteObject** temps = <TVMLiteObject**>malloc(sizeof(TVMLiteObject*) * (n + 1))
    cdef TVMLiteObject* out = NULL
    cdef int32_t i, done = 0
    if args == NULL or temps == NULL:
        free(args)
        free(temps)
        raise MemoryError()
    try:
        for i in range(n):
            temps[i] = NULL
            make_arg(values[i], &args[i], &temps[i], _type_key_of(tindex), i)
            done = i + 1
        check_call(TVMLiteDynObjectCreate(tindex, args, n, &out))
    finally:
        for i in range(done):
            TVMLiteObjectDecRef(temps[i])
        free(args)
        free(temps)
    adopt_handle(self, out)


def _object_live_count():
    """Number of live C++ objects in the process (for leak tests)."""
    return TVMLiteObjectLiveCount()
