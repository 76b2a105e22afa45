"""Elementwise op builders: ``relay.add(a, b)``, ``relay.exp(x)``, ... (csrc/relay/op/tensor/elemwise.cc)."""
from . import _make

_BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "power", "maximum", "minimum", "mod",
           "floor_mod", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "logical_and",
           "logical_or", "logical_xor", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
_UNARY = ["negative", "abs", "sign", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "erf", "sin",
          "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "floor", "ceil", "round",
          "bitwise_not", "copy", "logical_not", "isnan"]

__all__ = _BINARY + _UNARY


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
