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
 * rule of its op (one table, kRules below) from the values of its inputs:
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
#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/reduce.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/layout.h>
#include <tvmlite/relay/op_facts.h>
#include <tvmlite/relay/transform.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/isa.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

using runtime::make_object;

/*! \brief The largest of 16, 8, 4, 2, 1 that divides channels and is <= max_block. */
int64_t BlockSize(int64_t channels, int64_t max_block) {
  for (int64_t b : {16, 8, 4, 2}) {
    if (b <= max_block && channels % b == 0) return b;
  }
  return 1;
}

/*! \brief The rank of a node's tensor type (0 when it is not a tensor). */
size_t RankOf(const ir::RelayExprNode* e) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  return t == nullptr ? 0 : t->ndim();
}

/*! \brief Whether a tensor of this rank can be blocked: NCHW, NCDHW. */
bool BlockableRank(size_t rank) { return rank == 4 || rank == 5; }

/*! \brief The layout of a tensor of this rank with this block (0: plain): NCHW{c}c, NCDHW{c}c. */
std::string FormLayout(size_t rank, int64_t block) { return BlockedChannelFirst(rank == 5 ? "NCDHW" : "NCHW", block); }

/*!
 * \brief The static shape of a node's tensor type, or nullopt (not a tensor, or a symbolic dim): for the operands
 * whose every dim a rule reads (weights, biases).
 */
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

std::optional<std::vector<int64_t>> StaticShape(const Expr& e) { return StaticShape(e.get()); }

/*!
 * \brief Dim i of a node's tensor type when it is static; nullopt when it is symbolic (a SizeVar), beyond the rank,
 * or the node is no tensor. Activations are read through it, and only the dims a rule decides on (channels; the
 * output plane of the Winograd choice): a symbolic batch or spatial dim does not stop a rewrite that does not use
 * its value, and the ops built carry it through (layout_transform, the blocked convs, pools and slices keep the
 * same SizeVar).
 */
std::optional<int64_t> StaticDim(const ir::RelayExprNode* e, size_t i) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  if (t == nullptr || i >= t->ndim()) return std::nullopt;
  return t->shape[i].as<int64_t>();
}

std::optional<int64_t> StaticDim(const Expr& e, size_t i) { return StaticDim(e.get(), i); }

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

/*! \brief The channels of a value that is, or is being, padded: static, as only a static count is ever padded. */
int64_t PaddedChannels(const Expr& e) {
  std::optional<int64_t> c = StaticDim(e, 1);
  TVMLITE_ICHECK(c.has_value()) << "AlterOpLayout: a value with symbolic channels was padded";
  return *c;
}

bool IsFloat32(const Expr& e) {
  const auto* t = e->checked_type_.as<TensorTypeNode>();
  return t != nullptr && t->dtype == DataType::Float(32);
}

Attrs LayoutTransformAttrsOf(const std::string& src, const std::string& dst) {
  auto a = make_object<LayoutTransformAttrs>();
  a->src_layout = src;
  a->dst_layout = dst;
  return Attrs(std::move(a));
}

Expr MakeLayoutTransform(const Expr& data, const std::string& src, const std::string& dst) {
  static const Op op = Op::Get("layout_transform");
  return Call(op, {data}, LayoutTransformAttrsOf(src, dst));
}

