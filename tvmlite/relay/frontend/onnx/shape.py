"""Shape and data-movement ops: Reshape, Transpose, Concat, Split, Slice, Gather*, Scatter*, Expand, Tile, Pad,
Squeeze/Unsqueeze, Flatten, DepthToSpace/SpaceToDepth, Shape, Size, ConstantOfShape, Range, Trilu, EyeLike,
OneHot, Where, Compress, ReverseSequence, NonZero, CenterCropPad.

An input that decides the output's shape (Reshape's shape, Slice's bounds, Pad's pads, ...) is read with
ctx.try_constant: a constant gives the static op (typed dims), anything else the dyn.* op (dims "?"). Shape and
Size of a statically shaped input are constants, so shape arithmetic on them stays static downstream: the importer
folds each node's result over constants (up to FOLD_LIMIT elements), these converters' results included.
"""
import numpy as np

from .... import error as _error
from ... import expr as _expr
from ... import op as _op
from .common import (OnnxOpConverter, axis_attr, check_perm, choice_attr, dims_of, dtype_attr, input_at, is_static,
                     normalize_axes, normalize_axis, opset_versions, rank_of, register_converter, required_attr,
                     unsupported)
from .importer import within_fold_limit


# ------------------------------------------------------------------------------------------------- helpers

def _const_ints(ctx, expr):
    """expr's value as a list of Python ints when it is constant, else None."""
    if expr is None:
        return None
    value = ctx.try_constant(expr)
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _i64(values):
    return _expr.const(np.asarray(values, dtype=np.int64).reshape(-1))


def _outputs(ctx):
    return len(ctx.node.output)


# ----------------------------------------------------------------------------------- reshape and friends

