"""Image op builders: ``relay.image.resize``, ``relay.image.grid_sample``, ``relay.image.affine_grid``
(csrc/relay/op/image/).

Layouts: resize works on any rank (the resized axes are listed, ONNX style); grid_sample and affine_grid are
channel-first, (N, C, D1..Dr), with grids (N, O1..Or, r) whose last axis holds coordinates x first.
"""
import numpy as np

from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from ....ir.expr import RelayExpr as Expr
from ...expr import const
from . import _make

__all__ = ["resize", "grid_sample", "affine_grid", "decode"]


def _empty(dtype):
    return const(np.zeros((0,), dtype=dtype))


def _int_list(values, what):
    out = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{what} must hold ints, got {v!r}")
        out.append(int(v))
    return out


def resize(data, roi=None, scales=None, sizes=None, axes=(), mode="nearest",
           coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor", cubic_coeff_a=-0.75,
           exclude_outside=False, extrapolation_value=0.0, antialias=False, keep_aspect_ratio_policy="stretch",
           output_size=()):
    """Resize data on `axes` (all when empty) by `scales` or to `sizes` (ONNX Resize semantics).

    roi, scales and sizes are 1-D expressions (or sequences, made constants); an omitted one is empty. Give
    `output_size` (the whole output shape, -1 for a dim known only at run time) when it is known statically:
    the result is then typed with it, else the resized dims are symbolic.
    """
    def as_expr(value, dtype):
        if value is None:
            return _empty(dtype)
        if isinstance(value, Expr):
            return value
        return const(np.asarray(value, dtype=dtype).reshape(-1))

    return _make.resize(data, as_expr(roi, "float32"), as_expr(scales, "float32"), as_expr(sizes, "int64"),
                        _int_list(axes, "axes"), mode, coordinate_transformation_mode, nearest_mode,
                        float(cubic_coeff_a), bool(exclude_outside), float(extrapolation_value), bool(antialias),
                        keep_aspect_ratio_policy, _int_list(output_size, "output_size"))


def grid_sample(data, grid, mode="linear", padding_mode="zeros", align_corners=False):
    """Sample data (N, C, D1..Dr) at grid (N, O1..Or, r) (coordinates in [-1, 1], x first) -> (N, C, O1..Or).

    mode: "linear"/"bilinear", "nearest", "cubic"/"bicubic"; padding_mode: "zeros", "border", "reflection".
    """
    return _make.grid_sample(data, grid, mode, padding_mode, bool(align_corners))


def affine_grid(theta, size, align_corners=False, output_size=()):
    """The sampling grid (N, D1..Dr, r) of affine matrices theta (N, r, r+1) for an output of `size`
    ([N, C, D1..Dr], a 1-D int expression or a sequence, then also used as the static `output_size`)."""
    if not isinstance(size, Expr):
        output_size = _int_list(size, "size")
        size = const(np.asarray(output_size, dtype="int64"))
    return _make.affine_grid(theta, size, bool(align_corners), _int_list(output_size, "output_size"))


@register_object("relay.attrs.ResizeAttrs")
class ResizeAttrs(Attrs):
    """Attributes of image.resize."""


@register_object("relay.attrs.GridSampleAttrs")
class GridSampleAttrs(Attrs):
    """Attributes of image.grid_sample."""


@register_object("relay.attrs.AffineGridAttrs")
class AffineGridAttrs(Attrs):
    """Attributes of image.affine_grid."""


def decode(encoded, pixel_format="RGB"):
    """Decode an image file's bytes (1-D uint8) into (H, W, C) uint8 (ONNX ImageDecoder); pixel_format "RGB",
    "BGR" or "Grayscale" (C = 1)."""
    return _make.decode(encoded, pixel_format)


@register_object("relay.attrs.ImageDecodeAttrs")
class ImageDecodeAttrs(Attrs):
    """Attributes of image.decode."""
