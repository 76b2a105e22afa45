"""Seeded random calls of everything a user can reach in tvmlite: every registered global function, every registered
object type's constructor, field reads and writes, container indexing, NDArray methods, structural hash/equality,
JSON and pickle, and the registration API itself, with hostile values.

Targets are discovered at run time: every name in ``list_global_func_names()`` (C++ and Python-registered, including
those the fuzzer registers while it runs), every object type in the type table (its registered Python class, else
the constructor global named like its type key), so new globals and object types are fuzzed as they appear.

Outcome contract of one call: a return value, or an ``Exception`` that is not a bare ``SystemError`` (SystemError
from the interpreter means C-API misuse; a C++ error of kind "SystemError" is a ``TVMLiteError`` and fine). A crash,
a hang, a bare SystemError, a ``BaseException`` the fuzzer did not raise itself, or an exception reported as
unraisable is a finding.

Batches run in child processes. Before each call the child writes the call (seed, index, target, arguments) to a
log file, so the parent can name the call that crashed or hung it. The generator is deterministic for a seed, so::

    python tests/python/fuzz_calls.py --seed 7 --calls 5000            # run batches in children, report
    python tests/python/fuzz_calls.py --seed 7 --calls 5000 --inline   # in this process (under gdb, say)
    python tests/python/fuzz_calls.py --seed 7 --calls 5000 --inline --trace-from 4990  # print calls from #4990

replays the same calls. Environment: TVMLITE_FUZZ_CALLS (total calls), TVMLITE_FUZZ_SEED (base seed),
TVMLITE_FUZZ_SECONDS (a soak: keep running batches with new seeds for that long), TVMLITE_SANITIZE_RUN=1 (set by
tests/sanitize.sh: longer time limits under ASan/UBSan).
"""
import argparse
import collections
import enum
import gc
import json
import math
import operator
import os
import pickle
import random
import signal
import subprocess
import sys
import tempfile
import time

# ----------------------------------------------------------------------------------------------------------------
# Policy: the only targets whose arguments are bounded or that are not called. A target not here is fuzzed freely.
# ----------------------------------------------------------------------------------------------------------------

#: global name -> (action, reason). Actions: ("cap", index, lo, hi): an int-like argument at `index` (int, numpy
#: int, IntEnum...) is clamped to [lo, hi], any other value there is passed as drawn; ("skip",): never called (counted
#: and reported as skipped). A function in this table is never handed out as a value (as a callback, or registered
#: under another name, it would be called with unbounded arguments).
POLICY = {
    "testing.sleep_ms": (("cap", 0, -5, 5), "sleeps for its argument: an int64 drawn at random would hang the batch"),
    "testing.call_n": (("cap", 1, -3, 20), "calls its callback n times: a huge n would hang the batch"),
    "runtime.set_num_threads": (("cap", 0, -2, 4), "starts that many threads: 1024 of them per batch is a waste"),
    "testing.parallel_nested": (("cap", 0, -3, 64), "runs its outer loop item by item: a huge count hangs"),
}

#: Python-level API operations on the global registry are limited to names the fuzzer owns, so that it never removes
#: or overrides a function the harness (or the runtime, e.g. runtime.SaveJSON behind pickle) needs.
OWN_PREFIX = "fuzz.dyn."

# ----------------------------------------------------------------------------------------------------------------

DEFAULT_CALLS = 30000  # per backend, under the sanitizers too
DEFAULT_SEED = 20261123
DEFAULT_BATCHES = 3
MAX_DEPTH = 3  # callbacks that call back into tvmlite nest at most this deep


class FuzzRaised(Exception):
    """Raised on purpose by a fuzzer callback."""


class FuzzExit(SystemExit):
    """A SystemExit raised on purpose by a fuzzer callback: it must come back out as the same object."""


class FuzzInterrupt(KeyboardInterrupt):
    """A KeyboardInterrupt raised on purpose by a fuzzer callback."""


def _short(text, limit=300):
    return text if len(text) <= limit else text[:limit] + "...(%d chars)" % len(text)


class Value:
    """A drawn value and a Python expression that describes how it was made (for the call log)."""
    __slots__ = ("v", "expr")

    def __init__(self, v, expr):
        self.v = v
        self.expr = expr


