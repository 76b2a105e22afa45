#!/usr/bin/env python3
"""FFI call-overhead benchmark for tvmlite.

Measures nanoseconds per operation for a set of small FFI operations ("rows") across several implementations
("columns"), all in one process:

    python     a plain ``def nop(*args): pass`` called with the row's operands (the baseline of every row)
    cython     tvmlite's default (Cython) FFI path
    ctypes     tvmlite's pure-ctypes backend, ``tvmlite._ffi._ctypes.core``
    tvm_ffi    apache-tvm-ffi, if installed
    pybind11   a small pybind11 module (bench/peers/pybind11_peer.cpp), compiled on demand into bench/.build/

Method
    Every cell is timed by the same kind of loop: ``time.perf_counter_ns()`` around ``N`` executions of the row's
    statement, compiled from one source template per row (only the target object differs between columns). ``N``
    is calibrated per cell so that one loop takes about ``--target-ms``. The repeats are interleaved round-robin:
    in each repeat every cell runs its loop once (the column order rotates from repeat to repeat), so slow drifts
    and noise bursts hit every implementation alike. The figure reported is the median over repeats of
    elapsed_ns / N. The cyclic GC is disabled while timing. Loop overhead is *not* subtracted; it is the same for
    every column and is printed for reference.

    Every cell is checked for correctness once before timing (echo returns its argument, the field reads 1,
    ``arr[i]`` returns i, call_n calls back exactly n times); a cell whose setup or check fails prints ``n/a`` with
    a footnote giving the reason, and the rest of the table still runs.

Usage
    python bench/ffi_overhead.py              # full run (well under a minute on 2 cores, after the first build)
    python bench/ffi_overhead.py --quick      # smoke run for CI
    python bench/ffi_overhead.py --json out.json
    python bench/ffi_overhead.py --check      # exit 1 if the tvmlite bar is not met
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Tuple

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
BUILD_DIR = os.path.join(BENCH_DIR, ".build")
PEERS_DIR = os.path.join(BENCH_DIR, "peers")

# An installed tvmlite (pip install -e .) wins; an in-tree build is the fallback.
if REPO_ROOT not in sys.path:
    sys.path.append(REPO_ROOT)

import numpy as np  # noqa: E402  (numpy is a hard requirement of the benchmark: one row passes an ndarray)

perf_counter_ns = time.perf_counter_ns

# --------------------------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------------------------
# Each row has a statement template evaluated inside the timing loop. Names visible to the statement:
#   f  the row's target (a function, a class, an object, an array)
#   a  the row's operand (an object, an ndarray, an index)
# "{attr}" is replaced by the column's field name (tvm_ffi's test pair calls its fields a/b).
# A row with per_call_inner=True runs its statement once per loop with n passed in (call_n): the statement itself
# performs n operations, and the time is divided by n.

ROWS: List[Dict[str, Any]] = [
    {"key": "f()", "stmt": "f()", "base": "f()"},
    {"key": "f(1,2,3)", "stmt": "f(1, 2, 3)", "base": "f(1, 2, 3)"},
    {"key": 'f(1.0,"s")', "stmt": 'f(1.0, "s")', "base": 'f(1.0, "s")'},
    {"key": "f(obj)", "stmt": "f(a)", "base": "f(a)"},
    {"key": "f(ndarray)", "stmt": "f(a)", "base": "f(a)"},
    {"key": "echo(obj)", "stmt": "f(a)", "base": "f(a)"},
    {"key": "Pair(1,2)", "stmt": "f(1, 2)", "base": "f(1, 2)"},
    {"key": "obj.first", "stmt": "f.{attr}", "base": "f(a)"},
    {"key": "arr[i]", "stmt": "f[a]", "base": "f(arr, a)"},
    {"key": "call_n cb", "stmt": "f(a, n)", "base": "f(a, n)", "per_call_inner": True},
]
ROW_KEYS = [r["key"] for r in ROWS]

ROW_DESCRIPTIONS = {
    "f()": "call a no-op packed function with no arguments",
    "f(1,2,3)": "no-op with three ints",
    'f(1.0,"s")': "no-op with a float and a str",
    "f(obj)": "no-op with one FFI object (a Pair)",
    "f(ndarray)": "no-op with a float32 (4,4) numpy array",
    "echo(obj)": "echo a Pair back",
    "Pair(1,2)": "construct a Pair object (and drop it)",
    "obj.first": "read an int field of a Pair",
    "arr[i]": "index an Array of 16 ints",
    "call_n cb": "C++ calls a Python no-op n times; per callback",
}

IMPLS = ["python", "cython", "ctypes", "tvm_ffi", "pybind11"]
IMPL_TITLES = {
    "python": "py no-op",
    "cython": "tvmlite-cython",
    "ctypes": "tvmlite-ctypes",
    "tvm_ffi": "tvm_ffi",
    "pybind11": "pybind11",
}

ARRAY_LEN = 16
ARRAY_INDEX = 3


def nop(*args):
    pass


def py_call_n(cb, n):
    """Python's own counterpart of call_n: a Python loop calling the callback."""
    for _ in range(n):
        cb()


