"""Constructors declared in C++ (refl::init) become the Python class's: cls(*args) is one C call."""
import pytest

import tvmlite
from tvmlite._ffi import core
from tvmlite.testing import Pair


def test_the_cpp_constructor_is_the_class_constructor():
    p = Pair(1, "two")
    assert (p.first, p.second) == (1, "two")
    assert tvmlite.get_global_func("testing.Pair.__init__") is not None
    assert Pair._tvmlite_ctor.same_as(tvmlite.get_global_func("testing.Pair.__init__"))


def test_arguments_are_checked_like_any_call():
    with pytest.raises(TypeError, match="testing.Pair.*Expected 2 but got 1 arguments"):
        Pair(1)
    with pytest.raises(TypeError, match="positional arguments only"):
        Pair(1, second=2)


def test_subclasses_inherit_it_and_can_call_it_through_super():
    class Twice(Pair):
        __slots__ = ()

        def __init__(self, value):
            super().__init__(value, value)

    t = Twice(7)
    assert isinstance(t, Twice) and (t.first, t.second) == (7, 7)

    class Plain(Pair):
        __slots__ = ()

    assert Plain(1, 2).second == 2


def test_install_constructor_refuses_what_cannot_take_one():
    ctor = tvmlite.get_global_func("testing.Pair.__init__")
    with pytest.raises(TypeError, match="must be a subclass of tvmlite.Object"):
        core._install_constructor(int, ctor)
    with pytest.raises(TypeError):
        core._install_constructor(Pair, lambda *a: None)


def test_a_reassigned_init_is_honoured():
    calls = []

    @tvmlite.register_object("testing.Pair")
    class Local(tvmlite.Object):
        __slots__ = ()

    def init(self, a):
        calls.append(a)
        self.__init_handle_by_constructor__(Local._tvmlite_ctor, a, a)

    try:
        Local.__init__ = init  # the class's fast path must give way to the new __init__
        assert Local(5).first == 5 and calls == [5]
    finally:
        tvmlite.register_object("testing.Pair")(Pair)  # objects of the type become Pair again
    assert type(tvmlite.get_global_func("testing.echo")(Pair(1, 2))) is Pair
