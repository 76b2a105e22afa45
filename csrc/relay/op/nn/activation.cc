/*!
 * \file activation.cc
 * \brief Activations (with and without scalar attributes), prelu, clip and dropout.
 *
 * Every activation keeps its input's type and requires a floating dtype. Scalar parameters live in one
 * ActivationAttrs (alpha, beta), read per op:
 *   leaky_relu        alpha: slope for x < 0                 elu / celu  alpha
 *   selu              alpha, beta = gamma                    hard_sigmoid  max(0, min(1, alpha * x + beta))
 *   thresholded_relu  alpha: threshold                       shrink      alpha = lambd, beta = bias
 *   swish             alpha: x * sigmoid(alpha * x)
 * prelu(data, slope) broadcasts slope to data one way (ONNX's unidirectional broadcasting). clip(data, min, max)
 * takes its bounds as scalar tensors (or () for no bound) so they may be computed; it accepts integer data.
 * dropout(data, ratio, training_mode) returns (out, mask): identity and an all-true mask unless training_mode.
 */
#include <tvmlite/relay/attrs/norm.h>
#include <tvmlite/runtime/reflection.h>

#include "op_common.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(ActivationAttrs, alpha, beta);
  TVMLITE_REFLECT_FIELDS(GeluAttrs, approximate);
  TVMLITE_REFLECT_FIELDS(DropoutAttrs, seed, mask_dtype);
});

Type FloatUnaryRel(const Array<Type>& args, const Attrs&) {
  CheckFloating(TensorArg(args, 0)->dtype, "data");
  return args[0];
}

Type GeluRel(const Array<Type>& args, const Attrs& attrs) {
  const std::string& approx = AttrsAs<GeluAttrs>(attrs)->approximate;
  TVMLITE_CHECK_KIND(approx == "none" || approx == "tanh", ValueError)
      << "approximate must be 'none' or 'tanh', got '" << approx << "'";
  return FloatUnaryRel(args, attrs);
}

Type PReluRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* slope = TensorArg(args, 1);
  CheckFloating(data->dtype, "data");
  MatchDtype(data, slope);
  CheckUnidirectional(slope->shape, data->shape, "slope", "data");
  return args[0];
}

/*! \brief A scalar bound: () (none) or a one-element tensor of data's dtype. */
void CheckBound(const Array<Type>& args, size_t i, const TensorTypeNode* data, const char* what) {
  const TensorTypeNode* b = OptionalTensorArg(args, i);
  if (b == nullptr) return;
  TVMLITE_CHECK_KIND(b->dtype == data->dtype, TypeError)
      << what << " dtype " << b->dtype.str() << " differs from data dtype " << data->dtype.str();
  bool scalar =
      b->shape.empty() || (b->shape.size() == 1 && (DimIs(b->shape[0], 1) || b->shape[0].type_index() != kTVMLiteInt));
  TVMLITE_CHECK_KIND(scalar, ValueError) << what << " must be a scalar, got shape " << ShapeToString(b->shape);
}

Type ClipRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(!data->dtype.is_bool(), TypeError) << "data must be numeric, got bool";
  CheckBound(args, 1, data, "min");
  CheckBound(args, 2, data, "max");
  return args[0];
}

Type DropoutRel(const Array<Type>& args, const DropoutAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckFloating(data->dtype, "data");
  const TensorTypeNode* ratio = TensorArg(args, 1);
  CheckFloating(ratio->dtype, "ratio");
  TVMLITE_CHECK_KIND(ratio->shape.empty(), ValueError)
      << "ratio must be a scalar, got shape " << ShapeToString(ratio->shape);
  const TensorTypeNode* training = TensorArg(args, 2);
  TVMLITE_CHECK_KIND(training->dtype.is_bool() && training->shape.empty(), TypeError)
      << "training_mode must be a bool scalar, got " << TypeToString(args[2]);
  DataType mask_dtype = data->dtype;
  if (a.mask_dtype != data->dtype.str()) {
    TVMLITE_CHECK_KIND(a.mask_dtype == "bool", ValueError)
        << "mask_dtype must be bool or data's dtype " << data->dtype.str() << ", got '" << a.mask_dtype << "'";
    mask_dtype = DataType::Bool();
  }
  return TupleType({args[0], TensorType(data->shape, mask_dtype)});
}

