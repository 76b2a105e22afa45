"""numpy references of the shape and data-movement ops (transform.py, nn/transform.py, the dyn.* forms).

Semantics are ONNX's where TVM and ONNX differ: reshape's 0/-1 (and allowzero), numpy slicing with clamping,
negative indices counting from the end (out of range is an error, as onnxruntime reports it), one_hot's
out-of-range indices giving all off_value, split at numpy's array_split points.
"""
import numpy as np

from ..backend.dtypes import to_numpy_dtype
from .op import register_reference


def _ints(arr):
    return [int(v) for v in np.asarray(arr).reshape(-1)]


def _dtype(attrs_dtype, fallback):
    s = str(attrs_dtype)
    return fallback if s in ("void", "handle0", "") else to_numpy_dtype(s)


# -------------------------------------------------------------------------------------------------- reshape

def _resolve_newshape(shape, newshape, allowzero):
    out, infer = [], None
    for i, v in enumerate(newshape):
        if v == 0 and not allowzero:
            if i >= len(shape):
                raise ValueError(f"reshape: newshape[{i}] is 0 but the input {shape} has rank {len(shape)}")
            out.append(shape[i])
        elif v == -1:
            if infer is not None:
                raise ValueError("reshape: newshape has more than one -1")
            infer = i
            out.append(1)
        elif v < 0:
            raise ValueError(f"reshape: newshape[{i}] is {v}")
        else:
            out.append(v)
    total = int(np.prod(shape, dtype=np.int64))
    if infer is not None:
        known = int(np.prod(out, dtype=np.int64))
        if known == 0 or total % known:
            raise ValueError(f"reshape: cannot reshape {tuple(shape)} into {tuple(newshape)}")
        out[infer] = total // known
    if int(np.prod(out, dtype=np.int64)) != total:
        raise ValueError(f"reshape: cannot reshape {tuple(shape)} (size {total}) into {tuple(out)}")
    return out


@register_reference("reshape")
def _reshape(attrs, x):
    return x.reshape(_resolve_newshape(x.shape, list(attrs.newshape), attrs.allowzero))


@register_reference("reshape_like")
def _reshape_like(attrs, x, like):
    def bounds(begin, end, n):
        b, e = begin + n if begin < 0 else begin, n if end is None else (end + n if end < 0 else end)
        if not 0 <= b <= e <= n:
            raise ValueError(f"reshape_like: range [{begin}, {end}) is not within a rank of {n}")
        return b, e

    lb, le = bounds(attrs.lhs_begin, attrs.lhs_end, x.ndim)
    rb, re = bounds(attrs.rhs_begin, attrs.rhs_end, like.ndim)
    shape = x.shape[:lb] + like.shape[rb:re] + x.shape[le:]
    if int(np.prod(shape)) != x.size:
        raise ValueError(f"reshape_like: cannot reshape {x.shape} into {shape}")
    return x.reshape(shape)


@register_reference("broadcast_to_like")
def _broadcast_to_like(attrs, x, like):
    if not list(attrs.axes):
        return np.require(np.broadcast_to(x, like.shape), requirements="C")
    shape = list(x.shape)
    for a, b in zip(_norm_axes(list(attrs.axes), x.ndim, "broadcast_to_like"),
                    _norm_axes(list(attrs.like_axes), like.ndim, "broadcast_to_like")):
        if x.shape[a] not in (1, like.shape[b]):
            raise ValueError(f"broadcast_to_like: data {x.shape} does not broadcast to shape_like {like.shape}'s "
                             f"dim {b} on axis {a}")
        shape[a] = like.shape[b]
    return np.require(np.broadcast_to(x, shape), requirements="C")


@register_reference("dyn.reshape")
def _dyn_reshape(attrs, x, newshape):
    return x.reshape(_resolve_newshape(x.shape, _ints(newshape), attrs.allowzero))


@register_reference("transpose")
def _transpose(attrs, x):
    axes = list(attrs.axes)
    return np.require(np.transpose(x, axes or None), requirements="C")  # 0-d stays 0-d


def _norm_axes(axes, ndim, op):
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise IndexError(f"{op}: axis {a} is out of range for rank {ndim}")
        out.append(a + ndim if a < 0 else a)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: repeated axes {axes}")
    return out


