/*!
 * \file conv2d_nchwc.cc
 * \brief The blocked 2-D convolutions of the cpu target (TVM's names), made by AlterOpLayout from nn.conv2d:
 *
 *   nn.contrib_conv2d_NCHWc            data (N, C / ic, H, W, ic)  NCHW{ic}c
 *                                      weight (O / oc, C / groups / ic, KH, KW, ic, oc)  OIHW{ic}i{oc}o
 *                                      -> (N, O / oc, OH, OW, oc)  NCHW{oc}c
 *   nn.contrib_depthwise_conv2d_NCHWc  data (N, C / c, H, W, c), weight (C / c, 1, KH, KW, 1, c)  OIHW1i{c}o,
 *                                      groups = C (one filter per channel) -> (N, C / c, OH, OW, c)
 *   nn.contrib_conv2d_winograd_per_shape  (data, weight, u_1[, u_2]): nn.contrib_conv2d_NCHWc for a 3x3 conv whose
 *                                      plane is symbolic, with the filters Winograd-transformed for each tile size
 *                                      some plane would take (HWOI{oc}o); its kernel chooses per run-time shape
 *   nn.contrib_conv3d_NCDHWc           the same with a depth: NCDHW{ic}c data (N, C / ic, D, H, W, ic),
 *                                      OIDHW{ic}i{oc}o weight -> NCDHW{oc}c
 *   nn.contrib_depthwise_conv3d_NCDHWc NCDHW{c}c data, OIDHW1i{c}o weight, groups = C -> NCDHW{c}c
 *
 * Attrs are Conv2DAttrs (Conv3DAttrs) with the blocked layouts in data_layout / kernel_layout / out_layout
 * ("" = NCHW{oc}c / NCDHW{oc}c). One relation, templated over the spatial rank S.
 * Grouped convolution needs each group's input channels to be whole ic blocks and its output channels whole oc
 * blocks, so that a block never straddles two groups. OH, OW come from the window helpers (window.h) as for
 * nn.conv2d; the references unpack to NCHW / OIHW and run nn.conv2d's (tvmlite/relay/op/_layout.py).
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/layout.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace {

/*! \brief The (ic, oc) of a kernel layout "OIHW{ic}i{oc}o" (S = 3: "OIDHW..."); NotImplementedError otherwise. */
template <int S>
std::pair<int64_t, int64_t> KernelBlocks(const std::string& name) {
  const std::string primal = ConvKernelLayout(S);
  Layout layout(name);
  bool ok =
      layout.ndim() == S + 4 && layout.PrimalAxes() == primal && layout[S + 2].name == 'i' && layout[S + 3].name == 'o';
  TVMLITE_CHECK_KIND(ok, NotImplementedError)
      << "kernel_layout '" << name << "' is not supported (only " << primal << "{i}i{o}o, e.g. " << primal << "16i16o)";
  return {layout[S + 2].factor, layout[S + 3].factor};
}

/*! \brief The block of a data layout "NCHW{c}c" (S = 3: "NCDHW{c}c"); NotImplementedError for any other layout. */
template <int S>
int64_t DataBlock(const std::string& name, const char* field) {
  const std::string plain = ChannelFirstLayout(S);
  Layout parsed(name);  // ValueError for a malformed string first
  int64_t block = ChannelFirstBlockOf(name, plain);
  TVMLITE_CHECK_KIND(block > 0, NotImplementedError)
      << field << " '" << name << "' is not supported (only " << plain << "{c}c, e.g. " << plain << "16c)";
  return block;
}

/*! \brief A static dim of t, or nullopt. */
std::optional<int64_t> StaticDim(const TensorTypeNode* t, size_t i) { return t->shape[i].as<int64_t>(); }

