"""Reduction builders: ``relay.sum(x, axis=1)``, ``relay.argmax(x, axis=0)``, ... (csrc/relay/op/tensor/reduce.cc).

``axis`` is None (every axis), an int or a list of ints (an empty list reduces nothing: the op's elementwise part
only), or a relay expression: a 1-D integer tensor read at run time, which makes the dyn.* variant of the op.
"""
from ..._ffi.registry import register_object
from ...ir.attrs import Attrs
from ...ir.expr import RelayExpr
from . import _make
from .dyn import _make as _dyn_make

__all__ = ["sum", "mean", "max", "min", "prod", "logsumexp", "log_sum", "l1_norm", "l2_norm", "sum_square",
           "argmax", "argmin", "det"]

_REDUCTIONS = ["sum", "mean", "max", "min", "prod", "logsumexp", "log_sum", "l1_norm", "l2_norm", "sum_square"]
_DYN = {name: getattr(_dyn_make, name) for name in _REDUCTIONS}


@register_object("relay.attrs.ReduceAttrs")
class ReduceAttrs(Attrs):
    """Attributes of the reductions: axis (None or a list), keepdims, exclude."""

    __slots__ = ()


@register_object("relay.attrs.ArgReduceAttrs")
class ArgReduceAttrs(Attrs):
    """Attributes of argmax / argmin: axis, keepdims, exclude, select_last_index."""

    __slots__ = ()


@register_object("relay.attrs.DynReduceAttrs")
class DynReduceAttrs(Attrs):
    """Attributes of the dyn.* reductions: keepdims, noop_with_empty_axes."""

    __slots__ = ()


def _axis_list(axis):
    if axis is None:
        return None
    if isinstance(axis, int):
        return [axis]
    return [int(a) for a in axis]


def _reduction(name):
    maker = getattr(_make, name)
    dyn_maker = _DYN[name]

    def builder(data, axis=None, keepdims=False, exclude=False, noop_with_empty_axes=False):
        if isinstance(axis, RelayExpr):
            if exclude:
                raise ValueError(f"{name}: exclude needs a static axis list, got an axis expression")
            return dyn_maker(data, axis, bool(keepdims), bool(noop_with_empty_axes))
        return maker(data, _axis_list(axis), bool(keepdims), bool(exclude))

    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = (f"{name} of data over axis (None: every axis; an expression: a run-time 1-D tensor of axes, "
                       f"where noop_with_empty_axes says what an empty one means) (relay op '{name}').")
    return builder


for _name in _REDUCTIONS:
    globals()[_name] = _reduction(_name)
del _name


def argmax(data, axis=None, keepdims=False, exclude=False, select_last_index=False):
    """int64 index of the maximum over axis (row-major over several axes); ties: the first, or the last with
    select_last_index."""
    return _make.argmax(data, _axis_list(axis), bool(keepdims), bool(exclude), bool(select_last_index))


def argmin(data, axis=None, keepdims=False, exclude=False, select_last_index=False):
    """int64 index of the minimum over axis (row-major over several axes); ties as argmax."""
    return _make.argmin(data, _axis_list(axis), bool(keepdims), bool(exclude), bool(select_last_index))


def det(data):
    """Determinant of each square matrix in the last two dims of data."""
    return _make.det(data)