Expr MakeExpandDims(const Expr& data, int64_t axis, int64_t num_newaxis) {
  static const Op op = Op::Get("expand_dims");
  auto attrs = make_object<ExpandDimsAttrs>();
  attrs->axis = axis;
  attrs->num_newaxis = num_newaxis;
  return Call(op, {data}, Attrs(std::move(attrs)));
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
 * \brief Attrs of op's type with the fields named in values set and the others at their defaults: for an op whose
 * attrs struct lives elsewhere (nn.contrib_dense_pack), so this file assumes its field names, not their order.
 */
Attrs MakeAttrsByName(const Op& op, const std::map<std::string, Any>& values) {
  return WithAttrFields(MakeAttrs(op->attrs_type_index, nullptr, 0, op->name), values, op->name);
}

/*!
 * \brief A node's rewritten expression and its layout: block 0 is the original layout, c > 0 NCHW{c}c; padded > 0:
 * the blocked tensor has `padded` channels, the node's own ones followed by finite filler (docs/compiler.md).
 */
struct Value {
  Expr expr;
  int64_t block = 0;
  int64_t padded = 0;
};

/*! \brief n rounded up to a multiple of m. */
int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/*! \brief data (of rank `rank`) padded with zeros after the end of the given axes: (axis, how many). */
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

/*! \brief The first n entries of axis 1: channels, or the channel blocks of a blocked tensor. */
Expr LeadingChannels(const Expr& data, int64_t n) {
  static const Op op = Op::Get("strided_slice");
  auto attrs = make_object<StridedSliceAttrs>();
  attrs->begin = Array<int64_t>{0};
  attrs->end = Array<int64_t>{n};
  attrs->strides = Array<int64_t>{1};
  attrs->axes = Array<int64_t>{1};
  return Call(op, {data}, Attrs(std::move(attrs)));
}

class LayoutRewriter;
/*! \brief A rule: the call's rewrite into *out, or false when it does not apply (the call then keeps NCHW). */
using Rule = bool (LayoutRewriter::*)(const CallNode* call, Value* out);

class LayoutRewriter {
 public:
  explicit LayoutRewriter(int64_t max_block) : max_block_(max_block), pattern_("TOpPattern") {}

  Function Run(const Function& main) {
    for (const Expr& node : TopologicalOrder(main->body)) values_[node.get()] = Rewrite(node);
    Expr body = Plain(main->body);
    if (body.same_as(main->body)) return main;
    return Function(main->params, body, Optional<Type>(), main->attrs);
  }

  // ---- rules (the table kRules maps op names to them) --------------------------------------------------------
  bool Conv2D(const CallNode* call, Value* out);
  bool Conv3D(const CallNode* call, Value* out);
  template <int N>
  bool ConvTranspose(const CallNode* call, Value* out);
  bool Winograd(const CallNode* call, const Conv2DAttrs* a, const Expr& weight, int64_t in_padded, int64_t out_padded,
                int64_t ic, int64_t oc, Value* out);
  Expr WinogradPerShape(const CallNode* call, const Conv2DAttrs* a, const Expr& weight, int64_t in_channels,
                        int64_t out_channels, int64_t oc, Call direct);
  bool Pool2D(const CallNode* call, Value* out);
  bool GlobalPool(const CallNode* call, Value* out);
  bool Concatenate(const CallNode* call, Value* out);
  bool StridedSlice(const CallNode* call, Value* out);
  bool SpatialReduce(const CallNode* call, Value* out);
  bool Pad(const CallNode* call, Value* out);
  bool BiasAdd(const CallNode* call, Value* out);
  bool Dense(const CallNode* call, Value* out);
  bool Matmul(const CallNode* call, Value* out);
  bool PackWeight(const CallNode* call, const std::string& weight_layout, Any units, Any out_dtype, Value* out);

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

  const Value& ValueOf(const Expr& old) const {
    auto it = values_.find(old.get());
    TVMLITE_ICHECK(it != values_.end()) << "AlterOpLayout: a node was used before it was rewritten";
    return it->second;
  }

  /*! \brief old's rewritten expression in its original layout (one shared transform back when it is blocked). */
  Expr Plain(const Expr& old) {
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

  /*!
   * \brief old (a 4-D NCHW or 5-D NCDHW tensor) blocked by `block`, its channels padded with zeros to `padded` (0:
   * not padded): as it is, or through one shared transform (a padded value elsewhere goes by its plain form).
   */
  Expr Blocked(const Expr& old, int64_t block, int64_t padded = 0) {
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
      Expr e = LeadingChannels(block == v.block ? v.expr : MakeLayoutTransform(v.expr, FormLayout(rank, v.block),
                                                                               FormLayout(rank, block)),
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

  Value Rewrite(const Expr& old) {
    if (const auto* call = old.as<CallNode>()) {
      if (const auto* op = call->op.as<OpNode>()) {
        Value out;
        auto rule = Rules().find(op->name);
        if (rule != Rules().end() && (this->*(rule->second))(call, &out)) return out;
        if (Elementwise(old, call, &out)) return out;
      }
    }
    if (old.as<FunctionNode>() || ExprChildren(old).empty()) return {old, 0};
    return {RebuildPlain(old), 0};
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

  static const std::unordered_map<std::string, Rule>& Rules();

  int64_t max_block_;
  OpAttrMap<TOpPattern> pattern_;
  OpFacts facts_;
  std::unordered_map<const Object*, Value> values_;
  std::unordered_map<const Object*, Expr> plain_;
  std::map<std::tuple<const Object*, int64_t, int64_t>, Expr> blocked_;
};

const std::unordered_map<std::string, Rule>& LayoutRewriter::Rules() {
  static const std::unordered_map<std::string, Rule> kRules = {
      {"nn.conv2d", &LayoutRewriter::Conv2D},
      {"nn.conv3d", &LayoutRewriter::Conv3D},
      {"nn.conv2d_transpose", &LayoutRewriter::ConvTranspose<2>},
      {"nn.conv3d_transpose", &LayoutRewriter::ConvTranspose<3>},
      {"nn.max_pool2d", &LayoutRewriter::Pool2D},
      {"nn.avg_pool2d", &LayoutRewriter::Pool2D},
      {"nn.global_avg_pool", &LayoutRewriter::GlobalPool},
      {"nn.global_max_pool", &LayoutRewriter::GlobalPool},
      {"concatenate", &LayoutRewriter::Concatenate},
      {"strided_slice", &LayoutRewriter::StridedSlice},
      {"mean", &LayoutRewriter::SpatialReduce},
      {"sum", &LayoutRewriter::SpatialReduce},
      {"max", &LayoutRewriter::SpatialReduce},
      {"min", &LayoutRewriter::SpatialReduce},
      {"nn.pad", &LayoutRewriter::Pad},
      {"nn.bias_add", &LayoutRewriter::BiasAdd},
      {"nn.dense", &LayoutRewriter::Dense},
      {"nn.matmul", &LayoutRewriter::Matmul},
  };
  return kRules;
}

/*!
 * \brief A conv's attrs (in, ConvAttrs<S>) for the blocked op: data in NCHW{in_block}c (NCDHW{in_block}c for S = 3),
 * the weight in kernel_layout, out NCHW{out_block}c; groups and channels when given (> 0) replace in's.
 */
template <int S>
Attrs BlockedConvAttrs(const Attrs& in, int64_t in_block, const std::string& kernel_layout, int64_t out_block,
                       int64_t groups = 0, int64_t channels = 0) {
  const std::string plain = ChannelFirstLayout(S);
  std::map<std::string, Any> changes{{"data_layout", Any(runtime::String(BlockedChannelFirst(plain, in_block)))},
                                     {"kernel_layout", Any(runtime::String(kernel_layout))},
                                     {"out_layout", Any(runtime::String(BlockedChannelFirst(plain, out_block)))}};
  if (groups > 0) changes["groups"] = Any(groups);
  if (channels > 0) changes["channels"] = Any(channels);
  return WithAttrFields(in, changes, "AlterOpLayout");
}

/*!
 * \brief How many groups of a grouped conv to merge into one so that a merged group's input and output channels are
 * whole blocks: the smallest k (dividing groups) making them multiples of block; 0 when no k <= 4 does. A merged
 * group computes k times the multiply-adds (zeros across its groups) on the blocked paths, which beat the portable
 * path over blocks of 1 to 4 by 20-100x.
 */
int64_t GroupsToMerge(int64_t group_in, int64_t group_out, int64_t groups, int64_t block) {
  for (int64_t k = 1; k <= 4; ++k) {
    if (groups % k == 0 && (k * group_in) % block == 0 && (k * group_out) % block == 0) return k;
  }
  return 0;
}

/*!
 * \brief The OIHW weight w (shape ws) of a conv with `groups` groups as that of groups / k groups: each merged
 * group's weight block-diagonal over its k groups, zeros across them. Relay ops on w (FoldConstant folds them).
 */
Expr MergeGroups(const Expr& w, const std::vector<int64_t>& ws, int64_t groups, int64_t k) {
  const int64_t O = ws[0], group_in = ws[1], group_out = O / groups;
  auto reshape = [](const Expr& e, std::vector<int64_t> shape) {
    auto attrs = make_object<ReshapeAttrs>();
    attrs->newshape = Array<int64_t>(shape);
    return Expr(Call(Op::Get("reshape"), {e}, Attrs(attrs)));
  };
  // (G/k, k, go, 1, gi, KH, KW) * eye(k) as (k, 1, k, 1, 1, 1) -> (G/k, k, go, k, gi, KH, KW)
  Expr split = MakeExpandDims(reshape(w, {groups / k, k, group_out, group_in, ws[2], ws[3]}), 3, 1);
  runtime::NDArray eye = runtime::NDArray::Empty({k, 1, k, 1, 1, 1}, DataType::Float(32));
  float* e = static_cast<float*>(eye->tensor.data);
  for (int64_t i = 0; i < k * k; ++i) e[i] = i / k == i % k ? 1.0f : 0.0f;
  return reshape(Call(Op::Get("multiply"), {split, Constant(eye)}), {O, k * group_in, ws[2], ws[3]});
}

bool LayoutRewriter::Conv2D(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<Conv2DAttrs>();
  const Expr& data = call->args[0];
  const Expr& weight = call->args[1];
  if (a == nullptr || a->data_layout != "NCHW" || a->kernel_layout != "OIHW" ||
      !(a->out_layout.empty() || a->out_layout == "NCHW") ||
      (a->out_dtype.has_value() && *a->out_dtype != DataType::Float(32)) || !IsFloat32(data) || !IsFloat32(weight)) {
    return false;
  }
  // The blocks and the kernel are chosen from the channels and the weight: N, H and W may be symbolic.
  std::optional<int64_t> channels = StaticDim(data, 1);
  std::optional<std::vector<int64_t>> ws = StaticShape(weight);
  if (RankOf(data.get()) != 4 || !channels || !ws || ws->size() != 4) return false;
  int64_t c = *channels, o = (*ws)[0], groups = a->groups;
  if (c == 0 || o == 0 || groups < 1) return false;
  const Value& in = ValueOf(data);
  const int64_t producer = in.block;
  // Channels no block of 8 divides (ReXNet's 38, ShuffleNet's 116) are padded to whole blocks of pad_block (docs/
  // compiler.md, "Padded channels"); a narrower block would take the kernels' slow paths.
  const int64_t pad_block = std::min<int64_t>(8, max_block_);
  auto pads = [pad_block](int64_t n) { return n > pad_block && n % pad_block != 0; };
  bool depthwise = groups > 1 && groups == c && o == c;
  if (depthwise) {
    int64_t block = producer > 0 && c % producer == 0 ? producer : BlockSize(c, max_block_), padded = in.padded;
    if (padded > 0) {
      block = producer;
    } else if (block < pad_block && pads(c)) {
      block = pad_block;
      padded = RoundUp(c, pad_block);
    }
    Expr w = Plain(weight);
    if (padded > 0) w = PadWithZeros(w, 4, {{0, padded - c}});
    std::string kernel_layout = "OIHW1i" + std::to_string(block) + "o";
    static const Op op = Op::Get("nn.contrib_depthwise_conv2d_NCHWc");
    *out = {Call(op, {Blocked(data, block, padded), MakeLayoutTransform(w, "OIHW", kernel_layout)},
                 BlockedConvAttrs<2>(call->attrs, block, kernel_layout, block, padded, padded)),
            block, padded};
    return true;
  }
  if (c % groups != 0 || o % groups != 0) return false;
  int64_t ic = producer > 0 && (c / groups) % producer == 0 ? producer : BlockSize(c, max_block_);
  // A stem's few channels (3) as one block, not blocks of 1: on AVX2 ResNet's 7x7 stem ran 1.17x faster (0.45 ms),
  // MobileNetV2's 3x3 one 1.3x, against 0.05 ms for the one transform into the block.
  if (groups == 1 && producer <= 0 && c < max_block_ && BlockSize(c, max_block_) < c) ic = c;
  int64_t oc = BlockSize(o, max_block_);
  int64_t in_padded = 0, out_padded = 0;  // the blocked conv's channels when padded
  if (groups == 1) {
    if (in.padded > 0) {
      ic = producer;
      in_padded = in.padded;
    } else if (producer <= 0 && ic < pad_block && pads(c)) {  // NCHW in: padded on the way into the blocks
      ic = pad_block;
      in_padded = RoundUp(c, pad_block);
    }
    if (oc < pad_block && pads(o)) {
      oc = pad_block;
      out_padded = RoundUp(o, pad_block);
    }
  }
  Expr w = Plain(weight);
  if (in_padded > 0 || out_padded > 0) {
    w = PadWithZeros(w, 4, {{0, out_padded > 0 ? out_padded - o : 0}, {1, in_padded > 0 ? in_padded - c : 0}});
  }
  if (Winograd(call, a, w, in_padded, out_padded, ic, oc, out)) return true;
  int64_t merge = 1;
  const int64_t in_channels = in_padded > 0 ? in_padded : c, out_channels = out_padded > 0 ? out_padded : o;
  if ((in_channels / groups) % ic != 0 || (out_channels / groups) % oc != 0) {
    // Groups narrower than the blocks (ResNeXt's and RegNet's 4 channels): k of them as one group of whole blocks.
    const int64_t block = std::min<int64_t>(8, max_block_);
    merge = GroupsToMerge(c / groups, o / groups, groups, block);
    if (merge == 0) return false;
    ic = oc = block;
    w = MergeGroups(w, *ws, groups, merge);
  }
  std::string kernel_layout = "OIHW" + std::to_string(ic) + "i" + std::to_string(oc) + "o";
  static const Op op = Op::Get("nn.contrib_conv2d_NCHWc");
  Call direct(op, {Blocked(data, ic, in_padded), MakeLayoutTransform(w, "OIHW", kernel_layout)},
              BlockedConvAttrs<2>(call->attrs, ic, kernel_layout, oc, groups / merge, out_padded));
  *out = {groups == 1 ? WinogradPerShape(call, a, w, in_channels, out_channels, oc, direct) : direct, oc, out_padded};
  return true;
}

bool LayoutRewriter::Conv3D(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<Conv3DAttrs>();
  const Expr& data = call->args[0];
  const Expr& weight = call->args[1];
  if (a == nullptr || a->data_layout != "NCDHW" || a->kernel_layout != "OIDHW" ||
      !(a->out_layout.empty() || a->out_layout == "NCDHW") ||
      (a->out_dtype.has_value() && *a->out_dtype != DataType::Float(32)) || !IsFloat32(data) || !IsFloat32(weight)) {
    return false;
  }
  std::optional<int64_t> channels = StaticDim(data, 1);  // N, D, H and W may be symbolic
  std::optional<std::vector<int64_t>> ws = StaticShape(weight);
  if (RankOf(data.get()) != 5 || !channels || !ws || ws->size() != 5) return false;
  int64_t c = *channels, o = (*ws)[0], groups = a->groups;
  if (c == 0 || o == 0 || groups < 1) return false;
  int64_t producer = ValueOf(data).block;
  if (groups > 1 && groups == c && o == c) {  // depthwise
    int64_t block = producer > 0 && c % producer == 0 ? producer : BlockSize(c, max_block_);
    std::string kernel_layout = "OIDHW1i" + std::to_string(block) + "o";
    static const Op op = Op::Get("nn.contrib_depthwise_conv3d_NCDHWc");
    *out = {Call(op, {Blocked(data, block), MakeLayoutTransform(Plain(weight), "OIDHW", kernel_layout)},
                 BlockedConvAttrs<3>(call->attrs, block, kernel_layout, block)),
            block};
    return true;
  }
  if (c % groups != 0 || o % groups != 0) return false;
  int64_t ic = producer > 0 && (c / groups) % producer == 0 ? producer : BlockSize(c, max_block_);
  int64_t oc = BlockSize(o, max_block_);
  if ((c / groups) % ic != 0 || (o / groups) % oc != 0) return false;
  std::string kernel_layout = "OIDHW" + std::to_string(ic) + "i" + std::to_string(oc) + "o";
  static const Op op = Op::Get("nn.contrib_conv3d_NCDHWc");
  *out = {Call(op, {Blocked(data, ic), MakeLayoutTransform(Plain(weight), "OIDHW", kernel_layout)},
               BlockedConvAttrs<3>(call->attrs, ic, kernel_layout, oc)),
          oc};
  return true;
}

template <int N>
bool LayoutRewriter::ConvTranspose(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<ConvTransposeAttrs<N>>();
  const Expr& data = call->args[0];
  const Expr& weight = call->args[1];
  const std::string plain = ConvTransposeKernelLayout(N);
  if (a == nullptr || a->kernel_layout != plain || !weight.as<ConstantNode>() || !IsFloat32(data) ||
      !IsFloat32(weight) || (a->out_dtype.has_value() && *a->out_dtype != DataType::Float(32))) {
    return false;
  }
  std::optional<std::vector<int64_t>> ws = StaticShape(weight);
  if (!ws || ws->size() != N + 2 || a->groups < 1 || (*ws)[0] % a->groups != 0 || (*ws)[0] == 0) return false;
  const std::string packed = plain + std::to_string((*ws)[0] / a->groups) + "i";
  Attrs attrs = WithAttrFields(call->attrs, {{"kernel_layout", Any(runtime::String(packed))}}, "AlterOpLayout");
  *out = {Call(call->op, {Plain(data), MakeLayoutTransform(weight, plain, packed)}, attrs), 0};
  return true;
}

/*!
 * \brief A 3x3, stride-1 or -2, dilation-1, ungrouped conv as nn.contrib_conv2d_winograd_without_weight_transform on
 * layout_transform(nn.contrib_conv2d_winograd_weight_transform(w), "HWOI", "HWOI{oc}o") (folded at build), when
 * topi.nn.conv2d_winograd_tile gives a tile size for its channels, output plane and stride. weight: the OIHW weight,
 * padded to in_padded / out_padded channels when those are > 0. False: the direct conv.
 */
namespace {
/*!
 * \brief The stride of a conv Winograd's kernel takes (3x3 weight, stride 1 or 2 in both axes, dilation 1, ungrouped,
 * padding within 2), or nullopt.
 */
std::optional<int64_t> WinogradStride(const Conv2DAttrs* a, const std::optional<std::vector<int64_t>>& ws) {
  if (a->groups != 1 || !ws || (*ws)[2] != 3 || (*ws)[3] != 3) return std::nullopt;
  auto all_equal = [](const Array<int64_t>& v, int64_t value) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] != value) return false;
    }
    return true;
  };
  const int64_t stride = a->strides.size() == 0 ? 1 : a->strides[0];
  if ((stride != 1 && stride != 2) || !all_equal(a->strides, stride) || !all_equal(a->dilation, 1)) {
    return std::nullopt;
  }
  for (size_t i = 0; i < a->padding.size(); ++i) {
    if (a->padding[i] > 2) return std::nullopt;  // the kernel refuses padding far beyond the input; "same" 3x3 pads 1
  }
  return stride;
}

/*!
 * \brief Whether FoldConstant folds the filters transformed for F(tile x tile) of these channels (its rule: a result
 * of at most 2^24 elements, or at most 4x its input's). F(4x4, 2x2)'s, 100 floats per channel pair (11x the filters),
 * for a 512 -> 512 stride-2 conv would not fold and be transformed on the reference at every call.
 */
bool WinogradWeightFolds(int64_t tile, int64_t stride, int64_t in_channels, int64_t out_channels) {
  const double alpha = static_cast<double>(tile + (stride == 2 ? 1 : 2));
  const double pairs = static_cast<double>(in_channels) * static_cast<double>(out_channels);
  const double out = alpha * alpha * (stride == 2 ? 4.0 : 1.0) * pairs;
  return out <= static_cast<double>(int64_t{1} << 24) || out <= 4.0 * 9.0 * pairs;
}

/*! \brief The OIHW weight transformed for F(tile x tile), in HWOI{oc}o blocks (both folded at build). */
Expr WinogradWeight(const Expr& weight, int64_t tile, int64_t stride, int64_t oc) {
  static const Op transform = Op::Get("nn.contrib_conv2d_winograd_weight_transform");
  Expr u = Call(transform, {weight},
                MakeAttrsByName(transform, {{"tile_size", Any(tile)}, {"stride", Any(stride)}}));
  return MakeLayoutTransform(u, "HWOI", "HWOI" + std::to_string(oc) + "o");
}
}  // namespace

bool LayoutRewriter::Winograd(const CallNode* call, const Conv2DAttrs* a, const Expr& weight, int64_t in_padded,
                              int64_t out_padded, int64_t ic, int64_t oc, Value* out) {
  static const runtime::Function tile_of = runtime::Registry::Get("topi.nn.conv2d_winograd_tile");
  // The tile depends on the output plane (Winograd pays only above some size): a symbolic H or W takes the conv
  // that chooses per run-time shape (WinogradPerShape); a symbolic batch does not enter the choice.
  std::optional<std::vector<int64_t>> ws = StaticShape(call->args[1]);
  std::optional<int64_t> oh = StaticDim(call, 2), ow = StaticDim(call, 3);
  std::optional<int64_t> winograd_stride = WinogradStride(a, ws);
  if (!tile_of.defined() || !winograd_stride || !oh || !ow) return false;
  const int64_t stride = *winograd_stride;
  const int64_t in_channels = in_padded > 0 ? in_padded : (*ws)[1], channels = out_padded > 0 ? out_padded : (*ws)[0];
  int64_t tile = tile_of(in_channels, channels, *oh, *ow, stride).cast<int64_t>();
  if (tile == 4 && !WinogradWeightFolds(4, stride, in_channels, channels)) tile = 2;  // as the per-shape kernel does
  if (tile <= 0 || !WinogradWeightFolds(tile, stride, in_channels, channels)) return false;
  static const Op conv = Op::Get("nn.contrib_conv2d_winograd_without_weight_transform");
  const std::string kernel_layout = "HWOI" + std::to_string(oc) + "o";
  std::map<std::string, Any> fields{{"tile_size", Any(tile)},
                                    {"strides", Any(Array<int64_t>{stride, stride})},
                                    {"padding", Any(a->padding)},
                                    {"channels", Any(channels)},
                                    {"kernel_size", Any(Array<int64_t>{3, 3})},
                                    {"data_layout", Any(runtime::String(BlockedNCHW(ic)))},
                                    {"kernel_layout", Any(runtime::String(kernel_layout))},
                                    {"out_layout", Any(runtime::String(BlockedNCHW(oc)))}};
  if (a->out_dtype.has_value()) fields["out_dtype"] = Any(*a->out_dtype);
  *out = {Call(conv, {Blocked(call->args[0], ic, in_padded), WinogradWeight(weight, tile, stride, oc)},
               MakeAttrsByName(conv, fields)),
          oc, out_padded};
  return true;
}

/*!
 * \brief direct (the blocked conv of call) as nn.contrib_conv2d_winograd_per_shape when call's output plane is
 * symbolic and Winograd pays for some plane of its channels and stride (topi.nn.conv2d_winograd_tiles): the filters
 * transformed for each such tile ride along (those FoldConstant folds: WinogradWeightFolds), and the kernel picks per
 * run-time shape what a static build would.
 * weight: the OIHW weight, padded to the blocked conv's channels. Otherwise direct itself.
 */
Expr LayoutRewriter::WinogradPerShape(const CallNode* call, const Conv2DAttrs* a, const Expr& weight,
                                      int64_t in_channels, int64_t out_channels, int64_t oc, Call direct) {
  static const runtime::Function tiles_of = runtime::Registry::Get("topi.nn.conv2d_winograd_tiles");
  std::optional<int64_t> stride = WinogradStride(a, StaticShape(call->args[1]));
  if (!tiles_of.defined() || !stride || (StaticDim(call, 2) && StaticDim(call, 3))) return direct;
  Array<Expr> args{direct->args[0], direct->args[1]};
  for (int64_t tile : tiles_of(in_channels, out_channels, *stride).cast<Array<int64_t>>()) {
    if (WinogradWeightFolds(tile, *stride, in_channels, out_channels)) {
      args.push_back(WinogradWeight(weight, tile, *stride, oc));
    }
  }
  if (args.size() == 2) return direct;
  static const Op op = Op::Get("nn.contrib_conv2d_winograd_per_shape");
  return Call(op, args, direct->attrs);
}

template <PoolKind K>
Attrs BlockedPoolAttrs(const Attrs& in, int64_t block) {
  const auto* a = in.as<PoolAttrs<K, 2>>();
  if (a == nullptr || a->layout != "NCHW" || !(a->out_layout.empty() || a->out_layout == "NCHW")) return Attrs();
  return WithAttrFields(
      in, {{"layout", Any(runtime::String(BlockedNCHW(block)))}, {"out_layout", Any(runtime::String(""))}},
      "AlterOpLayout");
}

bool LayoutRewriter::Pool2D(const CallNode* call, Value* out) {
  int64_t block = ValueOf(call->args[0]).block;
  if (block == 0 || RankOf(call->args[0].get()) != 4) return false;
  bool is_max = call->op.as<OpNode>()->name == "nn.max_pool2d";
  Attrs attrs = is_max ? BlockedPoolAttrs<PoolKind::kMax>(call->attrs, block)
                       : BlockedPoolAttrs<PoolKind::kAvg>(call->attrs, block);
  if (!attrs.defined()) return false;
  *out = {Call(call->op, {ValueOf(call->args[0]).expr}, attrs), block, ValueOf(call->args[0]).padded};
  return true;
}

bool LayoutRewriter::GlobalPool(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<GlobalPoolAttrs>();
  const Value& in = ValueOf(call->args[0]);
  if (a == nullptr || in.block == 0 || RankOf(call->args[0].get()) != 4 ||
      !(a->layout.empty() || a->layout == "NCHW")) {
    return false;
  }
  Attrs attrs = WithAttrFields(call->attrs, {{"layout", Any(runtime::String(BlockedNCHW(in.block)))}}, "AlterOpLayout");
  *out = {Call(call->op, {in.expr}, attrs), in.block, in.padded};
  return true;
}

bool LayoutRewriter::Concatenate(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<ConcatenateAttrs>();
  const auto* tuple = call->args[0].as<TupleNode>();
  if (a == nullptr || tuple == nullptr || tuple->fields.empty()) return false;
  const size_t rank = RankOf(tuple->fields[0].get());
  if (!BlockableRank(rank) || !(a->axis == 1 || a->axis == 1 - static_cast<int64_t>(rank))) return false;
  // The smallest block of the blocked inputs (blocks are powers of two, so it divides the others' channels): the
  // inputs in another layout are re-blocked to it, one transform each, and the result stays blocked.
  int64_t block = 0;
  for (const Expr& f : tuple->fields) {
    int64_t b = ValueOf(f).block;
    if (b != 0 && (block == 0 || b < block)) block = b;
  }
  if (block == 0) return false;
  // Inputs whose channels that block does not divide (GhostNet's padded halves of 12 in blocks of 8): a smaller
  // block that divides them all, down to 4.
  for (const Expr& f : tuple->fields) {
    std::optional<int64_t> c = StaticDim(f, 1);
    if (RankOf(f.get()) != rank || !c) return false;
    while (block > 4 && *c % block != 0) block /= 2;
  }
  std::vector<Expr> fields;
  for (const Expr& f : tuple->fields) {
    if (*StaticDim(f, 1) % block != 0) return false;
    fields.push_back(Blocked(f, block));
  }
  auto attrs = make_object<ConcatenateAttrs>();
  attrs->axis = 1;  // the channel-block axis of (N, C / c, H, W, c) and (N, C / c, D, H, W, c)
  *out = {Call(call->op, {Tuple(Array<Expr>(fields))}, Attrs(std::move(attrs))), block};
  return true;
}

bool LayoutRewriter::StridedSlice(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<StridedSliceAttrs>();
  const Value& in = ValueOf(call->args[0]);
  // The channels are read (whole blocks); the other axes are sliced as they are, symbolic or not.
  std::optional<int64_t> channels = StaticDim(call->args[0], 1), out_channels = StaticDim(call, 1);
  const size_t in_rank = RankOf(call->args[0].get());
  if (a == nullptr || in.block == 0 || in.padded > 0 || !channels || !BlockableRank(in_rank) ||
      a->slice_mode != "end") {
    return false;
  }
  const int64_t rank = static_cast<int64_t>(in_rank), block = in.block, c = *channels;
  const size_t n = a->begin.size();
  if (a->end.size() != n || (a->axes.has_value() && a->axes->size() != n) ||
      !(a->strides.empty() || a->strides.size() == n || a->strides.size() == 1)) {
    return false;
  }
  std::vector<int64_t> begin, end, strides, axes;
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = a->axes.has_value() ? (*a->axes)[i] : static_cast<int64_t>(i);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    int64_t b = a->begin[i], e = a->end[i];
    const int64_t step = a->strides.empty() ? 1 : a->strides[a->strides.size() == 1 ? 0 : i];
    if (axis == 1) {  // whole blocks of channels, in block units: numpy's clamping, then divisibility
      if (step != 1) return false;
      b = std::min(std::max<int64_t>(b < 0 ? b + c : b, 0), c);
      e = std::max(std::min(std::max<int64_t>(e < 0 ? e + c : e, 0), c), b);
      if (b % block != 0 || e % block != 0 || !out_channels || e - b != *out_channels) return false;
      b /= block;
      e /= block;
    }
    begin.push_back(b);
    end.push_back(e);
    strides.push_back(step);
    axes.push_back(axis);  // non-negative: the blocked tensor has one more axis at the end
  }
  auto attrs = make_object<StridedSliceAttrs>();
  attrs->begin = Array<int64_t>(begin);
  attrs->end = Array<int64_t>(end);
  attrs->strides = Array<int64_t>(strides);
  attrs->axes = Array<int64_t>(axes);
  *out = {Call(call->op, {in.expr}, Attrs(std::move(attrs))), block};
  return true;
}

