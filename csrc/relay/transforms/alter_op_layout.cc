/*!
 * \file alter_op_layout.cc
 * \brief AlterOpLayout: put the conv part of a CNN in the cpu target's blocked layout NCHW{c}c (docs/compiler.md),
 * so that the convolution kernels read and write whole vectors of channels, with as few layout_transforms on
 * activations as possible.
 *
 * Algorithm. One walk over main's dataflow graph in topological order (post-order: producers first) that gives
 * every node a *value*: its rewritten expression and the layout that expression is in, the original (block 0) or
 * blocked (block c): NCHW{c}c for a 4-D NCHW tensor, NCDHW{c}c for a 5-D NCDHW one; no other tensor is ever
 * blocked (a 1-D conv reaches this pass as a 2-D one over H = 1: the Legalize pass). Each call is rewritten by the
 * rule of its op (the op attribute "FTVMLiteAlterOpLayout": alter_op_layout.h; the rules are in
 * alter_op_layout_rules.cc) from the values of its inputs:
 *
 *   nn.conv2d (NCHW / OIHW, float32, static)  -> nn.contrib_conv2d_NCHWc(data in NCHW{ic}c,
 *                                                   layout_transform(w, "OIHW", "OIHW{ic}i{oc}o"))   out NCHW{oc}c
 *   3x3 stride s = 1 or 2, when                -> nn.contrib_conv2d_winograd_without_weight_transform(
 *   topi.nn.conv2d_winograd_tile answers m          data in NCHW{ic}c, layout_transform(
 *                                                   nn.contrib_conv2d_winograd_weight_transform(w, m, s),
 *                                                   "HWOI", "HWOI{oc}o"))                       out NCHW{oc}c
 *   depthwise (groups = C = O)                 -> nn.contrib_depthwise_conv2d_NCHWc(..., "OIHW1i{c}o") out NCHW{c}c
 *   nn.conv3d (NCDHW / OIDHW, float32, static) -> nn.contrib_conv3d_NCDHWc(data in NCDHW{ic}c,
 *                                                   layout_transform(w, "OIDHW", "OIDHW{ic}i{oc}o"))  out NCDHW{oc}c;
 *                                                depthwise: nn.contrib_depthwise_conv3d_NCDHWc, "OIDHW1i{c}o"
 *   nn.conv2d_transpose / nn.conv3d_transpose (constant IOHW / IODHW weight, float32): the same op on its plain
 *       NCHW / NCDHW data, the weight packed per group for its GEMM: layout_transform(w, "IOHW", "IOHW{k}i"),
 *       k = C / groups, kernel_layout "IOHW{k}i" (so the kernel no longer transposes it on every call)
 *   max / avg pool2d, global avg / max pool   blocked in -> the same op with layout NCHW{c}c, blocked out
 *   concatenate on the channel axis (4-D, 5-D) c = the smallest block of its blocked inputs, halved (down to 4)
 *                                              until it divides every input's channels; the other inputs
 *                                              re-blocked to c (NCHW ones packed) -> concatenate on axis 1, blocked c
 *   strided_slice of a blocked value, its channels whole blocks (stride 1, bounds multiples of the block) or
 *       not sliced                         -> the same slice of the blocks, axis 1 in block units (GhostNet's
 *                                              out[:, :oup] after its concat)
 *   nn.pad of the spatial dims only (N and C not padded; a constant pad value finite when channels are padded)
 *                                          blocked in -> the same pad of the blocks, blocked out
 *   mean / sum / max / min over spatial axes only, keepdims (x.mean((2, 3), keepdim=True): a squeeze-excite's
 *       pool as timm exports it)            blocked in -> the same reduction of the blocks, blocked out
 *   nn.bias_add (axis 1)                       blocked in -> add(x, bias packed to (C/c, 1, 1, c)) ((C/c, 1, 1,
 *                                              1, c) for 5-D)
 *   elementwise / broadcast (TOpPattern <= kBroadcast, numpy broadcasting: no "TAxisSemantics"): blocked when a blocked
 *       operand has the result's shape and every other operand is blocked alike (all channels, other dims the result's
 *       or 1: a squeeze-excite's (N, C, 1, 1) scale), a scalar, a tensor of the result's shape (packed), per-channel
 *       (C, 1, 1) / (1, C, 1, 1) (packed to (C/c, 1, 1, c) / (1, C/c, 1, 1, c); for 5-D tensors (C, 1, 1, 1) /
 *       (1, C, 1, 1, 1) likewise), or without channels ((N, 1, H, W), (H, W): a trailing 1 added)
 *   nn.dense(x, W const) when nn.contrib_dense_pack is registered -> nn.contrib_dense_pack(x,
 *       layout_transform(W, "NK", "NK{n}n")); x of any rank >= 2 (dense on its last axis); when no panel width
 *       divides N, W padded with zero rows to whole panels first (nn.pad) and units = N; not when
 *       topi.nn.dense_pack_width declines (N narrower than a panel over a short K)
 *   nn.matmul(x, B const 2-D) (ONNX MatMul, Gemm), likewise, B being "KN" (or "NK" with transpose_b); when it is
 *       not packed, nn.dense(x, B as "NK") instead
 *   anything else                              inputs in NCHW
 *
 * A blocked value a consumer needs in NCHW gets one layout_transform back, made once per value and shared by all
 * such consumers (likewise one transform per value and block into a blocked layout); main's outputs are NCHW.
 * The weights' transforms apply to constants, which FoldConstant (run after this pass) evaluates once at build.
 *
 * Blocks. BlockSize(C) is the largest of 16, 8, 4, 2, 1 that divides C and is at most max_block, where max_block
 * is max(vector lanes of topi::CpuIsa(), 8): 16 on AVX-512, 8 on AVX2 and scalar builds (a block of 8 still lets
 * the compiler vectorise the scalar build's inner loops). The block is chosen from the tensor's channels alone,
 * except that a conv reads its input in the block the producer already has when that block divides the channels
 * (a concatenate of NCHW8c inputs stays NCHW8c), which saves a transform, and that a conv over fewer channels
 * than max_block that no larger block divides (a stem's 3) reads them as one block; the kernels accept any block (their
 * fastest paths want the ISA's width as the output block, which BlockSize gives whenever the channels allow). Tests
 * pin max_block (the pass's argument) so the IR does not depend on the machine.
 *
 * Symbolic dims (SizeVars: `N`, a conv's `?` height). A rule reads the values of the dims it decides on only: the
 * channels of activations (blocks, padding, slices of whole blocks), every dim of weights and biases, and the
 * output plane of a 3x3 conv for the Winograd choice (symbolic: the direct conv, right for every size). Batch and
 * spatial dims may be symbolic; the ops built carry them through as the same SizeVar. An elementwise op compares
 * its operands' non-channel dims without reading them: equal, 1, or symbolic on either side (the type relation
 * admitted the broadcast, which NCHW{c}c does on those axes exactly as NCHW does).
 *
 * Padded channels (docs/compiler.md, "Channels no 8 divides"). A conv (groups = 1) with more than 8 output channels
 * that 8 does not divide writes them rounded up to 8 in NCHW8c, from zero weights (Value::padded); consumers that
 * can take the filler (convs: zero input weights; pools, spatial reductions, bias_add, elementwise ops that keep it
 * finite: KeepsFillerFinite, the op attribute "TKeepsFinite") keep the padding, others get the real channels: as
 * blocks of a block dividing them (a re-blocking and a slice of whole blocks), or in NCHW (one slice after the
 * transform back).
 */
