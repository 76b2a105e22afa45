"""Objects and helpers for tests and benchmarks (the C++ side is csrc/runtime/testing.cc)."""
from ._ffi import core
from ._ffi.registry import register_object, get_global_func
from .runtime.object import Object

__all__ = ["Pair", "object_count"]


@register_object("testing.Pair")
class Pair(Object):
    """A C++ object with two reflected fields, ``first`` and ``second``, of any type."""

    def __init__(self, first, second):
        self.__init_handle_by_constructor__(_pair_ctor(), first, second)


_PAIR_CTOR = []


def _pair_ctor():
    # Looked up once: a registry lookup per construction would double its cost.
    if not _PAIR_CTOR:
        _PAIR_CTOR.append(get_global_func("testing.Pair"))
    return _PAIR_CTOR[0]


def object_count():
    """Live C++ objects in the process."""
    return core._object_live_count()