bool LayoutRewriter::SpatialReduce(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<ReduceAttrs>();
  const Value& in = ValueOf(call->args[0]);
  const size_t in_rank = RankOf(call->args[0].get());  // the spatial dims' values are not read
  if (a == nullptr || in.block == 0 || !BlockableRank(in_rank) || !a->keepdims || a->exclude ||
      !a->axis.has_value() || a->axis->empty()) {
    return false;
  }
  const int64_t rank = static_cast<int64_t>(in_rank);
  std::vector<int64_t> axes;
  for (int64_t axis : *a->axis) {
    if (axis < 0) axis += rank;
    if (axis < 2 || axis >= rank) return false;  // N and C are not reduced
    axes.push_back(axis);  // non-negative: the blocked tensor has one more axis at the end
  }
  auto attrs = make_object<ReduceAttrs>();
  attrs->axis = Array<int64_t>(axes);
  attrs->keepdims = true;
  *out = {Call(call->op, {in.expr}, Attrs(std::move(attrs))), in.block, in.padded};
  return true;
}

bool LayoutRewriter::Pad(const CallNode* call, Value* out) {
  // A pad of the spatial dims only (TensorFlow's "same" padding, exported as an explicit Pad before a conv or pool)
  // pads the blocks: the same widths and a (0, 0) for the block axis.
  const auto* a = call->attrs.as<PadAttrs>();
  const Value& in = ValueOf(call->args[0]);
  const size_t rank = RankOf(call->args[0].get());  // the dims' values are not read
  if (a == nullptr || in.block == 0 || call->args.size() != 2 || !BlockableRank(rank) ||
      a->pad_width.size() != 2 * rank) {
    return false;
  }
  for (size_t i = 0; i < 4; ++i) {
    if (a->pad_width[i] != 0) return false;  // N and C
  }
  if (in.padded > 0 && a->pad_mode == "constant") {  // the filler's border: a finite value keeps it finite
    std::optional<float> value = ScalarConstant(call->args[1]);
    if (!value || !std::isfinite(*value)) return false;
  }
  std::vector<int64_t> widths;
  for (size_t i = 0; i < a->pad_width.size(); ++i) widths.push_back(a->pad_width[i]);
  widths.push_back(0);
  widths.push_back(0);
  Attrs attrs = WithAttrFields(call->attrs, {{"pad_width", Any(Array<int64_t>(widths))}}, "AlterOpLayout");
  *out = {Call(call->op, {in.expr, Plain(call->args[1])}, attrs), in.block, in.padded};
  return true;
}

