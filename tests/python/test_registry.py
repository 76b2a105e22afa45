"""The global function registry: register_func, get_global_func, list/remove, _init_api."""
import gc
import sys
import types
import weakref

import pytest

import tvmlite
from tvmlite._ffi.registry import _init_api

apply = tvmlite.get_global_func("testing.apply")
call_n = tvmlite.get_global_func("testing.call_n")


@pytest.fixture
def cleanup():
    """Names registered by a test, removed afterwards so tests stay independent."""
    names = []
    yield names
    for name in names:
        tvmlite.remove_global_func(name)


# ----------------------------------------------------------------------------------------------------------------
# register_func
# ----------------------------------------------------------------------------------------------------------------

def test_register_func_direct_call(cleanup):
    cleanup.append("test_registry.direct")
    f = lambda x: x + 1  # noqa: E731
    assert tvmlite.register_func("test_registry.direct", f) is f
    assert tvmlite.get_global_func("test_registry.direct")(1) == 2


def test_register_func_decorator_with_name(cleanup):
    cleanup.append("test_registry.decorated")

    @tvmlite.register_func("test_registry.decorated")
    def triple(x):
        return x * 3

    assert triple(2) == 6  # the decorator returns the Python function itself
    assert tvmlite.get_global_func("test_registry.decorated")(2) == 6


def test_register_func_bare_decorator_uses_function_name(cleanup):
    cleanup.append("test_registry_bare_name")

    @tvmlite.register_func
    def test_registry_bare_name(x):
        return -x

    assert test_registry_bare_name(3) == -3
    assert tvmlite.get_global_func("test_registry_bare_name")(3) == -3


def test_register_func_decorator_with_override(cleanup):
    cleanup.append("test_registry.dec_override")
    tvmlite.register_func("test_registry.dec_override", lambda: 1)

    @tvmlite.register_func("test_registry.dec_override", override=True)
    def two():
        return 2

    assert tvmlite.get_global_func("test_registry.dec_override")() == 2


def test_override_replaces(cleanup):
    cleanup.append("test_registry.override")
    tvmlite.register_func("test_registry.override", lambda: "old")
    held = tvmlite.get_global_func("test_registry.override")
    tvmlite.register_func("test_registry.override", lambda: "new", override=True)
    assert tvmlite.get_global_func("test_registry.override")() == "new"
    assert held() == "old"  # a Function obtained before the override keeps its body


def test_duplicate_registration_is_value_error(cleanup):
    cleanup.append("test_registry.dup")
    tvmlite.register_func("test_registry.dup", lambda: 1)
    with pytest.raises(ValueError, match="test_registry.dup.*already registered"):
        tvmlite.register_func("test_registry.dup", lambda: 2)
    assert tvmlite.get_global_func("test_registry.dup")() == 1  # the first one is untouched


def test_duplicate_of_cpp_function_is_value_error():
    with pytest.raises(ValueError, match="testing.echo"):
        tvmlite.register_func("testing.echo", lambda x: None)
    assert tvmlite.get_global_func("testing.echo")(5) == 5


@pytest.mark.parametrize("value", [5, "string", [lambda: 1], object()])
def test_register_non_callable_is_type_error(value):
    with pytest.raises(TypeError, match="callable"):
        tvmlite.register_func("test_registry.not_callable", value)
    assert tvmlite.get_global_func("test_registry.not_callable", allow_missing=True) is None


def test_register_non_callable_via_decorator_is_type_error():
    with pytest.raises(TypeError, match="callable"):
        tvmlite.register_func("test_registry.not_callable2")(42)
    assert tvmlite.get_global_func("test_registry.not_callable2", allow_missing=True) is None


@pytest.mark.parametrize("name", [5, None, b"bytes.name", 1.5])
def test_register_non_str_name_is_type_error(name):
    with pytest.raises(TypeError, match="func_name must be a str"):
        tvmlite.register_func(name, lambda: 1)


def test_register_a_cpp_function_under_another_name(cleanup):
    cleanup.append("test_registry.echo_alias")
    tvmlite.register_func("test_registry.echo_alias", tvmlite.get_global_func("testing.echo"))
    assert tvmlite.get_global_func("test_registry.echo_alias")("x") == "x"


def test_register_callable_object(cleanup):
    cleanup.append("test_registry.callable_obj")

    class Adder:
        def __init__(self, n):
            self.n = n

        def __call__(self, x):
            return x + self.n

    tvmlite.register_func("test_registry.callable_obj", Adder(10))
    assert tvmlite.get_global_func("test_registry.callable_obj")(5) == 15


# ----------------------------------------------------------------------------------------------------------------
# get_global_func
# ----------------------------------------------------------------------------------------------------------------

def test_get_missing_is_value_error():
    with pytest.raises(ValueError, match="test_registry.missing"):
        tvmlite.get_global_func("test_registry.missing")


