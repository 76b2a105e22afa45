/*!
 * \file convolution.cc
 * \brief nn.conv{1,2,3}d and nn.conv{1,2,3}d_transpose: one relation per op kind, templated over the spatial rank N.
 *
 * Layouts (the only ones accepted; see tvmlite/relay/attrs/nn.h):
 *   conv{N}d            data (B, C, *S) NC...   weight (O, C / groups, *K) OI...   -> (B, O, *S_out)
 *   conv{N}d_transpose  data (B, C, *S) NC...   weight (C, O / groups, *K) IO...   -> (B, O, *S_out)
 *                       or weight (groups, O / groups, *K, C / groups) IO...{k}i, k = C / groups: the same weight
 *                       packed per group (AlterOpLayout's, so the kernel's GEMM reads it as it is)
 * Grouped convolution splits C into `groups` blocks of C / groups channels, each convolved with O / groups filters
 * (depthwise: groups = C). Spatial sizes come from the window helpers (window.h); a symbolic data dim gives a
 * symbolic output dim, the batch dim is passed through as it is.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/runtime/reflection.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

/*! \brief groups in [1, kMaxWindowValue]. */
void CheckGroups(int64_t groups) {
  TVMLITE_CHECK_KIND(groups >= 1 && groups <= kMaxWindowValue, ValueError) << "groups = " << groups << " must be >= 1";
}

/*! \brief ValueError unless the static dim `dim` (named) is divisible by groups. */
void CheckDivisible(const Any& dim, int64_t groups, const char* what, const TensorTypeNode* t, const char* tname) {
  std::optional<int64_t> v = dim.as<int64_t>();
  TVMLITE_CHECK_KIND(!v || *v % groups == 0, ValueError)
      << what << " " << *v << " of " << tname << " " << ShapeToString(t->shape)
      << " is not divisible by groups = " << groups;
}

/*! \brief The kernel's spatial dims: the weight's, checked against kernel_size when that is given. */
template <int N>
std::array<Any, N> KernelDims(const TensorTypeNode* weight, const Array<int64_t>& kernel_size) {
  TVMLITE_CHECK_KIND(kernel_size.empty() || kernel_size.size() == static_cast<size_t>(N), ValueError)
      << "kernel_size needs " << N << " values, got " << kernel_size.size();
  std::array<Any, N> k;
  for (int i = 0; i < N; ++i) {
    k[i] = weight->shape[2 + i];
    if (kernel_size.empty()) continue;
    int64_t ks = kernel_size[i];
    std::optional<int64_t> wk = k[i].template as<int64_t>();
    TVMLITE_CHECK_KIND(!wk || *wk == ks, ValueError)
        << "kernel_size[" << i << "] = " << ks << " disagrees with weight shape " << ShapeToString(weight->shape);
    if (!wk) k[i] = Any(ks);
  }
  return k;
}

/*! \brief The declared channels when the weight's are symbolic; ValueError when they disagree. */
Any OutChannels(Any from_weight, const Optional<int64_t>& channels, const TensorTypeNode* weight) {
  if (!channels.has_value()) return from_weight;
  std::optional<int64_t> v = from_weight.as<int64_t>();
  TVMLITE_CHECK_KIND(!v || *v == *channels, ValueError)
      << "channels = " << *channels << " disagrees with weight shape " << ShapeToString(weight->shape) << " (" << *v
      << " output channels)";
  TVMLITE_CHECK_KIND(*channels >= 0, ValueError) << "channels = " << *channels << " must be >= 0";
  return v ? from_weight : Any(*channels);
}

DataType ConvDtype(const TensorTypeNode* data, const TensorTypeNode* weight, const Optional<DataType>& out_dtype) {
  TVMLITE_CHECK_KIND(data->dtype == weight->dtype || out_dtype.has_value(), TypeError)
      << "data and weight dtypes differ (" << data->dtype.str() << " vs " << weight->dtype.str()
      << "); set out_dtype to mix them";
  return OutDtype(out_dtype, data->dtype);
}

