"""The cpu target's build: bind params, optimize, lower to a graph (docs/compiler.md).

    lib = build(mod, params)      # tvmlite.build(mod, target="cpu", params=params) calls this

``optimize(mod) -> mod`` is the pass pipeline (for now InferType; the optimisation passes of docs/compiler.md join
it); ``lower(mod)`` is csrc/backend/graph_codegen.cc (relay.backend.LowerToGraph).
"""
import numpy as np

from ...runtime.executor_factory import to_executor_value
from ...runtime.ndarray import NDArray
from .. import _ffi_api, transform
from ..expr import Constant, Function
from ..expr_functor import ExprMutator

__all__ = ["bind_params", "optimize", "lower", "build"]


class _Binder(ExprMutator):
    def __init__(self, constants):
        super().__init__()
        self.constants = constants

    def rewrite_var(self, var):
        return self.constants.get(var)


def bind_params(mod, params):
    """main with the inputs named in params replaced by Constants (TVM's bind_params_by_name)."""
    if not params:
        return mod
    from ...ir.module import IRModule

    main = mod["main"]
    by_name = {p.name_hint: p for p in main.params}
    unknown = [n for n in params if n not in by_name]
    if unknown:
        raise KeyError("build: params name no input of main: " + ", ".join(sorted(unknown)))
    constants = {}
    for name, value in params.items():
        if not isinstance(value, NDArray):
            value = to_executor_value(np.asarray(value))
            if not isinstance(value, NDArray):
                raise TypeError(f"build: param '{name}' of dtype {np.asarray(value).dtype} cannot be a constant")
        _check_param(name, value, by_name[name].type_annotation)
        constants[by_name[name]] = Constant(value)
    body = _Binder(constants).visit(main.body)
    new_main = Function([p for p in main.params if p not in constants], body, main.ret_type, dict(main.attrs or {}))
    functions = {str(gv): f for gv, f in mod.functions.items()}
    functions["main"] = new_main
    return IRModule(functions)


def _check_param(name, value, ty):
    """A param must fit its input's declared type (dtype, rank, static dims), as set_input would check."""
    from ...ir.type import TensorType

    if not isinstance(ty, TensorType):
        return
    if str(value.dtype) != str(ty.dtype):
        raise TypeError(f"build: param '{name}' is {ty}, got dtype {value.dtype}")
    shape = tuple(value.shape)
    if len(shape) != len(ty.shape) or any(isinstance(d, int) and d != n for d, n in zip(ty.shape, shape)):
        raise ValueError(f"build: param '{name}' is {ty}, got shape {shape}")


def optimize(mod):
    """The optimisation pipeline on a module with params bound: mod -> mod (typed)."""
    return transform.InferType()(mod)


def lower(mod):
    """(graph_json, params) of a typed module whose main is a dataflow graph (relay.backend.LowerToGraph)."""
    res = _ffi_api.__getattr__("backend.LowerToGraph")(mod)
    return str(res["graph_json"]), {str(k): v for k, v in res["params"].items()}


def build(mod, params=None):
    """The ExecutorFactoryModule of mod for the cpu target."""
    from ...runtime.executor_factory import ExecutorFactoryModule

    mod = transform.InferType()(mod)
    mod = bind_params(mod, params)
    mod = optimize(mod)
    graph_json, lowered_params = lower(mod)
    return ExecutorFactoryModule(graph_json, lowered_params)
