"""Quantization: QuantizeLinear, DequantizeLinear (per tensor, per axis, blocked; every opset's types),
DynamicQuantizeLinear, QLinearMatMul, QLinearConv."""
from ... import expr as _expr
from ... import op as _op
from .common import OnnxOpConverter, register_converter, unsupported
from .importer import tensor_dtype


def _dtype_of(expr):
    return str(expr.checked_type.dtype)


@register_converter("QuantizeLinear")
class QuantizeLinear(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        return cls._convert(inputs, attr, per_axis=False)

    @classmethod
    def _impl_v13(cls, inputs, attr, ctx):
        return cls._convert(inputs, attr, per_axis=True)

    @classmethod
    def _impl_v19(cls, inputs, attr, ctx):  # saturate (float8 targets)
        return cls._convert(inputs, attr, per_axis=True)

    @classmethod
    def _impl_v21(cls, inputs, attr, ctx):  # block_size, output_dtype
        return cls._convert(inputs, attr, per_axis=True)

    @classmethod
    def _convert(cls, inputs, attr, per_axis):
        x, scale = inputs[0], inputs[1]
        zp = inputs[2] if len(inputs) > 2 else None
        if "output_dtype" in attr and attr["output_dtype"]:
            out = tensor_dtype(attr["output_dtype"])
            if zp is not None and _dtype_of(zp) != out:
                raise ValueError(f"output_dtype {out} differs from the zero point's dtype {_dtype_of(zp)}")
        else:
            out = _dtype_of(zp) if zp is not None else "uint8"
        if not per_axis and len(scale.checked_type.shape) > 0:
            raise ValueError("QuantizeLinear-10 takes a scalar scale")
        if attr.get("precision") and tensor_dtype(attr["precision"]) != _dtype_of(x):
            unsupported(f"QuantizeLinear: precision {tensor_dtype(attr['precision'])} for a {_dtype_of(x)} input")
        return _op.qnn.quantize(x, scale, zp, axis=attr.get("axis", 1), block_size=attr.get("block_size", 0),
                                out_dtype=out, saturate=bool(attr.get("saturate", 1)))


@register_converter("DequantizeLinear")
class DequantizeLinear(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        return cls._convert(inputs, attr)

    @classmethod
    def _impl_v13(cls, inputs, attr, ctx):  # per axis
        return cls._convert(inputs, attr)

    @classmethod
    def _impl_v19(cls, inputs, attr, ctx):  # float8 inputs, float16/bfloat16 scales
        return cls._convert(inputs, attr)

    @classmethod
    def _impl_v21(cls, inputs, attr, ctx):  # block_size
        return cls._convert(inputs, attr)

    @classmethod
    def _impl_v23(cls, inputs, attr, ctx):  # output_dtype
        return cls._convert(inputs, attr)

    @classmethod
    def _convert(cls, inputs, attr):
        x, scale = inputs[0], inputs[1]
        zp = inputs[2] if len(inputs) > 2 else None
        out = tensor_dtype(attr["output_dtype"]) if attr.get("output_dtype") else _dtype_of(scale)
        return _op.qnn.dequantize(x, scale, zp, axis=attr.get("axis", 1), block_size=attr.get("block_size", 0),
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
        kernel = list(attr.get("kernel_shape", ws[2:]))
        strides = list(attr.get("strides", [1] * nsp))
        dilations = list(attr.get("dilations", [1] * nsp))
        pads = _pads(attr, xs[2:], kernel, strides, dilations, nsp)
        return _op.qnn.qlinear_conv(inputs[0], inputs[1], inputs[2], inputs[3], inputs[4], inputs[5], inputs[6],
                                    inputs[7], inputs[8], strides=strides, padding=pads, dilation=dilations,
                                    groups=attr.get("group", 1))


def _pads(attr, spatial, kernel, strides, dilations, nsp):
    """ONNX auto_pad -> explicit pads (begin..., end...)."""
    auto_pad = attr.get("auto_pad", "NOTSET")
    if auto_pad in ("NOTSET", ""):
        return list(attr.get("pads", [0] * 2 * nsp))
    if auto_pad == "VALID":
        return [0] * 2 * nsp
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        raise ValueError(f"unknown auto_pad '{auto_pad}'")
    begin, end = [], []
    for i in range(nsp):
        if not isinstance(spatial[i], int) or not isinstance(kernel[i], int):
            raise ValueError("auto_pad SAME needs static spatial dims")
        out = -(-spatial[i] // strides[i])
        total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - spatial[i])
        small, large = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else large)
        end.append(large if auto_pad == "SAME_UPPER" else small)
    return begin + end