bool LayoutRewriter::BiasAdd(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<BiasAddAttrs>();
  const Value& in = ValueOf(call->args[0]);
  const size_t rank = RankOf(call->args[0].get());
  std::optional<int64_t> c = StaticDim(call->args[0], 1);
  std::optional<std::vector<int64_t>> bs = StaticShape(call->args[1]);
  if (a == nullptr || in.block == 0 || !c || !BlockableRank(rank) ||
      !(a->axis == 1 || a->axis == 1 - static_cast<int64_t>(rank)) || !bs || bs->size() != 1 || (*bs)[0] != *c) {
    return false;
  }
  // bias (C,) -> (C, 1, 1) -> (C / c, 1, 1, c): broadcasts against (N, C / c, H, W, c) channel by channel; for a
  // 5-D tensor (C, 1, 1, 1) -> (C / c, 1, 1, 1, c).
  static const Op add = Op::Get("add");
  const bool five = rank == 5;
  Expr bias = Plain(call->args[1]);
  if (in.padded > 0) bias = PadWithZeros(bias, 1, {{0, in.padded - *c}});
  bias = MakeExpandDims(bias, 1, five ? 3 : 2);
  const std::string plain = five ? "CDHW" : "CHW";
  bias = MakeLayoutTransform(bias, plain, plain + std::to_string(in.block) + "c");
  *out = {Call(add, {in.expr, bias}), in.block, in.padded};
  return true;
}

