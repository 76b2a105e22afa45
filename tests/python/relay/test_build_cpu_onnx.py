"""onnx's backend cases through target="cpu": what the debug target passes, the cpu target passes too.

A deterministic sample (every 5th case by name) of the cases tests/python/frontend/test_onnx_node.py runs with the
debug target, minus its expected failures, built with target="cpu" (native kernels, views, reference nodes,
sequences, optionals, control flow, strings, ml_dtypes). The full list passes as well
(2024 cases when this was written).
"""
import os
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "frontend"))
import onnx_node_runner as runner  # noqa: E402

EXPECTED = runner.read_expected()
CASES = sorted(n for n in runner.collect_all() if n not in EXPECTED)[::5]


@pytest.fixture
def cpu_target(monkeypatch):
    import tvmlite
    from tvmlite.relay import build_module

    real = build_module.build
    built = []

    def build(mod, target="debug", params=None):
        built.append(real(mod, target="cpu", params=params))
        return built[-1]

    monkeypatch.setattr(tvmlite, "build", build, raising=False)
    monkeypatch.setattr(build_module, "build", build)
    return built


@pytest.mark.parametrize("name", CASES)
def test_onnx_case_on_cpu(name, cpu_target):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        runner.run_case(runner.collect_all()[name])
    from tvmlite.runtime.executor_factory import ExecutorFactoryModule

    assert cpu_target and all(isinstance(lib, ExecutorFactoryModule) for lib in cpu_target)
