"""Concurrency stress: 8 threads at once register, override, remove and call global functions, mutate a shared
object's fields, share containers, move NDArrays through DLPack, save/load JSON, hash, define and redeclare types,
and call back from C++ into Python that calls into tvmlite again. Every result is checked, not only survival.

test_threading.py holds the lighter thread tests, one concern at a time; here the concerns run interleaved.
test_stress_type_keys.py races the definition of the same new type keys, with the harness below.

Each workload runs in a child process on the parent's backend (TVMLITE_FFI is inherited): a race that crashes the
interpreter then fails one test with the child's faulthandler traceback, instead of ending the pytest run (and the
TVMLITE_FFI=ctypes re-run of the whole suite in test_ctypes_backend.py with it).
TVMLITE_STRESS_SCALE=N multiplies every iteration count (a soak).
"""
import collections
import contextlib
import gc
import os
import pickle
import re
import signal
import subprocess
import sys
import threading
import types

import numpy as np
import pytest

import tvmlite
from tvmlite._ffi import core
from tvmlite.runtime import Array, Map
from tvmlite.testing import (Pair, add_int, apply, call_n, concat, echo, get_field, object_count, sleep_ms,
                             sum_array)

NUM_THREADS = 8
SCALE = int(os.environ.get("TVMLITE_STRESS_SCALE", "1"))



# ----------------------------------------------------------------------------------------------------------------
# Harness: threads released together under a tiny switch interval; a child process per workload
# ----------------------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def switch_often():
    """Let the interpreter hand the GIL over after almost every bytecode, so check-then-act sequences interleave."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def race(target):
    """Run target(tid) in NUM_THREADS threads released together; one (result, exception) pair per thread."""
    barrier = threading.Barrier(NUM_THREADS)
    outcomes = [None] * NUM_THREADS

    def body(tid):
        barrier.wait()
        try:
            outcomes[tid] = (target(tid), None)
        except Exception as exc:  # noqa: B902 - judged by the caller
            outcomes[tid] = (None, exc)

    threads = [threading.Thread(target=body, args=(tid,), daemon=True) for tid in range(NUM_THREADS)]
    with switch_often():
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    return outcomes


def results(outcomes):
    """The results of a race in which no thread may fail; the first failure is raised with its traceback."""
    for tid, (_, exc) in enumerate(outcomes):
        if exc is not None:
            raise AssertionError(f"thread {tid} failed: {type(exc).__name__}: {exc}") from exc
    return [result for result, _ in outcomes]


def run_in_child(workload):
    """Call workload() (a module-level function of a test file) in a fresh interpreter that imports the same
    tvmlite; a failure or a crash fails the calling test with the child's output."""
    test_file = os.path.abspath(sys.modules[workload.__module__].__file__)
    module = os.path.splitext(os.path.basename(test_file))[0]
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tvmlite.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(test_file), package_root, os.environ.get("PYTHONPATH", "")]))
    call = f"import {module}; {module}.{workload.__name__}()"
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", call], env=env, capture_output=True, text=True,
                          timeout=120 * SCALE)
    rc = proc.returncode
    how = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"
    assert rc == 0, f"{workload.__name__} failed on the {core.BACKEND} backend ({how}):\n" \
                    f"{proc.stdout[-3000:]}\n{proc.stderr[-8000:]}"


# ----------------------------------------------------------------------------------------------------------------
# The mixed workload
# ----------------------------------------------------------------------------------------------------------------

CODE = 1_000_000  # thread t writes t * CODE + i in iteration i: a reader can tell a whole value from a torn one


def _code(tid, i):
    return tid * CODE + i


def _check_code(value, shared, writer=None):
    """value is whole: some thread's (or writer's) code of an iteration that exists."""
    assert type(value) is int, value
    tid, i = divmod(value, CODE)
    assert tid in ([writer] if writer is not None else range(NUM_THREADS)) and 0 <= i < shared.iterations, value


# One int slot per thread (only thread t writes s<t>), plus fields every thread overwrites.
Slots = tvmlite.register_object("stress.Slots")(type("Slots", (tvmlite.Object,), {
    "__annotations__": {**{f"s{t}": int for t in range(NUM_THREADS)}, "text": str, "item": tvmlite.Object},
    **{f"s{t}": -1 for t in range(NUM_THREADS)}, "text": "", "item": None}))


@tvmlite.register_object("stress.Record")
class Record(tvmlite.Object):
    x: int
    name: str
    items: object = None


