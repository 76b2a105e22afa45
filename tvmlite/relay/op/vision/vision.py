"""Detection op builders: ``relay.vision.roi_align``, ``relay.vision.non_max_suppression`` (csrc/relay/op/vision/).

Layouts: roi_align reads data (N, C, H, W) and rois (R, 4) as [x1, y1, x2, y2] in input-image coordinates;
non_max_suppression reads boxes (B, n, 4) and scores (B, K, n) and returns (?, 3) int64 [batch, class, box] rows.
"""
import numpy as np

from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from ....ir.expr import RelayExpr as Expr
from ...expr import const
from . import _make

__all__ = ["roi_align", "non_max_suppression"]


def roi_align(data, rois, batch_indices, output_height=1, output_width=1, sampling_ratio=0, spatial_scale=1.0,
              mode="avg", coordinate_transformation_mode="half_pixel"):
    """Pool each box of rois (scaled by spatial_scale) from its image into (output_height, output_width) bins of
    bilinear samples: (R, C, output_height, output_width). mode "avg" or "max"."""
    return _make.roi_align(data, rois, batch_indices, int(output_height), int(output_width), int(sampling_ratio),
                           float(spatial_scale), mode, coordinate_transformation_mode)


def non_max_suppression(boxes, scores, max_output_boxes_per_class=0, iou_threshold=0.0,
                        score_threshold=float("-inf"), center_point_box=0):
    """Greedy per-class NMS (ONNX NonMaxSuppression): the selected [batch, class, box] indices, (?, 3) int64.

    The thresholds and the per-class limit may be scalar expressions or numbers; boxes score_threshold or below
    are dropped, and a box whose IoU with a selected one exceeds iou_threshold is suppressed.
    """
    def scalar(v, dtype):
        return v if isinstance(v, Expr) else const(np.asarray(v, dtype=dtype))

    return _make.non_max_suppression(boxes, scores, scalar(max_output_boxes_per_class, "int64"),
                                     scalar(iou_threshold, "float32"), scalar(score_threshold, "float32"),
                                     int(center_point_box))


@register_object("relay.attrs.ROIAlignAttrs")
class ROIAlignAttrs(Attrs):
    """Attributes of vision.roi_align."""


@register_object("relay.attrs.NonMaximumSuppressionAttrs")
class NonMaximumSuppressionAttrs(Attrs):
    """Attributes of vision.non_max_suppression."""
