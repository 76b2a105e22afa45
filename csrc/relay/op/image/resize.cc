/*!
 * \file resize.cc
 * \brief image.resize: ONNX Resize over any rank (nearest / linear / cubic on the listed axes).
 *
 * Inputs: data (any rank >= 1), roi, scales, sizes (1-D; an unused one is empty). The output keeps the dims
 * that are not resized; a resized dim is `output_size[i]` when the builder knew it statically (constant
 * scales/sizes and a static input dim), else symbolic. The numpy reference does the arithmetic of the spec.
 */
#include <tvmlite/relay/attrs/image.h>
#include <tvmlite/relay/type_rel.h>

#include <algorithm>
#include <vector>

namespace tvmlite {
namespace relay {

Type ResizeRel(const Array<Type>& args, const ResizeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const int64_t rank = static_cast<int64_t>(data->shape.size());
  TVMLITE_CHECK_KIND(rank >= 1, ValueError) << "data must have rank >= 1, got a scalar";
  const char* names[] = {"roi", "scales", "sizes"};
  for (size_t i = 1; i < 4; ++i) {
    const TensorTypeNode* t = TensorArg(args, i);
    TVMLITE_CHECK_KIND(t->shape.size() == 1, ValueError)
        << names[i - 1] << " must be 1-D, got shape " << ShapeToString(t->shape);
  }
  CheckOneOf("mode", a.mode, {"nearest", "linear", "cubic"});
  CheckOneOf("coordinate_transformation_mode", a.coordinate_transformation_mode,
             {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize",
              "half_pixel_symmetric", "tf_half_pixel_for_nn"});
  CheckOneOf("nearest_mode", a.nearest_mode, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  CheckOneOf("keep_aspect_ratio_policy", a.keep_aspect_ratio_policy, {"stretch", "not_larger", "not_smaller"});
  std::vector<bool> resized(rank, a.axes.empty());
  for (int64_t ax : a.axes) {
    TVMLITE_CHECK_KIND(ax >= -rank && ax < rank, ValueError)
        << "axis " << ax << " is out of range for data of rank " << rank;
    int64_t n = ax < 0 ? ax + rank : ax;
    TVMLITE_CHECK_KIND(!resized[n], ValueError) << "axis " << ax << " is listed twice in axes";
    resized[n] = true;
  }
  TVMLITE_CHECK_KIND(a.output_size.empty() || static_cast<int64_t>(a.output_size.size()) == rank, ValueError)
      << "output_size has " << a.output_size.size() << " entries for data of rank " << rank;
  std::vector<Any> out(rank);
  for (int64_t i = 0; i < rank; ++i) {
    if (!a.output_size.empty()) {
      int64_t s = a.output_size[i];
      TVMLITE_CHECK_KIND(s >= -1, ValueError) << "output_size[" << i << "] = " << s << " is negative";
      out[i] = s >= 0 ? Any(s) : (resized[i] ? Any(SizeVar::Any()) : data->shape[i]);
    } else {
      out[i] = resized[i] ? Any(SizeVar::Any()) : data->shape[i];
    }
    if (!resized[i] && !a.output_size.empty() && a.output_size[i] >= 0) {
      TVMLITE_CHECK_KIND(data->shape[i].type_index() != kTVMLiteInt || DimIs(data->shape[i], a.output_size[i]),
                         ValueError)
          << "dim " << i << " is not resized but output_size[" << i << "] = " << a.output_size[i]
          << " differs from the data's " << DimToString(data->shape[i]);
    }
  }
  return TensorType(Array<Any>(out), data->dtype);
}

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(ResizeAttrs, axes, mode, coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
                         exclude_outside, extrapolation_value, antialias, keep_aspect_ratio_policy, output_size);
});

TVMLITE_REGISTER_OP("image.resize")
    .describe("Resize a tensor on some axes (ONNX Resize: nearest, linear, cubic interpolation).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("roi", "Tensor", "1-D region of interest (starts then ends) for tf_crop_and_resize; else empty.")
    .add_argument("scales", "Tensor", "1-D float scale per resized axis; empty when sizes is given.")
    .add_argument("sizes", "Tensor", "1-D int64 output size per resized axis; empty when scales is given.")
    .add_type_rel("Resize", ResizeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

}  // namespace relay
}  // namespace tvmlite
