"""``python -m tvmlite``: demo (the README's main command, run as a user runs it), compile and run.

Most tests call ``main(argv)`` in-process with pytest's captured stdout/stderr; compile and run build with
``target="cpu"`` and export/load libraries for real.
"""
import io
import os
import re
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

import onnx  # a dependency of tvmlite

from tvmlite import cli
from tvmlite.relay.frontend.onnx import demo_model

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run_cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "tvmlite", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=env)


def test_demo_passes():
    proc = _run_cli("demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "def @main(%input: Tensor[(1, 3, 32, 32), float32]" in out
    assert "nn.conv2d" in out and "count" in out
    assert "max abs error vs onnx.reference" in out
    assert out.rstrip().endswith("PASS")


def test_help():
    proc = _run_cli("--help")
    assert proc.returncode == 0 and "demo" in proc.stdout
    proc = _run_cli("demo", "--help")
    assert proc.returncode == 0 and "--seed" in proc.stdout
    proc = _run_cli("frobnicate")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def _tiny_model(seed=0, image_size=4):
    """An elementwise stand-in for the ResNet (input 'input', output 'logits'), to run the demo's whole flow."""
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(seed).standard_normal((1, 3, image_size, image_size)).astype("float32")
    nodes = [helper.make_node("Mul", ["input", "w"], ["m"]), helper.make_node("Relu", ["m"], ["r"]),
             helper.make_node("Add", ["r", "input"], ["logits"])]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                                             [1, 3, image_size, image_size])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, None)],
                              initializer=[numpy_helper.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_demo_flow_on_a_stand_in_model(monkeypatch):
    monkeypatch.setattr(demo_model, "resnet_model", _tiny_model)
    out = io.StringIO()
    args = types.SimpleNamespace(seed=3, image_size=4, lines=15)
    assert cli.cmd_demo(args, out=out) == 0
    text = out.getvalue()
    assert "def @main(%input: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(1, 3, 4, 4), float32])" in text
    rows = {line.split()[0]: line.split()[1] for line in text.splitlines() if line.startswith("  ") and
            len(line.split()) == 2 and line.split()[1].isdigit()}
    assert rows == {"multiply": "1", "nn.relu": "1", "add": "1"}
    assert "max abs error vs onnx.reference: 0 " in text
    assert text.rstrip().endswith("PASS")


def test_demo_model_is_valid_onnx():
    from onnx.reference import ReferenceEvaluator

    model = demo_model.resnet_model(seed=1)
    onnx.checker.check_model(model, full_check=True)
    assert {n.op_type for n in model.graph.node} == {"Conv", "BatchNormalization", "Relu", "MaxPool", "Add",
                                                     "GlobalAveragePool", "Flatten", "Gemm"}
    feeds = demo_model.example_input(model, seed=1)
    (logits,) = ReferenceEvaluator(model).run(None, feeds)
    assert logits.shape == (1, 10) and np.isfinite(logits).all()
    again = demo_model.resnet_model(seed=1)  # seeded: the same weights
    assert again.SerializeToString() == model.SerializeToString()


# -- in-process: main(argv) --------------------------------------------------------------------------------------
@pytest.fixture
def small_onnx(tmp_path):
    """A small ResNet-18 (1, 3, 32, 32) -> (1, 10) saved as a .onnx file."""
    from tvmlite import models

    path = tmp_path / "resnet18.onnx"
    onnx.save(models.resnet(depth=18, image_size=32, width=0.125, num_classes=10, seed=1), str(path))
    return path


def _ort(model_path, feeds):
    ort = pytest.importorskip("onnxruntime")
    return ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"]).run(None, feeds)


def _printed_stats(text):
    """[(shape text, dtype, min, max, mean)] of the 'output ...' lines of run."""
    stats = []
    for line in text.splitlines():
        if line.startswith("output "):
            words = line.split()
            stats.append((line[line.index("shape ") + 6:line.index(")") + 1], words[words.index("min") - 1],
                          float(words[words.index("min") + 1]), float(words[words.index("max") + 1]),
                          float(words[words.index("mean") + 1])))
    return stats


def _check_outputs_match(text, expected):
    stats = _printed_stats(text)
    assert len(stats) == len(expected)
    for (shape, dtype, lo, hi, mean), e in zip(stats, expected):
        assert shape == str(e.shape) and dtype == str(e.dtype)
        np.testing.assert_allclose([lo, hi, mean], [e.min(), e.max(), e.astype("float64").mean()], rtol=2e-3,
                                   atol=1e-3)


@pytest.mark.parametrize("command, option", [("compile", "--opt-level"), ("run", "--profile"), ("demo", "--seed")])
def test_subcommand_help(capsys, command, option):
    assert cli.main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m tvmlite {command}") and option in out


def test_top_level_help(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(c in out for c in ("compile", "run", "demo"))
    assert cli.main([]) == 2  # no command: the help, on stderr
    assert "compile" in capsys.readouterr().err


def _assert_one_line_error(capsys, argv, message):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if not line.startswith("[tvmlite]")]
    assert errors == [errors[0]] and errors[0].startswith("error: "), captured.err
    assert message in errors[0]
    assert "Traceback" not in captured.err + captured.out


def test_bad_arguments(capsys, tmp_path, small_onnx):
    bad = tmp_path / "bad.onnx"
    bad.write_text("not a model")
    x = tmp_path / "x.npy"
    np.save(x, np.zeros((1, 3, 32, 32), "float32"))
    xi = tmp_path / "xi.npy"
    np.save(xi, np.zeros((1, 3, 32, 32), "int32"))
    m = str(small_onnx)
    cases = [
        (["run", str(tmp_path / "missing.onnx")], "no such file: "),
        (["compile", str(tmp_path / "missing.onnx"), "-o", str(tmp_path / "m.so")], "no such file: "),
        (["run", str(tmp_path / "missing.so")], "no such file: "),
        (["run", str(bad)], "bad.onnx is not an ONNX model (DecodeError"),
        (["run", m, "--shape", "input=1,3,32,32"], "bad --shape 'input=1,3,32,32': expected NAME:D1,D2,..."),
        (["run", m, "--shape", "input:1,3,a,32"], "bad --shape 'input:1,3,a,32'"),
        (["run", m, "--shape", "data:1,3,32,32"], "the model has no input 'data' (its inputs: input)"),
        (["run", m, "--input", f"data={x}"], "the model has no input 'data' (its inputs: input)"),
        (["run", m, "--input", "input"], "bad --input 'input': expected NAME=FILE.npy"),
        (["run", m, "--input", f"input={tmp_path / 'nope.npy'}"], "--input input: no such file"),
        (["run", m, "--input", f"input={bad}"], "--input input: cannot read"),
        (["run", m, "--target", "debug", "--input", f"input={xi}"],
         "--input input: the file holds int32, the input is float32"),
        (["run", m, "--input", f"input={x}", "--shape", "input:1,3,64,64"],
         "--input input: the file's shape (1, 3, 32, 32) is not the input's shape (1, 3, 64, 64)"),
        (["compile", m, "-o", str(tmp_path / "no" / "dir" / "m.so")], "-o " + str(tmp_path / "no" / "dir")),
    ]
    for argv, message in cases:
        _assert_one_line_error(capsys, argv, message)


def test_usage_errors_exit_2(capsys, small_onnx):
    for argv in (["frobnicate"], ["run", str(small_onnx), "--repeat", "0"], ["compile", str(small_onnx)],
                 ["run", str(small_onnx), "--threads", "x"], ["compile", str(small_onnx), "-o", "x", "--opt-level",
                                                              "7"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "usage: python -m tvmlite" in err and "Traceback" not in err


def test_unsupported_op_is_one_line(capsys, tmp_path):
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Frobnicate", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    path = tmp_path / "unsupported.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    _assert_one_line_error(capsys, ["run", str(path), "--target", "debug"],
                           "OpNotImplemented: 1 unsupported ONNX op: Frobnicate")


def test_dynamic_input_needs_a_shape(capsys, tmp_path):
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])])
    path = tmp_path / "dynamic.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    _assert_one_line_error(capsys, ["run", str(path), "--target", "debug"],
                           "input 'x' has a dynamic shape ['?', 3]: give it with --shape x:D1,D2,...")
    assert cli.main(["run", str(path), "--target", "debug", "--shape", "x:4,3", "--repeat", "1"]) == 0
    assert "output 0 'y': shape (4, 3) float32" in capsys.readouterr().out


