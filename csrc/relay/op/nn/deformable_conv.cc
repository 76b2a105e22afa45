/*!
 * \file deformable_conv.cc
 * \brief nn.deformable_conv2d (TVM's; data, offset, weight) and nn.modulated_deformable_conv2d (+ mask, DCNv2;
 * ONNX DeformConv). The output shape is conv2d's; offset and mask must have the output's spatial dims and one
 * (dy, dx) pair / one scale per kernel tap and deformable group.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/runtime/reflection.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

/*! \brief ValueError naming the shapes unless dim i of t is `want` (when both are static). */
void CheckDim(const TensorTypeNode* t, size_t i, const Any& want, const char* what) {
  bool ok = DimEqual(t->shape[i], want) || t->shape[i].type_index() != kTVMLiteInt || want.type_index() != kTVMLiteInt;
  TVMLITE_CHECK_KIND(ok, ValueError) << what << " " << ShapeToString(t->shape) << ": dim " << i << " must be "
                                     << DimToString(want);
}

template <bool kMask>
Type DeformableConv2DRel(const Array<Type>& args, const DeformableConv2DAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* offset = TensorArg(args, 1);
  const TensorTypeNode* weight = TensorArg(args, 2);
  CheckLayout(a.data_layout, "data_layout", "NCHW");
  CheckLayout(a.kernel_layout, "kernel_layout", "OIHW");
  CheckLayout(a.out_layout, "out_layout", "NCHW", true);
  CheckRank(data, 4, "data (batch, channels, height, width)");
  CheckRank(offset, 4, "offset (batch, deformable_groups * 2 * KH * KW, out_height, out_width)");
  CheckRank(weight, 4, "weight (out_channels, in_channels / groups, KH, KW)");
  TVMLITE_CHECK_KIND(data->dtype == weight->dtype && data->dtype == offset->dtype, TypeError)
      << "data, offset and weight must share a dtype, got " << data->dtype.str() << ", " << offset->dtype.str() << ", "
      << weight->dtype.str();
  TVMLITE_CHECK_KIND(a.groups >= 1 && a.groups <= kMaxWindowValue && a.deformable_groups >= 1 &&
                         a.deformable_groups <= kMaxWindowValue,
                     ValueError)
      << "groups = " << a.groups << " and deformable_groups = " << a.deformable_groups << " must be >= 1";
  Window<2> w = NormalizeWindow<2>(a.strides, a.padding, a.dilation);
  std::optional<int64_t> c = data->shape[1].as<int64_t>(), cg = weight->shape[1].as<int64_t>();
  if (c) {
    TVMLITE_CHECK_KIND(*c % a.groups == 0 && *c % a.deformable_groups == 0, ValueError)
        << "in_channels " << *c << " of data " << ShapeToString(data->shape)
        << " must be divisible by groups = " << a.groups << " and deformable_groups = " << a.deformable_groups;
  }
  if (std::optional<int64_t> o = weight->shape[0].as<int64_t>()) {
    TVMLITE_CHECK_KIND(*o % a.groups == 0, ValueError)
        << "out_channels " << *o << " of weight " << ShapeToString(weight->shape)
        << " is not divisible by groups = " << a.groups;
  }
  if (c && cg) {
    TVMLITE_CHECK_KIND(static_cast<__int128>(*cg) * a.groups == *c, ValueError)
        << "in_channels mismatch: data " << ShapeToString(data->shape) << " has " << *c << " channels, weight "
        << ShapeToString(weight->shape) << " expects " << *cg << " per group * groups " << a.groups;
  }
  TVMLITE_CHECK_KIND(a.kernel_size.empty() || a.kernel_size.size() == 2, ValueError)
      << "kernel_size needs 2 values, got " << a.kernel_size.size();
  std::array<Any, 2> k{weight->shape[2], weight->shape[3]};
  for (size_t i = 0; i < a.kernel_size.size(); ++i) CheckDim(weight, 2 + i, Any(a.kernel_size[i]), "weight");
  std::vector<Any> out{data->shape[0], weight->shape[0]};
  for (int i = 0; i < 2; ++i) out.push_back(WindowOut<2>(data->shape[2 + i], k[i], w, i, false));
  if (a.channels.has_value()) CheckDim(weight, 0, Any(*a.channels), "weight");
  std::optional<int64_t> kh = BoundedDim(k[0], "kernel size"), kw = BoundedDim(k[1], "kernel size");
  Any taps = kh && kw ? Any(BoundedMul(BoundedMul(*kh, *kw, "kernel taps"), a.deformable_groups, "taps"))
                      : Any(SizeVar::Any());
  CheckDim(offset, 0, data->shape[0], "offset");
  if (std::optional<int64_t> t = taps.as<int64_t>()) CheckDim(offset, 1, Any(*t * 2), "offset");
  CheckDim(offset, 2, out[2], "offset");
  CheckDim(offset, 3, out[3], "offset");
  if constexpr (kMask) {
    const TensorTypeNode* mask = TensorArg(args, 3);
    CheckRank(mask, 4, "mask (batch, deformable_groups * KH * KW, out_height, out_width)");
    TVMLITE_CHECK_KIND(mask->dtype == data->dtype, TypeError)
        << "mask dtype " << mask->dtype.str() << " differs from data's " << data->dtype.str();
    CheckDim(mask, 0, data->shape[0], "mask");
    CheckDim(mask, 1, taps, "mask");
    CheckDim(mask, 2, out[2], "mask");
    CheckDim(mask, 3, out[3], "mask");
  }
  return TensorType(Array<Any>(out), OutDtype(a.out_dtype, data->dtype));
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({
  using A = DeformableConv2DAttrs;
  TVMLITE_REFLECT_FIELDS(A, strides, padding, dilation, deformable_groups, groups, channels, kernel_size, data_layout,
                         kernel_layout, out_layout, out_dtype);
});

TVMLITE_REGISTER_OP("nn.deformable_conv2d")
    .describe("Deformable 2-D convolution: kernel taps sample data bilinearly at offset positions.")
    .add_argument("data", "Tensor", "The input, (batch, in_channels, height, width).")
    .add_argument("offset", "Tensor", "(dy, dx) per tap: (batch, deformable_groups * 2 * KH * KW, OH, OW).")
    .add_argument("weight", "Tensor", "The filters, (out_channels, in_channels / groups, KH, KW).")
    .add_type_rel("DeformableConv2D", DeformableConv2DRel<false>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.modulated_deformable_conv2d")
    .describe("Deformable 2-D convolution with a per-tap mask (DCNv2, ONNX DeformConv).")
    .add_argument("data", "Tensor", "The input, (batch, in_channels, height, width).")
    .add_argument("offset", "Tensor", "(dy, dx) per tap: (batch, deformable_groups * 2 * KH * KW, OH, OW).")
    .add_argument("weight", "Tensor", "The filters, (out_channels, in_channels / groups, KH, KW).")
    .add_argument("mask", "Tensor", "Per-tap scale: (batch, deformable_groups * KH * KW, OH, OW).")
    .add_type_rel("DeformableConv2D", DeformableConv2DRel<true>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

}  // namespace relay
}  // namespace tvmlite
