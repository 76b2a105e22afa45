"""ExecutorFactoryModule: what ``tvmlite.build(mod, target="cpu")`` returns (TVM's ``GraphExecutorFactoryModule``).

    lib = tvmlite.build(mod, target="cpu", params=params)
    ex = lib["default"](tvmlite.cpu(0))          # a GraphExecutor; wrap it in runtime.GraphModule
    lib.get_graph_json(); lib.get_params(); lib.export_library("model.tvmlite")

The factory holds the graph JSON (csrc/backend/graph_codegen.cc) and the params. Every executor it makes shares the
params (read only) and owns its storage, so executors run concurrently from several threads, each at full speed. One
executor shared by threads is safe too: each call locks it (see GraphExecutor). The executor itself is C++
(csrc/backend/graph_executor.cc); GraphExecutor below is its thin Python face.

A graph is input (load_module reads it from a file): it is checked whole when the factory is made, and its nodes may
name only kernel factories, the C++ ones and the Python ones registered with ``register_kernel_factory`` (the
reference kernel, relay.backend.reference, is one), never any other registered function.
"""
from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

from .._ffi import core
from .._ffi.error import get_error_class
from .container import convert
from .fallbacks import scan
from .ndarray import NDArray, array, cpu

__all__ = ["ExecutorFactoryModule", "GraphExecutor", "register_kernel_factory", "to_executor_value",
           "from_executor_value"]


def _api(name):
    return core.get_global_func("graph_executor." + name)


class _Api:
    """The graph_executor.* globals, bound once."""

    def __init__(self):
        for name in ("parse", "fallbacks", "check", "create", "set_input", "run", "profile", "get_output",
                     "get_num_outputs", "get_input", "get_input_names"):
            setattr(self, name, _api(name))


_API = None


def _get_api():
    global _API
    if _API is None:
        _API = _Api()
    return _API


#: name -> Function: the kernel factories registered from Python (a graph may name them while they stay registered)
_PY_FACTORIES = {}
_PY_FACTORIES_MAP = None  # _PY_FACTORIES as the Map the executor takes, made when first needed


def register_kernel_factory(name, factory, override=False):
    """Register a Python kernel factory: ``factory(attrs)`` returns the bound kernel, called with a node's inputs
    then its outputs (as the C++ ones, e.g. topi.nn.dense). Registered as the global function ``name`` too (the
    build asks it whether it takes a group); graph nodes may name it as long as it stays registered under ``name``
    (register_func(name, ..., override=True) ends that)."""
    global _PY_FACTORIES_MAP
    if not isinstance(name, str):
        raise TypeError(f"register_kernel_factory: name must be a str, got {type(name).__name__}")
    if not callable(factory):
        raise TypeError(f"register_kernel_factory: factory must be callable, got {type(factory).__name__}")
    func = convert(factory)
    core.register_global_func(name, func, override)
    _PY_FACTORIES[name] = func
    _PY_FACTORIES_MAP = None


def _py_factories():
    global _PY_FACTORIES_MAP
    if _PY_FACTORIES_MAP is None:
        _PY_FACTORIES_MAP = convert(dict(_PY_FACTORIES))
    return _PY_FACTORIES_MAP


_BOX_KEY = "__tvmlite_pyvalue__"
_ValueError = get_error_class("ValueError")  # tvmlite's (a TVMLiteError), as the executor's own checks raise


def _contiguous(value):
    """value as a C-contiguous numpy array of the same rank (np.ascontiguousarray makes 0-d arrays 1-d)."""
    value = np.asarray(value)
    return value if value.flags.c_contiguous else value.copy(order="C")


def to_executor_value(value):
    """A Python value as an executor entry holds it: an NDArray for arrays NDArray can hold (ml_dtypes ones through
    a view of their bits), a list for sequences, None; anything else (string tensors, int4, ...) boxed in a Map the
    executor only carries around (reference nodes and get_output unbox it)."""
    if value is None or isinstance(value, NDArray):
        return value
    if isinstance(value, (list, tuple)):
        return [to_executor_value(v) for v in value]
    arr = _contiguous(value)
    if arr.dtype.kind in "biuf" and arr.dtype.isnative:  # what NDArray holds (complex is boxed below)
        return array(arr)
    from .ndarray import ML_DTYPE_NAMES

    if arr.dtype.name in ML_DTYPE_NAMES and arr.dtype.itemsize in (1, 2):
        from . import _ffi_api

        bits = arr.view(np.uint8 if arr.dtype.itemsize == 1 else np.uint16)
        try:
            return _ffi_api.NDArrayCreateView(array(bits), list(arr.shape), arr.dtype.name)
        except (ValueError, TypeError):  # a sub-byte type (int4, float4_e2m1fn): its NDArray is packed
            pass
    import pickle

    return convert({_BOX_KEY: pickle.dumps(arr)})