def _shared_state(iterations):
    """What all threads read (and, for slots, write); expected hashes and JSON computed before the race."""
    pairs = [Pair(k, str(k)) for k in range(16)]
    array, mapping = Array(pairs + [1, "s", 2.5]), Map({f"k{k}": k for k in range(16)})
    nd_values = np.arange(24, dtype="float64").reshape(2, 3, 4)[:, ::2]  # a non-contiguous source
    nd = tvmlite.nd.array(nd_values)
    return types.SimpleNamespace(
        iterations=iterations, slots=Slots(), pairs=pairs, array=array, map=mapping, nd=nd, nd_values=nd_values,
        array_hash=tvmlite.structural_hash(array), array_json=tvmlite.save_json(array),
        map_json=tvmlite.save_json(mapping), nd_hash=tvmlite.structural_hash(nd))


def _own_function(shared, tid, i):
    """Register, call from Python and C++, list, refuse a second registration, remove: a name only tid uses."""
    name = f"stress.own{tid}"
    value = _code(tid, i)
    tvmlite.register_func(name, lambda: value, override=True)
    f = tvmlite.get_global_func(name)
    assert f() == value and apply(f) == value
    assert name in tvmlite.list_global_func_names()
    with pytest.raises(ValueError, match=re.escape(f"'{name}' is already registered")):
        tvmlite.register_func(name, lambda: None)
    tvmlite.remove_global_func(name)
    assert tvmlite.get_global_func(name, allow_missing=True) is None
    assert name not in tvmlite.list_global_func_names()
    assert f() == value  # a Function looked up before the removal keeps its body


def _shared_function(shared, tid, i):
    """Every thread overrides one name, also from inside a C++ -> Python callback: a lookup always finds a whole
    function of some thread's iteration, never a gap."""
    if i % 2:
        tvmlite.register_func("stress.shared", lambda: _code(tid, i), override=True)
    else:
        apply(tvmlite.register_func, "stress.shared", lambda: _code(tid, i), True)
    _check_code(tvmlite.get_global_func("stress.shared")(), shared)
    _check_code(apply(lambda: tvmlite.get_global_func("stress.shared")()), shared)


def _cpp_functions(shared, tid, i):
    assert add_int(tid, i) == tid + i
    assert concat(f"t{tid}", f"-{i}") == f"t{tid}-{i}"
    assert sum_array([tid, i, 3]) == tid + i + 3
    p = Pair(tid, [i])
    assert echo(p).same_as(p) and get_field(p, "first") == tid and list(get_field(p, "second")) == [i]
    sleep_ms(0)  # long-running: releases the GIL, so another thread runs while this one is in C++


def _shared_object_fields(shared, tid, i):
    """All threads write fields of one object: each reads back its own slot exactly, and whole values elsewhere."""
    obj, mine = shared.slots, f"s{tid}"
    if i % 2:
        setattr(obj, mine, _code(tid, i))
    else:  # through C++: the callback gets its own wrapper of the shared object
        apply(setattr, obj, mine, _code(tid, i))
    assert getattr(obj, mine) == _code(tid, i) and get_field(obj, mine) == _code(tid, i)
    with pytest.raises(TypeError):
        setattr(obj, mine, "not an int")
    assert getattr(obj, mine) == _code(tid, i)  # a rejected assignment leaves the field alone
    for t in range(NUM_THREADS):
        value = getattr(obj, f"s{t}")
        if value != -1:  # not written yet
            _check_code(value, shared, writer=t)
    obj.text = f"t{tid}-i{i}"
    assert re.fullmatch(r"t\d-i\d+", obj.text)
    obj.item = Pair(tid, i)
    item = get_field(obj, "item")
    assert type(item) is Pair and item.first in range(NUM_THREADS) and item.second < shared.iterations


def _shared_containers(shared, tid, i):
    arr, m, k = shared.array, shared.map, i % 16
    assert len(arr) == 19 and arr[k].same_as(shared.pairs[k]) and arr[k].second == str(k) and arr[-1] == 2.5
    assert len(m) == 16 and m[f"k{k}"] == k and f"k{tid}" in m and "missing" not in m
    assert echo(arr).same_as(arr) and echo(m).same_as(m)
    outer = Array([arr, m, tid])
    assert outer[0].same_as(arr) and outer[1].same_as(m) and outer[2] == tid
    assert tvmlite.structural_hash(arr) == shared.array_hash
    assert tvmlite.save_json(m) == shared.map_json
    assert tvmlite.structural_equal(tvmlite.load_json(shared.array_json), arr)


