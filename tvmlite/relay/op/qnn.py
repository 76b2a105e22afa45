"""Quantization op builders: ``relay.qnn.quantize``, ``dequantize``, ``dynamic_quantize``, ``qlinear_matmul``,
``qlinear_conv`` (csrc/relay/op/qnn/qnn.cc). Omitted zero points / bias are None (an empty tuple in the IR)."""
from ..._ffi.registry import register_object
from ...runtime import DataType
from ...ir.attrs import Attrs
from ..expr import Tuple
from . import _qnn_make

__all__ = ["quantize", "dequantize", "dynamic_quantize", "qlinear_matmul", "qlinear_conv"]

for _key in ["QuantizeAttrs", "DequantizeAttrs", "QLinearConvAttrs"]:
    register_object("relay.attrs." + _key)(type(_key, (Attrs,), {"__slots__": ()}))


def _make(name):
    return getattr(_qnn_make, name)


def _opt(x):
    return Tuple([]) if x is None else x


def quantize(data, scale, zero_point=None, axis=1, block_size=0, out_dtype="uint8", saturate=True):
    """saturate(round_half_even(data / scale) + zero_point) as out_dtype (the zero point's dtype when given)."""
    return _make("quantize")(data, scale, _opt(zero_point), int(axis), int(block_size), DataType(str(out_dtype)),
                             bool(saturate))


def dequantize(data, scale, zero_point=None, axis=1, block_size=0, out_dtype="float32"):
    """(data - zero_point) * scale as out_dtype."""
    return _make("dequantize")(data, scale, _opt(zero_point), int(axis), int(block_size),
                               DataType(str(out_dtype)))


def dynamic_quantize(data):
    """(uint8 data, float32 scale, uint8 zero point) with the scale from data's range (ONNX DynamicQuantizeLinear)."""
    return _make("dynamic_quantize")(data)


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
    return _make("qlinear_matmul")(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)


def qlinear_conv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point=None, bias=None,
                 strides=None, padding=None, dilation=None, groups=1):
    """Quantized N-d convolution (NC<spatial> data, OI<spatial> weight); padding is begin..., end...."""
    nsp = None
    for v in (strides, dilation):
        if v is not None:
            nsp = len(v)
    if nsp is None:
        nsp = len(padding) // 2 if padding else None
    if nsp is None:
        raise ValueError("qlinear_conv: give strides, dilation or padding (the spatial rank)")
    return _make("qlinear_conv")(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, _opt(y_zero_point),
                                 _opt(bias), list(strides or [1] * nsp), list(padding or [0] * 2 * nsp),
                                 list(dilation or [1] * nsp), int(groups))
