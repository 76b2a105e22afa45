/*!
 * \file elemwise.cc
 * \brief Elementwise ops without attributes: numpy-broadcasting binary ops and unary math.
 *
 * Binary ops broadcast their inputs (numpy rules) and require one dtype; comparisons and logical ops return
 * bool. power alone mixes dtypes: the result has the base's dtype (ONNX Pow from opset 12). Unary ops keep their
 * input's type; predicates (isnan, isinf, isfinite, logical_not) return bool.
 */
#include <tvmlite/relay/type_rel.h>

#include <cstring>

namespace tvmlite {
namespace relay {

Type BroadcastRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* a = TensorArg(args, 0);
  const TensorTypeNode* b = TensorArg(args, 1);
  return TensorType(BroadcastShapes(a->shape, b->shape), MatchDtype(a, b));
}

Type PowerRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* a = TensorArg(args, 0);
  const TensorTypeNode* b = TensorArg(args, 1);
  auto numeric = [](DataType t) { return t.is_int() || t.is_uint() || t.is_floating_point(); };
  TVMLITE_CHECK_KIND(numeric(a->dtype) && numeric(b->dtype) && a->dtype.lanes() == b->dtype.lanes(), TypeError)
      << "power needs numeric operands, got " << a->dtype.str() << " and " << b->dtype.str();
  return TensorType(BroadcastShapes(a->shape, b->shape), a->dtype);
}

Type BroadcastCompareRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* a = TensorArg(args, 0);
  const TensorTypeNode* b = TensorArg(args, 1);
  MatchDtype(a, b);
  return TensorType(BroadcastShapes(a->shape, b->shape), DataType::Bool());
}

Type IdentityRel(const Array<Type>& args, const Attrs&) {
  TensorArg(args, 0);
  return args[0];
}

Type PredicateRel(const Array<Type>& args, const Attrs&) {
  return TensorType(TensorArg(args, 0)->shape, DataType::Bool());
}

#define TVMLITE_REGISTER_BINARY_OP(OpName, Rel)                    \
  TVMLITE_REGISTER_OP(OpName)                                      \
      .describe("Elementwise " OpName " with numpy broadcasting.") \
      .add_argument("lhs", "Tensor", "The left operand.")          \
      .add_argument("rhs", "Tensor", "The right operand.")         \
      .add_type_rel("Broadcast", Rel)                              \
      .set_attr<TOpPattern>("TOpPattern", kBroadcast)

namespace {
/*!
 * \brief divide's "FTVMLiteKeepsFinite" (op_facts.h): dividing by a nonzero float32 scalar constant keeps a small
 * finite filler finite (AlterOpLayout's padded channels), dividing by anything else may not.
 */
bool DividesByNonzeroScalar(const Call& call) {
  if (call->args.size() != 2) return false;
  const auto* c = call->args[1].as<ConstantNode>();
  if (c == nullptr || DataType(c->data->tensor.dtype) != DataType::Float(32)) return false;
  if (!c->data.IsContiguous() || c->data.NBytes() != sizeof(float)) return false;
  float v;
  std::memcpy(&v, static_cast<const char*>(c->data->tensor.data) + c->data->tensor.byte_offset, sizeof(float));
  return v != 0.0f;
}
}  // namespace

// "TKeepsFinite" (tvmlite/relay/op_facts.h): small finite operands give a finite result; not divide (a zero
// divisor), power, mod.
TVMLITE_REGISTER_BINARY_OP("add", BroadcastRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_BINARY_OP("subtract", BroadcastRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_BINARY_OP("multiply", BroadcastRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_BINARY_OP("divide", BroadcastRel)
    .set_attr("FTVMLiteKeepsFinite",
              runtime::Function::FromTyped(DividesByNonzeroScalar, "FTVMLiteKeepsFinite of divide"));
TVMLITE_REGISTER_BINARY_OP("floor_divide", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("power", PowerRel);  // the base's dtype; the exponent may be any numeric type
TVMLITE_REGISTER_BINARY_OP("maximum", BroadcastRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_BINARY_OP("minimum", BroadcastRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_BINARY_OP("mod", BroadcastRel);        // C fmod: the sign of the dividend
TVMLITE_REGISTER_BINARY_OP("floor_mod", BroadcastRel);  // Python %: the sign of the divisor
TVMLITE_REGISTER_BINARY_OP("bitwise_and", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("bitwise_or", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("bitwise_xor", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("left_shift", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("right_shift", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("logical_and", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("logical_or", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("logical_xor", BroadcastRel);
TVMLITE_REGISTER_BINARY_OP("equal", BroadcastCompareRel);
TVMLITE_REGISTER_BINARY_OP("not_equal", BroadcastCompareRel);
TVMLITE_REGISTER_BINARY_OP("less", BroadcastCompareRel);
TVMLITE_REGISTER_BINARY_OP("less_equal", BroadcastCompareRel);
TVMLITE_REGISTER_BINARY_OP("greater", BroadcastCompareRel);
TVMLITE_REGISTER_BINARY_OP("greater_equal", BroadcastCompareRel);

#define TVMLITE_REGISTER_UNARY_OP(OpName, Rel)      \
  TVMLITE_REGISTER_OP(OpName)                       \
      .describe("Elementwise " OpName ".")          \
      .add_argument("data", "Tensor", "The input.") \
      .add_type_rel("Identity", Rel)                \
      .set_attr<TOpPattern>("TOpPattern", kElemWise)

// "TKeepsFinite": bounded, or exp's growth over small inputs; not log, sqrt, reciprocal, tan (poles).
TVMLITE_REGISTER_UNARY_OP("negative", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("abs", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("sign", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("exp", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("log", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("sqrt", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("rsqrt", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("reciprocal", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("sigmoid", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("tanh", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("erf", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("sin", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("cos", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("tan", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("asin", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("acos", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("atan", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("sinh", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("cosh", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("asinh", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("acosh", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("atanh", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("floor", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("ceil", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("round", IdentityRel).set_attr("TKeepsFinite", true);  // half to even, as numpy and ONNX
TVMLITE_REGISTER_UNARY_OP("bitwise_not", IdentityRel);
TVMLITE_REGISTER_UNARY_OP("copy", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("nn.relu", IdentityRel).set_attr("TKeepsFinite", true);
TVMLITE_REGISTER_UNARY_OP("logical_not", PredicateRel);
TVMLITE_REGISTER_UNARY_OP("isnan", PredicateRel);
TVMLITE_REGISTER_UNARY_OP("isinf", PredicateRel);  // +inf or -inf
TVMLITE_REGISTER_UNARY_OP("isfinite", PredicateRel);

}  // namespace relay
}  // namespace tvmlite
