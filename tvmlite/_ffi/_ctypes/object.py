"""The handle class, the type-index -> Python class table, and reflected field access (the twin of object.pxi)."""
import ctypes
from ctypes import byref, c_int32, c_void_p

from .base import (LIB, TYPE_INDEX_OFFSET, ObjectDecRef, ObjectIncRef, TVMLiteAny, TVMLiteByteArray,
                   TVMLiteDynFieldSpec, as_c_int, byte_array_str, check_call, drop_last_error, kTVMLiteDynFieldSelf,
                   kTVMLiteFieldOptional, kTVMLiteFieldWritable, kTVMLiteObject, kTVMLiteStaticObjectBegin,
                   raise_last_error)
from ..values import c_name, dyn_field_specs

_i32_at = c_int32.from_address
_GetTypeInfo = LIB.TVMLiteGetTypeInfo
_IsInstance = LIB.TVMLiteTypeIsInstance

# Classes registered with register_object, by type index.
_REGISTERED = {}
# Classes this module gives a static type when nothing is registered (Function, Array...: set by their modules),
# so objects are usable when this core is imported on its own, without the tvmlite package.
_DEFAULTS = {}
# Resolved classes: registered, else nearest registered/default ancestor. Cleared on registration.
_RESOLVED = {}
# Reflected fields by type index, for ObjectBase.__getattr__: {name: FieldDescriptor}.
_FIELD_TABLES = {}
_TYPE_KEYS = {}
# The type index each class was registered for (default classes included), and what a class's instances may hold:
# objects of this index or a child (from the nearest registered class in its MRO).
_CLASS_INDEX = {}
_ADOPTABLE = {}


class ObjectBase:
    """Base of every Python class that wraps a tvmlite object; holds one strong reference to it.

    ``chandle`` is the object's address as an int, 0 when this wrapper holds nothing.
    """
    __slots__ = ("chandle", "__weakref__")

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        self.chandle = 0
        return self

    def __del__(self, _decref=ObjectDecRef):  # bound as a default: module globals may be gone at shutdown
        try:
            h = self.chandle
        except AttributeError:  # made without ObjectBase.__new__
            return
        if h:
            self.chandle = 0
            _decref(h)

    def __init_handle_by_constructor__(self, fconstructor, *args):
        """Construct the underlying object by calling ``fconstructor(*args)`` (a packed function)."""
        if not isinstance(fconstructor, _pf.Function):
            raise TypeError(f"__init_handle_by_constructor__: fconstructor must be a Function, "
                            f"got {type(fconstructor).__name__}")
        result = _pf.call_function(fconstructor, args)
        if result.type_index < kTVMLiteStaticObjectBegin:
            LIB.TVMLiteAnyRelease(byref(result))
            raise TypeError(f"__init_handle_by_constructor__: {fconstructor._name or 'constructor'} "
                            f"did not return an object")
        adopt_handle(self, result.v_obj)

    @property
    def handle(self):
        """Address of the object (an int), or None when this wrapper holds nothing."""
        return self.chandle or None

    @property
    def type_key(self):
        return _type_key_of(self._checked_handle_index())

    @property
    def type_index(self):
        return self._checked_handle_index()

    def _checked_handle_index(self):
        h = self.chandle
        if not h:
            raise ValueError(f"{type(self).__name__}: the object handle is null (never constructed or released)")
        return _i32_at(h + TYPE_INDEX_OFFSET).value

    def same_as(self, other):
        """Whether both refer to the same object (identity, not structure)."""
        return isinstance(other, ObjectBase) and self.chandle == other.chandle

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        return not self.same_as(other)

    def __hash__(self):
        return self.chandle >> 4

    def __reduce__(self):
        # Same refusal as the Cython core: pickling the address would double-free on unpickle.
        raise TypeError("self.chandle cannot be converted to a Python object for pickling")

    def __repr__(self):
        h = self.chandle
        if not h:
            return f"<{type(self).__name__} (null)>"
        tindex = _i32_at(h + TYPE_INDEX_OFFSET).value
        names = _field_names_of(tindex)
        if not names:
            return f"{_type_key_of(tindex)}(0x{h:x})"
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{_type_key_of(tindex)}({inner})"

    def __dir__(self):
        base = set(object.__dir__(self))
        if self.chandle:
            base.update(_field_names_of(_i32_at(self.chandle + TYPE_INDEX_OFFSET).value))
        return sorted(base)

    def __getattr__(self, name):
        # Only reached when normal lookup fails: reflected fields of objects whose class has no descriptors
        # (no class registered in this core, e.g. when it is imported on its own next to the Cython core).
        if not name.startswith("__") and name != "chandle":
            h = self.chandle
            if h:
                desc = _field_table(_i32_at(h + TYPE_INDEX_OFFSET).value).get(name)
                if desc is not None:
                    return desc.__get__(self, type(self))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _adoptable_index(cls):
    """The type every object held by an instance of cls must have (or derive from)."""
    found = _ADOPTABLE.get(cls)
    if found is None:
        found = _ADOPTABLE[cls] = next((_CLASS_INDEX[c] for c in cls.__mro__ if c in _CLASS_INDEX), kTVMLiteObject)
    return found


