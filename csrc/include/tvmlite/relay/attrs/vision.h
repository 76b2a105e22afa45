/*!
 * \file tvmlite/relay/attrs/vision.h
 * \brief Attrs of the detection ops: vision.roi_align, vision.non_max_suppression.
 *
 *   vision.roi_align(data, rois, batch_indices)   (N, C, H, W), (R, 4), (R,) -> (R, C, output_height, output_width)
 *   vision.non_max_suppression(boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold)
 *                                                 (B, n, 4), (B, K, n), scalars -> (?, 3) int64 selected indices
 */
#ifndef TVMLITE_RELAY_ATTRS_VISION_H_
#define TVMLITE_RELAY_ATTRS_VISION_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

#include <string>

namespace tvmlite {
namespace relay {

/*! \brief vision.roi_align: ONNX RoiAlign. */
struct ROIAlignAttrs : public ir::AttrsNode {
  int64_t output_height = 1;
  int64_t output_width = 1;
  /*! \brief Sample points per bin along each axis; 0: adaptive (ceil(roi_size / output_size)). */
  int64_t sampling_ratio = 0;
  double spatial_scale = 1.0;
  /*! \brief "avg" or "max". */
  std::string mode = "avg";
  /*! \brief "half_pixel" (shift by -0.5) or "output_half_pixel" (no shift, the opset-10 behaviour). */
  std::string coordinate_transformation_mode = "half_pixel";

  TVMLITE_DECLARE_ATTRS(ROIAlignAttrs, "relay.attrs.ROIAlignAttrs");
};

/*! \brief vision.non_max_suppression: ONNX NonMaxSuppression. */
struct NonMaximumSuppressionAttrs : public ir::AttrsNode {
  /*! \brief 0: boxes are [y1, x1, y2, x2] (any diagonal); 1: [x_center, y_center, width, height]. */
  int64_t center_point_box = 0;

  TVMLITE_DECLARE_ATTRS(NonMaximumSuppressionAttrs, "relay.attrs.NonMaximumSuppressionAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_VISION_H_
