"""Export and load built models: one self-contained file (``lib.export_library(path)``, ``load_module(path)``).

Layout (little-endian), made to be written and read at disk speed (no base64, no pickle):

    magic    16 bytes  b"TVMLITE-GRAPHLIB"
    version  u32       2
    graph    u64 n, then n bytes of UTF-8 graph JSON
    params   u32 count, then per param: u32 n + name (UTF-8), u32 n + dtype name, u32 ndim + ndim x i64 dims,
             u64 nbytes, zero bytes up to a multiple of 64 of the file offset, the raw row-major bytes
    end      8 bytes   b"TVMLEND\\0"

load_module reads the whole file with one readinto into a 64-byte aligned buffer, and each param is an NDArray
viewing its bytes there (aligned, as the kernels' vector loads like): no copy beyond the read, so a ResNet-50 with
its Winograd filters (159 MB) loads in a fraction of its build time. Version 1 files (no padding) still load, by
copy. save_module writes a temporary file and renames it over path, so a reader never sees half a file.
Anything else (wrong magic or version, truncation, sizes that disagree with the dims, dtypes no NDArray holds, JSON
that does not parse or is not a graph, params the graph does not name or with another dtype or shape than its entry,
nodes naming a function that is not a kernel factory) is a ValueError naming the file. The graph is checked by the
executor's own check (graph_executor.check), the one create runs.
"""
from __future__ import annotations

import math
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


def _param_dtype(name):
    """The numpy dtype of a param dtype name an NDArray holds as written (None for any other name): numpy's plain
    bool/int/uint/float in native byte order up to 64 bits (numpy's own name for it) or an ml_dtypes one."""
    from .ndarray import ML_DTYPE_NAMES, numpy_dtype

    try:
        dtype = numpy_dtype(name)
    except (TypeError, ValueError, ImportError):  # ImportError: an ml_dtypes name without ml_dtypes
        return None
    if name in ML_DTYPE_NAMES:
        return dtype
    ok = dtype.kind in "biuf" and dtype.isnative and dtype.itemsize <= 8 and dtype.name == name
    return dtype if ok else None  # float128, ">f4", "V4", "U1", "object", "f4" (numpy's alias) are refused


def _value_error(text):
    """tvmlite's ValueError (a TVMLiteError, caught by ``except ValueError``), as the C++ checks raise."""
    from .._ffi.error import get_error_class

    return get_error_class("ValueError")(text)


class _Reader:
    def __init__(self, data, path):
        self.data, self.pos, self.path = data, 0, path

    def fail(self, what):
        raise _value_error(f"load_module: {self.path} is not a valid tvmlite module: {what}")

    def take(self, n, what):
        if n < 0 or self.pos + n > len(self.data):
            self.fail(f"truncated ({what})")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt, what):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))

    def text(self, what):
        (n,) = self.unpack("<I", what)
        try:
            return bytes(self.take(n, what)).decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{what} is not UTF-8")


def _read_aligned(path):
    """The file's bytes in a numpy uint8 array whose data starts on an ALIGN boundary (one read, no other copy)."""
    import numpy as np

    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        raw = np.empty(size + ALIGN, np.uint8)
        start = -raw.ctypes.data % ALIGN
        buf = raw[start:start + size]
        got = f.readinto(memoryview(buf))
    return buf[:got]


def load_module(path: str | os.PathLike[str]) -> ExecutorFactoryModule:
    """Read a file export_library wrote: an ExecutorFactoryModule (``lib["default"](tvmlite.cpu(0))``)."""
    import numpy as np

    from .executor_factory import ExecutorFactoryModule
    from .ndarray import array, from_dlpack

    path = os.fspath(path)
    try:
        buf = _read_aligned(path)
    except OSError as err:
        raise _value_error(f"load_module: cannot read {path}: {err.strerror or err}") from None
    data = memoryview(buf)
    r = _Reader(data, path)
    if bytes(data[:len(MAGIC)]) != MAGIC:
        r.fail("bad magic (not written by export_library)")
    r.pos = len(MAGIC)
    (version,) = r.unpack("<I", "version")
    if version not in (1, VERSION):
        r.fail(f"version {version}, this tvmlite reads versions 1 and {VERSION}")
    (n,) = r.unpack("<Q", "graph size")
    try:
        graph_json = bytes(r.take(n, "graph")).decode("utf-8")
    except UnicodeDecodeError:
        r.fail("the graph is not UTF-8")
    (count,) = r.unpack("<I", "param count")
    params = {}
    for _ in range(count):
        name = r.text("param name")
        if name in params:
            r.fail(f"param {name!r} appears twice")
        dtype_name = r.text("param dtype")
        dtype = _param_dtype(dtype_name)
        if dtype is None:
            r.fail(f"param {name!r} has an unsupported dtype {dtype_name!r}")
        (ndim,) = r.unpack("<I", "param rank")
        if ndim > 64:
            r.fail(f"param {name!r} has rank {ndim}")
        shape = r.unpack(f"<{ndim}q", "param shape")
        if any(d < 0 for d in shape):
            r.fail(f"param {name!r} has a negative dim")
        (nbytes,) = r.unpack("<Q", "param size")
        if nbytes != math.prod(shape) * dtype.itemsize:  # Python ints: huge dims cannot wrap to a small product
            r.fail(f"param {name!r}: {nbytes} bytes do not hold {shape} of {dtype_name}")
        if version >= 2:
            pad = r.take(_pad(r.pos), f"param {name!r} padding")
            if any(pad):
                r.fail(f"param {name!r}: nonzero padding")
            start = r.pos
            r.take(nbytes, f"param {name!r}")
            # A view of the read buffer (it stays alive with the param): aligned, no copy. from_dlpack keeps ml_dtypes
            # and bool as they are; a zero-size param gets its own empty array.
            view = buf[start:start + nbytes].view(dtype).reshape(shape) if nbytes else np.empty(shape, dtype)
            params[name] = from_dlpack(view) if view.dtype.kind in "biuf" and nbytes else array(view)
        else:
            raw = r.take(nbytes, f"param {name!r}")
            params[name] = array(np.frombuffer(raw, dtype=dtype).reshape(shape))
    if bytes(r.take(len(END), "end marker")) != END:
        r.fail("bad end marker")
    if r.pos != len(data):
        r.fail("trailing bytes")
    try:
        return ExecutorFactoryModule(graph_json, params)
    except ValueError as err:
        r.fail(str(err))
