"""``relay.backend.eval_const``: the value of one call of constants, for FoldConstant (csrc/relay/transforms).

The C++ pass hands over a typed Call whose arguments are Constants or Tuples of them; this evaluates it with
the op's numpy reference, exactly as the debug executor would (same references, same check of the result
against the call's inferred type), and returns an NDArray, a list of NDArrays for a tuple-typed op, or None when
the call cannot be folded here (no reference, a result NDArray cannot hold). A reference that raises is an error
of the model, reported as FoldConstant's with the op's name. Imported by tvmlite.relay.transform, so the
function is registered whenever the passes are usable.

Ops that only move elements run their native kernel instead when it is there: its result is the reference's to
the bit, and it is ~10x faster on a model's weights (ResNet-50's 100 MB, packed for the blocked convs by
AlterOpLayout's layout_transforms, took 0.33 s of its 0.8 s build through numpy's transpose).
"""
import numpy as np

from ..._ffi.registry import register_func
from ...error import with_context
from ..expr import Constant, Tuple
from ..op.op import get_reference

__all__ = ["eval_const"]

# op -> its native kernel, for ops whose result is their input's elements moved (exact whatever the kernel's ISA)
_MOVE_KERNELS = {"layout_transform": "topi.layout_transform"}


def _value(expr):
    if isinstance(expr, Constant):
        return expr.data.numpy()
    if isinstance(expr, Tuple):
        return tuple(_value(f) for f in expr.fields)  # the debug executor passes tuples the same way
    raise TypeError(f"eval_const: argument is a {type(expr).__name__}, not a constant")


def _to_nd(value):
    from ... import nd

    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf" or not value.dtype.isnative:
            return None
        return nd.array(np.require(value, requirements="C"))  # (ascontiguousarray would make a 0-d array 1-d)
    if isinstance(value, tuple):
        fields = [_to_nd(v) for v in value]
        return None if any(f is None for f in fields) else fields
    return None  # sequences, optionals: not constants of the IR


def _move_natively(call):
    """The result of a data-movement op by its native kernel, or None (no kernel, not a static tensor type)."""
    from ... import nd
    from ..._ffi.registry import get_global_func
    from ...ir.type import TensorType

    name = _MOVE_KERNELS.get(call.op.name)
    kernel = get_global_func(name, allow_missing=True) if name else None
    if kernel is None:  # most ops: nothing else is read (an op may have no arguments)
        return None
    ty, data = call.checked_type, call.args[0]
    if not isinstance(ty, TensorType) or not isinstance(data, Constant):
        return None
    if not all(isinstance(d, int) for d in ty.shape):
        return None
    out = nd.empty(tuple(ty.shape), data.data.dtype)
    kernel({"src_layout": call.attrs.src_layout, "dst_layout": call.attrs.dst_layout})(data.data, out)
    return out


@register_func("relay.backend.eval_const", override=True)
def eval_const(call):
    """call (an op applied to constants) evaluated: NDArray, list of NDArrays, or None when not foldable."""
    from .debug_executor import _check  # the executor's own result check: folding agrees with running

    name = call.op.name
    moved = _move_natively(call)
    if moved is not None:
        return moved
    ref = get_reference(name)
    if ref is None:
        return None
    args = [_value(a) for a in call.args]
    try:
        result = ref(call.attrs, *args)
    except Exception as err:
        raise with_context(err, f"FoldConstant: evaluating {name}")
    return _to_nd(_check(result, call.checked_type, name))
