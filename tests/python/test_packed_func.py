"""Packed-function calls: value round trips through testing.echo, typed argument checks, callbacks."""
import pytest

import tvmlite
from tvmlite.testing import Pair

from ffi_helpers import echo, nop, raise_through


@pytest.mark.parametrize("value", [None, True, False, 0, -1, 2**62, 1.5, -0.0, "", "hello", "üñí", b"", b"x\x00y"])
def test_echo_keeps_python_type(value):
    out = echo(value)
    assert type(out) is type(value)
    assert out == value


def test_echo_bool_identity():
    assert echo(True) is True
    assert echo(False) is False


def test_str_with_embedded_nul_round_trips():
    assert echo("a\x00b") == "a\x00b"


def test_int_overflow_is_an_error():
    with pytest.raises(OverflowError, match="testing.echo"):
        echo(2**64)


def test_nop_takes_any_arguments():
    assert nop() is None
    assert nop(1, 2.0, "s", None, [1, 2], {"a": 1}, Pair(1, 2)) is None


def test_object_identity_round_trip():
    p = Pair(1, "a")
    assert echo(p).same_as(p)
    assert isinstance(echo(p), Pair)


def test_list_and_dict_become_containers():
    arr = echo([1, "x", [2.5, None]])
    assert isinstance(arr, tvmlite.runtime.Array)
    assert arr[0] == 1 and arr[1] == "x" and list(arr[2]) == [2.5, None]
    m = echo({"a": 1, 2: "b"})
    assert isinstance(m, tvmlite.runtime.Map)
    assert m["a"] == 1 and m[2] == "b" and len(m) == 2


def test_typed_function_checks_argument_types():
    add = tvmlite.get_global_func("testing.add_int")
    assert add(2, 3) == 5
    with pytest.raises(TypeError, match=r"argument #1 .*testing\.add_int.*Expected `int` but got `str`"):
        add(1, "a")


def test_typed_function_checks_argument_count():
    add = tvmlite.get_global_func("testing.add_int")
    with pytest.raises(TypeError, match="Expected 2 but got 1 arguments"):
        add(1)


def test_python_callback_called_from_cpp():
    apply = tvmlite.get_global_func("testing.apply")
    assert apply(lambda a, b: a * b, 6, 7) == 42


def test_call_n_calls_callback_n_times():
    calls = []
    tvmlite.get_global_func("testing.call_n")(lambda: calls.append(1), 1000)
    assert len(calls) == 1000


def test_exception_in_callback_is_the_same_object():
    class MyError(Exception):
        pass

    info = raise_through(tvmlite.get_global_func("testing.apply"), MyError("boom"))
    assert info.traceback[-1].name == "bad"


@pytest.mark.parametrize("kind,cls", [("ValueError", ValueError), ("TypeError", TypeError),
                                      ("IndexError", IndexError), ("KeyError", KeyError),
                                      ("AttributeError", AttributeError), ("RuntimeError", RuntimeError),
                                      ("NotImplementedError", NotImplementedError),
                                      ("OpNotImplemented", tvmlite.error.OpNotImplemented)])
def test_cpp_error_kind_maps_to_python_class(kind, cls):
    with pytest.raises(cls, match="message here") as info:
        tvmlite.get_global_func("testing.raise")(kind, "message here")
    assert isinstance(info.value, tvmlite.TVMLiteError)


def test_keyword_arguments_are_rejected():
    with pytest.raises(TypeError, match="positional arguments only"):
        nop(x=1)


def test_unsupported_argument_type_names_function_and_index():
    with pytest.raises(TypeError, match=r"testing\.nop: argument #1 has type .*object"):
        nop(1, object())