bool LayoutRewriter::Dense(const CallNode* call, Value* out) {
  const auto* a = call->attrs.as<DenseAttrs>();
  if (a == nullptr) return false;
  return PackWeight(call, "NK", a->units.has_value() ? Any(*a->units) : Any(),
                    a->out_dtype.has_value() ? Any(*a->out_dtype) : Any(), out);
}

bool LayoutRewriter::Matmul(const CallNode* call, Value* out) {
  // numpy's matmul by a constant 2-D B (ONNX MatMul and Gemm) is a dense on the last axis: B (K, N) is "KN".
  const auto* a = call->attrs.as<MatmulAttrs>();
  if (a == nullptr || a->transpose_a) return false;
  Any out_dtype = a->out_dtype.has_value() ? Any(*a->out_dtype) : Any();
  if (PackWeight(call, a->transpose_b ? "NK" : "KN", Any(), out_dtype, out)) return true;
  // Not packed (N narrower than a panel over a short K: CaiT's 4 talking heads): nn.dense, whose kernel runs short
  // dot products over W (N, K) instead of packing B on every call as nn.matmul must.
  const Expr& weight = call->args[1];
  std::optional<std::vector<int64_t>> ws = StaticShape(weight);
  if (!weight.as<ConstantNode>() || !ws || ws->size() != 2 || RankOf(call->args[0].get()) < 2 || !IsFloat32(weight) ||
      !IsFloat32(call->args[0])) {
    return false;
  }
  static const Op dense = Op::Get("nn.dense");
  auto attrs = make_object<DenseAttrs>();
  attrs->out_dtype = a->out_dtype;
  Expr w = a->transpose_b ? weight : MakeLayoutTransform(weight, "KN", "NK");
  *out = {Call(dense, {Plain(call->args[0]), w}, Attrs(std::move(attrs))), 0};
  return true;
}

