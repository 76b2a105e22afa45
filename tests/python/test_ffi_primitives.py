"""Both FFI backends export exactly the primitives of tvmlite/_ffi/primitives.py, with the same signatures and
members, and the pure-Python layer over them works on either (the ctypes one checked in a child interpreter with
TVMLITE_FFI=ctypes, as the package imports it there)."""
import inspect
import os
import subprocess
import sys
import textwrap

import pytest

from tvmlite._ffi import core as active_core
from tvmlite._ffi import primitives
from tvmlite._ffi._ctypes import core as ct

cy = pytest.importorskip("tvmlite._ffi._cython.core")

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BACKENDS = {"cython": cy, "ctypes": ct}
# Comparing answers needs classes registered in both cores: the ctypes core has defaults for its bases, the Cython
# core only what the package registers, which it does not when the package runs on the ctypes backend.
needs_cython_package = pytest.mark.skipif(active_core.BACKEND != "cython",
                                          reason="the Cython core has no classes registered in this run")

# How each implementation spells an object's plumbing, not part of what it offers: Cython's pickling and vtable
# attributes, the ctypes classes' slots, finalizer and module; and the comparisons a Cython __eq__ brings along as
# slot wrappers (returning NotImplemented, as object's do).
PLUMBING = {"__pyx_vtable__", "__setstate__", "__setstate_cython__", "__reduce_cython__", "__slots__", "__module__",
            "__del__", "__weakref__", "__dict__", "__init_subclass__", "__subclasshook__", "__new__", "__init__",
            "__doc__", "__getstate__", "__lt__", "__le__", "__gt__", "__ge__", "__ne__"}
# Members one backend has on purpose (on a class or those derived from it), and why.
ONE_BACKEND_ONLY = {
    # Reflected fields of objects whose class has no descriptors: the ctypes core, imported on its own next to the
    # Cython one (the benchmark does), has no classes registered.
    ("ctypes", "__getattr__"),
    # The handle itself: a C field in Cython, a slot holding the address in ctypes.
    ("ctypes", "chandle"),
    # Cython refuses to pickle a class holding C pointers with a generated __reduce__; a ctypes FieldDescriptor
    # fails on its ctypes fields instead.
    ("cython", "__reduce__"),
}


def exported(core):
    return {name for name in dir(core) if not (name.startswith("__") and name.endswith("__"))}


@pytest.mark.parametrize("backend", BACKENDS)
def test_core_exports_exactly_the_primitives(backend):
    assert exported(BACKENDS[backend]) == set(primitives.PRIMITIVES)
    assert primitives.missing_primitives(BACKENDS[backend]) == []


def test_primitive_list_has_no_duplicates():
    assert len(primitives.PRIMITIVES) == len(set(primitives.PRIMITIVES))


@pytest.mark.parametrize("name", sorted(primitives.FUNCTIONS))
def test_functions_have_the_same_signature(name):
    assert inspect.signature(getattr(cy, name)) == inspect.signature(getattr(ct, name))


def _members(core, cls_name):
    cls = getattr(core, cls_name)
    # A Cython class inherits the rich comparisons it does not define as slot wrappers: they are object's then.
    return {n for n in dir(cls) if getattr(cls, n, None) is not getattr(object, n, None)} - PLUMBING


@pytest.mark.parametrize("cls_name", sorted(primitives.CLASSES))
def test_classes_have_the_same_members(cls_name):
    members = {b: _members(core, cls_name) for b, core in BACKENDS.items()}
    only = {(b, m) for b in BACKENDS for other in BACKENDS if other != b for m in members[b] - members[other]}
    # Private helpers of one implementation (single underscore) are its own business; anything else must match.
    only = {(b, m) for b, m in only if not (m.startswith("_") and not m.startswith("__"))}
    assert only <= ONE_BACKEND_ONLY
    for m in primitives.CLASSES[cls_name]:
        assert all(hasattr(getattr(core, cls_name), m) for core in BACKENDS.values()), f"{cls_name}.{m}"


