"""``tvmlite.build``: a module -> a library whose ``lib["default"](device)`` is an executor module."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..ir.module import IRModule
from ..relay.expr import Function

if TYPE_CHECKING:
    from ..runtime.executor_factory import ExecutorFactoryModule

__all__ = ["build"]

_TARGETS = ("debug", "cpu", "llvm")


def build(mod: IRModule | Function, target: str = "debug",
          params: Mapping[str, Any] | None = None) -> ExecutorFactoryModule:
    """Build mod for target. ``target="debug"`` interprets the IR with the ops' numpy references; ``"cpu"`` (alias
    ``"llvm"``) lowers it to a graph of native kernels run by the C++ graph executor (docs/compiler.md).

    Parameters
    ----------
    mod : IRModule or Function
    target : str
    params : dict of str to array, optional
        Values of main's inputs that are weights (from ``from_onnx``); set in every executor made.
    """
    if isinstance(mod, Function):
        mod = IRModule.from_expr(mod)
    if not isinstance(mod, IRModule):
        raise TypeError(f"tvmlite.build: mod must be an IRModule or a Function, got {type(mod).__name__}")
    if not isinstance(target, str):
        raise TypeError(f"tvmlite.build: target must be a str, got {type(target).__name__}")
    if target == "debug":
        from .backend.debug_executor import DebugExecutorFactory

        return DebugExecutorFactory(mod, params)
    if target in ("cpu", "llvm"):
        from .backend import cpu_pipeline

        return cpu_pipeline.build(mod, params)
    raise ValueError(f"tvmlite.build: unknown target '{target}' (available: {', '.join(_TARGETS)})")
