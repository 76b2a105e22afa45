"""``relay.backend.reference``: the kernel factory for groups with no native kernel.

The lowering (csrc/backend/group_lowering.cc) gives such a group its own graph node whose kernel_attrs hold the group
as a Function saved with ``save_json`` (``{"func": text}``). The graph executor calls this factory once per node at
load; the bound kernel evaluates the function with the debug executor's interpreter (the ops' numpy references) on
every run. Its inputs arrive flattened (a tuple-typed parameter takes one executor entry per field); it returns its
outputs as a flat list, new arrays (never views of its inputs) or non-tensor values (sequences, None), which the
executor stores: these nodes may have dynamic shapes.

Registered at import as a kernel factory (runtime.executor_factory.register_kernel_factory: a graph may name it);
``tvmlite.runtime.load_module`` and the cpu build import this module.
"""
import numpy as np

from ...ir.type import TupleType
from ...runtime.executor_factory import from_executor_value, register_kernel_factory, to_executor_value
from ...runtime.ndarray import ML_DTYPE_NAMES
from ...runtime.serialization import load_json
from .. import transform
from ..expr import Function
from .debug_executor import _Interpreter, _check

__all__ = ["make_reference_kernel"]


def _arity(ty):
    """How many executor entries a value of type ty takes (tuples are flattened)."""
    return sum(_arity(f) for f in ty.fields) if isinstance(ty, TupleType) else 1


def _from_ffi(value):
    """An executor value as the interpreter wants it: numpy arrays, lists for sequences, None."""
    value = from_executor_value(value)
    if isinstance(value, list):
        return [_from_ffi(v) for v in value]
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        if str(value.dtype) not in ML_DTYPE_NAMES:
            try:  # a view of the executor's entry: references never write their inputs (the debug one shares too)
                return np.from_dlpack(value)
            except (TypeError, ValueError, BufferError):
                pass
        return value.numpy()
    return value


def _regroup(values, ty, pos):
    """The value of type ty from the flat values at pos: (value, next pos)."""
    if isinstance(ty, TupleType):
        fields = []
        for f in ty.fields:
            v, pos = _regroup(values, f, pos)
            fields.append(v)
        return tuple(fields), pos
    return values[pos], pos + 1


def _flatten(value, ty, out):
    if isinstance(ty, TupleType):
        for v, f in zip(value, ty.fields):
            _flatten(v, f, out)
    else:
        out.append(value)


def _to_ffi(value):
    """A result as an executor value: always a fresh array (a reference may return its input itself)."""
    if isinstance(value, np.ndarray):
        return to_executor_value(value)  # copies: the result may be (a view of) an input
    if isinstance(value, (list, tuple)):
        return [_to_ffi(v) for v in value]
    return value


def make_reference_kernel(attrs):
    """The factory: attrs["func"] (save_json text of a Function) -> the bound kernel."""
    text = attrs.get("func") if hasattr(attrs, "get") else None
    if not isinstance(text, str):
        raise ValueError(f"relay.backend.reference: attrs must hold 'func' (a saved Function), got {text!r:.40}")
    func = load_json(text)
    if not isinstance(func, Function):
        raise ValueError(f"relay.backend.reference: 'func' must hold a Function, got {type(func).__name__}")
    from ...ir.module import IRModule

    mod = transform.InferType()(IRModule.from_expr(func))
    interp = _Interpreter(mod)
    func = mod["main"]
    param_types = [p.checked_type for p in func.params]
    arity = sum(_arity(t) for t in param_types)
    out_type = func.body.checked_type
    plan = interp.plan(func)

    def run(*args):
        if len(args) != arity:
            raise TypeError(f"relay.backend.reference: expected {arity} inputs, got {len(args)}")
        flat = [_from_ffi(a) for a in args]
        env, pos = {}, 0
        for p, t in zip(func.params, param_types):
            env[p], pos = _regroup(flat, t, pos)
        result = interp.evaluate(func.body, plan, env)
        result = _check(result, out_type, "relay.backend.reference")
        outs = []
        _flatten(result, out_type, outs)
        return [_to_ffi(v) for v in outs]

    return run


register_kernel_factory("relay.backend.reference", make_reference_kernel, override=True)
