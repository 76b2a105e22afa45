/*!
 * \file optimizer.cc
 * \brief One step of an optimizer over n tensors (ONNX Adagrad, Adam, Momentum):
 *
 *   training.adagrad([R, T, X1..Xn, G1..Gn, H1..Hn])        -> (X1'..Xn', H1'..Hn')
 *   training.adam([R, T, X1..Xn, G1..Gn, V1..Vn, H1..Hn])   -> (X1'..Xn', V1'..Vn', H1'..Hn')
 *   training.momentum([R, T, X1..Xn, G1..Gn, V1..Vn])       -> (X1'..Xn', V1'..Vn')
 *
 * R (learning rate) and T (update count, int64) are scalars; each group of the i-th tensors shares one type.
 */
#include <tvmlite/relay/attrs/training.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/structural.h>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(OptimizerAttrs, norm_coefficient, norm_coefficient_post, alpha, beta, epsilon, decay_factor,
                         mode);
});

namespace {

/*! \brief The relation of an optimizer keeping kStates state tensors per optimized tensor. */
template <int kStates>
Type OptimizerRel(const Array<Type>& args, const OptimizerAttrs& a) {
  TVMLITE_CHECK_KIND(a.mode == "standard" || a.mode == "nesterov", ValueError)
      << "mode must be standard or nesterov, got '" << a.mode << "'";
  constexpr size_t kGroup = 2 + kStates;  // X, G and the states
  TVMLITE_CHECK_KIND(args.size() > 2 && (args.size() - 2) % kGroup == 0, TypeError)
      << "expected R, T and " << kGroup << " tensors per optimized tensor, got " << args.size() << " inputs";
  const TensorTypeNode* r = TensorArg(args, 0);
  const TensorTypeNode* t = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(r->ndim() == 0 && r->dtype.is_float(), TypeError)
      << "R must be a float scalar, got " << TypeToString(args[0]);
  TVMLITE_CHECK_KIND(t->ndim() == 0 && t->dtype == DataType::Int(64), TypeError)
      << "T must be an int64 scalar, got " << TypeToString(args[1]);
  size_t n = (args.size() - 2) / kGroup;
  std::vector<Type> outs(n * (1 + kStates));
  for (size_t i = 0; i < n; ++i) {
    const TensorTypeNode* x = TensorArg(args, 2 + i);
    TVMLITE_CHECK_KIND(x->dtype.is_float(), TypeError) << "X" << i + 1 << " must be floating point";
    for (size_t g = 1; g < kGroup; ++g) {
      Type other = args[2 + g * n + i];
      TVMLITE_CHECK_KIND(runtime::StructuralEqual(Any(other), Any(args[2 + i])), TypeError)
          << "input " << 2 + g * n + i << " has type " << TypeToString(other) << ", X" << i + 1 << " is "
          << TypeToString(args[2 + i]);
    }
    for (int s = 0; s <= kStates; ++s) outs[s * n + i] = args[2 + i];
  }
  return TupleType(Array<Type>(outs));
}

}  // namespace

#define TVMLITE_REGISTER_OPTIMIZER(OpName, States, Doc)                        \
  TVMLITE_REGISTER_OP(OpName)                                                  \
      .describe(Doc)                                                           \
      .set_num_inputs(-1)                                                      \
      .add_argument("inputs", "Tensor...", "R, T, then X..., G... and states") \
      .add_type_rel("Optimizer", OptimizerRel<States>)                         \
      .set_attr<TOpPattern>("TOpPattern", kOpaque)

TVMLITE_REGISTER_OPTIMIZER("training.adagrad", 1, "One Adagrad step (ONNX Adagrad).");
TVMLITE_REGISTER_OPTIMIZER("training.adam", 2, "One Adam step (ONNX Adam).");
TVMLITE_REGISTER_OPTIMIZER("training.momentum", 1, "One SGD-with-momentum step (ONNX Momentum).");

}  // namespace relay
}  // namespace tvmlite
