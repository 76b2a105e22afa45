/*!
 * \file legalize_rules.cc
 * \brief The ops' "FTVMLiteLegalize" rules (legalize.h): each rewrites one op into ops the cpu target has kernels
 * for, or returns None to keep the call. The Legalize pass (legalize.cc) asks an op for its rule; it names no op.
 *
 *   nn.conv1d, nn.conv1d_transpose   the 2-D op over H = 1, between expand_dims and squeeze
 *   nn.conv2d                        a depthwise conv with a channel multiplier: a plain one over repeated channels
 *   nn.bias_add                      the squeeze of a 1-D conv sunk below it (its axis remapped)
 *   expand_dims                      expand_dims(squeeze(y, 2), 2) -> y
 *   split                            one strided_slice per piece
 *   tile                             of dims of size 1 only: broadcast_to
 *   l2_norm, l1_norm, sum_square     the native sum of a native elementwise map
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/transform.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../op/nn/window.h"
#include "legalize.h"

namespace tvmlite {
namespace relay {
namespace {

using namespace legalize;  // NOLINT(build/namespaces): the helpers the rules share with the pass

/*! \brief (1, v) from a 1-D window value of a conv attr (v its one value). */
Array<int64_t> WithUnitH(int64_t v, int64_t unit) { return Array<int64_t>{unit, v}; }

/*!
 * \brief A 1-D conv's (or conv transpose's) attrs as the 2-D op's over H = 1: window (1, k), strides (1, s),
 * dilation (1, d), padding (0, begin, 0, end); groups, channels and out_dtype kept; NCHW data, kernel_layout.
 */
template <typename To, typename From>
ObjectPtr<To> OverUnitHeight(const From* a, const char* kernel_layout) {
  const Window<1> w = NormalizeWindow<1>(a->strides, a->padding, a->dilation);
  auto attrs = make_object<To>();
  attrs->strides = WithUnitH(w.stride[0], 1);
  attrs->padding = Array<int64_t>{0, w.pad_begin[0], 0, w.pad_end[0]};
  attrs->dilation = WithUnitH(w.dilation[0], 1);
  attrs->groups = a->groups;
  attrs->channels = a->channels;
  if (!a->kernel_size.empty()) attrs->kernel_size = WithUnitH(a->kernel_size[0], 1);
  attrs->data_layout = "NCHW";
  attrs->kernel_layout = kernel_layout;
  attrs->out_layout = a->out_layout.empty() ? "" : "NCHW";
  attrs->out_dtype = a->out_dtype;
  return attrs;
}

Expr Conv1D(const CallNode* call, const std::vector<Expr>& args) {
  const auto* a = call->attrs.as<Conv1DAttrs>();
  if (a == nullptr || a->data_layout != "NCW" || a->kernel_layout != "OIW" ||
      !(a->out_layout.empty() || a->out_layout == "NCW")) {
    return Expr();
  }
  auto attrs = OverUnitHeight<Conv2DAttrs>(a, "OIHW");
  return SqueezeH(
      MakeCall("nn.conv2d", {ExpandH(args[0], TensorTypeOf(call->args[0])), ExpandDims(args[1], 2)}, Attrs(attrs)));
}

Expr Conv1DTranspose(const CallNode* call, const std::vector<Expr>& args) {
  const auto* a = call->attrs.as<ConvTransposeAttrs<1>>();
  if (a == nullptr || a->data_layout != "NCW" || a->kernel_layout != "IOW" ||
      !(a->out_layout.empty() || a->out_layout == "NCW")) {
    return Expr();
  }
  const std::array<int64_t, 1> out_pad = PerDim<1>(a->output_padding, "output_padding", 0, 0);
  auto attrs = OverUnitHeight<ConvTransposeAttrs<2>>(a, "IOHW");
  attrs->output_padding = WithUnitH(out_pad[0], 0);
  return SqueezeH(MakeCall("nn.conv2d_transpose",
                           {ExpandH(args[0], TensorTypeOf(call->args[0])), ExpandDims(args[1], 2)}, Attrs(attrs)));
}

