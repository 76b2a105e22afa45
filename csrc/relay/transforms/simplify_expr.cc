/*!
 * \file simplify_expr.cc
 * \brief SimplifyExpr: arithmetic that spells out an op the kernels have is rewritten into that op, and transposes
 * a product can read through fold into its flags.
 *
 * cast_like(x, like) becomes cast(x) to like's dtype (the op with a kernel). GELU written with Erf, as exporters
 * emit it (BERT's `x * 0.5 * (1 + erf(x / sqrt(2)))`, ONNX before opset 20 has no Gelu), becomes nn.gelu(x)
 * (approximate "none"). Fused after a dense, the six elementwise ops ran as six passes of the epilogue interpreter,
 * the division and the erf's two branches on every value; nn.gelu is one pass.
 *
 * Matched, float32 only, on the typed graph: a product of the three factors x, 0.5 and (1 + erf(x / sqrt 2)) in any
 * nesting and operand order (two multiplies), where the erf's argument is x / c with c = sqrt 2 or x * c with
 * c = 1 / sqrt 2, the constants being one-element tensors (within 1e-6, relative), the product's shape x's (dims
 * equal ints or the same SizeVar: a symbolic batch or sequence matches itself) and the x inside the erf the same
 * node as the factor. Anything else is left as it is; intermediate values other nodes also use keep being computed
 * for them.
 *
 * Transposes into a product: nn.matmul / nn.batch_matmul(transpose(b, axes swapping only the last two dims), ...)
 * reads b as it is, flipping the operand's transpose flag (likewise a). Attention exports compute q @ K^T as
 * Transpose(perm = [0, 1, 3, 2]) -> MatMul; the transpose materialised K^T per layer and step (a tenth of a Whisper
 * decode step), while the kernel reads K's rows directly (a decode step's q @ K^T is then dot products over them;
 * longer q pack K's rows into panels per head, which costs what the transpose did, in cache). The axes decide, never
 * the dims: symbolic ones fold too. A transpose whose last step is that swap folds it, the rest staying a transpose
 * when it keeps rows whole (BERT's K^T is (B, S, H, D) by [0, 2, 3, 1]: [0, 2, 1, 3] stays, a strided copy of
 * 64-float rows instead of an element-by-element transpose). Only a transpose whose one consumer is the product
 * folds: with another, it is computed anyway and the product reading its result (row-major, in place) is at least
 * as cheap. Nor does a's into transpose_a when b is a constant: the layout pass makes that product a packed dense,
 * which has no transpose_a. Exports scale K^T by a constant between the two (optimum's Whisper: by 1, the square
 * root of a scale q already took; BERT: by 1 / sqrt(sqrt(64)), computed from shapes): the product reads through a
 * single-use multiply by a float32 tensor of one element too, a constant 1 dropped, another scale moved onto the
 * product (a . (k c) = (a . k) c, equal up to rounding), where it fuses into the kernel as a leading scale.
 */
#include <tvmlite/relay/attrs/cast.h>
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/norm.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>

#include <cmath>
#include <unordered_map>
#include <utility>
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

/*!
 * \brief For a transpose e = transpose(x, p) (rank >= 2), the axes q with p = q then a swap of the last two dims,
 * when the swap can go to a product's flag: q is the identity (empty: e swaps only the last two dims) or keeps x's
 * innermost dim innermost, a copy of whole rows (BERT's K^T, (B, S, H, D) by [0, 2, 3, 1], leaves [0, 2, 1, 3]);
 * otherwise nullopt (a q that still transposes elements would cost what p did).
 */
std::optional<std::vector<int64_t>> AxesBeforeSwap(const Expr& e) {
  const CallNode* call = AsOpCall(e, "transpose");
  const auto* attrs = call != nullptr && call->args.size() == 1 ? call->attrs.as<TransposeAttrs>() : nullptr;
  const TensorTypeNode* in = attrs != nullptr ? TensorTypeOf(call->args[0]) : nullptr;
  if (in == nullptr || in->ndim() < 2) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(in->ndim());
  std::vector<int64_t> q(rank);
  for (int64_t d = 0; d < rank; ++d) {  // no axes: reversed
    q[d] = attrs->axes.empty() ? rank - 1 - d : attrs->axes.size() == size_t(rank) ? attrs->axes[d] : -rank - 1;
    if (q[d] < 0) q[d] += rank;
    if (q[d] < 0 || q[d] >= rank) return std::nullopt;
  }
  std::swap(q[rank - 2], q[rank - 1]);
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) identity = identity && q[d] == d;
  if (identity) return std::vector<int64_t>();
  if (q[rank - 1] != rank - 1) return std::nullopt;
  return q;
}

/*!
 * \brief Whether e is a float32 tensor of one element by its type: a constant, or a scale computed from shapes that
 * DynamicToStatic folds only later (BERT's sqrt(sqrt(head_dim)) from the graph's Shape ops).
 */
