"""Containers: Array, Map, ShapeTuple, String and convert()."""
import pytest

import tvmlite
from tvmlite.runtime import Array, Map, ShapeTuple, String, convert
from tvmlite.testing import Pair

echo = tvmlite.get_global_func("testing.echo")
sum_array = tvmlite.get_global_func("testing.sum_array")


# ----------------------------------------------------------------------------------------------------------------
# Array
# ----------------------------------------------------------------------------------------------------------------

def test_array_construction_and_len():
    a = Array([1, "two", 3.0, None, True])
    assert len(a) == 5
    assert list(a) == [1, "two", 3.0, None, True]
    assert type(a[4]) is bool
    assert len(Array()) == 0 and list(Array()) == []
    assert list(Array((1, 2))) == [1, 2]
    assert list(Array(range(3))) == [0, 1, 2]


def test_array_indexing():
    a = Array([10, 20, 30, 40])
    assert a[0] == 10 and a[3] == 40
    assert a[-1] == 40 and a[-4] == 10


@pytest.mark.parametrize("index", [4, 100, -5, -100])
def test_array_index_out_of_range_is_index_error(index):
    a = Array([10, 20, 30, 40])
    with pytest.raises(IndexError):
        a[index]


def test_array_index_on_empty_is_index_error():
    with pytest.raises(IndexError):
        Array()[0]


def test_array_slices():
    a = Array([0, 1, 2, 3, 4, 5])
    assert list(a[1:4]) == [1, 2, 3]
    assert list(a[::2]) == [0, 2, 4]
    assert list(a[::-1]) == [5, 4, 3, 2, 1, 0]
    assert list(a[-2:]) == [4, 5]
    assert list(a[4:100]) == [4, 5]
    assert list(a[3:1]) == []


def test_array_bad_index_type_is_type_error():
    a = Array([1])
    with pytest.raises(TypeError):
        a["0"]
    with pytest.raises(TypeError):
        a[0.0]


def test_array_is_immutable():
    a = Array([1, 2])
    with pytest.raises(TypeError):
        a[0] = 5
    assert a[0] == 1


def test_array_iteration_and_contains():
    a = Array(["x", "y"])
    assert [v for v in a] == ["x", "y"]
    assert "y" in list(a)


def test_array_repr():
    assert repr(Array([1, "a", [2]])) == "[1, 'a', [2]]"


def test_array_of_objects_keeps_identity():
    p = Pair(1, 2)
    a = Array([p, p])
    assert a[0].same_as(p) and a[1].same_as(p)
    assert type(a[0]) is Pair


def test_list_and_tuple_arguments_become_arrays():
    for value in ([1, 2], (1, 2)):
        out = echo(value)
        assert isinstance(out, Array)
        assert list(out) == [1, 2]


def test_array_round_trip_is_same_object():
    a = Array([1])
    assert echo(a).same_as(a)


# ----------------------------------------------------------------------------------------------------------------
# Map
# ----------------------------------------------------------------------------------------------------------------

def test_map_construction_and_lookup():
    m = Map({"a": 1, 2: "b", None: [3], 1.5: None})
    assert len(m) == 4
    assert m["a"] == 1
    assert m[2] == "b"
    assert list(m[None]) == [3]
    assert m[1.5] is None
    assert len(Map()) == 0 and len(Map({})) == 0


def test_map_missing_key_is_key_error():
    m = Map({"a": 1})
    with pytest.raises(KeyError):
        m["b"]
    with pytest.raises(KeyError):
        m[1]
    with pytest.raises(KeyError):
        Map()["a"]


def test_map_items_keys_values_keep_insertion_order():
    m = Map({"z": 1, "a": 2, "m": 3})
    assert m.keys() == ["z", "a", "m"]
    assert m.values() == [1, 2, 3]
    assert m.items() == [("z", 1), ("a", 2), ("m", 3)]
    assert list(m) == ["z", "a", "m"]
    assert dict(m.items()) == {"z": 1, "a": 2, "m": 3}


def test_map_contains_and_get():
    m = Map({"a": 1, "n": None})
    assert "a" in m and "n" in m
    assert "b" not in m
    assert 1 not in m
    assert m.get("a") == 1
    assert m.get("b") is None
    assert m.get("b", 7) == 7
    assert m.get("n", 7) is None  # a stored None is a value, not a miss


def test_map_object_keys_compare_by_identity():
    p = Pair(1, 2)
    m = Map({p: "p"})
    assert m[p] == "p"
    assert m[echo(p)] == "p"
    assert Pair(1, 2) not in m


def test_map_string_with_nul_key():
    m = echo({"a\x00b": 1, "a": 2})
    assert m["a\x00b"] == 1 and m["a"] == 2


def test_map_unsupported_key_type_is_type_error():
    m = Map({"a": 1})
    with pytest.raises(TypeError, match="Map.__getitem__"):
        m[object()]


def test_map_is_immutable():
    m = Map({"a": 1})
    with pytest.raises(TypeError):
        m["a"] = 2
    assert m["a"] == 1


def test_map_repr():
    assert repr(Map({"a": 1, 2: [3]})) == "{'a': 1, 2: [3]}"


def test_dict_argument_becomes_map():
    out = echo({"k": "v"})
    assert isinstance(out, Map)
    assert out["k"] == "v"
    m = Map({"a": 1})
    assert echo(m).same_as(m)


# ----------------------------------------------------------------------------------------------------------------
# Nested containers
# ----------------------------------------------------------------------------------------------------------------

