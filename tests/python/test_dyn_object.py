"""Object types defined at run time from Python (register_object on a class with annotated fields)."""
import typing

import pytest

import tvmlite
from tvmlite._ffi import core
from tvmlite.runtime import Array, Map
from tvmlite.testing import Pair

from ffi_helpers import apply, echo, fresh, get_field


@tvmlite.register_object("test_dyn.Point")
class Point(tvmlite.Object):
    x: int
    y: float = 0.0

    def norm1(self):
        return abs(self.x) + abs(self.y)

    @property
    def xy(self):
        return (self.x, self.y)


@tvmlite.register_object("test_dyn.Point3")
class Point3(Point):
    z: float = 0.0

    def norm1(self):
        return super().norm1() + abs(self.z)


@tvmlite.register_object("test_dyn.Holder")
class Holder(tvmlite.Object):
    pt: Point
    tag: str = "h"


@tvmlite.register_object("test_dyn.Bag")
class Bag(tvmlite.Object):
    anything: object = None
    flag: bool = False


# ----------------------------------------------------------------------------------------------------------------
# Construction
# ----------------------------------------------------------------------------------------------------------------

def test_positional_construction():
    p = Point(1, 2.5)
    assert p.x == 1 and p.y == 2.5
    assert type(p.x) is int and type(p.y) is float


def test_keyword_construction():
    p = Point(y=2.5, x=3)
    assert (p.x, p.y) == (3, 2.5)
    q = Point(4, y=-1.0)
    assert (q.x, q.y) == (4, -1.0)


def test_defaults():
    p = Point(7)
    assert p.y == 0.0 and type(p.y) is float
    assert Point3(1).z == 0.0 and Point3(1).y == 0.0
    assert Holder(None).tag == "h"


def test_int_for_float_field_is_converted():
    p = Point(1, 2)
    assert p.y == 2.0 and type(p.y) is float


def test_missing_argument_is_type_error():
    with pytest.raises(TypeError, match="missing required argument: 'x'"):
        Point()
    with pytest.raises(TypeError, match="'x'"):
        Point(y=1.0)


def test_extra_positional_argument_is_type_error():
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        Point(1, 2.0, 3.0)


def test_unknown_keyword_is_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=2.0)


def test_duplicate_argument_is_type_error():
    with pytest.raises(TypeError, match="multiple values for 'x'"):
        Point(1, x=2)


@pytest.mark.parametrize("args,field", [(("a",), "x"), ((1.5,), "x"), ((None,), "x"), ((1, "b"), "y"),
                                        ((1, None), "y"), ((1, [1.0]), "y")])
def test_wrong_field_type_is_type_error_naming_the_field(args, field):
    with pytest.raises(TypeError, match=f"`{field}`"):
        Point(*args)


def test_wrong_field_type_error_is_also_a_tvmlite_error():
    with pytest.raises(tvmlite.TVMLiteError, match=r"test_dyn\.Point\(\): field `x` expects int but got str"):
        Point("a")


def test_str_and_bool_fields_are_checked():
    with pytest.raises(TypeError, match="`tag`"):
        Holder(None, 5)
    with pytest.raises(TypeError, match="`flag`"):
        Bag(None, "yes")
    assert Bag(None, True).flag is True


def test_untyped_field_accepts_anything():
    for value in [None, 1, 2.5, "s", b"b", Pair(1, 2), Point(1)]:
        got = Bag(value).anything
        if isinstance(value, tvmlite.Object):
            assert got.same_as(value)
        else:
            assert got == value and type(got) is type(value)
    assert list(Bag([1, "x"]).anything) == [1, "x"]
    assert Bag({"k": 2}).anything["k"] == 2


def test_underscore_annotations_are_not_fields():
    @tvmlite.register_object("test_dyn.Private")
    class Private(tvmlite.Object):
        v: int
        _cache: int = 5

    assert Private._tvmlite_fields == ("v",)
    assert Private(1).v == 1
    with pytest.raises(TypeError):
        Private(1, 2)


def test_classvar_annotation_is_not_a_field():
    @tvmlite.register_object("test_dyn.WithClassVar")
    class WithClassVar(tvmlite.Object):
        v: int
        instances: typing.ClassVar[int] = 0

    assert WithClassVar._tvmlite_fields == ("v",)
    assert WithClassVar.instances == 0


