"""numpy references of the elementwise ops (tensor.py). Integer division and modulo follow ONNX/C semantics
where numpy differs: "divide" truncates integers toward zero, "mod" takes the dividend's sign."""
import numpy as np

from ..backend.dtypes import is_ml_dtype, to_numpy_dtype
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
    """a ** b in a's dtype (ONNX Pow: the exponent may have another numeric type). Integer powers stay exact
    in integers; a negative integer exponent or a float exponent of an integer base goes through float64."""
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer) and not np.any(b < 0):
        return np.power(a, b.astype(a.dtype, copy=False)).astype(a.dtype, copy=False)
    if not np.issubdtype(a.dtype, np.floating) or not np.issubdtype(b.dtype, np.floating):
        with np.errstate(all="ignore"):
            return np.power(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)
    return np.power(a, b.astype(a.dtype, copy=False)).astype(a.dtype, copy=False)


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


def _float_view(x):
    """ml_dtypes floats as float32 (exact, inf and NaN kept) for numpy's predicates."""
    return x.astype(np.float32) if is_ml_dtype(x.dtype.name) else x


# -- cast -------------------------------------------------------------------------------------------------------
_SATURATING_FLOAT8 = {"float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"}


def _to_float8_e8m0(x, saturate, round_mode):
    """float8_e8m0fnu (2**(E - 127), E in [0, 254], 255 NaN; no sign, no zero) from the exponent bits of x as
    float32: "down" keeps the exponent, "up" adds one when the mantissa is not zero, "nearest" adds one from half
    the mantissa on (ties up; below the normal range only above half). saturate keeps 254 from rounding to NaN;
    inf and NaN become NaN."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    mantissa = bits & 0x7FFFFF
    special = exponent == 0xFF
    if round_mode == "up":
        up = mantissa != 0
    elif round_mode == "nearest":
        up = ((mantissa & 0x400000) != 0) & (((mantissa & 0x3FFFFF) != 0) | (exponent > 0))
    elif round_mode == "down":
        up = np.zeros(exponent.shape, bool)
    else:
        raise ValueError(f"round_mode must be up, down or nearest, got {round_mode!r}")
    up &= ~special
    if saturate:
        up &= exponent != 0xFE
    out = np.where(special, 0xFF, np.minimum(exponent + up, 0xFF)).astype(np.uint8)
    return out.view(to_numpy_dtype("float8_e8m0fnu"))


def _cast_to(x, dtype, saturate, round_mode):
    name = str(dtype)
    want = to_numpy_dtype(name)
    if name == "float8_e8m0fnu":
        src = x.astype(np.float32) if x.dtype != np.float32 else x
        return _to_float8_e8m0(src, saturate, round_mode)
    with np.errstate(all="ignore"):
        if name in _SATURATING_FLOAT8 and saturate:
            import ml_dtypes

            info = ml_dtypes.finfo(want)
            src = x if np.issubdtype(x.dtype, np.floating) or is_ml_dtype(x.dtype.name) else x.astype(np.float64)
            if is_ml_dtype(src.dtype.name):
                src = src.astype(np.float32)
            return np.clip(src, float(info.min), float(info.max)).astype(want)
        return np.asarray(x).astype(want)


register_reference("cast", lambda attrs, x: _cast_to(x, attrs.dtype, attrs.saturate, attrs.round_mode))
register_reference("cast_like",
                   lambda attrs, x, like: _cast_to(x, like.dtype.name, attrs.saturate, attrs.round_mode))


@register_reference("reinterpret")
def _reinterpret(attrs, x):
    want = to_numpy_dtype(attrs.dtype)
    if want.itemsize != x.dtype.itemsize:
        raise TypeError(f"reinterpret: {x.dtype} and {want} differ in width")
    return np.ascontiguousarray(x).view(want).reshape(x.shape)


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
register_reference("isnan", lambda attrs, x: np.isnan(_float_view(x)))
register_reference("isinf", lambda attrs, x: np.isinf(_float_view(x)))
register_reference("isfinite", lambda attrs, x: np.isfinite(_float_view(x)))
del _name, _f