# --------------------------------------------------------------------------------------------------------------
# Loop harness
# --------------------------------------------------------------------------------------------------------------

_LOOP_TEMPLATE = """
def _loop(f, a, n, arr=None):
    rng = range(n)
    t0 = _now()
    for _ in rng:
        {stmt}
    return _now() - t0
"""

_ONCE_TEMPLATE = """
def _loop(f, a, n, arr=None):
    t0 = _now()
    {stmt}
    return _now() - t0
"""

_loop_cache: Dict[Tuple[str, bool], Callable] = {}


def make_loop(stmt: str, once: bool) -> Callable:
    """Compile the timing loop for one statement. Identical statements share one function object."""
    key = (stmt, once)
    fn = _loop_cache.get(key)
    if fn is None:
        ns: Dict[str, Any] = {"_now": perf_counter_ns}
        src = (_ONCE_TEMPLATE if once else _LOOP_TEMPLATE).format(stmt=stmt)
        exec(compile(src, "<ffi_overhead loop: %s>" % stmt, "exec"), ns)
        fn = ns["_loop"]
        _loop_cache[key] = fn
    return fn


class NotAvailable(Exception):
    """Raised by a cell's setup when the implementation has no equivalent or is broken."""


class Cell:
    def __init__(self, row: Dict[str, Any], impl: str):
        self.row = row
        self.impl = impl
        self.ok = False
        self.reason: Optional[str] = None
        self.loop: Optional[Callable] = None
        self.f: Any = None
        self.a: Any = None
        self.arr: Any = None
        self.n = 1
        self.samples: List[float] = []

    @property
    def once(self) -> bool:
        return bool(self.row.get("per_call_inner"))

    def run(self, n: int) -> float:
        """Run the loop once; return ns per operation."""
        return self.loop(self.f, self.a, n, self.arr) / n  # type: ignore[misc]

    def median(self) -> Optional[float]:
        return statistics.median(self.samples) if self.samples else None


# --------------------------------------------------------------------------------------------------------------
# Implementations: each provides setup(row_key) -> (stmt, f, a, arr, check)
#   check() raises if the cell computes something wrong.
# --------------------------------------------------------------------------------------------------------------


def _expect(cond: bool, what: str) -> None:
    if not cond:
        raise NotAvailable("sanity check failed: " + what)


