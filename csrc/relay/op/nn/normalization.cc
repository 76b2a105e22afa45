/*!
 * \file normalization.cc
 * \brief Normalization ops: batch_norm, layer_norm, rms_norm, instance_norm, group_norm, lrn, lp_normalize,
 *        mean_variance_normalization, and the softmax family (softmax, log_softmax, hardmax).
 *
 * Layouts: batch/instance/group norm and lrn take data (N, C, d1, ..., dk) with per-channel parameters (C,) on
 * `axis` (1 unless an attribute says otherwise). layer_norm and rms_norm normalise over the trailing axes
 * [axis, ndim) and take parameters that broadcast to data.shape[axis:]. Statistics outputs (batch_norm's running
 * mean/var, layer_norm's mean/inv_std_dev) keep their parameter's dtype; everything else keeps data's type.
 */
#include <tvmlite/relay/attrs/norm.h>
#include <tvmlite/runtime/reflection.h>

#include "op_common.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(BatchNormAttrs, axis, epsilon, center, scale, momentum, training);
  TVMLITE_REFLECT_FIELDS(LayerNormAttrs, axis, epsilon, stash_type);
  TVMLITE_REFLECT_FIELDS(InstanceNormAttrs, epsilon);
  TVMLITE_REFLECT_FIELDS(GroupNormAttrs, num_groups, epsilon, stash_type);
  TVMLITE_REFLECT_FIELDS(LRNAttrs, size, axis, bias, alpha, beta);
  TVMLITE_REFLECT_FIELDS(LpNormalizeAttrs, axis, p);
  TVMLITE_REFLECT_FIELDS(MVNAttrs, axes, epsilon);
  TVMLITE_REFLECT_FIELDS(SoftmaxAttrs, axis, flatten);
});

namespace {

void CheckEpsilon(double epsilon) {
  TVMLITE_CHECK_KIND(epsilon >= 0.0, ValueError) << "epsilon must be >= 0, got " << epsilon;
}

void CheckStashType(const std::string& stash_type) {
  TVMLITE_CHECK_KIND(stash_type.empty() || stash_type == "float32" || stash_type == "float64" ||
                         stash_type == "float16" || stash_type == "bfloat16",
                     ValueError)
      << "stash_type must be a float dtype (float16, bfloat16, float32, float64) or empty, got '" << stash_type << "'";
}

/*! \brief data (N, C, ...) with rank >= min_rank; returns C (dim `axis`). */
Any ChannelDim(const TensorTypeNode* data, int64_t axis, size_t min_rank) {
  TVMLITE_CHECK_KIND(data->shape.size() >= min_rank, ValueError)
      << "data must have rank >= " << min_rank << " (N, C, ...), got shape " << ShapeToString(data->shape);
  return data->shape[NormalizeAxis(axis, static_cast<int64_t>(data->shape.size()))];
}

}  // namespace

/*! \brief (data, gamma, beta, moving_mean, moving_var) -> (out, mean_out, var_out). */
Type BatchNormRel(const Array<Type>& args, const BatchNormAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  CheckEpsilon(a.epsilon);
  Any channels = ChannelDim(data, a.axis, 1);
  static const char* names[] = {"", "gamma", "beta", "moving_mean", "moving_var"};
  for (size_t i = 1; i < 5; ++i) {
    const TensorTypeNode* p = TensorArg(args, i);
    CheckFloating(p->dtype, names[i]);
    CheckChannelParam(p, channels, names[i], data->shape);
  }
  const TensorTypeNode* mean = TensorArg(args, 3);
  const TensorTypeNode* var = TensorArg(args, 4);
  return TupleType({args[0], TensorType(mean->shape, mean->dtype), TensorType(var->shape, var->dtype)});
}

/*! \brief The shape data.shape[:axis] + (1,) * (ndim - axis): layer_norm's statistics. */
Array<Any> ReducedShape(const Array<Any>& shape, int64_t axis) {
  std::vector<Any> out;
  for (size_t i = 0; i < shape.size(); ++i) out.push_back(static_cast<int64_t>(i) < axis ? shape[i] : Any(int64_t(1)));
  return Array<Any>(out);
}

Array<Any> TailShape(const Array<Any>& shape, int64_t axis) {
  std::vector<Any> out;
  for (size_t i = static_cast<size_t>(axis); i < shape.size(); ++i) out.push_back(shape[i]);
  return Array<Any>(out);
}

