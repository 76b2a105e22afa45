"""Objects and helpers for tests and benchmarks (the C++ side is csrc/runtime/testing.cc).

The ``testing.*`` global functions are bound here lazily: ``from tvmlite.testing import echo, nop, call_n``.
"""
from ._ffi import core
from ._ffi.registry import _init_api, get_global_func, register_object
from .runtime.object import Object

__all__ = ["Pair", "object_count"]


@register_object("testing.Pair")
class Pair(Object):
    """A C++ object with two reflected fields, ``first`` and ``second``, of any type."""

    __slots__ = ()  # state lives in C++; no per-wrapper __dict__ (cheaper to create)

    def __init__(self, first, second):
        self.__init_handle_by_constructor__(_PAIR_CTOR, first, second)


# Looked up once at import: a registry lookup per construction would double its cost.
_PAIR_CTOR = get_global_func("testing.Pair")


def object_count():
    """Live C++ objects in the process."""
    return core._object_live_count()


_init_api("testing", __name__)
