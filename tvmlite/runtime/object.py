"""tvmlite.Object: the Python base of every object type."""
from .._ffi import core
from .._ffi.registry import register_object

__all__ = ["Object"]


@register_object("runtime.Object")
class Object(core.ObjectBase):
    """Base class of tvmlite objects (a handle to a ref-counted C++ object).

    ``==`` compares identity (as ``same_as``); use ``tvmlite.structural_equal`` to compare contents.
    Objects pickle (and ``copy.deepcopy``) through ``tvmlite.save_json`` / ``tvmlite.load_json``.
    """

    __slots__ = ()

    def __reduce_ex__(self, protocol):
        # __reduce_ex__ rather than __reduce__: Cython gives every cdef base (ArrayBase, NDArrayBase, ...) a
        # __reduce__ that refuses to pickle the raw handle, and those bases precede Object in the MRO of
        # Array, NDArray, ...; nothing but `object` defines __reduce_ex__, so this one wins for every subclass.
        from .serialization import save_json, _object_from_json

        return (_object_from_json, (type(self), save_json(self)))
