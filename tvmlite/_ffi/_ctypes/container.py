"""The container primitives (twin of container.pxi): element access for Array, Map and ShapeTuple; Array and
ShapeTuple read their C cells. The Sequence/Mapping protocols over them are pure Python: tvmlite/runtime/container.py.
"""
import operator
from ctypes import byref, c_int64, c_size_t, sizeof

from .base import (ANY_SIZE, LIB, SEQ_DATA_OFFSET, SEQ_SIZE_OFFSET, SHAPE_DATA_OFFSET, SHAPE_SIZE_OFFSET,
                   ObjectIncRef, TVMLiteAny, check_call, kTVMLiteArray, kTVMLiteMap, kTVMLiteShape,
                   kTVMLiteStaticObjectBegin, raise_last_error)
from .object import ObjectBase, set_default_class
from .packed_func import make_arg, make_ret, release_temps

_ptr_at = c_size_t.from_address
_i64_at = c_int64.from_address
_any_at = TVMLiteAny.from_address
_DIM_SIZE = sizeof(c_int64)  # ShapeTuple dimensions are int64_t


def _normalize_index(i, n, what):
    i = operator.index(i)
    if i < 0:
        i += n
    if i < 0 or i >= n:
        raise IndexError(f"{what} index out of range")
    return i


def _check_kind(self, kind):
    """The handle, checked to hold an object of the container kind the wrapper reads (never foreign memory)."""
    tindex = self._checked_handle_index()
    if tindex != kind and not LIB.TVMLiteTypeIsInstance(tindex, kind):
        raise TypeError(f"{type(self).__name__} wraps an object of type {self.type_key}, not {_KEYS[kind]}")
    return self.chandle


def _cell_size(self, kind, size_offset):
    """Size field of an Array/ShapeTuple cell ({data, size, ...} after the header)."""
    return _i64_at(_check_kind(self, kind) + size_offset).value


_KEYS = {kTVMLiteArray: "runtime.Array", kTVMLiteMap: "runtime.Map", kTVMLiteShape: "runtime.ShapeTuple"}


class _CellSequence(ObjectBase):
    """len and item (or slice) access over a cell {data, size, ...}: a subclass names its kind, the size field's
    offset, the name in messages (_WHAT), what a slice returns (_SLICE) and reads item i (_item)."""
    __slots__ = ()

    def __len__(self):
        return _cell_size(self, self._KIND, self._SIZE_OFFSET)

    def __getitem__(self, idx):
        size = _cell_size(self, self._KIND, self._SIZE_OFFSET)
        if isinstance(idx, slice):
            return self._SLICE(self[j] for j in range(*idx.indices(size)))
        return self._item(_normalize_index(idx, size, self._WHAT))


class ArrayBase(_CellSequence):
    """Base of tvmlite.runtime.Array: len and item (or slice) access."""
    __slots__ = ()
    _KIND, _SIZE_OFFSET, _WHAT, _SLICE = kTVMLiteArray, SEQ_SIZE_OFFSET, "Array", list

    def _item(self, i):
        v = _any_at(_ptr_at(self.chandle + SEQ_DATA_OFFSET).value + ANY_SIZE * i)
        if v.type_index >= kTVMLiteStaticObjectBegin:  # make_ret takes over a reference: give it one
            ObjectIncRef(v.v_obj)
        return make_ret(v)


class MapBase(ObjectBase):
    """Base of tvmlite.runtime.Map: len, look-up by key, and the (key, value) pairs in insertion order."""
    __slots__ = ()

    def __len__(self):
        return LIB.TVMLiteMapSize(_check_kind(self, kTVMLiteMap))

    def __getitem__(self, key):
        _check_kind(self, kTVMLiteMap)
        k = TVMLiteAny()
        out = TVMLiteAny()
        temps = []
        try:
            make_arg(key, k, temps, "Map.__getitem__", 0)
            ret = LIB.TVMLiteMapGet(self.chandle, byref(k), byref(out))
        finally:
            release_temps(temps)
        if ret < 0:
            raise_last_error()
        if ret == 1:
            raise KeyError(key)
        return make_ret(out)

    def items(self):
        out = []
        for i in range(LIB.TVMLiteMapSize(_check_kind(self, kTVMLiteMap))):
            k, v = TVMLiteAny(), TVMLiteAny()
            check_call(LIB.TVMLiteMapItemAt(self.chandle, i, byref(k), byref(v)))
            out.append((make_ret(k), make_ret(v)))
        return out


class ShapeTupleBase(_CellSequence):
    """Base of tvmlite.runtime.ShapeTuple: len and dimension (or slice) access."""
    __slots__ = ()
    _KIND, _SIZE_OFFSET, _WHAT, _SLICE = kTVMLiteShape, SHAPE_SIZE_OFFSET, "ShapeTuple", tuple

    def _item(self, i):
        return _i64_at(_ptr_at(self.chandle + SHAPE_DATA_OFFSET).value + _DIM_SIZE * i).value


set_default_class(kTVMLiteArray, ArrayBase)
set_default_class(kTVMLiteMap, MapBase)
set_default_class(kTVMLiteShape, ShapeTupleBase)
