"""numpy references of the scans and sorts (algorithm.py).

Sorting is stable; a descending order keeps equal elements in index order too (the lower index first), as ONNX
TopK asks: it is the ascending stable order of the reversed data, reversed, with indices mapped back.
"""
import numpy as np

from ..backend.dtypes import is_ml_dtype
from .op import register_reference


def _sortable(x):
    """x as a dtype numpy sorts (ml_dtypes as float32 / int32: exact)."""
    if is_ml_dtype(x.dtype.name):
        return x.astype(np.int32 if "int" in x.dtype.name else np.float32)
    return x


def _order(x, axis, ascending):
    """Stable sorting indices of x along axis; equal elements keep index order in both directions."""
    x = _sortable(x)
    if ascending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis=axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(rev, axis=axis)


def _scalar(v, what):
    v = np.asarray(v)
    if v.size != 1:
        raise ValueError(f"{what} must hold one value, got shape {v.shape}")
    return int(v.reshape(()))


def _scan(attrs, x, axis, ufunc, identity):
    out_dtype = np.dtype(x.dtype) if attrs.dtype.bits == 0 else _np_dtype(attrs.dtype)
    work = x.reshape(-1) if axis is None else x
    axis = 0 if axis is None else axis
    if not -work.ndim <= axis < work.ndim:
        raise IndexError(f"axis {axis} is out of range for rank {work.ndim}")
    compute = np.float32 if is_ml_dtype(out_dtype.name) else out_dtype
    if out_dtype == np.bool_:
        compute = np.int64
    work = np.asarray(work).astype(compute)
    if attrs.reverse:
        work = np.flip(work, axis=axis)
    out = ufunc.accumulate(work, axis=axis, dtype=compute)
    if attrs.exclusive:
        out = np.roll(out, 1, axis=axis)
        index = [slice(None)] * out.ndim
        index[axis] = 0
        out[tuple(index)] = identity
    if attrs.reverse:
        out = np.flip(out, axis=axis)
    return np.require(out, requirements="C").astype(out_dtype)


def _np_dtype(dtype):
    from ..backend.dtypes import to_numpy_dtype

    return to_numpy_dtype(dtype)


register_reference("cumsum", lambda attrs, x: _scan(attrs, x, attrs.axis, np.add, 0))
register_reference("cumprod", lambda attrs, x: _scan(attrs, x, attrs.axis, np.multiply, 1))
register_reference("dyn.cumsum", lambda attrs, x, axis: _scan(attrs, x, _scalar(axis, "axis"), np.add, 0))
register_reference("dyn.cumprod", lambda attrs, x, axis: _scan(attrs, x, _scalar(axis, "axis"), np.multiply, 1))


def _topk(attrs, x, k):
    axis = attrs.axis + x.ndim if attrs.axis < 0 else attrs.axis
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(f"k = {k} is out of range for axis {axis} of shape {x.shape}")
    idx = np.take(_order(x, axis, attrs.is_ascend), np.arange(k), axis=axis)
    values = np.take_along_axis(x, idx, axis=axis)
    indices = idx.astype(_np_dtype(attrs.dtype))
    if attrs.ret_type == "values":
        return values
    if attrs.ret_type == "indices":
        return indices
    return values, indices


register_reference("topk", lambda attrs, x: _topk(attrs, x, attrs.k))
register_reference("dyn.topk", lambda attrs, x, k: _topk(attrs, x, _scalar(k, "k")))


@register_reference("argsort")
def _argsort(attrs, x):
    return _order(x, attrs.axis, attrs.is_ascend).astype(_np_dtype(attrs.dtype))


@register_reference("sort")
def _sort(attrs, x):
    return np.take_along_axis(x, _order(x, attrs.axis, attrs.is_ascend), axis=attrs.axis)


@register_reference("unique")
def _unique(attrs, x):
    work = _sortable(x)
    axis = attrs.axis
    if axis is None:
        flat_x, work = x.reshape(-1), work.reshape(-1)
        _, first, inverse, counts = np.unique(work, return_index=True, return_inverse=True, return_counts=True)
        take_axis = 0
    else:
        axis = axis + x.ndim if axis < 0 else axis
        flat_x = x
        _, first, inverse, counts = np.unique(work, return_index=True, return_inverse=True, return_counts=True,
                                              axis=axis)
        take_axis = axis
    inverse = inverse.reshape(-1)
    if not attrs.sorted:  # order of first occurrence
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    y = np.take(flat_x, first, axis=take_axis)
    return y, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)
