"""``tvmlite.nd``: NDArray construction (TVM's ``tvm.nd``)."""
from .runtime.ndarray import NDArray, array, empty, from_dlpack, cpu, device, numpy_dtype

__all__ = ["NDArray", "array", "empty", "from_dlpack", "cpu", "device", "numpy_dtype"]
