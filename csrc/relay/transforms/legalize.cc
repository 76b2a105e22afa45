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
 * Algorithm: one mutator walk, producers first (ExprMutator), on a typed module: each call is matched by its op; the
 * sinking uses the original nodes' types (the rewritten ones are untyped until the module is typed again at the
 * end). Everything else is kept as it is.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/op_facts.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "../op/nn/window.h"
#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

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

/*! \brief y when e is squeeze(y, axis 2) (or -2) of a 4-D y (its H then is 1), else a null Expr. */
Expr UnsqueezedH(const Expr& e, const TensorTypeNode* original_type) {
  const CallNode* sq = AsOpCall(e, "squeeze");
  if (sq == nullptr || original_type == nullptr || original_type->ndim() != 3) return Expr();
  const auto* a = sq->attrs.as<SqueezeAttrs>();
  if (a == nullptr || !a->axis.has_value() || a->axis->size() != 1) return Expr();
  const int64_t axis = (*a->axis)[0];
  return axis == 2 || axis == -2 ? sq->args[0] : Expr();
}

/*! \brief e (a 3-D NCW tensor, original_type its type before the walk) with a unit H: expand_dims(e, 2), or y when
 * e is squeeze(y, 2). */
Expr ExpandH(const Expr& e, const TensorTypeNode* original_type) {
  Expr y = UnsqueezedH(e, original_type);
  return y.defined() ? y : ExpandDims(e, 2);
}

/*! \brief (1, v) from a 1-D window value of a conv attr (v its one value). */
Array<int64_t> WithUnitH(int64_t v, int64_t unit) { return Array<int64_t>{unit, v}; }

