/*!
 * \file fold_scale_axis.cc
 * \brief FoldScaleAxis: a constant per-output-channel multiply after a conv (1-D, 2-D, 3-D), a dense or any op with
 * an "FTVMLiteScaleAxis" rule moves into the weight.
 *
 * Algorithm (TVM's backward folding, its common case). Type the function and count each node's consumers. Then
 * one mutator walk rewrites every multiply(y, s) (either operand order) where s is a Constant that is
 * *per-channel* for y and y is
 *     an anchor: a call f(x, W, ...) whose op's "FTVMLiteScaleAxis" rule, asked with the call, gives
 *                (output axis, weight axis): y's output channels are that axis of y and that axis of W (its second
 *                argument), and y is linear in W. Registered with the ops: nn.conv{1,2,3}d (channel-first layouts:
 *                (1, 0); others None), nn.dense ((-1, 0)). None: this call cannot absorb a scale.
 *     add(A, b) / add(b, A) / nn.bias_add(A, b)     A an anchor, b a Constant per-channel for A
 * into the same anchor on W * s (s reshaped to (1, .., C, .., 1) along W's output axis) and, with a bias, b * s:
 *     (x * W + b) * s = x * (W * s) + b * s
 * which is exact algebra, so no sign condition on s. "Per-channel" means s has at most y's rank and, aligned
 * to y's trailing dims, every dim is 1 except the channel axis, which is 1 or C: multiplying by it never grows
 * y. The anchor's output (and the bias add's) must have no consumer but the next step of the pattern, or the
 * unscaled value would still be needed. The weight products are left as expressions on constants: FoldConstant
 * makes them new constant weights. The pass names only the ops of the pattern it rewrites (multiply, add,
 * nn.bias_add), no anchor.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/runtime/registry.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

/*! \brief An anchor whose output channels are axis `axis` of its rank-`rank` result and axis `weight_axis` of its
 * weight (its argument 1). */
struct Anchor {
  const CallNode* call = nullptr;
  int64_t axis = 0;
  int64_t weight_axis = 0;
  int64_t rank = 0;
  int64_t channels = 0;
};