@register_reference("squeeze")
def _squeeze(attrs, x):
    if attrs.axis is None:
        return np.squeeze(x)
    return np.squeeze(x, axis=tuple(_norm_axes(list(attrs.axis), x.ndim, "squeeze")))


@register_reference("dyn.squeeze")
def _dyn_squeeze(attrs, x, axes):
    return np.squeeze(x, axis=tuple(_norm_axes(_ints(axes), x.ndim, "squeeze")))


@register_reference("expand_dims")
def _expand_dims(attrs, x):
    axis = attrs.axis + x.ndim + 1 if attrs.axis < 0 else attrs.axis
    shape = list(x.shape)
    shape[axis:axis] = [1] * attrs.num_newaxis
    return x.reshape(shape)


@register_reference("dyn.expand_dims")
def _dyn_expand_dims(attrs, x, axes):
    axes = _ints(axes)
    rank = x.ndim + len(axes)
    shape = list(x.shape)
    for a in sorted(_norm_axes(axes, rank, "expand_dims")):
        shape.insert(a, 1)
    return x.reshape(shape)


@register_reference("nn.batch_flatten")
def _batch_flatten(attrs, x):
    return x.reshape(x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64)))


@register_reference("nn.depth_to_space")
def _depth_to_space(attrs, x):
    b = attrs.block_size
    n, c, h, w = x.shape
    if attrs.mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return np.ascontiguousarray(y).reshape(n, c // (b * b), h * b, w * b)


@register_reference("nn.space_to_depth")
def _space_to_depth(attrs, x):
    b = attrs.block_size
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b)
    y = y.transpose(0, 3, 5, 1, 2, 4) if attrs.mode == "DCR" else y.transpose(0, 1, 3, 5, 2, 4)
    return np.ascontiguousarray(y).reshape(n, c * b * b, h // b, w // b)


def _broadcast(x, shape):
    return np.require(np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(shape))), requirements="C")


register_reference("broadcast_to", lambda attrs, x: _broadcast(x, list(attrs.shape)))
register_reference("dyn.broadcast_to", lambda attrs, x, shape: _broadcast(x, _ints(shape)))
register_reference("tile", lambda attrs, x: np.tile(x, list(attrs.reps)))
register_reference("dyn.tile", lambda attrs, x, reps: np.tile(x, _ints(reps)))
register_reference("shape_of", lambda attrs, x: np.array(x.shape, dtype=to_numpy_dtype(str(attrs.dtype))))
register_reference("ndarray_size", lambda attrs, x: np.array(x.size, dtype=to_numpy_dtype(str(attrs.dtype))))


# ------------------------------------------------------------------------------------------------ indexing

def _slice(x, begin, end, strides, axes, size_mode=False):
    index = [slice(None)] * x.ndim
    for i, axis in enumerate(axes):
        step = 1 if size_mode or not strides else strides[i if len(strides) > 1 else 0]
        if step == 0:
            raise ValueError(f"strided_slice: step 0 on axis {axis}")
        b, e = begin[i], end[i]
        if size_mode:
            if b < 0:
                b = max(b + x.shape[axis], 0)
            e = None if e == -1 else b + e
        index[axis] = slice(b, e, step)
    return np.require(x[tuple(index)], requirements="C")


@register_reference("strided_slice")
def _strided_slice(attrs, x):
    begin = list(attrs.begin)
    axes = list(range(len(begin))) if attrs.axes is None else _norm_axes(list(attrs.axes), x.ndim, "strided_slice")
    return _slice(x, begin, list(attrs.end), list(attrs.strides), axes, attrs.slice_mode == "size")


@register_reference("slice_like")
def _slice_like(attrs, x, like):
    axes = list(range(like.ndim)) if not list(attrs.axes) else _norm_axes(list(attrs.axes), x.ndim, "slice_like")
    index = [slice(None)] * x.ndim
    for a in axes:
        if a >= like.ndim or like.shape[a] > x.shape[a]:
            raise ValueError(f"slice_like: shape_like {like.shape} exceeds data {x.shape} on axis {a}")
        index[a] = slice(0, like.shape[a])
    return np.require(x[tuple(index)], requirements="C")


@register_reference("dyn.strided_slice")
def _dyn_strided_slice(attrs, x, begin, end, strides, axes):
    axes = _norm_axes(_ints(axes), x.ndim, "strided_slice")
    return _slice(x, _ints(begin), _ints(end), _ints(strides), axes)