def test_nested_containers():
    value = {"list": [1, [2, [3, {"deep": (4, 5)}]]], "map": {"inner": {"x": None}}}
    out = echo(value)
    assert isinstance(out["list"], Array)
    assert out["list"][0] == 1
    assert out["list"][1][0] == 2
    deep = out["list"][1][1][1]["deep"]
    assert isinstance(deep, Array) and list(deep) == [4, 5]
    assert isinstance(out["map"]["inner"], Map)
    assert out["map"]["inner"]["x"] is None


def test_containers_as_object_fields():
    p = Pair([1, 2], {"a": [3]})
    assert list(p.first) == [1, 2]
    assert list(p.second["a"]) == [3]


# ----------------------------------------------------------------------------------------------------------------
# ShapeTuple
# ----------------------------------------------------------------------------------------------------------------

def test_shape_tuple_construction_and_indexing():
    s = ShapeTuple([2, 3, 4])
    assert len(s) == 3
    assert tuple(s) == (2, 3, 4)
    assert s[0] == 2 and s[-1] == 4 and s[-3] == 2
    assert s[1:] == (3, 4)
    assert s[::-1] == (4, 3, 2)
    assert len(ShapeTuple()) == 0
    assert ShapeTuple((5,))[0] == 5


@pytest.mark.parametrize("index", [3, -4])
def test_shape_tuple_out_of_range_is_index_error(index):
    with pytest.raises(IndexError):
        ShapeTuple([2, 3, 4])[index]


def test_shape_tuple_equality_and_hash():
    s = ShapeTuple([2, 3])
    assert s == (2, 3) and s == [2, 3] and s == ShapeTuple((2, 3))
    assert s != (3, 2)
    assert hash(s) == hash((2, 3))
    assert repr(s) == "ShapeTuple((2, 3))"


def test_shape_tuple_round_trip():
    s = ShapeTuple([7, 8])
    out = echo(s)
    assert isinstance(out, ShapeTuple)
    assert out.same_as(s)
    assert out.type_key == "runtime.ShapeTuple"


def test_shape_tuple_bad_dims():
    with pytest.raises(TypeError):
        ShapeTuple(["a"])
    with pytest.raises(TypeError):
        ShapeTuple([1.5])
    with pytest.raises(OverflowError):
        ShapeTuple([2**63])


# ----------------------------------------------------------------------------------------------------------------
# String
# ----------------------------------------------------------------------------------------------------------------

def test_string_is_a_str():
    s = String("abc")
    assert isinstance(s, str) and s == "abc"
    assert echo(s) == "abc" and type(echo(s)) is str


# ----------------------------------------------------------------------------------------------------------------
# convert()
# ----------------------------------------------------------------------------------------------------------------

def test_convert():
    a = convert([1, (2, 3)])
    assert isinstance(a, Array) and isinstance(a[1], Array)
    assert list(a[1]) == [2, 3]
    m = convert({"a": [1]})
    assert isinstance(m, Map) and isinstance(m["a"], Array)
    assert isinstance(convert(()), Array) and len(convert(())) == 0
    assert isinstance(convert({}), Map)


def test_convert_plain_values_unchanged():
    assert convert(5) == 5 and type(convert(5)) is int
    assert convert(1.5) == 1.5
    assert convert("s") == "s"
    assert convert(None) is None
    assert convert(True) is True


def test_convert_objects_and_functions():
    p = Pair(1, 2)
    assert convert(p).same_as(p)
    a = Array([1])
    assert convert(a).same_as(a)
    f = convert(lambda x: x * 2)
    assert isinstance(f, tvmlite._ffi.core.Function)
    assert f(21) == 42
    assert tvmlite.get_global_func("testing.apply")(f, 4) == 8


def test_convert_unsupported_is_type_error():
    with pytest.raises(TypeError, match="convert"):
        convert(object())
    with pytest.raises(TypeError, match="convert"):
        convert([1, {2, 3}])


# ----------------------------------------------------------------------------------------------------------------
# Typed C++ functions taking Array<int>
# ----------------------------------------------------------------------------------------------------------------

def test_sum_array_accepts_lists_tuples_and_arrays():
    assert sum_array([1, 2, 3]) == 6
    assert sum_array((4, 5)) == 9
    assert sum_array([]) == 0
    assert sum_array(Array([10, -3])) == 7
    assert sum_array([2**62, 2**62 - 1]) == 2**63 - 1


@pytest.mark.parametrize("bad", [[1, "a"], [1, 2.5], [None], [[1]], ["1"], [1, Pair(1, 2)]])
def test_sum_array_rejects_mixed_lists(bad):
    with pytest.raises(TypeError, match=r"testing\.sum_array.*Array<int>"):
        sum_array(bad)


def test_sum_array_rejects_mixed_array_object():
    with pytest.raises(TypeError, match="Array<int>"):
        sum_array(Array([1, "a"]))


@pytest.mark.parametrize("bad", ["123", 5, {"a": 1}, None])
def test_sum_array_rejects_non_arrays(bad):
    with pytest.raises(TypeError, match=r"argument #0.*testing\.sum_array"):
        sum_array(bad)


def test_sum_array_wrong_argument_count():
    with pytest.raises(TypeError, match="Expected 1 but got 0"):
        sum_array()
    with pytest.raises(TypeError, match="Expected 1 but got 2"):
        sum_array([1], [2])
