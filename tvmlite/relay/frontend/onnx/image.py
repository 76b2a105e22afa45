"""Image ops: Resize (opsets 10-19), Upsample (7, 9), GridSample (16-22), AffineGrid (20).

Resize's scales/sizes are inputs: when they are constants (and the resized input dims static) the converter
computes the output shape as the spec does and passes it on, so the result is statically typed; otherwise the
resized dims are symbolic and the sizes are found at run time.
"""
import numpy as np

from ...op import image as _image
from ...op.image._image import static_output_size
from .common import OnnxOpConverter, choice_attr, normalize_axes, rank_of, register_converter, unsupported
from ....error import OpAttributeInvalid


def _dims(expr):
    """expr's shape with None for a symbolic dim."""
    return [d if isinstance(d, int) else None for d in expr.checked_type.shape]


def _static_output(ctx, data, roi, scales, sizes, axes, policy, ctm):
    """The output shape (-1 for a dim known only at run time) when scales or sizes are constants, else ()."""
    sizes_v = ctx.try_constant(sizes) if sizes is not None else None
    scales_v = ctx.try_constant(scales) if scales is not None and (sizes is None or _dims(sizes) == [0]) else None
    roi_v = ctx.try_constant(roi) if roi is not None else None
    if ctm == "tf_crop_and_resize" and roi is not None and roi_v is None:
        scales_v = None
    try:
        return static_output_size(_dims(data), axes, roi_v, scales_v, sizes_v, policy, ctm)
    except ValueError as err:
        raise OpAttributeInvalid(str(err)) from None


_CTMS = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize",
         "tf_half_pixel_for_nn")


