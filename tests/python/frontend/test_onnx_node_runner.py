"""The expected-failure list's maintenance: reading, and rewriting from a run while keeping written reasons."""
import os
import sys

import pytest

import onnx  # noqa: E402,F401  (a dependency of tvmlite: a missing one is an error, not a skip)
sys.path.insert(0, os.path.dirname(__file__))
import onnx_node_runner as runner  # noqa: E402


def test_write_expected_keeps_reasons_and_drops_passing_cases(tmp_path):
    path = tmp_path / "expected.txt"
    path.write_text("# a comment\ntest_a  # written by hand\ntest_b  # fixed since\n\ntest_c\n"
                    "test_e  # ValueError: an old run's message\n")
    assert runner.read_expected(path) == {"test_a": "written by hand", "test_b": "fixed since", "test_c": "",
                                          "test_e": "ValueError: an old run's message"}
    runner.write_expected({"test_a": "ValueError: new text", "test_b": None, "test_c": "TypeError: x",
                           "test_e": "OpNotImplemented: the new message",
                           "test_d": "OpNotImplemented: 1 unsupported ONNX op: Foo # bar"}, path)
    assert runner.read_expected(path) == {"test_a": "written by hand", "test_c": "TypeError: x",
                                          "test_e": "OpNotImplemented: the new message",
                                          "test_d": "OpNotImplemented: 1 unsupported ONNX op: Foo  bar"}
    assert path.read_text().startswith("# onnx backend test cases")


def test_a_name_listed_twice_is_an_error(tmp_path):
    path = tmp_path / "expected.txt"
    path.write_text("test_a  # one\ntest_a  # two\n")
    with pytest.raises(ValueError, match="test_a is listed twice"):
        runner.read_expected(path)


def test_model_case_reads_its_data_sets():
    cases = runner.collect_models()
    case = cases["model:simple/test_sign_model"]
    assert (case.rtol, case.atol) == (1e-3, 1e-7)
    (inputs, outputs), = list(case.data_sets)
    assert len(inputs) == 1 and len(outputs) == 1 and inputs[0].shape == outputs[0].shape
    runner.run_case(case)  # Sign passes end to end