def test_run_onnx_on_debug_target(capsys, tmp_path, small_onnx):
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype("float32")
    np.save(tmp_path / "x.npy", x)
    argv = ["run", str(small_onnx), "--target", "debug", "--input", f"input={tmp_path / 'x.npy'}", "--repeat", "3",
            "--threads", "1"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    _check_outputs_match(captured.out, _ort(small_onnx, {"input": x}))
    assert "latency over 3 runs, 1 thread: median " in captured.out
    assert "[tvmlite] import (from_onnx): " in captured.err and "[tvmlite] build (target debug" in captured.err


def test_run_random_inputs_are_seeded(capsys, small_onnx):
    outs = []
    for seed in (4, 4, 5):
        assert cli.main(["run", str(small_onnx), "--target", "debug", "--repeat", "1", "--seed", str(seed)]) == 0
        outs.append(_printed_stats(capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0] != outs[2]
    x = np.random.default_rng(4).standard_normal((1, 3, 32, 32)).astype("float32")  # what --seed 4 feeds
    (expected,) = _ort(small_onnx, {"input": x})
    np.testing.assert_allclose(outs[0][0][2:], [expected.min(), expected.max(), expected.mean()], rtol=2e-3,
                               atol=1e-3)


def test_progress_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    progress = cli.Progress(stream)
    with progress.step("build"):
        pass
    with pytest.raises(RuntimeError):
        with progress.step("export"):
            raise RuntimeError
    text = stream.getvalue()
    assert text.startswith("[tvmlite] build ...\r[tvmlite] build: ") and "\r[tvmlite] export: failed\n" in text
    assert [what for what, _ in progress.times] == ["build", "export"]


def test_graph_summary():
    graph = {"nodes": [{"op": "null", "name": "x"}, {"op": "tvm_op", "name": "a"}, {"op": "tvm_op", "name": "b"},
                       {"op": "tvm_op", "name": "c"}],
             "arg_nodes": [0], "node_row_ptr": [0, 1, 2, 3, 4], "heads": [[3, 0, 0]],
             "attrs": {"shape": ["list_shape", [[1, 8], [1, 8], [1, 4], [1, 8]]],
                       "dltype": ["list_str", ["float32", "float32", "float32", "float32"]],
                       "storage_id": ["list_int", [0, 1, 2, 1]]}}
    assert cli.graph_summary(graph) == (3, 32 + 16, 32 + 16 + 32)


def _compile_and_run(capsys, tmp_path, small_onnx):
    lib = tmp_path / "resnet18.so"
    assert cli.main(["compile", str(small_onnx), "-o", str(lib), "--shape", "input:1,3,32,32"]) == 0
    captured = capsys.readouterr()
    assert lib.is_file()
    out = captured.out
    assert f"compiled {small_onnx} -> {lib} (target cpu, opt level 3)" in out
    assert "  input  input: (1, 3, 32, 32) float32" in out and "  output logits" in out
    assert "  ONNX nodes      69" in out and "nn.conv2d" in out and "planned memory" in out
    for step in ("read the model", "import (from_onnx)", "build (target cpu, opt level 3)", "export_library"):
        assert step in out and f"[tvmlite] {step}" in captured.err
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype("float32")
    np.save(tmp_path / "x.npy", x)
    assert cli.main(["run", str(lib), "--input", f"input={tmp_path / 'x.npy'}", "--repeat", "2", "--threads", "1",
                     "--profile"]) == 0
    out = capsys.readouterr().out
    _check_outputs_match(out, _ort(small_onnx, {"input": x}))
    assert "latency over 2 runs, 1 thread: median " in out
    return out


def test_run_a_library_with_random_inputs(capsys, tmp_path, small_onnx):
    """Shapes come from the library's graph; --shape is for .onnx models only."""
    _compile_and_run(capsys, tmp_path, small_onnx)
    assert cli.main(["run", str(tmp_path / "resnet18.so"), "--repeat", "1"]) == 0  # random inputs, shapes from JSON
    assert _printed_stats(capsys.readouterr().out)[0][:2] == ("(1, 10)", "float32")
    _assert_one_line_error(capsys, ["run", str(tmp_path / "resnet18.so"), "--shape", "input:1,3,32,32"],
                           "--shape applies to .onnx models")


def test_demo_cpu_section(capsys):
    assert cli.main(["demo", "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    assert "cpu target: build " in out
    assert re.search(r"max abs error vs the debug executor: \S+ PASS", out), out
    assert "latency (median of 2 runs):" in out and "tvmlite (cpu)" in out
    pytest.importorskip("onnxruntime")
    assert "onnxruntime 1." in out
    assert out.rstrip().endswith("PASS")


def test_compile_and_run(capsys, tmp_path, small_onnx):
    """Compile, export, load back and run; then --profile prints the executor's profile."""
    out = _compile_and_run(capsys, tmp_path, small_onnx)
    assert out.rstrip().splitlines()[-1].strip()  # the profile's text


def test_run_onnx_on_cpu_target(capsys, tmp_path, small_onnx):
    """A .onnx file is compiled, then run."""
    x = np.random.default_rng(2).standard_normal((1, 3, 32, 32)).astype("float32")
    np.save(tmp_path / "x.npy", x)
    assert cli.main(["run", str(small_onnx), "--input", f"input={tmp_path / 'x.npy'}", "--repeat", "2"]) == 0
    _check_outputs_match(capsys.readouterr().out, _ort(small_onnx, {"input": x}))