def from_executor_value(value):
    """An executor entry as a Python value: NDArrays as they are, sequences as lists, boxed values unboxed."""
    from .container import Array, Map

    if isinstance(value, Array):
        return [from_executor_value(v) for v in value]
    if isinstance(value, Map) and _BOX_KEY in value:
        import pickle

        return pickle.loads(value[_BOX_KEY])
    return value


_input_value = to_executor_value


class GraphExecutor:
    """One executor: ``set_input``, ``run``, ``get_output`` (the executor module GraphModule wraps).

    Threads may share one: each call holds the executor's lock (releasing the GIL first), so every call sees a
    consistent executor, but a sequence of calls is not atomic (another thread's set_input may come between yours
    and your run). Give each thread its own executor (``lib["default"](dev)``, cheap: params are shared) to run
    in parallel."""

    def __init__(self, handle):
        self._handle = handle
        self._api = _get_api()

    def set_input(self, key: str, value: Any) -> None:
        """Set input ``key`` (a name or an index): copied into the executor's buffer (shape and dtype checked)."""
        self._api.set_input(self._handle, key, _input_value(value))

    def run(self) -> None:
        """Run every node (Python's GIL is released meanwhile)."""
        self._api.run(self._handle)

    def get_output(self, index: int) -> NDArray:
        """Output ``index`` as of the last completed run: a copy no later run or set_input changes."""
        return from_executor_value(self._api.get_output(self._handle, index))

    def get_num_outputs(self) -> int:
        return self._api.get_num_outputs(self._handle)

    def get_input(self, name: str) -> NDArray:
        return from_executor_value(self._api.get_input(self._handle, name))

    def get_input_names(self) -> list[str]:
        return [str(n) for n in self._api.get_input_names(self._handle)]

    def profile(self) -> list[dict[str, Any]]:
        """Run once timing each node: a list of dicts (name, func_name, shape, time_ms), in execution order."""
        return [{"name": str(r["name"]), "func_name": str(r["func_name"]), "shape": tuple(int(d) for d in r["shape"]),
                 "time_ms": float(r["time_ms"])} for r in self._api.profile(self._handle)]


def _int_attr(attrs, key):
    value = attrs.get(key, 0)
    if type(value) is not int:
        raise _ValueError(f"ExecutorFactoryModule: the graph's attrs.{key} must be an int, got {value!r:.40}")
    return value


class ExecutorFactoryModule:
    """A built model: the graph JSON and the params; ``self["default"](device)`` makes a GraphExecutor."""

    def __init__(self, graph_json, params):
        if not isinstance(graph_json, str):
            raise TypeError(f"ExecutorFactoryModule: graph_json must be a str, got {type(graph_json).__name__}")
        self._graph_json = graph_json
        api = _get_api()
        self._graph = api.parse(graph_json)  # the executor's own JSON reader (C++): a Map
        self._fallbacks, self._op_nodes = scan(self._graph)  # loop bodies' nodes too
        if self._fallbacks:
            # registers relay.backend.reference (which imports relay): only graphs with reference nodes need it,
            # so loading an all-native model stays quick
            from ..relay.backend import reference_kernel  # noqa: F401
        self._params = {str(k): v if isinstance(v, NDArray) else to_executor_value(v)
                        for k, v in dict(params or {}).items()}
        self._params_map = convert(self._params)
        api.check(self._graph, self._params_map, _py_factories())  # every malformed part: a ValueError
        attrs = self._graph["attrs"]
        #: the memory plan's figures: bytes of the shared storages vs. the sum of all intermediates
        self.planned_bytes = _int_attr(attrs, "planned_bytes")
        self.intermediate_bytes = _int_attr(attrs, "intermediate_bytes")

    def __getitem__(self, key: str) -> Callable[..., GraphExecutor]:
        if key != "default":
            raise KeyError(f"the library has no function '{key}' (it has: default)")
        return self._create

    def _create(self, device=None):
        return GraphExecutor(_get_api().create(self._graph, self._params_map, device or cpu(0), _py_factories()))

    def get_graph_json(self) -> str:
        return self._graph_json

    def fallbacks(self) -> list[dict[str, str]]:
        """The graph nodes that run on the numpy reference rather than a native kernel, in execution order: dicts
        with name and reason (why no kernel took the node). Empty when the whole model is native."""
        return [dict(r) for r in self._fallbacks]

    def get_params(self) -> dict[str, NDArray]:
        """The params by name (p0, p1, ...: the module's constants)."""
        return dict(self._params)

    def export_library(self, path: str | os.PathLike[str]) -> None:
        """Write the graph and the params to one file that ``tvmlite.runtime.load_module`` reads back."""
        from .module import save_module

        save_module(path, self._graph_json, self._params)