/*!
 * \brief What layer_norm and rms_norm check alike: floating data of rank >= 1, epsilon, stash_type, and gamma
 * (args[1]) of data's dtype broadcasting to the normalized shape data[axis:]. Returns the normalized axis.
 */
int64_t CheckNormalizedShape(const Array<Type>& args, const LayerNormAttrs* a, const TensorTypeNode* data) {
  CheckFloating(data->dtype, "data");
  CheckEpsilon(a->epsilon);
  CheckStashType(a->stash_type);
  int64_t ndim = static_cast<int64_t>(data->shape.size());
  TVMLITE_CHECK_KIND(ndim >= 1, ValueError) << "data must have rank >= 1, got shape " << ShapeToString(data->shape);
  int64_t axis = NormalizeAxis(a->axis, ndim);
  const TensorTypeNode* gamma = TensorArg(args, 1);
  CheckUnidirectional(gamma->shape, TailShape(data->shape, axis), "gamma", "the normalized shape");
  TVMLITE_CHECK_KIND(gamma->dtype == data->dtype, TypeError)
      << "gamma dtype " << gamma->dtype.str() << " differs from data dtype " << data->dtype.str();
  return axis;
}

/*! \brief (data, gamma, beta-or-()) -> (out, mean, inv_std_dev), statistics of shape data[:axis] + 1s. */
Type LayerNormRel(const Array<Type>& args, const LayerNormAttrs& attrs) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const int64_t axis = CheckNormalizedShape(args, &attrs, data);
  if (const TensorTypeNode* beta = OptionalTensorArg(args, 2)) {
    CheckUnidirectional(beta->shape, TailShape(data->shape, axis), "beta", "the normalized shape");
    TVMLITE_CHECK_KIND(beta->dtype == data->dtype, TypeError)
        << "beta dtype " << beta->dtype.str() << " differs from data dtype " << data->dtype.str();
  }
  TensorType stats(ReducedShape(data->shape, axis), data->dtype);
  return TupleType({args[0], stats, stats});
}

/*! \brief (data, gamma) -> out, normalised by the root mean square over [axis, ndim). */
Type RMSNormRel(const Array<Type>& args, const LayerNormAttrs& attrs) {
  CheckNormalizedShape(args, &attrs, TensorArg(args, 0));
  return args[0];
}

/*! \brief gamma (args[1]) and beta (args[2]): one value per channel, data's dtype. */
void CheckScaleShift(const Array<Type>& args, const TensorTypeNode* data, const Any& channels) {
  const char* names[] = {"gamma", "beta"};
  for (size_t i = 1; i <= 2; ++i) {
    const TensorTypeNode* p = TensorArg(args, i);
    CheckChannelParam(p, channels, names[i - 1], data->shape);
    MatchDtype(data, p);
  }
}

/*! \brief (data (N, C, ...), gamma (C,), beta (C,)) -> out. */
Type InstanceNormRel(const Array<Type>& args, const InstanceNormAttrs& attrs) {
  CheckEpsilon(attrs.epsilon);
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  Any channels = ChannelDim(data, 1, 2);
  CheckScaleShift(args, data, channels);
  return args[0];
}

/*! \brief (data (N, C, ...), gamma (C,), beta (C,)) -> out; C divisible by num_groups. */
Type GroupNormRel(const Array<Type>& args, const GroupNormAttrs& a) {
  CheckEpsilon(a.epsilon);
  CheckStashType(a.stash_type);
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  Any channels = ChannelDim(data, 1, 2);
  TVMLITE_CHECK_KIND(a.num_groups > 0, ValueError) << "num_groups must be positive, got " << a.num_groups;
  if (std::optional<int64_t> c = channels.as<int64_t>()) {
    TVMLITE_CHECK_KIND(*c % a.num_groups == 0, ValueError)
        << "the " << *c << " channels of data " << ShapeToString(data->shape) << " do not split into " << a.num_groups
        << " groups";
  }
  CheckScaleShift(args, data, channels);
  return args[0];
}

Type LRNRel(const Array<Type>& args, const LRNAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  TVMLITE_CHECK_KIND(a.size > 0, ValueError) << "size must be positive, got " << a.size;
  ChannelDim(data, a.axis, 1);
  return args[0];
}