class Fuzzer:
    def __init__(self, seed, log_fd=None, trace_from=None):
        import numpy as np
        import tvmlite
        import tvmlite.testing
        from tvmlite._ffi import core

        self.np, self.tvmlite, self.core = np, tvmlite, core
        self.seed = seed
        self.rng = random.Random(seed)
        self.log_fd = log_fd
        self.trace_from = trace_from
        self.ncalls = 0
        self.depth = 0
        self.stats = collections.Counter()  # target -> calls
        self.outcomes = collections.Counter()  # exception type name (or "ok") -> count
        self.examples = {}  # exception type name -> the first call that raised it
        self.skipped = collections.Counter()  # policy skips
        self.unreachable = collections.Counter()  # types with neither a constructor global nor a class
        self.findings = []
        self.pool = []  # Values produced by calls, reused as arguments
        self._own_exc = set()  # ids of BaseExceptions our callbacks raised (alive while the call runs)
        self._own_exc_objs = []
        self._registered_names = set()
        self._written = []  # objects whose fields the fuzzer wrote (see drop_values)
        self._hook_victims = []  # the boxes through which hooks reach their victims (see drop_values)
        self._dyn_types = {}
        self._unraisable = []
        self._old_hook = sys.unraisablehook
        sys.unraisablehook = self._on_unraisable
        import fuzz_ir

        self.ir = fuzz_ir.IRFuzz(self.rng)
        self.ir.ops()  # (ops and their Python side registered before the leak baseline)
        self._define_python_types()
        self._warm_caches()
        self.baseline = tvmlite.testing.object_count()  # for the leak check: before the fuzzer's own globals
        self._register_python_globals()

    # ------------------------------------------------------------------------------------------------------------
    # Set-up: Python-defined types and globals (discovered like any other), warm caches for the leak check
    # ------------------------------------------------------------------------------------------------------------

    def _define_python_types(self):
        tvmlite = self.tvmlite
        Object = tvmlite.Object
        from typing import Optional

        ns = {}
        point = type("FuzzPoint", (Object,), {"__module__": __name__, "__annotations__": {"x": int, "y": float},
                                              "y": 0.0})
        ns["FuzzPoint"] = tvmlite.register_object("fuzz.Point")(point)
        node = type("FuzzNode", (Object,), {"__module__": __name__})
        node.__annotations__ = {"name": str, "value": object, "next": Optional[node], "flag": bool}
        node.next = None
        node.value = None
        node.flag = False
        ns["FuzzNode"] = tvmlite.register_object("fuzz.Node")(node)
        child = type("FuzzChild", (ns["FuzzPoint"],), {"__module__": __name__, "__annotations__": {"tag": str},
                                                         "tag": ""})
        ns["FuzzChild"] = tvmlite.register_object("fuzz.Child")(child)
        self.py_types = ns

    def _register_python_globals(self):
        fz = self

        def py_echo(*args):
            return args[0] if len(args) == 1 else list(args)

        def py_odd(*args):
            return fz.draw_return_value().v

        def py_reenter(*args):
            return fz.nested_call()

        for name, f in (("fuzz.py_echo", py_echo), ("fuzz.py_odd", py_odd), ("fuzz.py_reenter", py_reenter)):
            self.tvmlite.register_func(name, f, override=True)

    def _warm_caches(self):
        """Touch the lazily cached functions, so the leak check's baseline already holds them."""
        tvmlite = self.tvmlite
        tvmlite.structural_hash(1)
        tvmlite.structural_equal(1, 1)
        tvmlite.runtime._ffi_api.StructuralMismatch  # bound on first use
        tvmlite.load_json(tvmlite.save_json(1))
        for name in self.tvmlite.list_global_func_names():
            if name.startswith("testing."):
                getattr(tvmlite.testing, name[len("testing."):])
        # The printer keeps one default attrs object per attrs type (made on first print): print every op once.
        for name, _, maker, num_inputs, fields in self.ir.ops():
            if maker is not None and fields:
                try:
                    repr(maker(*([[]] if num_inputs < 0 else [self.tvmlite.relay.var("w")] * num_inputs)))
                except Exception:  # noqa: BLE001 - a maker that wants other inputs: nothing to warm
                    pass

    def close(self):
        sys.unraisablehook = self._old_hook
        for name in sorted(self._registered_names):
            self.tvmlite.remove_global_func(name)
        for name in ("fuzz.py_echo", "fuzz.py_odd", "fuzz.py_reenter"):
            self.tvmlite.remove_global_func(name)

    def _on_unraisable(self, info):
        self._unraisable.append(f"{info.exc_type.__name__}: {info.exc_value!r} in {info.object!r}"
                                f" ({info.err_msg})")

    # ------------------------------------------------------------------------------------------------------------
    # Targets, discovered at each draw
    # ------------------------------------------------------------------------------------------------------------

    def global_names(self):
        return sorted(self.tvmlite.list_global_func_names())

    def object_types(self):
        """(type_index, type_key, class or None) of every type in the type table."""
        core = self.core
        out = []
        for tindex in range(64, 128):
            try:
                out.append((tindex, core._type_info(tindex)[0]))
            except KeyError:
                pass
        tindex, misses = 128, 0
        while misses < 1024:  # base types reserve child slots (ir.Attrs: 96), so indices have gaps
            try:
                out.append((tindex, core._type_info(tindex)[0]))
                misses = 0
            except KeyError:
                misses += 1
            tindex += 1
        return out

    def classes(self):
        """Every registered Python class (the Object subclasses that own a type index)."""
        seen, stack = [], [self.core.ObjectBase]
        while stack:
            cls = stack.pop()
            for sub in cls.__subclasses__():
                if sub not in seen:
                    seen.append(sub)
                    stack.append(sub)
        return sorted((c for c in seen if "_tvmlite_type_index" in c.__dict__),
                      key=lambda c: (c._tvmlite_type_index, c.__qualname__))

    # ------------------------------------------------------------------------------------------------------------
    # Values
    # ------------------------------------------------------------------------------------------------------------

    INTS = [0, 1, -1, 2, 7, 255, 2**31 - 1, -2**31, 2**32, 2**53 + 1, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**64,
            10**30, -10**30]
    FLOATS = [0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 1e308, 5e-324, -1e-300]
    STRS = ["", "a", "first", "second", "x", "name", "\x00", "a\x00b", "\ud800", "a\udcff", "\udfff\ud800",
            b"ok \xff".decode("utf-8", "surrogateescape"), "üñí", "\U0001f600", "x" * 1000, "ValueError",
            "TypeError", "SystemError", "SystemExit", "KeyboardInterrupt", "MemoryError", "StopIteration", "Foo",
            "testing.echo", "testing.Pair", "runtime.Array", "fuzz.Point", "float32", "int8x4", "bool",
            "float16", "uint1", "int0", "float32x0", "handle", "custom[x]32", '{"root": 1}',
            '{"root": 1, "nodes": [], "b64ndarrays": [], "attrs": {}}', "[1, 2", "null", "{}", "[]",
            "cpu", "llvm", "cuda"]
    BYTES = ["b''", "b'\\x00'", "b'\\xff\\xfe'", "b'abc' * 100", "bytearray(b'xy')", "memoryview(b'mem')",
             "memoryview(b'abcd').cast('i')", "memoryview(bytearray(b'abcdefgh'))[::2]"]

    def draw(self, depth=0):
        """One argument value."""
        r = self.rng.random()
        if r < 0.10:
            return self.draw_scalar()
        if r < 0.20:
            return self.draw_str()
        if r < 0.25:
            return self.draw_bytes()
        if r < 0.38:
            return self.draw_object(depth)
        if r < 0.48:
            return self.draw_numpy()
        if r < 0.60 and depth < 3:
            return self.draw_container(depth)
        if r < 0.70:
            return self.draw_callable()
        if r < 0.78:
            return self.draw_odd()
        if r < 0.93 and self.pool:
            return self.rng.choice(self.pool)
        return self.draw_scalar()

    def draw_scalar(self):
        rng = self.rng
        k = rng.randrange(6)
        if k == 0:
            v = rng.choice([None, True, False])
            return Value(v, repr(v))
        if k <= 2:
            v = rng.choice(self.INTS)
            return Value(v, repr(v))
        if k == 3:
            v = rng.choice(self.FLOATS)
            return Value(v, f"float({str(v)!r})")
        if k == 4:
            v = rng.randrange(-3, 10)
            return Value(v, repr(v))
        return self.draw_numpy_scalar()

    def draw_numpy_scalar(self):
        np = self.np
        exprs = ["np.bool_(True)", "np.int8(-128)", "np.uint8(255)", "np.int64(-2**63)", "np.uint64(2**64 - 1)",
                 "np.uint64(2**63 - 1)", "np.float16('nan')", "np.float32('inf')", "np.float64(-0.0)",
                 "np.longdouble(1)", "np.complex128(1j)", "np.datetime64('2020-01-01')", "np.timedelta64(5, 's')",
                 "np.str_('s')", "np.bytes_(b'b')", "np.void(b'ab')"]
        e = self.rng.choice(exprs)
        return Value(eval(e, {"np": np}), e)

    def draw_str(self):
        v = self.rng.choice(self.STRS)
        return Value(v, repr(v))

    def draw_bytes(self):
        e = self.rng.choice(self.BYTES)
        return Value(eval(e), e)

    NUMPY = [
        "np.float32(3)[()]", "np.array(1.5)", "np.array(7, 'int64')", "np.arange(12, dtype='float32').reshape(3, 4)",
        "np.arange(12, dtype='float32').reshape(3, 4)[:, ::2]", "np.arange(12, dtype='int64').reshape(3, 4).T",
        "_ro(np.arange(6, dtype='int32'))", "np.ones((2, 2), 'float16')", "np.array([1, 'a', None], dtype=object)",
        "np.arange(4, dtype='>f4')", "np.array([True, False])", "np.zeros((0,), 'float32')",
        "np.zeros((0, 3), 'int8')", "np.zeros((3, 0, 2), 'float64')", "np.arange(10, dtype='uint8')[::-1]",
        "np.zeros((2, 3), 'complex64')", "np.zeros(3, 'datetime64[s]')", "np.zeros(2, dtype=[('a', 'i4')])",
        "np.zeros(4, 'U3')", "np.broadcast_to(np.arange(3.0), (4, 3))", "np.zeros((1,) * 33, 'int8')[()]",
        "np.zeros((1,) * 32, 'int8')", "np.zeros((2, 3), order='F')", "np.ones(5, 'longdouble')",
        "np.arange(8, dtype='int16')[1:]", "np.frombuffer(b'\\x00' * 9, 'uint8')[1:].view('int64')",
    ]

    def draw_numpy(self):
        e = self.rng.choice(self.NUMPY)
        return Value(eval(e, {"np": self.np, "_ro": _ro}), e)

    def draw_object(self, depth=0, kind=None):
        rng = self.rng
        tvmlite = self.tvmlite
        from tvmlite.testing import Pair
        from tvmlite.runtime import Array, Map, ShapeTuple, NDArray
        k = rng.randrange(14) if kind is None else kind
        try:
            if k == 0:
                a, b = self.draw_plain(depth + 1), self.draw_plain(depth + 1)
                return Value(Pair(a.v, b.v), f"Pair({a.expr}, {b.expr})")
            if k == 1:
                items = [self.draw_plain(depth + 1) for _ in range(rng.randrange(4))]
                return Value(Array([i.v for i in items]), f"Array([{', '.join(i.expr for i in items)}])")
            if k == 2:
                return Value(Map({"a": 1, 2: [3]}), "Map({'a': 1, 2: [3]})")
            if k == 3:
                dims = rng.choice([(), (1, 2, 3), (-1, 2**63 - 1), (0,)])
                return Value(ShapeTuple(dims), f"ShapeTuple({dims!r})")
            if k == 4:
                e = rng.choice(["tvmlite.nd.array(np.arange(6, dtype='float32').reshape(2, 3))",
                                "tvmlite.nd.empty((0,), 'int8')", "tvmlite.nd.array(np.zeros((), 'float64'))",
                                "tvmlite.nd.from_dlpack(np.arange(5, dtype='int32')[::2])",
                                "tvmlite.nd.from_dlpack(_ro(np.arange(4, dtype='float16')))",
                                "tvmlite.nd.from_dlpack(np.arange(12, dtype='int64').reshape(3, 4).T)",
                                "tvmlite.nd.from_dlpack(b'bytes')",
                                "tvmlite.nd.array(np.array([True, False]))"])
                return Value(eval(e, {"tvmlite": tvmlite, "np": self.np, "_ro": _ro}), e)
            if k == 5:
                cls = rng.choice([Pair, Array, Map, ShapeTuple, NDArray, tvmlite.Object, self.core.Function]
                                 + list(self.py_types.values()))
                return Value(cls.__new__(cls), f"{cls.__name__}.__new__({cls.__name__})")  # a null handle
            if k == 6:  # (not a function the policy bounds: as a value it would be called with any arguments)
                name = rng.choice([n for n in self.global_names() if n not in POLICY])
                return Value(tvmlite.get_global_func(name), f"get_global_func({name!r})")
            if k == 7:
                P = self.py_types["FuzzPoint"]
                x = rng.choice([0, -1, 2**63 - 1])
                return Value(P(x, rng.choice([0.5, float("nan")])), f"FuzzPoint({x}, ...)")
            if k == 8:
                N = self.py_types["FuzzNode"]
                val = self.draw_plain(depth + 1)
                inner = N("inner", 1)
                return Value(N("n", val.v, inner), f"FuzzNode('n', {val.expr}, FuzzNode('inner', 1))")
            if k == 9:
                C = self.py_types["FuzzChild"]
                return Value(C(1, 2.0, "t"), "FuzzChild(1, 2.0, 't')")
            if k == 10:
                var = tvmlite.testing.Var("v", None)
                e = rng.choice(["var", "Lambda([var], var)", "Lambda([var], Pair(var, var))", "Lambda([], var)"])
                return Value(eval(e, {"var": var, "Lambda": tvmlite.testing.Lambda, "Pair": Pair}),
                             e.replace("var", "Var('v', None)"))
            if k == 11:
                e = rng.choice(["DataType('float32')", "DataType('int8x4')", "Device(1, 0)", "Device(2, 3)",
                                "Device(-1, -1)"])
                return Value(eval(e, {"DataType": tvmlite.DataType, "Device": tvmlite.Device}), e)
            if k == 12 and self._dyn_types:
                key = rng.choice(sorted(self._dyn_types))
                cls = self._dyn_types[key]
                nf = len(cls._tvmlite_fields)
                args = [self.draw_plain(depth + 1) for _ in range(nf)]
                try:
                    return Value(cls(*[a.v for a in args]), f"{key}({', '.join(a.expr for a in args)})")
                except Exception:
                    pass
            p = Pair(1, "a")
            return Value(Pair(p, p), "(p := Pair(1, 'a'), Pair(p, p))[1]")  # a shared node
        except (Exception, FuzzExit, FuzzInterrupt) as exc:  # a hostile field value: constructions are fuzzed
            if isinstance(exc, Exception):                      # as calls elsewhere
                self._check_exception(exc, "draw_object")
            return Value(None, "None")

    def draw_plain(self, depth):
        """A value that usually converts (for building objects and containers)."""
        r = self.rng.random()
        if r < 0.5 or depth >= 3:
            return self.draw_scalar() if self.rng.random() < 0.6 else self.draw_str()
        return self.draw(depth)

    def draw_container(self, depth):
        rng = self.rng
        n = rng.randrange(5)
        items = [self.draw(depth + 1) for _ in range(n)]
        k = rng.randrange(7)
        if k <= 1:
            return Value([i.v for i in items], "[" + ", ".join(i.expr for i in items) + "]")
        if k == 2:
            return Value(tuple(i.v for i in items), "(" + "".join(i.expr + ", " for i in items) + ")")
        if k <= 4:
            d, parts = {}, []
            for i in items:
                key = self.rng.choice([self.draw_str(), self.draw_scalar(), i])
                try:
                    d[key.v] = i.v
                    parts.append(f"{key.expr}: {i.expr}")
                except Exception:  # unhashable key (or a hash that raises: a null ShapeTuple)
                    pass
            return Value(d, "{" + ", ".join(parts) + "}")
        if k == 5:
            lst = [i.v for i in items]
            lst.append(lst)
            return Value(lst, "(l := [" + "".join(i.expr + ", " for i in items) + "], l.append(l), l)[2]")
        nested = [1]
        for _ in range(rng.choice([10, 200, 2000])):
            nested = [nested]
        return Value(nested, "[[[...]]] (deep)")

    def draw_callable(self):
        rng = self.rng
        fz = self
        k = rng.randrange(12)
        if k == 9:
            def keeps(*a):  # arguments outlive the call (borrowed numpy views, Function args, ...)
                for i, v in enumerate(a):
                    fz._keep(Value(v, f"<argument #{i} kept by a callback>"))
                return a[0] if a else None
            return Value(keeps, "keeps its arguments")
        if k == 10:
            name = OWN_PREFIX + rng.choice(["f0", "f1", "f2"])
            remove = rng.random() < 0.5

            def edits_registry(*a):  # the registry changes under a running call (maybe this very function)
                if remove:
                    fz.tvmlite.remove_global_func(name)
                else:
                    fz.tvmlite.register_func(name, lambda *b: b, override=True)
                    fz._registered_names.add(name)
                gc.collect(0)
                return len(a)
            return Value(edits_registry, f"{'removes' if remove else 'overrides'} {name!r} and collects")
        if k == 11:
            return Value(self.tvmlite.get_global_func("testing.apply"), "get_global_func('testing.apply')")
        if k == 0:
            return Value(lambda *a: None, "lambda *a: None")
        if k == 1:
            def raises(*a):
                raise FuzzRaised("callback raised")
            return Value(raises, "raises FuzzRaised")
        if k == 2:
            exc_type = rng.choice([ValueError, ZeroDivisionError, KeyError, RecursionError, MemoryError,
                                   StopIteration])

            def raises_builtin(*a):
                raise exc_type("builtin")
            return Value(raises_builtin, f"raises {exc_type.__name__}")
        if k == 3:
            base = rng.choice([FuzzExit, FuzzInterrupt])

            def raises_base(*a):
                exc = base("base")
                fz._own_exc.add(id(exc))
                fz._own_exc_objs.append(exc)
                raise exc
            return Value(raises_base, f"raises {base.__name__}")
        if k == 4:
            def returns_odd(*a):
                return fz.draw_return_value().v
            return Value(returns_odd, "returns an odd value")
        if k == 5:
            def reenters(*a):
                return fz.nested_call()
            return Value(reenters, "calls back into tvmlite")
        if k == 6:
            return Value(lambda x: x, "lambda x: x")
        if k == 7:
            return Value(lambda *a: list(a), "lambda *a: list(a)")
        return Value(self.tvmlite.get_global_func("testing.echo"), "get_global_func('testing.echo')")

    def draw_return_value(self):
        rng = self.rng
        k = rng.randrange(10)
        if k == 0:
            return Value(object(), "object()")
        if k == 1:
            return Value({1, 2}, "{1, 2}")
        if k == 2:
            from tvmlite.testing import Pair
            return Value(Pair.__new__(Pair), "Pair.__new__(Pair)")
        if k == 3:
            return Value(2**64, "2**64")
        if k == 4:
            lst = []
            lst.append(lst)
            return Value(lst, "self-referential list")
        if k == 5:
            return Value((x for x in range(3)), "a generator")
        return self.draw()

    ODD = ["object()", "{1, 2}", "frozenset()", "1 + 2j", "range(3)", "Ellipsis", "int", "_IntLike()",
           "_FloatLike()", "_Color.RED", "_MyInt(5)", "_MyStr('s')", "_MyFloat(2.5)", "_MyList([1, 2])",
           "_MyDict({'k': 1})", "_BadDLPack()", "_BadGetattr()", "_BadIndex()", "_Lying()", "np.float64"]

    def draw_odd(self):
        if self.rng.random() < 0.25:
            return self.draw_hook()
        e = self.rng.choice(self.ODD)
        return Value(eval(e, dict(_ODD_NS, np=self.np)), e)

    def draw_hook(self):
        """A value whose conversion runs fuzzer code (the converter probes it for __dlpack__): it re-initialises a
        held object's wrapper, calls back into tvmlite or collects garbage, while the arguments around it convert."""
        fz = self
        action = self.rng.choice(["reinit", "reenter", "gc"])
        victims = [v for v in self.pool if isinstance(v.v, self.core.ObjectBase)]
        victim = self.rng.choice(victims) if victims else None
        ctor = self.tvmlite.get_global_func(self.rng.choice(self.global_names()))
        box = [victim]  # emptied by drop_values: a hook held by C++ must not keep its victim's wrapper alive
        self._hook_victims.append(box)

        fired = []

        class Hook:
            def __getattr__(self, name):
                if fired:  # once: converters probe several names
                    raise AttributeError(name)
                fired.append(name)
                if action == "reinit" and box[0] is not None:
                    try:
                        box[0].v.__init_handle_by_constructor__(ctor, 1, 2)
                    except Exception:
                        pass
                elif action == "reenter":
                    try:
                        fz.nested_call()
                    except (Exception, FuzzExit, FuzzInterrupt):
                        pass
                else:
                    gc.collect(0)  # the young generation: where the objects of the calls in flight are
                raise AttributeError(name)

            def __call__(self, *args):
                return len(args)
        what = f"re-initialises {victim.expr} with {ctor._name!r}" if action == "reinit" and victim else action
        return Value(Hook(), f"<hook that {what} when probed>")

    # ------------------------------------------------------------------------------------------------------------
    # Operations
    # ------------------------------------------------------------------------------------------------------------

    def draw_args(self, n=None):
        if n is None:
            n = self.rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 9, 9, 40])
        return [self.draw() for _ in range(n)]

    def step(self):
        """One top-level fuzz operation."""
        r = self.rng.random()
        if r < 0.39:
            self.op_global()
        elif r < 0.45:
            self.op_type_relation()
        elif r < 0.60:
            self.op_construct()
        elif r < 0.85:
            self.op_method()
        elif r < 0.97:
            self.op_structural()
        else:
            self.op_registry()

    def op_type_relation(self):
        """An op's type relation on random types and hostile attrs (fuzz_ir.py): it only runs inside InferType."""
        drawn = self.ir.relation_call()
        if drawn is None:
            self.outcomes["relation attrs refused"] += 1
            return
        name, rel, (types, attrs) = drawn
        self.call(f"relation {name}", rel, [Value(types, repr(types)), Value(attrs, repr(attrs))],
                  key=f"relation {name}")

    def nested_call(self):
        """A call made from inside a callback (bounded depth)."""
        if self.depth >= MAX_DEPTH:
            return None
        self.depth += 1
        try:
            name = self.rng.choice(self.global_names())
            f = self.tvmlite.get_global_func(name)
            args = self.apply_policy(name, self.draw_args(self.rng.randrange(3)))
            if args is None:
                return None
            return f(*[a.v for a in args])  # exceptions propagate into the C++ caller, as in user code
        finally:
            self.depth -= 1

    def apply_policy(self, name, args):
        policy = POLICY.get(name)
        if policy is None:
            return args
        action = policy[0]
        if action[0] == "skip":
            self.skipped[name] += 1
            return None
        _, index, lo, hi = action
        if index < len(args) and not isinstance(args[index].v, (bool, float)):
            try:
                v = operator.index(args[index].v)  # any int-like: numpy ints, IntEnum, int subclasses
            except Exception:
                return args  # not an int: the call fails its argument check
            v = min(max(v, lo), hi)
            args[index] = Value(v, repr(v))
        return args

    def op_global(self):
        name = self.rng.choice(self.global_names())
        args = self.draw_args()
        if name in POLICY and POLICY[name][0][0] == "cap" and self.rng.random() < 0.7:
            # Mostly well-typed arguments, so the capped value takes effect.
            args = [self.draw_callable() if name == "testing.call_n" else Value(1, "1"), Value(3, "3")]
        args = self.apply_policy(name, args)
        if args is None:
            return
        f = self.tvmlite.get_global_func(name)
        self.call(name, f, args)

    def op_construct(self):
        rng = self.rng
        r = rng.random()
        if r < 0.6:
            classes = self.classes()
            cls = rng.choice(classes)
            args = self.draw_args(rng.choice([0, 1, 1, 2, 2, 3]))
            self.call(f"{cls.__name__}()", cls, args, kind="ctor")
            return
        if r < 0.85:
            # Every type in the type table: through its constructor global (refl::init's "<key>.__init__", or one
            # named like the type key), else its registered class; a type with none is counted as unreachable.
            tindex, key = rng.choice(self.object_types())
            f = (self.tvmlite.get_global_func(key + ".__init__", allow_missing=True)
                 or self.tvmlite.get_global_func(key, allow_missing=True))
            if f is None:
                f = next((c for c in self.classes() if c._tvmlite_type_index == tindex), None)
            if f is None:
                self.unreachable[key] += 1
                return
            self.call(f"type {key}", f, self.draw_args(rng.choice([0, 1, 2, 2, 3])), kind="ctor")
            return
        # __init_handle_by_constructor__ on a fresh (or a live) wrapper with any constructor global
        cls = rng.choice(self.classes())
        target = rng.choice([self.draw_object(), Value(cls.__new__(cls), f"{cls.__name__}.__new__(...)")])
        name = rng.choice(self.global_names())
        ctor = self.tvmlite.get_global_func(name)
        args = self.apply_policy(name, self.draw_args(rng.randrange(4)))
        if args is None or not hasattr(target.v, "__init_handle_by_constructor__"):
            return
        self.call(f"{target.expr}.__init_handle_by_constructor__", target.v.__init_handle_by_constructor__,
                  [Value(ctor, f"get_global_func({name!r})")] + args, kind="ctor",
                  key=f"{type(target.v).__name__}.__init_handle_by_constructor__")

    def _keep(self, value):
        if len(self.pool) < 64:
            self.pool.append(value)
        else:
            self.pool[self.rng.randrange(len(self.pool))] = value

    def _holder(self):
        r = self.rng.random()
        if r < 0.15:  # NDArrays (their methods are the largest surface)
            return self.draw_object(kind=4)
        if self.pool and r < 0.55:
            return self.rng.choice(self.pool)
        return self.draw_object()

    def op_method(self):
        rng = self.rng
        obj = self._holder()
        o = obj.v
        core = self.core
        k = rng.randrange(12)
        if k == 0 and isinstance(o, core.ObjectBase):  # read a field (or any attribute name)
            names = self._field_names(o) + ["type_key", "type_index", "handle", "nope", "__dict__"]
            attr = rng.choice(names + [self.draw_str().v])
            self.call(f"getattr({obj.expr}, {attr!r})", getattr, [obj, Value(attr, repr(attr))], kind="method")
        elif k == 1 and isinstance(o, core.ObjectBase):  # write a field with an odd value
            names = self._field_names(o) or ["first"]
            attr = rng.choice(names + ["type_key", "handle", "nope"])
            if self.call(f"setattr(.{attr})", setattr, [obj, Value(attr, repr(attr)), self.draw()], kind="method"):
                self._written.append(o)
        elif k == 2:  # __getitem__ with an odd index
            idx = rng.choice([self.draw_scalar(), self.draw_str(), Value(slice(None, None, -1), "::-1"),
                              Value(-1, "-1"), Value(2**63, "2**63"), Value(-2**63 - 1, "-2**63 - 1"), self.draw()])
            self.call(f"{type(o).__name__}.__getitem__", lambda x, i: x[i], [obj, idx], kind="method")
        elif k == 3:
            self.call(f"{type(o).__name__}.misc", self._misc, [obj], kind="method")
        elif k in (4, 11) and isinstance(o, core.NDArrayBase):
            self._ndarray_op(obj)
        elif k == 5 and isinstance(o, core.MapBase):
            key = self.draw()
            m = rng.choice(["get", "__contains__", "__getitem__"])
            self.call(f"Map.{m}", lambda x, kk: getattr(x, m)(kk), [obj, key], kind="method")
        elif k == 6:  # conversions of anything
            f = rng.choice([("convert", self.tvmlite.runtime.convert), ("nd.array", self.tvmlite.nd.array),
                            ("nd.from_dlpack", self.tvmlite.nd.from_dlpack),
                            ("convert_to_function", core.convert_to_function)])
            self.call(f[0], f[1], [rng.choice([obj, self.draw()])], kind="api")
        elif k == 7:  # NDArray and type constructors
            shape = rng.choice([Value((2, 3), "(2, 3)"), Value((), "()"), Value((-1,), "(-1,)"),
                                Value((2**40, 2**40), "(2**40, 2**40)"), Value([0, 1], "[0, 1]"), self.draw()])
            dtype = rng.choice([self.draw_str(), Value("float32", "'float32'"), self.draw()])
            f = rng.choice([("nd.empty", self._empty_zeroed, [shape, dtype]),
                            ("DataType", core.DataType, [dtype]),
                            ("Device", core.Device, [self.draw_scalar(), self.draw_scalar()]),
                            ("device", self.tvmlite.device, [self.draw(), self.draw_scalar()])])
            self.call(f[0], f[1], f[2], kind="api")
        elif k == 8 and callable(o):
            self.call(f"{obj.expr}(...)", o, self.draw_args(), kind="method", key=f"call a {type(o).__name__}")
        elif k == 9:
            self.call("pickle", lambda x: pickle.loads(pickle.dumps(x)), [obj], kind="api")
        elif k == 10 and isinstance(o, core.ObjectBase):
            other = self._holder()
            self.call("same_as/==", lambda a, b: (a.same_as(b), a == b, a != b), [obj, other], kind="method")
        else:
            self.call(f"{type(o).__name__}.misc", self._misc, [obj], kind="method")

    def _empty_zeroed(self, shape, dtype):
        """nd.empty, zero-filled when numpy can view it: uninitialised data would make runs of a seed differ.
        An array above 1 MiB is dropped at once: a shape drawn from odd values can be gigabytes (never touched),
        which later calls (save_json, structural_hash) would take minutes to go through."""
        x = self.tvmlite.nd.empty(shape, dtype)
        dt = self.tvmlite.DataType(x.dtype)
        if math.prod(x.shape) * ((dt.bits * dt.lanes + 7) // 8) > 1 << 20:
            return None
        try:
            self.np.from_dlpack(x).view("uint8").fill(0)
        except Exception:
            pass
        return x

    def _field_names(self, o):
        try:
            index = o.type_index
        except Exception:
            return []
        try:
            return [f[0] for f in self.core._type_info(index)[2]] + list(getattr(type(o), "_tvmlite_fields", ()))
        except Exception:
            return []

    def _misc(self, o):
        rng = self.rng
        ops = [repr, str, hash, bool, dir, len, list, lambda x: x in x, lambda x: sorted(x.keys()),
               lambda x: list(x.items()), lambda x: x.type_key, lambda x: x.type_index, lambda x: x.handle,
               lambda x: list(reversed(x)), lambda x: x.numpy()]
        return rng.choice(ops)(o)

    def _ndarray_op(self, obj):
        rng = self.rng
        np = self.np
        k = rng.randrange(7)
        if k == 0:
            attr = rng.choice(["shape", "dtype", "ndim", "device", "strides", "data_ptr", "read_only"])
            self.call(f"NDArray.{attr}", getattr, [obj, Value(attr, repr(attr))], kind="method")
        elif k == 1:
            self.call("NDArray.numpy", lambda x: x.numpy(), [obj], kind="method")
        elif k == 2:
            self.call("np.from_dlpack", np.from_dlpack, [obj], kind="method")
        elif k == 3:
            kw = {}
            for key in ("stream", "max_version", "dl_device", "copy"):
                if rng.random() < 0.4:
                    kw[key] = rng.choice([None, (1, 0), (0, 5), (2, 0), (1, 2**40), -1, "x", (1,), True,
                                          (1, 0, 0), (2**31, 0)])
            self.call(f"NDArray.__dlpack__(**{kw!r})", lambda x: x.__dlpack__(**kw), [obj], kind="method")
        elif k == 4:
            self.call("NDArray.copyfrom", lambda x, s: x.copyfrom(s), [obj, self.draw()], kind="method")
        elif k == 5:
            self.call("NDArray.__dlpack_device__", lambda x: x.__dlpack_device__(), [obj], kind="method")
        else:
            self.call("tvmlite.nd.from_dlpack", self.tvmlite.nd.from_dlpack, [obj], kind="method")

    def op_structural(self):
        rng = self.rng
        tvmlite = self.tvmlite
        a = rng.choice([self._holder(), self.draw()])
        b = rng.choice([a, self._holder(), self.draw()])
        k = rng.randrange(7)
        mfv = Value(rng.random() < 0.5, "map_free_vars")
        if k == 0:
            self.call("structural_hash", tvmlite.structural_hash, [a, mfv], kind="api")
        elif k == 1:
            self.call("structural_equal", tvmlite.structural_equal, [a, b, mfv], kind="api")
        elif k == 2:
            self.call("assert_structural_equal", tvmlite.runtime.assert_structural_equal, [a, b, mfv], kind="api")
        elif k == 3:
            self.call("save_json/load_json", lambda x: tvmlite.load_json(tvmlite.save_json(x)), [a], kind="api")
        elif k == 4:
            self.call("load_json", tvmlite.load_json, [rng.choice([self.draw_str(), self.draw(), self._json_ish()])],
                      kind="api")
        elif k == 5:
            self.call("pickle", lambda x: pickle.loads(pickle.dumps(x)), [a], kind="api")
        else:
            self.call("save_json", tvmlite.save_json, [a], kind="api")

    def _json_ish(self):
        """Valid JSON from a held value, mutated a little."""
        try:
            text = self.tvmlite.save_json(self._holder().v)
        except Exception:
            text = '{"root": 1}'
        if text and self.rng.random() < 0.7:
            i = self.rng.randrange(len(text))
            text = text[:i] + self.rng.choice(["", "1", "-", '"', "}", "9999999999", "null", "\\u0000"]) \
                + text[i + self.rng.randrange(3):]
        return Value(text, f"json {_short(repr(text), 200)}")

    def op_registry(self):
        """register_func / remove_global_func / register_object, on names the fuzzer owns."""
        rng = self.rng
        tvmlite = self.tvmlite
        k = rng.randrange(4)
        suffix = rng.choice(["f0", "f1", "f2", "a\x00b", "\ud800", "", "üñí"])
        name = OWN_PREFIX + suffix
        if k == 0:
            f = rng.choice([self.draw_callable(), self.draw()])
            override = rng.random() < 0.6
            self.call("register_func", tvmlite.register_func, [Value(name, repr(name)), f,
                                                               Value(override, repr(override))], kind="api")
            if name in tvmlite.list_global_func_names():  # (register_func(name, None) is a decorator)
                self._registered_names.add(name)
        elif k == 1:
            self.call("remove_global_func", tvmlite.remove_global_func, [Value(name, repr(name))], kind="api")
            self._registered_names.discard(name)
        elif k == 2:
            self.call("get_global_func", tvmlite.get_global_func,
                      [rng.choice([Value(name, repr(name)), self.draw_str(), self.draw()])], kind="api")
        else:
            # Define (or redefine, maybe with other fields) a type from Python: it joins the targets at once.
            key = OWN_PREFIX + rng.choice(["T0", "T1", "T2"])
            choices = [("a", int), ("b", float), ("c", str), ("d", object), ("e", bool),
                       ("f", self.tvmlite.Object)]
            fields = rng.sample(choices, rng.randrange(1, 4))
            ann = dict(fields)
            cls = type("Dyn", (self.tvmlite.Object,), {"__module__": __name__, "__annotations__": ann})
            if self.call(f"register_object({key!r}) fields {list(ann)}", tvmlite.register_object(key),
                         [Value(cls, "cls")], kind="api", key="register_object"):
                self._dyn_types[key] = cls

    # ------------------------------------------------------------------------------------------------------------
    # One call, with its contract
    # ------------------------------------------------------------------------------------------------------------

    def describe(self, target, args):
        return f"{target}({', '.join(_short(a.expr, 200) for a in args)})"

    def call(self, target, f, args, kind="global", key=None):
        """Make one call; returns True when it returned a value. Findings are recorded, not raised.

        target describes the callee for the log, key (default: target) names it in the coverage counts."""
        self.ncalls += 1
        index = self.ncalls
        desc = None
        if self.log_fd is not None or (self.trace_from is not None and index >= self.trace_from):
            desc = f"seed={self.seed} call=#{index} {self.describe(target, args)}"
            if self.log_fd is not None:
                os.write(self.log_fd, (desc.encode("utf-8", "backslashreplace") + b"\n"))
            if self.trace_from is not None and index >= self.trace_from:
                print(desc, flush=True)
        self.stats[key or (target if kind != "method" else f"method {target.split('(')[0]}")] += 1
        self._own_exc_objs = []
        n_unraisable = len(self._unraisable)
        ok = False
        try:
            result = f(*[a.v for a in args])
            ok = True
            self.outcomes["ok"] += 1
            if kind == "method" and type(result) is int:
                result = None  # handles, hashes, data pointers: addresses, which would make a seed's replay differ
            if result is not None and len(self.pool) < 64 and self.rng.random() < 0.3:
                self.pool.append(Value(result, f"<result of call #{index}>"))
            elif result is not None and self.pool and self.rng.random() < 0.1:
                self.pool[self.rng.randrange(len(self.pool))] = Value(result, f"<result of call #{index}>")
            del result
        except Exception as exc:
            self._check_exception(exc, desc or index, target, args)
        except BaseException as exc:  # noqa: B902 - judged here
            if id(exc) in self._own_exc and any(exc is e for e in self._own_exc_objs):
                self.outcomes[type(exc).__name__] += 1
            else:
                self._finding(f"{type(exc).__name__} that no callback raised escaped: {exc!r}", index, target,
                              args)
        finally:
            self._own_exc.clear()
            self._own_exc_objs = []
        if len(self._unraisable) > n_unraisable:
            self._finding("unraisable exception: " + "; ".join(self._unraisable[n_unraisable:]), index, target, args)
        return ok

    def _check_exception(self, exc, where, target=None, args=None):
        name = _short(type(exc).__name__, 40)  # (testing.raise makes error classes named by any str)
        self.outcomes[name] += 1
        if name not in self.examples and target is not None:  # the first call that raised each type
            call = _short(self.describe(target, args), 400)
            self.examples[name] = f"call=#{self.ncalls} {call}: {_short(str(exc), 200)}"

        if isinstance(exc, SystemError) and not isinstance(exc, self.tvmlite.TVMLiteError):
            self._finding(f"SystemError (C-API misuse): {exc!r}", where, target, args)

    def _finding(self, what, where, target, args):
        call = self.describe(target, args) if target is not None else str(where)
        index = where if isinstance(where, int) else self.ncalls
        self.findings.append(f"seed={self.seed} call=#{index}: {what}\n    call: {call}")

    def run(self, ncalls, deadline=None, crash_at=None, hang_at=None):
        while self.ncalls < ncalls:
            if deadline is not None and time.monotonic() > deadline:
                break
            if crash_at is not None and self.ncalls + 1 == crash_at:  # the harness's self-test
                # SIGILL: ASan does not take it over (it does SIGSEGV: a report, then exit 1), so the self-test
                # sees the same death in the sanitized run. A real crash there is an "exit 1" finding.
                self.call("selftest.crash", os.kill, [Value(os.getpid(), "os.getpid()"),
                                                      Value(signal.SIGILL, "signal.SIGILL")])
            if hang_at is not None and self.ncalls + 1 == hang_at:
                self.call("selftest.hang", time.sleep, [Value(3600, "3600")])
            self.step()

    def drop_values(self):
        """Drop every value the fuzzer holds, for the leak check.

        C++ objects are reference-counted, so a cycle made through a writable field (``node.value = node``, or
        ``node.value = [node]``) is never freed: by design, as in TVM. Field writes make such cycles (a
        constructor's arguments exist before the object), and so do hooks: a hook converted to a Function is held
        by C++ and reaches its victim's wrapper, which a re-initialisation may point at that very Function. So
        the objects written to get None in their writable fields first and hooks lose their victims; the leak
        check then counts every other object that outlives its last reference."""
        for o in self._written:
            for name in self._field_names(o):
                try:
                    setattr(o, name, None)
                except Exception:
                    pass
        self._written.clear()
        for box in self._hook_victims:
            box[0] = None
        self._hook_victims.clear()
        self.pool.clear()
        self._dyn_types.clear()


def _ro(a):
    a.flags.writeable = False
    return a


class _IntLike:
    def __index__(self):
        return 2**70


class _FloatLike:
    def __float__(self):
        return float("nan")


class _Color(enum.IntEnum):
    RED = 3


class _MyInt(int):
    pass


class _MyStr(str):
    pass


class _MyFloat(float):
    pass


class _MyList(list):
    def __iter__(self):
        raise RuntimeError("a list subclass whose __iter__ raises")


class _MyDict(dict):
    def items(self):
        raise RuntimeError("a dict subclass whose items() raises")


class _BadDLPack:
    def __dlpack__(self, stream=None, max_version=None, **kw):
        raise RuntimeError("no export")

    def __dlpack_device__(self):
        return (1, 0)


class _BadGetattr:
    def __getattr__(self, name):
        raise ZeroDivisionError(name)


class _BadIndex:
    def __index__(self):
        raise ValueError("bad __index__")

    def __float__(self):
        raise ValueError("bad __float__")


class _Lying:
    def __len__(self):
        return 2**62

    def __getitem__(self, i):
        if i > 3:
            raise IndexError(i)
        return i


_ODD_NS = {name: obj for name, obj in globals().items() if name.startswith("_") and isinstance(obj, type)}


# ----------------------------------------------------------------------------------------------------------------
# A batch (run in a child process) and the driver (the parent)
# ----------------------------------------------------------------------------------------------------------------

def run_batch(seed, ncalls, log_path=None, trace_from=None, leak_check=True, seconds=None, crash_at=None,
              hang_at=None):
    """Run one batch in this process; returns a report dict (JSON-able)."""
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) if log_path else None
    import tvmlite.testing
    fz = Fuzzer(seed, log_fd, trace_from)
    baseline = fz.baseline
    initial_globals = fz.global_names()
    start = time.monotonic()
    fz.run(ncalls, None if seconds is None else start + seconds, crash_at, hang_at)
    elapsed = time.monotonic() - start
    leak = None
    fz.drop_values()
    fz.close()
    if leak_check:
        if log_fd is not None:
            os.write(log_fd, f"seed={seed} leak check\n".encode())
        for _ in range(3):
            gc.collect()
        leak = tvmlite.testing.object_count() - baseline
        if leak != 0:
            fz.findings.append(f"seed={seed}: leak check: object_count() is {leak:+d} from its baseline after "
                               f"{fz.ncalls} calls, once the fuzzer dropped its values and gc.collect()")
    if log_fd is not None:
        os.write(log_fd, f"seed={seed} done\n".encode())
        os.close(log_fd)
    return {"seed": seed, "calls": fz.ncalls, "seconds": round(elapsed, 2), "findings": fz.findings,
            "targets": dict(fz.stats), "outcomes": dict(fz.outcomes), "skipped": dict(fz.skipped),
            "unreachable": dict(fz.unreachable), "leak": leak, "globals": initial_globals,
            "examples": fz.examples}


