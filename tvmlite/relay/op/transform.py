"""Shape and data-movement op builders (csrc/relay/op/tensor/{reshape,index,transform}.cc), TVM's signatures.

    y = relay.reshape(x, (0, -1))                     # static: 0 copies a dim, -1 infers one
    y = relay.reshape(x, shape_tensor)                # a relay expression: the dyn.reshape op
    parts = relay.split(x, 3, axis=1)                 # a tuple-typed call: relay.TupleGetItem(parts, i)

A builder takes the static form's attribute either as Python values (the static op) or as a relay expression
(the "dyn." op, whose result dims are "?"). A dtype argument left as None means "the input's dtype".
"""
import numpy as np

from ..._ffi.registry import register_object
from ...ir.attrs import Attrs
from ...ir.expr import RelayExpr
from ...runtime import DataType
from .. import expr as _expr
from . import _make
from .dyn import _make as _dyn_make

__all__ = ["TupleWrapper", "reshape", "reshape_like", "transpose", "concatenate", "split", "strided_slice",
           "slice_like", "take", "gather", "gather_elements", "gather_nd", "scatter_elements", "scatter_nd",
           "broadcast_to", "broadcast_to_like", "tile", "squeeze", "expand_dims",
           "shape_of", "ndarray_size", "full", "zeros", "ones", "arange", "trilu", "eye_like", "one_hot",
           "reverse_sequence", "where", "argwhere"]

_VOID = DataType("void")

for _key in ["ReshapeAttrs", "ReshapeLikeAttrs", "TransposeAttrs", "ConcatenateAttrs", "SplitAttrs",
             "StridedSliceAttrs", "SliceLikeAttrs", "TakeAttrs", "GatherAttrs", "GatherNDAttrs", "ScatterElementsAttrs",
             "ScatterNDAttrs", "BroadcastToAttrs", "BroadcastToLikeAttrs",
             "TileAttrs", "PadAttrs", "SqueezeAttrs", "ExpandDimsAttrs", "SubPixelAttrs", "DtypeAttrs", "FullAttrs",
             "TriluAttrs", "EyeLikeAttrs", "OneHotAttrs", "ReverseSequenceAttrs"]:
    register_object("relay.attrs." + _key)(type(_key, (Attrs,), {"__slots__": ()}))
del _key


def _is_expr(v):
    return isinstance(v, RelayExpr)


def _ints(values, what):
    """A tuple of Python ints from an int or a sequence of ints (numpy ints accepted)."""
    if isinstance(values, (int, np.integer)):
        return [int(values)]
    try:
        out = [int(v) for v in values]
    except TypeError:
        raise TypeError(f"{what} must be an int or a sequence of ints, got {type(values).__name__}") from None
    for v, o in zip(values, out):
        if isinstance(v, (float, np.floating)) and v != o:
            raise TypeError(f"{what}: {v!r} is not an integer")
    return out


def _dtype(dtype):
    return _VOID if dtype is None else DataType(str(dtype))


def _as_expr(value, dtype=None):
    return value if _is_expr(value) else _expr.const(value, dtype)


def reshape(data, newshape, allowzero=False):
    """Reshape data; newshape: ints (0 copies the input dim unless allowzero, -1 infers one dim) or a 1-D integer
    tensor expression (dyn.reshape, same rules, dims "?")."""
    if _is_expr(newshape):
        return _dyn_make.reshape(data, newshape, [], bool(allowzero))
    return _make.reshape(data, _ints(newshape, "reshape: newshape"), bool(allowzero))


def reshape_like(data, shape_like, lhs_begin=0, lhs_end=None, rhs_begin=0, rhs_end=None):
    """data with its dims [lhs_begin, lhs_end) replaced by shape_like's [rhs_begin, rhs_end) (TVM's reshape_like;
    an end None is the rank, a negative bound counts from the end). shape_like's values are not read."""
    return _make.reshape_like(data, shape_like, int(lhs_begin), None if lhs_end is None else int(lhs_end),
                              int(rhs_begin), None if rhs_end is None else int(rhs_end))


def transpose(data, axes=None):
    """Permute the axes (reverse them when axes is None)."""
    return _make.transpose(data, [] if axes is None else _ints(axes, "transpose: axes"))


def concatenate(data, axis):
    """Join a list (or Tuple expression) of tensors along axis."""
    if not _is_expr(data):
        data = _expr.Tuple(list(data))
    return _make.concatenate(data, int(axis))


class TupleWrapper:
    """A tuple-typed call and its size (TVM's): ``parts[i]`` is ``TupleGetItem(call, i)``; ``astuple()`` is the
    call itself."""

    def __init__(self, tuple_value, size):
        self.tuple_value = tuple_value
        self.size = size

    def astuple(self):
        return self.tuple_value

    def __getitem__(self, index):
        if not -self.size <= index < self.size:
            raise IndexError(f"TupleWrapper: index {index} out of range for {self.size} fields")
        return _expr.TupleGetItem(self.tuple_value, index % self.size)

    def __len__(self):
        return self.size

    def __iter__(self):
        return (self[i] for i in range(self.size))


def split(data, indices_or_sections, axis=0):
    """Split along axis: an int -> that many equal sections; a sequence -> at those indices (numpy.array_split
    points). Returns a TupleWrapper (``parts[i]``, ``parts.astuple()``)."""
    if isinstance(indices_or_sections, (int, np.integer)):
        n = int(indices_or_sections)
        return TupleWrapper(_make.split(data, n, [], int(axis)), max(n, 1))
    indices = _ints(indices_or_sections, "split: indices")
    return TupleWrapper(_make.split(data, 0, indices, int(axis)), len(indices) + 1)


def strided_slice(data, begin, end, strides=None, axes=None, slice_mode="end"):
    """data[begin:end:strides] on axes (0.. when None), numpy's clamping. Expressions for begin/end/strides/axes
    make the dyn.strided_slice op (then strides and axes default to ones and 0..n-1 of begin's length, which must
    be constant)."""
    if any(_is_expr(v) for v in (begin, end, strides, axes)):
        if slice_mode != "end":
            raise ValueError("strided_slice: slice_mode 'size' needs constant bounds")
        n = None
        for v in (begin, end, strides, axes):
            if v is not None and not _is_expr(v):
                n = len(_ints(v, "strided_slice: bounds"))
        if n is None and (strides is None or axes is None):
            n = _static_length(begin)
        begin, end = (_as_expr(np.array(_ints(v, "bounds"), "int64")) if not _is_expr(v) else v
                      for v in (begin, end))
        strides = _as_expr(np.ones(n, "int64") if strides is None else
                           (strides if _is_expr(strides) else np.array(_ints(strides, "strides"), "int64")))
        axes = _as_expr(np.arange(n, dtype="int64") if axes is None else
                        (axes if _is_expr(axes) else np.array(_ints(axes, "axes"), "int64")))
        return _dyn_make.strided_slice(data, begin, end, strides, axes)
    begin = _ints(begin, "strided_slice: begin")
    end = _ints(end, "strided_slice: end")
    strides = [] if strides is None else _ints(strides, "strided_slice: strides")
    axes = None if axes is None else _ints(axes, "strided_slice: axes")
    return _make.strided_slice(data, begin, end, strides, axes, slice_mode)


def slice_like(data, shape_like, axes=None):
    """data[0:shape_like.shape[a]] on each of axes (None: every axis of shape_like), as TVM's slice_like: the
    result takes shape_like's dims there, symbolic ones included. shape_like's values are not read."""
    return _make.slice_like(data, shape_like, [] if axes is None else _ints(axes, "slice_like: axes"))


def _static_length(expr):
    ty = getattr(expr, "checked_type", None)
    shape = getattr(ty, "shape", None)
    if shape is None or len(shape) != 1 or not isinstance(shape[0], int):
        raise ValueError("strided_slice: the length of a tensor bound must be static (type the expression first)")
    return int(shape[0])


def take(data, indices, axis=None, batch_dims=0, mode="fast"):
    """Select along axis by indices (ONNX Gather); axis None flattens data first. mode "fast" (negative indices
    count from the end, out of range is an error), "clip" or "wrap"."""
    if axis is None:
        data, axis = reshape(data, [-1]), 0
    return _make.take(data, indices, int(batch_dims), int(axis), mode)


def gather(data, axis, indices):
    """Per-element gather along axis (ONNX GatherElements); TVM's argument order."""
    return _make.gather(data, indices, int(axis))


def gather_elements(data, indices, axis=0):
    """ONNX GatherElements (relay op 'gather')."""
    return _make.gather(data, indices, int(axis))


def gather_nd(data, indices, batch_dims=0):
    """Gather slices at the index tuples in the last dim of indices (ONNX GatherND's layout)."""
    return _make.gather_nd(data, indices, int(batch_dims))


def scatter_elements(data, indices, updates, axis=0, reduction="update"):
    """data with updates written (or reduced: add, mul, min, max) at per-element indices along axis."""
    return _make.scatter_elements(data, indices, updates, int(axis), "update" if reduction == "none" else reduction)


def scatter_nd(data, indices, updates, mode="update"):
    """data with update slices written (or reduced) at index tuples (ONNX ScatterND's layout)."""
    return _make.scatter_nd(data, indices, updates, "update" if mode == "none" else mode)


def broadcast_to(data, shape):
    """Broadcast data with shape (numpy rules both ways); an expression shape makes dyn.broadcast_to."""
    if _is_expr(shape):
        return _dyn_make.broadcast_to(data, shape)
    return _make.broadcast_to(data, _ints(shape, "broadcast_to: shape"))


