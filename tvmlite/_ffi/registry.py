"""Registration: object types (``register_object``) and global functions (``register_func`` & co.)."""
from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Literal, TypeVar, overload

from . import core

if TYPE_CHECKING:
    _T = TypeVar("_T", bound=type)
    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["register_object", "register_func", "get_global_func", "list_global_func_names",
           "remove_global_func", "_init_api"]

_PY_TYPES = {int: (core.TYPE_INDEX_INT, "int"), float: (core.TYPE_INDEX_FLOAT, "float"),
             bool: (core.TYPE_INDEX_BOOL, "bool"), str: (core.TYPE_INDEX_STRING, "str")}
# register_object runs whole under this lock: its look-up, define and class set-up are one step for other threads.
_REGISTRATION_LOCK = threading.RLock()


@overload
def register_object(type_key: str | None = None) -> Callable[[_T], _T]: ...
@overload
def register_object(type_key: _T) -> _T: ...


def register_object(type_key=None):
    """Register a Python class for an object type (decorator).

    Objects of that type returned from C++ become instances of the class (without running ``__init__``).
    When ``type_key`` is not a C++ type and the class declares annotated fields, a **new object type** is defined
    at run time: its instances cross the FFI, live in Array/Map, are readable from C++ by reflection and
    round-trip through JSON and pickle. Such a class is constructed like a dataclass.

    Parameters
    ----------
    type_key : str, optional
        The type key; defaults to the class name.

    Returns
    -------
    decorator : Callable[[type], type]

    Example
    -------
    >>> @tvmlite.register_object("mylib.Point")
    ... class Point(tvmlite.Object):
    ...     x: int
    ...     y: float = 0.0
    >>> Point(1, y=2.5).y
    2.5
    """
    if isinstance(type_key, type):  # used as @register_object without arguments
        return register_object(type_key.__name__)(type_key)

    def register(cls):
        key = type_key or getattr(cls, "__name__", None)
        if not isinstance(key, str):
            raise TypeError(f"register_object: type_key must be a str, got {type(key).__name__}")
        if not (isinstance(cls, type) and issubclass(cls, core.ObjectBase)):
            raise TypeError(f"register_object('{key}'): {cls!r} must be a subclass of tvmlite.Object")
        with _REGISTRATION_LOCK:
            tindex = core._type_key_to_index(key, allow_missing=True)
            own_fields = _annotated_fields(cls)
            if tindex is not None and not core._type_is_dynamic(tindex):
                _check_matches_cpp_type(key, tindex, own_fields)
            elif tindex is None and not own_fields and not _has_python_defined_base(cls):
                raise ValueError(
                    f"register_object: type key '{key}' is not registered in C++. Declare annotated fields on "
                    f"{cls.__name__} to define a new object type from Python.")
            else:
                tindex = _define_type(key, cls, own_fields)
            # The class knows its index before other threads can get instances of it.
            set_index = "_tvmlite_type_index" not in cls.__dict__ and not _is_immutable(cls)
            if set_index:
                cls._tvmlite_type_index = tindex
            try:
                core._register_object_class(tindex, cls)
            except BaseException:
                if set_index:
                    del cls._tvmlite_type_index
                raise
            if not core._type_is_dynamic(tindex):
                _bind_cpp_constructor(cls, key)
        return cls

    return register


def _bind_cpp_constructor(cls, key):
    """Bind the constructor C++ declared with refl::init (the global "<key>.__init__"), if there is one, once: as
    ``cls._tvmlite_ctor``, and as the class's constructor unless the class writes its own ``__init__`` (which then
    calls ``self.__init_handle_by_constructor__(cls._tvmlite_ctor, ...)``)."""
    ctor = core.get_global_func(key + ".__init__", True)
    if ctor is None or _is_immutable(cls):
        return
    ctor._name = key  # argument errors then read "testing.Pair: argument #1 ...", as the call was written
    if "__init__" in cls.__dict__:
        cls._tvmlite_ctor = ctor
    else:
        core._install_constructor(cls, ctor)


def _is_immutable(cls):
    return not (cls.__flags__ & (1 << 9))  # Py_TPFLAGS_HEAPTYPE: classes built in C (the FFI core) are immutable