def _child_main(args):
    report = run_batch(args.seed, args.calls, args.log, leak_check=not args.no_leak_check, seconds=args.seconds,
                       crash_at=args.selftest_crash_at, hang_at=args.selftest_hang_at)
    with open(args.report, "w") as f:
        json.dump(report, f)


def hang_seconds():
    """A batch whose log shows no new call for this long is hung (the sanitizers slow every call down)."""
    return 150 if os.environ.get("TVMLITE_SANITIZE_RUN") == "1" else 30


def run_child(seed, ncalls, timeout=None, seconds=None, leak_check=True, crash_at=None, hang_at=None, hang=None):
    """Run a batch in a fresh interpreter on this process's backend (TVMLITE_FFI is inherited).

    The child logs each call before making it; when the log does not grow for `hang` seconds the child gets SIGABRT
    (faulthandler prints where it is stuck), then SIGKILL. `timeout` bounds the whole batch."""
    here = os.path.abspath(__file__)
    hang = hang or hang_seconds()
    import tvmlite
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tvmlite.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory(prefix="tvmlite-fuzz-") as tmp:
        log, report = os.path.join(tmp, "calls.log"), os.path.join(tmp, "report.json")
        out_path = os.path.join(tmp, "output.txt")
        cmd = [sys.executable, "-X", "faulthandler", here, "--child", "--seed", str(seed), "--calls", str(ncalls),
               "--log", log, "--report", report]
        if seconds is not None:
            cmd += ["--seconds", str(seconds)]
        if not leak_check:
            cmd.append("--no-leak-check")
        if crash_at is not None:
            cmd += ["--selftest-crash-at", str(crash_at)]
        if hang_at is not None:
            cmd += ["--selftest-hang-at", str(hang_at)]
        how = None
        start = last_progress = time.monotonic()
        last_size = -1
        with open(out_path, "w") as out_file:
            proc = subprocess.Popen(cmd, env=env, stdout=out_file, stderr=subprocess.STDOUT)
            while proc.poll() is None:
                time.sleep(0.1)
                now = time.monotonic()
                size = os.path.getsize(log) if os.path.exists(log) else -1
                if size != last_size:
                    last_size, last_progress = size, now
                stuck = now - last_progress > hang
                if stuck or (timeout is not None and now - start > timeout):
                    how = (f"hung (no new call for {hang}s)" if stuck else f"timed out after {timeout}s")
                    proc.send_signal(signal.SIGABRT)  # faulthandler dumps the stuck traceback
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
                    break
        with open(out_path, errors="replace") as f:
            out = f.read()
        rc = proc.returncode
        if how is None and rc != 0:
            how = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"
        if how is None and os.path.exists(report):
            with open(report) as f:
                return json.load(f)
        last = ""
        if os.path.exists(log):
            with open(log, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
            last = "\n".join(lines[-3:])
        finding = (f"seed={seed}: batch {how or 'wrote no report'} on the {_backend()} backend; the last calls "
                   f"started:\n{last}\nreproduce: TVMLITE_FFI={_backend()} python {os.path.relpath(here)} --seed "
                   f"{seed} --calls {ncalls} --inline\nchild output (tail):\n{out[-4000:]}")
        return {"seed": seed, "calls": None, "findings": [finding], "targets": {}, "outcomes": {}, "skipped": {},
                "leak": None, "crashed": True}


def _backend():
    from tvmlite._ffi import core
    return core.BACKEND


def budget():
    """(total calls, base seed, seconds or None, number of batches) from the environment."""
    calls = int(os.environ.get("TVMLITE_FUZZ_CALLS", DEFAULT_CALLS))
    seed = int(os.environ.get("TVMLITE_FUZZ_SEED", DEFAULT_SEED))
    seconds = os.environ.get("TVMLITE_FUZZ_SECONDS")
    return calls, seed, float(seconds) if seconds else None, DEFAULT_BATCHES


def drive(total_calls, base_seed, nbatches=DEFAULT_BATCHES, seconds=None, timeout=None, jobs=1, echo=print):
    """Run batches in children until total_calls are made (or, with seconds, until that time is up: a soak).

    Returns the merged report."""
    per_batch = max(1, total_calls // nbatches)
    if seconds is not None:
        per_batch = min(per_batch, 20000)
    sanitize = os.environ.get("TVMLITE_SANITIZE_RUN") == "1"
    timeout = timeout or (5 if sanitize else 1) * (120 + per_batch // 50)  # a batch's cap; hangs end sooner
    merged = {"calls": 0, "batches": [], "findings": [], "targets": collections.Counter(),
              "outcomes": collections.Counter(), "skipped": collections.Counter(),
              "unreachable": collections.Counter(), "globals": set(), "examples": {}}
    start = time.monotonic()
    seed = base_seed
    done_batches = 0
    while True:
        if seconds is None and done_batches >= nbatches:
            break
        if seconds is not None and time.monotonic() - start > seconds:
            break
        seeds = [seed + i for i in range(jobs)]
        seed += jobs
        if jobs == 1:
            reports = [run_child(seeds[0], per_batch, timeout)]
        else:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(jobs) as ex:
                reports = list(ex.map(lambda s: run_child(s, per_batch, timeout), seeds))
        for rep in reports:
            done_batches += 1
            merged["batches"].append({k: rep.get(k) for k in ("seed", "calls", "seconds", "leak")})
            merged["calls"] += rep["calls"] or 0
            merged["findings"] += rep["findings"]
            merged["targets"].update(rep["targets"])
            merged["outcomes"].update(rep["outcomes"])
            merged["skipped"].update(rep["skipped"])
            merged["unreachable"].update(rep.get("unreachable", {}))
            merged["globals"].update(rep.get("globals", ()))
            for k, v in rep.get("examples", {}).items():
                merged["examples"].setdefault(k, f"seed={rep['seed']} {v}")
            echo(f"batch seed={rep['seed']}: {rep['calls']} calls in {rep.get('seconds')}s, "
                 f"leak {rep.get('leak')}, {len(rep['findings'])} findings")
    return merged


def format_report(merged):
    lines = [f"backend {_backend()}: {merged['calls']} calls in {len(merged['batches'])} batches "
             f"(seeds {[b['seed'] for b in merged['batches']]})"]
    lines.append("outcomes: " + ", ".join(f"{k} {v}" for k, v in merged["outcomes"].most_common()))
    lines.append(f"targets ({len(merged['targets'])}):")
    for k, v in sorted(merged["targets"].items()):
        lines.append(f"  {v:7d}  {k}")
    if merged["skipped"]:
        lines.append("skipped by policy: " + ", ".join(f"{k} {v}" for k, v in sorted(merged["skipped"].items())))
    rare = [k for k, v in merged["outcomes"].items() if v < 10 and k in merged.get("examples", {})]
    if rare:
        lines.append("rare exceptions, first call:")
        lines += [f"  {k}: {merged['examples'][k]}" for k in sorted(rare)]
    if merged["unreachable"]:
        lines.append("types with no constructor: " + ", ".join(sorted(merged["unreachable"])))
    lines.append("policy: " + "; ".join(f"{k}: {v[0]} ({v[1]})" for k, v in POLICY.items()))
    lines.append(f"findings: {len(merged['findings'])}")
    lines += merged["findings"]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    env_calls, env_seed, env_seconds, nbatches = budget()
    p.add_argument("--seed", type=int, default=env_seed)
    p.add_argument("--calls", type=int, default=env_calls, help="total calls (per batch with --inline/--child)")
    p.add_argument("--batches", type=int, default=nbatches)
    p.add_argument("--seconds", type=float, default=env_seconds, help="soak: run batches for this long")
    p.add_argument("--jobs", type=int, default=1, help="batches run at once")
    p.add_argument("--inline", action="store_true", help="one batch in this process (to reproduce)")
    p.add_argument("--trace-from", type=int, default=None, help="with --inline: print every call from this one")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--log", help=argparse.SUPPRESS)
    p.add_argument("--report", help=argparse.SUPPRESS)
    p.add_argument("--no-leak-check", action="store_true")
    p.add_argument("--selftest-crash-at", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--selftest-hang-at", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        _child_main(args)
        return 0
    if args.inline:
        rep = run_batch(args.seed, args.calls, trace_from=args.trace_from, leak_check=not args.no_leak_check)
        merged = {"calls": rep["calls"], "batches": [rep], "findings": rep["findings"],
                  "targets": collections.Counter(rep["targets"]), "outcomes": collections.Counter(rep["outcomes"]),
                  "skipped": collections.Counter(rep["skipped"]),
                  "unreachable": collections.Counter(rep["unreachable"]), "examples": rep["examples"]}
    else:
        merged = drive(args.calls, args.seed, args.batches, args.seconds, jobs=args.jobs)
    print(format_report(merged))
    return 1 if merged["findings"] else 0


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    sys.exit(main())
