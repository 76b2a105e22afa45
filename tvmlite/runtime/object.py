"""tvmlite.Object: the Python base of every object type."""
from .._ffi import core
from .._ffi.registry import register_object

__all__ = ["Object"]


@register_object("runtime.Object")
class Object(core.ObjectBase):
    """Base class of tvmlite objects (a handle to a ref-counted C++ object).

    ``==`` compares identity (as ``same_as``); use ``tvmlite.structural_equal`` to compare contents.
    """

    __slots__ = ()