def _annotated_fields(cls):
    """(name, annotation) pairs declared by cls itself, in order; ClassVar annotations are not fields.

    String annotations (``from __future__ import annotations``) are resolved one by one in the class's module with
    the class itself in scope, so a self reference resolves and one unresolvable name does not untype the rest.
    """
    import typing

    ann = cls.__dict__.get("__annotations__", {})
    module = sys.modules.get(cls.__module__)
    globalns = dict(vars(module)) if module is not None else {}
    localns = {cls.__name__: cls}
    fields = []
    for name, hint in ann.items():
        if not isinstance(name, str):
            raise TypeError(f"register_object: {cls.__name__} has a non-str annotation name {name!r}")
        if isinstance(hint, str):
            try:
                hint = eval(hint, globalns, localns)  # what typing.get_type_hints does, per field
            except Exception:  # unresolvable: an untyped field
                pass
        if hint is typing.ClassVar or typing.get_origin(hint) is typing.ClassVar:
            continue
        if not name.startswith("_"):
            fields.append((name, hint))
    return fields


def _check_matches_cpp_type(key, tindex, own_fields):
    """Annotations on a class for a C++ type may only restate the C++ type's fields."""
    cpp_fields = [name for name, *_ in core._type_info(tindex)[2]]
    extra = [name for name, _ in own_fields if name not in cpp_fields]
    if extra:
        raise ValueError(f"register_object: '{key}' is a C++ type with fields {cpp_fields}; the class declares "
                         f"fields {extra} it does not have (a type key clash?)")


def _has_python_defined_base(cls):
    return any(getattr(b, "_tvmlite_fields", None) is not None for b in cls.__mro__[1:])


_MISSING = object()


def _field_type(annotation, cls, key):
    """(static type index, type string, optional) for a field annotation; index -1 means any value, and optional
    that None is a value too (Optional[int]; object fields accept None anyway)."""
    import typing

    if typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1 and len(args) < len(typing.get_args(annotation)):  # Optional[X]
            index, name, _ = _field_type(args[0], cls, key)
            # Any value, a self reference and object types accept None already.
            if index == -1 or index == core.DYN_FIELD_SELF or index >= core.TYPE_INDEX_STATIC_OBJECT_BEGIN:
                return index, name, False
            return index, f"Optional[{name}]", True
    if annotation is cls:  # a self reference: the type's index is only known once it is defined
        return core.DYN_FIELD_SELF, key, False
    if annotation in _PY_TYPES:
        index, name = _PY_TYPES[annotation]
        return index, name, False
    if isinstance(annotation, type) and issubclass(annotation, core.ObjectBase):
        index = getattr(annotation, "_tvmlite_type_index", None)
        if index is not None:
            return index, core._type_info(index)[0], False
        return core.TYPE_INDEX_OBJECT, "Object", False
    return -1, getattr(annotation, "__name__", None) or str(annotation), False


def _define_type(key, cls, own_fields):
    """Define (or find again, when identical) the run-time type for a class with annotated fields."""
    registered_base = next((b for b in cls.__mro__[1:] if "_tvmlite_type_index" in b.__dict__), None)
    parent = registered_base if getattr(registered_base, "_tvmlite_fields", None) is not None else None
    if parent is None and registered_base is not None and registered_base._tvmlite_type_index != core.TYPE_INDEX_OBJECT:
        raise TypeError(f"register_object('{key}'): cannot add fields to {registered_base.__name__}, a C++ type; "
                        f"types defined in Python derive from tvmlite.Object or another type defined in Python")
    for name, _ in own_fields:
        if hasattr(core.ObjectBase, name):
            raise ValueError(f"register_object('{key}'): field name '{name}' would hide tvmlite.Object.{name}")
    specs = []
    for name, ann in own_fields:
        index, type_str, optional = _field_type(ann, cls, key)
        specs.append((name, type_str, index, optional))
    # C++ checks the names (against the parent's too) and, for a key already defined, that the layout is the same.
    parent_index = parent._tvmlite_type_index if parent is not None else core.TYPE_INDEX_OBJECT
    tindex = core._define_object_type(key, parent_index, specs)
    defaults = dict(parent._tvmlite_defaults) if parent is not None else {}
    for name, _ in own_fields:
        value = cls.__dict__.get(name, _MISSING)
        if value is not _MISSING:
            defaults[name] = value
        else:
            defaults.pop(name, None)
    # C++ keeps the defaults too (checked against the field types): load_json fills a missing field with its default.
    try:
        core.get_global_func("runtime.DynTypeSetDefaults")(tindex, defaults)
    except (TypeError, ValueError) as err:
        raise type(err)(f"register_object('{key}'): bad field default: {err}") from None
    # Only once the type exists does the class change: the field descriptors take over its default values.
    for name in defaults:
        if name in cls.__dict__:
            delattr(cls, name)  # the default lives in __init__
    cls._tvmlite_fields = (parent._tvmlite_fields if parent is not None else ()) + tuple(n for n, _ in own_fields)
    cls._tvmlite_defaults = defaults
    if "__init__" not in cls.__dict__:
        cls.__init__ = _make_init(cls, tindex)
    return tindex


