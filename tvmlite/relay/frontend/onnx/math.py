"""Math ops: reductions, arg-extremes, scans, TopK, Unique, Det, Pow, Mod, BitShift, variadic Max/Min/Sum/Mean,
IsInf, Cast, CastLike and BitCast.

Opset history that matters here:
* Reduce*: ``axes`` is an attribute up to ReduceSum 11 / the others 13, then an optional input (ReduceSum 13, the
  others 18) with ``noop_with_empty_axes``: no or empty axes reduce every axis, or none when it is set (the op keeps
  its elementwise part: ReduceSumSquare squares). A constant axes input becomes the static relay op; one known
  only at run time becomes the dyn.* op (its length must be static without keepdims: the output rank needs it).
* ArgMax/ArgMin: ``select_last_index`` from opset 12. CumSum (11) / CumProd (26): the axis is an input.
* TopK: ``k`` is an attribute in opset 1, an input from 10; ``largest`` / ``sorted`` from 11 (results are always
  sorted, which ``sorted=0`` allows).
* Pow: before 7, legacy ``broadcast`` / ``axis``; from 12 the exponent's dtype may differ (the base's wins).
* Mod: ``fmod=0`` is floor modulo (Python's %, the divisor's sign), ``fmod=1`` C fmod (the dividend's sign).
* Max/Min/Sum/Mean: before 8, inputs of one shape (numpy broadcasting accepts those too); v1's consumed_inputs is
  a memory hint.
* Cast: ``to`` is a type name string in opset 1 ("FLOAT"), a TensorProto enum from 6; ``saturate`` from 19 (float8
  targets), ``round_mode`` from 24 (float8e8m0). String tensors are not supported.
"""
import numpy as np

from ....error import OpAttributeInvalid, OpAttributeRequired
from ... import op as _op
from ...backend.dtypes import to_numpy_dtype
from ...expr import TupleGetItem, const
from .common import (OnnxOpConverter, axis_attr, choice_attr, dtype_attr, dtype_of, normalize_axes, rank_of,
                     opset_versions, register_converter, register_renamed, required_attr, unsupported)
from .elemwise import legacy_broadcast


def _constant_ints(expr, ctx, what):
    """expr's value as a list of ints when it is constant, else None."""
    value = ctx.try_constant(expr)
    if value is None:
        return None
    value = np.asarray(value)
    if value.dtype.kind not in "iu":
        raise OpAttributeInvalid(f"{what} must be integers, got {value.dtype}")
    return [int(v) for v in value.reshape(-1)]


# -- reductions ----------------------------------------------------------------------------------------------
def _reduce(relay_name, axes_input_from):
    builder = getattr(_op, relay_name)

    def with_attr(cls, inputs, attr, ctx):
        axes = attr.get("axes")
        if axes and rank_of(inputs[0]) is not None:
            normalize_axes(axes, rank_of(inputs[0]))
        return builder(inputs[0], axis=list(axes) if axes else None, keepdims=bool(attr.get("keepdims", 1)))

    def with_input(cls, inputs, attr, ctx):
        if "axes" in attr:
            raise OpAttributeInvalid(f"axes is an input from opset {axes_input_from}, not an attribute")
        keepdims = bool(attr.get("keepdims", 1))
        noop = bool(attr.get("noop_with_empty_axes", 0))
        empty = [] if noop else None
        if len(inputs) < 2 or inputs[1] is None:
            return builder(inputs[0], axis=empty, keepdims=keepdims)
        axes = _constant_ints(inputs[1], ctx, "axes")
        if axes is not None:
            return builder(inputs[0], axis=axes or empty, keepdims=keepdims)
        shape = list(inputs[1].checked_type.shape)
        if len(shape) == 1 and shape[0] == 0:
            return builder(inputs[0], axis=empty, keepdims=keepdims)
        return builder(inputs[0], axis=inputs[1], keepdims=keepdims, noop_with_empty_axes=noop)

    return {"_impl_v1": classmethod(with_attr), f"_impl_v{axes_input_from}": classmethod(with_input)}