template <int N>
Type ConvRel(const Array<Type>& args, const ConvAttrs<N>& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  CheckLayout(a.data_layout, "data_layout", ChannelFirstLayout(N));
  CheckLayout(a.kernel_layout, "kernel_layout", ConvKernelLayout(N));
  CheckLayout(a.out_layout, "out_layout", ChannelFirstLayout(N), true);
  CheckRank(data, N + 2, "data (batch, channels, spatial...)");
  CheckRank(weight, N + 2, "weight (out_channels, in_channels / groups, kernel...)");
  DataType dtype = ConvDtype(data, weight, a.out_dtype);
  CheckGroups(a.groups);
  Window<N> w = NormalizeWindow<N>(a.strides, a.padding, a.dilation);
  CheckDivisible(data->shape[1], a.groups, "in_channels", data, "data");
  CheckDivisible(weight->shape[0], a.groups, "out_channels", weight, "weight");
  std::optional<int64_t> c = data->shape[1].as<int64_t>(), cg = weight->shape[1].as<int64_t>();
  if (c && cg) {
    TVMLITE_CHECK_KIND(static_cast<__int128>(*cg) * a.groups == *c, ValueError)
        << "in_channels mismatch: data " << ShapeToString(data->shape) << " has " << *c << " channels, weight "
        << ShapeToString(weight->shape) << " expects " << *cg << " per group * groups " << a.groups;
  }
  std::array<Any, N> k = KernelDims<N>(weight, a.kernel_size);
  std::vector<Any> out{data->shape[0], OutChannels(weight->shape[0], a.channels, weight)};
  for (int i = 0; i < N; ++i) out.push_back(WindowOut<N>(data->shape[2 + i], k[i], w, i, false));
  return TensorType(Array<Any>(out), dtype);
}

template <int N>
Type ConvTransposeRel(const Array<Type>& args, const ConvTransposeAttrs<N>& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  CheckLayout(a.data_layout, "data_layout", ChannelFirstLayout(N));
  const int64_t packed = PackedInputBlock(a.kernel_layout, ConvTransposeKernelLayout(N));
  CheckLayout(a.out_layout, "out_layout", ChannelFirstLayout(N), true);
  CheckRank(data, N + 2, "data (batch, channels, spatial...)");
  if (packed) {
    CheckRank(weight, N + 3, "packed weight (groups, out_channels / groups, kernel..., in_channels / groups)");
  } else {
    CheckRank(weight, N + 2, "weight (in_channels, out_channels / groups, kernel...)");
  }
  DataType dtype = ConvDtype(data, weight, a.out_dtype);
  CheckGroups(a.groups);
  Window<N> w = NormalizeWindow<N>(a.strides, a.padding, a.dilation);
  std::array<int64_t, N> out_pad = PerDim<N>(a.output_padding, "output_padding", 0, 0);
  CheckDivisible(data->shape[1], a.groups, "in_channels", data, "data");
  if (packed) {
    TVMLITE_CHECK_KIND(DimIs(weight->shape[0], a.groups) && DimIs(weight->shape[N + 2], packed), ValueError)
        << "packed weight " << ShapeToString(weight->shape) << " must be (groups = " << a.groups
        << ", out_channels / groups, kernel..., " << packed << ") for kernel_layout '" << a.kernel_layout << "'";
    std::optional<int64_t> c = data->shape[1].as<int64_t>();
    TVMLITE_CHECK_KIND(!c || *c == static_cast<__int128>(packed) * a.groups, ValueError)
        << "in_channels mismatch: data " << ShapeToString(data->shape) << " has " << *c << " channels, weight "
        << ShapeToString(weight->shape) << " is packed for " << a.groups << " groups of " << packed;
  } else {
    TVMLITE_CHECK_KIND(
        DimEqual(data->shape[1], weight->shape[0]) || !data->shape[1].as<int64_t>() || !weight->shape[0].as<int64_t>(),
        ValueError)
        << "in_channels mismatch: data " << ShapeToString(data->shape) << " has " << DimToString(data->shape[1])
        << " channels, weight " << ShapeToString(weight->shape) << " has " << DimToString(weight->shape[0]);
  }
  std::array<Any, N> k = KernelDims<N>(weight, a.kernel_size);
  Any oc = weight->shape[1];
  if (std::optional<int64_t> v = oc.as<int64_t>()) oc = Any(BoundedMul(*v, a.groups, "out_channels"));
  std::vector<Any> out{data->shape[0], OutChannels(oc, a.channels, weight)};
  for (int i = 0; i < N; ++i) {
    std::optional<int64_t> x = BoundedDim(data->shape[2 + i], "input dim"), kk = BoundedDim(k[i], "kernel size");
    if (!x || !kk) {
      out.push_back(Any(SizeVar::Any()));
      continue;
    }
    TVMLITE_CHECK_KIND(*kk >= 1, ValueError) << "kernel size of spatial dim " << i << " is " << *kk;
    __int128 wide = static_cast<__int128>(*x - 1) * w.stride[i] - w.pad_begin[i] - w.pad_end[i] +
                    static_cast<__int128>(w.dilation[i]) * (*kk - 1) + 1 + out_pad[i];
    int64_t size = wide > kMaxWindowValue ? kMaxWindowValue + 1 : wide < 0 ? -1 : static_cast<int64_t>(wide);
    TVMLITE_CHECK_KIND(size <= kMaxWindowValue, ValueError)
        << "spatial dim " << i << " of the output would be larger than " << kMaxWindowValue;
    TVMLITE_CHECK_KIND(*x >= 1 && size >= 1, ValueError)
        << "spatial dim " << i << " of the output would be " << size << " (input " << *x << ", stride " << w.stride[i]
        << ", padding (" << w.pad_begin[i] << ", " << w.pad_end[i] << "), kernel " << *kk << ", dilation "
        << w.dilation[i] << ", output_padding " << out_pad[i] << ")";
    out.push_back(Any(size));
  }
  return TensorType(Array<Any>(out), dtype);
}

