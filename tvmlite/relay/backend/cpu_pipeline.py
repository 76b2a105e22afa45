"""The cpu target's build: bind params, optimize, lower to a graph (docs/compiler.md).

    lib = build(mod, params)      # tvmlite.build(mod, target="cpu", params=params) calls this

``optimize(mod) -> mod`` is the pass pipeline of docs/compiler.md; ``lower(mod)`` is csrc/backend/graph_codegen.cc
(relay.backend.LowerToGraph).
"""

import numpy as np

from ...runtime.executor_factory import to_executor_value
from ...runtime.fallbacks import warn_fallbacks
from ...runtime.ndarray import NDArray
from .. import _ffi_api, transform
from . import control_flow

__all__ = ["bind_params", "optimize", "optimize_all", "lower", "build"]


def bind_params(mod, params):
    """main with the inputs named in params replaced by Constants (the C++ BindParams pass: unknown names and
    arrays that do not fit their input are a ValueError). Values numpy cannot hand over as an NDArray (string
    tensors) are a TypeError."""
    if not params:
        return mod
    arrays = {}
    for name, value in params.items():
        if not isinstance(value, NDArray):
            value = to_executor_value(np.asarray(value))
            if not isinstance(value, NDArray):
                raise TypeError(f"build: param '{name}' of dtype {np.asarray(value).dtype} cannot be a constant")
        arrays[name] = value
    return transform.BindParams(arrays)(mod)


def optimize(mod):
    """The optimisation pipeline (docs/compiler.md) on a module with params bound: mod -> mod (typed).

    It runs under the current PassContext; outside any, at opt_level 3, not TVM's default 2: below 3 the layout
    pass is off and convolutions run on the portable NCHW path."""
    from ...ir.transform import PassContext

    seq = transform.Sequential([
        transform.InferType(),
        transform.SimplifyInference(),
        transform.FoldConstant(),
        transform.SimplifyExpr(),
        transform.DynamicToStatic(),
        transform.Legalize(),
        transform.FoldConstant(),
        transform.FoldScaleAxis(),
        transform.FoldConstant(),
        transform.AlterOpLayout(),
        transform.FoldConstant(),
        transform.FuseOps(),
        transform.DeadCodeElimination(),
    ])
    if PassContext.is_default():
        with PassContext(opt_level=3):
            return seq(mod)
    return seq(mod)


def optimize_all(mod):
    """optimize(mod) after lifting main's run-time Ifs into if_calls whose branches are optimised the same way, then
    each Loop and Scan body optimised the same way (relay.backend.control_flow): the cpu build's pipeline."""
    mod = transform.InferType()(mod)
    mod = control_flow.lift_branches(mod, optimize_all)
    mod = optimize(mod)
    looped = control_flow.optimize_loop_bodies(mod, optimize_all)
    return mod if looped is mod else transform.InferType()(looped)  # a model without loops is typed already


def lower(mod):
    """(graph_json, params) of a typed module whose main is a dataflow graph (relay.backend.LowerToGraph). Under a
    PassContext of opt_level >= 3 (or none) that does not disable "FuseDepthwiseChains", depthwise convs merge with
    the 1x1 convs around them (csrc/backend/fuse_depthwise_chains.h)."""
    from ...ir.transform import PassContext

    ctx = PassContext.current()
    chains = PassContext.is_default() or (ctx.opt_level >= 3 and "FuseDepthwiseChains" not in ctx.disabled_pass)
    res = _ffi_api.__getattr__("backend.LowerToGraph")(mod, chains)
    return str(res["graph_json"]), {str(k): v for k, v in res["params"].items()}


def build(mod, params=None):
    """The ExecutorFactoryModule of mod for the cpu target; a FallbackWarning when some of its nodes run on the numpy
    reference (``lib.fallbacks()`` lists them with the reason)."""
    from ...runtime.executor_factory import ExecutorFactoryModule

    mod = transform.InferType()(mod)
    mod = bind_params(mod, params)
    mod = optimize_all(mod)
    graph_json, lowered_params = lower(mod)
    lib = ExecutorFactoryModule(graph_json, lowered_params)
    warn_fallbacks(lib.fallbacks(), lib._op_nodes)  # the graph parsed and scanned once, by the factory
    return lib
