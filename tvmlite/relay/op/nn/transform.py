"""``relay.nn`` shape ops: pad, batch_flatten, depth_to_space, space_to_depth (csrc/relay/op/tensor/)."""
import numpy as np

from ....ir.expr import RelayExpr
from ... import expr as _expr
from . import _make
from ..dyn.nn import _make as _dyn_make

__all__ = ["pad", "batch_flatten", "depth_to_space", "space_to_depth"]


def pad(data, pad_width, pad_value=0.0, pad_mode="constant", axes=None):
    """Pad each axis: pad_width ((before, after), ...) per axis (negative widths crop); pad_mode constant,
    reflect, edge or wrap. pad_value is a scalar expression or a number (made in data's dtype when data is
    typed). An expression pad_width (ONNX order: begins then ends, for axes, an expression or ints, default all
    axes) makes dyn.nn.pad."""
    if not isinstance(pad_value, RelayExpr):
        ty = getattr(data, "checked_type", None)
        dtype = getattr(ty, "dtype", None) or "float32"
        pad_value = _expr.const(np.array(pad_value).astype(str(dtype)))
    if isinstance(pad_width, RelayExpr):
        if axes is None:
            ty = getattr(data, "checked_type", None)
            if ty is None:
                raise ValueError("nn.pad: a tensor pad_width without axes needs a typed data expression")
            axes = list(range(len(ty.shape)))
        if not isinstance(axes, RelayExpr):
            axes = _expr.const(np.array(list(axes), dtype="int64"))
        return _dyn_make.pad(data, pad_width, pad_value, axes, [], pad_mode)
    flat = []
    for pair in pad_width:
        pair = [int(v) for v in pair]
        if len(pair) != 2:
            raise ValueError(f"nn.pad: pad_width entries are (before, after) pairs, got {pair}")
        flat += pair
    return _make.pad(data, pad_value, flat, pad_mode)


def batch_flatten(data):
    """(d0, d1 * ... * dn)."""
    return _make.batch_flatten(data)


def depth_to_space(data, block_size, layout="NCHW", mode="DCR"):
    """Channel blocks to spatial blocks (NCHW; DCR or CRD)."""
    return _make.depth_to_space(data, int(block_size), layout, mode)


def space_to_depth(data, block_size, layout="NCHW", mode="DCR"):
    """Spatial blocks to channels (NCHW; DCR or CRD)."""
    return _make.space_to_depth(data, int(block_size), layout, mode)