def test_get_missing_allow_missing_returns_none():
    assert tvmlite.get_global_func("test_registry.missing", allow_missing=True) is None
    assert tvmlite.get_global_func("test_registry.missing", True) is None


def test_get_non_str_name_is_type_error():
    with pytest.raises(TypeError, match="name must be a str"):
        tvmlite.get_global_func(42)


def test_get_returns_named_function():
    f = tvmlite.get_global_func("testing.echo")
    assert isinstance(f, tvmlite._ffi.core.Function)
    assert "testing.echo" in repr(f)
    assert f.type_key == "runtime.Function"
    assert tvmlite.get_global_func("testing.echo").same_as(f)  # the same function object every time


# ----------------------------------------------------------------------------------------------------------------
# list / remove
# ----------------------------------------------------------------------------------------------------------------

def test_list_contains_testing_functions():
    names = tvmlite.list_global_func_names()
    assert isinstance(names, list) and all(isinstance(n, str) for n in names)
    for name in ["testing.nop", "testing.echo", "testing.call_n", "testing.apply", "testing.raise",
                 "testing.object_count", "testing.add_int", "testing.concat", "testing.sum_array",
                 "testing.get_field", "testing.sleep_ms", "testing.Pair"]:
        assert name in names
    assert len(names) == len(set(names))


def test_list_contains_newly_registered(cleanup):
    cleanup.append("test_registry.listed")
    assert "test_registry.listed" not in tvmlite.list_global_func_names()
    tvmlite.register_func("test_registry.listed", lambda: None)
    assert "test_registry.listed" in tvmlite.list_global_func_names()


def test_remove_global_func():
    tvmlite.register_func("test_registry.removed", lambda: 1)
    held = tvmlite.get_global_func("test_registry.removed")
    tvmlite.remove_global_func("test_registry.removed")
    assert tvmlite.get_global_func("test_registry.removed", allow_missing=True) is None
    assert "test_registry.removed" not in tvmlite.list_global_func_names()
    with pytest.raises(ValueError):
        tvmlite.get_global_func("test_registry.removed")
    assert held() == 1  # a Function already obtained keeps working
    tvmlite.remove_global_func("test_registry.removed")  # removing an absent name is not an error
    tvmlite.register_func("test_registry.removed", lambda: 2)  # and the name can be registered again
    assert tvmlite.get_global_func("test_registry.removed")() == 2
    tvmlite.remove_global_func("test_registry.removed")


def test_many_registrations_grow_the_table():
    names = [f"test_registry.many.f{i}" for i in range(3000)]
    try:
        for i, name in enumerate(names):
            tvmlite.register_func(name, lambda i=i: i)
        listed = set(tvmlite.list_global_func_names())
        assert all(name in listed for name in names)
        assert all(tvmlite.get_global_func(name)() == i for i, name in enumerate(names))
        assert tvmlite.get_global_func("testing.echo")(1) == 1  # old entries survive the growth
    finally:
        for name in names:
            tvmlite.remove_global_func(name)
    assert tvmlite.get_global_func(names[0], allow_missing=True) is None


def test_removed_function_is_released():
    class Payload:
        pass

    payload = Payload()
    ref = weakref.ref(payload)
    tvmlite.register_func("test_registry.released", lambda held=payload: held)
    del payload
    tvmlite.remove_global_func("test_registry.released")
    gc.collect()
    assert ref() is None


def test_overridden_function_is_released():
    class Payload:
        pass

    payload = Payload()
    ref = weakref.ref(payload)
    try:
        tvmlite.register_func("test_registry.overridden", lambda held=payload: held)
        del payload
        tvmlite.register_func("test_registry.overridden", lambda: None, override=True)
        gc.collect()
        assert ref() is None
    finally:
        tvmlite.remove_global_func("test_registry.overridden")


# ----------------------------------------------------------------------------------------------------------------
# Python functions called from C++
# ----------------------------------------------------------------------------------------------------------------

def test_registered_python_function_called_from_cpp(cleanup):
    cleanup.append("test_registry.py_mul")
    calls = []

    @tvmlite.register_func("test_registry.py_mul")
    def py_mul(a, b):
        calls.append((a, b))
        return a * b

    f = tvmlite.get_global_func("test_registry.py_mul")
    assert apply(f, 6, 7) == 42
    assert apply(f, "ab", 2) == "abab"
    assert calls == [(6, 7), ("ab", 2)]


def test_registered_python_function_called_n_times_from_cpp(cleanup):
    cleanup.append("test_registry.counter")
    count = [0]

    def bump():
        count[0] += 1

    tvmlite.register_func("test_registry.counter", bump)
    call_n(tvmlite.get_global_func("test_registry.counter"), 250)
    assert count[0] == 250


