"""The one thread pool (csrc/runtime/thread_pool.cc) as kernels see it: its size, TVMLITE_NUM_THREADS, concurrent
kernel calls from Python threads (the kernels release the GIL), errors raised inside chunks, how a job is cut into
pieces and a stalled worker's pieces move to the caller, a forked child, and its workers' CPU pinning
(TVMLITE_BIND_THREADS).
"""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tvmlite

from thread_helpers import run_threads

set_num_threads = tvmlite.get_global_func("runtime.set_num_threads")
num_threads = tvmlite.get_global_func("runtime.num_threads")
max_concurrency = tvmlite.get_global_func("runtime.max_concurrency")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.fixture(autouse=True)
def default_threads():
    yield
    set_num_threads(0)


def _elemwise(program):
    return tvmlite.get_global_func("topi.elemwise")({"epilogue": program})


def test_set_and_get():
    assert max_concurrency() >= 1
    for n in [1, 2, 3, 7]:
        set_num_threads(n)
        assert num_threads() == n
    set_num_threads(0)
    assert num_threads() == max_concurrency()


@pytest.mark.parametrize("bad", [-1, 1025])
def test_set_bad_value(bad):
    with pytest.raises(ValueError, match=r"runtime.set_num_threads: n must be in \[0, 1024\]"):
        set_num_threads(bad)
    assert num_threads() == max_concurrency()


def test_python_api():
    """tvmlite.runtime.set_num_threads / num_threads / set_flush_denormals, as the README spells them."""
    tvmlite.runtime.set_num_threads(3)
    assert tvmlite.runtime.num_threads() == 3 == num_threads()
    tvmlite.runtime.set_num_threads(0)
    assert tvmlite.runtime.num_threads() == max_concurrency()
    for bad, error in [("2", TypeError), (True, TypeError), (2.0, TypeError), (-1, ValueError)]:
        with pytest.raises(error, match="set_num_threads"):
            tvmlite.runtime.set_num_threads(bad)
    assert tvmlite.runtime.flush_denormals() is False
    try:
        tvmlite.runtime.set_flush_denormals(True)
        assert tvmlite.runtime.flush_denormals() is True
    finally:
        tvmlite.runtime.set_flush_denormals(False)
    with pytest.raises(TypeError, match="set_flush_denormals: on must be a bool"):
        tvmlite.runtime.set_flush_denormals(1)


def _child(code, env_threads, **env_vars):
    env = dict(os.environ, PYTHONPATH=ROOT, **env_vars)
    env.pop("TVMLITE_NUM_THREADS", None)
    if env_threads is not None:
        env["TVMLITE_NUM_THREADS"] = env_threads
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


PRINT_THREADS = ("import tvmlite; f = tvmlite.get_global_func; "
                 "print(f('runtime.num_threads')(), f('runtime.max_concurrency')())")


@pytest.mark.parametrize("value,want", [("1", 1), ("3", 3), (" 3", 3), ("3 ", None), ("0", None), ("-4", None),
                                        ("abc", None), ("2x", None), ("", None), ("99999", None), (None, None)])
def test_env_num_threads(value, want):
    """TVMLITE_NUM_THREADS=n sets the pool's size; anything but an integer in [1, 1024] means the default."""
    n, default = map(int, _child(PRINT_THREADS, value))
    assert n == (want if want is not None else default)


def test_concurrent_calls_from_python_threads(rng):
    """8 Python threads call kernels on big arrays at once: one holds the pool, the others run inline; all correct."""
    set_num_threads(2)
    f = _elemwise("copy r0 in0; mul r0 r0 in1; add r0 r0 1; tanh r0 r0")
    n = 1 << 19
    xs = [rng.standard_normal(n).astype("float32") for _ in range(8)]
    ws = [rng.standard_normal(n).astype("float32") for _ in range(8)]
    errors = []

    def work(k):
        try:
            x, w = tvmlite.nd.array(xs[k]), tvmlite.nd.array(ws[k])
            out = tvmlite.nd.empty((n,), "float32")
            for _ in range(5):
                f(x, w, out)
                np.testing.assert_allclose(out.numpy(), np.tanh(xs[k] * ws[k] + 1), rtol=1e-5, atol=1e-6)
        except BaseException as e:  # noqa: BLE001 - reported below, with the thread's number
            errors.append((k, e))

    run_threads(work, 8)
    assert not errors, errors


def test_set_num_threads_while_others_run(rng):
    """Resizing while other threads run kernels waits for the job in flight and never breaks a result."""
    f = _elemwise("copy r0 in0; exp r0 r0")
    x = rng.standard_normal(1 << 18).astype("float32")
    want = np.exp(x)
    stop = threading.Event()
    errors = []

    def work():
        try:
            a, out = tvmlite.nd.array(x), tvmlite.nd.empty(x.shape, "float32")
            while not stop.is_set():
                f(a, out)
                np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(200):
        set_num_threads(1 + i % 3)
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors


def test_errors_from_threads():
    """A kernel given bad input raises in every thread that calls it, and the pool keeps working after."""
    set_num_threads(2)
    f = _elemwise("copy r0 in0; add r0 r0 in1")
    big = tvmlite.nd.array(np.ones(1 << 18, "float32"))
    bad = tvmlite.nd.array(np.ones(7, "float32"))
    out = tvmlite.nd.empty((1 << 18,), "float32")
    caught = []

    def work():
        for _ in range(20):
            try:
                f(big, bad, out)
            except ValueError as e:
                caught.append(str(e))

    run_threads(lambda _: work(), 8)
    assert len(caught) == 160 and all("does not broadcast" in m for m in caught)
    f(big, big, out)
    np.testing.assert_array_equal(out.numpy(), 2)


def test_exception_inside_a_chunk_propagates():
    """An error thrown by one chunk of a ParallelFor (the caller's or a worker's) reaches the caller."""
    run = tvmlite.get_global_func("testing.parallel_fail")
    set_num_threads(2)
    for fail_at in [0, 999, 500]:
        with pytest.raises(ValueError, match=f"item {fail_at} failed"):
            run(1000, fail_at)
    assert run(1000, -1) == 1000  # and the pool still runs every item after


def test_job_of_int64_max_items_is_cut_without_overflow():
    """Ranges and pieces are n * k / parts: computed without forming n * k (UBSan's signed overflow, found by the
    FFI fuzzer as testing.parallel_fail(2**63 - 1, ...)); every item is run once."""
    run = tvmlite.get_global_func("testing.parallel_fail")
    set_num_threads(2)
    n = 2**63 - 1
    assert run(n, -1) == n
    for fail_at in [0, n // 2, n - 1]:
        with pytest.raises(ValueError, match=f"item {fail_at} failed"):
            run(n, fail_at)


def test_failed_job_keeps_no_error_alive():
    """The pool hands its job's error to the caller and keeps no copy: the error object is freed at once, not when
    the next job starts (the FFI fuzzer's leak check saw an object more after a failed ParallelFor)."""
    from tvmlite.testing import object_count

    run = tvmlite.get_global_func("testing.parallel_fail")
    set_num_threads(2)
    before = object_count()
    for _ in range(3):
        with pytest.raises(ValueError, match="item 3 failed"):
            run(10, 3)
    assert object_count() == before


def test_exception_from_threads_inside_chunks():
    run = tvmlite.get_global_func("testing.parallel_fail")
    set_num_threads(2)
    caught = []

    def work(k):
        for _ in range(50):
            try:
                run(10000, 9999 - k)
            except ValueError as e:
                caught.append(str(e))

    run_threads(work, 8)
    assert len(caught) == 400


def _pieces(n, min_chunk, slow_us=0):
    """ParallelFor's calls as (begin, end, thread) triples in the order they started, thread 0 the caller."""
    import tvmlite.testing  # noqa: F401  (loads the testing.* functions)

    flat = list(tvmlite.get_global_func("testing.parallel_pieces")(n, min_chunk, slow_us))
    return [tuple(flat[i:i + 3]) for i in range(0, len(flat), 3)]


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
@pytest.mark.parametrize("n, min_chunk", [(1, 1), (2, 1), (7, 4), (8, 4), (100, 1), (100, 7), (1000, 1), (1000, 300),
                                          (65536, 16), (12345, 1)])
def test_parallel_for_pieces_partition(n, min_chunk, threads):
    """Every item runs exactly once, on at most `threads` threads; a call has at least min_chunk items unless the
    whole job is smaller than two; each thread's range is cut into at most 8 pieces."""
    set_num_threads(4)  # start four threads, so that the later smaller counts have workers to leave out
    _pieces(1000, 1)
    set_num_threads(threads)
    for _ in range(5):
        calls = _pieces(n, min_chunk)
        covered = np.zeros(n, np.int64)
        for begin, end, _ in calls:
            assert 0 <= begin < end <= n
            covered[begin:end] += 1
        np.testing.assert_array_equal(covered, 1)
        ranges = min(threads, n // min_chunk)
        if ranges < 2:
            assert calls == [(0, n, 0)]
        else:
            assert all(end - begin >= min_chunk for begin, end, _ in calls)
            assert len(calls) <= 8 * ranges
            assert len({thread for _, _, thread in calls}) <= ranges


@pytest.mark.parametrize("args", [(-1, 1, 0), ((1 << 20) + 1, 1, 0), (10, 0, 0), (10, 1, -1), (10, 1, 100001)])
def test_parallel_pieces_bad_arguments(args):
    import tvmlite.testing  # noqa: F401  (loads the testing.* functions)

    with pytest.raises(ValueError, match="testing.parallel_pieces: n in"):
        tvmlite.get_global_func("testing.parallel_pieces")(*args)


def test_parallel_for_caller_takes_a_slow_workers_pieces():
    """A worker that stalls (here: sleeps 20 ms in each piece it runs) holds up the job by the piece it is in only:
    the caller runs its own range, then the stalled worker's remaining pieces from the back."""
    set_num_threads(2)
    for _ in range(3):
        calls = _pieces(64, 1, slow_us=20000)
        by_caller = sum(end - begin for begin, end, thread in calls if thread == 0)
        assert by_caller >= 60, calls  # all but the one piece of 4 items the worker began, if it began one
        assert len([c for c in calls if c[2] != 0]) <= 1, calls


def test_nested_parallel_for_runs_inline():
    run = tvmlite.get_global_func("testing.parallel_nested")
    for n in [1, 2]:
        set_num_threads(n)
        assert run(64, 100) == 6400


def test_first_job_with_fresh_workers():
    """The first ParallelFor of a process starts the workers and publishes the job at once: a worker scheduled only
    after the job was published must still run it (it once waited for the next one, and the caller hung)."""
    code = """
import tvmlite
import tvmlite.testing  # loads the testing.* functions
run = tvmlite.get_global_func('testing.parallel_fail')
for n in range(2, 9):
    tvmlite.get_global_func('runtime.set_num_threads')(n)
    assert run(1000, -1) == 1000
print('ok')
"""
    for _ in range(3):
        assert _child(code, "8") == ["ok"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_fork_child_has_a_working_pool():
    """After fork the child's pool is fresh (the parent's workers do not exist there) and keeps the thread count."""
    code = """
import os, numpy as np, tvmlite
f = tvmlite.get_global_func('topi.elemwise')({'epilogue': 'copy r0 in0; add r0 r0 1'})
tvmlite.get_global_func('runtime.set_num_threads')(2)
x = tvmlite.nd.array(np.zeros(1 << 18, 'float32')); out = tvmlite.nd.empty((1 << 18,), 'float32')
f(x, out)  # the pool and its workers exist before the fork
pid = os.fork()
if pid == 0:
    f(x, out)
    ok = bool((out.numpy() == 1).all()) and tvmlite.get_global_func('runtime.num_threads')() == 2
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""
    assert _child(code, None) == ["0"]


# A child that runs a parallel kernel on n threads, then prints each of its other threads' CPUs (OpenBLAS's threads
# turned off so that only the pool's workers remain), after each step named in `steps`:
#   "run": a parallel call; "move": the calling thread pinned to the CPU the first worker holds, then a call.
PINNING = """
import os, sys, numpy as np, tvmlite
f = tvmlite.get_global_func('topi.elemwise')({'epilogue': 'copy r0 in0; add r0 r0 1'})
tvmlite.get_global_func('runtime.set_num_threads')(int(sys.argv[1]))
x = tvmlite.nd.array(np.zeros(1 << 20, 'float32')); out = tvmlite.nd.empty((1 << 20,), 'float32')
def workers():
    tids = sorted(int(t) for t in os.listdir('/proc/self/task') if int(t) != os.getpid())
    return [sorted(os.sched_getaffinity(t)) for t in tids]
for step in sys.argv[2:]:
    if step == 'move':
        os.sched_setaffinity(0, set(workers()[0]))
    f(x, out)
    assert (out.numpy() == 1).all()
    print(repr(workers()))
print(repr(sorted(os.sched_getaffinity(0))))
"""
CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="pinning is observable only with 2+ CPUs")


def _pinning(threads, *steps, bind=None):
    env = {"OPENBLAS_NUM_THREADS": "1"}
    if bind is not None:
        env["TVMLITE_BIND_THREADS"] = bind
    code = "import sys; sys.argv[1:] = %r\n" % ([str(threads)] + list(steps)) + PINNING
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=ROOT, **env),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [eval(line) for line in out.stdout.splitlines()]  # noqa: S307 - lists of ints printed by the child


@needs_two_cpus
def test_workers_pinned_one_cpu_each():
    """By default the worker runs on one CPU only, the second allowed one (or the first, when the calling thread ran
    on the second at the call); the calling thread stays unpinned."""
    after_run, caller = _pinning(2, "run")
    assert after_run in ([[CPUS[1]]], [[CPUS[0]]])
    assert caller == CPUS


@needs_two_cpus
def test_worker_leaves_the_cpu_the_caller_moved_to():
    """When the calling thread runs on a worker's CPU, the next parallel call moves that worker to the free CPU:
    two threads on one CPU would take turns rather than share the job."""
    after_run, after_move, caller = _pinning(2, "run", "move")
    held = after_run[0][0]
    assert caller == [held]
    assert after_move == [[CPUS[0] if held == CPUS[1] else CPUS[1]]]


@needs_two_cpus
def test_bind_threads_off_and_oversubscribed_leave_placement_to_the_os():
    """TVMLITE_BIND_THREADS=0 pins nothing; nor does a pool with more threads than CPUs (all unpinned again)."""
    assert _pinning(2, "run", bind="0")[0] == [CPUS]
    after_run = _pinning(len(CPUS) + 1, "run")[0]
    assert after_run == [CPUS] * len(CPUS)
