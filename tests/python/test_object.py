"""Objects: register_object class mapping, Python subclasses, identity, repr, fields, containers, constructors."""
import weakref

import pytest

import tvmlite
from tvmlite._ffi import core
from tvmlite.runtime import Array, Map
from tvmlite.testing import Pair

from ffi_helpers import apply, echo, fresh, get_field


# A Python-defined hierarchy used to check the class mapping of types that have no registered class.
@tvmlite.register_object("test_object.Base")
class Base(tvmlite.Object):
    a: int

    def hello(self):
        return "base says %d" % self.a


@tvmlite.register_object("test_object.Derived")
class Derived(Base):
    b: str = ""

    def hello(self):
        return "derived"


def _make_unregistered(parent_cls, key, fields, values):
    """An object of a type known to the runtime but with no Python class (its key registered, no class)."""
    parent_index = getattr(parent_cls, "_tvmlite_type_index", 64)
    tindex = core._define_object_type(key, parent_index, fields)
    obj = parent_cls.__new__(parent_cls)
    core._dyn_object_init(obj, tindex, tuple(values))
    return obj


# ----------------------------------------------------------------------------------------------------------------
# register_object mapping
# ----------------------------------------------------------------------------------------------------------------

def test_object_from_cpp_is_the_registered_class():
    out = tvmlite.get_global_func("testing.Pair")(1, 2)  # constructed in C++, never seen by Python before
    assert type(out) is Pair
    assert isinstance(out, tvmlite.Object)
    assert out.first == 1 and out.second == 2


def test_object_from_cpp_does_not_run_init(monkeypatch):
    calls = []
    original = Pair.__init__

    def counting_init(self, *args):
        calls.append(args)
        original(self, *args)

    monkeypatch.setattr(Pair, "__init__", counting_init)
    p = Pair(1, 2)
    assert len(calls) == 1
    out = fresh(p)
    assert type(out) is Pair and out is not p
    made = tvmlite.get_global_func("testing.Pair")(3, 4)
    assert type(made) is Pair and made.first == 3
    inside = apply(lambda q: q, p)
    assert inside.same_as(p)
    assert len(calls) == 1  # none of the objects materialised from C++ ran __init__


def test_registered_python_types_map_to_their_own_class():
    d = Derived(1, "x")
    b = Base(2)
    assert type(fresh(d)) is Derived
    assert type(fresh(b)) is Base
    assert fresh(d).hello() == "derived"
    assert fresh(b).hello() == "base says 2"


def test_unregistered_subtype_maps_to_nearest_registered_ancestor():
    obj = _make_unregistered(Derived, "test_object.UnregisteredGrandChild", [("c", "float", 3, False)], (7, "s", 1.5))
    out = fresh(obj)
    assert out.type_key == "test_object.UnregisteredGrandChild"
    assert type(out) is Derived  # nearest registered ancestor, not Base or Object
    assert out.a == 7 and out.b == "s"
    assert out.hello() == "derived"
    assert get_field(out, "c") == 1.5  # the field is there for C++ even though the class does not declare it


def test_unregistered_root_type_maps_to_object():
    obj = _make_unregistered(tvmlite.Object, "test_object.UnregisteredRoot", [("q", "int", 1, False)], (5,))
    out = fresh(obj)
    assert type(out) is tvmlite.Object
    assert out.type_key == "test_object.UnregisteredRoot"
    assert get_field(out, "q") == 5


def test_repr_of_object_materialised_as_ancestor_class():
    obj = fresh(_make_unregistered(Base, "test_object.ReprChild", [("z", "int", 1, False)], (1, 42)))
    assert type(obj) is Base
    text = repr(obj)
    assert "test_object.ReprChild" in text and "42" in text


# ----------------------------------------------------------------------------------------------------------------
# Python subclasses of a registered class
# ----------------------------------------------------------------------------------------------------------------

class MyPair(Pair):
    """Not registered: a Python-only refinement of Pair."""

    def total(self):
        return self.first + self.second

    @property
    def swapped(self):
        return (self.second, self.first)

    def __len__(self):
        return 2