#include "alter_op_layout.h"

#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/layout.h>
#include <tvmlite/relay/transform.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/isa.h>

#include <algorithm>
#include <unordered_set>

#include "pass_util.h"

namespace tvmlite {
namespace relay {
namespace alter_layout {

using runtime::make_object;

int64_t BlockSize(int64_t channels, int64_t max_block) {
  for (int64_t b : {16, 8, 4, 2}) {
    if (b <= max_block && channels % b == 0) return b;
  }
  return 1;
}

size_t RankOf(const ir::RelayExprNode* e) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  return t == nullptr ? 0 : t->ndim();
}

std::string FormLayout(size_t rank, int64_t block) { return BlockedChannelFirst(rank == 5 ? "NCDHW" : "NCHW", block); }

std::optional<std::vector<int64_t>> StaticShape(const ir::RelayExprNode* e) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  if (t == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  for (size_t i = 0; i < t->ndim(); ++i) {
    std::optional<int64_t> v = t->shape[i].as<int64_t>();
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<int64_t> StaticDim(const ir::RelayExprNode* e, size_t i) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  if (t == nullptr || i >= t->ndim()) return std::nullopt;
  return t->shape[i].as<int64_t>();
}

int64_t PaddedChannels(const Expr& e) {
  std::optional<int64_t> c = StaticDim(e, 1);
  TVMLITE_ICHECK(c.has_value()) << "AlterOpLayout: a value with symbolic channels was padded";
  return *c;
}

bool IsFloat32(const Expr& e) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  return t != nullptr && t->dtype == DataType::Float(32);
}

Expr MakeLayoutTransform(const Expr& data, const std::string& src, const std::string& dst) {
  static const Op op = Op::Get("layout_transform");
  auto a = make_object<LayoutTransformAttrs>();
  a->src_layout = src;
  a->dst_layout = dst;
  return Call(op, {data}, Attrs(std::move(a)));
}

Expr MakeExpandDims(const Expr& data, int64_t axis, int64_t num_newaxis) {
  static const Op op = Op::Get("expand_dims");
  auto attrs = make_object<ExpandDimsAttrs>();
  attrs->axis = axis;
  attrs->num_newaxis = num_newaxis;
  return Call(op, {data}, Attrs(std::move(attrs)));
}

Attrs MakeAttrsByName(const Op& op, const std::map<std::string, Any>& values) {
  return WithAttrFields(MakeAttrs(op->attrs_type_index, nullptr, 0, op->name), values, op->name);
}

Expr PadWithZeros(const Expr& data, size_t rank, const std::vector<std::pair<size_t, int64_t>>& axis_extra) {
  static const Op op = Op::Get("nn.pad");
  auto attrs = make_object<PadAttrs>();
  std::vector<int64_t> widths(2 * rank, 0);
  for (const auto& [axis, extra] : axis_extra) widths[2 * axis + 1] = extra;
  attrs->pad_width = Array<int64_t>(widths);
  runtime::NDArray zero = runtime::NDArray::Empty({}, DataType::Float(32));
  *static_cast<float*>(zero->tensor.data) = 0.0f;
  return Call(op, {data, Constant(zero)}, Attrs(std::move(attrs)));
}

Expr LeadingChannels(const Expr& data, int64_t n) {
  static const Op op = Op::Get("strided_slice");
  auto attrs = make_object<StridedSliceAttrs>();
  attrs->begin = Array<int64_t>{0};
  attrs->end = Array<int64_t>{n};
  attrs->strides = Array<int64_t>{1};
  attrs->axes = Array<int64_t>{1};
  return Call(op, {data}, Attrs(std::move(attrs)));
}

}  // namespace alter_layout

using namespace alter_layout;  // NOLINT(build/namespaces): the helpers this file shares with the rules

TVMLITE_REGISTER_OBJECT_TYPE(AlterOpLayoutContextNode);

const Value& AlterOpLayoutContextNode::ValueOf(const Expr& old) const {
  auto it = values_.find(old.get());
  TVMLITE_CHECK_KIND(it != values_.end(), ValueError)
      << "AlterOpLayout: " << (old.defined() ? old->GetTypeKey() : "None")
      << " is no node of the function this context rewrites, or was not rewritten yet";
  return it->second;
}

Expr AlterOpLayoutContextNode::Plain(const Expr& old) {
  const Value& v = ValueOf(old);
  if (v.block == 0) return v.expr;
  auto it = plain_.find(old.get());
  if (it != plain_.end()) return it->second;
  const size_t rank = RankOf(old.get());
  Expr e = MakeLayoutTransform(v.expr, FormLayout(rank, v.block), FormLayout(rank, 0));
  if (v.padded > 0) e = LeadingChannels(e, PaddedChannels(old));
  plain_[old.get()] = e;
  return e;
}

Expr AlterOpLayoutContextNode::Blocked(const Expr& old, int64_t block, int64_t padded) {
  const Value& v = ValueOf(old);
  if (v.block == block && v.padded == padded) return v.expr;
  auto key = std::make_tuple(old.get(), block, padded);
  auto it = blocked_.find(key);
  if (it != blocked_.end()) return it->second;
  const size_t rank = RankOf(old.get());
  const int64_t c = v.padded > 0 || padded > 0 ? PaddedChannels(old) : 0;  // read only when padding
  Expr src = v.expr;
  int64_t src_block = v.block;
  if (v.padded > 0 && padded == 0 && c % block == 0) {  // the real channels' blocks, without NCHW in between
    Expr e = LeadingChannels(
        block == v.block ? v.expr : MakeLayoutTransform(v.expr, FormLayout(rank, v.block), FormLayout(rank, block)),
        c / block);
    blocked_[key] = e;
    return e;
  }
  if (v.padded > 0 || padded > 0) {
    src = Plain(old);
    src_block = 0;
    if (padded > 0) src = PadWithZeros(src, rank, {{1, padded - c}});
  }
  Expr e = MakeLayoutTransform(src, FormLayout(rank, src_block), FormLayout(rank, block));
  blocked_[key] = e;
  return e;
}

namespace {

/*! \brief The shape of a node's tensor type (ints and SizeVars), or nullopt when it is not a tensor. */
std::optional<Array<Any>> ShapeOf(const Expr& e) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  if (t == nullptr) return std::nullopt;
  return t->shape;
}

/*!
 * \brief Whether two dims of an elementwise op's operand and result, at an axis NCHW{c}c keeps (N, D, H, W: not the
 * channels), are the same, or one is symbolic. The type relation admitted the broadcast, and those axes broadcast
 * in the blocked layout exactly as in NCHW, so the blocked op is right whatever values they take at run time (the
 * fresh `?` heights of two convs' outputs meeting in a residual add). Static dims must be equal.
 */
bool AxisMayMatch(const Any& a, const Any& b) {
  return DimEqual(a, b) || a.type_index() != kTVMLiteInt || b.type_index() != kTVMLiteInt;
}

/*! \brief Whether s is shape (of rank >= 2, channels static) up to symbolic dims: the channels equal, every other
 * dim AxisMayMatch. For static shapes: s == shape. */
bool MayBeShape(const Array<Any>& s, const Array<Any>& shape) {
  if (s.size() != shape.size() || !DimEqual(s[1], shape[1])) return false;
  for (size_t d = 0; d < s.size(); ++d) {
    if (d != 1 && !AxisMayMatch(s[d], shape[d])) return false;
  }
  return true;
}

/*! \brief Whether s has `rank` dims, all 1 except dim `axis`, which is c: a per-channel operand. */
bool PerChannelShape(const Array<Any>& s, size_t rank, size_t axis, int64_t c) {
  if (s.size() != rank) return false;
  for (size_t d = 0; d < rank; ++d) {
    if (!DimIs(s[d], d == axis ? c : 1)) return false;
  }
  return true;
}

/*!
 * \brief A per-channel operand of a rank-`rank` tensor, c (C, 1, ...) or (1, C, 1, ...), packed to broadcast
 * against its blocked form: (C/b, 1, ..., b) or (1, C/b, 1, ..., b).
 */
Expr PackPerChannel(const Expr& c, size_t rank, bool leading_one, int64_t block) {
  const std::string plain = rank == 5 ? "CDHW" : "CHW";
  if (leading_one) return MakeLayoutTransform(c, "N" + plain, "N" + plain + std::to_string(block) + "c");
  return MakeLayoutTransform(c, plain, plain + std::to_string(block) + "c");
}

/*!
 * \brief Whether call keeps a padded operand's filler finite (docs/compiler.md, "Padded channels"): the next conv
 * multiplies it by zero weights, which a NaN or an infinity would survive. The filler starts as the padded convs'
 * zeros and meets only zeros (padded constants), scalars and channel-free maps, so an op marked "TKeepsFinite"
 * (op_facts.h) keeps it small, and one whose "FTVMLiteKeepsFinite" rule says so (a divide by a nonzero scalar
 * constant).
 */
bool KeepsFillerFinite(const OpFacts& facts, const Call& call) { return facts.KeepsFinite(call); }

/*!
 * \brief Whether an operand of shape s, broadcast against a rank-`rank` NCHW-family result, has no channel dim of its
 * own (absent or 1: a spatial map (N, 1, H, W), or (H, W)): with a trailing 1 it broadcasts against the blocked
 * result, each value over a pixel's whole block.
 */
bool ChannelFree(const Array<Any>& s, size_t rank) { return s.size() < rank - 1 || DimIs(s[s.size() - (rank - 1)], 1); }

/*!
 * \brief The walk: each node's value by its op's "FTVMLiteAlterOpLayout" rule, else the elementwise rewrite, else
 * its children in their original layouts.
 */
class LayoutRewriter {
 public:
  explicit LayoutRewriter(int64_t max_block)
      : context_(make_object<AlterOpLayoutContextNode>()), pattern_("TOpPattern"), rules_("FTVMLiteAlterOpLayout") {
    context_->max_block = max_block;
  }

