"""IR dtype strings <-> numpy dtypes, including the ones only ml_dtypes provides (bfloat16, float8 variants)."""
import numpy as np

__all__ = ["to_numpy_dtype", "from_numpy_dtype"]

_ML_DTYPES = {"bfloat16": "bfloat16", "float8_e4m3fn": "float8_e4m3fn", "float8_e4m3fnuz": "float8_e4m3fnuz",
              "float8_e5m2": "float8_e5m2", "float8_e5m2fnuz": "float8_e5m2fnuz", "float8_e8m0fnu": "float8_e8m0fnu",
              "int4": "int4", "uint4": "uint4", "int2": "int2", "uint2": "uint2", "float4_e2m1fn": "float4_e2m1fn"}


def to_numpy_dtype(dtype):
    """The numpy dtype of an IR dtype (a DataType or its string)."""
    name = str(dtype)
    if name in _ML_DTYPES:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, _ML_DTYPES[name]))
    if name == "string":
        return np.dtype(object)
    return np.dtype(name)


def from_numpy_dtype(dtype):
    """The IR dtype string of a numpy dtype."""
    dtype = np.dtype(dtype)
    if dtype == np.dtype(object):
        return "string"
    return dtype.name
