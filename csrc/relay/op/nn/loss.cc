/*!
 * \file loss.cc
 * \brief nn.nll_loss: negative log-likelihood loss (ONNX NegativeLogLikelihoodLoss; SoftmaxCrossEntropyLoss is
 *        log_softmax followed by it).
 *
 * predictions (N, C, d1, ..., dk) float, targets (N, d1, ..., dk) int, weights (C,) or () ->
 *   reduction "none": (N, d1, ..., dk); "sum" / "mean": a scalar (mean divides by the sum of the weights of the
 *   targets that are not ignore_index).
 */
#include <tvmlite/relay/attrs/norm.h>
#include <tvmlite/runtime/reflection.h>

#include "op_common.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(NLLLossAttrs, reduction, ignore_index); });

Type NLLLossRel(const Array<Type>& args, const NLLLossAttrs& a) {
  TVMLITE_CHECK_KIND(a.reduction == "none" || a.reduction == "sum" || a.reduction == "mean", ValueError)
      << "reduction must be 'none', 'sum' or 'mean', got '" << a.reduction << "'";
  const TensorTypeNode* pred = TensorArg(args, 0);
  const TensorTypeNode* target = TensorArg(args, 1);
  CheckFloating(pred->dtype, "predictions");
  TVMLITE_CHECK_KIND(target->dtype.is_int() || target->dtype.is_uint(), TypeError)
      << "targets must have an integer dtype, got " << target->dtype.str();
  TVMLITE_CHECK_KIND(pred->shape.size() >= 2 && target->shape.size() + 1 == pred->shape.size(), ValueError)
      << "predictions (N, C, d1, ...) " << ShapeToString(pred->shape) << " and targets (N, d1, ...) "
      << ShapeToString(target->shape) << " do not match in rank";
  for (size_t i = 0; i < target->shape.size(); ++i) {
    const Any& p = pred->shape[i == 0 ? 0 : i + 1];
    const Any& t = target->shape[i];
    TVMLITE_CHECK_KIND(p.type_index() != kTVMLiteInt || t.type_index() != kTVMLiteInt || DimEqual(p, t), ValueError)
        << "targets " << ShapeToString(target->shape) << " do not match predictions " << ShapeToString(pred->shape)
        << " (without the class axis 1)";
  }
  if (const TensorTypeNode* w = OptionalTensorArg(args, 2)) {
    MatchDtype(pred, w);
    CheckChannelParam(w, pred->shape[1], "weights", pred->shape);
  }
  if (a.reduction == "none") return TensorType(target->shape, pred->dtype);
  return TensorType(Array<Any>(), pred->dtype);
}

TVMLITE_REGISTER_OP("nn.nll_loss")
    .describe("Negative log-likelihood loss: -weights[t] * predictions[n, t, ...] per target t, reduced.")
    .add_argument("predictions", "Tensor", "Log-probabilities (N, C, d1, ...).")
    .add_argument("targets", "Tensor", "Class indices (N, d1, ...).")
    .add_argument("weights", "Tensor or ()", "Per-class weights (C,).")
    .add_type_rel("NLLLoss", NLLLossRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
