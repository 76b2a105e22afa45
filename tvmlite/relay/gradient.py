"""relay.gradient: reverse-mode differentiation of an expression with respect to some of the nodes below it.

    dx, dw = relay.gradient(y, [x, w])        # y typed; dy/dx, dy/dw as relay expressions, seeded with ones(y)

The nodes between the xs and y are walked from y back in reverse topological order; each call's rule (the op's
"FPrimalGradient", tvmlite/relay/op/autodiff.py) maps the gradient of its output to those of its inputs, and the
gradients of a node used several times add up. The result is ordinary IR: type it, run it, print it. An op on the
path without a rule is OpNotImplemented naming it.
"""
from ..error import OpNotImplemented
from ..ir.op import Op
from .expr import Call, Tuple, TupleGetItem, const
from .expr_functor import children
from .op import tensor as _t
from .op.autodiff import get_gradient

__all__ = ["gradient"]


def _infer(expr):
    from . import _ffi_api

    return _ffi_api.__getattr__("_transform.InferTypeExpr")(expr)


def _filled(expr, value):
    """A tensor of expr's shape and dtype filled with value (not expr * 0: that is NaN where expr is inf)."""
    from .op import transform as _tr

    ty = expr.checked_type
    shape = list(ty.shape)
    if not all(isinstance(d, int) for d in shape):
        shape = _tr.shape_of(expr)
    return _tr.full(const(value, dtype=str(ty.dtype)), shape, str(ty.dtype))


def gradient(y, xs):
    """[dy/dx for x in xs]: expressions of x's shape (zeros when y does not depend on x)."""
    y = _infer(y)
    order, seen, stack = [], set(), [(y, False)]
    while stack:  # post-order of the nodes below y (children before parents)
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        kids = children(node)
        if isinstance(node, Call) and isinstance(node.op, Op):
            kids = list(node.args)
        stack.extend((k, False) for k in kids if k not in seen)
    grads = {y: _filled(y, 1)}  # the gradient of sum(y)
    for node in reversed(order):
        g = grads.get(node)
        if g is None or not isinstance(node, (Call, Tuple, TupleGetItem)):
            continue
        if isinstance(node, Call):
            if not isinstance(node.op, Op):
                raise OpNotImplemented("relay.gradient: calls of functions are not differentiated yet")
            rule = get_gradient(node.op.name)
            if rule is None:
                raise OpNotImplemented(f"relay.gradient: op {node.op.name} has no gradient rule (FPrimalGradient)")
            for arg, ga in zip(node.args, rule(node, g)):
                if ga is not None:
                    grads[arg] = _infer(_t.add(grads[arg], ga) if arg in grads else ga)
        else:
            raise OpNotImplemented(f"relay.gradient: {type(node).__name__} is not differentiated yet")
    out = []
    for x in xs:
        g = grads.get(x)
        out.append(g if g is not None else _filled(_infer(x), 0))
    return out