def test_python_function_receives_cpp_values(cleanup):
    cleanup.append("test_registry.types")
    seen = []
    tvmlite.register_func("test_registry.types", lambda *args: seen.extend(args))
    from tvmlite.testing import Pair

    p = Pair(1, 2)
    apply(tvmlite.get_global_func("test_registry.types"), 1, 2.5, "s", None, True, p, [1, 2], {"k": "v"})
    assert seen[:5] == [1, 2.5, "s", None, True]
    assert type(seen[4]) is bool
    assert seen[5].same_as(p)
    assert list(seen[6]) == [1, 2]
    assert seen[7]["k"] == "v"


def test_registered_function_overridden_is_seen_by_later_lookups(cleanup):
    cleanup.append("test_registry.version")
    tvmlite.register_func("test_registry.version", lambda: 1)
    assert apply(tvmlite.get_global_func("test_registry.version")) == 1
    tvmlite.register_func("test_registry.version", lambda: 2, override=True)
    assert apply(tvmlite.get_global_func("test_registry.version")) == 2


# ----------------------------------------------------------------------------------------------------------------
# _init_api
# ----------------------------------------------------------------------------------------------------------------

@pytest.fixture
def ns_module():
    name = "test_registry_mytest_ns"
    module = types.ModuleType(name)
    sys.modules[name] = module
    registered = []

    def reg(fname, f):
        tvmlite.register_func(fname, f)
        registered.append(fname)

    yield module, reg
    del sys.modules[name]
    for fname in registered:
        tvmlite.remove_global_func(fname)


def test_init_api_binds_namespace_lazily(ns_module):
    module, reg = ns_module
    reg("mytest.ns.f1", lambda a: a * 10)
    _init_api("mytest.ns", module.__name__)
    assert "f1" not in module.__dict__  # lazy: nothing bound yet
    assert module.f1(2) == 20
    assert "f1" in module.__dict__  # cached after first access
    assert module.f1 is module.__dict__["f1"]


def test_init_api_sees_functions_registered_later(ns_module):
    module, reg = ns_module
    _init_api("mytest.ns", module.__name__)
    reg("mytest.ns.later", lambda: "late")
    assert module.later() == "late"


def test_init_api_unknown_attribute_is_attribute_error(ns_module):
    module, reg = ns_module
    reg("mytest.ns.f1", lambda: 1)
    _init_api("mytest.ns", module.__name__)
    with pytest.raises(AttributeError, match="nope"):
        module.nope
    assert not hasattr(module, "nope")
    assert not hasattr(module, "__path__")  # dunder lookups never hit the registry
    with pytest.raises(AttributeError):
        getattr(module, "ns.f1")


def test_init_api_dir_lists_functions(ns_module):
    module, reg = ns_module
    reg("mytest.ns.f1", lambda: 1)
    reg("mytest.ns.f2", lambda: 2)
    reg("mytest.ns.sub.g", lambda: 3)
    reg("mytest.other.h", lambda: 4)
    _init_api("mytest.ns", module.__name__)
    names = dir(module)
    assert "f1" in names and "f2" in names
    assert "g" not in names and "sub.g" not in names and "h" not in names
    assert names == sorted(names)


def test_init_api_does_not_bind_other_namespaces(ns_module):
    module, reg = ns_module
    reg("mytest.nsx.f1", lambda: "wrong")  # shares a prefix but is another namespace
    _init_api("mytest.ns", module.__name__)
    with pytest.raises(AttributeError):
        module.f1


def test_init_api_keeps_existing_module_getattr(ns_module):
    module, reg = ns_module
    reg("mytest.ns.f1", lambda: 1)
    module.__getattr__ = lambda name: "fallback-" + name
    _init_api("mytest.ns", module.__name__)
    assert module.f1() == 1
    assert module.other == "fallback-other"


def test_init_api_defaults_target_to_namespace():
    name = "test_registry_default_target"
    module = types.ModuleType(name)
    sys.modules[name] = module
    tvmlite.register_func(name + ".fn", lambda: "ok")
    try:
        _init_api(name)
        assert module.fn() == "ok"
    finally:
        del sys.modules[name]
        tvmlite.remove_global_func(name + ".fn")


def test_function_removing_itself_while_running(cleanup):
    # Whatever the registry does with replaced entries, a running function must stay alive until it returns.
    cleanup.append("test_registry.self_removing")
    state = {"calls": 0}

    def body(x):
        tvmlite.remove_global_func("test_registry.self_removing")
        tvmlite.register_func("test_registry.self_removing", lambda x: -x, override=True)
        state["calls"] += 1
        return [x, state["calls"]]  # still running, allocating, after its registration is gone

    tvmlite.register_func("test_registry.self_removing", body)
    out = apply(tvmlite.get_global_func("test_registry.self_removing"), 7)
    assert list(out) == [7, 1]
    assert tvmlite.get_global_func("test_registry.self_removing")(7) == -7


def test_python_function_crossing_the_ffi_becomes_a_function():
    def pyf(x):
        return x * 2

    f = tvmlite.get_global_func("testing.echo")(pyf)
    assert isinstance(f, tvmlite._ffi.core.Function)
    assert f(21) == 42
    assert apply(f, 4) == 8
