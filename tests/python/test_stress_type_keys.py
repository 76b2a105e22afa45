"""Type keys declared from 8 threads at once (issue item 7): identical declarations of a new key all succeed and
share one type, a class never ends up without its __init__ or with a class default hiding a field, and of two
conflicting layouts one wins whole while every declaration of the other is a ValueError. Every thread uses its class
right away (construction, fields, materialisation from C++, JSON), while the others are still declaring. An
existing type redeclared from threads never hands out an incomplete class.

The harness (threads released together, switch interval 1e-6, one child process per workload) is
test_stress_threads.py's.
"""
import threading

import tvmlite
from tvmlite._ffi import core
from tvmlite.runtime import Array

from test_stress_threads import NUM_THREADS, SCALE, race, results, run_in_child

TYPE_KEYS = 200 * SCALE  # new keys per workload; today about one in ten races wrongly, on either backend
REDECLARE_RACES = 40 * SCALE  # today about one race in two hands out an incomplete class


@tvmlite.register_object("stress.Declared")
class Declared(tvmlite.Object):  # what every thread declares below, defined once without a race
    x: int
    y: str = "default"
    z: float = 0.5


@tvmlite.register_object("stress.Base")
class Base(tvmlite.Object):
    b: int = 0


def _declare_together(prefix, declare):
    """All threads declare the same TYPE_KEYS new keys in turn with declare(key, tid), meeting at a barrier before
    each key. Returns {key: [(result, exception) of each thread]}."""
    keys = [f"{prefix}{k}" for k in range(TYPE_KEYS)]
    at_key = threading.Barrier(NUM_THREADS, timeout=60)

    def work(tid):
        outcomes = []
        for key in keys:
            at_key.wait()
            try:
                outcomes.append((declare(key, tid), None))
            except Exception as exc:  # noqa: B902 - judged by the caller
                outcomes.append((None, exc))
        return outcomes

    per_thread = results(race(work))
    return {key: [outcomes[k] for outcomes in per_thread] for k, key in enumerate(keys)}


def same_key_with_fields():
    def declare(key, tid):
        @tvmlite.register_object(key)
        class K(tvmlite.Object):
            x: int
            y: str = "default"
            z: float = 0.5

        made = K(tid, y=f"t{tid}")
        assert made.handle is not None, f"{key}: a class left without its __init__ built a null object"
        assert made.type_key == key
        assert (made.x, made.y, made.z) == (tid, f"t{tid}", 0.5)  # a class default shadowing y reads "default"
        assert K(tid).y == "default"
        back = Array([made])[0]
        assert back.same_as(made) and back.type_key == key and back.y == f"t{tid}"
        assert tvmlite.load_json(tvmlite.save_json(made)).y == f"t{tid}"
        return K

    for key, outcomes in _declare_together("stress.WithFields", declare).items():
        classes = results(outcomes)
        (tindex,) = {K._tvmlite_type_index for K in classes}
        assert core._type_info(tindex)[2] == core._type_info(Declared._tvmlite_type_index)[2]
        assert type(Array([classes[0](1)])[0]) in classes


def same_key_without_fields():
    def declare(key, tid):
        @tvmlite.register_object(key)
        class Sub(Base):
            pass

        made = Sub(b=tid)
        assert made.type_key == key, f"{key}: the class kept Base's __init__ and built a {made.type_key}"
        assert made.b == tid and isinstance(Array([made])[0], Base)
        return Sub

    for key, outcomes in _declare_together("stress.NoOwnFields", declare).items():
        (tindex,) = {Sub._tvmlite_type_index for Sub in results(outcomes)}
        key_, ancestors, fields = core._type_info(tindex)
        assert key_ == key and ancestors[-1] == Base._tvmlite_type_index
        assert fields == core._type_info(Base._tvmlite_type_index)[2]


def conflicting_layouts():
    """Half the threads declare one layout, half another: one layout wins whole, every other declaration is a
    ValueError naming the key."""
    def declare(key, tid):
        if tid % 2:
            @tvmlite.register_object(key)
            class A(tvmlite.Object):
                a: int
                a2: int = 2

            assert (A(tid).a, A(tid).a2) == (tid, 2)
            return "a"

        @tvmlite.register_object(key)
        class B(tvmlite.Object):
            b: str = "b"

        assert B(str(tid)).b == str(tid)
        return "b"

    for key, outcomes in _declare_together("stress.Clash", declare).items():
        seen = [layout or f"{type(exc).__name__}: {exc}" for layout, exc in outcomes]
        winners = {layout for layout, exc in outcomes if exc is None}
        assert len(winners) == 1 and seen.count(next(iter(winners))) == NUM_THREADS // 2, seen
        assert all(isinstance(exc, ValueError) and key in str(exc) for _, exc in outcomes if exc is not None), seen
        fields = [name for name, *_ in core._type_info(core._type_key_to_index(key))[2]]
        assert fields == (["a", "a2"] if winners == {"a"} else ["b"]), (key, fields, seen)


@tvmlite.register_object("stress.Redeclared")
class Redeclared(tvmlite.Object):
    v: int
    w: str = "w"


def redeclared_type():
    """An existing type's declaration run again (a notebook cell run twice, a module reload) from half the threads
    while the other half materialise an object of that type from C++: the type stays the same, and whatever class
    the object comes back as is complete. Many short races: whether a race's thread switches fall inside
    register_object varies from race to race far more than within one."""
    tindex = Redeclared._tvmlite_type_index
    shared = Redeclared(7, "seven")

    def declare(tid, declarers_done):
        try:
            for _ in range(10):
                @tvmlite.register_object("stress.Redeclared")
                class Again(tvmlite.Object):
                    v: int
                    w: str = "w"

                assert Again._tvmlite_type_index == tindex
            made = Again(tid, w=f"t{tid}")
            assert (made.v, made.w, Again(tid).w) == (tid, f"t{tid}", "w")
            assert (Redeclared(tid).v, Redeclared(tid).w) == (tid, "w")  # the first class still constructs
        finally:
            declarers_done.append(tid)

    def materialise(declarers_done):
        reads = 0
        while len(declarers_done) < NUM_THREADS // 2 or reads == 0:
            back = Array([shared])[0]
            cls = type(back)
            assert cls._tvmlite_type_index == tindex, f"{cls.__qualname__} with _tvmlite_type_index " \
                                                      f"{cls._tvmlite_type_index}, not {tindex}"
            assert back.same_as(shared) and (back.v, back.w) == (7, "seven") and cls(1).w == "w"
            reads += 1

    for _ in range(REDECLARE_RACES):
        declarers_done = []
        results(race(lambda tid: declare(tid, declarers_done) if tid % 2 else materialise(declarers_done)))


def test_same_type_key_with_fields_from_threads():
    run_in_child(same_key_with_fields)


def test_same_type_key_without_own_fields_from_threads():
    run_in_child(same_key_without_fields)


def test_conflicting_type_key_layouts_from_threads():
    run_in_child(conflicting_layouts)


def test_redeclared_type_materialises_as_a_complete_class():
    run_in_child(redeclared_type)
