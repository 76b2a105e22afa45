/*!
 * \file conv2d_winograd.cc
 * \brief Winograd convolution (TVM's op names), made by AlterOpLayout from a 3x3 stride-1 or stride-2 nn.conv2d:
 *
 *   nn.contrib_conv2d_winograd_weight_transform            weight (O, C, 3, 3) -> U (alpha, alpha, O, C),
 *                                                          U[:, :, o, c] = G g[o, c] G^T, alpha = tile_size + 2;
 *                                                          stride 2: (alpha, alpha, O, 4C), alpha = tile_size + 1,
 *                                                          the four parity phases' 2x2 filters by F(m x m, 2 x 2)
 *                                                          (tvmlite/topi/nn/winograd.h)
 *   nn.contrib_conv2d_winograd_without_weight_transform    data (N, C / ic, H, W, ic)  NCHW{ic}c
 *                                                          weight (alpha, alpha, O / oc, C, oc)  HWOI{oc}o
 *                                                          -> (N, O / oc, OH, OW, oc)  NCHW{oc}c
 *
 * The weight transform of a constant weight is folded at build (FoldConstant), so the conv gets U packed into
 * output-channel blocks (layout_transform "HWOI" -> "HWOI16o"). G (and the B, A of the conv) are Lavin & Gray's
 * (tvmlite/topi/nn/winograd.h, exposed by topi.nn.winograd_matrices); the references (tvmlite/relay/op/
 * _winograd.py) use the same. OH = H + pad_top + pad_bottom - 2 (3x3, stride 1, dilation 1); stride 2 takes
 * weight (alpha, alpha, O / oc, 4C, oc), alpha = tile_size + 1.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/layout.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/topi/nn/winograd.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

void CheckTileSize(int64_t tile_size) {
  TVMLITE_CHECK_KIND(tile_size == 2 || tile_size == 4, ValueError)
      << "tile_size must be 2 or 4 (F(m x m, 3 x 3), or F(m x m, 2 x 2) at stride 2), got " << tile_size;
}

/*! \brief Stride 1, or 2 (the polyphase F(m x m, 2 x 2)). */
void CheckStride(int64_t stride) {
  TVMLITE_CHECK_KIND(stride == 1 || stride == 2, ValueError)
      << "Winograd convolution takes stride 1 or 2, got stride " << stride;
}

Type WeightTransformRel(const Array<Type>& args, const ConvWinogradWeightTransformAttrs& a) {
  CheckTileSize(a.tile_size);
  CheckStride(a.stride);
  const TensorTypeNode* weight = TensorArg(args, 0);
  CheckRank(weight, 4, "weight (out_channels, in_channels, 3, 3)");
  TVMLITE_CHECK_KIND(DimIs(weight->shape[2], 3) && DimIs(weight->shape[3], 3), ValueError)
      << "Winograd needs a 3x3 kernel, got weight " << ShapeToString(weight->shape);
  const int64_t alpha = topi::winograd::AlphaOf(a.tile_size, a.stride);
  Any in = weight->shape[1];
  if (a.stride == 2) {  // the four phases' channels
    std::optional<int64_t> c = in.as<int64_t>();
    in = c ? Any(BoundedMul(*c, 4, "in_channels")) : Any(SizeVar::Any());
  }
  return TensorType(Array<Any>{Any(alpha), Any(alpha), weight->shape[0], in}, weight->dtype);
}