@register_converter("Reshape")
class Reshape(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return _op.reshape(inputs[0], required_attr(attr, "shape"))

    @classmethod
    def _impl_v5(cls, inputs, attr, ctx):
        allowzero = bool(attr.get("allowzero", 0))
        shape = _const_ints(ctx, inputs[1])
        if shape is None:
            return _op.reshape(inputs[0], inputs[1], allowzero)
        return _op.reshape(inputs[0], shape, allowzero)


@register_converter("Transpose")
class Transpose(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        perm = attr.get("perm")
        rank = rank_of(inputs[0])
        if perm is not None and rank is not None:
            check_perm(perm, rank)
        return _op.transpose(inputs[0], perm)


@register_converter("Concat")
class Concat(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return _op.concatenate([i for i in inputs if i is not None], axis_attr(attr, "axis", 1, inputs[0]))

    @classmethod
    def _impl_v4(cls, inputs, attr, ctx):
        required_attr(attr, "axis")
        return _op.concatenate([i for i in inputs if i is not None], axis_attr(attr, "axis", None, inputs[0]))


def _split(ctx, data, axis, sizes, sizes_expr=None, num_outputs=None):
    """Split data along axis into len(node.output) pieces: at sizes (ints), by a tensor of sizes, or equally
    (num_outputs: ONNX 18's ceil-sized chunks)."""
    n_out = _outputs(ctx)
    shape = dims_of(data)
    axis = normalize_axis(axis, len(shape), "axis")
    dim = shape[axis]
    if sizes is None and sizes_expr is None:
        if num_outputs is not None and isinstance(dim, int) and dim % n_out:
            chunk = -(-dim // n_out)
            sizes = [chunk] * (n_out - 1) + [dim - chunk * (n_out - 1)]
            if sizes[-1] < 0:
                raise ValueError(f"Split: dim {dim} cannot give {n_out} outputs of {chunk}")
        else:
            return list(_op.split(data, n_out, axis))
    if sizes is not None:
        if len(sizes) != n_out:
            raise ValueError(f"Split: 'split' has {len(sizes)} entries for {n_out} outputs")
        if any(s < 0 for s in sizes) or (isinstance(dim, int) and sum(sizes) != dim):
            raise ValueError(f"Split: sizes {sizes} do not add up to dim {axis} of {tuple(shape)}")
        points = list(np.cumsum(sizes)[:-1])
        return list(_op.split(data, [int(p) for p in points], axis))
    # Sizes known at run time only: slice [sum(sizes[:i]), sum(sizes[:i+1])) for each output.
    begin = _i64([0])
    outs = []
    for i in range(n_out):
        size = _op.strided_slice(sizes_expr, [i], [i + 1])
        end = _op.add(begin, size)
        outs.append(_op.strided_slice(data, begin, end, _i64([1]), _i64([axis])))
        begin = end
    return outs


@register_converter("Split")
class Split(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        if len(inputs) > 1 and inputs[1] is not None:
            return cls._from_input(inputs, attr, ctx)
        return _split(ctx, inputs[0], attr.get("axis", 0), attr.get("split"))

    @classmethod
    def _impl_v2(cls, inputs, attr, ctx):
        return _split(ctx, inputs[0], attr.get("axis", 0), attr.get("split"))

    @classmethod
    def _impl_v13(cls, inputs, attr, ctx):
        if len(inputs) > 1 and inputs[1] is not None:
            return cls._from_input(inputs, attr, ctx)
        return _split(ctx, inputs[0], attr.get("axis", 0), None)

    @classmethod
    def _impl_v18(cls, inputs, attr, ctx):
        if len(inputs) > 1 and inputs[1] is not None:
            if "num_outputs" in attr:
                raise _error.OpAttributeInvalid("give either the 'split' input or 'num_outputs', not both")
            return cls._from_input(inputs, attr, ctx)
        if "num_outputs" not in attr:
            raise _error.OpAttributeRequired("one of the 'split' input and the 'num_outputs' attribute is required")
        if attr["num_outputs"] != _outputs(ctx):
            raise _error.OpAttributeInvalid(f"num_outputs is {attr['num_outputs']} but the node has "
                                            f"{_outputs(ctx)} outputs")
        return _split(ctx, inputs[0], attr.get("axis", 0), None, num_outputs=attr["num_outputs"])

    @classmethod
    def _from_input(cls, inputs, attr, ctx):
        sizes = _const_ints(ctx, inputs[1])
        if sizes is not None:
            return _split(ctx, inputs[0], attr.get("axis", 0), sizes)
        return _split(ctx, inputs[0], attr.get("axis", 0), None, sizes_expr=inputs[1])


# ------------------------------------------------------------------------------------------------- slicing

@register_converter("Slice")
class Slice(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        starts, ends = attr.get("starts"), attr.get("ends")
        if starts is None or ends is None:
            raise _error.OpAttributeRequired("attributes 'starts' and 'ends' are required")
        return _op.strided_slice(inputs[0], starts, ends, axes=attr.get("axes"))

    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        data, starts, ends = inputs[0], inputs[1], inputs[2]
        axes = input_at(inputs, 3)
        steps = input_at(inputs, 4)
        values = [_const_ints(ctx, v) for v in (starts, ends, axes, steps)]
        if all(v is not None or e is None for v, e in zip(values, (starts, ends, axes, steps))):
            s, e, a, st = values
            return _op.strided_slice(data, s, e, strides=st, axes=a)
        n = dims_of(starts)[0]
        if not isinstance(n, int):
            unsupported("Slice: 'starts' of a run-time length")
        exprs = [v if v is not None else None for v in (starts, ends, axes, steps)]
        axes_e = exprs[2] if exprs[2] is not None else _i64(np.arange(n))
        steps_e = exprs[3] if exprs[3] is not None else _i64(np.ones(n))
        return _op.strided_slice(data, exprs[0], exprs[1], strides=steps_e, axes=axes_e)


@register_converter("Gather")
class Gather(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return _op.take(inputs[0], inputs[1], axis=axis_attr(attr, "axis", 0, inputs[0]))


@register_converter("GatherElements")
class GatherElements(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return _op.gather_elements(inputs[0], inputs[1], axis_attr(attr, "axis", 0, inputs[0]))


@register_converter("GatherND")
class GatherND(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return _op.gather_nd(inputs[0], inputs[1])

    @classmethod
    def _impl_v12(cls, inputs, attr, ctx):
        return _op.gather_nd(inputs[0], inputs[1], attr.get("batch_dims", 0))


_REDUCTIONS = {"none": "update", "add": "add", "mul": "mul", "max": "max", "min": "min"}


def _reduction(attr, allowed):
    r = attr.get("reduction", "none")
    if r not in allowed:
        raise _error.OpAttributeInvalid(f"reduction '{r}' (this opset allows: {', '.join(allowed)})")
    return _REDUCTIONS[r]


@register_converter("ScatterElements")
class ScatterElements(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return _op.scatter_elements(*inputs[:3], axis=axis_attr(attr, "axis", 0, inputs[0]),
                                    reduction=_reduction(attr, ["none"]))

    @classmethod
    def _impl_v16(cls, inputs, attr, ctx):
        return _op.scatter_elements(*inputs[:3], axis=axis_attr(attr, "axis", 0, inputs[0]),
                                    reduction=_reduction(attr, ["none", "add", "mul"]))

    @classmethod
    def _impl_v18(cls, inputs, attr, ctx):
        return _op.scatter_elements(*inputs[:3], axis=axis_attr(attr, "axis", 0, inputs[0]),
                                    reduction=_reduction(attr, list(_REDUCTIONS)))


@register_converter("Scatter")
class Scatter(OnnxOpConverter):
    """Deprecated since opset 11: ScatterElements without reduction."""

    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        return _op.scatter_elements(*inputs[:3], axis=axis_attr(attr, "axis", 0, inputs[0]))


@register_converter("ScatterND")
class ScatterND(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return _op.scatter_nd(*inputs[:3], mode=_reduction(attr, ["none"]))

    @classmethod
    def _impl_v16(cls, inputs, attr, ctx):
        return _op.scatter_nd(*inputs[:3], mode=_reduction(attr, ["none", "add", "mul"]))

    @classmethod
    def _impl_v18(cls, inputs, attr, ctx):
        return _op.scatter_nd(*inputs[:3], mode=_reduction(attr, list(_REDUCTIONS)))


# ---------------------------------------------------------------------------------------- expand, tile, pad

@register_converter("Expand")
class Expand(OnnxOpConverter):
    @classmethod
    def _impl_v8(cls, inputs, attr, ctx):
        shape = _const_ints(ctx, inputs[1])
        return _op.broadcast_to(inputs[0], inputs[1] if shape is None else shape)


@register_converter("Tile")
class Tile(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        tiles, axis = _const_ints(ctx, inputs[1]), _const_ints(ctx, inputs[2])
        if tiles is None or axis is None:
            unsupported("Tile (opset < 6): run-time 'tiles' or 'axis'")
        rank = len(dims_of(inputs[0]))
        reps = [1] * rank
        reps[normalize_axis(axis[0], rank, "input 'axis'")] = tiles[0]
        return _op.tile(inputs[0], reps)

    @classmethod
    def _impl_v6(cls, inputs, attr, ctx):
        reps = _const_ints(ctx, inputs[1])
        rank = len(dims_of(inputs[0]))
        if reps is not None and len(reps) != rank:
            raise ValueError(f"Tile: 'repeats' has {len(reps)} entries for an input of rank {rank}")
        return _op.tile(inputs[0], inputs[1] if reps is None else reps)


_PAD_MODES = {1: ("constant", "reflect", "edge"), 19: ("constant", "reflect", "edge", "wrap")}


def _pad(ctx, data, pads, pads_expr, value, mode, axes, axes_expr, modes):
    if mode not in modes:
        raise _error.OpAttributeInvalid(f"mode '{mode}' (this opset allows: {', '.join(modes)})")
    rank = len(dims_of(data))
    dtype = data.checked_type.dtype
    if value is None:
        value = _zero(data)
    elif isinstance(value, (int, float)):
        value = _expr.const(np.array(value).astype(_np_dtype(dtype)), str(dtype))
    elif len(dims_of(value)) != 0:
        value = _op.reshape(value, [])
    if pads is not None and axes_expr is None:
        axes = list(range(rank)) if axes is None else normalize_axes(axes, rank, "input 'axes'")
        if len(pads) != 2 * len(axes):
            raise ValueError(f"Pad: {len(pads)} pads for {len(axes)} axes (expected 2 per axis)")
        widths = [(0, 0)] * rank
        for i, a in enumerate(axes):
            widths[a] = (pads[i], pads[i + len(axes)])
        return _op.nn.pad(data, widths, value, mode)
    pads_e = pads_expr if pads_expr is not None else _i64(pads)
    axes_e = axes_expr if axes_expr is not None else _i64(list(range(rank)) if axes is None else axes)
    return _op.nn.pad(data, pads_e, value, mode, axes=axes_e)


def _np_dtype(dtype):
    from ...backend.dtypes import to_numpy_dtype

    return to_numpy_dtype(str(dtype))


@register_converter("Pad")
class Pad(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return cls._attrs(inputs, attr, ctx, "paddings")

    @classmethod
    def _impl_v2(cls, inputs, attr, ctx):
        return cls._attrs(inputs, attr, ctx, "pads")

    @classmethod
    def _attrs(cls, inputs, attr, ctx, pads_name):
        """Before opset 11 the pads are an attribute (named "paddings" in opset 1)."""
        return _pad(ctx, inputs[0], required_attr(attr, pads_name), None, attr.get("value", 0.0),
                    attr.get("mode", "constant"), None, None, _PAD_MODES[1])

    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return cls._inputs(inputs, attr, ctx, _PAD_MODES[1])

    @classmethod
    def _impl_v19(cls, inputs, attr, ctx):
        return cls._inputs(inputs, attr, ctx, _PAD_MODES[19])

    @classmethod
    def _inputs(cls, inputs, attr, ctx, modes):
        data, pads_e = inputs[0], inputs[1]
        value = input_at(inputs, 2)
        axes_e = input_at(inputs, 3)
        pads, axes = _const_ints(ctx, pads_e), _const_ints(ctx, axes_e)
        if axes_e is not None and axes is not None:
            axes_e = None
        return _pad(ctx, data, pads, None if pads is not None else pads_e, value, attr.get("mode", "constant"),
                    axes, axes_e, modes)


# ------------------------------------------------------------------------------- squeeze, unsqueeze, flatten

@register_converter("Squeeze")
class Squeeze(OnnxOpConverter):
    """Without axes, the dims known to be 1 are squeezed and listed explicitly, so the type and the run agree
    when a symbolic dim turns out to be 1 at run time (it is kept, as TVM does)."""

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return cls._squeeze(inputs[0], attr.get("axes"))

    @classmethod
    def _impl_v13(cls, inputs, attr, ctx):
        if len(inputs) < 2 or inputs[1] is None:
            return cls._squeeze(inputs[0], None)
        axes = _const_ints(ctx, inputs[1])
        return _op.squeeze(inputs[0], inputs[1] if axes is None else axes)

    @classmethod
    def _squeeze(cls, data, axes):
        if axes is None:
            axes = [i for i, d in enumerate(dims_of(data)) if isinstance(d, int) and d == 1]
        else:
            normalize_axes(axes, len(dims_of(data)))
        return _op.squeeze(data, axes)


def _unsqueeze(data, axes, what="axes"):
    rank = len(dims_of(data)) + len(axes)
    out = data
    norm = sorted(normalize_axes(axes, rank, what))
    for a in norm:
        out = _op.expand_dims(out, a)
    return out


@register_converter("Unsqueeze")
class Unsqueeze(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return _unsqueeze(inputs[0], required_attr(attr, "axes"))

    @classmethod
    def _impl_v13(cls, inputs, attr, ctx):
        axes = _const_ints(ctx, inputs[1])
        return _op.expand_dims(inputs[0], inputs[1]) if axes is None else _unsqueeze(inputs[0], axes, "input 'axes'")


@register_converter("Flatten")
class Flatten(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        shape = dims_of(inputs[0])
        rank = len(shape)
        axis = normalize_axis(attr.get("axis", 1), rank, "axis", end=True)
        left, right = shape[:axis], shape[axis:]
        if axis == 0:
            return _op.reshape(inputs[0], [1, -1])
        if axis == 1:
            return _op.reshape(inputs[0], [0, -1])
        if is_static(right):
            return _op.reshape(inputs[0], [-1, int(np.prod(right, dtype=np.int64))])
        if is_static(left):
            return _op.reshape(inputs[0], [int(np.prod(left, dtype=np.int64)), -1])
        dims = _op.shape_of(inputs[0])
        new = _op.concatenate([_op.reshape(_prod(dims, 0, axis), [1]), _i64([-1])], 0)
        return _op.reshape(inputs[0], new)


def _prod(dims, lo, hi):
    out = _op.take(dims, _expr.const(np.int64(lo)), axis=0)
    for i in range(lo + 1, hi):
        out = _op.multiply(out, _op.take(dims, _expr.const(np.int64(i)), axis=0))
    return out


def _block_rearrange(builder, mode_since):
    """DepthToSpace's or SpaceToDepth's converter: the attribute 'mode' from opset mode_since, "DCR" before."""
    @opset_versions(1, mode_since)
    class Converter(OnnxOpConverter):
        @classmethod
        def _convert(cls, inputs, attr, ctx, version):
            mode = choice_attr(attr, "mode", "DCR", _MODES) if version >= mode_since else "DCR"
            return builder(inputs[0], _blocksize(attr), mode=mode)

    return Converter


_MODES = ("DCR", "CRD")

for _name, _builder, _mode_since in [("DepthToSpace", _op.nn.depth_to_space, 11),
                                     ("SpaceToDepth", _op.nn.space_to_depth, 28)]:
    register_converter(_name)(type(_name, (_block_rearrange(_builder, _mode_since),), {}))
del _name, _builder, _mode_since


def _blocksize(attr):
    blocksize = required_attr(attr, "blocksize")
    if blocksize < 1:
        raise _error.OpAttributeInvalid(f"attribute 'blocksize' is {blocksize}, must be at least 1")
    return blocksize


# ------------------------------------------------------------------------------------------ shape queries

@register_converter("Shape")
class Shape(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return cls._shape(inputs[0], 0, None)

    @classmethod
    def _impl_v15(cls, inputs, attr, ctx):
        return cls._shape(inputs[0], attr.get("start", 0), attr.get("end"))

    @classmethod
    def _shape(cls, data, start, end):
        shape = dims_of(data)
        rank = len(shape)
        # ONNX clamps start and end to [0, rank] after counting negatives from the end.
        start = min(max(start + rank if start < 0 else start, 0), rank)
        end = rank if end is None else min(max(end + rank if end < 0 else end, 0), rank)
        if is_static(shape[start:end]):
            return _i64(shape[start:end])
        out = _op.shape_of(data)
        if (start, end) != (0, rank):
            out = _op.strided_slice(out, [start], [max(end, start)])
        return out


@register_converter("Size")
class Size(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        shape = dims_of(inputs[0])
        if is_static(shape):
            return _expr.const(np.array(int(np.prod(shape, dtype=np.int64)), dtype=np.int64))
        return _op.ndarray_size(inputs[0])


# ------------------------------------------------------------------------------------------- constructors

@register_converter("ConstantOfShape")
class ConstantOfShape(OnnxOpConverter):
    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        value = attr.get("value")
        value = np.zeros((), np.float32) if value is None else np.asarray(value).reshape(-1)
        if value.size != 1:
            raise _error.OpAttributeInvalid(f"'value' must hold one element, got {value.size}")
        fill = _expr.const(value.reshape(()))
        shape = _const_ints(ctx, inputs[0])
        if shape is not None:
            if any(d < 0 for d in shape):
                raise ValueError(f"ConstantOfShape: negative dim in {shape}")
            return _op.full(fill, shape)  # the importer folds it, up to FOLD_LIMIT elements
        return _op.full(fill, inputs[0])


@register_converter("Range")
class Range(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        values = [ctx.try_constant(i) for i in inputs[:3]]
        if all(v is not None for v in values):
            start, limit, delta = (np.asarray(v).reshape(()) for v in values)
            if delta == 0:
                raise ValueError("Range: delta is 0")
            if start.dtype.kind in "iu":
                n = max(-(-(int(limit) - int(start)) // int(delta)), 0)
            else:
                n = max(int(np.ceil((float(limit) - float(start)) / float(delta))), 0)
            if not within_fold_limit([n]):  # arange's length is "?" in its type: the importer cannot fold it
                return _op.arange(*inputs[:3])
            return _expr.const((start + np.arange(n) * delta).astype(start.dtype))
        return _op.arange(*inputs[:3])


@register_converter("Trilu")
class Trilu(OnnxOpConverter):
    @classmethod
    def _impl_v14(cls, inputs, attr, ctx):
        k = inputs[1] if len(inputs) > 1 and inputs[1] is not None else _expr.const(np.int64(0))
        return _op.trilu(inputs[0], k, upper=bool(attr.get("upper", 1)))


@register_converter("EyeLike")
class EyeLike(OnnxOpConverter):
    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        return _op.eye_like(inputs[0], attr.get("k", 0), dtype_attr(attr, "dtype"))


@register_converter("OneHot")
class OneHot(OnnxOpConverter):
    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        indices, depth, values = inputs[:3]
        axis = axis_attr(attr, "axis", -1, indices, extra=1)  # an axis of the result, one rank more
        off = _op.take(values, _expr.const(np.int64(0)), axis=0)
        on = _op.take(values, _expr.const(np.int64(1)), axis=0)
        d = ctx.try_constant(depth)
        if d is not None:
            return _op.one_hot(indices, on, off, int(np.asarray(d).reshape(-1)[0]), axis=axis)
        return _op.one_hot(indices, on, off, depth, axis=axis)


@register_converter("Where")
class Where(OnnxOpConverter):
    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        return _op.where(*inputs[:3])


@register_converter("Compress")
class Compress(OnnxOpConverter):
    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        data, cond = inputs[0], inputs[1]
        axis = attr.get("axis")
        if axis is None:
            data, axis = _op.reshape(data, [-1]), 0
        else:
            axis = normalize_axis(axis, len(dims_of(data)), "axis")
        picked = _op.reshape(_op.argwhere(cond), [-1])
        return _op.take(data, picked, axis=axis)


@register_converter("ReverseSequence")
class ReverseSequence(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        time_axis = choice_attr(attr, "time_axis", 0, (0, 1))  # ONNX: the axes are 0 and 1, in either order
        batch_axis = choice_attr(attr, "batch_axis", 1, (0, 1))
        if time_axis == batch_axis:
            raise _error.OpAttributeInvalid(f"attributes 'time_axis' and 'batch_axis' are both {time_axis}")
        return _op.reverse_sequence(inputs[0], inputs[1], seq_axis=time_axis, batch_axis=batch_axis)


@register_converter("NonZero")
class NonZero(OnnxOpConverter):
    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        return _op.transpose(_op.argwhere(inputs[0]), [1, 0])


@register_converter("CenterCropPad")
class CenterCropPad(OnnxOpConverter):
    @classmethod
    def _impl_v18(cls, inputs, attr, ctx):
        data, target_e = inputs[0], inputs[1]
        shape = dims_of(data)
        rank = len(shape)
        axes = normalize_axes(attr.get("axes", range(rank)), rank)
        target = _const_ints(ctx, target_e)
        if target is not None and all(isinstance(shape[a], int) for a in axes):
            if len(target) != len(axes):
                raise ValueError(f"CenterCropPad: 'shape' has {len(target)} entries for {len(axes)} axes")
            begin, end, widths = [], [], [(0, 0)] * rank
            for a, t in zip(axes, target):
                d = shape[a]
                start = max(d - t, 0) // 2
                begin.append(start)
                end.append(start + min(d, t))
                before = max(t - d, 0) // 2
                widths[a] = (before, max(t - d, 0) - before)
            out = _op.strided_slice(data, begin, end, axes=axes)
            return _op.nn.pad(out, widths, _zero(data), "constant")
        if not all(isinstance(shape[a], int) for a in axes):
            unsupported("CenterCropPad: symbolic dims on the cropped axes")
        tdtype = str(target_e.checked_type.dtype)  # int32 or int64 (ONNX's Tind)

        def vec(values):
            return _expr.const(np.asarray(values, dtype=tdtype).reshape(-1))

        dims = vec([shape[a] for a in axes])
        diff = _op.subtract(target_e, dims)
        zero = vec([0] * len(axes))
        two = vec([2] * len(axes))
        crop = _op.maximum(_op.negative(diff), zero)
        grow = _op.maximum(diff, zero)
        start = _op.floor_divide(crop, two)
        end = _op.add(start, _op.minimum(target_e, dims))
        axes_e = _i64(axes)
        out = _op.strided_slice(data, start, end, _i64([1] * len(axes)), axes_e)
        before = _op.floor_divide(grow, two)
        pads = _op.concatenate([before, _op.subtract(grow, before)], 0)
        return _op.nn.pad(out, pads, _zero(data), "constant", axes=axes_e)


def _zero(data):
    dtype = data.checked_type.dtype
    return _expr.const(np.zeros((), dtype=_np_dtype(dtype)), str(dtype))
