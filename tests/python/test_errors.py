"""Errors across the FFI: kinds map to classes, Python exceptions survive C++ frames whole."""
import pickle
import traceback

import numpy as np
import pytest

import tvmlite
from tvmlite.error import OpAttributeInvalid, TVMLiteError, get_error_class, register_error, with_context

from ffi_helpers import apply, call_n, raise_, raise_through


# ----------------------------------------------------------------------------------------------------------------
# C++ error kinds -> Python classes
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind,builtin", [("ValueError", ValueError), ("TypeError", TypeError),
                                          ("IndexError", IndexError), ("KeyError", KeyError),
                                          ("AttributeError", AttributeError), ("RuntimeError", RuntimeError),
                                          ("NotImplementedError", NotImplementedError),
                                          ("OverflowError", OverflowError), ("ZeroDivisionError", ZeroDivisionError),
                                          ("MemoryError", MemoryError)])
def test_cpp_kind_derives_from_tvmlite_error_and_builtin(kind, builtin):
    with pytest.raises(builtin) as info:
        raise_(kind, "the message")
    exc = info.value
    assert isinstance(exc, TVMLiteError)
    assert type(exc).__name__ == kind
    assert type(exc).__module__ == "tvmlite.error"
    assert "the message" in str(exc)


def test_kind_class_is_stable():
    with pytest.raises(ValueError) as first:
        raise_("ValueError", "a")
    with pytest.raises(ValueError) as second:
        raise_("ValueError", "b")
    assert type(first.value) is type(second.value) is get_error_class("ValueError")


def test_unknown_kind_is_a_tvmlite_error():
    with pytest.raises(TVMLiteError, match="custom message") as info:
        raise_("TestErrorsCustomKind", "custom message")
    assert type(info.value).__name__ == "TestErrorsCustomKind"
    assert not isinstance(info.value, (ValueError, TypeError, RuntimeError))


def test_kind_that_is_not_an_identifier():
    with pytest.raises(TVMLiteError, match="odd"):
        raise_("not an identifier!", "odd")


def test_kind_naming_a_non_exception_builtin_is_plain_tvmlite_error():
    with pytest.raises(TVMLiteError) as info:
        raise_("print", "x")
    assert type(info.value).__mro__[1] is TVMLiteError


def test_internal_error_is_runtime_error():
    with pytest.raises(RuntimeError) as info:
        raise_("InternalError", "broken invariant")
    assert type(info.value) is tvmlite.error.InternalError
    assert isinstance(info.value, TVMLiteError)


def test_registered_error_class_is_used():
    @register_error
    class TestErrorsRegistered(TVMLiteError, LookupError):
        pass

    with pytest.raises(TestErrorsRegistered, match="here"):
        raise_("TestErrorsRegistered", "here")


def test_registered_error_under_other_kind():
    class Mine(TVMLiteError):
        pass

    register_error("TestErrorsOtherKind", Mine)
    with pytest.raises(Mine):
        raise_("TestErrorsOtherKind", "m")


def test_register_error_rejects_non_exception():
    with pytest.raises(TypeError):
        register_error("TestErrorsBad", int)


def test_op_error_classes():
    with pytest.raises(tvmlite.error.OpAttributeInvalid) as info:
        raise_("OpAttributeInvalid", "bad attr")
    assert isinstance(info.value, AttributeError)
    assert isinstance(info.value, tvmlite.error.OpError)


def test_cpp_error_carries_location_note():
    with pytest.raises(ValueError) as info:
        raise_("ValueError", "located")
    notes = getattr(info.value, "__notes__", [])
    assert any("testing.cc" in n for n in notes)


def test_message_with_unicode_and_nul_survives():
    with pytest.raises(ValueError) as info:
        raise_("ValueError", "üñí ✓ a\x00b")
    assert str(info.value) == "üñí ✓ a\x00b"


# ----------------------------------------------------------------------------------------------------------------
# Python exceptions through C++ frames
# ----------------------------------------------------------------------------------------------------------------

class CallbackError(Exception):
    pass


def test_exception_nested_through_cpp_twice_is_same_object_with_frames():
    err = CallbackError("deep")

    def innermost():
        raise err

    def middle():
        return apply(innermost)  # second C++ frame

    with pytest.raises(CallbackError) as info:
        apply(middle)  # first C++ frame
    assert info.value is err
    names = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert "middle" in names and "innermost" in names
    assert names.index("middle") < names.index("innermost")
    assert names[-1] == "innermost"