def _ndarrays(shared, tid, i):
    src = np.arange(12, dtype="float32").reshape(3, 4) + i
    x = tvmlite.nd.array(src)
    assert x.shape == (3, 4) and x.dtype == "float32"
    view = np.from_dlpack(x)
    np.testing.assert_array_equal(view, src)
    view[1, 2] = -tid - 1
    assert np.from_dlpack(x)[1, 2] == -tid - 1  # the view shares x's memory
    y = tvmlite.nd.from_dlpack(src)
    src[0, 0] = tid + 0.5
    assert np.from_dlpack(y)[0, 0] == tid + 0.5  # y shares src's memory
    assert echo(x).same_as(x)
    np.testing.assert_array_equal(np.from_dlpack(shared.nd), shared.nd_values)
    assert tvmlite.structural_hash(shared.nd) == shared.nd_hash


def _serialization(shared, tid, i):
    rec = Record(_code(tid, i), f"t{tid}", [Pair(tid, i), shared.array])
    text = tvmlite.save_json(rec)
    back = tvmlite.load_json(text)
    assert type(back) is Record and not back.same_as(rec)
    assert (back.x, back.name, back.items[0].second) == (_code(tid, i), f"t{tid}", i)
    assert tvmlite.structural_equal(back, rec) and tvmlite.structural_hash(back) == tvmlite.structural_hash(rec)
    assert tvmlite.save_json(pickle.loads(pickle.dumps(rec))) == text
    snapshot = tvmlite.load_json(tvmlite.save_json(shared.slots))  # of an object other threads are writing
    for t in range(NUM_THREADS):
        value = getattr(snapshot, f"s{t}")
        if value != -1:
            _check_code(value, shared, writer=t)


def _callbacks(shared, tid, i):
    assert apply(lambda a, b: add_int(a, b), tid, i) == tid + i
    seen = []
    call_n(lambda: seen.append(echo(Pair(tid, len(seen)))), 4)
    assert [(p.first, p.second) for p in seen] == [(tid, k) for k in range(4)]
    # Python -> C++ -> Python -> C++ -> Python, resolving a global inside the callback
    assert list(apply(lambda: apply(tvmlite.get_global_func("testing.apply"), lambda: (tid, i)))) == [tid, i]


def _new_types(shared, tid, i):
    """Define fresh types (a new field type and a subclass without fields) while other threads materialise
    objects: registration invalidates the cores' class caches under their feet."""
    @tvmlite.register_object(f"stress.New{tid}_{i}")
    class New(tvmlite.Object):
        v: int
        tag: str = "new"

    @tvmlite.register_object(f"stress.NewSub{tid}_{i}")
    class NewSub(New):
        pass

    for obj, cls, key in ((New(i), New, f"stress.New{tid}_{i}"),
                          (NewSub(i, "sub"), NewSub, f"stress.NewSub{tid}_{i}")):
        back = Array([obj])[0]
        assert type(back) is cls and back.same_as(obj) and back.v == i and back.type_key == key
    assert type(Array([shared.slots])[0]) is Slots and type(echo(shared.pairs[tid])) is Pair


JOBS = (_own_function, _shared_function, _cpp_functions, _shared_object_fields, _shared_containers, _ndarrays,
        _serialization, _callbacks, _new_types)


def mixed_workload():
    """Each thread runs every job in turn, starting at a different one, so at any moment different jobs overlap."""
    iterations = 12 * len(JOBS) * SCALE
    shared = _shared_state(iterations)
    baseline = object_count()

    def work(tid):
        done = collections.Counter()
        for i in range(iterations):
            job = JOBS[(i + tid) % len(JOBS)]
            job(shared, tid, i)
            done[job.__name__] += 1
        return done

    per_job = iterations // len(JOBS)
    assert results(race(work)) == [collections.Counter({job.__name__: per_job for job in JOBS})] * NUM_THREADS
    slot_job = JOBS.index(_shared_object_fields)
    for t in range(NUM_THREADS):  # each slot holds its thread's last write
        last = max(i for i in range(iterations) if (i + t) % len(JOBS) == slot_job)
        assert getattr(shared.slots, f"s{t}") == _code(t, last)
    assert not [n for n in tvmlite.list_global_func_names() if n.startswith("stress.own")]
    tvmlite.remove_global_func("stress.shared")
    shared.slots.item = None
    gc.collect()
    assert object_count() == baseline


# ----------------------------------------------------------------------------------------------------------------
# DLPack export that fails inside numpy, from all threads (issue item 8)
# ----------------------------------------------------------------------------------------------------------------

def dlpack_export_errors():
    def work(tid):
        for _ in range(100 * SCALE):
            with pytest.raises(RuntimeError, match="lanes"):  # numpy has no vector dtypes
                np.from_dlpack(tvmlite.nd.empty((2,), "float32x4"))
            assert np.from_dlpack(tvmlite.nd.empty((2,), "float32")).shape == (2,)

    results(race(work))


def test_mixed_workload():
    run_in_child(mixed_workload)


def test_failing_dlpack_exports_from_threads():
    run_in_child(dlpack_export_errors)