def _make_init(cls, tindex):
    fields = cls._tvmlite_fields
    defaults = cls._tvmlite_defaults

    def __init__(self, *args, **kwargs):
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} positional arguments but {len(args)} were given")
        values = list(args)
        for name in fields[len(args):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in defaults:
                values.append(defaults[name])
            else:
                raise TypeError(f"{cls.__name__}() missing required argument: '{name}'")
        if kwargs:
            dup = [k for k in kwargs if k in fields]
            what = "got multiple values for" if dup else "got an unexpected keyword argument"
            raise TypeError(f"{cls.__name__}() {what} '{(dup or list(kwargs))[0]}'")
        core._dyn_object_init(self, tindex, tuple(values))

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


@overload
def register_func(func_name: str, f: None = None, override: bool = False) -> Callable[[_F], _F]: ...
@overload
def register_func(func_name: str | _F, f: _F, override: bool = False) -> _F: ...
@overload
def register_func(func_name: _F) -> _F: ...


def register_func(func_name, f=None, override=False):
    """Register a Python function as a global packed function, callable from C++ and Python.

    Parameters
    ----------
    func_name : str or callable
        The global name; used bare as a decorator (``@register_func``) it is the function and its name is used.
    f : callable, optional
        The function; when omitted, returns a decorator.
    override : bool
        Replace an existing registration instead of raising ValueError.

    Example
    -------
    >>> @tvmlite.register_func("mylib.add_one")
    ... def add_one(x):
    ...     return x + 1
    >>> tvmlite.get_global_func("mylib.add_one")(1)
    2
    """
    if callable(func_name) and f is None:
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise TypeError(f"register_func: func_name must be a str, got {type(func_name).__name__}")

    def register(func):
        core.register_global_func(func_name, func, override)
        return func

    return register(f) if f is not None else register


@overload
def get_global_func(name: str, allow_missing: Literal[False] = False) -> core.Function: ...
@overload
def get_global_func(name: str, allow_missing: bool) -> core.Function | None: ...


def get_global_func(name, allow_missing=False):
    """The global function registered under ``name``.

    Raises ValueError when it is missing, unless ``allow_missing`` (then returns None).
    """
    if not isinstance(name, str):
        raise TypeError(f"get_global_func: name must be a str, got {type(name).__name__}")
    return core.get_global_func(name, allow_missing)


def list_global_func_names() -> list[str]:
    """Names of every registered global function."""
    return core.list_global_func_names()


def remove_global_func(name: str) -> None:
    """Remove a global function (no error when absent)."""
    core.remove_global_func(name)


def _init_api(namespace, target_module_name=None):
    """Bind the global functions ``namespace.*`` into a module, lazily: each is looked up on first access.

    Example: ``_init_api("relay.op", __name__)`` at the end of a module makes ``relay.op.add`` its ``add``.
    """
    target_module_name = target_module_name or namespace
    module = sys.modules[target_module_name]
    prefix = namespace + "."
    previous = module.__dict__.get("__getattr__")

    def __getattr__(name):
        f = core.get_global_func(prefix + name, True) if not name.startswith("__") else None
        if f is None:
            if previous is not None:
                return previous(name)
            raise AttributeError(f"module '{target_module_name}' has no attribute '{name}'")
        setattr(module, name, f)  # cache: later accesses never come here
        return f

    def __dir__():
        names = {n[len(prefix):] for n in core.list_global_func_names() if n.startswith(prefix)}
        return sorted(set(module.__dict__) | {n for n in names if "." not in n})

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
