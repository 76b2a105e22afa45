"""Elementwise op builders: ``relay.add(a, b)``, ``relay.exp(x)``, ... (csrc/relay/op/tensor/elemwise.cc)."""
from ..._ffi.registry import register_object
from ...ir.attrs import Attrs
from ...runtime.ndarray import DataType
from . import _make

_BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "power", "maximum", "minimum", "mod",
           "floor_mod", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "logical_and",
           "logical_or", "logical_xor", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
_UNARY = ["negative", "abs", "sign", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "erf", "sin",
          "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "floor", "ceil", "round",
          "bitwise_not", "copy", "logical_not", "isnan", "isinf", "isfinite"]

__all__ = _BINARY + _UNARY + ["cast", "cast_like", "reinterpret"]


@register_object("relay.attrs.CastAttrs")
class CastAttrs(Attrs):
    """Attributes of cast / reinterpret: dtype, saturate, round_mode."""

    __slots__ = ()


@register_object("relay.attrs.CastLikeAttrs")
class CastLikeAttrs(Attrs):
    """Attributes of cast_like: saturate, round_mode."""

    __slots__ = ()


def cast(data, dtype, saturate=True, round_mode="up"):
    """data converted to dtype (any tensor dtype, bfloat16/float8/int4 included). saturate: out-of-range values
    clamp to a float8 target's largest finite value; round_mode: rounding to float8_e8m0fnu ("up", "down",
    "nearest")."""
    return _make.cast(data, DataType(str(dtype)), bool(saturate), round_mode)


def cast_like(data, like, saturate=True, round_mode="up"):
    """data converted to the dtype of like (as cast)."""
    return _make.cast_like(data, like, bool(saturate), round_mode)


def reinterpret(data, dtype):
    """data's bits seen as dtype, a type of the same width (ONNX BitCast)."""
    return _make.reinterpret(data, DataType(str(dtype)), True, "up")


def _binary(name):
    maker = getattr(_make, name)

    def builder(lhs, rhs):
        return maker(lhs, rhs)

    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = f"Elementwise {name} of lhs and rhs with numpy broadcasting (relay op '{name}')."
    return builder


def _unary(name):
    maker = getattr(_make, name)

    def builder(data):
        return maker(data)

    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = f"Elementwise {name} (relay op '{name}')."
    return builder


for _name in _BINARY:
    globals()[_name] = _binary(_name)
for _name in _UNARY:
    globals()[_name] = _unary(_name)
del _name