def adopt_handle(obj, h):
    """Make obj hold h once h's type fits obj's class: a Function holding a Pair would jump to garbage when called,
    and a Pair wrapper holding anything else would read foreign fields. Takes over h's reference, and drops it
    when h does not fit."""
    got = _i32_at(h + TYPE_INDEX_OFFSET).value
    try:
        want = _adoptable_index(type(obj))
        if got != want and want != kTVMLiteObject and not _IsInstance(got, want):
            raise TypeError(f"{type(obj).__name__} holds {_type_key_of(want)} objects; the constructor returned a "
                            f"{_type_key_of(got)}")
    except BaseException:
        ObjectDecRef(h)
        raise
    old, obj.chandle = obj.chandle, h
    if old:
        ObjectDecRef(old)


def new_reference(obj, null_message):
    """obj's handle with a reference added, for a callee that takes one over; ValueError(null_message) when obj
    holds no handle."""
    if not obj.chandle:
        raise ValueError(null_message)
    ObjectIncRef(obj.chandle)
    return obj.chandle


def _type_info_struct(tindex):
    """The registry's TVMLiteTypeInfo for an index, or None (tindex must fit in int32)."""
    p = _GetTypeInfo(tindex)
    return p.contents if p else None


def _type_key_of(tindex):
    key = _TYPE_KEYS.get(tindex)
    if key is None:
        info = _type_info_struct(tindex)
        if info is None:
            return "<unknown>"
        key = _TYPE_KEYS[tindex] = byte_array_str(info.type_key)
    return key


def _fields_of(tindex):
    """All reflected fields of a type, inherited ones first, as (TVMLiteFieldInfo in registry memory, index of the
    type that declares it) pairs: a field's offset is only valid inside objects of its declaring type."""
    info = _type_info_struct(tindex)
    if info is None:
        return []
    out = []
    for d in range(info.type_depth):
        anc = _type_info_struct(info.ancestors[d])
        out.extend((anc.fields[i], anc.type_index) for i in range(anc.num_fields))
    out.extend((info.fields[i], tindex) for i in range(info.num_fields))
    return out


def _field_names_of(tindex):
    return tuple(byte_array_str(f.name) for f, _ in _fields_of(tindex))


def _field_table(tindex):
    table = _FIELD_TABLES.get(tindex)
    if table is None:
        table = _FIELD_TABLES[tindex] = {d.name: d for d in (_make_descriptor(f, owner)
                                                             for f, owner in _fields_of(tindex))}
    return table


