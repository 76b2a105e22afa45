/*!
 * \file simplify_expr.cc
 * \brief SimplifyExpr: arithmetic that spells out an op the kernels have is rewritten into that op.
 *
 * cast_like(x, like) becomes cast(x) to like's dtype (the op with a kernel). The other rewrite: GELU written with Erf, as exporters emit it (BERT's `x * 0.5 * (1 + erf(x / sqrt(2)))`,
 * ONNX before opset 20 has no Gelu), becomes nn.gelu(x) (approximate "none"). Fused after a dense, the six
 * elementwise ops ran as six passes of the epilogue interpreter, the division and the erf's two branches on every
 * value; nn.gelu is one pass.
 *
 * Matched, float32 only, on the typed graph: a product of the three factors x, 0.5 and (1 + erf(x / sqrt 2)) in any
 * nesting and operand order (two multiplies), where the erf's argument is x / c with c = sqrt 2 or x * c with
 * c = 1 / sqrt 2, the constants being one-element tensors (within 1e-6, relative), the product's shape x's (dims
 * equal ints or the same SizeVar: a symbolic batch or sequence matches itself) and the x inside the erf the same
 * node as the factor. Anything else is left as it is; intermediate values other nodes also use keep being computed
 * for them.
 */
#include <tvmlite/relay/attrs/cast.h>
#include <tvmlite/relay/attrs/norm.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>

#include <cmath>
#include <vector>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

/*! \brief Whether e is a float32 constant of one element within 1e-6 (relative) of value. */
bool IsScalar(const Expr& e, double value) {
  std::optional<float> v = ScalarConstant(e);
  return v && std::fabs(*v - value) <= 1e-6 * std::fabs(value);
}

/*! \brief The operands of a call of op_name with two arguments, or false. */
bool Operands(const Expr& e, const char* op_name, Expr* a, Expr* b) {
  const CallNode* call = AsOpCall(e, op_name);
  if (call == nullptr || call->args.size() != 2) return false;
  *a = call->args[0];
  *b = call->args[1];
  return true;
}

/*! \brief Whether arg is x / sqrt 2 or x * (1 / sqrt 2) (either order), setting *x. */
bool IsHalfSqrt2Scaled(const Expr& arg, Expr* x) {
  Expr a, b;
  if (Operands(arg, "divide", &a, &b) && IsScalar(b, std::sqrt(2.0))) return *x = a, true;
  if (!Operands(arg, "multiply", &a, &b)) return false;
  if (IsScalar(b, std::sqrt(0.5))) return *x = a, true;
  if (IsScalar(a, std::sqrt(0.5))) return *x = b, true;
  return false;
}

/*! \brief Whether s is 1 + erf(x / sqrt 2) (either order), setting *x. */
bool IsOnePlusErf(const Expr& s, Expr* x) {
  Expr a, b;
  if (!Operands(s, "add", &a, &b)) return false;
  const Expr& erf = IsScalar(b, 1.0) ? a : IsScalar(a, 1.0) ? b : Expr();
  const CallNode* call = erf.defined() ? AsOpCall(erf, "erf") : nullptr;
  return call != nullptr && call->args.size() == 1 && IsHalfSqrt2Scaled(call->args[0], x);
}

/*!
 * \brief Whether two shapes are the same: dim by dim equal ints or the same SizeVar (DimEqual). Not StructuralEqual,
 * which takes any two fresh `?` dims for equal: the product must provably not broadcast x wider.
 */
bool SameShape(const Array<Any>& a, const Array<Any>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!DimEqual(a[i], b[i])) return false;
  }
  return true;
}

/*! \brief The x of a GELU product, or an undefined Expr. */
Expr GeluInput(const Expr& product) {
  Expr a, b;
  if (!Operands(product, "multiply", &a, &b)) return Expr();
  std::vector<Expr> factors;  // the product's three factors: one operand is itself a product of two
  Expr c, d;
  if (Operands(a, "multiply", &c, &d)) {
    factors = {c, d, b};
  } else if (Operands(b, "multiply", &c, &d)) {
    factors = {a, c, d};
  } else {
    return Expr();
  }
  for (int half = 0; half < 3; ++half) {
    if (!IsScalar(factors[half], 0.5)) continue;
    for (int s = 0; s < 3; ++s) {
      Expr inner;
      if (s == half || !IsOnePlusErf(factors[s], &inner)) continue;
      const Expr& x = factors[3 - half - s];
      if (inner.same_as(x)) return x;
    }
  }
  return Expr();
}

class ExprSimplifier : public ExprMutator {
 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    const TensorTypeNode* out_t = TensorTypeOf(original);
    if (out_t != nullptr && out_t->dtype == DataType::Float(32) && AsOpCall(original, "multiply")) {
      Expr x = GeluInput(original);
      const TensorTypeNode* x_t = x.defined() ? TensorTypeOf(x) : nullptr;
      if (x_t != nullptr && SameShape(x_t->shape, out_t->shape)) {
        auto attrs = make_object<GeluAttrs>();
        attrs->approximate = "none";
        return MakeCall("nn.gelu", {memo_.at(x.get())}, Attrs(attrs));
      }
    }
    if (const CallNode* call = AsOpCall(original, "cast_like")) {
      // cast_like(x, like) is cast(x) to like's dtype, which the typed graph knows: the op the kernels have.
      const auto* a = call->attrs.as<CastLikeAttrs>();
      const TensorTypeNode* like = TensorTypeOf(call->args[1]);
      if (a != nullptr && like != nullptr) {
        auto attrs = make_object<CastAttrs>();
        attrs->dtype = like->dtype;
        attrs->saturate = a->saturate;
        attrs->round_mode = a->round_mode;
        return MakeCall("cast", {memo_.at(call->args[0].get())}, Attrs(attrs));
      }
    }
    return ExprMutator::Rewrite(original, new_children);
  }
};

}  // namespace

IRModule SimplifyExpr(const IRModule& mod) {
  IRModule typed = InferType(mod);
  return MapFunctions(typed, [](const Function& f) {
    return runtime::Downcast<Function>(ExprSimplifier().Mutate(f));
  });
}

TVMLITE_REGISTER_GLOBAL("relay._transform.SimplifyExpr").set_body_typed([](IRModule mod) {
  return SimplifyExpr(mod);
});

}  // namespace relay
}  // namespace tvmlite