def test_optional_annotation_is_checked():
    @tvmlite.register_object("test_dyn.WithOptional")
    class WithOptional(tvmlite.Object):
        v: typing.Optional[int] = None

    assert WithOptional().v is None
    assert WithOptional(3).v == 3
    with pytest.raises(TypeError, match="`v` expects Optional\\[int\\] but got str"):
        WithOptional("not an int")
    obj = WithOptional(3)
    obj.v = None
    assert obj.v is None
    with pytest.raises(TypeError, match=r"WithOptional.v expects Optional\[int\] but got float"):
        obj.v = 2.5
    assert tvmlite.load_json(tvmlite.save_json(obj)).v is None
    with pytest.raises(TypeError, match=r"expects Optional\[int\] but got str"):
        tvmlite.load_json(tvmlite.save_json(WithOptional(7)).replace("7", '"7"'))


def test_optional_and_plain_fields_are_different_layouts():
    @tvmlite.register_object("test_dyn.MaybeInt")
    class MaybeInt(tvmlite.Object):
        v: typing.Optional[int] = None

    with pytest.raises(ValueError, match="already defined with fields"):
        @tvmlite.register_object("test_dyn.MaybeInt")
        class MaybeInt2(tvmlite.Object):  # noqa: F841 - the registration is what is tested
            v: int = 0


# ----------------------------------------------------------------------------------------------------------------
# Object-typed fields
# ----------------------------------------------------------------------------------------------------------------

def test_object_field_accepts_its_type_subtypes_and_none():
    p = Point(1)
    assert Holder(p).pt.same_as(p)
    p3 = Point3(1, 2.0, 3.0)
    got = Holder(p3).pt
    assert got.same_as(p3) and type(got) is Point3
    assert Holder(None).pt is None


def test_object_field_rejects_other_types():
    with pytest.raises(TypeError, match="`pt` expects test_dyn.Point but got testing.Pair"):
        Holder(Pair(1, 2))
    with pytest.raises(TypeError, match="`pt`"):
        Holder(1)
    with pytest.raises(TypeError, match="`pt`"):
        Holder("p")


@tvmlite.register_object("test_dyn.Node")
class Node(tvmlite.Object):
    value: int
    child: "Node" = None  # a self reference must be written as a string (the name is not bound yet)


def test_self_referential_field_accepts_same_type():
    n = Node(1, Node(2, Node(3)))
    assert n.child.child.value == 3
    assert type(n.child) is Node
    assert n.child.child.child is None


def test_self_referential_field_rejects_other_types():
    with pytest.raises(TypeError, match="`child`"):
        Node(1, Pair(1, 2))


@tvmlite.register_object("test_dyn.StrAnnotated")
class StrAnnotated(tvmlite.Object):
    # What `from __future__ import annotations` produces: every annotation is a string.
    count: "int"
    link: "StrAnnotated" = None


def test_string_annotations_are_still_type_checked():
    assert StrAnnotated(1).count == 1
    with pytest.raises(TypeError, match="`count`"):
        StrAnnotated("x")


# ----------------------------------------------------------------------------------------------------------------
# Inheritance, methods, properties
# ----------------------------------------------------------------------------------------------------------------

def test_inherited_fields_accumulate():
    p = Point3(1, 2.0, 3.0)
    assert (p.x, p.y, p.z) == (1, 2.0, 3.0)
    assert Point3._tvmlite_fields == ("x", "y", "z")
    assert Point3(z=5.0, x=1).xy == (1, 0.0)
    assert isinstance(p, Point) and isinstance(p, tvmlite.Object)
    ancestors = core._type_info(p.type_index)[1]
    assert Point._tvmlite_type_index in ancestors


def test_inherited_fields_are_type_checked():
    with pytest.raises(TypeError, match="`x`"):
        Point3("a", 1.0, 2.0)
    with pytest.raises(TypeError, match="`z`"):
        Point3(1, 1.0, "c")


def test_child_required_field_after_parent_defaults():
    @tvmlite.register_object("test_dyn.Weighted")
    class Weighted(Point):
        w: int

    p = Weighted(1, w=9)
    assert (p.x, p.y, p.w) == (1, 0.0, 9)
    with pytest.raises(TypeError, match="'w'"):
        Weighted(1)


def test_methods_and_properties():
    p = Point(-3, 1.5)
    assert p.norm1() == 4.5
    assert p.xy == (-3, 1.5)
    p3 = Point3(1, -1.0, 2.0)
    assert p3.norm1() == 4.0  # overridden, calling super()


def test_repr_lists_fields_in_order():
    assert repr(Point3(1, 2.0, 3.0)) == "test_dyn.Point3(x=1, y=2.0, z=3.0)"


def test_fields_are_descriptors_on_the_class():
    assert Point.__dict__["x"].name == "x"
    assert "x" in dir(Point(1)) and "y" in dir(Point(1))


# ----------------------------------------------------------------------------------------------------------------
# Crossing the FFI
# ----------------------------------------------------------------------------------------------------------------