class FieldDescriptor:
    """Attribute access to one reflected field: reads through the field's C getter."""
    __slots__ = ("_name", "_type_str", "_getter", "_setter", "_offset", "_writable", "_owner", "_info_addr")

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        self._name = self._type_str = self._getter = self._setter = None
        self._offset, self._writable, self._owner = 0, False, -1
        return self

    @property
    def name(self):
        return self._name

    @property
    def type_str(self):
        return self._type_str

    def _checked_handle(self, obj):
        """obj's handle, checked to hold an object that really has this field (a wrong offset would read foreign
        memory)."""
        if self._getter is None or not isinstance(obj, ObjectBase):
            raise TypeError(f"field descriptor '{self._name}' used on {type(obj).__name__}")
        h = obj.chandle
        if not h:
            raise ValueError(f"cannot access field '{self._name}': the object handle is null")
        tindex = _i32_at(h + TYPE_INDEX_OFFSET).value
        if tindex != self._owner and not _IsInstance(tindex, self._owner):
            raise TypeError(f"field '{self._name}' belongs to {_type_key_of(self._owner)}, "
                            f"not {_type_key_of(tindex)}")
        return h

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        h = self._checked_handle(obj)
        out = TVMLiteAny()
        check_call(self._getter(h + self._offset, byref(out)))
        return _pf.make_ret(out)

    def __set__(self, obj, value):
        h = self._checked_handle(obj)
        if not self._writable:
            raise AttributeError(f"field '{self._name}' of {_type_key_of(self._owner)} is read-only")
        arg = TVMLiteAny()
        temps = []
        try:
            _pf.make_arg(value, arg, temps, f"{_type_key_of(self._owner)}.{self._name}", 0)
            # Through the C API, which checks the value against the field's declared type.
            check_call(LIB.TVMLiteObjectSetField(h, self._info_addr, byref(arg)))
        finally:
            _pf.release_temps(temps)

    def __delete__(self, obj):
        raise AttributeError(f"field '{self._name}' of {_type_key_of(self._owner)} cannot be deleted")

    def __repr__(self):
        return f"<field {self._name}: {self._type_str}>"


def _make_descriptor(f, owner):
    desc = FieldDescriptor.__new__(FieldDescriptor)
    desc._name = byte_array_str(f.name)
    desc._type_str = byte_array_str(f.type_str)
    if not f.getter:
        raise TypeError(f"field '{desc._name}' of {_type_key_of(owner)} has no getter")
    desc._getter = f.getter
    desc._setter = f.setter
    desc._offset = f.offset
    desc._writable = bool(f.flags & kTVMLiteFieldWritable) and bool(f.setter)
    desc._owner = owner
    desc._info_addr = ctypes.addressof(f)  # f views the registry's memory, which lives for the process
    return desc


def _class_for_index(tindex):
    """The Python class for a type index: its registered class, else its nearest registered ancestor's; static
    types without a registration get this core's own base class (ArrayBase for Array...)."""
    chain = [tindex]
    info = _type_info_struct(tindex)
    if info is not None:
        chain += [info.ancestors[d] for d in range(info.type_depth - 1, -1, -1)]
    cls = ObjectBase
    for t in chain:
        found = _REGISTERED.get(t) or _DEFAULTS.get(t)
        if found is not None:
            cls = found
            break
    _RESOLVED[tindex] = cls
    return cls


def make_object(h):
    """Wrap a handle (taking over its reference) in its Python class, without running __init__."""
    tindex = _i32_at(h + TYPE_INDEX_OFFSET).value
    cls = _RESOLVED.get(tindex) or _class_for_index(tindex)
    try:
        obj = cls.__new__(cls)
    except BaseException:
        ObjectDecRef(h)
        raise
    obj.chandle = h
    return obj


def set_default_class(tindex, cls):
    _DEFAULTS[tindex] = cls
    _CLASS_INDEX[cls] = tindex
    _RESOLVED.clear()
    _ADOPTABLE.clear()


def _type_key_to_index(type_key, allow_missing=False):
    """Type index of a key; None (allow_missing) or KeyError when it is not registered."""
    out = c_int32()
    if LIB.TVMLiteTypeKeyToIndex(c_name(type_key, "type key"), byref(out)) != 0:
        if allow_missing:
            drop_last_error()
            return None
        raise_last_error()
    return out.value


def _type_info(tindex):
    """(type_key, ancestors, fields) of a type index; fields are (name, type_str, static_type_index, writable)."""
    tindex = as_c_int(tindex)
    info = _type_info_struct(tindex)
    if info is None:
        raise KeyError(f"unknown type index {tindex}")
    ancestors = tuple(info.ancestors[d] for d in range(info.type_depth))
    fields = tuple((byte_array_str(f.name), byte_array_str(f.type_str), f.static_type_index,
                    bool(f.flags & kTVMLiteFieldWritable)) for f, _ in _fields_of(tindex))
    return byte_array_str(info.type_key), ancestors, fields


