"""NDArray, devices and data types."""
from .._ffi import core
from .._ffi.registry import register_object
from .object import Object

__all__ = ["NDArray", "DataType", "Device", "array", "empty", "from_dlpack", "cpu", "device"]

DataType = core.DataType
Device = core.Device


@register_object("runtime.NDArray")
class NDArray(core.NDArrayBase, Object):
    """An n-dimensional array (64-byte aligned when tvmlite allocates it).

    ``tvmlite.nd.array(np_array)`` copies from numpy; ``np.from_dlpack(x)`` and ``tvmlite.nd.from_dlpack(t)`` share
    memory without copying.
    """

    __slots__ = ()

    def numpy(self):
        """A numpy copy of the array (use ``np.from_dlpack(x)`` for a zero-copy view)."""
        import numpy as np

        return np.array(np.from_dlpack(self), copy=True)

    def __repr__(self):
        if self.handle is None:
            return "<NDArray (null)>"
        return f"<tvmlite.NDArray shape={self.shape} dtype={self.dtype} device={self.device}>"

    def copyfrom(self, source):
        """Copy a numpy array (or anything numpy accepts) of the same shape into this array."""
        import numpy as np

        np.copyto(np.from_dlpack(self), np.asarray(source, dtype=self.dtype), casting="no")
        return self


def cpu(dev_id=0):
    """The CPU device."""
    return Device(core.DEVICE_CPU, dev_id)


def device(dev_type, dev_id=0):
    """A device by name ("cpu", "llvm") or DLPack device type number."""
    if isinstance(dev_type, str):
        if dev_type not in ("cpu", "llvm"):
            raise ValueError(f"tvmlite runs on the CPU; unknown device '{dev_type}'")
        dev_type = core.DEVICE_CPU
    return Device(dev_type, dev_id)


def empty(shape, dtype="float32", dev=None):
    """An uninitialised array."""
    return core.ndarray_empty(shape, dtype, dev)


def array(arr, dev=None, dtype=None):
    """Copy a numpy array (or anything ``numpy.asarray`` accepts) into a new NDArray.

    Example
    -------
    >>> x = tvmlite.nd.array(np.ones((2, 3), "float32"))
    >>> x.shape
    (2, 3)
    """
    import numpy as np

    src = np.asarray(arr, dtype=dtype)
    if src.dtype.kind not in "biuf" or not src.dtype.isnative:
        raise TypeError(f"tvmlite.nd.array: unsupported numpy dtype {src.dtype} (supported: bool, int, uint and "
                        f"float types in native byte order)")
    if src.dtype == np.float64 and dtype is None and not isinstance(arr, np.ndarray):
        src = src.astype("float32")  # Python floats default to float32, as in TVM
    out = empty(src.shape, str(src.dtype), dev)
    np.copyto(np.from_dlpack(out), src)
    return out


def from_dlpack(tensor):
    """Wrap a DLPack producer (numpy, PyTorch, ...) as an NDArray sharing its memory."""
    return core.from_dlpack(tensor)
