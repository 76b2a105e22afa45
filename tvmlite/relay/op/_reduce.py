"""numpy references of the reductions (reduce.py), with ONNX's semantics at the edges.

Axes: None -> every axis, () -> none (the elementwise part only: sum_square squares, log_sum takes the log).
A reduction over an empty set gives the op's identity: 0 (sum), 1 (prod), the dtype's lowest (max) or highest (min)
value (-inf / inf for floats, False / True for bool), -inf (logsumexp, log_sum), NaN (mean).
ml_dtypes inputs (bfloat16, float8) and float16 are computed in float32 and rounded back once.
"""
import numpy as np

from ..backend.dtypes import is_ml_dtype
from .op import register_reference


def _axes(attrs, ndim):
    """attrs' axis / exclude as a numpy axis argument (None or a tuple)."""
    axis = attrs.axis
    if axis is None:
        return None
    listed = {a + ndim if a < 0 else a for a in (int(a) for a in axis)}
    if attrs.exclude:
        return tuple(i for i in range(ndim) if i not in listed)
    return tuple(sorted(listed))


def _dyn_axes(attrs, axes, ndim):
    axes = np.asarray(axes).reshape(-1)
    if axes.size == 0:
        return () if attrs.noop_with_empty_axes else None
    out = []
    for a in axes.tolist():
        if not -ndim <= a < ndim:
            raise IndexError(f"axis {a} is out of range for rank {ndim}")
        out.append(a + ndim if a < 0 else a)
    if len(set(out)) != len(out):
        raise ValueError(f"axes {axes.tolist()} repeat an axis")
    return tuple(out)


def _work(x):
    """x in a dtype numpy computes well in: float32 for float16 and the ml_dtypes floats, int32 for int4/uint4."""
    name = x.dtype.name
    if is_ml_dtype(name):
        return x.astype(np.int32 if "int" in name else np.float32)
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _out_shape(x, axis, keepdims):
    return np.zeros(x.shape, np.int8).sum(axis=axis, keepdims=keepdims).shape


def _extreme(x, highest):
    if x.dtype == np.bool_:
        return highest
    if np.issubdtype(x.dtype, np.integer):
        info = np.iinfo(x.dtype)
        return info.max if highest else info.min
    return np.inf if highest else -np.inf


def _sum(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype if x.dtype != np.bool_ else None)


def _max(x, axis, keepdims):
    if x.size == 0:
        return np.full(_out_shape(x, axis, keepdims), _extreme(x, False), x.dtype)
    return np.max(x, axis=axis, keepdims=keepdims)


def _min(x, axis, keepdims):
    if x.size == 0:
        return np.full(_out_shape(x, axis, keepdims), _extreme(x, True), x.dtype)
    return np.min(x, axis=axis, keepdims=keepdims)


def _mean(x, axis, keepdims):
    if x.size == 0 or (axis is not None and any(x.shape[a] == 0 for a in axis)):
        if 0 in _out_shape(x, axis, keepdims):
            return np.zeros(_out_shape(x, axis, keepdims), x.dtype)
        return np.full(_out_shape(x, axis, keepdims), np.nan)
    return np.mean(x, axis=axis, keepdims=keepdims)


def _logsumexp(x, axis, keepdims):
    x = x.astype(np.float64) if not np.issubdtype(x.dtype, np.floating) else x
    if x.size == 0:
        m = np.zeros(_out_shape(x, axis, True), x.dtype)
    else:
        m = np.max(x, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, np.zeros((), x.dtype))
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else out.reshape(_out_shape(x, axis, False))


_REDUCERS = {
    "sum": _sum,
    "mean": _mean,
    "max": _max,
    "min": _min,
    "prod": lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims,
                                              dtype=x.dtype if x.dtype != np.bool_ else None),
    "logsumexp": _logsumexp,
    "log_sum": lambda x, axis, keepdims: np.log(np.sum(x, axis=axis, keepdims=keepdims)),
    "l1_norm": lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims),
    "l2_norm": lambda x, axis, keepdims: np.sqrt(np.sum(np.square(x), axis=axis, keepdims=keepdims)),
    "sum_square": lambda x, axis, keepdims: np.sum(np.square(x), axis=axis, keepdims=keepdims),
}


def _reduce(fn, x, axis, keepdims):
    with np.errstate(all="ignore"):
        out = np.asarray(fn(_work(x), axis, bool(keepdims)))
    return out.astype(x.dtype, copy=False)


def _register(name, fn):
    register_reference(name, lambda attrs, x: _reduce(fn, x, _axes(attrs, x.ndim), attrs.keepdims))
    register_reference("dyn." + name,
                       lambda attrs, x, axes: _reduce(fn, x, _dyn_axes(attrs, axes, x.ndim), attrs.keepdims))


for _name, _fn in _REDUCERS.items():
    _register(_name, _fn)
del _name, _fn


def _arg_reduce(attrs, x, pick):
    axis = _axes(attrs, x.ndim)
    axis = tuple(range(x.ndim)) if axis is None else axis
    kept = [i for i in range(x.ndim) if i not in axis]
    moved = np.transpose(_work(x), kept + list(axis))
    # The reduced size spelled out, not -1: a kept dim of 0 leaves -1 undetermined.
    flat = moved.reshape([x.shape[i] for i in kept] + [int(np.prod([x.shape[i] for i in axis], dtype=np.int64))])
    if attrs.select_last_index:
        idx = flat.shape[-1] - 1 - pick(flat[..., ::-1], axis=-1)
    else:
        idx = pick(flat, axis=-1)
    idx = np.asarray(idx, np.int64)
    if attrs.keepdims:
        idx = idx.reshape([1 if i in axis else x.shape[i] for i in range(x.ndim)])
    return idx


register_reference("argmax", lambda attrs, x: _arg_reduce(attrs, x, np.argmax))
register_reference("argmin", lambda attrs, x: _arg_reduce(attrs, x, np.argmin))


@register_reference("det")
def _det(attrs, x):
    work = x.astype(np.float64) if x.dtype != np.float64 else x
    return np.asarray(np.linalg.det(work)).astype(x.dtype)