/*!
 * \brief nn.conv{N}d_integer(data, weight, data_zero_point, weight_zero_point) (ONNX ConvInteger): the conv of
 * (data - data_zero_point) and (weight - weight_zero_point), accumulated in int32. Zero points: data's a scalar
 * (or one value), weight's a scalar or one per output channel; each has its operand's dtype.
 */
template <int N>
Type ConvIntegerRel(const Array<Type>& args, const ConvAttrs<N>& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  const TensorTypeNode* dz = TensorArg(args, 2);
  const TensorTypeNode* wz = TensorArg(args, 3);
  for (const TensorTypeNode* t : {data, weight}) {
    TVMLITE_CHECK_KIND(t->dtype.is_int() || t->dtype.code() == kDLUInt, TypeError)
        << "integer convolution needs integer operands, got " << t->dtype.str();
  }
  TVMLITE_CHECK_KIND(dz->dtype == data->dtype && wz->dtype == weight->dtype, TypeError)
      << "zero points must have their operand's dtype: data " << data->dtype.str() << " / " << dz->dtype.str()
      << ", weight " << weight->dtype.str() << " / " << wz->dtype.str();
  TVMLITE_CHECK_KIND(dz->ndim() == 0 || (dz->ndim() == 1 && DimIs(dz->shape[0], 1)), ValueError)
      << "data_zero_point must be a scalar, got shape " << ShapeToString(dz->shape);
  Type conv = ConvRel<N>({args[0], TensorType(weight->shape, data->dtype)}, a);
  const auto* out = conv.as<TensorTypeNode>();
  if (wz->ndim() == 1 && !DimIs(wz->shape[0], 1)) {
    bool ok = DimEqual(wz->shape[0], weight->shape[0]) || wz->shape[0].type_index() != kTVMLiteInt ||
              weight->shape[0].type_index() != kTVMLiteInt;
    TVMLITE_CHECK_KIND(ok, ValueError) << "weight_zero_point " << ShapeToString(wz->shape)
                                       << " must be a scalar or one per output channel of weight "
                                       << ShapeToString(weight->shape);
  } else {
    TVMLITE_CHECK_KIND(wz->ndim() <= 1, ValueError)
        << "weight_zero_point must be a scalar or 1-D, got shape " << ShapeToString(wz->shape);
  }
  return TensorType(out->shape, DataType::Int(32));
}

