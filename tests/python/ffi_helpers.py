"""What the FFI tests share: the testing.* functions they call (libtvmlite_testing.so), looked up once, and two
helpers.

    from ffi_helpers import apply, echo, fresh
"""
import pytest

import tvmlite
import tvmlite.testing  # noqa: F401  (loads the testing.* functions)
from tvmlite.runtime import Array

echo = tvmlite.get_global_func("testing.echo")
nop = tvmlite.get_global_func("testing.nop")
apply = tvmlite.get_global_func("testing.apply")
call_n = tvmlite.get_global_func("testing.call_n")
add_int = tvmlite.get_global_func("testing.add_int")
concat = tvmlite.get_global_func("testing.concat")
sum_array = tvmlite.get_global_func("testing.sum_array")
get_field = tvmlite.get_global_func("testing.get_field")
make_pair = tvmlite.get_global_func("testing.Pair")
raise_ = tvmlite.get_global_func("testing.raise")
sleep_ms = tvmlite.get_global_func("testing.sleep_ms")


def fresh(obj):
    """A new Python wrapper for obj, materialised from C++ (echo may hand back the argument object itself)."""
    return Array([obj])[0]


def raise_through(apply_fn, err):
    """apply_fn(bad) (a testing.apply of either backend) with a callback bad that raises err: asserts the exception
    that comes out is err itself and returns pytest's ExceptionInfo (its traceback ends in bad)."""
    def bad():
        raise err

    with pytest.raises(type(err)) as info:
        apply_fn(bad)
    assert info.value is err
    return info
