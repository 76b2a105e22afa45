"""The deploy C API (csrc/include/tvmlite/c_executor_api.h).

examples/deploy.c is compiled with the system C compiler against libtvmlite.so and run as a process of its own (no
Python in it): exported models reproduce Python's outputs bit for bit (a ResNet, a transformer encoder, a BERT with
dynamic axes at two shapes), and a model with reference nodes fails to
load naming them. The API's other paths (errors, zero-copy inputs) are called here through ctypes.
"""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

import tvmlite
from tvmlite import models, relay
from tvmlite.runtime import GraphModule, load_module

from thread_helpers import run_threads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LIB_DIR = os.path.join(os.path.dirname(tvmlite.__file__), "lib")
INCLUDE = os.path.join(ROOT, "csrc", "include")


@pytest.fixture(scope="module")
def deploy(tmp_path_factory):
    """examples/deploy.c, built as C11 with every warning an error."""
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    if cc is None:
        pytest.fail("no C compiler (gcc or $CC) to build examples/deploy.c")
    exe = str(tmp_path_factory.mktemp("deploy") / "deploy")
    cmd = [cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(ROOT, "examples", "deploy.c"),
           "-I", INCLUDE, "-L", LIB_DIR, "-ltvmlite", f"-Wl,-rpath,{LIB_DIR}", "-o", exe]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def test_the_example_compiles_as_cpp_too():
    cxx = shutil.which(os.environ.get("CXX", "g++"))
    if cxx is None:
        pytest.fail("no C++ compiler (g++ or $CXX)")
    proc = subprocess.run([cxx, "-x", "c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                           os.path.join(ROOT, "examples", "deploy.c"), "-I", INCLUDE], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _run(deploy, path, feeds, out_dir):
    """Run the example on feeds (arrays in input order); its outputs, or the failed process."""
    os.makedirs(out_dir, exist_ok=True)
    files = []
    for i, x in enumerate(feeds):
        files.append(os.path.join(out_dir, f"in{i}.npy"))
        np.save(files[-1], x)
    proc = subprocess.run([deploy, str(path), str(out_dir), *files], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return proc
    count = len(proc.stdout.splitlines())
    return [np.load(os.path.join(out_dir, f"output{i}.npy")) for i in range(count)]


def _python_outputs(path, names, feeds):
    gm = GraphModule(load_module(path)["default"](tvmlite.cpu(0)))
    gm.run(**dict(zip(names, feeds)))
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


def _export(tmp_path, onnx_model, shape=None):
    mod, params = tvmlite.frontend.from_onnx(onnx_model, shape=shape)
    lib = tvmlite.build(mod, target="cpu", params=params)
    assert lib.fallbacks() == []
    path = tmp_path / "model.tvmlite"
    lib.export_library(path)
    weights = {t.name for t in onnx_model.graph.initializer}
    return path, [i.name for i in onnx_model.graph.input if i.name not in weights]


@pytest.mark.parametrize("name", ["resnet50", "transformer"])
def test_static_models_match_python_bit_for_bit(tmp_path, deploy, name):
    model = models.get_model(name, quick=True)
    path, names = _export(tmp_path, model)
    feeds = list(models.example_input(model, seed=1).values())
    got = _run(deploy, path, feeds, tmp_path / "out")
    assert isinstance(got, list), got.stderr
    want = _python_outputs(path, names, feeds)
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_dynamic_axes_take_the_shapes_of_the_inputs(tmp_path, deploy):
    from tests.python.models import dynamic_models

    model = dynamic_models.bert()
    path, names = _export(tmp_path, model)
    rng = np.random.default_rng(0)
    for batch, seq in ((1, 7), (3, 16)):
        feeds = [rng.integers(0, 50, (batch, seq)).astype("int64") if "ids" in n or "type" in n
                 else np.ones((batch, seq), "int64") for n in names]
        got = _run(deploy, path, feeds, tmp_path / f"out{batch}")
        assert isinstance(got, list), got.stderr
        want = _python_outputs(path, names, feeds)
        assert got[0].shape[:2] == (batch, seq)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_reference_nodes_are_named_at_load(tmp_path, deploy):
    x = relay.var("x", shape=(4, 6))
    lib = tvmlite.build(relay.Function([x], relay.sort(relay.nn.relu(x), axis=1)), target="cpu")
    (name,) = [f["name"] for f in lib.fallbacks()]
    lib.export_library(tmp_path / "m.tvmlite")
    proc = _run(deploy, tmp_path / "m.tvmlite", [np.zeros((4, 6), "float32")], tmp_path / "out")
    assert not isinstance(proc, list) and proc.returncode == 1
    assert "ValueError: TVMLiteModelLoad" in proc.stderr and "1 node(s) that run on the numpy reference" in proc.stderr
    assert name in proc.stderr and "has no native kernel" in proc.stderr


def test_bad_files_and_inputs_are_clear_errors(tmp_path, deploy):
    (tmp_path / "junk").write_bytes(b"not a model")
    proc = _run(deploy, tmp_path / "junk", [], tmp_path / "out")
    assert "junk is not a valid tvmlite module: bad magic" in proc.stderr
    proc = _run(deploy, tmp_path / "missing", [], tmp_path / "out")
    assert "cannot read" in proc.stderr and "missing" in proc.stderr
    x = relay.var("x", shape=(2, 3))
    tvmlite.build(relay.Function([x], relay.nn.relu(x)), target="cpu").export_library(tmp_path / "m")
    proc = _run(deploy, tmp_path / "m", [np.zeros((2, 4), "float32")], tmp_path / "out")
    assert proc.returncode == 1 and "input 'x' has shape (2, 3), got shape (2, 4)" in proc.stderr


# -- the API itself, through ctypes ---------------------------------------------------------------------------------

class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("ndim", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64))]


@pytest.fixture(scope="module")
def capi():
    lib = ctypes.CDLL(os.path.join(LIB_DIR, "libtvmlite.so"))
    lib.TVMLiteGetLastErrorMessage.restype = ctypes.c_char_p
    lib.TVMLiteModelFree.restype = lib.TVMLiteExecutorFree.restype = None
    return lib


def _tensor(arr, keep):
    """A DLTensor viewing arr (keep holds what must outlive it)."""
    shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    keep += [arr, shape]
    code = {"f": 2, "i": 0, "u": 1, "b": 6}[arr.dtype.kind]
    return DLTensor(arr.ctypes.data, 1, 0, arr.ndim, code, arr.dtype.itemsize * 8, 1, shape, None, 0)


def _error(capi, rc):
    assert rc == -1
    return capi.TVMLiteGetLastErrorMessage().decode()


def _aligned(shape, dtype="float32", offset=0):
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(nbytes + 128 + offset, np.uint8)
    start = -raw.ctypes.data % 64 + offset
    return raw[start:start + nbytes].view(dtype).reshape(shape)


@pytest.fixture
def relu_model(tmp_path, capi):
    x = relay.var("x", shape=(2, 3))
    y = relay.reshape(relay.nn.relu(x), (3, 2))  # a view of a view of x: zero-copy inputs must remake it
    tvmlite.build(relay.Function([x], relay.Tuple([y, relay.add(x, x)])), target="cpu").export_library(tmp_path / "m")
    model = ctypes.c_void_p()
    assert capi.TVMLiteModelLoad(str(tmp_path / "m").encode(), ctypes.byref(model)) == 0
    yield model
    capi.TVMLiteModelFree(model)


def test_model_info(capi, relu_model):
    n_in, n_out = ctypes.c_int32(), ctypes.c_int32()
    assert capi.TVMLiteModelNumInputs(relu_model, ctypes.byref(n_in)) == 0 and n_in.value == 1
    assert capi.TVMLiteModelNumOutputs(relu_model, ctypes.byref(n_out)) == 0 and n_out.value == 2
    info = TensorInfo()
    assert capi.TVMLiteModelInputInfo(relu_model, 0, ctypes.byref(info)) == 0
    assert (info.name, info.code, info.bits, info.lanes) == (b"x", 2, 32, 1)
    assert [info.shape[i] for i in range(info.ndim)] == [2, 3]
    assert capi.TVMLiteModelOutputInfo(relu_model, 0, ctypes.byref(info)) == 0
    assert [info.shape[i] for i in range(info.ndim)] == [3, 2]
    index = ctypes.c_int32(-1)
    assert capi.TVMLiteModelInputIndex(relu_model, b"x", ctypes.byref(index)) == 0 and index.value == 0
    assert "KeyError: TVMLiteModelInputIndex: the model has no input 'y' (inputs: x)" == \
        _error(capi, capi.TVMLiteModelInputIndex(relu_model, b"y", ctypes.byref(index)))
    assert "IndexError: TVMLiteModelInputInfo: input index 1 out of range for 1 inputs" == \
        _error(capi, capi.TVMLiteModelInputInfo(relu_model, 1, ctypes.byref(info)))
    assert "ValueError: TVMLiteModelNumInputs: model is NULL" == \
        _error(capi, capi.TVMLiteModelNumInputs(None, ctypes.byref(n_in)))


def test_run_copy_and_zero_copy_inputs(capi, relu_model):
    ex = ctypes.c_void_p()
    assert capi.TVMLiteExecutorCreate(relu_model, ctypes.byref(ex)) == 0
    try:
        out = ctypes.POINTER(DLTensor)()
        assert "ValueError" in _error(capi, capi.TVMLiteExecutorRun(ex))  # no input yet
        keep = []

        def outputs():
            got = []
            for i in range(2):
                assert capi.TVMLiteExecutorGetOutput(ex, i, ctypes.byref(out)) == 0
                t = out.contents
                shape = tuple(t.shape[d] for d in range(t.ndim))
                got.append(np.ctypeslib.as_array(ctypes.cast(t.data, ctypes.POINTER(ctypes.c_float)),
                                                 shape=shape).copy())
            return got

        x = np.arange(6, dtype="float32").reshape(2, 3) - 3
        assert capi.TVMLiteExecutorSetInput(ex, 0, ctypes.byref(_tensor(x, keep))) == 0
        assert capi.TVMLiteExecutorRun(ex) == 0
        y, z = outputs()
        np.testing.assert_array_equal(y, np.maximum(x, 0).reshape(3, 2))
        np.testing.assert_array_equal(z, x + x)
        bound = _aligned((2, 3))
        assert capi.TVMLiteExecutorSetInputZeroCopy(ex, 0, ctypes.byref(_tensor(bound, keep))) == 0
        for k in range(3):  # each run reads the caller's memory as it is then
            bound[...] = x * (k + 1)
            assert capi.TVMLiteExecutorRun(ex) == 0
            y, z = outputs()
            np.testing.assert_array_equal(y, np.maximum(bound, 0).reshape(3, 2))
            np.testing.assert_array_equal(z, bound + bound)
        assert capi.TVMLiteExecutorSetInput(ex, 0, ctypes.byref(_tensor(x, keep))) == 0  # back to a copy
        bound[...] = 100
        assert capi.TVMLiteExecutorRun(ex) == 0
        np.testing.assert_array_equal(outputs()[1], x + x)
        unaligned = _aligned((2, 3), offset=4)
        assert "64-byte aligned" in _error(capi, capi.TVMLiteExecutorSetInputZeroCopy(
            ex, 0, ctypes.byref(_tensor(unaligned, keep))))
        assert "TypeError: set_input: input 'x' is float32, got dtype int32" == _error(
            capi, capi.TVMLiteExecutorSetInput(ex, 0, ctypes.byref(_tensor(np.zeros((2, 3), "int32"), keep))))
        assert "IndexError: TVMLiteExecutorGetOutput: output index 2 out of range for 2 outputs" == \
            _error(capi, capi.TVMLiteExecutorGetOutput(ex, 2, ctypes.byref(out)))
        assert "value is NULL" in _error(capi, capi.TVMLiteExecutorSetInput(ex, 0, None))
    finally:
        capi.TVMLiteExecutorFree(ex)


def test_the_readme_c_snippet_compiles():
    import re

    readme = open(os.path.join(ROOT, "README.md")).read()
    (block,) = re.findall(r"```c\n(.*?)```", readme, flags=re.S)
    source = f'#include <stdio.h>\n#include "tvmlite/c_executor_api.h"\nvoid f(DLTensor x) {{\n{block}}}\n'
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    proc = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-x", "c", "-", "-I", INCLUDE],
                          input=source, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_executors_of_one_model_run_in_parallel_threads(capi, relu_model):
    """ctypes releases the GIL around each C call: two executors of one model run at once, each with its own inputs,
    and a failing call on one thread leaves the other thread's error slot alone."""
    failures = []

    def work(k):
        ex, out, keep = ctypes.c_void_p(), ctypes.POINTER(DLTensor)(), []
        if capi.TVMLiteExecutorCreate(relu_model, ctypes.byref(ex)) != 0:
            failures.append(capi.TVMLiteGetLastErrorMessage().decode())
            return
        try:
            for i in range(50):
                x = np.full((2, 3), k * 100 + i, "float32")
                ok = capi.TVMLiteExecutorSetInput(ex, 0, ctypes.byref(_tensor(x, keep))) == 0
                ok = ok and capi.TVMLiteExecutorRun(ex) == 0
                ok = ok and capi.TVMLiteExecutorGetOutput(ex, 1, ctypes.byref(out)) == 0
                if not ok:
                    failures.append(capi.TVMLiteGetLastErrorMessage().decode())
                    return
                got = np.ctypeslib.as_array(ctypes.cast(out.contents.data, ctypes.POINTER(ctypes.c_float)), (2, 3))
                if not np.array_equal(got, x + x):
                    failures.append(f"thread {k} run {i}: {got}")
                    return
                assert capi.TVMLiteExecutorGetOutput(ex, 9, ctypes.byref(out)) == -1  # this thread's error only
                if "output index 9" not in capi.TVMLiteGetLastErrorMessage().decode():
                    failures.append(f"thread {k}: another thread's error")
                    return
        finally:
            capi.TVMLiteExecutorFree(ex)

    run_threads(work, 4)
    assert failures == []
