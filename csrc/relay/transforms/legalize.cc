/*!
 * \file legalize.cc
 * \brief Legalize: ops the cpu target has no kernel of their own for, rewritten into ones it has (TVM's Legalize
 * pass, its conv1d -> conv2d case). 1-D convolutions run as 2-D ones over a height of 1:
 *
 *   nn.conv1d(x, w)            -> squeeze(nn.conv2d(expand_dims(x, 2), expand_dims(w, 2)), 2)
 *   nn.conv1d_transpose(x, w)  -> squeeze(nn.conv2d_transpose(expand_dims(x, 2), expand_dims(w, 2)), 2)
 *
 * with strides (1, s), padding (0, begin, 0, end), dilation (1, d), output_padding (0, p), kernel_size (1, k);
 * groups, channels and out_dtype kept. NCW (B, C, W) becomes NCHW (B, C, 1, W) and OIW / IOW weights OIHW / IOHW,
 * so a 1-D conv gets everything the 2-D one has: AlterOpLayout's blocked layout and weights packed at build,
 * the fast paths, depthwise, Winograd where it pays, fused epilogues. The reshapes move no data (the lowering makes
 * views of them: "__nop" nodes).
 *
 * So that the elementwise ops after the conv (bias, activation, residual: what FuseOps fuses into it) see its 4-D
 * result and not the squeezed one, the squeeze is then sunk below them, and cancelled against the next conv's
 * expand_dims:
 *
 *   f(squeeze(y, 2), b, ...)           -> squeeze(f(y, b', ...), 2)   f elementwise / broadcast (numpy rules: no
 *                                                                     "TAxisSemantics"), y 4-D
 *   nn.bias_add(squeeze(y, 2), b, 1)   -> squeeze(nn.bias_add(y, b, 1), 2)
 *   expand_dims(squeeze(y, 2), 2)      -> y
 *
 * and split, which has no kernel (it ran its numpy reference: ViTs' q / k / v, MixNet's and Res2Net's channel
 * groups), becomes one strided_slice per piece, each a copy by the strided_slice kernel that fuses with the
 * elementwise ops after it:
 *
 *   split(x, sections or indices, axis)  -> Tuple(strided_slice(x, [b_i], [e_i], [1], axes=[axis]), ...)
 *
 * and a depthwise conv with a channel multiplier (no kernel of its own: it ran the portable path) becomes a plain
 * depthwise conv over the input's channels repeated:
 *
 *   nn.conv2d(x, w, groups=C) with O = m * C  -> nn.conv2d(take(x, [0, .., 0, 1, .., 1, ...], axis=1), w, groups=O)
 *
 * and a tile that repeats only dims of size 1 becomes a broadcast (an elementwise copy):
 *
 *   tile(x, reps), x's dim 1 wherever reps > 1  -> broadcast_to(x, shape(x) * reps)
 *
 * and the norms (ReduceL2 / ReduceL1 / ReduceSumSquare; F.normalize's L2 norm) become the native sum of a native
 * elementwise map: l2_norm(x) -> sqrt(sum(x * x)), sum_square(x) -> sum(x * x), l1_norm(x) -> sum(abs(x)).
 *
 * where b' is b with a unit axis inserted before its last one (rank >= 2: (C, 1) -> (C, 1, 1), (N, C, W) ->
 * (N, C, 1, W)), so it broadcasts against the 4-D tensor exactly as b did against the 3-D one; scalars and 1-D
 * operands (which align with the last axis, W) are kept; another squeeze(z, 2) operand becomes z. A chain conv1d ->
 * bias -> relu -> conv1d thus has no reshape left between the convs, and the layout pass keeps it blocked.
 *
 * Why a pass of its own, before FoldScaleAxis and AlterOpLayout, rather than a rule inside the layout pass: the
 * rewrite is local and layout-free, so 1-D convs also run natively where the layout pass is off (opt_level < 3;
 * on the plain-NCHW paths), the scale folding sees conv2d(...) * scale with the squeeze already below it, and the
 * layout pass stays about 4-D and 5-D tensors only.
 *
 * Algorithm: one mutator walk, producers first (ExprMutator), on a typed module. A call whose op has an
 * "FTVMLiteLegalize" rule (legalize_rules.cc: the rewrites above, each registered with its op) is what the rule
 * returns; a call of an elementwise or broadcast op without axis semantics gets a squeeze below it sunk; everything
 * else is kept. Rules and sinking read the original nodes' types (the rewritten ones are untyped until the module
 * is typed again at the end). This file names no op.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/op_facts.h>
#include <tvmlite/runtime/registry.h>

#include "legalize.h"

namespace tvmlite {
namespace relay {
namespace legalize {

Expr ExpandDims(const Expr& e, int64_t axis) {
  auto attrs = make_object<ExpandDimsAttrs>();
  attrs->axis = axis;
  attrs->num_newaxis = 1;
  return MakeCall("expand_dims", {e}, Attrs(attrs));
}

Expr SqueezeH(const Expr& e) {
  auto attrs = make_object<SqueezeAttrs>();
  attrs->axis = Array<int64_t>{2};
  return MakeCall("squeeze", {e}, Attrs(attrs));
}

Expr UnsqueezedH(const Expr& e, const TensorTypeNode* original_type) {
  const CallNode* sq = AsOpCall(e, "squeeze");
  if (sq == nullptr || original_type == nullptr || original_type->ndim() != 3) return Expr();
  const auto* a = sq->attrs.as<SqueezeAttrs>();
  if (a == nullptr || !a->axis.has_value() || a->axis->size() != 1) return Expr();
  const int64_t axis = (*a->axis)[0];
  return axis == 2 || axis == -2 ? sq->args[0] : Expr();
}

Expr ExpandH(const Expr& e, const TensorTypeNode* original_type) {
  Expr y = UnsqueezedH(e, original_type);
  return y.defined() ? y : ExpandDims(e, 2);
}

Expr SinkSqueeze(const CallNode* call, const std::vector<Expr>& args, bool bias_add) {
  const auto* result = call->checked_type_.defined() ? call->checked_type_.as<TensorTypeNode>() : nullptr;
  if (result == nullptr || result->ndim() != 3) return Expr();
  std::vector<Expr> fresh;
  bool any = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const Expr& old = call->args[i];
    const TensorTypeNode* t = TensorTypeOf(old);
    if (t == nullptr) {
      const auto* tuple = old->checked_type_.defined() ? old->checked_type_.as<TupleTypeNode>() : nullptr;
      if (tuple == nullptr || !tuple->fields.empty()) return Expr();  // only an absent optional input (clip's)
      fresh.push_back(args[i]);
      continue;
    }
    if (t->ndim() > 3) return Expr();
    Expr y = UnsqueezedH(args[i], t);
    if (y.defined()) {
      fresh.push_back(y);
      any = true;
    } else if (t->ndim() >= 2 && !(bias_add && i == 1)) {
      fresh.push_back(ExpandDims(args[i], static_cast<int64_t>(t->ndim()) - 1));  // a unit axis before the last
    } else {
      fresh.push_back(args[i]);  // a scalar, a 1-D operand (aligned with W), or bias_add's (C,) bias
    }
  }
  if (!any) return Expr();
  Attrs attrs = call->attrs;
  if (bias_add) attrs = WithAttrFields(call->attrs, {{"axis", Any(int64_t(1))}}, "Legalize");
  return SqueezeH(Call(call->op, Array<Expr>(fresh), attrs));
}

}  // namespace legalize

namespace {

class Legalizer : public ExprMutator {
 public:
  Legalizer() : pattern_("TOpPattern"), rules_("FTVMLiteLegalize") {}

 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    const auto* call = original.as<CallNode>();
    if (call != nullptr && call->op.as<OpNode>() != nullptr) {
      const Op op = runtime::Downcast<Op>(call->op);
      // new_children: the op, then the new args.
      std::vector<Expr> args;
      for (size_t i = 1; i < new_children.size(); ++i) args.push_back(new_children[i]);
      Expr out;
      if (rules_.count(op)) {
        Any rewritten = rules_[op](original, Array<Expr>(args));
        if (!rewritten.is_none()) out = rewritten.cast<Expr>();
      } else if (pattern_.get(op, kOpaque) <= kBroadcast && !facts_.HasAxisSemantics(op)) {
        out = legalize::SinkSqueeze(call, args, /*bias_add=*/false);
      }
      if (out.defined()) return out;
    }
    return ExprMutator::Rewrite(original, new_children);
  }

 private:
  OpAttrMap<TOpPattern> pattern_;
  OpAttrMap<runtime::Function> rules_;
  OpFacts facts_;
};

}  // namespace

IRModule Legalize(const IRModule& mod) {
  IRModule typed = InferType(mod);
  return MapFunctions(typed, [](const Function& f) { return runtime::Downcast<Function>(Legalizer().Mutate(f)); });
}

TVMLITE_REGISTER_GLOBAL("relay._transform.Legalize").set_body_typed([](IRModule mod) { return Legalize(mod); });

}  // namespace relay
}  // namespace tvmlite
