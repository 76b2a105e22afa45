"""Structural equality and hashing (csrc/runtime/structural_equal.cc, structural_hash.cc)."""
import subprocess
import sys

import numpy as np
import pytest

import tvmlite
from tvmlite.runtime import Array, Map, ShapeTuple, assert_structural_equal
from tvmlite.testing import Pair

seq = tvmlite.structural_equal
shash = tvmlite.structural_hash


@tvmlite.register_object("test.structural.Point")
class Point(tvmlite.Object):
    x: int
    y: float = 0.0


@tvmlite.register_object("test.structural.Box")
class Box(tvmlite.Object):
    """A Python-defined type with a field of any type (writable: lets a test build a cycle)."""
    item: object = None


# C++ testing types (structural_equal.cc): a variable and a binder whose `params` is a definition field.
@tvmlite.register_object("testing.Var")
class Var(tvmlite.Object):
    pass


@tvmlite.register_object("testing.Lambda")
class Lambda(tvmlite.Object):
    pass


def var(name, annotation=None):
    return tvmlite.get_global_func("testing.Var")(name, annotation)


def lam(params, body):
    return tvmlite.get_global_func("testing.Lambda")(params, body)


def assert_equal_and_same_hash(a, b, **kw):
    assert seq(a, b, **kw)
    assert seq(b, a, **kw)
    assert shash(a) == shash(b)


def test_plain_values():
    assert_equal_and_same_hash(1, 1)
    assert_equal_and_same_hash(None, None)
    assert_equal_and_same_hash("abc", "abc")
    assert_equal_and_same_hash(b"\x00x", b"\x00x")
    assert_equal_and_same_hash(tvmlite.DataType("float32"), tvmlite.DataType("float32"))
    assert_equal_and_same_hash(tvmlite.cpu(0), tvmlite.cpu(0))
    assert not seq(1, 2)
    assert not seq(1, 1.0)  # different kinds
    assert not seq(True, 1)
    assert not seq("a", "b")
    assert not seq("a", b"a")
    assert not seq(None, 0)
    assert not seq(tvmlite.DataType("float32"), tvmlite.DataType("float16"))
    assert not seq(tvmlite.cpu(0), tvmlite.cpu(1))
    assert shash(1) != shash(2)
    assert shash("a") != shash("b")


def test_floats_by_value():
    assert_equal_and_same_hash(float("nan"), float("nan"))
    assert_equal_and_same_hash(0.0, -0.0)
    assert_equal_and_same_hash(1.5, 1.5)
    assert not seq(1.5, 1.25)
    assert not seq(float("inf"), float("-inf"))


def test_nested_pair_array_map():
    def make(leaf):
        return Pair(1, [2, {"a": Pair("s", leaf), "b": [ShapeTuple((2, 3))]}])

    assert_equal_and_same_hash(make(3.5), make(3.5))
    assert not seq(make(3.5), make(4.5))
    assert shash(make(3.5)) != shash(make(4.5))
    assert not seq(Pair(1, [1, 2]), Pair(1, [1, 2, 3]))
    assert not seq(Pair(1, 2), Array([1, 2]))


def test_map_ignores_order_and_checks_keys():
    assert_equal_and_same_hash(Map({"a": 1, "b": [2]}), Map({"b": [2], "a": 1}))
    assert not seq(Map({"a": 1}), Map({"b": 1}))
    assert not seq(Map({"a": 1}), Map({"a": 2}))
    assert not seq(Map({"a": 1}), Map({"a": 1, "b": 2}))
    # Map keys follow the Map's rule: 1 and 1.0 are the same key, so the maps are equal and hash alike.
    assert_equal_and_same_hash(Map({1: "x"}), Map({1.0: "x"}))


def test_map_object_keys_by_identity():
    k = Pair(0, 0)
    assert_equal_and_same_hash(Map({k: 1}), Map({k: 1}))
    assert not seq(Map({k: 1}), Map({Pair(0, 0): 1}))


def test_shape_tuple():
    assert_equal_and_same_hash(ShapeTuple((1, 2, 3)), ShapeTuple((1, 2, 3)))
    assert not seq(ShapeTuple((1, 2, 3)), ShapeTuple((1, 2)))
    assert not seq(ShapeTuple((1, 2, 3)), ShapeTuple((1, 2, 4)))