class Legalizer : public ExprMutator {
 public:
  Legalizer() : pattern_("TOpPattern") {}

 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    const auto* call = original.as<CallNode>();
    const auto* op = call != nullptr ? call->op.as<OpNode>() : nullptr;
    if (op != nullptr) {
      // new_children: the op, then the new args.
      std::vector<Expr> args;
      for (size_t i = 1; i < new_children.size(); ++i) args.push_back(new_children[i]);
      Expr out;
      if (op->name == "nn.conv1d") {
        out = Conv1D(call, args);
      } else if (op->name == "nn.conv2d") {
        out = DepthwiseMultiplier(call, args);
      } else if (op->name == "nn.conv1d_transpose") {
        out = Conv1DTranspose(call, args);
      } else if (op->name == "expand_dims") {
        out = CancelSqueeze(call, args);
      } else if (op->name == "split") {
        out = Split(call, args);
      } else if (op->name == "tile") {
        out = TileOfOnes(call, args);
      } else if (op->name == "l2_norm" || op->name == "l1_norm" || op->name == "sum_square") {
        out = NormToSum(call, op->name, args);
      } else {
        out = SinkSqueeze(original, call, runtime::Downcast<Op>(call->op), args);
      }
      if (out.defined()) return out;
    }
    return ExprMutator::Rewrite(original, new_children);
  }

 private:
  static Expr Conv1D(const CallNode* call, const std::vector<Expr>& args) {
    const auto* a = call->attrs.as<Conv1DAttrs>();
    if (a == nullptr || a->data_layout != "NCW" || a->kernel_layout != "OIW" ||
        !(a->out_layout.empty() || a->out_layout == "NCW")) {
      return Expr();
    }
    const Window<1> w = NormalizeWindow<1>(a->strides, a->padding, a->dilation);
    auto attrs = make_object<Conv2DAttrs>();
    attrs->strides = WithUnitH(w.stride[0], 1);
    attrs->padding = Array<int64_t>{0, w.pad_begin[0], 0, w.pad_end[0]};
    attrs->dilation = WithUnitH(w.dilation[0], 1);
    attrs->groups = a->groups;
    attrs->channels = a->channels;
    if (!a->kernel_size.empty()) attrs->kernel_size = WithUnitH(a->kernel_size[0], 1);
    attrs->data_layout = "NCHW";
    attrs->kernel_layout = "OIHW";
    attrs->out_layout = a->out_layout.empty() ? "" : "NCHW";
    attrs->out_dtype = a->out_dtype;
    return SqueezeH(MakeCall("nn.conv2d", {ExpandH(args[0], TensorTypeOf(call->args[0])), ExpandDims(args[1], 2)},
                             Attrs(attrs)));
  }

  static Expr Conv1DTranspose(const CallNode* call, const std::vector<Expr>& args) {
    const auto* a = call->attrs.as<ConvTransposeAttrs<1>>();
    if (a == nullptr || a->data_layout != "NCW" || a->kernel_layout != "IOW" ||
        !(a->out_layout.empty() || a->out_layout == "NCW")) {
      return Expr();
    }
    const Window<1> w = NormalizeWindow<1>(a->strides, a->padding, a->dilation);
    const std::array<int64_t, 1> out_pad = PerDim<1>(a->output_padding, "output_padding", 0, 0);
    auto attrs = make_object<ConvTransposeAttrs<2>>();
    attrs->strides = WithUnitH(w.stride[0], 1);
    attrs->padding = Array<int64_t>{0, w.pad_begin[0], 0, w.pad_end[0]};
    attrs->dilation = WithUnitH(w.dilation[0], 1);
    attrs->output_padding = WithUnitH(out_pad[0], 0);
    attrs->groups = a->groups;
    attrs->channels = a->channels;
    if (!a->kernel_size.empty()) attrs->kernel_size = WithUnitH(a->kernel_size[0], 1);
    attrs->data_layout = "NCHW";
    attrs->kernel_layout = "IOHW";
    attrs->out_layout = a->out_layout.empty() ? "" : "NCHW";
    attrs->out_dtype = a->out_dtype;
    return SqueezeH(MakeCall("nn.conv2d_transpose",
                             {ExpandH(args[0], TensorTypeOf(call->args[0])), ExpandDims(args[1], 2)}, Attrs(attrs)));
  }

  /*!
   * \brief split(x) with a static dim along its axis -> Tuple(strided_slice(x, [b_i], [e_i], axes=[axis]), ...),
   * piece i being numpy's [point i-1, point i) (the type relation's pieces, empty ones included).
   */
  static Expr Split(const CallNode* call, const std::vector<Expr>& args) {
    const auto* a = call->attrs.as<SplitAttrs>();
    const TensorTypeNode* t = TensorTypeOf(call->args[0]);
    if (a == nullptr || t == nullptr || t->ndim() == 0) return Expr();
    const int64_t ndim = static_cast<int64_t>(t->ndim()), axis = a->axis < 0 ? a->axis + ndim : a->axis;
    if (axis < 0 || axis >= ndim) return Expr();
    std::optional<int64_t> n = t->shape[axis].as<int64_t>();
    std::vector<int64_t> points;  // piece i: [points[i], points[i + 1])
    if (!n) {
      // A symbolic axis: at indices, the pieces are open-ended slices (the last to the end), which clamp at run
      // time as numpy's split does (GPT-2's q, k, v out of a (?, ?, ?) projection); sections would need its length.
      if (a->sections > 0 || a->indices.empty()) return Expr();
      points.push_back(0);
      for (int64_t p : a->indices) {
        if (p < 0) return Expr();
        points.push_back(p);
      }
      points.push_back(std::numeric_limits<int64_t>::max());
    } else if (a->sections > 0 || a->indices.empty()) {
      const int64_t sections = a->sections > 0 ? a->sections : 1;
      if (*n % sections != 0) return Expr();
      for (int64_t i = 0; i <= sections; ++i) points.push_back(*n / sections * i);
    } else {
      points.push_back(0);
      for (int64_t p : a->indices) points.push_back(std::min(std::max<int64_t>(p, 0), *n));
      points.push_back(*n);
    }
    Array<Expr> pieces;
    for (size_t i = 0; i + 1 < points.size(); ++i) {
      auto attrs = make_object<StridedSliceAttrs>();
      attrs->begin = Array<int64_t>{points[i]};
      attrs->end = Array<int64_t>{std::max(points[i], points[i + 1])};
      attrs->strides = Array<int64_t>{1};
      attrs->axes = Array<int64_t>{axis};
      pieces.push_back(MakeCall("strided_slice", {args[0]}, Attrs(attrs)));
    }
    return Tuple(pieces);
  }

  /*!
   * \brief tile(x, reps) repeating only dims of size 1 (GCViT's global query, unsqueezed then tiled) ->
   * broadcast_to(x, the tiled shape), which runs as a copy; numpy's rule for reps and rank of different lengths
   * (the shorter one padded with leading 1s).
   */
  static Expr TileOfOnes(const CallNode* call, const std::vector<Expr>& args) {
    const auto* a = call->attrs.as<TileAttrs>();
    const TensorTypeNode* t = TensorTypeOf(call->args[0]);
    if (a == nullptr || t == nullptr) return Expr();
    const size_t rank = std::max(t->ndim(), a->reps.size());
    std::vector<int64_t> shape(rank, 1), reps(rank, 1);
    for (size_t i = 0; i < t->ndim(); ++i) {
      std::optional<int64_t> d = t->shape[i].as<int64_t>();
      if (!d) return Expr();
      shape[rank - t->ndim() + i] = *d;
    }
    for (size_t i = 0; i < a->reps.size(); ++i) reps[rank - a->reps.size() + i] = a->reps[i];
    std::vector<int64_t> out(rank);
    for (size_t i = 0; i < rank; ++i) {
      if (reps[i] < 0 || (reps[i] != 1 && shape[i] != 1)) return Expr();
      out[i] = shape[i] * reps[i];
    }
    auto attrs = make_object<BroadcastToAttrs>();
    attrs->shape = Array<int64_t>(out);
    return MakeCall("broadcast_to", {args[0]}, Attrs(attrs));
  }

  /*! \brief l2_norm(x) -> sqrt(sum(x * x)), sum_square(x) -> sum(x * x), l1_norm(x) -> sum(abs(x)) (same attrs). */
  static Expr NormToSum(const CallNode* call, const std::string& name, const std::vector<Expr>& args) {
    const Expr& x = args[0];
    Expr mapped = name == "l1_norm" ? MakeCall("abs", {x}) : MakeCall("multiply", {x, x});
    Expr sum = MakeCall("sum", {mapped}, call->attrs);
    return name == "l2_norm" ? MakeCall("sqrt", {sum}) : sum;
  }

  /*!
   * \brief A depthwise conv with channel multiplier m > 1 (groups == C, O == m * C: FastViT's, MobileViT's) ->
   * the same conv with groups == O over take(x, [0 x m, 1 x m, ...], axis=1): output channel o reads input channel
   * o / m either way, and as a plain depthwise conv (multiplier 1) it runs the depthwise kernels.
   */
  static Expr DepthwiseMultiplier(const CallNode* call, const std::vector<Expr>& args) {
    const auto* a = call->attrs.as<Conv2DAttrs>();
    const TensorTypeNode* x = TensorTypeOf(call->args[0]);
    const TensorTypeNode* w = TensorTypeOf(call->args[1]);
    if (a == nullptr || x == nullptr || w == nullptr || x->ndim() != 4 || w->ndim() != 4 ||
        a->data_layout != "NCHW" || a->kernel_layout != "OIHW" || a->groups <= 1) {
      return Expr();
    }
    std::optional<int64_t> c = x->shape[1].as<int64_t>(), o = w->shape[0].as<int64_t>();
    if (!c || !o || a->groups != *c || *o <= *c || *o % *c != 0) return Expr();
    const int64_t m = *o / *c;
    runtime::NDArray index = runtime::NDArray::Empty({*o}, DataType::Int(64));
    int64_t* idx = static_cast<int64_t*>(index->tensor.data);
    for (int64_t i = 0; i < *o; ++i) idx[i] = i / m;
    auto take = make_object<TakeAttrs>();
    take->axis = 1;
    Attrs conv = WithAttrFields(call->attrs, {{"groups", Any(*o)}}, "Legalize");
    return MakeCall("nn.conv2d", {MakeCall("take", {args[0], Constant(index)}, Attrs(take)), args[1]}, conv);
  }

  /*! \brief expand_dims(squeeze(y, 2), 2) -> y. */
  static Expr CancelSqueeze(const CallNode* call, const std::vector<Expr>& args) {
    const auto* a = call->attrs.as<ExpandDimsAttrs>();
    if (a == nullptr || a->num_newaxis != 1 || !(a->axis == 2 || a->axis == -2)) return Expr();
    return UnsqueezedH(args[0], TensorTypeOf(call->args[0]));
  }

  /*! \brief f(..., squeeze(y, 2), ...) -> squeeze(f(... 4-D operands ...), 2), for the f described above. */
  Expr SinkSqueeze(const Expr& original, const CallNode* call, const Op& op, const std::vector<Expr>& args) {
    const TensorTypeNode* result = TensorTypeOf(original);
    // An op whose attrs give an axis a meaning ("TAxisSemantics") would need it remapped: done for bias_add only.
    const bool bias_add = op->name == "nn.bias_add";
    if (result == nullptr || result->ndim() != 3 || pattern_.get(op, kOpaque) > kBroadcast ||
        (facts_.HasAxisSemantics(op) && !bias_add)) {
      return Expr();
    }
    if (bias_add) {
      const auto* a = call->attrs.as<BiasAddAttrs>();
      if (a == nullptr || !(a->axis == 1 || a->axis == -2)) return Expr();
    }
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
    if (bias_add) {
      auto a = make_object<BiasAddAttrs>();
      a->axis = 1;
      attrs = Attrs(a);
    }
    return SqueezeH(Call(call->op, Array<Expr>(fresh), attrs));
  }

  OpAttrMap<TOpPattern> pattern_;
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
