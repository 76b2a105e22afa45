/*!
 * \file fold_scale_axis.cc
 * \brief FoldScaleAxis: a constant per-output-channel multiply after a conv (1-D, 2-D, 3-D) or dense moves into the
 * weight.
 *
 * Algorithm (TVM's backward folding, its common case). Type the function and count each node's consumers. Then
 * one mutator walk rewrites every multiply(y, s) (either operand order) where s is a Constant that is
 * *per-channel* for y and y is one of
 *     nn.conv2d(x, W)                               NCHW data, OIHW weight: channels are axis 1 of y, axis 0 of W
 *     nn.conv1d(x, W), nn.conv3d(x, W)              likewise, NCW / OIW and NCDHW / OIDHW
 *     nn.dense(x, W)                                W (units, in): channels are the last axis of y, axis 0 of W
 *     add(A, b) / add(b, A) / nn.bias_add(A, b)     A one of the two above, b a Constant per-channel for A
 * into the same anchor on W * s (s reshaped to (C, 1, ...) along W's output axis) and, with a bias, b * s:
 *     (x * W + b) * s = x * (W * s) + b * s
 * which is exact algebra, so no sign condition on s. "Per-channel" means s has at most y's rank and, aligned
 * to y's trailing dims, every dim is 1 except the channel axis, which is 1 or C: multiplying by it never grows
 * y. The anchor's output (and the bias add's) must have no consumer but the next step of the pattern, or the
 * unscaled value would still be needed. The weight products are left as expressions on constants: FoldConstant
 * makes them new constant weights.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/runtime/registry.h>

#include <unordered_map>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

/*! \brief An anchor whose output channels are axis `axis` of its rank-`rank` result and axis 0 of its weight. */
struct Anchor {
  const CallNode* call = nullptr;
  int64_t axis = 0;
  int64_t rank = 0;
  int64_t channels = 0;
};

class ScaleFolder : public ExprMutator {
 public:
  explicit ScaleFolder(std::unordered_map<const Object*, int> uses) : uses_(std::move(uses)) {}

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

  /*! \brief y as an anchor whose scale can fold, or a null call. */
  Anchor AsAnchor(const Expr& y) const {
    Anchor a;
    const TensorTypeNode* t = TensorTypeOf(y);
    if (t == nullptr || !SingleUse(y)) return a;
    if (const CallNode* conv = AsOpCall(y, "nn.conv2d")) {
      return ConvAnchor<2>(conv);
    } else if (const CallNode* conv1 = AsOpCall(y, "nn.conv1d")) {
      return ConvAnchor<1>(conv1);
    } else if (const CallNode* conv3 = AsOpCall(y, "nn.conv3d")) {
      return ConvAnchor<3>(conv3);
    } else if (const CallNode* dense = AsOpCall(y, "nn.dense")) {
      const TensorTypeNode* w = TensorTypeOf(dense->args[1]);
      if (w == nullptr || w->ndim() != 2 || !w->static_dim(0)) return a;
      a.call = dense, a.rank = static_cast<int64_t>(t->ndim()), a.axis = a.rank - 1;
      a.channels = *w->static_dim(0);
    }
    return a;
  }

  /*! \brief A channel-first N-D conv (NC... data, OI... weight) as an anchor, or a null call. */
  template <int N>
  static Anchor ConvAnchor(const CallNode* conv) {
    Anchor a;
    const auto* attrs = conv->attrs.as<ConvAttrs<N>>();
    const TensorTypeNode* w = TensorTypeOf(conv->args[1]);
    const std::string data = ChannelFirstLayout(N);
    if (attrs == nullptr || attrs->data_layout != data || attrs->kernel_layout != ConvKernelLayout(N) ||
        !(attrs->out_layout.empty() || attrs->out_layout == data) || w == nullptr || !w->static_dim(0)) {
      return a;
    }
    a.call = conv, a.axis = 1, a.rank = N + 2, a.channels = *w->static_dim(0);
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
    // W (C, ...) * s as (n, 1, ...): the weight's other axes broadcast.
    const TensorTypeNode* wt = TensorTypeOf(anchor.call->args[1]);
    std::vector<int64_t> wshape(wt->ndim(), 1);
    wshape[0] = n;
    Expr weight = MakeCall("multiply", {New(anchor.call->args[1]), Reshape(s, wshape)});
    Expr out = Call(anchor.call->op, {New(anchor.call->args[0]), weight}, anchor.call->attrs);
    if (bias_call) {
      Expr scaled_bias = bias_call->op.same_as(Op::Get("nn.bias_add"))
                             ? MakeCall("multiply", {New(bias), Reshape(s, {n})})
                             : MakeCall("multiply", {New(bias), s});
      out = Call(bias_call->op, {out, scaled_bias}, bias_call->attrs);
    }
    return out;
  }

  std::unordered_map<const Object*, int> uses_;
};

}  // namespace

IRModule FoldScaleAxis(const IRModule& mod) {
  IRModule typed = InferType(mod);
  return MapFunctions(typed, [](const Function& f) {
    UseCounter counter;
    counter.VisitExpr(f);
    return runtime::Downcast<Function>(ScaleFolder(std::move(counter.uses)).Mutate(f));
  });
}

TVMLITE_REGISTER_GLOBAL("relay._transform.FoldScaleAxis").set_body_typed([](IRModule mod) {
  return FoldScaleAxis(mod);
});

}  // namespace relay
}  // namespace tvmlite
