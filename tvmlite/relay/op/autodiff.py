"""Reverse-mode differentiation rules: each op's "FPrimalGradient" attribute (TVM's name), and collapse_sum_like.

A rule is ``rule(call, grad) -> [grad of each input]``: given the call and the gradient flowing into its output,
the gradients of its inputs as relay expressions (None for an input with no gradient, like an index). Rules are
registered through the FFI like references (``register_gradient``) and read by ``relay.gradient``.
"""
import numpy as np

from ...ir.op import Op
from . import _make
from .op import register_reference

__all__ = ["collapse_sum_like", "register_gradient", "get_gradient"]

_RULES = {}  # op name -> (level, rule): the Python side of "FPrimalGradient", as references keep theirs


def collapse_sum_like(data, like):
    """data summed down to like's shape (undoes numpy broadcasting)."""
    return _make.collapse_sum_like(data, like)


@register_reference("collapse_sum_like")
def _collapse_sum_like(attrs, data, like):
    lead = data.ndim - like.ndim
    out = data.sum(axis=tuple(range(lead))) if lead else data
    axes = tuple(i for i, n in enumerate(like.shape) if n == 1 and out.shape[i] != 1)
    if axes:
        out = out.sum(axis=axes, keepdims=True)
    return np.array(out.reshape(like.shape), dtype=like.dtype)  # (np.ascontiguousarray would make 0-d 1-d)


def register_gradient(op_name, rule=None, level=10):
    """Register rule as op_name's gradient (decorator when rule is omitted); a higher level overrides."""
    def register(f):
        op = Op.get(op_name)
        op.set_attr("FPrimalGradient", f, level)
        if op.get_attr_level("FPrimalGradient") == level:
            _RULES[op_name] = (level, f)
        return f

    return register(rule) if rule is not None else register


def get_gradient(op_name):
    """The gradient rule of op_name, or None."""
    level = Op.get(op_name).get_attr_level("FPrimalGradient")
    entry = _RULES.get(op_name)
    return entry[1] if entry is not None and entry[0] == level else None


def _rules():
    from . import tensor as t

    def unbroadcast(call, *grads):
        return [None if g is None else collapse_sum_like(g, a) for g, a in zip(grads, call.args)]

    register_gradient("add", lambda call, g: unbroadcast(call, g, g))
    register_gradient("subtract", lambda call, g: unbroadcast(call, g, t.negative(g)))
    register_gradient("multiply", lambda call, g: unbroadcast(call, t.multiply(g, call.args[1]),
                                                             t.multiply(g, call.args[0])))
    register_gradient("divide", lambda call, g: unbroadcast(
        call, t.divide(g, call.args[1]),
        t.negative(t.divide(t.multiply(g, call), call.args[1]))))
    register_gradient("negative", lambda call, g: [t.negative(g)])
    register_gradient("exp", lambda call, g: [t.multiply(g, call)])
    register_gradient("log", lambda call, g: [t.divide(g, call.args[0])])
    register_gradient("sqrt", lambda call, g: [t.divide(g, t.add(call, call))])
    register_gradient("tanh", lambda call, g: [t.multiply(g, t.subtract(_one_of_dtype(call), t.multiply(call, call)))])
    register_gradient("sigmoid", lambda call, g: [t.multiply(g, t.multiply(call, t.subtract(_one_of_dtype(call),
                                                                                              call)))])
    register_gradient("copy", lambda call, g: [g])


def _one_of_dtype(expr):
    """A scalar 1 of expr's dtype (it broadcasts)."""
    from ..expr import const

    return const(1, dtype=str(expr.checked_type.dtype))


_rules()
