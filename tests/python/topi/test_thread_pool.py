"""The one thread pool (csrc/runtime/thread_pool.cc) as kernels see it: its size, TVMLITE_NUM_THREADS, concurrent
kernel calls from Python threads (the kernels release the GIL), errors raised inside chunks, and a forked child.
"""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tvmlite

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


def _child(code, env_threads):
    env = dict(os.environ, PYTHONPATH=ROOT)
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

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
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

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
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

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(caught) == 400


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