  Function Run(const Function& main) {
    context_->root = main;
    for (const Expr& node : TopologicalOrder(main->body)) context_->SetValue(node, Rewrite(node));
    Expr body = context_->Plain(main->body);
    if (body.same_as(main->body)) return main;
    return Function(main->params, body, Optional<Type>(), main->attrs);
  }

 private:
  /*! \brief Nodes below root, producers first, each once; nested functions are leaves (kept as they are). */
  static std::vector<Expr> TopologicalOrder(const Expr& root) {
    std::vector<Expr> order;
    std::unordered_set<const Object*> done;
    std::vector<std::pair<Expr, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [node, expanded] = stack.back();
      stack.pop_back();
      if (done.count(node.get())) continue;
      if (expanded || node.as<FunctionNode>()) {
        done.insert(node.get());
        order.push_back(node);
        continue;
      }
      stack.push_back({node, true});
      Array<Expr> children = ExprChildren(node);
      for (size_t i = children.size(); i-- > 0;) {
        if (!done.count(children[i].get())) stack.push_back({children[i], false});
      }
    }
    return order;
  }

  Value Rewrite(const Expr& old) {
    if (const auto* call = old.as<CallNode>()) {
      if (call->op.as<OpNode>()) {
        const Op op = runtime::Downcast<Op>(call->op);
        if (rules_.count(op)) {
          if (std::optional<Value> out = ApplyRule(op, old)) return *out;
        }
        Value out;
        if (Elementwise(old, call, &out)) return out;
      }
    }
    if (old.as<FunctionNode>() || ExprChildren(old).empty()) return {old, 0};
    return {RebuildPlain(old), 0};
  }

