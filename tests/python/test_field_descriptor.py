"""Reflected field descriptors refuse objects that do not have the field (a wrong offset would read foreign
memory): each misuse is a clear error, never a crash."""
import pytest

import tvmlite
from tvmlite._ffi import core
from tvmlite.testing import Pair


def test_descriptor_on_object_of_another_type():
    arr = tvmlite.runtime.convert([1, 2])
    with pytest.raises(TypeError, match="belongs to testing.Pair, not runtime.Array"):
        Pair.first.__get__(arr, None)


def test_descriptor_on_non_tvmlite_object():
    with pytest.raises(TypeError, match="used on object"):
        Pair.first.__get__(object(), None)


def test_descriptor_made_by_hand_has_no_field():
    desc = core.FieldDescriptor.__new__(core.FieldDescriptor)
    with pytest.raises(TypeError):
        desc.__get__(Pair(1, 2), None)


def test_constructor_returning_another_type_is_refused():
    p = Pair.__new__(Pair)
    with pytest.raises(TypeError, match="Pair holds testing.Pair objects; the constructor returned a runtime.Array"):
        p.__init_handle_by_constructor__(tvmlite.get_global_func("runtime.Array"), 1)
    assert p.handle is None  # nothing was adopted
    with pytest.raises(ValueError, match="handle is null"):
        p.first


def test_read_only_field_assignment():
    with pytest.raises(AttributeError, match="read-only"):
        Pair(1, 2).first = 3