def _resize(attr, ctx, data, roi, scales, sizes, ctms, new_attrs):
    mode = choice_attr(attr, "mode", "nearest", ("nearest", "linear", "cubic"))
    ctm = choice_attr(attr, "coordinate_transformation_mode", "half_pixel", ctms)
    nearest_mode = choice_attr(attr, "nearest_mode", "round_prefer_floor",
                                 ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"))
    axes = list(attr.get("axes", ())) if new_attrs else []
    if axes and rank_of(data) is not None:
        normalize_axes(axes, rank_of(data))
    policy = choice_attr(attr, "keep_aspect_ratio_policy", "stretch", ("stretch", "not_larger", "not_smaller")) \
        if new_attrs else "stretch"
    antialias = bool(attr.get("antialias", 0)) if new_attrs else False
    if scales is not None and sizes is not None:
        sv, zv = ctx.try_constant(scales), ctx.try_constant(sizes)
        if sv is not None and zv is not None and sv.size and zv.size:
            raise OpAttributeInvalid("Resize: only one of scales and sizes may be given")
    if (scales is None or _dims(scales) == [0]) and sizes is None:
        raise OpAttributeInvalid("Resize: one of scales and sizes must be given")
    output_size = _static_output(ctx, data, roi, scales, sizes, axes, policy, ctm)
    if roi is not None and _dims(roi) == [0]:
        roi = None
    return _image.resize(data, roi, scales, sizes, axes=axes, mode=mode, coordinate_transformation_mode=ctm,
                         nearest_mode=nearest_mode, cubic_coeff_a=attr.get("cubic_coeff_a", -0.75),
                         exclude_outside=attr.get("exclude_outside", 0), antialias=antialias,
                         extrapolation_value=attr.get("extrapolation_value", 0.0), keep_aspect_ratio_policy=policy,
                         output_size=output_size)


def _as_float32(ctx, expr):
    if expr is None:
        return None
    if str(expr.checked_type.dtype) != "float32":
        from ... import op as _op

        if hasattr(_op, "cast"):
            return ctx.infer_type(_op.cast(expr, "float32"))
        value = ctx.try_constant(expr)
        if value is None:
            unsupported(f"scales of dtype {expr.checked_type.dtype} (only float32 without a cast op)")
        from ...expr import const

        return ctx.infer_type(const(value.astype("float32")))
    return expr


def _upsample(ctx, data, scales, attr):
    """Upsample and Resize-10: asymmetric coordinates, nearest rounds down (numpy.repeat for integer scales)."""
    mode = choice_attr(attr, "mode", "nearest", ("nearest", "linear", "bilinear", "trilinear"))
    mode = "linear" if mode in ("bilinear", "trilinear") else mode
    output_size = _static_output(ctx, data, None, scales, None, [], "stretch", "asymmetric")
    return _image.resize(data, None, scales, None, mode=mode, coordinate_transformation_mode="asymmetric",
                         nearest_mode="floor", output_size=output_size)


@register_converter("Resize")
class Resize(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        return _upsample(ctx, inputs[0], _as_float32(ctx, inputs[1]), attr)

    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        inputs = list(inputs) + [None] * (4 - len(inputs))
        return _resize(attr, ctx, inputs[0], inputs[1], _as_float32(ctx, inputs[2]), inputs[3], _CTMS,
                       new_attrs=False)

    @classmethod
    def _impl_v13(cls, inputs, attr, ctx):
        return cls._impl_v11(inputs, attr, ctx)

    @classmethod
    def _impl_v18(cls, inputs, attr, ctx):
        inputs = list(inputs) + [None] * (4 - len(inputs))
        ctms = tuple(c for c in _CTMS if c != "tf_half_pixel_for_nn")
        return _resize(attr, ctx, inputs[0], inputs[1], _as_float32(ctx, inputs[2]), inputs[3], ctms,
                       new_attrs=True)

    @classmethod
    def _impl_v19(cls, inputs, attr, ctx):
        inputs = list(inputs) + [None] * (4 - len(inputs))
        ctms = tuple(c for c in _CTMS if c != "tf_half_pixel_for_nn") + ("half_pixel_symmetric",)
        return _resize(attr, ctx, inputs[0], inputs[1], _as_float32(ctx, inputs[2]), inputs[3], ctms,
                       new_attrs=True)


@register_converter("Upsample")
class Upsample(OnnxOpConverter):
    @classmethod
    def _impl_v7(cls, inputs, attr, ctx):
        if "scales" not in attr:
            raise OpAttributeInvalid("Upsample: attribute 'scales' is required")
        from ...expr import const

        scales = ctx.infer_type(const(np.asarray(attr["scales"], dtype="float32")))
        return _upsample(ctx, inputs[0], scales, attr)

    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        return _upsample(ctx, inputs[0], _as_float32(ctx, inputs[1]), attr)


@register_converter("GridSample")
class GridSample(OnnxOpConverter):
    @classmethod
    def _impl_v16(cls, inputs, attr, ctx):
        mode = choice_attr(attr, "mode", "bilinear", ("bilinear", "nearest", "bicubic"))
        return cls._convert(inputs, attr, {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode))

    @classmethod
    def _impl_v20(cls, inputs, attr, ctx):
        mode = choice_attr(attr, "mode", "linear", ("linear", "nearest", "cubic"))
        return cls._convert(inputs, attr, mode)

    @classmethod
    def _convert(cls, inputs, attr, mode):
        padding = choice_attr(attr, "padding_mode", "zeros", ("zeros", "border", "reflection"))
        rank = len(inputs[0].checked_type.shape)
        if mode == "cubic" and rank != 4:
            raise OpAttributeInvalid(f"GridSample: mode 'cubic' needs a 4-D input, got rank {rank}")
        return _image.grid_sample(inputs[0], inputs[1], mode=mode, padding_mode=padding,
                                  align_corners=bool(attr.get("align_corners", 0)))


@register_converter("AffineGrid")
class AffineGrid(OnnxOpConverter):
    @classmethod
    def _impl_v20(cls, inputs, attr, ctx):
        size = ctx.try_constant(inputs[1])
        output_size = [int(s) for s in size.reshape(-1)] if size is not None else ()
        return _image.affine_grid(inputs[0], inputs[1], align_corners=bool(attr.get("align_corners", 0)),
                                  output_size=output_size)


@register_converter("ImageDecoder")
class ImageDecoder(OnnxOpConverter):
    @classmethod
    def _impl_v20(cls, inputs, attr, ctx):
        fmt = choice_attr(attr, "pixel_format", "RGB", ("RGB", "BGR", "Grayscale"))
        return _image.decode(inputs[0], pixel_format=fmt)
