/*!
 * \file alter_op_layout_rules.cc
 * \brief The ops' "FTVMLiteAlterOpLayout" rules (alter_op_layout.h): each rewrites one op's call into the blocked
 * layouts from its inputs' values, or declines (the call then keeps NCHW, unless it is elementwise). The
 * AlterOpLayout pass (alter_op_layout.cc, whose comment lists the rewrites) asks an op for its rule; it names no op.
 *
 *   nn.conv2d, nn.conv3d                        the blocked convs (NCHWc, depthwise, Winograd, per-shape Winograd)
 *   nn.conv2d_transpose, nn.conv3d_transpose    the weight packed per group for the GEMM
 *   nn.max_pool2d, nn.avg_pool2d, nn.global_*   the same pool on the blocks
 *   concatenate, strided_slice                  on the channel blocks
 *   mean, sum, max, min                         over spatial axes, on the blocks
 *   nn.pad, nn.bias_add                         on the blocks
 *   nn.dense, nn.matmul                         nn.contrib_dense_pack over a packed constant weight
 */
#include <tvmlite/ir/attrs.h>
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/reduce.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/layout.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alter_op_layout.h"
#include "pass_util.h"
#include "rule_args.h"

namespace tvmlite {
namespace relay {
namespace {

using runtime::make_object;
using namespace alter_layout;  // NOLINT(build/namespaces): the helpers this file shares with the pass

/*! \brief A rule: the call's rewrite into *out, or false when it does not apply. */
using Rule = bool (*)(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out);

/*!
 * \brief A 3x3, stride-1 or -2, dilation-1, ungrouped conv as nn.contrib_conv2d_winograd_without_weight_transform on
 * layout_transform(nn.contrib_conv2d_winograd_weight_transform(w), "HWOI", "HWOI{oc}o") (folded at build), when
 * topi.nn.conv2d_winograd_tile gives a tile size for its channels, output plane and stride. weight: the OIHW weight,
 * padded to in_padded / out_padded channels when those are > 0. False: the direct conv.
 */
bool Winograd(const CallNode* call, AlterOpLayoutContextNode* ctx, const Conv2DAttrs* a, const Expr& weight,
              int64_t in_padded, int64_t out_padded, int64_t ic, int64_t oc, Value* out);
Expr WinogradPerShape(const CallNode* call, const Conv2DAttrs* a, const Expr& weight, int64_t in_channels,
                      int64_t out_channels, int64_t oc, Call direct);
bool PackWeight(const CallNode* call, AlterOpLayoutContextNode* ctx, const std::string& weight_layout, Any units,
                Any out_dtype, Value* out);

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

/*! \brief conv{N}d's attrs when the call is a float32 conv in the channel-first layouts the blocked kernels take. */
template <int N>
const ConvAttrs<N>* ChannelFirstFloatConv(const CallNode* call) {
  const auto* a = call->attrs.as<ConvAttrs<N>>();
  if (a == nullptr || a->data_layout != ChannelFirstLayout(N) || a->kernel_layout != ConvKernelLayout(N) ||
      !(a->out_layout.empty() || a->out_layout == ChannelFirstLayout(N)) ||
      (a->out_dtype.has_value() && *a->out_dtype != DataType::Float(32)) || !IsFloat32(call->args[0]) ||
      !IsFloat32(call->args[1])) {
    return nullptr;
  }
  return a;
}

bool Conv2D(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const Conv2DAttrs* a = ChannelFirstFloatConv<2>(call);
  if (a == nullptr) return false;
  const Expr& data = call->args[0];
  const Expr& weight = call->args[1];
  // The blocks and the kernel are chosen from the channels and the weight: N, H and W may be symbolic.
  std::optional<int64_t> channels = StaticDim(data, 1);
  std::optional<std::vector<int64_t>> ws = StaticShape(weight);
  if (RankOf(data.get()) != 4 || !channels || !ws || ws->size() != 4) return false;
  int64_t c = *channels, o = (*ws)[0], groups = a->groups;
  if (c == 0 || o == 0 || groups < 1) return false;
  const Value& in = ctx->ValueOf(data);
  const int64_t producer = in.block;
  // Channels no block of 8 divides (ReXNet's 38, ShuffleNet's 116) are padded to whole blocks of pad_block (docs/
  // compiler.md, "Padded channels"); a narrower block would take the kernels' slow paths.
  const int64_t pad_block = std::min<int64_t>(8, ctx->max_block);
  auto pads = [pad_block](int64_t n) { return n > pad_block && n % pad_block != 0; };
  bool depthwise = groups > 1 && groups == c && o == c;
  if (depthwise) {
    int64_t block = producer > 0 && c % producer == 0 ? producer : BlockSize(c, ctx->max_block), padded = in.padded;
    if (padded > 0) {
      block = producer;
    } else if (block < pad_block && pads(c)) {
      block = pad_block;
      padded = RoundUp(c, pad_block);
    }
    Expr w = ctx->Plain(weight);
    if (padded > 0) w = PadWithZeros(w, 4, {{0, padded - c}});
    std::string kernel_layout = "OIHW1i" + std::to_string(block) + "o";
    static const Op op = Op::Get("nn.contrib_depthwise_conv2d_NCHWc");
    *out = {Call(op, {ctx->Blocked(data, block, padded), MakeLayoutTransform(w, "OIHW", kernel_layout)},
                 BlockedConvAttrs<2>(call->attrs, block, kernel_layout, block, padded, padded)),
            block, padded};
    return true;
  }
  if (c % groups != 0 || o % groups != 0) return false;
  int64_t ic = producer > 0 && (c / groups) % producer == 0 ? producer : BlockSize(c, ctx->max_block);
  // A stem's few channels (3) as one block, not blocks of 1: on AVX2 ResNet's 7x7 stem ran 1.17x faster (0.45 ms),
  // MobileNetV2's 3x3 one 1.3x, against 0.05 ms for the one transform into the block.
  if (groups == 1 && producer <= 0 && c < ctx->max_block && BlockSize(c, ctx->max_block) < c) ic = c;
  int64_t oc = BlockSize(o, ctx->max_block);
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
  Expr w = ctx->Plain(weight);
  if (in_padded > 0 || out_padded > 0) {
    w = PadWithZeros(w, 4, {{0, out_padded > 0 ? out_padded - o : 0}, {1, in_padded > 0 ? in_padded - c : 0}});
  }
  if (Winograd(call, ctx, a, w, in_padded, out_padded, ic, oc, out)) return true;
  int64_t merge = 1;
  const int64_t in_channels = in_padded > 0 ? in_padded : c, out_channels = out_padded > 0 ? out_padded : o;
  if ((in_channels / groups) % ic != 0 || (out_channels / groups) % oc != 0) {
    // Groups narrower than the blocks (ResNeXt's and RegNet's 4 channels): k of them as one group of whole blocks.
    const int64_t block = std::min<int64_t>(8, ctx->max_block);
    merge = GroupsToMerge(c / groups, o / groups, groups, block);
    if (merge == 0) return false;
    ic = oc = block;
    w = MergeGroups(w, *ws, groups, merge);
  }
  std::string kernel_layout = "OIHW" + std::to_string(ic) + "i" + std::to_string(oc) + "o";
  static const Op op = Op::Get("nn.contrib_conv2d_NCHWc");
  Call direct(op, {ctx->Blocked(data, ic, in_padded), MakeLayoutTransform(w, "OIHW", kernel_layout)},
              BlockedConvAttrs<2>(call->attrs, ic, kernel_layout, oc, groups / merge, out_padded));
  *out = {groups == 1 ? WinogradPerShape(call, a, w, in_channels, out_channels, oc, direct) : direct, oc, out_padded};
  return true;
}

bool Conv3D(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const Conv3DAttrs* a = ChannelFirstFloatConv<3>(call);
  if (a == nullptr) return false;
  const Expr& data = call->args[0];
  const Expr& weight = call->args[1];
  std::optional<int64_t> channels = StaticDim(data, 1);  // N, D, H and W may be symbolic
  std::optional<std::vector<int64_t>> ws = StaticShape(weight);
  if (RankOf(data.get()) != 5 || !channels || !ws || ws->size() != 5) return false;
  int64_t c = *channels, o = (*ws)[0], groups = a->groups;
  if (c == 0 || o == 0 || groups < 1) return false;
  int64_t producer = ctx->ValueOf(data).block;
  if (groups > 1 && groups == c && o == c) {  // depthwise
    int64_t block = producer > 0 && c % producer == 0 ? producer : BlockSize(c, ctx->max_block);
    std::string kernel_layout = "OIDHW1i" + std::to_string(block) + "o";
    static const Op op = Op::Get("nn.contrib_depthwise_conv3d_NCDHWc");
    *out = {Call(op, {ctx->Blocked(data, block), MakeLayoutTransform(ctx->Plain(weight), "OIDHW", kernel_layout)},
                 BlockedConvAttrs<3>(call->attrs, block, kernel_layout, block)),
            block};
    return true;
  }
  if (c % groups != 0 || o % groups != 0) return false;
  int64_t ic = producer > 0 && (c / groups) % producer == 0 ? producer : BlockSize(c, ctx->max_block);
  int64_t oc = BlockSize(o, ctx->max_block);
  if ((c / groups) % ic != 0 || (o / groups) % oc != 0) return false;
  std::string kernel_layout = "OIDHW" + std::to_string(ic) + "i" + std::to_string(oc) + "o";
  static const Op op = Op::Get("nn.contrib_conv3d_NCDHWc");
  *out = {Call(op, {ctx->Blocked(data, ic), MakeLayoutTransform(ctx->Plain(weight), "OIDHW", kernel_layout)},
               BlockedConvAttrs<3>(call->attrs, ic, kernel_layout, oc)),
          oc};
  return true;
}

template <int N>
bool ConvTranspose(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
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
  *out = {Call(call->op, {ctx->Plain(data), MakeLayoutTransform(weight, plain, packed)}, attrs), 0};
  return true;
}

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
  Expr u = Call(transform, {weight}, MakeAttrsByName(transform, {{"tile_size", Any(tile)}, {"stride", Any(stride)}}));
  return MakeLayoutTransform(u, "HWOI", "HWOI" + std::to_string(oc) + "o");
}

bool Winograd(const CallNode* call, AlterOpLayoutContextNode* ctx, const Conv2DAttrs* a, const Expr& weight,
              int64_t in_padded, int64_t out_padded, int64_t ic, int64_t oc, Value* out) {
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
  *out = {Call(conv, {ctx->Blocked(call->args[0], ic, in_padded), WinogradWeight(weight, tile, stride, oc)},
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
Expr WinogradPerShape(const CallNode* call, const Conv2DAttrs* a, const Expr& weight, int64_t in_channels,
                      int64_t out_channels, int64_t oc, Call direct) {
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

template <PoolKind K>
bool Pool2D(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  int64_t block = ctx->ValueOf(call->args[0]).block;
  if (block == 0 || RankOf(call->args[0].get()) != 4) return false;
  Attrs attrs = BlockedPoolAttrs<K>(call->attrs, block);
  if (!attrs.defined()) return false;
  *out = {Call(call->op, {ctx->ValueOf(call->args[0]).expr}, attrs), block, ctx->ValueOf(call->args[0]).padded};
  return true;
}

bool GlobalPool(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const auto* a = call->attrs.as<GlobalPoolAttrs>();
  const Value& in = ctx->ValueOf(call->args[0]);
  if (a == nullptr || in.block == 0 || RankOf(call->args[0].get()) != 4 ||
      !(a->layout.empty() || a->layout == "NCHW")) {
    return false;
  }
  Attrs attrs = WithAttrFields(call->attrs, {{"layout", Any(runtime::String(BlockedNCHW(in.block)))}}, "AlterOpLayout");
  *out = {Call(call->op, {in.expr}, attrs), in.block, in.padded};
  return true;
}

bool Concatenate(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const auto* a = call->attrs.as<ConcatenateAttrs>();
  const auto* tuple = call->args[0].as<TupleNode>();
  if (a == nullptr || tuple == nullptr || tuple->fields.empty()) return false;
  const size_t rank = RankOf(tuple->fields[0].get());
  if (!BlockableRank(rank) || !(a->axis == 1 || a->axis == 1 - static_cast<int64_t>(rank))) return false;
  // The smallest block of the blocked inputs (blocks are powers of two, so it divides the others' channels): the
  // inputs in another layout are re-blocked to it, one transform each, and the result stays blocked.
  int64_t block = 0;
  for (const Expr& f : tuple->fields) {
    int64_t b = ctx->ValueOf(f).block;
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
    fields.push_back(ctx->Blocked(f, block));
  }
  auto attrs = make_object<ConcatenateAttrs>();
  attrs->axis = 1;  // the channel-block axis of (N, C / c, H, W, c) and (N, C / c, D, H, W, c)
  *out = {Call(call->op, {Tuple(Array<Expr>(fields))}, Attrs(std::move(attrs))), block};
  return true;
}

bool StridedSlice(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const auto* a = call->attrs.as<StridedSliceAttrs>();
  const Value& in = ctx->ValueOf(call->args[0]);
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

bool SpatialReduce(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const auto* a = call->attrs.as<ReduceAttrs>();
  const Value& in = ctx->ValueOf(call->args[0]);
  const size_t in_rank = RankOf(call->args[0].get());  // the spatial dims' values are not read
  if (a == nullptr || in.block == 0 || !BlockableRank(in_rank) || !a->keepdims || a->exclude || !a->axis.has_value() ||
      a->axis->empty()) {
    return false;
  }
  const int64_t rank = static_cast<int64_t>(in_rank);
  std::vector<int64_t> axes;
  for (int64_t axis : *a->axis) {
    if (axis < 0) axis += rank;
    if (axis < 2 || axis >= rank) return false;  // N and C are not reduced
    axes.push_back(axis);                        // non-negative: the blocked tensor has one more axis at the end
  }
  auto attrs = make_object<ReduceAttrs>();
  attrs->axis = Array<int64_t>(axes);
  attrs->keepdims = true;
  *out = {Call(call->op, {in.expr}, Attrs(std::move(attrs))), in.block, in.padded};
  return true;
}

bool Pad(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  // A pad of the spatial dims only (TensorFlow's "same" padding, exported as an explicit Pad before a conv or pool)
  // pads the blocks: the same widths and a (0, 0) for the block axis.
  const auto* a = call->attrs.as<PadAttrs>();
  const Value& in = ctx->ValueOf(call->args[0]);
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
  *out = {Call(call->op, {in.expr, ctx->Plain(call->args[1])}, attrs), in.block, in.padded};
  return true;
}

bool BiasAdd(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const auto* a = call->attrs.as<BiasAddAttrs>();
  const Value& in = ctx->ValueOf(call->args[0]);
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
  Expr bias = ctx->Plain(call->args[1]);
  if (in.padded > 0) bias = PadWithZeros(bias, 1, {{0, in.padded - *c}});
  bias = MakeExpandDims(bias, 1, five ? 3 : 2);
  const std::string plain = five ? "CDHW" : "CHW";
  bias = MakeLayoutTransform(bias, plain, plain + std::to_string(in.block) + "c");
  *out = {Call(add, {in.expr, bias}), in.block, in.padded};
  return true;
}

bool Dense(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  const auto* a = call->attrs.as<DenseAttrs>();
  if (a == nullptr) return false;
  return PackWeight(call, ctx, "NK", a->units.has_value() ? Any(*a->units) : Any(),
                    a->out_dtype.has_value() ? Any(*a->out_dtype) : Any(), out);
}

bool Matmul(const CallNode* call, AlterOpLayoutContextNode* ctx, Value* out) {
  // numpy's matmul by a constant 2-D B (ONNX MatMul and Gemm) is a dense on the last axis: B (K, N) is "KN".
  const auto* a = call->attrs.as<MatmulAttrs>();
  if (a == nullptr || a->transpose_a) return false;
  Any out_dtype = a->out_dtype.has_value() ? Any(*a->out_dtype) : Any();
  if (PackWeight(call, ctx, a->transpose_b ? "NK" : "KN", Any(), out_dtype, out)) return true;
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
  *out = {Call(dense, {ctx->Plain(call->args[0]), w}, Attrs(std::move(attrs))), 0};
  return true;
}

bool PackWeight(const CallNode* call, AlterOpLayoutContextNode* ctx, const std::string& weight_layout, Any units,
                Any out_dtype, Value* out) {
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
  *out = {Call(pack, {ctx->Plain(call->args[0]), MakeLayoutTransform(w, weight_layout, layout)},
               MakeAttrsByName(pack, fields)),
          0};
  return true;
}
/*!
 * \brief Register rule as op_name's "FTVMLiteAlterOpLayout": (call, context) -> [expr, block, padded], or None when
 * the rule declines.
 */
void SetRule(const std::string& op_name, Rule rule) {
  static constexpr const char* kAttr = "FTVMLiteAlterOpLayout";
  runtime::Function f([op_name, rule](runtime::PackedArgs args, Any* rv) {
    auto [call, context] = RuleArgs<AlterOpLayoutContext>(kAttr, op_name, "AlterOpLayoutContext", args);
    CheckRuleCallOf(kAttr, op_name, call);
    Value out;
    if (rule(call.get(), context.operator->(), &out)) *rv = Array<Any>{out.expr, out.block, out.padded};
  });
  // RegisterOrGet: this file may initialise before the op's own registration (static init order across files).
  ir::OpRegEntry::RegisterOrGet(op_name).set_attr(kAttr, f);
}

void RegisterRules() {
  SetRule("nn.conv2d", Conv2D);
  SetRule("nn.conv3d", Conv3D);
  SetRule("nn.conv2d_transpose", ConvTranspose<2>);
  SetRule("nn.conv3d_transpose", ConvTranspose<3>);
  SetRule("nn.max_pool2d", Pool2D<PoolKind::kMax>);
  SetRule("nn.avg_pool2d", Pool2D<PoolKind::kAvg>);
  SetRule("nn.global_avg_pool", GlobalPool);
  SetRule("nn.global_max_pool", GlobalPool);
  SetRule("concatenate", Concatenate);
  SetRule("strided_slice", StridedSlice);
  for (const char* reduce : {"mean", "sum", "max", "min"}) SetRule(reduce, SpatialReduce);
  SetRule("nn.pad", Pad);
  SetRule("nn.bias_add", BiasAdd);
  SetRule("nn.dense", Dense);
  SetRule("nn.matmul", Matmul);
}

TVMLITE_STATIC_INIT_BLOCK({ RegisterRules(); });

}  // namespace
}  // namespace relay
}  // namespace tvmlite
