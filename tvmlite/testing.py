"""Objects and helpers for tests and benchmarks (the C++ side is csrc/testing/testing.cc).

The ``testing.*`` global functions and types live in their own library, ``tvmlite/lib/libtvmlite_testing.so``,
not in libtvmlite.so: importing this module loads it (its static initializers register them in libtvmlite's
registry; loading it again is a no-op), so ``get_global_func("testing.echo")`` works only after
``import tvmlite.testing``. They are bound here lazily: ``from tvmlite.testing import echo, nop, call_n``.
"""
import ctypes
import os

from ._ffi import core
from ._ffi.registry import _init_api, register_object
from .runtime.object import Object

__all__ = ["Pair", "object_count"]

# After `core` (which loaded libtvmlite.so): the testing library's own reference to libtvmlite.so (found next to it)
# resolves to that copy. Kept referenced; ctypes never unloads a library.
_LIB = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libtvmlite_testing.so"))


@register_object("testing.Pair")
class Pair(Object):
    """A C++ object with two reflected fields, ``first`` and ``second``, of any type: ``Pair(first, second)``
    (its constructor is the C++ one, refl::init)."""

    __slots__ = ()  # state lives in C++; no per-wrapper __dict__ (cheaper to create)


def object_count():
    """Live C++ objects in the process."""
    return core._object_live_count()


_init_api("testing", __name__)