def _short_exc(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    first = msg[0] if msg else ""
    if len(first) > 160:
        first = first[:157] + "..."
    return "%s: %s" % (type(e).__name__, first) if first else type(e).__name__


def _counter_cb():
    box = [0]

    def cb(*args):
        box[0] += 1

    return cb, box


def _check_call_n(call_n: Callable) -> None:
    cb, box = _counter_cb()
    call_n(cb, 7)
    _expect(box[0] == 7, "call_n(cb, 7) called back %d times" % box[0])


def _ndarray() -> np.ndarray:
    return np.zeros((4, 4), dtype=np.float32)


class PythonImpl:
    name = "python"

    def __init__(self):
        self.version = platform.python_version()

    def setup(self, key: str):
        ndarr = _ndarray()
        pyobj = object()
        if key == "f()":
            return "f()", nop, None, None, None
        if key in ("f(1,2,3)", 'f(1.0,"s")', "Pair(1,2)"):
            return None, nop, None, None, None  # stmt taken from row["base"]
        if key in ("f(obj)", "echo(obj)", "obj.first"):
            return None, nop, pyobj, None, None
        if key == "f(ndarray)":
            return None, nop, ndarr, None, None
        if key == "arr[i]":
            return None, nop, ARRAY_INDEX, list(range(ARRAY_LEN)), None
        if key == "call_n cb":
            return None, py_call_n, nop, None, lambda: _check_call_n(py_call_n)
        raise NotAvailable("no such row")


class TvmliteCythonImpl:
    name = "cython"

    def __init__(self):
        import tvmlite  # noqa: F401
        import tvmlite.testing  # noqa: F401  (loads libtvmlite_testing.so: the testing.* functions used below)

        where = getattr(tvmlite, "__file__", None) or list(getattr(tvmlite, "__path__", []))
        if not hasattr(tvmlite, "get_global_func"):
            raise NotAvailable("tvmlite (from %s) has no get_global_func: not built/installed yet?" % (where,))
        self.tvmlite = tvmlite
        self.version = "%s (%s)" % (getattr(tvmlite, "__version__", "?"), where)
        self._funcs: Dict[str, Any] = {}

    def func(self, name: str):
        f = self._funcs.get(name)
        if f is None:
            f = self.tvmlite.get_global_func(name)
            if f is None:
                raise NotAvailable("get_global_func(%r) returned None" % name)
            self._funcs[name] = f
        return f

    def pair_class(self):
        import importlib

        # Explicit submodule import (`import tvmlite.testing`), rather than relying on lazy attribute access.
        return importlib.import_module("tvmlite.testing").Pair

    def make_pair(self):
        return self.pair_class()(1, 2)

    def make_array(self):
        rt = self.tvmlite.runtime
        values = list(range(ARRAY_LEN))
        if hasattr(rt, "convert"):
            return rt.convert(values)
        return rt.Array(values)

    def describe(self) -> str:
        f = self.func("testing.nop")
        t = type(f)
        return "%s.%s" % (t.__module__, t.__qualname__)

    def setup(self, key: str):
        return _tvmlite_like_setup(self, key)


class TvmliteCtypesImpl(TvmliteCythonImpl):
    name = "ctypes"

    def __init__(self):
        import importlib

        self.core = importlib.import_module("tvmlite._ffi._ctypes.core")
        # Loads libtvmlite_testing.so into the libtvmlite.so this core shares with the Cython one: testing.* below.
        importlib.import_module("tvmlite.testing")
        self.version = "(%s)" % getattr(self.core, "__file__", "?")
        self._funcs = {}

    def func(self, name: str):
        f = self._funcs.get(name)
        if f is None:
            if not hasattr(self.core, "get_global_func"):
                raise NotAvailable("tvmlite._ffi._ctypes.core has no get_global_func")
            f = self.core.get_global_func(name)
            if f is None:
                raise NotAvailable("get_global_func(%r) returned None" % name)
            self._funcs[name] = f
        return f

    def pair_class(self):
        return self.func("testing.Pair")

    def make_array(self):
        return self.func("runtime.Array")(*range(ARRAY_LEN))


def _tvmlite_like_setup(impl: TvmliteCythonImpl, key: str):
    """Shared by the Cython and ctypes columns: same functions, same objects, different binding."""
    if key == "f()":
        return None, impl.func("testing.nop"), None, None, None
    if key in ("f(1,2,3)", 'f(1.0,"s")'):
        return None, impl.func("testing.nop"), None, None, None
    if key == "f(obj)":
        return None, impl.func("testing.nop"), impl.make_pair(), None, None
    if key == "f(ndarray)":
        return None, impl.func("testing.nop"), _ndarray(), None, None
    if key == "echo(obj)":
        echo = impl.func("testing.echo")
        p = impl.make_pair()

        def check():
            r = echo(p)
            _expect(r is p or (getattr(r, "first", None) == 1 and getattr(r, "second", None) == 2),
                    "echo(pair) returned %r" % (r,))

        return None, echo, p, None, check
    if key == "Pair(1,2)":
        cls = impl.pair_class()

        def check():
            p = cls(1, 2)
            _expect(p.first == 1 and p.second == 2, "Pair(1, 2) has first=%r second=%r" % (p.first, p.second))

        return None, cls, None, None, check
    if key == "obj.first":
        p = impl.make_pair()

        def check():
            _expect(p.first == 1, "pair.first == %r" % (p.first,))

        return None, p, None, None, check
    if key == "arr[i]":
        arr = impl.make_array()

        def check():
            _expect(arr[ARRAY_INDEX] == ARRAY_INDEX, "arr[%d] == %r" % (ARRAY_INDEX, arr[ARRAY_INDEX]))

        return None, arr, ARRAY_INDEX, None, check
    if key == "call_n cb":
        call_n = impl.func("testing.call_n")
        return None, call_n, nop, None, lambda: _check_call_n(call_n)
    raise NotAvailable("no such row")


_TVM_FFI_CALL_N_SRC = r"""
#include <tvm/ffi/function.h>
#include <cstdint>

// Calls f() n times from C++: the counterpart of tvmlite's testing.call_n, which tvm_ffi does not ship.
void call_n(tvm::ffi::Function f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) f();
}
"""


class TvmFfiImpl:
    name = "tvm_ffi"
    attr = "a"  # tvm_ffi.testing.TestIntPair has fields a, b

    def __init__(self):
        import tvm_ffi

        self.tvm_ffi = tvm_ffi
        self.version = getattr(tvm_ffi, "__version__", "?")
        self._call_n = None
        self._call_n_error: Optional[str] = None

    def func(self, name: str):
        f = self.tvm_ffi.get_global_func(name, allow_missing=True)
        if f is None:
            raise NotAvailable("tvm_ffi has no global function %r" % name)
        return f

    def pair_class(self):
        try:
            from tvm_ffi.testing import TestIntPair
        except Exception as e:  # pragma: no cover - depends on the installed version
            raise NotAvailable("tvm_ffi.testing.TestIntPair missing (%s)" % _short_exc(e))
        return TestIntPair

    def call_n(self):
        """tvm_ffi ships no call_n: compile a five-line one with tvm_ffi.cpp.load_inline (cached in bench/.build)."""
        if self._call_n is None and self._call_n_error is None:
            try:
                import tvm_ffi.cpp

                build_dir = os.path.join(BUILD_DIR, "tvm_ffi_call_n")
                os.makedirs(build_dir, exist_ok=True)
                mod = tvm_ffi.cpp.load_inline(
                    "tvmlite_bench_call_n",
                    cpp_sources=_TVM_FFI_CALL_N_SRC,
                    functions=["call_n"],
                    extra_cflags=["-O3"],
                    build_directory=build_dir,
                )
                self._call_n = mod.call_n
            except Exception as e:
                self._call_n_error = "call_n via tvm_ffi.cpp.load_inline failed (%s)" % _short_exc(e)
        if self._call_n is None:
            raise NotAvailable(self._call_n_error)
        return self._call_n

    def setup(self, key: str):
        if key in ("f()", "f(1,2,3)", 'f(1.0,"s")'):
            return None, self.func("testing.nop"), None, None, None
        if key == "f(obj)":
            return None, self.func("testing.nop"), self.pair_class()(1, 2), None, None
        if key == "f(ndarray)":
            # tvm_ffi accepts objects that speak DLPack (numpy does) as Tensor arguments.
            return None, self.func("testing.nop"), _ndarray(), None, None
        if key == "echo(obj)":
            echo = self.func("testing.echo")
            p = self.pair_class()(1, 2)

            def check():
                r = echo(p)
                _expect(r.a == 1 and r.b == 2, "echo(pair) returned %r" % (r,))

            return None, echo, p, None, check
        if key == "Pair(1,2)":
            cls = self.pair_class()

            def check():
                p = cls(1, 2)
                _expect(p.a == 1 and p.b == 2, "TestIntPair(1, 2) has a=%r b=%r" % (p.a, p.b))

            return None, cls, None, None, check
        if key == "obj.first":
            p = self.pair_class()(1, 2)

            def check():
                _expect(p.a == 1, "pair.a == %r" % (p.a,))

            return None, p, None, None, check
        if key == "arr[i]":
            arr = self.tvm_ffi.convert(list(range(ARRAY_LEN)))

            def check():
                _expect(arr[ARRAY_INDEX] == ARRAY_INDEX, "arr[%d] == %r" % (ARRAY_INDEX, arr[ARRAY_INDEX]))

            return None, arr, ARRAY_INDEX, None, check
        if key == "call_n cb":
            call_n = self.call_n()
            return None, call_n, nop, None, lambda: _check_call_n(call_n)
        raise NotAvailable("no such row")


def build_pybind11_peer(verbose: bool = False):
    """Compile bench/peers/pybind11_peer.cpp (cached by a hash of source + flags + toolchain) and import it."""
    import pybind11

    src = os.path.join(PEERS_DIR, "pybind11_peer.cpp")
    with open(src, "rb") as fh:
        source = fh.read()
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        raise NotAvailable("no C++ compiler (g++/c++) on PATH")
    ext = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    flags = [
        "-O3", "-DNDEBUG", "-shared", "-fPIC", "-std=c++17", "-fvisibility=hidden",
        "-I" + pybind11.get_include(),
        "-I" + sysconfig.get_paths()["include"],
    ]
    ident = hashlib.sha256()
    for part in (source, cxx.encode(), " ".join(flags).encode(), sys.version.encode(),
                 pybind11.__version__.encode()):
        ident.update(part)
        ident.update(b"\0")
    out_dir = os.path.join(BUILD_DIR, "pybind11-" + ident.hexdigest()[:16])
    out = os.path.join(out_dir, "pybind11_peer" + ext)
    if not os.path.exists(out):
        os.makedirs(out_dir, exist_ok=True)
        tmp = out + ".tmp%d" % os.getpid()
        cmd = [cxx] + flags + [src, "-o", tmp]
        print("[build] pybind11 peer: %s" % " ".join(cmd), flush=True)
        t0 = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-15:]
            sys.stderr.write("[build] pybind11 peer failed:\n" + "\n".join(tail) + "\n")
            raise NotAvailable("pybind11 peer build failed (exit %d): %s"
                               % (proc.returncode, tail[-1] if tail else "no output"))
        os.replace(tmp, out)
        print("[build] pybind11 peer built in %.1f s -> %s" % (time.time() - t0, os.path.relpath(out)), flush=True)
    spec = importlib.util.spec_from_file_location("pybind11_peer", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod, pybind11.__version__


class Pybind11Impl:
    name = "pybind11"

    def __init__(self):
        self.m, self.version = build_pybind11_peer()

    def setup(self, key: str):
        m = self.m
        if key in ("f()", "f(1,2,3)", 'f(1.0,"s")'):
            return None, m.nop, None, None, None
        if key == "f(obj)":
            return None, m.take_object, m.Pair(1, 2), None, None
        if key == "f(ndarray)":
            return None, m.take_array, _ndarray(), None, None
        if key == "echo(obj)":
            p = m.Pair(1, 2)

            def check():
                _expect(m.echo(p) is p, "echo(pair) did not return pair")

            return None, m.echo, p, None, check
        if key == "Pair(1,2)":
            def check():
                p = m.Pair(1, 2)
                _expect(p.first == 1 and p.second == 2, "Pair(1, 2) fields wrong")

            return None, m.Pair, None, None, check
        if key == "obj.first":
            return None, m.Pair(1, 2), None, None, None
        if key == "arr[i]":
            v = m.make_int_vector(ARRAY_LEN)

            def check():
                _expect(v[ARRAY_INDEX] == ARRAY_INDEX, "vec[%d] == %r" % (ARRAY_INDEX, v[ARRAY_INDEX]))

            return None, v, ARRAY_INDEX, None, check
        if key == "call_n cb":
            return None, m.call_n, nop, None, lambda: _check_call_n(m.call_n)
        raise NotAvailable("no such row")


IMPL_FACTORIES = {
    "python": PythonImpl,
    "cython": TvmliteCythonImpl,
    "ctypes": TvmliteCtypesImpl,
    "tvm_ffi": TvmFfiImpl,
    "pybind11": Pybind11Impl,
}

# --------------------------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------------------------


def setup_cells(impl_names: List[str], call_n_inner: int, verbose: bool):
    impls: Dict[str, Any] = {}
    impl_errors: Dict[str, str] = {}
    for name in impl_names:
        try:
            impls[name] = IMPL_FACTORIES[name]()
        except NotAvailable as e:
            impl_errors[name] = str(e)
        except (ImportError, OSError) as e:
            impl_errors[name] = ("not installed: " if isinstance(e, ImportError) else "") + _short_exc(e)
        except Exception as e:  # a broken package must not take the whole table down
            impl_errors[name] = "import/setup failed: " + _short_exc(e)
            if verbose:
                traceback.print_exc(limit=-8)

    grid: Dict[str, Dict[str, Cell]] = {}
    for row in ROWS:
        grid[row["key"]] = {}
        for name in impl_names:
            cell = Cell(row, name)
            grid[row["key"]][name] = cell
            if name in impl_errors:
                cell.reason = impl_errors[name]
                continue
            impl = impls[name]
            try:
                stmt, f, a, arr, check = impl.setup(row["key"])
                if stmt is None:
                    stmt = row["base"] if name == "python" else row["stmt"]
                stmt = stmt.replace("{attr}", getattr(impl, "attr", "first"))
                cell.loop = make_loop(stmt, cell.once)
                cell.f, cell.a, cell.arr = f, a, arr
                if cell.once:
                    cell.n = call_n_inner
                if check is not None:
                    check()
                cell.run(2 if not cell.once else 7)  # the statement itself must run cleanly
                cell.ok = True
            except NotAvailable as e:
                cell.reason = str(e)
            except Exception as e:
                cell.reason = _short_exc(e)
                if verbose:
                    traceback.print_exc(limit=-8)
    return impls, impl_errors, grid


def calibrate(cell: Cell, target_ns: float) -> None:
    """Pick the loop count so that one timed loop takes about target_ns."""
    if cell.once:
        # call_n: n callbacks happen inside one FFI call; scale n instead of the loop count.
        n = 64
        while True:
            t = cell.run(n) * n
            if t >= target_ns / 4 or n >= 1 << 22:
                break
            n *= 4
        cell.n = max(64, int(n * target_ns / max(t, 1.0)))
        return
    n = 16
    while True:
        t = cell.run(n) * n
        if t >= target_ns / 4 or n >= 1 << 24:
            break
        n *= 4
    cell.n = max(16, int(n * target_ns / max(t, 1.0)))


def run_benchmark(grid: Dict[str, Dict[str, Cell]], impl_names: List[str], repeats: int, target_ms: float,
                  progress: bool) -> float:
    cells = [grid[k][i] for k in ROW_KEYS for i in impl_names if grid[k][i].ok]
    target_ns = target_ms * 1e6
    for c in cells:
        c.run(c.n)  # warm up (first call, lazy imports, caches)
        calibrate(c, target_ns)
        c.run(c.n)
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    t_start = time.perf_counter()
    try:
        ncols = len(impl_names)
        for rep in range(repeats):
            # Round-robin: every cell once per repeat; rotate the column order so no column always runs first.
            shift = rep % ncols
            order = impl_names[shift:] + impl_names[:shift]
            for key in ROW_KEYS:
                row_cells = grid[key]
                for name in order:
                    c = row_cells[name]
                    if c.ok:
                        c.samples.append(c.run(c.n))
            if progress and (rep + 1) % max(1, repeats // 10) == 0:
                sys.stderr.write("\r[run] repeat %d/%d" % (rep + 1, repeats))
                sys.stderr.flush()
    finally:
        if gc_was_enabled:
            gc.enable()
    if progress:
        sys.stderr.write("\n")
    return time.perf_counter() - t_start


def empty_loop_ns(repeats: int = 15, n: int = 200_000) -> float:
    loop = make_loop("pass", False)
    return statistics.median(loop(None, None, n) / n for _ in range(repeats))


def fmt_ns(v: Optional[float]) -> str:
    if v is None:
        return "n/a"
    if v >= 1000:
        return "%.0f" % v
    if v >= 100:
        return "%.1f" % v
    return "%.2f" % v


def render(grid, impl_names: List[str], footnotes: Dict[str, int]) -> str:
    """Table: one line per row; for each column the median ns/op and the ratio to the python no-op."""

    def cell_text(c: Cell, base: Optional[float]) -> str:
        if not c.ok or not c.samples:
            reason = c.reason or "not measured"
            num = footnotes.setdefault(reason, len(footnotes) + 1)
            return "n/a [%d]" % num
        m = c.median()
        if c.impl == "python" or base is None:
            return fmt_ns(m)
        return "%s (%.2fx)" % (fmt_ns(m), m / base)

    header = ["row"] + [IMPL_TITLES[i] for i in impl_names]
    lines = []
    body = []
    for key in ROW_KEYS:
        base_cell = grid[key].get("python")
        base = base_cell.median() if base_cell is not None and base_cell.ok else None
        body.append([key] + [cell_text(grid[key][i], base) for i in impl_names])
    widths = [max(len(r[j]) for r in [header] + body) for j in range(len(header))]
    sep = "  "

    def line(cols):
        first = cols[0].ljust(widths[0])
        rest = [cols[j].rjust(widths[j]) for j in range(1, len(cols))]
        return sep.join([first] + rest)

    lines.append(line(header))
    lines.append(sep.join("-" * w for w in widths))
    for r in body:
        lines.append(line(r))
    return "\n".join(lines)


def verdict(grid) -> Dict[str, Any]:
    out: Dict[str, Any] = {"rows": {}, "all_rows_le_pybind11": None, "cython_vs_ctypes_f123": None}
    all_ok: Optional[bool] = True
    for key in ROW_KEYS:
        cy = grid[key].get("cython")
        pb = grid[key].get("pybind11")
        entry: Dict[str, Any] = {"cython_ns": None, "pybind11_ns": None, "pass": None}
        if cy is not None and cy.ok and cy.samples:
            entry["cython_ns"] = cy.median()
        if pb is not None and pb.ok and pb.samples:
            entry["pybind11_ns"] = pb.median()
        if entry["cython_ns"] is not None and entry["pybind11_ns"] is not None:
            entry["pass"] = entry["cython_ns"] <= entry["pybind11_ns"]
            if not entry["pass"]:
                all_ok = False
        else:
            all_ok = None if all_ok is not False else False
        out["rows"][key] = entry
    out["all_rows_le_pybind11"] = all_ok
    cy = grid["f(1,2,3)"].get("cython")
    ct = grid["f(1,2,3)"].get("ctypes")
    if cy is not None and ct is not None and cy.ok and ct.ok and cy.samples and ct.samples:
        speedup = ct.median() / cy.median()
        out["cython_vs_ctypes_f123"] = {"speedup": speedup, "pass": speedup >= 10.0}
    return out


def render_verdict(v: Dict[str, Any]) -> str:
    lines = ["Verdict (bar: every tvmlite-cython row <= pybind11; cython >= 10x ctypes on f(1,2,3))"]
    width = max(len(k) for k in ROW_KEYS)
    for key in ROW_KEYS:
        e = v["rows"][key]
        if e["pass"] is None:
            missing = "tvmlite-cython" if e["cython_ns"] is None else "pybind11"
            lines.append("  %s  n/a   (%s not measured)" % (key.ljust(width), missing))
        else:
            rel = e["cython_ns"] / e["pybind11_ns"]
            lines.append("  %s  %s  cython %s ns vs pybind11 %s ns  (%.2fx of pybind11)" % (
                key.ljust(width), "PASS" if e["pass"] else "FAIL",
                fmt_ns(e["cython_ns"]), fmt_ns(e["pybind11_ns"]), rel))
    s = v["cython_vs_ctypes_f123"]
    if s is None:
        lines.append("  cython/ctypes speedup on f(1,2,3): n/a (a column is not measured)")
    else:
        lines.append("  cython/ctypes speedup on f(1,2,3): %.1fx  %s (bar >= 10x)"
                     % (s["speedup"], "PASS" if s["pass"] else "FAIL"))
    overall = v["all_rows_le_pybind11"]
    s_ok = None if s is None else s["pass"]
    if overall is False or s_ok is False:
        word = "FAIL"
    elif overall is None or s_ok is None:
        word = "INCOMPLETE"
    else:
        word = "PASS"
    lines.append("  overall: %s" % word)
    v["overall"] = word
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="few short repeats (CI smoke run, a few seconds)")
    ap.add_argument("--repeats", type=int, default=None, help="interleaved repeats (default 51, quick 5)")
    ap.add_argument("--target-ms", type=float, default=None,
                    help="wall time of one timed loop per cell (default 4 ms, quick 1 ms)")
    ap.add_argument("--impls", default=",".join(IMPLS),
                    help="comma-separated columns to run (default: %s); python is always included"
                    % ",".join(IMPLS))
    ap.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless the bar is met (all tvmlite-cython rows <= pybind11, cython >= 10x ctypes)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print tracebacks of failing cells")
    args = ap.parse_args(argv)

    repeats = args.repeats if args.repeats is not None else (5 if args.quick else 51)
    target_ms = args.target_ms if args.target_ms is not None else (1.0 if args.quick else 4.0)
    call_n_inner = 1000
    impl_names = [i.strip() for i in args.impls.split(",") if i.strip()]
    for i in impl_names:
        if i not in IMPL_FACTORIES:
            ap.error("unknown implementation %r (choose from %s)" % (i, ",".join(IMPLS)))
    if "python" not in impl_names:
        impl_names.insert(0, "python")
    impl_names = [i for i in IMPLS if i in impl_names]

    t_all = time.perf_counter()
    impls, impl_errors, grid = setup_cells(impl_names, call_n_inner, args.verbose)
    elapsed = run_benchmark(grid, impl_names, repeats, target_ms, progress=sys.stderr.isatty())
    loop_ns = empty_loop_ns()

    print()
    print("tvmlite FFI overhead: ns per operation, median of %d interleaved repeats (~%.1f ms per timed loop)"
          % (repeats, target_ms))
    print("python %s on %s, %s" % (platform.python_version(), platform.machine(), platform.platform(terse=True)))
    for name in impl_names:
        if name in impls:
            extra = ""
            if name in ("cython", "ctypes"):
                try:
                    extra = "  [testing.nop is %s]" % impls[name].describe()
                except Exception:
                    pass
            print("  %-15s %s%s" % (IMPL_TITLES[name], impls[name].version, extra))
        else:
            print("  %-15s n/a (%s)" % (IMPL_TITLES[name], impl_errors[name]))
    print("empty loop overhead (included in every figure): %.2f ns/iter" % loop_ns)
    print("cells show: median ns/op (ratio to the python no-op of the same row)")
    print()
    footnotes: Dict[str, int] = {}
    print(render(grid, impl_names, footnotes))
    print()
    print("python no-op baseline per row: nop(*args) called with the row's operands, i.e. nop(), nop(1,2,3),")
    print('  nop(1.0,"s"), nop(obj), nop(ndarray), nop(obj), nop(1,2), nop(obj), nop(list,i); call_n: a Python')
    print("  loop calling nop() n=%d times. Pair is tvm_ffi.testing.TestIntPair for tvm_ffi (field a);" % call_n_inner)
    print("  tvm_ffi's call_n is compiled with tvm_ffi.cpp.load_inline (tvm_ffi ships none).")
    if footnotes:
        print()
        for reason, num in sorted(footnotes.items(), key=lambda kv: kv[1]):
            print("[%d] %s" % (num, reason))
    print()
    v = verdict(grid)
    print(render_verdict(v))
    total = time.perf_counter() - t_all
    print()
    print("timed phase %.1f s, total %.1f s" % (elapsed, total))

    if args.json:
        result = {
            "meta": {
                "python": platform.python_version(),
                "platform": platform.platform(),
                "machine": platform.machine(),
                "cpu_count": os.cpu_count(),
                "repeats": repeats,
                "target_ms": target_ms,
                "call_n_inner": call_n_inner,
                "empty_loop_ns": loop_ns,
                "quick": args.quick,
                "versions": {n: getattr(impls.get(n), "version", None) for n in impl_names},
                "unavailable": impl_errors,
                "timed_seconds": elapsed,
                "total_seconds": total,
            },
            "rows": [],
            "verdict": v,
        }
        for key in ROW_KEYS:
            base = grid[key]["python"]
            base_m = base.median() if base.ok else None
            row = {"row": key, "description": ROW_DESCRIPTIONS[key], "cells": {}}
            for name in impl_names:
                c = grid[key][name]
                if c.ok and c.samples:
                    s = sorted(c.samples)
                    m = statistics.median(s)
                    row["cells"][name] = {
                        "ns_median": m,
                        "ns_min": s[0],
                        "ns_p25": s[len(s) // 4],
                        "ns_p75": s[(3 * len(s)) // 4],
                        "ratio_to_python_noop": (m / base_m) if base_m else None,
                        "loop_count": c.n,
                        "samples": len(s),
                    }
                else:
                    row["cells"][name] = {"ns_median": None, "reason": c.reason or "not measured"}
            result["rows"].append(row)
        d = os.path.dirname(os.path.abspath(args.json))
        os.makedirs(d, exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=2)
        print("wrote %s" % args.json)

    if args.check and v.get("overall") != "PASS":
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