@pytest.mark.parametrize("cls_name", sorted(primitives.CLASSES))
def test_named_methods_have_the_same_signature(cls_name):
    # Named methods only: a special method's signature is the protocol's (and slot wrappers spell it differently).
    for m in primitives.CLASSES[cls_name]:
        if m.startswith("__") and m not in ("__dlpack__", "__init_handle_by_constructor__"):
            continue
        sigs = []
        for core in BACKENDS.values():
            attr = inspect.getattr_static(getattr(core, cls_name), m)
            try:
                sigs.append(str(inspect.signature(attr)).replace(", /", ""))  # C methods make self positional-only
            except (TypeError, ValueError):  # a property or a C method without text signature: nothing to compare
                sigs.append(None)
        if None not in sigs:
            assert sigs[0] == sigs[1], f"{cls_name}.{m}"


@needs_cython_package
def test_same_answers_from_both_backends():

    def probe(core):
        echo = core.get_global_func("testing.echo")
        arr = echo([1, "a", None])
        m = echo({"k": 2})
        shape = core.get_global_func("runtime.ShapeTuple")(2, 3)
        tindex = core._type_key_to_index("testing.Pair")
        return (len(arr), arr[1], arr[-1], arr[0:2], len(m), m["k"], m.items(), len(shape), shape[1], shape[:1],
                core._type_key_to_index("nope", True), core._type_info(tindex), core._type_is_dynamic(tindex),
                core.DataType("float32") == "float32", core.DataType("int8") == "nope", str(core.DataType("int8")),
                repr(core.Device(core.DEVICE_CPU, 0)), core.convert(3), "testing.echo" in core.list_global_func_names())

    assert probe(cy) == probe(ct)


@needs_cython_package
def test_same_errors_from_both_backends():
    def errors(core):
        out = []
        for f, args in [(core.get_global_func, ("no.such.function",)), (core._type_key_to_index, ("no.such.type",)),
                        (core.get_global_func("testing.raise"), ("ValueError", "msg")),
                        (core.get_global_func("runtime.Array")(1).__getitem__, (5,)),
                        (core.DataType, ("nope",))]:
            with pytest.raises(Exception) as info:
                f(*args)
            out.append((type(info.value).__mro__[1:], str(info.value).split("\n")[0]))
        return out

    assert errors(cy) == errors(ct)


PROTOCOLS = textwrap.dedent("""
    import collections.abc, tvmlite
    from tvmlite._ffi import core
    assert core.BACKEND == {backend!r}, core.BACKEND
    a = tvmlite.runtime.convert([1, 2, 3])
    m = tvmlite.runtime.convert({{"a": 1, "b": None}})
    s = tvmlite.runtime.ShapeTuple([4, 5])
    assert isinstance(a, collections.abc.Sequence) and isinstance(m, collections.abc.Mapping)
    assert list(a) == [1, 2, 3] and 2 in a and a.index(3) == 2 and list(reversed(a)) == [3, 2, 1] and a[1:] == [2, 3]
    assert m.keys() == ["a", "b"] and m.values() == [1, None] and "a" in m and "z" not in m
    assert dict(m) == {{"a": 1, "b": None}}
    assert m.get("z", 7) == 7 and m.get("b", 7) is None and m == m and m != dict(m)
    assert s == (4, 5) and list(s) == [4, 5] and hash(s) == hash((4, 5)) and s.count(4) == 1
    x = tvmlite.nd.array([[1.0, 2.0]])
    assert x.numpy().tolist() == [[1.0, 2.0]] and repr(x).startswith("<tvmlite.NDArray shape=(1, 2)")
    print("ok")
""")


@pytest.mark.parametrize("backend", BACKENDS)
def test_pure_python_layer_over_each_backend(backend):
    env = dict(os.environ, TVMLITE_FFI=backend)
    proc = subprocess.run([sys.executable, "-c", PROTOCOLS.format(backend=backend)], env=env, cwd=REPO_ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout
