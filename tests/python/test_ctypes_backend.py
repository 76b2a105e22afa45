"""The pure-ctypes FFI backend (tvmlite/_ffi/_ctypes): the suite under TVMLITE_FFI=ctypes (all but the kernel sweeps),
and the ctypes core used directly next to the Cython core in one process (as the FFI benchmark does)."""
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

from tvmlite._ffi import core as active_core
from tvmlite._ffi._ctypes import core as ct

from ffi_helpers import raise_through

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(TESTS_DIR))


@pytest.mark.skipif(active_core.BACKEND == "ctypes", reason="this run already uses the ctypes backend")
def test_suite_passes_under_ctypes_backend():
    env = dict(os.environ, TVMLITE_FFI="ctypes")
    # Left out: what drives the layers above the FFI with calls of a kind the rest of the suite makes too, and
    # that the backend does not change: the model fuzzer, and the kernel sweeps of topi/ (thousands of shapes
    # through one kernel call each, about 40% of the suite's time; relay/test_build_cpu.py calls kernels from
    # Python too, and the FFI fuzzer, test_fuzz.py, calls every registered global under both backends).
    ignored = ["test_fuzz_models.py", "topi"]
    if os.environ.get("TVMLITE_SANITIZE_RUN") == "1":
        # Under the sanitizers (tests/sanitize.sh) the layers above the FFI run the same C++ under either backend, and
        # the Cython run has just checked it: here the FFI's own tests (this directory's), which reach _capsule.c.
        ignored += ["relay", "runtime", "frontend", "models"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", TESTS_DIR,
         "--ignore", os.path.abspath(__file__), *(f"--ignore={os.path.join(TESTS_DIR, p)}" for p in ignored)],
        env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    assert proc.returncode == 0, f"suite failed under TVMLITE_FFI=ctypes (exit {proc.returncode}):\n" \
                                 f"{proc.stdout[-6000:]}"


# ----------------------------------------------------------------------------------------------------------------
# The ctypes core imported on its own, in the same process as the Cython core
# ----------------------------------------------------------------------------------------------------------------

def test_backend_and_module_names_match_cython_core():
    cy = pytest.importorskip("tvmlite._ffi._cython.core")
    assert ct.BACKEND == "ctypes"
    names = {n for n in dir(ct) if not n.startswith("__")}
    assert names == {n for n in dir(cy) if not n.startswith("__")}


def test_nop():
    assert ct.get_global_func("testing.nop")() is None
    assert ct.get_global_func("testing.nop")(1, 2.0, "s", None, [1], {"a": 1}) is None


@pytest.mark.parametrize("value", [None, True, False, 0, -1, 2**63 - 1, -2**63, 1.5, "", "hello", "üñí", "a\x00b",
                                   b"", b"x\x00y"])
def test_echo_round_trips(value):
    out = ct.get_global_func("testing.echo")(value)
    assert type(out) is type(value) and out == value


def test_echo_data_type_and_device():
    echo = ct.get_global_func("testing.echo")
    assert echo(ct.DataType("float16")) == "float16"
    assert echo(ct.Device(1, 2)) == ct.Device(1, 2)


def test_pair_fields_readable_without_registered_class():
    p = ct.get_global_func("testing.Pair")(1, "a")
    assert isinstance(p, ct.ObjectBase)
    assert p.first == 1 and p.second == "a"
    assert p.type_key == "testing.Pair"
    assert repr(p) == "testing.Pair(first=1, second='a')"
    assert "first" in dir(p)
    with pytest.raises(AttributeError):
        p.third


def test_containers_materialise_as_ctypes_bases():
    arr = ct.get_global_func("runtime.Array")(1, 2, 3)
    assert isinstance(arr, ct.ArrayBase)
    assert arr[1] == 2 and arr[-1] == 3 and len(arr) == 3 and list(arr) == [1, 2, 3]
    m = ct.get_global_func("testing.echo")({"a": 1, 2: "b"})
    assert isinstance(m, ct.MapBase) and m["a"] == 1 and m[2] == "b"
    assert isinstance(ct.get_global_func("testing.nop"), ct.Function)


def test_callback_called_from_cpp():
    calls = []
    ct.get_global_func("testing.call_n")(lambda: calls.append(1), 100)
    assert len(calls) == 100
    assert ct.get_global_func("testing.apply")(lambda a, b: a * b, 6, 7) == 42


def test_exception_in_callback_is_the_same_object():
    raise_through(ct.get_global_func("testing.apply"), KeyError("boom"))


def test_cpp_errors_and_bad_arguments():
    from tvmlite.error import TVMLiteError

    with pytest.raises(ValueError, match="msg") as info:
        ct.get_global_func("testing.raise")("ValueError", "msg")
    assert isinstance(info.value, TVMLiteError)
    with pytest.raises(TypeError, match=r"testing\.nop: argument #1 has type"):
        ct.get_global_func("testing.nop")(1, object())
    with pytest.raises(OverflowError, match="testing.echo"):
        ct.get_global_func("testing.echo")(2**64)
    with pytest.raises(ValueError, match="null"):
        ct.Function.__new__(ct.Function)()


def test_both_cores_share_one_runtime():
    # Registered through the Cython core, called through the ctypes core: one libtvmlite.so, one registry.
    # (Not the other way round: the Cython core's get_global_func is unsafe when the Cython core has no class
    # registered for runtime.Function, which is the case when the tvmlite package runs on the ctypes backend.)
    cy = pytest.importorskip("tvmlite._ffi._cython.core")
    cy.register_global_func("test_ctypes_backend.add", lambda a, b: a + b, True)
    try:
        assert ct.get_global_func("test_ctypes_backend.add")(1, 2) == 3
    finally:
        cy.remove_global_func("test_ctypes_backend.add")
    assert ct.get_global_func("test_ctypes_backend.add", True) is None


def test_ndarray_shares_memory_with_numpy():
    src = np.arange(6, dtype="float32").reshape(2, 3)
    x = ct.from_dlpack(src)
    assert isinstance(x, ct.NDArrayBase) and x.shape == (2, 3) and x.dtype == "float32"
    np.from_dlpack(x)[0, 0] = 7
    assert src[0, 0] == 7
    # numpy() is the runtime NDArray's (pure Python, over __dlpack__); the core's base exports through DLPack.
    assert np.from_dlpack(ct.get_global_func("testing.echo")(src)).tolist() == src.tolist()


def test_no_object_leaks():
    echo = ct.get_global_func("testing.echo")
    pair = ct.get_global_func("testing.Pair")
    gc.collect()  # cycles left by earlier tests (tracebacks held by pytest.raises) must not be freed mid-count
    before = ct._object_live_count()
    for i in range(100):
        echo([i, "s", {"k": pair(i, [i])}])
        ct.get_global_func("testing.apply")(lambda x: [x], i)
        try:
            ct.get_global_func("testing.apply")(lambda: 1 / 0)
        except ZeroDivisionError:
            pass
    gc.collect()
    assert ct._object_live_count() == before