def _check_indices(idx, n, op):
    idx = np.asarray(idx).astype(np.int64)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].reshape(-1)[0]
        raise IndexError(f"{op}: index {bad} is out of range for a dim of {n}")
    return np.where(idx < 0, idx + n, idx)


@register_reference("take")
def _take(attrs, x, idx):
    axis = attrs.axis + x.ndim if attrs.axis < 0 else attrs.axis
    n = x.shape[axis]
    idx = np.asarray(idx).astype(np.int64)
    if attrs.mode == "clip":
        idx = np.clip(idx, 0, max(n - 1, 0))
    elif attrs.mode == "wrap":
        idx = np.mod(idx, n) if n else idx
    else:
        idx = _check_indices(idx, n, "take")
    bd = attrs.batch_dims + idx.ndim if attrs.batch_dims < 0 else attrs.batch_dims
    if bd == 0:
        return np.take(x, idx, axis=axis)
    batch = x.shape[:bd]
    out_shape = x.shape[:axis] + idx.shape[bd:] + x.shape[axis + 1:]
    out = np.empty(out_shape, dtype=x.dtype)
    for b in np.ndindex(*batch):
        out[b] = np.take(x[b], idx[b], axis=axis - bd)
    return out


@register_reference("gather")
def _gather(attrs, x, idx):
    axis = attrs.axis + x.ndim if attrs.axis < 0 else attrs.axis
    idx = _check_indices(idx, x.shape[axis], "gather")
    index = list(np.indices(idx.shape, sparse=True))  # indices may be smaller than data off the axis
    index[axis] = idx
    return x[tuple(index)]


@register_reference("gather_nd")
def _gather_nd(attrs, x, idx):
    b = attrs.batch_dims
    idx = np.asarray(idx).astype(np.int64)
    k = idx.shape[-1]
    out = np.empty(idx.shape[:-1] + x.shape[b + k:], dtype=x.dtype)
    for bi in np.ndindex(*x.shape[:b]):
        xb, ib = x[bi], idx[bi]
        if k == 0:
            out[bi] = np.broadcast_to(xb, ib.shape[:-1] + xb.shape)
            continue
        cols = tuple(_check_indices(ib[..., j], xb.shape[j], "gather_nd") for j in range(k))
        out[bi] = xb[cols]
    return out


_UFUNCS = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}


def _scatter(out, index, updates, reduction):
    if reduction == "update":
        out[tuple(index)] = updates  # duplicate indices: one of the writes wins (ONNX leaves it undefined)
    else:
        _UFUNCS[reduction].at(out, tuple(index), updates)
    return out


@register_reference("scatter_elements")
def _scatter_elements(attrs, x, idx, updates):
    axis = attrs.axis + x.ndim if attrs.axis < 0 else attrs.axis
    idx = _check_indices(idx, x.shape[axis], "scatter_elements")
    index = list(np.indices(idx.shape, sparse=False)) if idx.ndim else []
    index[axis] = idx
    return _scatter(x.copy(), index, updates, attrs.reduction)


@register_reference("scatter_nd")
def _scatter_nd(attrs, x, idx, updates):
    idx = np.asarray(idx).astype(np.int64)
    k = idx.shape[-1]
    index = [_check_indices(idx[..., j], x.shape[j], "scatter_nd") for j in range(k)]
    return _scatter(x.copy(), index, updates, attrs.mode)


# (count, ndim): a 0-d input gives (1, 0) or (0, 0), as numpy does
register_reference("argwhere", lambda attrs, x: np.argwhere(x).astype(np.int64).reshape(np.count_nonzero(x), x.ndim))


def _one_hot(attrs, idx, on, off, depth):
    idx = np.asarray(idx).astype(np.int64)
    dtype = _dtype(attrs.dtype, on.dtype)
    axis = attrs.axis + idx.ndim + 1 if attrs.axis < 0 else attrs.axis
    idx = np.where(idx < 0, idx + depth, idx)
    hot = np.expand_dims(idx, axis) == np.arange(depth).reshape([-1 if i == axis else 1
                                                                 for i in range(idx.ndim + 1)])
    return np.where(hot, on, off).astype(dtype)


register_reference("one_hot", lambda attrs, idx, on, off: _one_hot(attrs, idx, on, off, attrs.depth))
register_reference("dyn.one_hot", lambda attrs, idx, on, off, depth:
                   _one_hot(attrs, idx, on, off, int(np.asarray(depth).reshape(-1)[0])))


