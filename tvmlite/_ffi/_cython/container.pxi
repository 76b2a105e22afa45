# container.pxi: the container primitives, fast element access for Array, Map and ShapeTuple (reads the C cells, no
# calls for Array). The Sequence/Mapping protocols over them are pure Python: tvmlite/runtime/container.py.


cdef inline Py_ssize_t _normalize_index(Py_ssize_t i, Py_ssize_t n, str what) except -1:
    if i < 0:
        i += n
    if i < 0 or i >= n:
        raise IndexError(f"{what} index out of range")
    return i


cdef class ArrayBase(ObjectBase):
    """Base of tvmlite.runtime.Array: len and item (or slice) access."""

    def __len__(self):
        return (<TVMLiteSeqCell*>self._checked_cell(kTVMLiteArray)).size

    def __getitem__(self, idx):
        cdef TVMLiteSeqCell* cell
        cdef TVMLiteAny v
        cdef Py_ssize_t i
        cell = <TVMLiteSeqCell*>self._checked_cell(kTVMLiteArray)
        if isinstance(idx, slice):
            return [self[j] for j in range(*idx.indices(cell.size))]
        i = _normalize_index(idx, cell.size, "Array")
        v = cell.data[i]
        if v.type_index >= kTVMLiteStaticObjectBegin:
            TVMLiteObjectIncRef(v.v_obj)
        return make_ret(&v)


cdef class MapBase(ObjectBase):
    """Base of tvmlite.runtime.Map: len, look-up by key, and the (key, value) pairs in insertion order."""

    def __len__(self):
        self._checked_cell(kTVMLiteMap)
        return TVMLiteMapSize(self.chandle)

    def __getitem__(self, key):
        cdef TVMLiteAny k, out
        cdef TVMLiteObject* temp = NULL
        cdef int ret
        self._checked_cell(kTVMLiteMap)
        make_arg(key, &k, &temp, "Map.__getitem__", 0)
        try:
            ret = TVMLiteMapGet(self.chandle, &k, &out)
        finally:
            TVMLiteObjectDecRef(temp)
        if ret < 0:
            raise_last_error()
        if ret == 1:
            raise KeyError(key)
        return make_ret(&out)

    def items(self):
        cdef TVMLiteAny k, v
        self._checked_cell(kTVMLiteMap)
        out = []
        for i in range(TVMLiteMapSize(self.chandle)):
            check_call(TVMLiteMapItemAt(self.chandle, i, &k, &v))
            out.append((make_ret(&k), make_ret(&v)))
        return out


cdef class ShapeTupleBase(ObjectBase):
    """Base of tvmlite.runtime.ShapeTuple: len and dimension (or slice) access."""

    def __len__(self):
        return (<TVMLiteShapeCell*>self._checked_cell(kTVMLiteShape)).size

    def __getitem__(self, idx):
        cdef TVMLiteShapeCell* cell
        cell = <TVMLiteShapeCell*>self._checked_cell(kTVMLiteShape)
        if isinstance(idx, slice):
            return tuple(self[j] for j in range(*idx.indices(cell.size)))
        return cell.data[_normalize_index(idx, cell.size, "ShapeTuple")]