for _onnx_name, _relay_name, _from in [("ReduceSum", "sum", 13), ("ReduceMean", "mean", 18),
                                       ("ReduceMax", "max", 18), ("ReduceMin", "min", 18),
                                       ("ReduceProd", "prod", 18), ("ReduceLogSumExp", "logsumexp", 18),
                                       ("ReduceLogSum", "log_sum", 18), ("ReduceL1", "l1_norm", 18),
                                       ("ReduceL2", "l2_norm", 18), ("ReduceSumSquare", "sum_square", 18)]:
    register_converter(_onnx_name)(type(_onnx_name, (OnnxOpConverter,), _reduce(_relay_name, _from)))


def _arg_reduce(builder):
    def v1(cls, inputs, attr, ctx):
        return builder(inputs[0], axis=[axis_attr(attr, "axis", 0, inputs[0])], keepdims=bool(attr.get("keepdims", 1)))

    def v12(cls, inputs, attr, ctx):
        return builder(inputs[0], axis=[axis_attr(attr, "axis", 0, inputs[0])], keepdims=bool(attr.get("keepdims", 1)),
                       select_last_index=bool(attr.get("select_last_index", 0)))

    return {"_impl_v1": classmethod(v1), "_impl_v12": classmethod(v12)}


register_converter("ArgMax")(type("ArgMax", (OnnxOpConverter,), _arg_reduce(_op.argmax)))
register_converter("ArgMin")(type("ArgMin", (OnnxOpConverter,), _arg_reduce(_op.argmin)))


def _scan(builder, first):
    def impl(cls, inputs, attr, ctx):
        if len(inputs) < 2 or inputs[1] is None:
            raise OpAttributeRequired("the axis input is required")
        axis = _constant_ints(inputs[1], ctx, "axis")
        if axis is not None and len(axis) != 1:
            raise OpAttributeInvalid(f"axis must hold one value, got {axis}")
        return builder(inputs[0], axis=axis[0] if axis is not None else inputs[1],
                       exclusive=bool(attr.get("exclusive", 0)), reverse=bool(attr.get("reverse", 0)))

    return {f"_impl_v{first}": classmethod(impl)}


register_converter("CumSum")(type("CumSum", (OnnxOpConverter,), _scan(_op.cumsum, 11)))
register_converter("CumProd")(type("CumProd", (OnnxOpConverter,), _scan(_op.cumprod, 26)))


@register_converter("TopK")
class TopK(OnnxOpConverter):
    """k as an attribute (1) or an input (10+); largest / sorted from 11."""

    @staticmethod
    def _topk(data, k, axis, largest):
        call = _op.topk(data, k=k, axis=axis, ret_type="both", is_ascend=not largest, dtype="int64")
        return [TupleGetItem(call, 0), TupleGetItem(call, 1)]

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return cls._topk(inputs[0], required_attr(attr, "k"), axis_attr(attr, "axis", -1, inputs[0]), True)

    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        return cls._k_input(inputs, attr, ctx, True)

    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return cls._k_input(inputs, attr, ctx, bool(attr.get("largest", 1)))

    @classmethod
    def _k_input(cls, inputs, attr, ctx, largest):
        if len(inputs) < 2 or inputs[1] is None:
            raise OpAttributeRequired("the k input is required")
        k = _constant_ints(inputs[1], ctx, "k")
        if k is not None and len(k) != 1:
            raise OpAttributeInvalid(f"k must hold one value, got {k}")
        return cls._topk(inputs[0], k[0] if k is not None else inputs[1], axis_attr(attr, "axis", -1, inputs[0]),
                         largest)


