"""The fuzz test: seeded random calls of every registered global function, object constructor, field, container,
NDArray method, structural/JSON/pickle entry point and registration call, with hostile values (fuzz_calls.py).

Batches run in child processes on this run's backend (TVMLITE_FFI is inherited, so test_ctypes_backend.py's re-run
fuzzes the ctypes core too). A crash, hang, bare SystemError, unraisable exception or leaked object fails the test
with the seed and the call, and the command that replays it.

Budget: TVMLITE_FUZZ_CALLS (default 30000 per backend, under the sanitizers too), TVMLITE_FUZZ_SEED (the
first batch's seed), TVMLITE_FUZZ_SECONDS (a soak: batches with new seeds until the time is up).
"""
import pytest

import fuzz_calls
import tvmlite


def test_fuzz_budget():
    calls, seed, seconds, batches = fuzz_calls.budget()
    lines = []
    merged = fuzz_calls.drive(calls, seed, batches, seconds, echo=lines.append)
    report = fuzz_calls.format_report(merged)
    print(report)  # shown with -s, and in the failure below
    assert not merged["findings"], f"the fuzzer found {len(merged['findings'])} problems:\n{report}"
    assert merged["calls"] >= min(calls, 1000) or seconds is not None, report
    # Every global the children had and every type with a constructor was reached: a new registration is fuzzed
    # without being listed anywhere.
    names = merged["globals"]
    assert {"testing.echo", "runtime.Array", "fuzz.py_echo"} <= names, report
    skipped = {n for n, (action, _) in fuzz_calls.POLICY.items() if action[0] == "skip"}
    missed = sorted(names - set(merged["targets"]) - skipped)
    assert not missed, f"globals never called: {missed}\n{report}"
    constructed = {k[len("type "):] for k in merged["targets"] if k.startswith("type ")}
    assert {"testing.Pair", "testing.Var", "testing.Lambda", "runtime.Array", "runtime.Map", "fuzz.Point",
            "fuzz.Node", "fuzz.Child"} <= constructed, report


def test_crash_is_reported_with_seed_and_call():
    rep = fuzz_calls.run_child(seed=5, ncalls=200, crash_at=57)
    assert rep.get("crashed"), rep
    (finding,) = rep["findings"]
    assert "killed by SIGILL" in finding
    assert "seed=5 call=#57 selftest.crash(os.getpid(), signal.SIGILL)" in finding
    assert "--seed 5 --calls 200 --inline" in finding


def test_hang_is_reported_with_seed_and_call():
    rep = fuzz_calls.run_child(seed=6, ncalls=200, hang_at=31, hang=3)
    (finding,) = rep["findings"]
    assert "hung (no new call for 3s)" in finding
    assert "seed=6 call=#31 selftest.hang(3600)" in finding
    assert "in run" in finding  # faulthandler's traceback of the stuck child


@pytest.fixture
def fuzzer():
    fz = fuzz_calls.Fuzzer(seed=0)
    yield fz
    fz.close()


def _bare_system_error():
    raise SystemError("error return without exception set")


def test_bare_system_error_is_a_finding(fuzzer):
    fuzzer.call("bad", _bare_system_error, [])
    (finding,) = fuzzer.findings
    assert "SystemError (C-API misuse)" in finding and "call: bad()" in finding
    # A C++ error of kind "SystemError" is a TVMLiteError, raised on request: not C-API misuse.
    fuzzer.findings.clear()
    raise_ = tvmlite.get_global_func("testing.raise")
    fuzzer.call("testing.raise", raise_, [fuzz_calls.Value("SystemError", "'SystemError'"),
                                          fuzz_calls.Value("m", "'m'")])
    assert fuzzer.findings == []


def test_foreign_base_exception_is_a_finding(fuzzer):
    def exits():
        raise SystemExit(3)

    fuzzer.call("exits", exits, [])
    assert "SystemExit that no callback raised escaped" in fuzzer.findings[0]


def test_unraisable_exception_is_a_finding(fuzzer):
    class Noisy:
        def __del__(self):
            raise RuntimeError("in __del__")

    fuzzer.call("noisy", lambda: Noisy() and None, [])
    assert "unraisable exception: RuntimeError" in fuzzer.findings[0]


def test_same_seed_same_calls():
    """A seed replays the same calls in a fresh process: what makes a reported seed a reproducer."""
    import os
    import subprocess
    import sys

    def trace():
        proc = subprocess.run([sys.executable, fuzz_calls.__file__, "--seed", "3", "--calls", "400", "--inline",
                               "--trace-from", "1"], capture_output=True, text=True, timeout=120,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(fuzz_calls.__file__))))
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return [line for line in proc.stdout.splitlines() if line.startswith("seed=3 call=#")]

    first = trace()
    assert len(first) == 400 and first == trace()