def test_exception_through_cpp_function_applied_by_cpp():
    err = CallbackError("via C++ apply")

    def bad():
        raise err

    with pytest.raises(CallbackError) as info:
        apply(apply, bad)  # C++ calls C++ which calls Python
    assert info.value is err


def test_exception_attributes_and_cause_preserved():
    class Rich(Exception):
        def __init__(self, code):
            super().__init__(code)
            self.code = code

    def bad():
        try:
            {}["missing"]
        except KeyError as cause:
            raise Rich(42) from cause

    with pytest.raises(Rich) as info:
        apply(lambda: apply(bad))
    assert info.value.code == 42
    assert isinstance(info.value.__cause__, KeyError)


def test_cpp_error_raised_inside_callback_keeps_kind():
    def bad():
        raise_("IndexError", "from C++ inside Python inside C++")

    with pytest.raises(IndexError, match="from C\\+\\+ inside") as info:
        apply(lambda: apply(bad))
    assert isinstance(info.value, TVMLiteError)


def test_cpp_error_caught_in_callback_does_not_escape():
    def handled():
        try:
            raise_("ValueError", "x")
        except ValueError:
            return "handled"

    assert apply(handled) == "handled"
    assert apply(lambda: 5) == 5  # no stale pending error


def test_exception_with_unprintable_message():
    class BadStr(Exception):
        def __str__(self):
            raise RuntimeError("cannot format")

    raise_through(apply, BadStr())


def test_error_in_call_n_callback_stops_the_loop():
    calls = []

    def cb():
        calls.append(1)
        if len(calls) == 5:
            raise CallbackError("stop at 5")

    with pytest.raises(CallbackError, match="stop at 5"):
        call_n(cb, 1000)
    assert len(calls) == 5


def test_error_in_first_call_n_iteration():
    calls = []

    def cb():
        calls.append(1)
        raise ValueError("first")

    with pytest.raises(ValueError, match="first"):
        call_n(cb, 10)
    assert calls == [1]


@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_base_exception_in_callback_propagates_as_itself(exc_type):
    info = raise_through(apply, exc_type())
    assert not isinstance(info.value, TVMLiteError)


def test_keyboard_interrupt_stops_call_n():
    calls = []

    def cb():
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call_n(cb, 100)
    assert len(calls) == 3


def test_system_exit_code_preserved():
    def bad():
        raise SystemExit(3)

    with pytest.raises(SystemExit) as info:
        apply(lambda: apply(bad))
    assert info.value.code == 3


def test_errors_do_not_leak_between_calls():
    with pytest.raises(CallbackError):
        apply(lambda: (_ for _ in ()).throw(CallbackError("x")))
    with pytest.raises(ValueError):
        raise_("ValueError", "y")
    assert apply(lambda: "clean") == "clean"
    assert tvmlite.get_global_func("testing.echo")(1) == 1


def test_callback_returning_unsupported_type_is_type_error():
    with pytest.raises(TypeError, match="callback return value"):
        apply(lambda: object())


# ----------------------------------------------------------------------------------------------------------------
# with_context: a message gains context, the class stays
# ----------------------------------------------------------------------------------------------------------------

def _array_memory_error():
    """numpy's allocation failure, as np.empty raises it (its __init__ takes (shape, dtype), not a message)."""
    from numpy._core._exceptions import _ArrayMemoryError

    return _ArrayMemoryError((1 << 60,), np.dtype("float32"))


def test_with_context_rebuilds_a_one_message_class_and_chains_the_original():
    err = ValueError("bad value")
    new = with_context(err, "node 'a' (Add)")
    # a builtin class becomes tvmlite's kind of it: still a ValueError, and a TVMLiteError
    assert type(new) is get_error_class("ValueError") and new.args == ("node 'a' (Add): bad value",)
    assert isinstance(new, ValueError) and isinstance(new, TVMLiteError)
    assert new.__cause__ is err and err.args == ("bad value",)
    op_err = OpAttributeInvalid("attribute 'axis' is 5")
    assert type(with_context(op_err, "node 'a' (ArgMax)")) is OpAttributeInvalid