  /*! \brief op's rule applied to call: its value, or nullopt when the rule declines (returns None). */
  std::optional<Value> ApplyRule(const Op& op, const Expr& call) {
    const Any result = rules_[op](call, context_);
    if (result.is_none()) return std::nullopt;
    std::optional<Array<Any>> fields = result.as<Array<Any>>();
    std::optional<Expr> expr = fields && fields->size() == 3 ? (*fields)[0].as<Expr>() : std::nullopt;
    std::optional<int64_t> block = expr ? (*fields)[1].as<int64_t>() : std::nullopt;
    std::optional<int64_t> padded = expr ? (*fields)[2].as<int64_t>() : std::nullopt;
    TVMLITE_CHECK_KIND(expr && block && padded, TypeError)
        << "FTVMLiteAlterOpLayout of " << op->name << " must return [expr, block, padded] or None, got "
        << runtime::AnyTypeStr(*result.raw());
    TVMLITE_CHECK_KIND(
        (*block == 0 || (*block <= 16 && (*block & (*block - 1)) == 0)) && *padded >= 0 && (*padded == 0 || *block > 0),
        ValueError)
        << "FTVMLiteAlterOpLayout of " << op->name << " gave block " << *block << " and padded " << *padded
        << ": the block must be 0, 1, 2, 4, 8 or 16, the padding >= 0 and only of a blocked value";
    return Value{*expr, *block, *padded};
  }