Type LpNormalizeRel(const Array<Type>& args, const LpNormalizeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  TVMLITE_CHECK_KIND(a.p == 1 || a.p == 2, ValueError) << "p must be 1 or 2, got " << a.p;
  NormalizeAxis(a.axis, static_cast<int64_t>(data->shape.size()));
  return args[0];
}

Type MVNRel(const Array<Type>& args, const MVNAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  CheckEpsilon(a.epsilon);
  int64_t ndim = static_cast<int64_t>(data->shape.size());
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t axis : a.axes) {
    int64_t ax = NormalizeAxis(axis, ndim);
    TVMLITE_CHECK_KIND(!seen[ax], ValueError) << "axis " << axis << " is repeated in axes";
    seen[ax] = true;
  }
  return args[0];
}

Type SoftmaxRel(const Array<Type>& args, const SoftmaxAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  NormalizeAxis(a.axis, static_cast<int64_t>(data->shape.size()));
  return args[0];
}

TVMLITE_REGISTER_OP("nn.batch_norm")
    .describe(
        "Batch normalization over the channel axis; returns (out, mean_out, var_out): the moving "
        "statistics unchanged in inference, the momentum-updated running statistics in training.")
    .add_argument("data", "Tensor", "The input (N, C, ...).")
    .add_argument("gamma", "Tensor", "Scale (C,).")
    .add_argument("beta", "Tensor", "Offset (C,).")
    .add_argument("moving_mean", "Tensor", "Running mean (C,).")
    .add_argument("moving_var", "Tensor", "Running variance (C,).")
    .add_type_rel("BatchNorm", BatchNormRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.layer_norm")
    .describe("Layer normalization over the axes [axis, ndim); returns (out, mean, inv_std_dev).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("gamma", "Tensor", "Scale, broadcast to data.shape[axis:].")
    .add_argument("beta", "Tensor or ()", "Offset, broadcast to data.shape[axis:]; () for none.")
    .add_type_rel("LayerNorm", LayerNormRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.rms_norm")
    .describe("RMS normalization over the axes [axis, ndim): data / sqrt(mean(data^2) + epsilon) * gamma.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("gamma", "Tensor", "Scale, broadcast to data.shape[axis:].")
    .add_type_rel("RMSNorm", RMSNormRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.instance_norm")
    .describe("Instance normalization: each (n, c) slice normalised over its spatial axes.")
    .add_argument("data", "Tensor", "The input (N, C, ...).")
    .add_argument("gamma", "Tensor", "Scale (C,).")
    .add_argument("beta", "Tensor", "Offset (C,).")
    .add_type_rel("InstanceNorm", InstanceNormRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.group_norm")
    .describe("Group normalization: channels split into num_groups, each group normalised with its spatial axes.")
    .add_argument("data", "Tensor", "The input (N, C, ...).")
    .add_argument("gamma", "Tensor", "Scale (C,).")
    .add_argument("beta", "Tensor", "Offset (C,).")
    .add_type_rel("GroupNorm", GroupNormRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.lrn")
    .describe("Local response normalization: x / (bias + alpha / size * sum of squares over size channels)^beta.")
    .add_argument("data", "Tensor", "The input (N, C, ...).")
    .add_type_rel("LRN", LRNRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.lp_normalize")
    .describe("data / ||data||_p along axis (p = 1 or 2; a zero norm gives 0).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("LpNormalize", LpNormalizeRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("nn.mean_variance_normalization")
    .describe("(data - mean) / (sqrt(variance) + epsilon) with the statistics taken over axes.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("MVN", MVNRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

#define TVMLITE_REGISTER_SOFTMAX_OP(OpName, Text)   \
  TVMLITE_REGISTER_OP(OpName)                       \
      .describe(Text)                               \
      .add_argument("data", "Tensor", "The input.") \
      .add_type_rel("Softmax", SoftmaxRel)          \
      .set_attr<TOpPattern>("TOpPattern", kOpaque)

TVMLITE_REGISTER_SOFTMAX_OP("nn.softmax", "exp(x - max) / sum(exp(x - max)) along axis (or axes [axis, ndim)).");
TVMLITE_REGISTER_SOFTMAX_OP("nn.log_softmax", "x - max - log(sum(exp(x - max))) along axis (or axes [axis, ndim)).");
TVMLITE_REGISTER_SOFTMAX_OP("nn.hardmax", "1 at the first maximum along axis (or axes [axis, ndim)), 0 elsewhere.");

}  // namespace relay
}  // namespace tvmlite
