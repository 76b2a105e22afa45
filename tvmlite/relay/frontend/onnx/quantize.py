"""Quantization: QuantizeLinear, DequantizeLinear (per tensor, per axis, blocked; every opset's types),
DynamicQuantizeLinear, QLinearMatMul, QLinearConv."""
from ....error import OpAttributeInvalid
from ... import expr as _expr
from ... import op as _op
from .common import (OnnxOpConverter, axis_attr, dtype_attr, dtype_of, input_at, opset_versions, register_converter,
                     unsupported)
from .nn import _group, _kernel, _spatial_attr, _window_pads


def _axis(attr, x, scale):
    """The axis of a per-axis or blocked scale (checked against x's rank); a scalar scale ignores it."""
    if len(scale.checked_type.shape) == 0:
        return attr.get("axis", 1)
    return axis_attr(attr, "axis", 1, x)


@register_converter("QuantizeLinear")
@opset_versions(10, 13, 19, 21)  # 13: per axis; 19: saturate (float8 targets); 21: block_size, output_dtype
class QuantizeLinear(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        x, scale = inputs[0], inputs[1]
        zp = input_at(inputs, 2)
        if attr.get("output_dtype"):
            out = dtype_attr(attr, "output_dtype")
            if zp is not None and dtype_of(zp) != out:
                raise OpAttributeInvalid(f"attribute 'output_dtype' is {out}, the zero point's dtype is "
                                         f"{dtype_of(zp)}")
        else:
            out = dtype_of(zp) if zp is not None else "uint8"
        if version < 13 and len(scale.checked_type.shape) > 0:
            raise ValueError("QuantizeLinear-10 takes a scalar scale")
        precision = dtype_attr(attr, "precision") if attr.get("precision") else None
        if precision is not None and precision != dtype_of(x):
            unsupported(f"QuantizeLinear: precision {precision} for a {dtype_of(x)} input")
        return _op.qnn.quantize(x, scale, zp, axis=_axis(attr, x, scale), block_size=attr.get("block_size", 0),
                                out_dtype=out, saturate=bool(attr.get("saturate", 1)))


@register_converter("DequantizeLinear")
@opset_versions(10, 13, 19, 21, 23)
class DequantizeLinear(OnnxOpConverter):
    """13: per axis; 19: float8 inputs, float16/bfloat16 scales; 21: block_size; 23: output_dtype."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        x, scale = inputs[0], inputs[1]
        zp = input_at(inputs, 2)
        out = dtype_attr(attr, "output_dtype") if attr.get("output_dtype") else dtype_of(scale)
        return _op.qnn.dequantize(x, scale, zp, axis=_axis(attr, x, scale), block_size=attr.get("block_size", 0),
                                  out_dtype=out)


@register_converter("DynamicQuantizeLinear")
class DynamicQuantizeLinear(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        call = _op.qnn.dynamic_quantize(inputs[0])
        return [_expr.TupleGetItem(call, i) for i in range(3)]


@register_converter("QLinearMatMul")
class QLinearMatMul(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        if len(inputs) != 8 or any(i is None for i in inputs):
            raise ValueError("QLinearMatMul takes 8 inputs")
        return _op.qnn.qlinear_matmul(*inputs)


@register_converter("QLinearConv")
class QLinearConv(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        inputs = list(inputs) + [None] * (9 - len(inputs))
        x, w = inputs[0], inputs[3]
        xs, ws = x.checked_type.shape, w.checked_type.shape
        nsp = len(xs) - 2
        if nsp < 1:
            raise ValueError(f"QLinearConv: x must be at least 3-D, got shape {tuple(xs)}")
        if len(ws) != nsp + 2:
            raise ValueError(f"QLinearConv: w of shape {tuple(ws)} does not match x of shape {tuple(xs)}")
        kernel = _kernel(attr, w, nsp, "QLinearConv")
        strides = _spatial_attr(attr, "strides", nsp, 1)
        dilations = _spatial_attr(attr, "dilations", nsp, 1)
        pads = _window_pads(x, attr, kernel, strides, dilations, 11, "QLinearConv")  # SAME pads dilate (as 11+)
        return _op.qnn.qlinear_conv(inputs[0], inputs[1], inputs[2], inputs[3], inputs[4], inputs[5], inputs[6],
                                    inputs[7], inputs[8], strides=strides, padding=pads, dilation=dilations,
                                    groups=_group(attr))
