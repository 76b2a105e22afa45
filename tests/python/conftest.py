"""Shared setup and fixtures for the whole suite.

The testing.* functions and types (testing.echo, testing.Pair, ...) live in libtvmlite_testing.so, which
``import tvmlite.testing`` loads; import it once here so every test may look them up. Code a test runs in a child
interpreter does not get this: it imports tvmlite.testing itself.

Fixtures:
  rng          a numpy Generator seeded per test (reproducible data).
  run_relay    run_relay(func_or_mod, inputs: dict or list, params=None) -> list of numpy outputs, through
               tvmlite.build(target="debug") and GraphModule, as a user would (debug_run.py).
  op_names     op_names(mod) -> the op names of main's calls, in the order a visitor meets them (ir_calls.py;
               relay tests import it and calls_of from there too).

In CI (CI=true, as .ci/run runs) a test or module skipped because an import failed (pytest.importorskip of an oracle
such as onnxruntime) fails instead: the test extra installs every oracle, so such a skip is a broken install that
would silently drop the comparisons.
"""
import os

import numpy as np
import pytest

import tvmlite.testing  # noqa: F401  (loads libtvmlite_testing.so)

import debug_run
import ir_calls


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def run_relay():
    return debug_run.run_relay


@pytest.fixture
def op_names():
    return ir_calls.op_names


_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _fail_missing_import(report):
    """In CI, turn a skip for a failed import into a failure naming it."""
    if not (_CI and report.skipped and isinstance(report.longrepr, tuple)):
        return
    reason = str(report.longrepr[2])
    if "could not import" in reason:
        report.outcome = "failed"
        report.longrepr = f"{reason} (CI=true: the test extra must install every oracle; pip install -e '.[test]')"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_missing_import(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_missing_import(outcome.get_result())