def broadcast_to_like(data, shape_like, axes=None, like_axes=None):
    """data broadcast to shape_like's shape (TVM's broadcast_to_like), or, with axes, data's dims axes[j] set to
    shape_like's dims like_axes[j] (data's dim there 1 or the same). shape_like's values are not read."""
    if (axes is None) != (like_axes is None):
        raise ValueError("broadcast_to_like: give both axes and like_axes, or neither")
    return _make.broadcast_to_like(data, shape_like, [] if axes is None else _ints(axes, "broadcast_to_like: axes"),
                                   [] if like_axes is None else _ints(like_axes, "broadcast_to_like: like_axes"))


def tile(data, reps):
    """numpy.tile; an expression reps makes dyn.tile."""
    if _is_expr(reps):
        return _dyn_make.tile(data, reps)
    return _make.tile(data, _ints(reps, "tile: reps"))


def squeeze(data, axis=None):
    """Remove size-1 dims: the listed axes, or every static 1 when None; an expression makes dyn.squeeze."""
    if _is_expr(axis):
        return _dyn_make.squeeze(data, axis)
    return _make.squeeze(data, None if axis is None else _ints(axis, "squeeze: axis"))


def expand_dims(data, axis, num_newaxis=1):
    """Insert num_newaxis size-1 dims at axis; an expression axis (ONNX Unsqueeze's output positions) makes
    dyn.expand_dims."""
    if _is_expr(axis):
        return _dyn_make.expand_dims(data, axis)
    return _make.expand_dims(data, int(axis), int(num_newaxis))


def shape_of(data, dtype="int64"):
    """The shape as a 1-D tensor."""
    return _make.shape_of(data, DataType(str(dtype)))


def ndarray_size(data, dtype="int64"):
    """The element count as a scalar."""
    return _make.ndarray_size(data, DataType(str(dtype)))


def full(fill_value, shape=(), dtype=None):
    """A tensor of shape filled with fill_value (a scalar expression or a number); an expression shape makes
    dyn.full."""
    fill_value = _as_expr(fill_value, None if dtype is None else str(dtype))
    if _is_expr(shape):
        return _dyn_make.full(fill_value, shape, _dtype(dtype))
    return _make.full(fill_value, _dtype(dtype), _ints(shape, "full: shape"))


def zeros(shape, dtype="float32"):
    """full(0, shape, dtype)."""
    return full(_expr.const(np.zeros((), dtype=str(dtype))), shape, dtype)


def ones(shape, dtype="float32"):
    """full(1, shape, dtype)."""
    return full(_expr.const(np.ones((), dtype=str(dtype))), shape, dtype)


def arange(start, stop=None, step=None, dtype=None):
    """start, start + step, ... up to stop (exclusive): scalar expressions or numbers; the length is "?"."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if not all(_is_expr(v) for v in (start, stop, step)):
        np_dtype = str(dtype) if dtype is not None else (
            "float32" if any(isinstance(v, float) for v in (start, stop, step)) else "int64")
        start, stop, step = (_as_expr(np.array(v, dtype=np_dtype)) if not _is_expr(v) else v
                             for v in (start, stop, step))
    return _make.arange(start, stop, step, _dtype(dtype))


def trilu(data, k, upper=True):
    """Keep the upper (lower) triangle of the last two dims, diagonal shifted by k (an int or scalar expr)."""
    return _make.trilu(data, _as_expr(k, "int64"), bool(upper))


def eye_like(data, k=0, dtype=None):
    """Ones on diagonal k of a 2-D tensor shaped as data (ONNX EyeLike)."""
    return _make.eye_like(data, int(k), _dtype(dtype))


def one_hot(indices, on_value, off_value, depth, axis=-1, dtype=None):
    """One-hot encode indices on a new axis of size depth (an int, or a scalar expression: dyn.one_hot)."""
    on_value, off_value = _as_expr(on_value, dtype), _as_expr(off_value, dtype)
    if _is_expr(depth):
        return _dyn_make.one_hot(indices, on_value, off_value, depth, 0, int(axis), _dtype(dtype))
    return _make.one_hot(indices, on_value, off_value, int(depth), int(axis), _dtype(dtype))


def reverse_sequence(data, seq_lengths, seq_axis=1, batch_axis=0):
    """Reverse the first seq_lengths[b] items along seq_axis, for each b along batch_axis."""
    return _make.reverse_sequence(data, seq_lengths, int(seq_axis), int(batch_axis))


def where(condition, x, y):
    """condition ? x : y, broadcast together."""
    return _make.where(condition, x, y)


def argwhere(condition):
    """The indices of the non-zero elements of condition: (count, rank), int64."""
    return _make.argwhere(condition)