#define TVMLITE_REGISTER_ACTIVATION(OpName, Text, AttrsT, Rel) \
  TVMLITE_REGISTER_OP(OpName)                                  \
      .describe(Text)                                          \
      .add_argument("data", "Tensor", "The input.")            \
      .set_attrs_type<AttrsT>()                                \
      .add_type_rel("Activation", Rel)                         \
      .set_attr<TOpPattern>("TOpPattern", kElemWise)

TVMLITE_REGISTER_ACTIVATION("nn.leaky_relu", "x if x >= 0 else alpha * x.", ActivationAttrs, FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.elu", "x if x > 0 else alpha * (exp(x) - 1).", ActivationAttrs, FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.celu", "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).", ActivationAttrs,
                            FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.selu", "beta * (x if x > 0 else alpha * (exp(x) - 1)) (beta is SELU's gamma).",
                            ActivationAttrs, FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.hard_sigmoid", "max(0, min(1, alpha * x + beta)).", ActivationAttrs, FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.thresholded_relu", "x if x > alpha else 0.", ActivationAttrs, FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.shrink", "x - beta if x > alpha, x + beta if x < -alpha, else 0 (alpha = lambd).",
                            ActivationAttrs, FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.swish", "x * sigmoid(alpha * x).", ActivationAttrs, FloatUnaryRel)
    .set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_ACTIVATION("nn.gelu", "x * Phi(x) (approximate 'none': erf; 'tanh': the tanh formula).", GeluAttrs,
                            GeluRel)
    .set_attr("TKeepsFinite", true);

#define TVMLITE_REGISTER_PLAIN_ACTIVATION(OpName, Text) \
  TVMLITE_REGISTER_OP(OpName)                           \
      .describe(Text)                                   \
      .add_argument("data", "Tensor", "The input.")     \
      .add_type_rel("Activation", FloatUnaryRel)        \
      .set_attr<TOpPattern>("TOpPattern", kElemWise)

TVMLITE_REGISTER_PLAIN_ACTIVATION("nn.hard_swish", "x * max(0, min(1, x / 6 + 1 / 2)).").set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_PLAIN_ACTIVATION("nn.softplus", "log(1 + exp(x)).").set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_PLAIN_ACTIVATION("nn.softsign", "x / (1 + |x|).").set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_PLAIN_ACTIVATION("nn.mish", "x * tanh(softplus(x)).").set_attr("TKeepsFinite", true);

TVMLITE_REGISTER_OP("nn.prelu")
    .describe("x if x >= 0 else slope * x, slope broadcast to data (unidirectionally).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("slope", "Tensor", "The slope, broadcastable to data.")
    .add_type_rel("PRelu", PReluRel)
    .set_attr<TOpPattern>("TOpPattern", kBroadcast)
    .set_attr("TKeepsFinite", true);

TVMLITE_REGISTER_OP("clip")
    .describe("min(max(data, min), max); a () bound is no bound.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("min", "Tensor or ()", "The lower bound, a scalar.")
    .add_argument("max", "Tensor or ()", "The upper bound, a scalar.")
    .add_type_rel("Clip", ClipRel)
    .set_attr<TOpPattern>("TOpPattern", kElemWise)
    .set_attr("TKeepsFinite", true);

TVMLITE_REGISTER_OP("nn.dropout")
    .describe(
        "Dropout: (out, mask). Without training_mode out = data and mask is all true; with it, each "
        "element is kept with probability 1 - ratio and scaled by 1 / (1 - ratio).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("ratio", "Tensor", "The drop probability, a float scalar.")
    .add_argument("training_mode", "Tensor", "A bool scalar.")
    .add_type_rel("Dropout", DropoutRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