bool LayoutRewriter::PackWeight(const CallNode* call, const std::string& weight_layout, Any units, Any out_dtype,
                                Value* out) {
  static const Op pack = Op::Find("nn.contrib_dense_pack");
  const Expr& weight = call->args[1];
  // x's dims other than K (batch, sequence) may be symbolic: the packing reads the weight's only.
  std::optional<std::vector<int64_t>> ws = StaticShape(weight);
  if (!pack.defined() || pack->attrs_type_index < 0 || !weight.as<ConstantNode>() || !ws || ws->size() != 2 ||
      RankOf(call->args[0].get()) < 2 || !IsFloat32(weight) || !IsFloat32(call->args[0])) {
    return false;
  }
  const size_t n_axis = weight_layout == "NK" ? 0 : 1;
  const int64_t n = (*ws)[n_axis], k = (*ws)[1 - n_axis];
  int64_t nb = 0;
  if (runtime::Function width_of = runtime::Registry::Get("topi.nn.dense_pack_width"); width_of.defined()) {
    nb = width_of(n, k).cast<int64_t>();
  } else {
    nb = BlockSize(n, 16);
  }
  if (nb <= 0) return false;
  // N that no panel width divides (a 50257-word head): W padded with zeros to whole panels, units the true N.
  Expr w = weight;
  if (const int64_t padded = RoundUp(n, nb); padded != n) {
    w = PadWithZeros(weight, 2, {{n_axis, padded - n}});
    units = Any(n);
  }
  std::string layout = "NK" + std::to_string(nb) + "n";
  std::map<std::string, Any> fields{{"weight_layout", Any(runtime::String(layout))}};
  fields["units"] = std::move(units);
  fields["out_dtype"] = std::move(out_dtype);
  *out = {Call(pack, {Plain(call->args[0]), MakeLayoutTransform(w, weight_layout, layout)},
               MakeAttrsByName(pack, fields)),
          0};
  return true;
}