@register_reference("reverse_sequence")
def _reverse_sequence(attrs, x, lens):
    seq = attrs.seq_axis % x.ndim
    batch = attrs.batch_axis % x.ndim
    out = x.copy()
    for b, n in enumerate(_ints(lens)):
        n = max(0, min(n, x.shape[seq]))
        src = [slice(None)] * x.ndim
        src[batch] = b
        src[seq] = slice(0, n)
        dst = list(src)
        dst[seq] = slice(n - 1, None, -1) if n else slice(0, 0)
        out[tuple(src)] = x[tuple(dst)]
    return out


register_reference("where", lambda attrs, c, x, y: np.where(c, x, y).astype(x.dtype, copy=False))


# ---------------------------------------------------------------------------------- combine, build, pad

register_reference("concatenate", lambda attrs, xs: np.concatenate(list(xs), axis=attrs.axis))


@register_reference("split")
def _split(attrs, x):
    if attrs.sections > 0 or not list(attrs.indices):
        sections = attrs.sections if attrs.sections > 0 else 1
        if x.shape[attrs.axis] % sections:
            raise ValueError(f"split: dim {x.shape[attrs.axis]} does not split into {sections} equal sections")
        return tuple(np.ascontiguousarray(p) for p in np.split(x, sections, axis=attrs.axis))
    return tuple(np.ascontiguousarray(p) for p in np.split(x, list(attrs.indices), axis=attrs.axis))


_NP_PAD = {"constant": "constant", "reflect": "reflect", "edge": "edge", "wrap": "wrap"}


def _pad(x, widths, value, mode):
    """widths: (before, after) per axis; negative widths crop first."""
    crop = tuple(slice(max(-b, 0), x.shape[i] - max(-a, 0)) for i, (b, a) in enumerate(widths))
    x = x[crop]
    pos = [(max(b, 0), max(a, 0)) for b, a in widths]
    if mode == "constant":
        return np.pad(x, pos, mode="constant", constant_values=np.asarray(value).astype(x.dtype))
    if not any(b or a for b, a in pos):
        return np.ascontiguousarray(x)
    return np.pad(x, pos, mode=_NP_PAD[mode])


@register_reference("nn.pad")
def _nn_pad(attrs, x, value):
    w = list(attrs.pad_width)
    return _pad(x, [(w[2 * i], w[2 * i + 1]) for i in range(x.ndim)], value, attrs.pad_mode)


@register_reference("dyn.nn.pad")
def _dyn_nn_pad(attrs, x, pads, value, axes):
    pads, axes = _ints(pads), _norm_axes(_ints(axes), x.ndim, "pad")
    widths = [(0, 0)] * x.ndim
    for i, a in enumerate(axes):
        widths[a] = (pads[i], pads[i + len(axes)])
    return _pad(x, widths, value, attrs.pad_mode)


def _full(attrs, value, shape):
    return np.full(shape, value, dtype=_dtype(attrs.dtype, value.dtype))


register_reference("full", lambda attrs, value: _full(attrs, value, list(attrs.shape)))
register_reference("dyn.full", lambda attrs, value, shape: _full(attrs, value, _ints(shape)))


@register_reference("arange")
def _arange(attrs, start, stop, step):
    dtype = _dtype(attrs.dtype, start.dtype)
    start, stop, step = start.item(), stop.item(), step.item()
    if step == 0:
        raise ValueError("arange: step is 0")
    if isinstance(start, int) and isinstance(stop, int) and isinstance(step, int):
        n = max(-(-(stop - start) // step), 0)  # exact ceil for integers
        return (start + np.arange(n, dtype=np.int64) * step).astype(dtype)
    n = max(int(np.ceil((stop - start) / step)), 0)
    return (start + np.arange(n, dtype=np.float64) * step).astype(dtype)


@register_reference("trilu")
def _trilu(attrs, x, k):
    k = int(np.asarray(k).reshape(-1)[0])
    return np.triu(x, k) if attrs.upper else np.tril(x, k)


@register_reference("eye_like")
def _eye_like(attrs, x):
    return np.eye(x.shape[0], x.shape[1], k=attrs.k, dtype=_dtype(attrs.dtype, x.dtype))