def test_python_subclass_methods_and_properties():
    m = MyPair(3, 4)
    assert isinstance(m, Pair) and isinstance(m, tvmlite.Object)
    assert m.first == 3 and m.second == 4
    assert m.total() == 7
    assert m.swapped == (4, 3)
    assert len(m) == 2
    assert m.type_key == "testing.Pair"


def test_python_subclass_crosses_the_ffi():
    m = MyPair(1, "a")
    out = echo(m)
    assert out.same_as(m)
    assert isinstance(out, Pair)
    assert type(fresh(m)) is Pair  # an unregistered Python subclass materialises as the registered class
    assert get_field(m, "second") == "a"
    assert apply(lambda p: p.total() if isinstance(p, MyPair) else p.first, m) == 1


def test_python_subclass_cannot_assign_reflected_fields():
    m = MyPair(1, 2)
    with pytest.raises(AttributeError):
        m.first = 5
    assert m.first == 1


# ----------------------------------------------------------------------------------------------------------------
# Identity: same_as, ==, hash
# ----------------------------------------------------------------------------------------------------------------

def test_same_as_is_identity_not_structure():
    p = Pair(1, 2)
    q = Pair(1, 2)
    assert p.same_as(p)
    assert p.same_as(echo(p))
    assert not p.same_as(q)
    assert not p.same_as(None)
    assert not p.same_as(1)


def test_eq_and_ne_follow_same_as():
    p = Pair(1, 2)
    assert p == echo(p)
    assert not (p != echo(p))
    assert p != Pair(1, 2)
    assert not (p == Pair(1, 2))
    assert p != "testing.Pair"
    assert not (p == 1)


def test_hash_is_consistent_with_eq():
    p = Pair(1, 2)
    back = fresh(p)
    assert back is not p  # a new wrapper ...
    assert hash(back) == hash(p)  # ... of the same object
    assert len({p, back, echo(back), fresh(back)}) == 1
    assert len({p, Pair(1, 2)}) == 2
    d = {p: "v"}
    assert d[back] == "v"


def test_handle_is_the_object_address():
    p = Pair(1, 2)
    assert isinstance(p.handle, int) and p.handle != 0
    assert echo(p).handle == p.handle
    assert Pair.__new__(Pair).handle is None


def test_objects_support_weakrefs():
    p = Pair(1, 2)
    ref = weakref.ref(p)
    assert ref() is p
    del p
    assert ref() is None


# ----------------------------------------------------------------------------------------------------------------
# repr, fields
# ----------------------------------------------------------------------------------------------------------------

def test_repr_shows_type_key_and_fields():
    text = repr(Pair(1, "a"))
    assert text.startswith("testing.Pair(")
    assert "first=1" in text and "second='a'" in text


def test_repr_of_nested_objects():
    text = repr(Pair(Pair(1, 2), None))
    assert text == "testing.Pair(first=testing.Pair(first=1, second=2), second=None)"


def test_repr_of_null_handle_does_not_raise():
    assert "null" in repr(Pair.__new__(Pair))


def test_field_read_returns_python_values():
    inner = Pair(0, 0)
    p = Pair(inner, [1, "x"])
    assert p.first.same_as(inner)
    assert isinstance(p.second, Array)
    assert list(p.second) == [1, "x"]
    for value in [None, True, 3, -2.5, "s", b"b"]:
        got = Pair(value, value).first
        assert type(got) is type(value) and got == value


def test_field_descriptor_on_class():
    desc = Pair.__dict__["first"]
    assert desc.name == "first"
    assert "first" in repr(desc)
    assert Pair.first is desc


def test_dir_lists_fields():
    names = dir(Pair(1, 2))
    assert "first" in names and "second" in names


def test_read_only_field_assignment_raises_attribute_error():
    p = Pair(1, 2)
    with pytest.raises(AttributeError, match="read-only"):
        p.first = 10
    with pytest.raises(AttributeError):
        p.second = None
    assert p.first == 1 and p.second == 2


def test_deleting_a_field_raises_attribute_error():
    p = Pair(1, 2)
    with pytest.raises(AttributeError):
        del p.first


# ----------------------------------------------------------------------------------------------------------------
# Objects in containers
# ----------------------------------------------------------------------------------------------------------------

