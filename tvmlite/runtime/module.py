"""Export and load built models: one self-contained file (``lib.export_library(path)``, ``load_module(path)``).

Layout (little-endian), made to be written and read at disk speed (no base64, no pickle):

    magic    16 bytes  b"TVMLITE-GRAPHLIB"
    version  u32       2
    graph    u64 n, then n bytes of UTF-8 graph JSON
    params   u32 count, then per param: u32 n + name (UTF-8), u32 n + dtype name, u32 ndim + ndim x i64 dims,
             u64 nbytes, zero bytes up to a multiple of 64 of the file offset, the raw row-major bytes
    end      8 bytes   b"TVMLEND\\0"

save_module writes it here; it is read in C++ (csrc/backend/module_file.cc), by load_module and by the C API's
TVMLiteModelLoad alike: one read into a 64-byte aligned buffer, each param an NDArray viewing its bytes there
(aligned, as the kernels' vector loads like), so a ResNet-50 with its Winograd filters (159 MB) loads in a fraction
of its build time. Version 1 files (no padding) still load, by copy. save_module writes a temporary file and renames
it over path, so a reader never sees half a file. Anything else (wrong magic or version, truncation, sizes that
disagree with the dims, dtypes no NDArray holds, JSON that does not parse or is not a graph, params the graph does not
name or with another dtype or shape than its entry, nodes naming a function that is not a kernel factory) is a
ValueError naming the file. The graph is checked by the executor's own check (graph_executor.check), the one create
runs.
"""
from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .executor_factory import ExecutorFactoryModule

__all__ = ["load_module", "save_module"]

MAGIC = b"TVMLITE-GRAPHLIB"
VERSION = 2
END = b"TVMLEND\0"
ALIGN = 64


def _pad(pos):
    return -pos % ALIGN


def save_module(path, graph_json, params):
    """Write graph_json and params (name -> NDArray) to path."""
    path = os.fspath(path)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        _write(tmp, graph_json, params)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _write(path, graph_json, params):
    import numpy as np

    from .ndarray import numpy_dtype

    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<I", VERSION))
        g = graph_json.encode("utf-8")
        f.write(struct.pack("<Q", len(g)))
        f.write(g)
        f.write(struct.pack("<I", len(params)))
        for name, value in params.items():
            arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if hasattr(value, "dtype"):
                arr = arr.astype(numpy_dtype(str(value.dtype)), copy=False)
            if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
                arr = arr.copy(order="C")
            for text in (name, str(value.dtype)):
                b = text.encode("utf-8")
                f.write(struct.pack("<I", len(b)))
                f.write(b)
            f.write(struct.pack("<I", arr.ndim))
            f.write(struct.pack(f"<{arr.ndim}q", *arr.shape))
            f.write(struct.pack("<Q", arr.nbytes))
            f.write(b"\0" * _pad(f.tell()))
            f.write(memoryview(arr.reshape(-1).view(np.uint8)))
        f.write(END)


def _value_error(text):
    """tvmlite's ValueError (a TVMLiteError, caught by ``except ValueError``), as the C++ checks raise."""
    from .._ffi.error import get_error_class

    return get_error_class("ValueError")(text)


def load_module(path: str | os.PathLike[str]) -> ExecutorFactoryModule:
    """Read a file export_library wrote: an ExecutorFactoryModule (``lib["default"](tvmlite.cpu(0))``)."""
    from .._ffi import core
    from .executor_factory import ExecutorFactoryModule

    path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"load_module: path must be a str or os.PathLike, got {type(path).__name__}")
    graph_json, params = core.get_global_func("runtime.ReadModuleFile")(path, "load_module")
    try:
        return ExecutorFactoryModule(str(graph_json), {str(k): v for k, v in params.items()})
    except ValueError as err:
        raise _value_error(f"load_module: {path} is not a valid tvmlite module: {err}") from None
