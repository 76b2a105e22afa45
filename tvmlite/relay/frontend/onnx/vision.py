"""Detection ops: RoiAlign (opsets 10, 16), NonMaxSuppression (10, 11)."""
import numpy as np

from ...expr import const
from ...op import vision as _vision
from .common import OnnxOpConverter, choice_attr, register_converter


@register_converter("RoiAlign")
class RoiAlign(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        # Opset 10 has no coordinate_transformation_mode: its behaviour is today's "output_half_pixel".
        return cls._convert(inputs, attr, "output_half_pixel")

    @classmethod
    def _impl_v16(cls, inputs, attr, ctx):
        return cls._convert(inputs, attr, attr.get("coordinate_transformation_mode", "half_pixel"))

    @classmethod
    def _convert(cls, inputs, attr, ctm):
        mode = choice_attr(attr, "mode", "avg", ("avg", "max"))
        choice_attr({"coordinate_transformation_mode": ctm}, "coordinate_transformation_mode", None,
                    ("half_pixel", "output_half_pixel"))
        return _vision.roi_align(inputs[0], inputs[1], inputs[2], output_height=attr.get("output_height", 1),
                                 output_width=attr.get("output_width", 1),
                                 sampling_ratio=attr.get("sampling_ratio", 0),
                                 spatial_scale=attr.get("spatial_scale", 1.0), mode=mode,
                                 coordinate_transformation_mode=ctm)


@register_converter("NonMaxSuppression")
class NonMaxSuppression(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        inputs = list(inputs) + [None] * (5 - len(inputs))
        max_out = inputs[2] if inputs[2] is not None else const(np.asarray(0, dtype="int64"))
        iou = inputs[3] if inputs[3] is not None else const(np.asarray(0.0, dtype="float32"))
        score = inputs[4] if inputs[4] is not None else const(np.asarray(-np.inf, dtype="float32"))
        return _vision.non_max_suppression(inputs[0], inputs[1], max_out, iou, score,
                                           center_point_box=attr.get("center_point_box", 0))