def test_objects_in_array_keep_identity_and_class():
    p, q = Pair(1, 2), MyPair(3, 4)
    arr = Array([p, q, p])
    assert isinstance(arr[0], Pair) and isinstance(arr[1], Pair)
    assert arr[0].same_as(p) and arr[1].same_as(q) and arr[2].same_as(p)
    assert arr[0] == arr[2]
    back = echo([p, [q]])
    assert back[0].same_as(p) and back[1][0].same_as(q)


def test_objects_in_map_as_keys_and_values():
    p, q = Pair(1, 2), Pair(1, 2)
    m = Map({p: "p", "q": q})
    assert m[p] == "p"
    assert m["q"].same_as(q)
    assert q not in m  # keys compare by identity
    assert echo(m)[echo(p)] == "p"


def test_objects_in_arrays_stay_alive():
    arr = Array([Pair(i, str(i)) for i in range(10)])
    assert [x.first for x in arr] == list(range(10))
    assert [x.second for x in arr] == [str(i) for i in range(10)]


# ----------------------------------------------------------------------------------------------------------------
# type_key / type_index
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,key", [
    (lambda: Pair(1, 2), "testing.Pair"),
    (lambda: Array([1]), "runtime.Array"),
    (lambda: Map({"a": 1}), "runtime.Map"),
    (lambda: tvmlite.runtime.ShapeTuple([1, 2]), "runtime.ShapeTuple"),
    (lambda: tvmlite.get_global_func("testing.echo"), "runtime.Function"),
    (lambda: tvmlite.nd.empty((2,), "float32"), "runtime.NDArray"),
    (lambda: Derived(1, "x"), "test_object.Derived"),
])
def test_type_key_and_index(make, key):
    obj = make()
    assert obj.type_key == key
    assert obj.type_index == core._type_key_to_index(key)


def test_type_key_of_null_handle_is_a_clear_error():
    with pytest.raises(ValueError, match="null"):
        Pair.__new__(Pair).type_key


def test_unknown_type_key_lookup():
    assert core._type_key_to_index("test_object.NoSuchType", allow_missing=True) is None
    with pytest.raises(KeyError):
        core._type_key_to_index("test_object.NoSuchType")


# ----------------------------------------------------------------------------------------------------------------
# __init_handle_by_constructor__
# ----------------------------------------------------------------------------------------------------------------

def test_init_handle_by_constructor():
    class PairLike(Pair):
        def __init__(self, a):
            self.__init_handle_by_constructor__(tvmlite.get_global_func("testing.Pair"), a, a * 2)

    obj = PairLike(21)
    assert obj.first == 21 and obj.second == 42
    assert obj.type_key == "testing.Pair"
    assert type(obj) is PairLike


def test_init_handle_by_constructor_replaces_previous_handle():
    p = Pair(1, 2)
    old = Pair(1, 2)
    p.__init_handle_by_constructor__(tvmlite.get_global_func("testing.Pair"), 5, 6)
    assert p.first == 5 and not p.same_as(old)


def test_init_handle_by_constructor_rejects_non_function():
    obj = Pair.__new__(Pair)
    with pytest.raises(TypeError, match="must be a Function"):
        obj.__init_handle_by_constructor__(lambda a, b: None, 1, 2)
    assert obj.handle is None


def test_init_handle_by_constructor_requires_an_object_result():
    obj = Pair.__new__(Pair)
    with pytest.raises(TypeError, match="did not return an object"):
        obj.__init_handle_by_constructor__(tvmlite.get_global_func("testing.echo"), 1)
    assert obj.handle is None


def test_init_handle_by_constructor_propagates_constructor_errors():
    obj = Pair.__new__(Pair)
    with pytest.raises(TypeError, match="Expected 2 but got 1"):
        obj.__init_handle_by_constructor__(tvmlite.get_global_func("testing.Pair"), 1)
    assert obj.handle is None


def test_register_object_without_arguments_uses_class_name():
    @tvmlite.register_object
    class TestObjectBareDecorator(tvmlite.Object):
        v: int

    obj = TestObjectBareDecorator(3)
    assert obj.type_key == "TestObjectBareDecorator"
    assert type(fresh(obj)) is TestObjectBareDecorator