class ScaleFolder : public ExprMutator {
 public:
  explicit ScaleFolder(std::unordered_map<const Object*, int> uses)
      : uses_(std::move(uses)), rules_("FTVMLiteScaleAxis") {}

 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    if (const CallNode* mul = AsOpCall(original, "multiply")) {
      for (int k = 0; k < 2; ++k) {
        const Expr& y = mul->args[k];
        const Expr& s = mul->args[1 - k];
        if (!s.as<ConstantNode>()) continue;
        Expr folded = Fold(y, s);
        if (folded.defined()) return folded;
      }
    }
    return ExprMutator::Rewrite(original, new_children);
  }

 private:
  bool SingleUse(const Expr& e) const {
    auto it = uses_.find(e.get());
    return it != uses_.end() && it->second == 1;
  }

  /*! \brief y as an anchor whose scale can fold (its op's "FTVMLiteScaleAxis" rule says where), or a null call. */
  Anchor AsAnchor(const Expr& y) const {
    Anchor a;
    const auto* call = y.as<CallNode>();
    const TensorTypeNode* t = TensorTypeOf(y);
    if (call == nullptr || call->op.as<OpNode>() == nullptr || t == nullptr || !SingleUse(y)) return a;
    const Op op = runtime::Downcast<Op>(call->op);
    if (!rules_.count(op) || call->args.size() < 2) return a;
    const Any axes = rules_[op](y);
    if (axes.is_none()) return a;
    const TensorTypeNode* w = TensorTypeOf(call->args[1]);
    const std::optional<Array<int64_t>> pair = axes.as<Array<int64_t>>();
    TVMLITE_CHECK_KIND(pair.has_value() && pair->size() == 2, TypeError)
        << "FTVMLiteScaleAxis of " << op->name << " must return None or (output axis, weight axis), got "
        << (pair.has_value() ? std::to_string(pair->size()) + " values" : runtime::AnyTypeStr(*axes.raw()));
    const int64_t rank = static_cast<int64_t>(t->ndim());
    const int64_t weight_rank = w == nullptr ? 0 : static_cast<int64_t>(w->ndim());
    const int64_t axis = (*pair)[0] < 0 ? (*pair)[0] + rank : (*pair)[0];
    const int64_t weight_axis = (*pair)[1] < 0 ? (*pair)[1] + weight_rank : (*pair)[1];
    TVMLITE_CHECK_KIND(axis >= 0 && axis < rank && weight_axis >= 0 && weight_axis < weight_rank, ValueError)
        << "FTVMLiteScaleAxis of " << op->name << " gave axes (" << (*pair)[0] << ", " << (*pair)[1] << ") for a rank-"
        << rank << " result and a rank-" << weight_rank << " weight";
    if (!w->static_dim(weight_axis)) return a;
    a.call = call, a.axis = axis, a.weight_axis = weight_axis, a.rank = rank;
    a.channels = *w->static_dim(weight_axis);
    return a;
  }

  /*! \brief The element count of c when it is per-channel for an anchor (1 or C), else -1. */
  static int64_t PerChannel(const Expr& c, const Anchor& a) {
    const auto* node = c.as<ConstantNode>();
    if (node == nullptr) return -1;
    std::vector<int64_t> shape = node->data.Shape();
    int64_t rank = static_cast<int64_t>(shape.size());
    if (rank > a.rank) return -1;
    int64_t count = 1;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t axis = a.rank - rank + i;  // aligned to the trailing dims
      if (shape[i] == 1) continue;
      if (axis != a.axis || shape[i] != a.channels) return -1;
      count = shape[i];
    }
    return count;
  }

  static Expr Reshape(const Expr& e, std::vector<int64_t> shape) {
    auto attrs = make_object<ReshapeAttrs>();
    attrs->newshape = Array<int64_t>(shape);
    return MakeCall("reshape", {e}, Attrs(attrs));
  }

  Expr New(const Expr& original) const { return memo_.at(original.get()); }

  /*! \brief y * s rewritten with s folded into y's anchor (and bias), or an undefined Expr. */
  Expr Fold(const Expr& y, const Expr& s) {
    Anchor anchor = AsAnchor(y);
    const CallNode* bias_call = nullptr;
    Expr bias;
    if (!anchor.call) {
      const CallNode* add = AsOpCall(y, "add");
      const CallNode* bias_add = AsOpCall(y, "nn.bias_add");
      if (!SingleUse(y) || (!add && !bias_add)) return Expr();
      for (int k = 0; k < 2 && !anchor.call; ++k) {
        const CallNode* c = add ? add : bias_add;
        if (bias_add && k == 1) break;
        anchor = AsAnchor(c->args[k]);
        bias = c->args[1 - k];
      }
      if (!anchor.call) return Expr();
      bias_call = add ? add : bias_add;
      if (bias_add) {
        // nn.bias_add(y, b (C,), axis): b is per-channel when axis is the anchor's channel axis.
        int64_t axis = bias_add->attrs.as<BiasAddAttrs>()->axis;
        if (axis < 0) axis += anchor.rank;
        const auto* b = bias.as<ConstantNode>();
        if (axis != anchor.axis || b == nullptr || b->data.Shape().size() != 1) return Expr();
      } else if (PerChannel(bias, anchor) < 0) {
        return Expr();
      }
    }
    int64_t n = PerChannel(s, anchor);
    const TensorTypeNode* yt = TensorTypeOf(y);
    const TensorTypeNode* st = TensorTypeOf(s);
    if (n < 0 || yt == nullptr || st == nullptr || st->dtype != yt->dtype) return Expr();
    // W * s as (1, .., n, .., 1), n on W's output axis: the weight's other axes broadcast.
    const TensorTypeNode* wt = TensorTypeOf(anchor.call->args[1]);
    std::vector<int64_t> wshape(wt->ndim(), 1);
    wshape[anchor.weight_axis] = n;
    Expr weight = MakeCall("multiply", {New(anchor.call->args[1]), Reshape(s, wshape)});
    Array<Expr> args;
    for (const Expr& arg : anchor.call->args) args.push_back(args.size() == 1 ? weight : New(arg));
    Expr out = Call(anchor.call->op, args, anchor.call->attrs);
    if (bias_call) {
      Expr scaled_bias = bias_call->op.same_as(Op::Get("nn.bias_add"))
                             ? MakeCall("multiply", {New(bias), Reshape(s, {n})})
                             : MakeCall("multiply", {New(bias), s});
      out = Call(bias_call->op, {out, scaled_bias}, bias_call->attrs);
    }
    return out;
  }

  std::unordered_map<const Object*, int> uses_;
  OpAttrMap<runtime::Function> rules_;
};

}  // namespace

IRModule FoldScaleAxis(const IRModule& mod) { return RewriteWithUses<ScaleFolder>(mod); }

TVMLITE_REGISTER_GLOBAL("relay._transform.FoldScaleAxis").set_body_typed([](IRModule mod) {
  return FoldScaleAxis(mod);
});

}  // namespace relay
}  // namespace tvmlite
