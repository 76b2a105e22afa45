"""Containers: Array, Map, ShapeTuple (C++ objects) and String (a Python str).

The protocols live here, once, over a few primitives of each FFI backend (``len``, item or key access, and
``MapBase.items``; see tvmlite/_ffi/primitives.py): ``collections.abc`` supplies iteration, ``in``, ``index``,
``count``, ``reversed`` and ``get``. Indexing itself stays in the backend: ``arr[i]`` is a hot path.
Equality stays identity for Array and Map (ObjectBase precedes the ABCs in the MRO), as for every object.
"""
from collections.abc import Mapping, Sequence

from .._ffi import core
from .._ffi.registry import register_object
from . import _ffi_api
from .object import Object

__all__ = ["Array", "Map", "ShapeTuple", "String", "convert"]


@register_object("runtime.Array")
class Array(core.ArrayBase, Object, Sequence):
    """An immutable sequence that C++ sees as ``Array<T>``. ``Array([1, 2])``; a list or tuple argument converts
    to one automatically."""

    __slots__ = ()

    def __init__(self, items=()):
        self.__init_handle_by_constructor__(_ffi_api.Array, *items)

    def __repr__(self):
        return repr(list(self)) if self.handle is not None else super().__repr__()


@register_object("runtime.Map")
class Map(core.MapBase, Object, Mapping):
    """An immutable insertion-ordered mapping that C++ sees as ``Map<K, V>``. A dict argument converts to one."""

    __slots__ = ()

    def __init__(self, mapping=None):
        flat = []
        for k, v in dict(mapping or {}).items():
            flat += (k, v)
        self.__init_handle_by_constructor__(_ffi_api.Map, *flat)

    # Lists rather than Mapping's views: what these have always returned (items() is the backend's).
    def keys(self):
        return [k for k, _ in self.items()]

    def values(self):
        return [v for _, v in self.items()]

    def __iter__(self):
        return iter(self.keys())

    def __repr__(self):
        if self.handle is None:
            return super().__repr__()
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.items()) + "}"


@register_object("runtime.ShapeTuple")
class ShapeTuple(core.ShapeTupleBase, Object, Sequence):
    """An immutable tuple of int64 dimensions."""

    __slots__ = ()

    def __init__(self, dims=()):
        self.__init_handle_by_constructor__(_ffi_api.ShapeTuple, *dims)

    def __eq__(self, other):
        if isinstance(other, (tuple, list, ShapeTuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self):
        return hash(tuple(self))

    def __repr__(self):
        return f"ShapeTuple({tuple(self)})" if self.handle is not None else super().__repr__()


class String(str):
    """A tvmlite string. Strings cross the FFI as Python ``str``; this subclass exists for TVM-style code."""

    __slots__ = ()


def convert(value):
    """Convert a Python value to its tvmlite object form: list/tuple -> Array, dict -> Map, callable -> Function.

    Example
    -------
    >>> tvmlite.runtime.convert([1, 2, 3])
    [1, 2, 3]
    """
    return core.convert(value)


register_object("runtime.Function")(core.Function)