  /*! \brief old with every child in its original layout (the same node when nothing changed). */
  Expr RebuildPlain(const Expr& old) {
    Array<Expr> children = ExprChildren(old);
    std::vector<Expr> fresh;
    bool changed = false;
    for (const Expr& c : children) {
      fresh.push_back(c.as<OpNode>() ? c : Plain(c));
      changed = changed || !fresh.back().same_as(c);
    }
    return changed ? WithFieldsAndType(old, Array<Expr>(fresh), Type()) : old;
  }

  bool Elementwise(const Expr& old, const CallNode* call, Value* out);

  Expr Plain(const Expr& old) { return context_->Plain(old); }
  Expr Blocked(const Expr& old, int64_t block, int64_t padded = 0) { return context_->Blocked(old, block, padded); }
  const Value& ValueOf(const Expr& old) const { return context_->ValueOf(old); }

  AlterOpLayoutContext context_;
  OpAttrMap<TOpPattern> pattern_;
  OpAttrMap<runtime::Function> rules_;
};

bool LayoutRewriter::Elementwise(const Expr& old, const CallNode* call, Value* out) {
  Op op = runtime::Downcast<Op>(call->op);
  if (pattern_.get(op, kOpaque) > kBroadcast || context_->facts.HasAxisSemantics(op)) return false;
  // The channels choose the block; the other dims are compared (AxisMayMatch), never read: they may be symbolic.
  std::optional<Array<Any>> shape = ShapeOf(old);
  std::optional<int64_t> channels = StaticDim(old, 1);
  if (!shape || !BlockableRank(shape->size()) || !channels) return false;
  const size_t rank = shape->size();
  const int64_t c = *channels;
  // Blocked operands have all the channels; one has the result's shape, the others may broadcast over the other
  // dims (a squeeze-excite's (N, C, 1, 1) scale): blocked, they broadcast alike. The largest of their blocks
  // (which divides C) is the result's; operands in a smaller one are re-blocked to it. Padded operands must agree
  // on block and channels, which the result then has (the others are padded alike).
  int64_t block = 0, padded = 0, padded_block = 0;
  bool full = false;
  for (const Expr& arg : call->args) {
    const Value& v = ValueOf(arg);
    if (v.block == 0) continue;
    std::optional<Array<Any>> s = ShapeOf(arg);
    if (!s || s->size() != rank || !DimIs((*s)[1], c)) return false;
    for (size_t d = 0; d < rank; ++d) {
      if (!AxisMayMatch((*s)[d], (*shape)[d]) && !DimIs((*s)[d], 1)) return false;
    }
    full = full || MayBeShape(*s, *shape);
    block = std::max(block, v.block);
    if (v.padded > 0) {
      if (padded > 0 && (v.padded != padded || v.block != padded_block)) return false;
      padded = v.padded;
      padded_block = v.block;
    }
  }
  if (block == 0 || !full) return false;
  if (padded > 0) {
    if (!KeepsFillerFinite(context_->facts, runtime::Downcast<Call>(old))) return false;
    block = padded_block;
  }
  std::vector<Expr> args;
  for (const Expr& arg : call->args) {
    const auto* absent = arg->checked_type_.as<TupleTypeNode>();
    if (absent != nullptr && absent->fields.empty()) {  // an absent optional input (clip's min / max)
      args.push_back(ValueOf(arg).expr);
      continue;
    }
    std::optional<Array<Any>> s = ShapeOf(arg);
    if (!s) return false;
    bool scalar = s->size() <= rank;
    for (const Any& d : *s) scalar = scalar && DimIs(d, 1);
    // Per-channel shapes of this rank: (C, 1, ...) with rank - 2 ones, and (1, C, 1, ...).
    const bool channel = PerChannelShape(*s, rank - 1, 0, c), channel_n = PerChannelShape(*s, rank, 1, c);
    if (ValueOf(arg).block != 0) {
      args.push_back(Blocked(arg, block, padded));
    } else if (scalar) {
      args.push_back(Plain(arg));
    } else if (MayBeShape(*s, *shape)) {
      args.push_back(Blocked(arg, block, padded));
    } else if (channel || channel_n) {
      const bool leading_one = channel_n;
      Expr e = Plain(arg);
      if (padded > 0) e = PadWithZeros(e, s->size(), {{leading_one ? 1 : 0, padded - c}});
      args.push_back(PackPerChannel(e, rank, leading_one, block));
    } else if (ChannelFree(*s, rank)) {
      args.push_back(MakeExpandDims(Plain(arg), static_cast<int64_t>(s->size()), 1));
    } else {
      return false;
    }
  }
  *out = {Call(call->op, Array<Expr>(args), call->attrs), block, padded};
  return true;
}

}  // namespace

ir::IRModule AlterOpLayout(const ir::IRModule& mod, int64_t max_block) {
  if (max_block <= 0) max_block = std::min(16, std::max(8, topi::VectorLanes(topi::CpuIsa())));
  TVMLITE_CHECK_KIND(max_block == 1 || max_block == 2 || max_block == 4 || max_block == 8 || max_block == 16,
                     ValueError)
      << "AlterOpLayout: max_block = " << max_block << " must be 1, 2, 4, 8 or 16 (0: from the cpu's vectors)";
  if (!mod->functions.count(String("main"))) return mod;
  ir::IRModule typed = InferType(mod);
  Map<String, Function> functions;
  for (const auto& kv : typed->functions.get()->items()) {
    String name = kv.first.cast<String>();
    Function f = kv.second.cast<Function>();
    functions.Set(name, name == "main" ? LayoutRewriter(max_block).Run(f) : f);
  }
  return InferType(ir::IRModule(functions));
}

TVMLITE_REGISTER_GLOBAL("relay._transform.AlterOpLayout").set_body_typed([](ir::IRModule mod, int64_t max_block) {
  return AlterOpLayout(mod, max_block);
});

}  // namespace relay
}  // namespace tvmlite