Type WinogradConvRel(const Array<Type>& args, const Conv2DWinogradAttrs& a) {
  CheckTileSize(a.tile_size);
  Window<2> w = NormalizeWindow<2>(a.strides, a.padding, a.dilation);
  TVMLITE_CHECK_KIND(w.stride[0] == w.stride[1] && w.dilation[0] == 1 && w.dilation[1] == 1, ValueError)
      << "Winograd convolution needs equal strides and dilation of 1";
  const int64_t stride = w.stride[0];
  CheckStride(stride);
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  const int64_t ic = NCHWBlockOf(a.data_layout);
  TVMLITE_CHECK_KIND(ic > 0, NotImplementedError)
      << "data_layout '" << a.data_layout << "' is not supported (only NCHW{c}c, e.g. NCHW16c)";
  Layout kernel(a.kernel_layout);
  TVMLITE_CHECK_KIND(kernel.ndim() == 5 && kernel.PrimalAxes() == "HWOI" && kernel[4].name == 'o', NotImplementedError)
      << "kernel_layout '" << a.kernel_layout << "' is not supported (only HWOI{oc}o, e.g. HWOI16o)";
  const int64_t oc = kernel[4].factor;
  TVMLITE_CHECK_KIND(a.out_layout.empty() || NCHWBlockOf(a.out_layout) == oc, ValueError)
      << "out_layout '" << a.out_layout << "' disagrees with kernel_layout '" << a.kernel_layout << "'";
  CheckRank(data, 5, "data (batch, channels / block, height, width, block)");
  CheckRank(weight, 5, "weight (alpha, alpha, out_channels / oc, in_channels, oc)");
  TVMLITE_CHECK_KIND(DimIs(data->shape[4], ic), ValueError)
      << "data " << ShapeToString(data->shape) << " must end in its block " << ic;
  const int64_t alpha = topi::winograd::AlphaOf(a.tile_size, stride), phases = stride * stride;
  TVMLITE_CHECK_KIND(DimIs(weight->shape[0], alpha) && DimIs(weight->shape[1], alpha) && DimIs(weight->shape[4], oc),
                     ValueError)
      << "weight " << ShapeToString(weight->shape) << " must be (" << alpha << ", " << alpha << ", O / " << oc << ", "
      << (phases == 1 ? "C" : "4C") << ", " << oc << ") for tile_size " << a.tile_size << " and stride " << stride;
  TVMLITE_CHECK_KIND(a.groups == 1, ValueError) << "Winograd convolution needs groups = 1, got " << a.groups;
  std::optional<int64_t> cb = data->shape[1].as<int64_t>(), c = weight->shape[3].as<int64_t>();
  if (cb && c) {
    TVMLITE_CHECK_KIND(BoundedMul(BoundedMul(*cb, ic, "in_channels"), phases, "in_channels") == *c, ValueError)
        << "in_channels mismatch: data " << ShapeToString(data->shape) << " has " << *cb * ic << ", weight "
        << ShapeToString(weight->shape) << " " << *c;
  }
  if (a.channels.has_value()) {
    if (std::optional<int64_t> ob = weight->shape[2].as<int64_t>()) {
      TVMLITE_CHECK_KIND(*a.channels == BoundedMul(*ob, oc, "out_channels"), ValueError)
          << "channels = " << *a.channels << " disagrees with weight " << ShapeToString(weight->shape);
    }
  }
  std::vector<Any> out{data->shape[0], weight->shape[2]};
  for (int i = 0; i < 2; ++i) out.push_back(WindowOut<2>(data->shape[2 + i], Any(int64_t(3)), w, i, false));
  out.push_back(Any(oc));
  return TensorType(Array<Any>(out), OutDtype(a.out_dtype, data->dtype));
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(ConvWinogradWeightTransformAttrs, tile_size, stride);
  using A = Conv2DWinogradAttrs;
  TVMLITE_REFLECT_FIELDS(A, tile_size, strides, padding, dilation, groups, channels, kernel_size, data_layout,
                         kernel_layout, out_layout, out_dtype);
});

TVMLITE_REGISTER_OP("nn.contrib_conv2d_winograd_weight_transform")
    .describe(
        "The Winograd transform of 3x3 conv filters: (O, C, 3, 3) -> (alpha, alpha, O, C), G g G^T; stride 2: "
        "(alpha, alpha, O, 4C), the parity phases' filters.")
    .add_argument("weight", "Tensor", "The filters, (out_channels, in_channels, 3, 3).")
    .add_type_rel("Conv2DWinogradWeightTransform", WeightTransformRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.contrib_conv2d_winograd_without_weight_transform")
    .describe(
        "3x3 convolution by Winograd's F(m x m, 3 x 3) (stride 2: F(m x m, 2 x 2) over the input's parity "
        "phases) on blocked data, the filters transformed.")
    .add_argument("data", "Tensor", "The input, (batch, in_channels / ic, height, width, ic).")
    .add_argument("weight", "Tensor", "The transformed filters, (alpha, alpha, out_channels / oc, in_channels, oc).")
    .add_type_rel("Conv2DWinograd", WinogradConvRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

}  // namespace relay
}  // namespace tvmlite
