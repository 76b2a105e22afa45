"""Run a test's worker in several threads at once."""
import threading

import numpy as np


def run_threads(work, n):
    """work(0), ..., work(n - 1), each in its own thread, all started before any is joined; returns when all ended.
    work reports its own failures (a list the test asserts on): an exception in a thread is not raised here."""
    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def same_results_in_threads(run, cases, repeats):
    """Each case's run(case, rng) -> (got, ref) made once, then again `repeats` times in a thread of its own while the
    other cases run in theirs (each seeded as its single call was): asserts every threaded got equals the single
    call's exactly, and returns the single calls' (got, ref) for the caller's own check against ref."""
    expected = [run(case, np.random.default_rng(i)) for i, case in enumerate(cases)]
    failures = []

    def worker(i):
        for _ in range(repeats):
            got, _ = run(cases[i], np.random.default_rng(i))
            if not np.array_equal(got, expected[i][0]):
                failures.append(i)

    run_threads(worker, len(cases))
    assert failures == []
    return expected
