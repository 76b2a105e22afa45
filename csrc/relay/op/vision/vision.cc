/*!
 * \file vision.cc
 * \brief Detection ops: vision.roi_align (ONNX RoiAlign) and vision.non_max_suppression (ONNX NonMaxSuppression).
 *
 *   roi_align(data (N, C, H, W), rois (R, 4) [x1, y1, x2, y2], batch_indices (R,)) -> (R, C, oh, ow)
 *   non_max_suppression(boxes (B, n, 4), scores (B, K, n), max_output_boxes_per_class, iou_threshold,
 *                       score_threshold: scalars or 1-element 1-D) -> (?, 3) int64 [batch, class, box]
 * The count of selected boxes depends on the data, so NMS's first output dim is symbolic.
 */
#include <tvmlite/relay/attrs/vision.h>
#include <tvmlite/relay/type_rel.h>

#include <vector>

namespace tvmlite {
namespace relay {

namespace {

void CheckDimsAgree(const Any& a, const Any& b, const std::string& what) {
  if (a.type_index() == kTVMLiteInt && b.type_index() == kTVMLiteInt) {
    TVMLITE_CHECK_KIND(a.cast<int64_t>() == b.cast<int64_t>(), ValueError) << what;
  }
}

void CheckScalarLike(const TensorTypeNode* t, const char* name) {
  TVMLITE_CHECK_KIND(t->shape.empty() || (t->shape.size() == 1 && !DimIs(t->shape[0], 0)), ValueError)
      << name << " must be a scalar or a 1-element 1-D tensor, got shape " << ShapeToString(t->shape);
}

}  // namespace

Type ROIAlignRel(const Array<Type>& args, const ROIAlignAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* rois = TensorArg(args, 1);
  const TensorTypeNode* idx = TensorArg(args, 2);
  TVMLITE_CHECK_KIND(data->shape.size() == 4, ValueError)
      << "data must be (N, C, H, W), got shape " << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(
      rois->shape.size() == 2 && (rois->shape[1].type_index() != kTVMLiteInt || DimIs(rois->shape[1], 4)), ValueError)
      << "rois must be (num_rois, 4), got shape " << ShapeToString(rois->shape);
  TVMLITE_CHECK_KIND(idx->shape.size() == 1, ValueError)
      << "batch_indices must be (num_rois,), got shape " << ShapeToString(idx->shape);
  CheckDimsAgree(rois->shape[0], idx->shape[0],
                 "rois " + ShapeToString(rois->shape) + " and batch_indices " + ShapeToString(idx->shape) +
                     " disagree on num_rois");
  TVMLITE_CHECK_KIND(rois->dtype == data->dtype, TypeError)
      << "rois dtype " << rois->dtype.str() << " differs from data dtype " << data->dtype.str();
  TVMLITE_CHECK_KIND(idx->dtype.is_int(), TypeError) << "batch_indices must be integers, got " << idx->dtype.str();
  TVMLITE_CHECK_KIND(a.output_height >= 1 && a.output_width >= 1, ValueError)
      << "output_height and output_width must be >= 1, got " << a.output_height << " and " << a.output_width;
  TVMLITE_CHECK_KIND(a.sampling_ratio >= 0, ValueError) << "sampling_ratio must be >= 0, got " << a.sampling_ratio;
  TVMLITE_CHECK_KIND(a.mode == "avg" || a.mode == "max", ValueError)
      << "mode must be avg or max, got '" << a.mode << "'";
  TVMLITE_CHECK_KIND(
      a.coordinate_transformation_mode == "half_pixel" || a.coordinate_transformation_mode == "output_half_pixel",
      ValueError)
      << "coordinate_transformation_mode must be half_pixel or output_half_pixel, got '"
      << a.coordinate_transformation_mode << "'";
  std::vector<Any> out{rois->shape[0], data->shape[1], Any(a.output_height), Any(a.output_width)};
  return TensorType(Array<Any>(out), data->dtype);
}

Type NonMaxSuppressionRel(const Array<Type>& args, const NonMaximumSuppressionAttrs& a) {
  const TensorTypeNode* boxes = TensorArg(args, 0);
  const TensorTypeNode* scores = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(
      boxes->shape.size() == 3 && (boxes->shape[2].type_index() != kTVMLiteInt || DimIs(boxes->shape[2], 4)),
      ValueError)
      << "boxes must be (batch, num_boxes, 4), got shape " << ShapeToString(boxes->shape);
  TVMLITE_CHECK_KIND(scores->shape.size() == 3, ValueError)
      << "scores must be (batch, num_classes, num_boxes), got shape " << ShapeToString(scores->shape);
  std::string shapes = " (boxes " + ShapeToString(boxes->shape) + ", scores " + ShapeToString(scores->shape) + ")";
  CheckDimsAgree(boxes->shape[0], scores->shape[0], "batch sizes differ" + shapes);
  CheckDimsAgree(boxes->shape[1], scores->shape[2], "box counts differ" + shapes);
  TVMLITE_CHECK_KIND(a.center_point_box == 0 || a.center_point_box == 1, ValueError)
      << "center_point_box must be 0 or 1, got " << a.center_point_box;
  const char* names[] = {"max_output_boxes_per_class", "iou_threshold", "score_threshold"};
  for (size_t i = 2; i < 5; ++i) CheckScalarLike(TensorArg(args, i), names[i - 2]);
  return TensorType(Array<Any>(std::vector<Any>{Any(SizeVar::Any()), Any(int64_t(3))}), DataType::Int(64));
}

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(ROIAlignAttrs, output_height, output_width, sampling_ratio, spatial_scale, mode,
                         coordinate_transformation_mode);
  TVMLITE_REFLECT_FIELDS(NonMaximumSuppressionAttrs, center_point_box);
});

TVMLITE_REGISTER_OP("vision.roi_align")
    .describe("Region-of-interest align: bilinear samples pooled per output bin (ONNX RoiAlign).")
    .add_argument("data", "Tensor", "(N, C, H, W).")
    .add_argument("rois", "Tensor", "(num_rois, 4) boxes [x1, y1, x2, y2] in input coordinates.")
    .add_argument("batch_indices", "Tensor", "(num_rois,) the image of each box.")
    .add_type_rel("ROIAlign", ROIAlignRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("vision.non_max_suppression")
    .describe("Greedy per-class non-maximum suppression (ONNX NonMaxSuppression): selected [batch, class, box].")
    .add_argument("boxes", "Tensor", "(batch, num_boxes, 4).")
    .add_argument("scores", "Tensor", "(batch, num_classes, num_boxes).")
    .add_argument("max_output_boxes_per_class", "Tensor", "int64 scalar (0: select none).")
    .add_argument("iou_threshold", "Tensor", "float scalar.")
    .add_argument("score_threshold", "Tensor", "float scalar.")
    .add_type_rel("NonMaxSuppression", NonMaxSuppressionRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