template <int S, bool kDepthwise>
Type ConvNCHWcRel(const Array<Type>& args, const ConvAttrs<S>& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  int64_t ic = DataBlock<S>(a.data_layout, "data_layout");
  auto [kic, oc] = KernelBlocks<S>(a.kernel_layout);
  int64_t out_block = a.out_layout.empty() ? oc : DataBlock<S>(a.out_layout, "out_layout");
  TVMLITE_CHECK_KIND(out_block == oc, ValueError)
      << "out_layout '" << a.out_layout << "' disagrees with kernel_layout '" << a.kernel_layout << "' (output block "
      << oc << ")";
  CheckRank(data, S + 3,
            S == 2 ? "data (batch, channels / block, height, width, block)"
                   : "data (batch, channels / block, depth, height, width, block)");
  CheckRank(weight, S + 4,
            S == 2 ? "weight (out / oc, in / groups / ic, kh, kw, ic, oc)"
                   : "weight (out / oc, in / groups / ic, kd, kh, kw, ic, oc)");
  TVMLITE_CHECK_KIND(data->dtype == weight->dtype || a.out_dtype.has_value(), TypeError)
      << "data and weight dtypes differ (" << data->dtype.str() << " vs " << weight->dtype.str()
      << "); set out_dtype to mix them";
  TVMLITE_CHECK_KIND(a.groups >= 1 && a.groups <= kMaxWindowValue, ValueError)
      << "groups = " << a.groups << " must be >= 1";
  TVMLITE_CHECK_KIND(DimIs(data->shape[S + 2], ic), ValueError)
      << "data " << ShapeToString(data->shape) << " must end in its block " << ic << " (data_layout '" << a.data_layout
      << "')";
  TVMLITE_CHECK_KIND(DimIs(weight->shape[S + 2], kic) && DimIs(weight->shape[S + 3], oc), ValueError)
      << "weight " << ShapeToString(weight->shape) << " must end in (" << kic << ", " << oc << ") (kernel_layout '"
      << a.kernel_layout << "')";
  if (kDepthwise) {
    TVMLITE_CHECK_KIND(kic == 1 && oc == ic, ValueError)
        << "a depthwise kernel_layout must be " << ConvKernelLayout(S) << "1i{c}o with c the data's block " << ic
        << ", got '" << a.kernel_layout << "'";
    TVMLITE_CHECK_KIND(DimIs(weight->shape[1], 1), ValueError)
        << "depthwise weight " << ShapeToString(weight->shape) << " must have one input channel per filter";
  } else {
    TVMLITE_CHECK_KIND(kic == ic, ValueError) << "kernel_layout '" << a.kernel_layout << "' has input block " << kic
                                              << " but data_layout '" << a.data_layout << "' has " << ic;
  }
  std::optional<int64_t> cb = StaticDim(data, 1), wo = StaticDim(weight, 0), wi = StaticDim(weight, 1);
  if (cb && wo && wi) {
    int64_t c = BoundedMul(*cb, ic, "in_channels"), o = BoundedMul(*wo, oc, "out_channels");
    if (kDepthwise) {
      TVMLITE_CHECK_KIND(a.groups == c && o == c, ValueError)
          << "depthwise: groups (" << a.groups << ") and out_channels (" << o << ") must equal in_channels (" << c
          << ")";
    } else {
      int64_t per_group = BoundedMul(*wi, ic, "in_channels per group");
      TVMLITE_CHECK_KIND(c % a.groups == 0 && o % a.groups == 0 && c / a.groups == per_group, ValueError)
          << "in_channels mismatch: data " << ShapeToString(data->shape) << " has " << c << " channels, weight "
          << ShapeToString(weight->shape) << " expects " << per_group << " per group * groups " << a.groups
          << " (and out_channels " << o << " must divide by groups)";
      TVMLITE_CHECK_KIND((c / a.groups) % ic == 0 && (o / a.groups) % oc == 0, ValueError)
          << "grouped: each group's channels (in " << c / a.groups << ", out " << o / a.groups
          << ") must be whole blocks (ic " << ic << ", oc " << oc << ")";
    }
    if (a.channels.has_value()) {
      TVMLITE_CHECK_KIND(*a.channels == o, ValueError)
          << "channels = " << *a.channels << " disagrees with weight " << ShapeToString(weight->shape) << " (" << o
          << " output channels)";
    }
  }
  Window<S> w = NormalizeWindow<S>(a.strides, a.padding, a.dilation);
  TVMLITE_CHECK_KIND(a.kernel_size.empty() || a.kernel_size.size() == S, ValueError)
      << "kernel_size needs " << S << " values, got " << a.kernel_size.size();
  for (size_t i = 0; i < a.kernel_size.size(); ++i) {
    TVMLITE_CHECK_KIND(DimIs(weight->shape[2 + i], a.kernel_size[i]) || !StaticDim(weight, 2 + i), ValueError)
        << "kernel_size[" << i << "] = " << a.kernel_size[i] << " disagrees with weight shape "
        << ShapeToString(weight->shape);
  }
  std::vector<Any> out{data->shape[0], weight->shape[0]};
  for (int i = 0; i < S; ++i) out.push_back(WindowOut<S>(data->shape[2 + i], weight->shape[2 + i], w, i, false));
  out.push_back(Any(oc));
  return TensorType(Array<Any>(out), OutDtype(a.out_dtype, data->dtype));
}

/*!
 * \brief nn.contrib_conv2d_winograd_per_shape(data, weight, u_1, ..., u_k): nn.contrib_conv2d_NCHWc's type for
 * (data, weight); each u_i the filters transformed for one Winograd tile size m (2 or 4), (alpha, alpha, O / oc, C,
 * oc) with alpha = m + 2, or (alpha, alpha, O / oc, 4C, oc) with alpha = m + 1 at stride 2.
 */