def test_ndarray():
    x = np.arange(12, dtype="float32").reshape(3, 4)
    assert_equal_and_same_hash(tvmlite.nd.array(x), tvmlite.nd.array(x.copy()))
    y = x.copy()
    y[2, 3] = -1
    assert not seq(tvmlite.nd.array(x), tvmlite.nd.array(y))
    assert shash(tvmlite.nd.array(x)) != shash(tvmlite.nd.array(y))
    assert not seq(tvmlite.nd.array(x), tvmlite.nd.array(x.reshape(4, 3)))
    assert not seq(tvmlite.nd.array(x), tvmlite.nd.array(x.view("int32")))
    assert_equal_and_same_hash(tvmlite.nd.array(np.zeros((0, 3), "int8")), tvmlite.nd.array(np.zeros((0, 3), "int8")))


def test_empty_ndarrays_hash_and_compare():
    # No bytes to hash or compare: the hash must not memcpy zero bytes from the null data of an empty byte view
    # (undefined behaviour, a UBSan report under tests/sanitize.sh).
    for shape in [(0,), (0, 3), (2, 0, 4)]:
        assert_equal_and_same_hash(tvmlite.nd.empty(shape, "float32"), tvmlite.nd.empty(shape, "float32"))
    assert shash(tvmlite.nd.empty((0,), "float32")) == shash(tvmlite.nd.empty((0,), "float32"))
    assert shash(tvmlite.nd.empty((0,), "float32")) != shash(tvmlite.nd.empty((0,), "int32"))
    assert not seq(tvmlite.nd.empty((0,), "float32"), tvmlite.nd.empty((0, 0), "float32"))
    assert_equal_and_same_hash(Pair(tvmlite.nd.empty((0,), "int8"), 1), Pair(tvmlite.nd.empty((0,), "int8"), 1))


def test_ndarray_strided_view_compares_by_elements():
    base = np.arange(24, dtype="int32").reshape(4, 6)
    view = base[:, ::2]
    assert not view.flags["C_CONTIGUOUS"]
    strided = tvmlite.nd.from_dlpack(view)
    assert strided.strides is not None
    assert_equal_and_same_hash(strided, tvmlite.nd.array(np.ascontiguousarray(view)))


def test_identical_object_short_circuits():
    p = Pair(1, [2, 3])
    assert seq(p, p)
    f = tvmlite.get_global_func("testing.nop")
    assert seq(f, f)


def test_functions_are_opaque():
    f = tvmlite.get_global_func("testing.nop")
    g = tvmlite.get_global_func("testing.echo")
    assert seq(Pair(f, 1), Pair(f, 1))
    assert not seq(Pair(f, 1), Pair(g, 1))
    assert shash(Pair(f, 1)) == shash(Pair(f, 1))


def test_shared_and_copied_subgraphs_are_equal():
    a = Pair(1, [2, 3])
    b = Pair(1, [2, 3])
    assert_equal_and_same_hash(Pair(a, a), Pair(a, b))
    assert_equal_and_same_hash(Pair(a, a), Pair(b, Pair(1, [2, 3])))


def test_dag_is_compared_once_per_pair():
    # 2**80 paths through 81 objects: without memoization neither call would finish.
    def dag(n, leaf="leaf"):
        p = Pair(0, leaf)
        for _ in range(n):
            p = Pair(p, p)
        return p

    a, b = dag(80), dag(80)
    assert_equal_and_same_hash(a, b)
    assert not seq(a, dag(80, leaf="other"))
    assert shash(a) != shash(dag(80, leaf="other"))


def test_deep_chain_does_not_overflow_the_stack():
    def chain(n, last=0):
        p = Pair(last, None)
        for i in range(n):
            p = Pair(i, p)
        return p

    a, b = chain(100000), chain(100000)
    assert_equal_and_same_hash(a, b)
    assert not seq(a, chain(100000, last=1))


def test_python_defined_types():
    assert_equal_and_same_hash(Point(1, 2.5), Point(1, y=2.5))
    assert not seq(Point(1, 2.5), Point(2, 2.5))
    assert not seq(Point(1, 2.5), Point(1, 3.5))
    assert_equal_and_same_hash(Box(Point(1)), Box(Point(1)))
    assert not seq(Box(Point(1)), Box(Point(2)))


def test_cycle_through_writable_field():
    a, b = Box(1), Box(1)
    a.item, b.item = a, b
    try:
        assert seq(a, b)  # a pair met again while being compared is taken as equal
        with pytest.raises(ValueError, match="cycle"):
            shash(a)
    finally:
        a.item = b.item = None  # break the reference cycles