def test_echo_returns_same_object_as_its_class():
    p = Point(1, 2.0)
    back = echo(p)
    assert type(back) is Point
    assert back.same_as(p)
    assert back.xy == (1, 2.0)
    assert type(echo(Point3(1))) is Point3
    made = fresh(p)
    assert made is not p and type(made) is Point and made.same_as(p)
    assert type(fresh(Point3(1))) is Point3


def test_in_array_and_map():
    p, q = Point(1), Point3(2)
    arr = echo([p, q])
    assert isinstance(arr, Array)
    assert type(arr[0]) is Point and type(arr[1]) is Point3
    assert arr[0].same_as(p) and arr[1].same_as(q)
    m = echo({"p": p, q: "q"})
    assert isinstance(m, Map)
    assert m["p"].same_as(p) and m[q] == "q"


def test_outlives_its_python_wrapper_inside_a_container():
    arr = Array([Point(i, i / 2) for i in range(5)])
    import gc

    gc.collect()
    assert [p.x for p in arr] == list(range(5))
    assert [p.y for p in arr] == [i / 2 for i in range(5)]


def test_read_from_cpp_by_reflection():
    p = Point3(4, 2.5, -1.0)
    assert get_field(p, "x") == 4
    assert get_field(p, "y") == 2.5
    assert get_field(p, "z") == -1.0
    h = Holder(p, "t")
    assert get_field(h, "pt").same_as(p)
    assert get_field(h, "tag") == "t"
    with pytest.raises(AttributeError, match="no field 'w'"):
        get_field(p, "w")


def test_round_trip_through_python_callback():
    p = Point(1, 2.0)
    out = apply(lambda q: q, p)
    assert type(out) is Point and out.same_as(p)
    assert apply(lambda q: type(q) is Point and q is not p, p)  # the callback sees a wrapper made from C++
    assert apply(lambda q: q.norm1(), p) == 3.0
    made = apply(lambda: Point3(5))
    assert type(made) is Point3 and made.x == 5


def test_as_field_of_cpp_object():
    p = Point(1)
    pair = Pair(p, [p])
    assert pair.first.same_as(p) and type(pair.first) is Point
    assert pair.second[0].same_as(p)


# ----------------------------------------------------------------------------------------------------------------
# Writable fields
# ----------------------------------------------------------------------------------------------------------------

def test_fields_are_writable_and_visible_everywhere():
    p = Point(1)
    alias = echo(p)
    p.x = 10
    p.y = 0.5
    assert alias.x == 10 and alias.y == 0.5
    assert get_field(p, "x") == 10
    q = Point(2)
    h = Holder(p)
    h.pt = q
    assert h.pt.same_as(q)
    h.pt = None
    assert h.pt is None


@pytest.mark.parametrize("field,value", [("x", "str"), ("x", 1.5), ("y", "str"), ("y", None)])
def test_assigning_wrong_type_to_field_is_type_error(field, value):
    p = Point(1, 2.0)
    with pytest.raises(TypeError, match=f"`?{field}`?"):
        setattr(p, field, value)
    assert (p.x, p.y) == (1, 2.0)


def test_assigning_wrong_object_type_to_field_is_type_error():
    h = Holder(Point(1))
    with pytest.raises(TypeError, match="pt"):
        h.pt = Pair(1, 2)


def test_assigning_int_to_float_field():
    p = Point(1)
    p.y = 3.0
    assert p.y == 3.0


# ----------------------------------------------------------------------------------------------------------------
# Type keys and registration errors
# ----------------------------------------------------------------------------------------------------------------

def test_type_key():
    assert Point(1).type_key == "test_dyn.Point"
    assert Point._tvmlite_type_index == core._type_key_to_index("test_dyn.Point")
    assert core._type_info(Point._tvmlite_type_index)[2] == (("x", "int", 1, True), ("y", "float", 3, True))


def test_redefining_key_with_different_fields_is_value_error():
    @tvmlite.register_object("test_dyn.Clash")
    class First(tvmlite.Object):
        a: int

    with pytest.raises(ValueError, match="test_dyn.Clash"):
        @tvmlite.register_object("test_dyn.Clash")
        class Second(tvmlite.Object):
            b: int

    with pytest.raises(ValueError):
        @tvmlite.register_object("test_dyn.Clash")
        class Third(tvmlite.Object):
            a: str

    assert First(1).a == 1  # the original definition still works
    assert type(fresh(First(1))) is First


def test_redefining_key_with_different_parent_is_value_error():
    @tvmlite.register_object("test_dyn.ParentClash")
    class First(tvmlite.Object):
        a: int

    with pytest.raises(ValueError, match="test_dyn.ParentClash"):
        @tvmlite.register_object("test_dyn.ParentClash")
        class Second(Point):
            a: int