def _register_object_class(tindex, cls):
    """Map a type index to a Python class and give the class one descriptor per reflected field.

    Fields the class defines itself (a property of the same name) are left alone.
    """
    tindex = as_c_int(tindex)
    if not (isinstance(cls, type) and issubclass(cls, ObjectBase)):
        raise TypeError(f"register_object: {cls!r} must be a subclass of tvmlite.Object")
    if _type_info_struct(tindex) is None:
        raise KeyError(f"register_object: unknown type index {tindex}")
    base_index = _adoptable_index(cls.__mro__[1]) if len(cls.__mro__) > 1 else kTVMLiteObject
    if not _IsInstance(tindex, base_index):
        raise TypeError(f"register_object: {cls.__name__} derives from a class for {_type_key_of(base_index)}, "
                        f"so it cannot stand for {_type_key_of(tindex)}, which is not one")
    _CLASS_INDEX[cls] = tindex
    _ADOPTABLE.clear()
    _REGISTERED[tindex] = cls
    _RESOLVED.clear()  # ancestors' resolutions may change; rebuilt lazily
    for f, owner in _fields_of(tindex):
        desc = _make_descriptor(f, owner)
        if desc.name in cls.__dict__ and not isinstance(cls.__dict__[desc.name], FieldDescriptor):
            continue
        setattr(cls, desc.name, desc)
    return cls


def _define_object_type(type_key, parent_index, fields):
    """Define a type in Python, atomically: fields is [(name, type_str, static_type_index, optional)], where
    DYN_FIELD_SELF stands for the type itself. Returns its index.

    Defining the same key again with the same parent and fields returns the same index; anything else is a
    ValueError (a type's layout never changes).
    """
    ckey = c_name(type_key, "register_object: type key")
    parent_index = as_c_int(parent_index)
    encoded = dyn_field_specs(type_key, fields)  # alive until the call returns: specs borrow its names
    specs = (TVMLiteDynFieldSpec * max(len(encoded), 1))()
    for spec, (name, type_str, static_index, optional) in zip(specs, encoded):
        spec.name = TVMLiteByteArray(ctypes.cast(ctypes.c_char_p(name), c_void_p), len(name))
        spec.type_str = TVMLiteByteArray(ctypes.cast(ctypes.c_char_p(type_str), c_void_p), len(type_str))
        spec.static_type_index = as_c_int(static_index)
        spec.flags = kTVMLiteFieldOptional if optional else 0
    tindex = c_int32()
    check_call(LIB.TVMLiteTypeDefineDynamic(ckey, parent_index, specs, len(encoded), byref(tindex)))
    return tindex.value


DYN_FIELD_SELF = kTVMLiteDynFieldSelf


def _type_is_dynamic(tindex):
    """Whether tindex names a type defined at run time (from Python)."""
    return LIB.TVMLiteTypeIsDynamic(as_c_int(tindex)) != 0


def _dyn_object_init(self, tindex, values):
    """Construct a Python-defined object in place from its field values (in field order)."""
    if not isinstance(self, ObjectBase):
        raise TypeError(f"Argument 'self' has incorrect type (expected ObjectBase, got {type(self).__name__})")
    tindex = as_c_int(tindex)
    if not isinstance(values, tuple):
        raise TypeError(f"Argument 'values' has incorrect type (expected tuple, got {type(values).__name__})")
    out = c_void_p()
    args, temps = _pf.make_args(values, _type_key_of(tindex))
    try:
        check_call(LIB.TVMLiteDynObjectCreate(tindex, args, len(values), byref(out)))
    finally:
        _pf.release_temps(temps)
    adopt_handle(self, out.value)


def _object_live_count():
    """Number of live C++ objects in the process (for leak tests)."""
    return LIB.TVMLiteObjectLiveCount()


# Imported last: packed_func needs ObjectBase and make_object from this module (the .pxi files share one module).
from . import packed_func as _pf  # noqa: E402


def _install_constructor(cls, ctor):
    """cls(*args) makes its object with ctor(*args) (a C++ constructor)."""
    if not (isinstance(cls, type) and issubclass(cls, ObjectBase)):
        raise TypeError(f"_install_constructor: {cls!r} must be a subclass of tvmlite.Object")
    if not isinstance(ctor, _pf.Function):
        raise TypeError(f"_install_constructor: ctor must be a Function, got {type(ctor).__name__}")

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}() takes positional arguments only")
        self.__init_handle_by_constructor__(type(self)._tvmlite_ctor, *args)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    cls._tvmlite_ctor = ctor
    cls.__init__ = __init__
