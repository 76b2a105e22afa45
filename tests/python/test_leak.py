"""Leaks: many calls return the live C++ object count to its baseline and keep RSS flat.

RSS bounds are generous (20 MB after a warm-up); object counts are exact.
"""
import gc
import os

import numpy as np

import tvmlite
from tvmlite.runtime import Array, Map
from tvmlite.testing import Pair, object_count

from ffi_helpers import add_int, apply, call_n, echo, get_field, nop, raise_

RSS_BOUND = 20 * 1024 * 1024


def rss_bytes():
    try:
        import psutil
    except ImportError:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return psutil.Process().memory_info().rss


def _settle():
    gc.collect()
    gc.collect()


def check_no_leak(body, n, warmup=None):
    """Run body(n) after a warm-up; the object count must come back exactly, RSS must stay within the bound."""
    body(warmup if warmup is not None else max(1, n // 10))
    _settle()
    count0, rss0 = object_count(), rss_bytes()
    body(n)
    _settle()
    count1, rss1 = object_count(), rss_bytes()
    assert count1 == count0, f"{count1 - count0} C++ objects leaked over {n} iterations"
    assert rss1 - rss0 < RSS_BOUND, f"RSS grew by {(rss1 - rss0) / 2**20:.1f} MB over {n} iterations"


def _swallow(f, *args):
    try:
        f(*args)
    except BaseException:  # noqa: B902 - the error path is what is measured
        pass


# ----------------------------------------------------------------------------------------------------------------
# The required volumes: 1e6 object calls, 1e5 callback round trips
# ----------------------------------------------------------------------------------------------------------------

def test_million_object_echo_calls():
    p = Pair(1, "payload")

    def body(n):
        for _ in range(n):
            echo(p)

    check_no_leak(body, 1_000_000, warmup=50_000)
    assert echo(p).same_as(p)


def test_million_calls_passing_and_returning_objects():
    p, q = Pair(1, 2), Array([1, 2, 3])

    def body(n):
        e = echo
        for _ in range(n // 4):
            e(p)
            e(q)
            nop(p, q)
            e(p).first

    check_no_leak(body, 1_000_000, warmup=40_000)


def test_callback_round_trips_with_call_n():
    hits = [0]

    def cb():
        hits[0] += 1

    def body(n):
        call_n(cb, n)

    check_no_leak(body, 100_000)
    assert hits[0] == 110_000


def test_callback_round_trips_with_apply():
    p = Pair(1, 2)
    ident = lambda x: x  # noqa: E731

    def body(n):
        for _ in range(n):
            assert apply(ident, p).same_as(p)

    check_no_leak(body, 100_000)


def test_callbacks_made_per_call():
    # A new Python callable per call: each becomes a Function object that must be freed after the call.
    def body(n):
        for i in range(n):
            apply(lambda x: x + 1, i)

    check_no_leak(body, 100_000)


def test_callbacks_returning_objects():
    def body(n):
        for i in range(n):
            apply(lambda: Pair(i, [i, "x"]))

    check_no_leak(body, 50_000)


# ----------------------------------------------------------------------------------------------------------------
# Object and container construction
# ----------------------------------------------------------------------------------------------------------------

def test_pair_construction():
    def body(n):
        for i in range(n):
            Pair(Pair(i, None), [i, {"k": i}])

    check_no_leak(body, 100_000)


def test_container_conversion_and_access():
    def body(n):
        for i in range(n):
            a = echo([i, "s", [1.5, None], {"k": (i,)}])
            a[3]["k"][0]
            Map({"a": i}).items()
            list(Array([i, i]))

    check_no_leak(body, 50_000)


def test_strings_and_bytes():
    def body(n):
        for _ in range(n):
            echo("with\x00nul")
            echo(b"bytes\x00")
            echo("plain")

    check_no_leak(body, 100_000)


def test_python_defined_objects():
    @tvmlite.register_object("test_leak.Node")
    class Node(tvmlite.Object):
        value: int
        child: object = None

    def body(n):
        for i in range(n):
            node = Node(i, Node(i + 1, [Pair(1, 2)]))
            node.child = Node(0)
            get_field(node, "child")
            echo(node).value

    check_no_leak(body, 50_000)


# ----------------------------------------------------------------------------------------------------------------
# Error paths
# ----------------------------------------------------------------------------------------------------------------

def test_exceptions_in_callbacks():
    def bad():
        raise ValueError("boom")

    def body(n):
        for _ in range(n):
            _swallow(apply, bad)
            _swallow(apply, lambda: apply(bad))

    check_no_leak(body, 50_000)


def test_cpp_errors():
    def body(n):
        for _ in range(n):
            _swallow(raise_, "ValueError", "message")
            _swallow(add_int, 1, "a")
            _swallow(add_int, 1)

    check_no_leak(body, 50_000)


def test_failed_argument_conversion_releases_temporaries():
    p = Pair(1, 2)

    def body(n):
        for _ in range(n):
            _swallow(nop, [1, [p]], {"k": p}, object())  # the list and dict become temporaries first
            _swallow(nop, *([[p]] * 10), {1})  # heap path (> 8 arguments)
            _swallow(echo, [1, 2, {3}])  # fails inside the Array conversion
            _swallow(Pair, [p], object())
            _swallow(apply, lambda: [p, object()])  # failed conversion of a callback's return value

    check_no_leak(body, 30_000)


def test_failed_dyn_object_construction():
    @tvmlite.register_object("test_leak.Typed")
    class Typed(tvmlite.Object):
        a: object
        b: int

    p = Pair(1, 2)

    def body(n):
        for _ in range(n):
            _swallow(Typed, [p, p], "not an int")  # the first value was converted before the second failed

    check_no_leak(body, 50_000)


# ----------------------------------------------------------------------------------------------------------------
# NDArray and DLPack
# ----------------------------------------------------------------------------------------------------------------

def test_numpy_arguments():
    src = np.zeros((16, 16), "float32")

    def body(n):
        for _ in range(n):
            nop(src)
            echo(src[::2, 1::3])

    check_no_leak(body, 50_000)


def test_dlpack_exchange():
    src = np.arange(64, dtype="float64")

    def body(n):
        for _ in range(n):
            x = tvmlite.nd.from_dlpack(src)
            np.from_dlpack(x)
            x.__dlpack__()
            x.__dlpack__(max_version=(1, 0))

    check_no_leak(body, 30_000)


def test_large_arrays_are_freed():
    # 500 x 4 MB: a leak of the data buffers would be 2 GB of RSS, far above the bound.
    def body(n):
        for _ in range(n):
            x = tvmlite.nd.empty((1024, 1024), "float32")
            np.from_dlpack(x)[:] = 1.0
            y = tvmlite.nd.array(np.from_dlpack(x))
            del x, y

    check_no_leak(body, 500, warmup=50)


def test_numpy_buffers_are_released():
    import weakref

    def body(n):
        for _ in range(n):
            a = np.ones(100_000)  # 800 KB each
            ref = weakref.ref(a)
            x = echo(a)
            del a
            assert ref() is not None
            del x
            assert ref() is None

    check_no_leak(body, 2_000, warmup=20)


# ----------------------------------------------------------------------------------------------------------------
# Registry
# ----------------------------------------------------------------------------------------------------------------

def test_global_function_lookups():
    def body(n):
        for _ in range(n):
            tvmlite.get_global_func("testing.echo")
            tvmlite.get_global_func("test_leak.missing", allow_missing=True)
        tvmlite.list_global_func_names()

    check_no_leak(body, 100_000)


def test_register_and_remove_functions():
    def body(n):
        for i in range(n):
            tvmlite.register_func("test_leak.temp", lambda: i, override=True)
            tvmlite.remove_global_func("test_leak.temp")

    check_no_leak(body, 20_000)
