"""The kernels' thread pool and float mode, as the README names them:

    tvmlite.runtime.set_num_threads(2)       # threads every kernel uses (0: TVMLITE_NUM_THREADS or every core)
    tvmlite.runtime.num_threads()            # -> 2
    tvmlite.runtime.set_flush_denormals(True)  # subnormal floats flushed to zero in every kernel

Thin wrappers over the ``runtime.*`` globals of csrc/runtime (thread_pool.cc, float_mode.cc).
"""
from . import _ffi_api

__all__ = ["set_num_threads", "num_threads", "set_flush_denormals", "flush_denormals"]


def set_num_threads(n):
    """Use n threads in every kernel from now on (0: the default, TVMLITE_NUM_THREADS or every core)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"set_num_threads: n must be an int, got {type(n).__name__}")
    _ffi_api.set_num_threads(n)


def num_threads():
    """The number of threads the kernels use."""
    return int(_ffi_api.num_threads())


def set_flush_denormals(on):
    """Flush subnormal floats to zero in every kernel (onnxruntime's set_denormal_as_zero); off by default."""
    if not isinstance(on, bool):
        raise TypeError(f"set_flush_denormals: on must be a bool, got {type(on).__name__}")
    _ffi_api.set_flush_denormals(on)


def flush_denormals():
    """Whether the kernels flush subnormal floats to zero."""
    return bool(_ffi_api.flush_denormals())
