# container.pxi: fast element access for Array, Map and ShapeTuple (reads the C cells, no calls for Array).


cdef inline Py_ssize_t _normalize_index(Py_ssize_t i, Py_ssize_t n, str what) except -1:
    if i < 0:
        i += n
    if i < 0 or i >= n:
        raise IndexError(f"{what} index out of range")
    return i


cdef class ArrayBase(ObjectBase):
    """Base of tvmlite.runtime.Array: a read-only sequence."""

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

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


cdef class MapBase(ObjectBase):
    """Base of tvmlite.runtime.Map: a read-only mapping in insertion order."""

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

    def __contains__(self, key):
        try:
            self[key]
            return True
        except KeyError:
            return False

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def items(self):
        cdef TVMLiteAny k, v
        self._checked_cell(kTVMLiteMap)
        out = []
        for i in range(TVMLiteMapSize(self.chandle)):
            check_call(TVMLiteMapItemAt(self.chandle, i, &k, &v))
            out.append((make_ret(&k), make_ret(&v)))
        return out

    def keys(self):
        return [k for k, _ in self.items()]

    def values(self):
        return [v for _, v in self.items()]

    def __iter__(self):
        return iter(self.keys())


cdef class ShapeTupleBase(ObjectBase):
    """Base of tvmlite.runtime.ShapeTuple: a tuple of int64 dimensions."""

    def __len__(self):
        return (<TVMLiteShapeCell*>self._checked_cell(kTVMLiteShape)).size

    def __getitem__(self, idx):
        cdef TVMLiteShapeCell* cell
        cell = <TVMLiteShapeCell*>self._checked_cell(kTVMLiteShape)
        if isinstance(idx, slice):
            return tuple(self[j] for j in range(*idx.indices(cell.size)))
        return cell.data[_normalize_index(idx, cell.size, "ShapeTuple")]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]