def test_redefining_key_with_same_fields_rebinds_the_class():
    # What a module reload does: the same declaration again is accepted and the new class takes over.
    @tvmlite.register_object("test_dyn.Reloaded")
    class Old(tvmlite.Object):
        a: int

    old = Old(1)

    @tvmlite.register_object("test_dyn.Reloaded")
    class New(tvmlite.Object):
        a: int

    assert New._tvmlite_type_index == Old._tvmlite_type_index
    assert type(fresh(old)) is New
    assert New(2).a == 2


def test_subtype_without_own_fields_keeps_its_layout():
    # A key defined with no fields of its own is defined all the same: adding fields later would grow the layout
    # of objects that already exist (reading the new field would run past them).
    @tvmlite.register_object("test_dyn.NoOwnFields")
    class NoOwnFields(Point):
        pass

    existing = NoOwnFields(1, 2.0)

    class Grown(Point):
        z: int = 5

    with pytest.raises(ValueError, match=r"already defined with fields \[\]; cannot redefine it with fields \[z\]"):
        tvmlite.register_object("test_dyn.NoOwnFields")(Grown)

    assert core._type_info(NoOwnFields._tvmlite_type_index)[2] == core._type_info(Point._tvmlite_type_index)[2]
    assert (existing.x, existing.y) == (1, 2.0)
    with pytest.raises(AttributeError, match="no field 'z'"):
        get_field(existing, "z")
    assert Grown.__dict__["z"] == 5  # a refused class is left as it was: its default was not taken over


def test_same_layout_defined_from_many_threads_at_once():
    import sys
    import threading

    errors, made = [], []
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def define(tid):
        try:
            for r in range(25):
                ns = {"__module__": __name__, "__annotations__": {"x": int, "y": float}, "y": 2.5}
                cls = tvmlite.register_object(f"test_dyn.Race{r}")(type(f"Race{r}", (tvmlite.Object,), ns))
                obj = cls(tid)
                made.append((r, cls._tvmlite_type_index, obj.x == tid, obj.y, "y" in cls.__dict__ and
                             not isinstance(cls.__dict__["y"], core.FieldDescriptor)))
        except Exception as e:  # noqa: BLE001 - collected and asserted on below
            errors.append(e)

    threads = [threading.Thread(target=define, args=(t,)) for t in range(8)]
    try:
        [t.start() for t in threads]
        [t.join() for t in threads]
    finally:
        sys.setswitchinterval(old_interval)
    assert errors == []
    assert len(made) == 8 * 25
    for r in range(25):
        rows = [m for m in made if m[0] == r]
        assert len({index for _, index, *_ in rows}) == 1  # one type per key
        assert all(ok and y == 2.5 and not shadowed for _, _, ok, y, shadowed in rows)


def test_unknown_key_without_fields_is_value_error():
    with pytest.raises(ValueError, match="test_dyn.NoFields"):
        @tvmlite.register_object("test_dyn.NoFields")
        class NoFields(tvmlite.Object):
            def method(self):
                return 1
    assert core._type_key_to_index("test_dyn.NoFields", allow_missing=True) is None


def test_non_object_class_is_type_error():
    with pytest.raises(TypeError, match="subclass of tvmlite.Object"):
        @tvmlite.register_object("test_dyn.NotAnObject")
        class NotAnObject:
            x: int
    with pytest.raises(TypeError):
        tvmlite.register_object("test_dyn.NotAClass")(lambda: None)
    assert core._type_key_to_index("test_dyn.NotAnObject", allow_missing=True) is None


def test_fields_on_subclass_of_cpp_type_is_type_error():
    with pytest.raises(TypeError):
        @tvmlite.register_object("test_dyn.SubPair")
        class SubPair(Pair):
            z: int


def test_fields_on_existing_cpp_key_is_value_error():
    try:
        with pytest.raises(ValueError, match="testing.Pair"):
            @tvmlite.register_object("testing.Pair")
            class Impostor(tvmlite.Object):
                z: int
    finally:
        tvmlite.register_object("testing.Pair")(Pair)  # restore the mapping for other tests
        assert type(fresh(Pair(1, 2))) is Pair


@pytest.mark.parametrize("name", ["same_as", "type_key", "handle", "type_index"])
def test_field_name_colliding_with_object_api_is_value_error(name):
    with pytest.raises(ValueError, match=name):
        tvmlite.register_object(f"test_dyn.Collide_{name}")(
            type(f"Collide_{name}", (tvmlite.Object,), {"__annotations__": {name: int}}))


def test_redeclaring_a_parent_field_is_value_error():
    with pytest.raises(ValueError, match="field 'x' is already declared by 'test_dyn.Point'"):
        @tvmlite.register_object("test_dyn.RedeclaresX")
        class RedeclaresX(Point):
            x: float
