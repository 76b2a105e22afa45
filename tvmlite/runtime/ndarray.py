"""NDArray, devices and data types.

Data types numpy knows only through ml_dtypes (bfloat16, the float8/float6/float4 formats, int4/uint4/int2/uint2)
have DataType names equal to ml_dtypes' (``DataType("float8_e4m3fn")``). An NDArray of one holds the raw bytes of
the ml_dtypes array (one byte per element for the sub-byte types, as ml_dtypes stores them): ``nd.array`` copies
them in and ``numpy()`` gives back the ml_dtypes array, both through a same-size unsigned-integer view of the memory.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .._ffi import core
from .._ffi.registry import register_object
from . import _ffi_api
from .object import Object

if TYPE_CHECKING:
    import numpy as np

__all__ = ["NDArray", "DataType", "Device", "array", "empty", "from_dlpack", "cpu", "device", "ML_DTYPE_NAMES",
           "numpy_dtype"]

DataType = core.DataType
Device = core.Device

#: DataType names whose numpy dtype comes from ml_dtypes.
ML_DTYPE_NAMES = frozenset({
    "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "int4",
    "uint4", "int2", "uint2"})


def numpy_dtype(dtype):
    """The numpy dtype of a DataType or its name (ml_dtypes' for the names in ML_DTYPE_NAMES)."""
    import numpy as np

    if not isinstance(dtype, (str, DataType)):
        return np.dtype(dtype)
    name = str(dtype)
    if name in ML_DTYPE_NAMES:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _raw_view(array, itemsize):
    """array's memory as unsigned integers of itemsize bytes (same shape), shared."""
    return _ffi_api.NDArrayCreateView(array, list(array.shape), f"uint{8 * itemsize}")



@register_object("runtime.NDArray")
class NDArray(core.NDArrayBase, Object):
    """An n-dimensional array (64-byte aligned when tvmlite allocates it).

    ``tvmlite.nd.array(np_array)`` copies from numpy; ``np.from_dlpack(x)`` and ``tvmlite.nd.from_dlpack(t)`` share
    memory without copying.
    """

    __slots__ = ()

    def numpy(self) -> np.ndarray:
        """A numpy copy of the array (use ``np.from_dlpack(x)`` for a zero-copy view); an ml_dtypes array for the
        data types in ML_DTYPE_NAMES."""
        import numpy as np

        if self.dtype in ML_DTYPE_NAMES:
            want = numpy_dtype(self.dtype)
            return np.array(np.from_dlpack(_raw_view(self, want.itemsize)), copy=True).view(want)
        return np.array(np.from_dlpack(self), copy=True)

    def __repr__(self):
        if self.handle is None:
            return "<NDArray (null)>"
        return f"<tvmlite.NDArray shape={self.shape} dtype={self.dtype} device={self.device}>"

    def copyfrom(self, source):
        """Copy a numpy array (or anything numpy accepts) of the same shape into this array."""
        import numpy as np

        if self.dtype in ML_DTYPE_NAMES:
            want = numpy_dtype(self.dtype)
            src = np.asarray(source, dtype=want)
            if src.shape != self.shape:
                raise ValueError(f"copyfrom: shape {src.shape} does not match the array's {self.shape}")
            np.copyto(np.from_dlpack(_raw_view(self, want.itemsize)), src.view(f"u{want.itemsize}"))
            return self
        np.copyto(np.from_dlpack(self), np.asarray(source, dtype=self.dtype), casting="no")
        return self


def cpu(dev_id: int = 0) -> Device:
    """The CPU device."""
    return Device(core.DEVICE_CPU, dev_id)


def device(dev_type: str | int, dev_id: int = 0) -> Device:
    """A device by name ("cpu", "llvm") or DLPack device type number."""
    if isinstance(dev_type, str):
        if dev_type not in ("cpu", "llvm"):
            raise ValueError(f"tvmlite runs on the CPU; unknown device '{dev_type}'")
        dev_type = core.DEVICE_CPU
    return Device(dev_type, dev_id)


def empty(shape: Sequence[int], dtype: str | DataType = "float32", dev: Device | None = None) -> NDArray:
    """An uninitialised array."""
    return core.ndarray_empty(shape, dtype, dev)


def array(arr: Any, dev: Device | None = None, dtype: str | DataType | None = None) -> NDArray:
    """Copy a numpy array (or anything ``numpy.asarray`` accepts) into a new NDArray.

    Example
    -------
    >>> x = tvmlite.nd.array(np.ones((2, 3), "float32"))
    >>> x.shape
    (2, 3)
    """
    import numpy as np

    src = np.asarray(arr, dtype=None if dtype is None else numpy_dtype(dtype))
    if src.dtype.name in ML_DTYPE_NAMES and src.dtype == numpy_dtype(src.dtype.name):
        out = empty(src.shape, src.dtype.name, dev)
        np.copyto(np.from_dlpack(_raw_view(out, src.dtype.itemsize)), src.view(f"u{src.dtype.itemsize}"))
        return out
    if src.dtype.kind not in "biuf" or not src.dtype.isnative:
        raise TypeError(f"tvmlite.nd.array: unsupported numpy dtype {src.dtype} (supported: bool, int, uint and "
                        f"float types in native byte order, and the ml_dtypes types "
                        f"{', '.join(sorted(ML_DTYPE_NAMES))})")
    if src.dtype == np.float64 and dtype is None and not isinstance(arr, np.ndarray):
        src = src.astype("float32")  # Python floats default to float32, as in TVM
    out = empty(src.shape, str(src.dtype), dev)
    np.copyto(np.from_dlpack(out), src)
    return out


def from_dlpack(tensor: Any) -> NDArray:
    """Wrap a DLPack producer (numpy, PyTorch, ...) as an NDArray sharing its memory."""
    return core.from_dlpack(tensor)