Type ConvWinogradPerShapeRel(const Array<Type>& args, const Conv2DAttrs& a) {
  TVMLITE_CHECK_KIND(args.size() == 3 || args.size() == 4, TypeError)
      << "expected data, weight and one or two transformed weights, got " << args.size() << " inputs";
  Type out = ConvNCHWcRel<2, false>(Array<Type>{args[0], args[1]}, a);
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  Window<2> w = NormalizeWindow<2>(a.strides, a.padding, a.dilation);
  const int64_t stride = w.stride[0];
  TVMLITE_CHECK_KIND(a.groups == 1 && w.stride[1] == stride && (stride == 1 || stride == 2) && w.dilation[0] == 1 &&
                         w.dilation[1] == 1 && DimIs(weight->shape[2], 3) && DimIs(weight->shape[3], 3),
                     ValueError)
      << "Winograd takes an ungrouped 3x3 conv of stride 1 or 2 (the same in both axes) and dilation 1";
  const int64_t oc = KernelBlocks<2>(a.kernel_layout).second;
  std::optional<int64_t> cb = StaticDim(data, 1);
  for (size_t i = 2; i < args.size(); ++i) {
    const TensorTypeNode* u = TensorArg(args, i);
    CheckRank(u, 5, "transformed weight (alpha, alpha, out / oc, in, oc)");
    std::optional<int64_t> alpha = StaticDim(u, 0);
    const int64_t m = alpha ? *alpha - (stride == 2 ? 1 : 2) : 0;
    const bool fits = (m == 2 || m == 4) && DimIs(u->shape[1], *alpha) && DimIs(u->shape[4], oc) &&
                      (!StaticDim(weight, 0) || DimIs(u->shape[2], *StaticDim(weight, 0))) &&
                      (!cb || DimIs(u->shape[3], (stride == 2 ? 4 : 1) * *cb * DataBlock<2>(a.data_layout, "")));
    TVMLITE_CHECK_KIND(fits && u->dtype == weight->dtype, ValueError)
        << "transformed weight " << ShapeToString(u->shape) << " (" << u->dtype.str() << ") is not the filters of "
        << ShapeToString(weight->shape) << " for Winograd tile size 2 or 4 at stride " << stride;
  }
  return out;
}

}  // namespace

TVMLITE_REGISTER_OP("nn.contrib_conv2d_NCHWc")
    .describe(
        "2-D convolution on blocked data: NCHW{ic}c data, OIHW{ic}i{oc}o weight -> NCHW{oc}c (grouped when "
        "groups > 1, each group whole blocks).")
    .add_argument("data", "Tensor", "The input, (batch, in_channels / ic, height, width, ic).")
    .add_argument("weight", "Tensor", "The packed filters, (out / oc, in / groups / ic, kh, kw, ic, oc).")
    .add_type_rel("Conv2DNCHWc", ConvNCHWcRel<2, false>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.contrib_conv2d_winograd_per_shape")
    .describe(
        "A blocked 3x3 conv whose output plane is known only at run time: per call, Winograd with the filters "
        "transformed for the tile its plane takes (topi.nn.conv2d_winograd_tile), else the direct conv.")
    .set_num_inputs(-1)
    .add_argument("data", "Tensor", "The input, (batch, in_channels / ic, height, width, ic).")
    .add_argument("weight", "Tensor", "The packed filters, (out / oc, in / ic, 3, 3, ic, oc).")
    .add_argument("transformed", "Tensor",
                  "One or two: the filters transformed for a tile size, (alpha, alpha, "
                  "out / oc, in (x4 at stride 2), oc).")
    .add_type_rel("Conv2DWinogradPerShape", ConvWinogradPerShapeRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.contrib_depthwise_conv2d_NCHWc")
    .describe("Depthwise 2-D convolution on blocked data: NCHW{c}c data, OIHW1i{c}o weight, groups = channels.")
    .add_argument("data", "Tensor", "The input, (batch, channels / c, height, width, c).")
    .add_argument("weight", "Tensor", "The packed filters, (channels / c, 1, kh, kw, 1, c).")
    .add_type_rel("DepthwiseConv2DNCHWc", ConvNCHWcRel<2, true>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.contrib_conv3d_NCDHWc")
    .describe(
        "3-D convolution on blocked data: NCDHW{ic}c data, OIDHW{ic}i{oc}o weight -> NCDHW{oc}c (grouped "
        "when groups > 1, each group whole blocks).")
    .add_argument("data", "Tensor", "The input, (batch, in_channels / ic, depth, height, width, ic).")
    .add_argument("weight", "Tensor", "The packed filters, (out / oc, in / groups / ic, kd, kh, kw, ic, oc).")
    .add_type_rel("Conv3DNCDHWc", ConvNCHWcRel<3, false>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.contrib_depthwise_conv3d_NCDHWc")
    .describe("Depthwise 3-D convolution on blocked data: NCDHW{c}c data, OIDHW1i{c}o weight, groups = channels.")
    .add_argument("data", "Tensor", "The input, (batch, channels / c, depth, height, width, c).")
    .add_argument("weight", "Tensor", "The packed filters, (channels / c, 1, kd, kh, kw, 1, c).")
    .add_type_rel("DepthwiseConv3DNCDHWc", ConvNCHWcRel<3, true>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

}  // namespace relay
}  // namespace tvmlite
