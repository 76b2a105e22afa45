"""numpy references of the elementwise ops (tensor.py). Integer division and modulo follow ONNX/C semantics
where numpy differs: "divide" truncates integers toward zero, "mod" takes the dividend's sign."""
import numpy as np

from .op import register_reference


def _div(attrs, a, b):
    if np.issubdtype(a.dtype, np.integer):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.trunc(np.true_divide(a, b))
        return q.astype(a.dtype)
    return np.divide(a, b).astype(a.dtype, copy=False)


def _mod(attrs, a, b):
    return np.fmod(a, b).astype(a.dtype, copy=False)


def _power(attrs, a, b):
    return np.power(a, b).astype(a.dtype, copy=False)


def _same_dtype(f):
    return lambda attrs, *xs: np.asarray(f(*xs)).astype(xs[0].dtype, copy=False)


_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "floor_divide": np.floor_divide,
    "maximum": np.maximum, "minimum": np.minimum, "floor_mod": np.mod, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "left_shift": np.left_shift,
    "right_shift": np.right_shift, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}
_COMPARE = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
            "greater": np.greater, "greater_equal": np.greater_equal}
_UNARY = {
    "negative": np.negative, "abs": np.abs, "sign": np.sign, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": np.reciprocal, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "bitwise_not": np.invert, "copy": np.copy, "nn.relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
}


def _erf(x):
    from math import erf

    return np.vectorize(erf, otypes=[np.float64])(x)


for _name, _f in _BINARY.items():
    register_reference(_name, _same_dtype(_f))
for _name, _f in _COMPARE.items():
    register_reference(_name, lambda attrs, a, b, _f=_f: _f(a, b))
for _name, _f in _UNARY.items():
    register_reference(_name, _same_dtype(_f))
register_reference("erf", _same_dtype(_erf))
register_reference("divide", _div)
register_reference("mod", _mod)
register_reference("power", _power)
register_reference("logical_not", lambda attrs, x: np.logical_not(x))
register_reference("isnan", lambda attrs, x: np.isnan(x))
del _name, _f
