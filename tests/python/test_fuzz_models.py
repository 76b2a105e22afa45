"""The model fuzz test: hostile ONNX models, serialized bytes and exported files through from_onnx, both build targets,
the executors and load_module (fuzz_models.py), each case in a worker process with a timeout and a memory cap.

A crash, a hang that SIGINT cannot end, a raw exception (not a tvmlite.TVMLiteError), a file opened outside the
allowed directory, a foreign global called as a kernel factory, or a model that onnx's checker and onnxruntime reject
as invalid while tvmlite runs it fails the test with the seed, the case and its one-line replay.

Seeds: every run fuzzes two fixed seeds (the same cases each run: a failure there is a regression anyone can rerun, and
a red CI means the change broke something, not that the dice found an old bug). TVMLITE_FUZZ_FRESH=1 swaps the second
for one derived from the time (new cases each run, printed with every finding and in the summary).
TVMLITE_FUZZ_SEED=S runs all the cases on S alone (a fully repeatable run); TVMLITE_FUZZ_SECONDS=N soaks for N seconds
over successive seeds, every case checked against onnxruntime; TVMLITE_SANITIZE_RUN=1 (tests/sanitize.sh) runs fewer
cases and no memory cap (AddressSanitizer reserves terabytes of address space).
"""
import os
import time

import pytest

pytest.importorskip("onnx")  # the cases are onnx models (conftest.py makes a skip of an oracle fail in CI)

import fuzz_models  # noqa: E402

CASES = 10000  # in all (half per seed when there are two): 60-120 s of wall time on a 2-core machine
SANITIZE_CASES = 1000


def _plan():
    """([seeds], cases per seed, soak seconds or None, memory cap in GB)."""
    env_seed, seconds = fuzz_models.budget()
    sanitize = fuzz_models.sanitized()
    cases = SANITIZE_CASES if sanitize else CASES
    if "TVMLITE_FUZZ_SEED" in os.environ:
        seeds = [env_seed]
    else:
        fresh = os.environ.get("TVMLITE_FUZZ_FRESH") == "1"
        seeds = [fuzz_models.DEFAULT_SEED, int(time.time()) % 1000000007 if fresh else fuzz_models.DEFAULT_SEED + 1]
        cases //= 2 if seconds is None else 1
    return seeds, cases, seconds, 0 if sanitize else 4


def test_fuzz_models_budget():
    seeds, cases, seconds, mem_gb = _plan()
    print(f"fuzz_models: seeds {seeds}, {cases} cases each" + (f", soak {seconds}s" if seconds else ""))
    report = fuzz_models.drive(seeds, cases, seconds=seconds, jobs=2, mem_gb=mem_gb,
                               ort_fraction=1.0 if seconds else 0.25, echo=print)
    text = fuzz_models.format_report(report)
    print(text)  # shown with -s, and in the failure below
    assert not report["findings"], f"the model fuzzer found {len(report['findings'])} problems:\n{text}"
    assert seconds is not None or report["cases"] + len(report["slow"]) == len(seeds) * cases, text
    assert {g for g, _ in fuzz_models.GENERATORS} <= set(report["gens"]), text


# The harness itself: each stand-in case behaves like one kind of finding (fuzz_models.selftest_case).

def _selftest(kind, **kw):
    return fuzz_models.drive(11, 1, first=7, jobs=1, mem_gb=0, selftest=kind, echo=lambda *a: None, **kw)


def test_crash_is_reported_with_seed_case_and_replay():
    report = _selftest("crash")
    (f,) = report["findings"]
    assert (f["kind"], f["seed"], f["case"]) == ("crash", 11, 7)
    assert f["message"] == "the child was killed by SIGSEGV in stage 'selftest crash'"
    assert f["replay"] == "python tests/python/fuzz_models.py --seed 11 --case 7 --inline"
    assert "Fatal Python error: Segmentation fault" in f["detail"]  # faulthandler's traceback of the child


def test_slow_case_that_sigint_ends_is_not_a_finding():
    report = _selftest("slow", timeout=1, grace=20)
    assert report["findings"] == []
    assert report["slow"] == [{"seed": 11, "case": 7, "stage": "selftest slow"}]


def test_hang_that_sigint_cannot_end_is_a_finding():
    report = _selftest("hang", timeout=1, grace=1)
    (f,) = report["findings"]
    assert f["kind"] == "hang Ctrl-C cannot end"
    assert f["message"] == "still in stage 'selftest hang' 1s after SIGINT (sent at the 1s timeout)"
    assert "in hang" in f["detail"]  # faulthandler's traceback: where it is stuck


def test_open_near_the_case_is_a_finding():
    (f,) = _selftest("open")["findings"]
    assert (f["kind"], f["message"]) == ("file opened outside the allowed directory", "opened canary.bin")


def test_external_data_read_near_the_case_is_a_finding():
    """onnx opens external data natively and reads it through open(fd): the hook resolves the fd's path."""
    opened = [f for f in _selftest("external")["findings"] if f["kind"] == "file opened outside the allowed directory"]
    assert len(opened) == 1 and opened[0]["message"].startswith("opened /"), opened
    assert opened[0]["message"].endswith("/case7/cwd/canary.bin"), opened


def test_raw_exception_is_a_finding():
    (f,) = _selftest("raw")["findings"]
    assert (f["kind"], f["exc"], f["message"]) == ("raw exception", "KeyError", "'missing'")
    assert f["where"].startswith("fuzz_models.py:") and f["where"].endswith(" in raw")


def test_exception_contract():
    import tvmlite
    from tvmlite.error import OpAttributeInvalid

    judge = fuzz_models.exception_finding
    assert judge(OpAttributeInvalid("x")) is None  # an AttributeError, and a TVMLiteError: fine
    assert judge(tvmlite.error.get_error_class("IndexError")("x")) is None
    assert judge(MemoryError()) is None
    assert judge(FileNotFoundError(2, "no such file", "/nonexistent/fuzz")) is None
    assert judge(FileNotFoundError(2, "no such file", os.__file__)) == "raw exception"  # it exists
    for exc in (IndexError(), KeyError(), ValueError(), TypeError(), RecursionError(), BufferError(),
                ZeroDivisionError(), AssertionError(), RuntimeError()):
        assert judge(exc) == "raw exception", exc


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4, 5, 6, 7])
def test_case_is_a_function_of_seed_and_index(index, tmp_path):
    """A (seed, case) pair makes the same case in any process: what makes a replay line a reproducer."""
    def make():
        case = fuzz_models.make_case(fuzz_models.DEFAULT_SEED, index, str(tmp_path))
        body = case.get("file") or case.get("model_bytes") or case["model"].SerializeToString()
        return case["gen"], case["origin"], case["what"], body, sorted(case["inputs"])

    assert make() == make()