def test_with_context_keeps_a_class_that_takes_no_single_message():
    err = _array_memory_error()
    new = with_context(err, "node 'big' (Tile)")
    assert isinstance(new, MemoryError) and isinstance(new, type(err)) and isinstance(new, TVMLiteError)
    assert str(new) == "node 'big' (Tile): Unable to allocate 4.00 EiB for an array with shape " \
                       "(1152921504606846976,) and data type float32"
    assert (new.shape, new.dtype, new.args) == (err.shape, err.dtype, err.args)
    assert new.__cause__ is err and not str(err).startswith("node")  # the original is left as it was
    assert type(with_context(_array_memory_error(), "other")) is type(new)  # one class per original class


@pytest.mark.parametrize("err,text", [
    (np.exceptions.AxisError(5, 2), "ctx: axis 5 is out of bounds for array of dimension 2"),
    (KeyError("k"), "ctx: k"),  # unquoted, as the importer always showed a key
    (MemoryError(), "ctx: MemoryError"),  # as Python raises it: no message at all
    (IndexError(), "ctx: IndexError"),
    (StopIteration(3), "ctx: 3"),
])
def test_with_context_classes_that_do_not_rebuild_from_one_message(err, text):
    new = with_context(err, "ctx")
    assert str(new) == text and isinstance(new, type(err)) and new.args == err.args
    if isinstance(err, np.exceptions.AxisError):
        assert (new.axis, new.ndim) == (5, 2)


def test_with_context_nests_and_does_not_repeat_itself():
    inner = with_context(_array_memory_error(), "exp")
    outer = with_context(inner, "loop")
    assert str(outer).startswith("loop: exp: Unable to allocate") and isinstance(outer, MemoryError)
    assert type(outer) is type(inner) and outer.__cause__ is inner
    assert with_context(outer, "loop") is outer
    assert with_context(ValueError("node 'a' (Add): x"), "node 'a' (Add)").args == ("node 'a' (Add): x",)


def test_with_context_copies_notes_and_attributes():
    err = KeyError("k")
    err.add_note("raised at here.cc:1")
    err.ops = ["Gizmo"]
    new = with_context(err, "ctx")
    assert new.__notes__ == ["raised at here.cc:1"] and new.ops == ["Gizmo"]
    assert new.__notes__ is not err.__notes__


def test_with_context_pickles():
    new = with_context(with_context(_array_memory_error(), "exp"), "loop")
    back = pickle.loads(pickle.dumps(new))
    assert type(back) is type(new) and str(back) == str(new) and back.shape == new.shape


def test_with_context_falls_back_to_a_note_when_no_copy_says_the_same():
    err = OSError(2, "No such file", "f.txt")  # a copy made from its args loses the file name: keep err itself
    assert with_context(err, "ctx") is err
    assert err.__notes__ == ["ctx"] and err.filename == "f.txt"


def test_with_context_leaves_non_errors_alone_and_checks_its_arguments():
    stop = KeyboardInterrupt()
    assert with_context(stop, "ctx") is stop and not hasattr(stop, "__notes__")
    with pytest.raises(TypeError, match="^with_context: err must be an exception, got str$"):
        with_context("boom", "ctx")
    with pytest.raises(TypeError, match="^with_context: context must be a str, got int$"):
        with_context(ValueError("x"), 3)


def test_with_context_makes_another_librarys_error_a_tvmlite_error():
    """numpy's LinAlgError (from a reference op) keeps its class and becomes a TVMLiteError too."""
    err = np.linalg.LinAlgError("Singular matrix")
    new = with_context(err, "node 'd' (Det)")
    assert isinstance(new, np.linalg.LinAlgError) and isinstance(new, TVMLiteError)
    assert str(new) == "node 'd' (Det): Singular matrix" and new.__cause__ is err


def test_with_context_of_an_error_that_names_its_op_already():
    """A reference that labels its own message ("gather: ...") is not labelled twice, and still becomes
    tvmlite's kind of its builtin class."""
    new = with_context(IndexError("gather: index 3 is out of range"), "gather")
    assert type(new) is get_error_class("IndexError") and str(new) == "gather: index 3 is out of range"
    op_err = OpAttributeInvalid("gather: bad axis")
    assert with_context(op_err, "gather") is op_err
