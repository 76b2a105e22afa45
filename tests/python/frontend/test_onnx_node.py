"""onnx's official backend tests, one pytest test per case, against the expected-failure list.

Every node case (onnx.backend.test.case.node) and every model of onnx's ``simple``, ``pytorch-converted`` and
``pytorch-operator`` suites runs through from_onnx -> build -> run and is compared as onnx's runner compares
(onnx_node_runner.py), once for each target: "debug" (the numpy reference executor) and "cpu" (the optimising
build: passes, native kernels, references for the rest). Both targets answer to the same list, so the cpu target
passes every case the debug target passes. ``onnx_node_expected_failures.txt`` lists the cases that do not pass yet,
with a reason; the list is checked both ways:

* a listed case that fails is an xfail carrying its reason;
* a listed case that passes FAILS the run: remove it from the list (or rewrite the list with
  ``python tests/python/frontend/onnx_node_runner.py --write-expected``);
* a case not listed that fails, fails.
"""
import os
import sys
import warnings

import numpy as np
import pytest

import onnx  # noqa: E402,F401  (a dependency of tvmlite: a missing one is an error, not a skip)
sys.path.insert(0, os.path.dirname(__file__))
import onnx_node_runner as runner  # noqa: E402

EXPECTED = runner.read_expected()
NODE_CASES = runner.collect()
MODEL_CASES = runner.collect_models()


def _check(case, target):
    reason = EXPECTED.get(case.name)
    failure = None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            runner.run_case(case, target)
    except Exception as err:  # noqa: BLE001 - the outcome decides
        if reason is None:
            raise
        failure = f"{type(err).__name__}: {str(err).strip()[:200]}"
    # xfail outside the except block: pytest renders the xfail's traceback, and a chained one is slow to render
    if failure is not None:
        pytest.xfail(f"{reason or 'listed without a reason'} (now: {failure})")
    if reason is not None:
        pytest.fail(f"{case.name} passes now: remove it from {runner.EXPECTED_FILE.name} (listed as: {reason})")


TARGETS = ("debug", "cpu")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(NODE_CASES))
def test_onnx_node(name, target):
    _check(NODE_CASES[name], target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(MODEL_CASES))
def test_onnx_model_suite(name, target):
    _check(MODEL_CASES[name], target)


def test_expected_failures_name_real_cases():
    """Every listed name is a case that exists (a typo would silently never be checked)."""
    unknown = sorted(set(EXPECTED) - set(NODE_CASES) - set(MODEL_CASES))
    assert not unknown, f"{runner.EXPECTED_FILE.name} lists cases that do not exist: {unknown[:10]}"


def test_model_suites_are_present():
    suites = {name.split("/")[0][len(runner.MODEL_PREFIX):] for name in MODEL_CASES}
    assert suites == set(runner.MODEL_SUITES)
    assert len(NODE_CASES) > 1000
