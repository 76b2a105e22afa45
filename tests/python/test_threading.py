"""Calls from many Python threads at once; long-running functions release the GIL; registration vs lookups.

No timing assertions: every check is about results or about the order of events.
"""
import gc
import queue
import subprocess
import sys
import textwrap
import threading

import pytest

import tvmlite
from tvmlite.testing import Pair, object_count

from ffi_helpers import add_int, apply, call_n, echo, raise_, sleep_ms

NUM_THREADS = 8


def _run_threads(target, num=NUM_THREADS, timeout=120):
    """Run target(tid) in num threads started together; re-raise the first failure in the main thread."""
    barrier = threading.Barrier(num)
    failures = []
    results = [None] * num

    def body(tid):
        try:
            barrier.wait()
            results[tid] = target(tid)
        except BaseException as exc:  # noqa: B902 - reported below
            failures.append((tid, exc))

    threads = [threading.Thread(target=body, args=(t,), daemon=True) for t in range(num)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "a worker thread hung"
    if failures:
        tid, exc = failures[0]
        raise AssertionError(f"thread {tid} failed ({len(failures)} failures)") from exc
    return results


def test_concurrent_calls_are_correct():
    iterations = 3000

    def work(tid):
        done = 0
        mul = lambda a, b: a * 1000003 + b  # noqa: E731
        for i in range(iterations):
            p = Pair(tid, i)
            back = echo(p)
            assert back.same_as(p)
            assert back.first == tid and back.second == i
            assert add_int(tid, i) == tid + i
            assert echo(f"t{tid}-{i}") == f"t{tid}-{i}"
            assert apply(mul, tid, i) == tid * 1000003 + i
            arr = echo([tid, i, p])
            assert arr[0] == tid and arr[1] == i and arr[2].same_as(p)
            done += 1
        return done

    assert _run_threads(work) == [iterations] * NUM_THREADS


def test_concurrent_callbacks_through_call_n():
    def work(tid):
        seen = []
        call_n(lambda: seen.append(tid), 5000)
        return len(seen), set(seen)

    for count, tids in _run_threads(work):
        assert count == 5000 and len(tids) == 1


def test_nested_callbacks_in_threads():
    def work(tid):
        total = 0
        for i in range(500):
            total += apply(lambda x: apply(lambda y: y + tid, x), i)
        return total

    results = _run_threads(work)
    assert results == [sum(range(500)) + 500 * tid for tid in range(NUM_THREADS)]


def test_errors_stay_with_their_thread():
    class ThreadError(Exception):
        pass

    def work(tid):
        for i in range(1000):
            try:
                raise_("ValueError", f"thread {tid} call {i}")
            except ValueError as exc:
                assert str(exc) == f"thread {tid} call {i}"
            err = ThreadError(tid, i)

            def bad():
                raise err

            try:
                apply(bad)
            except ThreadError as exc:
                assert exc is err
            assert apply(lambda: tid) == tid  # no stale error left behind
        return True

    assert all(_run_threads(work))


def test_dynamic_types_defined_and_used_from_threads():
    def work(tid):
        @tvmlite.register_object(f"test_threading.T{tid}")
        class T(tvmlite.Object):
            v: int
            name: str = ""

        for i in range(300):
            obj = T(i, f"{tid}")
            back = tvmlite.runtime.Array([obj])[0]  # a wrapper materialised from C++
            assert type(back) is T and back.v == i and back.name == str(tid)
            assert tvmlite.get_global_func("testing.get_field")(obj, "v") == i
        return T._tvmlite_type_index

    indices = _run_threads(work)
    assert len(set(indices)) == NUM_THREADS


def test_objects_released_on_another_thread():
    gc.collect()
    baseline = object_count()
    handoff = queue.Queue()

    def producer():
        for i in range(2000):
            handoff.put([Pair(i, [i]), tvmlite.runtime.convert(lambda: i)])
        handoff.put(None)

    def consumer():
        while True:
            item = handoff.get()
            if item is None:
                return
            assert item[0].first == item[0].second[0]
            del item

    threads = [threading.Thread(target=producer), threading.Thread(target=consumer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive()
    gc.collect()
    assert object_count() == baseline


def test_sleep_ms_releases_the_gil():
    # With a huge switch interval the interpreter never takes the GIL away from a thread: the main thread can only
    # run while the sleeper is inside sleep_ms if sleep_ms released the GIL itself. If it did not, the sleeper
    # finishes all of its sleeps before the main thread runs a single bytecode, and never sees its progress.
    # A correct implementation passes as soon as the main thread is scheduled once during ~3 s of sleeping.
    ready = threading.Event()
    progressed = threading.Event()
    seen = {}

    def sleeper():
        ready.set()
        for _ in range(60):  # at most 60 x 50 ms
            sleep_ms(50)
            if progressed.is_set():
                break
        seen["progress_seen_by_sleeper"] = progressed.is_set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=sleeper)
        t.start()
        ready.wait()
        total = 0
        for i in range(10000):  # substantial work in the main thread, including FFI calls
            total = add_int(total, 1)
        progressed.set()
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert total == 10000
    assert seen["progress_seen_by_sleeper"], "the main thread could not run while another thread was in sleep_ms"


def test_callback_runs_on_the_calling_thread():
    flag = []

    def cb():
        flag.append(threading.get_ident())
        return len(flag)

    assert apply(cb) == 1 and flag == [threading.get_ident()]


def test_concurrent_sleep_ms_calls():
    results = _run_threads(lambda tid: (sleep_ms(20), tid)[1])
    assert results == list(range(NUM_THREADS))


def test_registration_while_others_look_up():
    names = [f"test_threading.reg{i}" for i in range(3000)]
    stop = threading.Event()
    readers_started = threading.Semaphore(0)

    def lookup(tid):
        first = True
        iterations = 0
        while not stop.is_set():
            assert tvmlite.get_global_func("testing.echo")(tid) == tid
            for k in (iterations * 7 + tid) % len(names), len(names) - 1 - tid:
                f = tvmlite.get_global_func(names[k], allow_missing=True)
                if f is not None:
                    assert f() == k  # a registered name is always complete and callable
            iterations += 1
            if first:
                readers_started.release()
                first = False
        return iterations

    def register():
        try:
            for _ in range(NUM_THREADS - 1):
                readers_started.acquire()  # every reader is looking up before the first registration
            for i, name in enumerate(names):  # enough names to make the table grow while readers probe it
                tvmlite.register_func(name, lambda i=i: i)
        finally:
            stop.set()
        return len(names)

    def target(tid):
        return register() if tid == NUM_THREADS - 1 else lookup(tid)

    try:
        results = _run_threads(target)
        assert results[-1] == len(names)
        assert all(n >= 1 for n in results[:-1])
        listed = set(tvmlite.list_global_func_names())
        for i, name in enumerate(names):
            assert name in listed
            assert tvmlite.get_global_func(name)() == i
    finally:
        for name in names:
            tvmlite.remove_global_func(name)


def test_list_global_func_names_while_registering():
    names = [f"test_threading.list{i}" for i in range(500)]
    stop = threading.Event()

    def lister(tid):
        count = 0
        while not stop.is_set():
            listed = tvmlite.list_global_func_names()
            assert "testing.echo" in listed
            assert len(listed) == len(set(listed))
            count += 1
        return count

    def register():
        try:
            for name in names:
                tvmlite.register_func(name, lambda: None)
                tvmlite.register_func(name, lambda: 1, override=True)
        finally:
            stop.set()

    try:
        _run_threads(lambda tid: register() if tid == 0 else lister(tid), num=4)
        assert all(tvmlite.get_global_func(n)() == 1 for n in names)
    finally:
        for name in names:
            tvmlite.remove_global_func(name)


@pytest.mark.parametrize("n", [1, 4])
def test_callback_from_non_main_thread_sees_thread_state(n):
    def work(tid):
        return apply(lambda: threading.get_ident())

    idents = _run_threads(work, num=n)
    assert len(set(idents)) == n
    assert threading.get_ident() not in idents


def test_daemon_thread_in_callback_loop_at_exit_does_not_crash():
    code = textwrap.dedent("""
        import threading, time
        import tvmlite
        import tvmlite.testing  # loads the testing.* functions
        call_n = tvmlite.get_global_func("testing.call_n")
        f = tvmlite.runtime.convert(lambda: None)
        started = threading.Event()

        def daemon():
            started.set()
            call_n(f, 10**12)  # still calling back into Python when the interpreter exits

        threading.Thread(target=daemon, daemon=True).start()
        started.wait()
        time.sleep(0.02)
        print("main done")
    """)
    codes = []
    for _ in range(10):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        codes.append(proc.returncode)
        assert "main done" in proc.stdout
    assert codes == [0] * 10, f"exit codes {codes}"