template <typename AttrsT>
void ReflectConvAttrs() {
  auto def = refl::ObjectDef<AttrsT>();
  def.def_ro("strides", &AttrsT::strides).def_ro("padding", &AttrsT::padding).def_ro("dilation", &AttrsT::dilation);
  if constexpr (std::is_same_v<AttrsT, ConvTransposeAttrs<1>> || std::is_same_v<AttrsT, ConvTransposeAttrs<2>> ||
                std::is_same_v<AttrsT, ConvTransposeAttrs<3>>) {
    def.def_ro("output_padding", &AttrsT::output_padding);
  }
  def.def_ro("groups", &AttrsT::groups)
      .def_ro("channels", &AttrsT::channels)
      .def_ro("kernel_size", &AttrsT::kernel_size)
      .def_ro("data_layout", &AttrsT::data_layout)
      .def_ro("kernel_layout", &AttrsT::kernel_layout)
      .def_ro("out_layout", &AttrsT::out_layout)
      .def_ro("out_dtype", &AttrsT::out_dtype);
}

/*!
 * \brief conv{N}d's "FTVMLiteScaleAxis" (FoldScaleAxis, fold_scale_axis.cc): in the channel-first layouts the
 * output channels are axis 1 of the result and axis 0 of the weight; in others the rule declines (None).
 */
template <int N>
runtime::Any ConvScaleAxis(const Call& call) {
  const auto* a = call->attrs.as<ConvAttrs<N>>();
  const std::string data = ChannelFirstLayout(N);
  if (a == nullptr || a->data_layout != data || a->kernel_layout != ConvKernelLayout(N) ||
      !(a->out_layout.empty() || a->out_layout == data)) {
    return runtime::Any();
  }
  return Array<int64_t>{1, 0};
}

template <int N>
void RegisterConv() {
  ReflectConvAttrs<ConvAttrs<N>>();
  ReflectConvAttrs<ConvTransposeAttrs<N>>();
  std::string dims = std::to_string(N) + "d";
  OpRegEntry::RegisterOrGet("nn.conv" + dims)
      .describe(std::to_string(N) + "-D convolution: data " + ChannelFirstLayout(N) + ", weight " +
                ConvKernelLayout(N) + "; grouped when groups > 1 (depthwise: groups = in_channels).")
      .add_argument("data", "Tensor", "The input, (batch, in_channels, spatial...).")
      .add_argument("weight", "Tensor", "The filters, (out_channels, in_channels / groups, kernel...).")
      .add_type_rel("Conv", ConvRel<N>)
      .template set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable)
      .set_attr("FTVMLiteScaleAxis",
                runtime::Function::FromTyped(ConvScaleAxis<N>, "FTVMLiteScaleAxis of nn.conv" + dims));
  OpRegEntry::RegisterOrGet("nn.conv" + dims + "_transpose")
      .describe(std::to_string(N) + "-D transposed convolution (the gradient of conv" + dims +
                " w.r.t. its input): "
                "data " +
                ChannelFirstLayout(N) + ", weight " + ConvTransposeKernelLayout(N) + ".")
      .add_argument("data", "Tensor", "The input, (batch, in_channels, spatial...).")
      .add_argument("weight", "Tensor", "The filters, (in_channels, out_channels / groups, kernel...).")
      .add_type_rel("ConvTranspose", ConvTransposeRel<N>)
      .template set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);
  OpRegEntry::RegisterOrGet("nn.conv" + dims + "_integer")
      .describe(std::to_string(N) +
                "-D integer convolution (ONNX ConvInteger): conv of (data - data_zero_point) "
                "and (weight - weight_zero_point) accumulated in int32.")
      .add_argument("data", "Tensor", "The input (int8 / uint8), (batch, in_channels, spatial...).")
      .add_argument("weight", "Tensor", "The filters (int8 / uint8), (out_channels, in_channels / groups, kernel...).")
      .add_argument("data_zero_point", "Tensor", "Scalar zero point of data.")
      .add_argument("weight_zero_point", "Tensor", "Scalar or per-output-channel zero point of weight.")
      .add_type_rel("ConvInteger", ConvIntegerRel<N>)
      .template set_attr<TOpPattern>("TOpPattern", kOpaque);
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({
  RegisterConv<1>();
  RegisterConv<2>();
  RegisterConv<3>();
});

}  // namespace relay
}  // namespace tvmlite