/*!
 * \brief Whether call keeps a padded operand's filler finite (docs/compiler.md, "Padded channels"): the next conv
 * multiplies it by zero weights, which a NaN or an infinity would survive. The filler starts as the padded convs'
 * zeros and meets only zeros (padded constants), scalars and channel-free maps, so an op marked "TKeepsFinite"
 * (op_facts.h) keeps it small; a divide only by a nonzero scalar constant.
 */
bool KeepsFillerFinite(const OpFacts& facts, const CallNode* call) {
  const Op op = runtime::Downcast<Op>(call->op);
  if (facts.KeepsFinite(op)) return true;
  if (op->name != "divide" || call->args.size() != 2) return false;
  std::optional<float> divisor = ScalarConstant(call->args[1]);
  return divisor && *divisor != 0.0f;
}

/*!
 * \brief Whether an operand of shape s, broadcast against a rank-`rank` NCHW-family result, has no channel dim of its
 * own (absent or 1: a spatial map (N, 1, H, W), or (H, W)): with a trailing 1 it broadcasts against the blocked
 * result, each value over a pixel's whole block.
 */
bool ChannelFree(const Array<Any>& s, size_t rank) {
  return s.size() < rank - 1 || DimIs(s[s.size() - (rank - 1)], 1);
}

bool LayoutRewriter::Elementwise(const Expr& old, const CallNode* call, Value* out) {
  Op op = runtime::Downcast<Op>(call->op);
  if (pattern_.get(op, kOpaque) > kBroadcast || facts_.HasAxisSemantics(op)) return false;
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
    if (!KeepsFillerFinite(facts_, call)) return false;
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