/*!
 * \brief split(x) with a static dim along its axis -> Tuple(strided_slice(x, [b_i], [e_i], axes=[axis]), ...),
 * piece i being numpy's [point i-1, point i) (the type relation's pieces, empty ones included).
 */
Expr Split(const CallNode* call, const std::vector<Expr>& args) {
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
Expr TileOfOnes(const CallNode* call, const std::vector<Expr>& args) {
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
Expr NormToSum(const CallNode* call, const std::string& name, const std::vector<Expr>& args) {
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
Expr DepthwiseMultiplier(const CallNode* call, const std::vector<Expr>& args) {
  const auto* a = call->attrs.as<Conv2DAttrs>();
  const TensorTypeNode* x = TensorTypeOf(call->args[0]);
  const TensorTypeNode* w = TensorTypeOf(call->args[1]);
  if (a == nullptr || x == nullptr || w == nullptr || x->ndim() != 4 || w->ndim() != 4 || a->data_layout != "NCHW" ||
      a->kernel_layout != "OIHW" || a->groups <= 1) {
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
Expr CancelSqueeze(const CallNode* call, const std::vector<Expr>& args) {
  const auto* a = call->attrs.as<ExpandDimsAttrs>();
  if (a == nullptr || a->num_newaxis != 1 || !(a->axis == 2 || a->axis == -2)) return Expr();
  return UnsqueezedH(args[0], TensorTypeOf(call->args[0]));
}

/*! \brief nn.bias_add(squeeze(y, 2), b, axis 1) -> squeeze(nn.bias_add(y, b, axis 1), 2). */
Expr BiasAddBelowSqueeze(const CallNode* call, const std::vector<Expr>& args) {
  const auto* a = call->attrs.as<BiasAddAttrs>();
  if (a == nullptr || !(a->axis == 1 || a->axis == -2)) return Expr();
  return SinkSqueeze(call, args, /*bias_add=*/true);
}

/*! \brief Register rule(call, args) -> Expr (null: keep the call) as op_name's "FTVMLiteLegalize". */
template <typename F>
void SetRule(const char* op_name, F rule) {
  runtime::Function f([op_name, rule](runtime::PackedArgs args, Any* rv) {
    TVMLITE_CHECK_KIND(args.size() == 2, TypeError)
        << "FTVMLiteLegalize of " << op_name << ": expected (call, args), got " << args.size() << " arguments";
    Call call = args[0].cast<Call>();
    Array<Expr> new_args = args[1].cast<Array<Expr>>();
    TVMLITE_CHECK_KIND(new_args.size() == call->args.size(), ValueError)
        << "FTVMLiteLegalize of " << op_name << ": " << new_args.size() << " args for a call of " << call->args.size();
    std::vector<Expr> fresh;
    for (const Expr& a : new_args) fresh.push_back(a);
    Expr out = rule(call.get(), fresh);
    if (out.defined()) *rv = out;
  });
  // RegisterOrGet: this file may initialise before the op's own registration (static init order across files).
  ir::OpRegEntry::RegisterOrGet(op_name).set_attr("FTVMLiteLegalize", f);
}

void RegisterRules() {
  SetRule("nn.conv1d", Conv1D);
  SetRule("nn.conv1d_transpose", Conv1DTranspose);
  SetRule("nn.conv2d", DepthwiseMultiplier);
  SetRule("nn.bias_add", BiasAddBelowSqueeze);
  SetRule("expand_dims", CancelSqueeze);
  SetRule("split", Split);
  SetRule("tile", TileOfOnes);
  for (const char* norm : {"l2_norm", "l1_norm", "sum_square"}) {
    const std::string name = norm;
    SetRule(norm, [name](const CallNode* call, const std::vector<Expr>& args) { return NormToSum(call, name, args); });
  }
}

TVMLITE_STATIC_INIT_BLOCK({ RegisterRules(); });

}  // namespace
}  // namespace relay
}  // namespace tvmlite