@register_converter("Unique")
class Unique(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        call = _op.unique(inputs[0], sorted=bool(attr.get("sorted", 1)), axis=axis_attr(attr, "axis", None, inputs[0]))
        return [TupleGetItem(call, i) for i in range(4)]


register_renamed("Det", 11, _op.det)


# -- elementwise -----------------------------------------------------------------------------------------------
@register_converter("Pow")
class Pow(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return _op.power(inputs[0], legacy_broadcast(inputs[0], inputs[1], attr, ctx))

    @classmethod
    def _impl_v7(cls, inputs, attr, ctx):
        return _op.power(inputs[0], inputs[1])


@register_converter("Mod")
class Mod(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        fmod = attr.get("fmod", 0)
        if fmod not in (0, 1):
            raise OpAttributeInvalid(f"fmod must be 0 or 1, got {fmod}")
        return (_op.mod if fmod else _op.floor_mod)(inputs[0], inputs[1])


@register_converter("BitShift")
class BitShift(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        direction = required_attr(attr, "direction")
        if direction not in ("LEFT", "RIGHT"):
            raise OpAttributeInvalid(f"direction must be LEFT or RIGHT, got {direction!r}")
        return (_op.left_shift if direction == "LEFT" else _op.right_shift)(inputs[0], inputs[1])


def _variadic(fold, mean=False):
    def impl(cls, inputs, attr, ctx):
        args = [i for i in inputs if i is not None]
        if not args:
            raise OpAttributeInvalid("needs at least one input")
        out = args[0]
        for arg in args[1:]:
            out = fold(out, arg)
        if mean:
            if len(args) > 1:
                out = _op.divide(out, const(np.array(len(args), to_numpy_dtype(dtype_of(args[0])))))
        elif len(args) == 1:
            out = _op.copy(out)
        return out

    return {"_impl_v1": classmethod(impl), "_impl_v8": classmethod(impl)}


register_converter("Max")(type("Max", (OnnxOpConverter,), _variadic(_op.maximum)))
register_converter("Min")(type("Min", (OnnxOpConverter,), _variadic(_op.minimum)))
register_converter("Sum")(type("Sum", (OnnxOpConverter,), _variadic(_op.add)))
register_converter("Mean")(type("Mean", (OnnxOpConverter,), _variadic(_op.add, mean=True)))


@register_converter("IsInf")
class IsInf(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        x = inputs[0]
        positive, negative = bool(attr.get("detect_positive", 1)), bool(attr.get("detect_negative", 1))
        out = _op.isinf(x)
        if positive and negative:
            return out
        if not positive and not negative:
            return _op.logical_and(out, const(np.array(False)))
        zero = const(np.zeros((), to_numpy_dtype(dtype_of(x))))
        return _op.logical_and(out, (_op.greater if positive else _op.less)(x, zero))


# -- casts -------------------------------------------------------------------------------------------------------
def _target_dtype(to, allow_name):
    import onnx

    if isinstance(to, str):
        if not allow_name:
            raise OpAttributeInvalid(f"'to' must be a TensorProto data type number from opset 6, got {to!r}")
        if to.upper() not in onnx.TensorProto.DataType.keys():
            raise OpAttributeInvalid(f"'to' names no TensorProto data type: {to!r}")
        to = onnx.TensorProto.DataType.Value(to.upper())
    name = dtype_attr({"to": to}, "to")
    if name == "string":
        unsupported("casts to or from string tensors are not supported")
    return name


def _round_mode(attr):
    return choice_attr(attr, "round_mode", "up", ("up", "down", "nearest"))


def _check_source(x):
    if dtype_of(x) == "string":
        unsupported("casts to or from string tensors are not supported")


def _checked_target(inputs, attr, allow_name):
    """Cast's and BitCast's target dtype (the required attribute 'to'), once the source is known not a string."""
    to = required_attr(attr, "to")
    _check_source(inputs[0])
    return _target_dtype(to, allow_name)


@register_converter("Cast")
@opset_versions(1, 6, 19, 24)
class Cast(OnnxOpConverter):
    """1: 'to' may name the type; 6: a type number only; 19: saturate; 24: round_mode."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _op.cast(inputs[0], _checked_target(inputs, attr, version < 6),
                        saturate=bool(attr.get("saturate", 1)) if version >= 19 else True,
                        round_mode=_round_mode(attr) if version >= 24 else "up")


@register_converter("CastLike")
@opset_versions(15, 19, 24)
class CastLike(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        _check_source(inputs[0])
        _check_source(inputs[1])
        return _op.cast_like(inputs[0], inputs[1], saturate=bool(attr.get("saturate", 1)),
                             round_mode=_round_mode(attr))


@register_converter("BitCast")
class BitCast(OnnxOpConverter):
    @classmethod
    def _impl_v26(cls, inputs, attr, ctx):
        return _op.reinterpret(inputs[0], _checked_target(inputs, attr, False))


del _onnx_name, _relay_name, _from
