"""IR dtype strings <-> numpy dtypes, including the ones only ml_dtypes provides (bfloat16, float8 variants, int4).

The IR names of the ml_dtypes types are ml_dtypes' own (runtime.ndarray.ML_DTYPE_NAMES), so a numpy dtype's
``.name`` is its IR name for every supported type; strings are numpy object arrays ("string").
"""
import numpy as np

from ...runtime.ndarray import ML_DTYPE_NAMES, numpy_dtype

__all__ = ["to_numpy_dtype", "from_numpy_dtype", "is_ml_dtype", "is_float_dtype", "ML_DTYPE_NAMES"]


def to_numpy_dtype(dtype):
    """The numpy dtype of an IR dtype (a DataType or its string)."""
    name = str(dtype)
    if name == "string":
        return np.dtype(object)
    return numpy_dtype(name)


def from_numpy_dtype(dtype):
    """The IR dtype string of a numpy dtype."""
    dtype = np.dtype(dtype)
    if dtype == np.dtype(object):
        return "string"
    return dtype.name


def is_ml_dtype(dtype):
    """Whether an IR dtype's numpy dtype comes from ml_dtypes."""
    return str(dtype) in ML_DTYPE_NAMES


def is_float_dtype(dtype):
    """Whether an IR dtype is a floating-point format (IEEE, bfloat16 or a float8/float6/float4 one)."""
    name = str(dtype)
    return name.startswith("float") or name == "bfloat16"