bool OneElement(const Expr& e) {
  const TensorTypeNode* t = TensorTypeOf(e);
  if (t == nullptr || t->dtype != DataType::Float(32)) return false;
  for (const Any& d : t->shape) {
    if (!DimIs(d, 1)) return false;
  }
  return true;
}

class ExprSimplifier : public ExprMutator {
 public:
  explicit ExprSimplifier(std::unordered_map<const Object*, int> uses) : uses_(std::move(uses)) {}

 protected:
  bool SingleUse(const Object* node) const {
    auto it = uses_.find(node);
    return it != uses_.end() && it->second == 1;
  }

  /*!
   * \brief The operand to read instead of e with its transpose flag flipped, or undefined, and the scale to multiply
   * the product by after (undefined: none): e is a single-use transpose whose last step swaps the last two dims
   * (AxesBeforeSwap; its input, or its input transposed by the rest), or a single-use product of one and a float32
   * tensor of one element (finite when a constant) that keeps its shape (exports scale K^T by the square root of
   * attention's scale).
   */
  Expr ReadThrough(const Expr& e, const TensorTypeNode* out_t, Expr* scale) const {
    Expr t = e, c;
    if (AsOpCall(e, "multiply")) {
      Expr x;
      if (!Operands(e, "multiply", &x, &c) || !SingleUse(e.get())) return Expr();
      if (!OneElement(c)) std::swap(x, c);
      std::optional<float> v = ScalarConstant(c);
      const TensorTypeNode *mt = TensorTypeOf(e), *xt = TensorTypeOf(x), *ct = TensorTypeOf(c);
      if (!OneElement(c) || (v && !std::isfinite(*v)) || mt == nullptr || xt == nullptr ||
          !SameShape(mt->shape, xt->shape) || ct->ndim() > out_t->ndim() || out_t->dtype != DataType::Float(32)) {
        return Expr();
      }
      t = x;
      if (v && *v == 1.0f) c = Expr();  // (a . (k c)) = (a . k) c: the scale moves to the product, where it fuses
    }
    std::optional<std::vector<int64_t>> rest = AxesBeforeSwap(t);
    if (!rest || !SingleUse(t.get())) return Expr();
    *scale = c;
    const Expr& x = memo_.at(t.as<CallNode>()->args[0].get());
    if (rest->empty()) return x;
    auto attrs = make_object<TransposeAttrs>();
    attrs->axes = Array<int64_t>(*rest);
    return MakeCall("transpose", {x}, Attrs(attrs));
  }

  /*!
   * \brief product(a, b) with each operand that reads through a swap of the last two dims (ReadThrough) read
   * without it and its transpose flag flipped (A: MatmulAttrs or BatchMatmulAttrs), or an undefined Expr when none is.
   */
  template <typename A>
  Expr FoldTransposes(const Expr& original, const CallNode* call) {
    const auto* a = call->attrs.as<A>();
    const TensorTypeNode* out_t = TensorTypeOf(original);
    if (a == nullptr || out_t == nullptr || call->args.size() != 2) return Expr();
    bool flip[2] = {false, false};
    Expr scales[2];
    Array<Expr> args;
    for (int i = 0; i < 2; ++i) {
      // A constant b makes the product a packed dense (AlterOpLayout), which takes no transpose_a: a stays.
      if (i == 0 && call->args[1].as<ConstantNode>() != nullptr) {
        args.push_back(memo_.at(call->args[0].get()));
        continue;
      }
      Expr read = ReadThrough(call->args[i], out_t, &scales[i]);
      flip[i] = read.defined();
      args.push_back(flip[i] ? read : memo_.at(call->args[i].get()));
    }
    if (!flip[0] && !flip[1]) return Expr();
    Attrs attrs = WithAttrFields(
        call->attrs, {{"transpose_a", Any(a->transpose_a != flip[0])}, {"transpose_b", Any(a->transpose_b != flip[1])}},
        "SimplifyExpr");
    Expr out = Call(call->op, args, attrs);
    for (const Expr& c : scales) {
      if (c.defined()) out = MakeCall("multiply", {out, memo_.at(c.get())});
    }
    return out;
  }

  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    if (const CallNode* call = AsOpCall(original, "nn.matmul")) {
      if (Expr folded = FoldTransposes<MatmulAttrs>(original, call); folded.defined()) return folded;
    }
    if (const CallNode* call = AsOpCall(original, "nn.batch_matmul")) {
      if (Expr folded = FoldTransposes<BatchMatmulAttrs>(original, call); folded.defined()) return folded;
    }
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

 private:
  std::unordered_map<const Object*, int> uses_;
};

}  // namespace

IRModule SimplifyExpr(const IRModule& mod) { return RewriteWithUses<ExprSimplifier>(mod); }

TVMLITE_REGISTER_GLOBAL("relay._transform.SimplifyExpr").set_body_typed([](IRModule mod) { return SimplifyExpr(mod); });

}  // namespace relay
}  // namespace tvmlite