def test_hash_is_stable_across_processes():
    # The child process registers Point under a different type index: the hash must use the type key only.
    code = """
import tvmlite
from tvmlite.testing import Pair

@tvmlite.register_object("test.structural.Other")
class Other(tvmlite.Object):
    a: int

@tvmlite.register_object("test.structural.Point")
class Point(tvmlite.Object):
    x: int
    y: float = 0.0

print(tvmlite.structural_hash(Pair(1, [2.5, "x", {"k": None}, tvmlite.DataType("int8"), Point(3, 4.5)])))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) == shash(Pair(1, [2.5, "x", {"k": None}, tvmlite.DataType("int8"), Point(3, 4.5)]))


def test_bound_variables_compare_by_position():
    x, y = var("x"), var("y")
    # fn(x) { x } == fn(y) { y }, whatever the names
    assert_equal_and_same_hash(lam([x], x), lam([y], y))
    a, b = var("a"), var("b")
    assert_equal_and_same_hash(lam([x, y], Pair(x, y)), lam([a, b], Pair(a, b)))
    # fn(x, y) { x } != fn(a, b) { b }
    assert not seq(lam([x, y], x), lam([a, b], b))
    assert shash(lam([x, y], x)) != shash(lam([a, b], b))
    # a variable's own fields (its annotation) must match to bind
    assert not seq(lam([var("x", "int")], 0), lam([var("y", "float")], 0))


def test_free_variables():
    x, y, z = var("x"), var("y"), var("z")
    assert seq(Pair(x, x), Pair(x, x))
    assert not seq(Pair(x, x), Pair(y, y))
    assert seq(Pair(x, x), Pair(y, y), map_free_vars=True)
    assert shash(Pair(x, x)) == shash(Pair(y, y))
    # the mapping is one-to-one
    assert not seq(Pair(x, x), Pair(y, z), map_free_vars=True)
    assert not seq(Pair(x, z), Pair(y, y), map_free_vars=True)
    # a bound variable never equals a free one
    assert not seq(lam([x], x), lam([y], x))


def test_assert_structural_equal_names_the_path():
    assert_structural_equal(Pair(1, [2, 3]), Pair(1, [2, 3]))
    with pytest.raises(ValueError, match=r"root\.second\[1\]: 3 vs 4"):
        assert_structural_equal(Pair(1, [2, 3]), Pair(1, [2, 4]))
    with pytest.raises(ValueError, match=r"root\.second\['k'\]: type int vs str"):
        assert_structural_equal(Pair(1, {"k": 1}), Pair(1, {"k": "1"}))
    with pytest.raises(ValueError, match="Array sizes differ: 2 vs 3"):
        assert_structural_equal([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=r"root\.x: 1 vs 2"):
        assert_structural_equal(Point(1), Point(2))


def test_device_outside_the_enum_from_a_c_caller_is_read_as_an_int():
    """A C caller may hand over a Device holding any int (Python cannot make one): hashing and comparing read it as
    an int, never as the enum (undefined behaviour, which tests/sanitize.sh's UBSan run would report), and
    save_json refuses it."""
    import ctypes

    from tvmlite._ffi._ctypes import base as c

    def call(name, *values):
        func = ctypes.c_void_p()
        c.check_call(c.LIB.TVMLiteFunctionGetGlobal(name.encode(), ctypes.byref(func)))
        args, out = (c.TVMLiteAny * len(values))(*values), c.TVMLiteAny()
        try:
            c.check_call(c.LIB.TVMLiteFunctionCall(func.value, args, len(values), ctypes.byref(out)))
            return out.v_int64 if out.type_index == c.kTVMLiteInt else bool(out.v_int64)
        finally:
            c.LIB.TVMLiteAnyRelease(ctypes.byref(out))
            c.LIB.TVMLiteObjectDecRef(func.value)

    def device(device_type):
        a = c.TVMLiteAny()
        a.type_index, a.v_device = c.kTVMLiteDevice, c.DLDevice(device_type, 0)
        return a

    assert call("runtime.StructuralHash", device(-5)) != call("runtime.StructuralHash", device(-6))
    assert call("runtime.StructuralEqual", device(-5), device(-5)) is True
    assert call("runtime.StructuralEqual", device(-5), device(1)) is False
    with pytest.raises(ValueError, match="-5 is not a DLPack device type"):
        call("runtime.SaveJSON", device(-5))
