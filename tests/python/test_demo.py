"""``python -m tvmlite demo``: the README's main command, run as a user runs it."""
import io
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

import onnx  # a dependency of tvmlite

from tvmlite import __main__ as cli
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
