/*!
 * \file pooling.cc
 * \brief Windowed pooling nn.{max,avg,lp}_pool{1,2,3}d, nn.max_pool{1,2,3}d_with_argmax, and global pooling
 * nn.global_{avg,max,lp}_pool (any spatial rank).
 *
 * Layout NC... only: data (B, C, *S) -> (B, C, *S_out), S_out from WindowOut (window.h; ceil_mode drops a last
 * window that would start in the end padding, as ONNX and PyTorch do). One relation templated over the pool kind
 * and the spatial rank N. The argmax variant returns (values, int64 indices), the indices flat over each input's
 * (B, C, *S) (storage_order 0: row-major spatial part; 1: column-major, ONNX MaxPool's storage_order).
 * Global pooling reduces every spatial dim to 1.
 *
 * Blocked layouts (the cpu target's, AlterOpLayout): max / avg pool2d and the global pools also take layout
 * "NCHW{c}c", data (B, C / c, H, W, c): pooled over H, W, the block kept: (B, C / c, OH, OW, c).
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/layout.h>
#include <tvmlite/runtime/reflection.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

/*!
 * \brief The block of a blocked "NCHW{c}c" pooling layout (0 for the plain layout, checked by CheckLayout), after
 * checking the data's rank and last dim and that out_layout is "" or the same. Only 2-D pools have one.
 */
int64_t PoolBlock(const std::string& layout, const std::string& out_layout, const TensorTypeNode* data) {
  int64_t block = NCHWBlockOf(layout);
  if (block <= 0) return 0;
  TVMLITE_CHECK_KIND(out_layout.empty() || out_layout == layout, NotImplementedError)
      << "out_layout '" << out_layout << "' must be '' or the layout '" << layout << "'";
  CheckRank(data, 5, "blocked data (batch, channels / block, height, width, block)");
  TVMLITE_CHECK_KIND(DimIs(data->shape[4], block) || data->shape[4].type_index() != kTVMLiteInt, ValueError)
      << "data " << ShapeToString(data->shape) << " must end in its block " << block << " (layout '" << layout << "')";
  return block;
}

template <PoolKind K, int N>
Type PoolRel(const Array<Type>& args, const PoolAttrs<K, N>& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  constexpr bool kBlockable = N == 2 && (K == PoolKind::kMax || K == PoolKind::kAvg);
  int64_t block = kBlockable ? PoolBlock(a.layout, a.out_layout, data) : 0;
  if (block == 0) {
    CheckLayout(a.layout, "layout", ChannelFirstLayout(N));
    CheckLayout(a.out_layout, "out_layout", ChannelFirstLayout(N), true);
    CheckRank(data, N + 2, "data (batch, channels, spatial...)");
  }
  TVMLITE_CHECK_KIND(a.pool_size.size() == static_cast<size_t>(N) || a.pool_size.size() == 1, ValueError)
      << "pool_size needs 1 or " << N << " values, got " << a.pool_size.size();
  std::array<int64_t, N> k = PerDim<N>(a.pool_size, "pool_size", 1, 1);
  Window<N> w = NormalizeWindow<N>(a.strides, a.padding, a.dilation);
  for (int i = 0; i < N; ++i) {
    // A window made only of padding has no value to take: ONNX requires pads smaller than the kernel.
    __int128 extent = static_cast<__int128>(w.dilation[i]) * (k[i] - 1) + 1;
    TVMLITE_CHECK_KIND(w.pad_begin[i] < extent && w.pad_end[i] < extent, ValueError)
        << "padding (" << w.pad_begin[i] << ", " << w.pad_end[i] << ") of spatial dim " << i
        << " must be smaller than the pooling window (" << k[i] << ", dilation " << w.dilation[i] << ")";
  }
  if constexpr (K == PoolKind::kLp) {
    TVMLITE_CHECK_KIND(a.p > 0 && a.p < 1e300, ValueError) << "p = " << a.p << " must be positive and finite";
  }
  if constexpr (K == PoolKind::kAvg || K == PoolKind::kLp) {
    TVMLITE_CHECK_KIND(data->dtype.is_float(), TypeError)
        << "average / lp pooling needs a float input, got " << data->dtype.str();
  }
  if constexpr (K == PoolKind::kMaxArgmax) {
    TVMLITE_CHECK_KIND(a.storage_order == 0 || a.storage_order == 1, ValueError)
        << "storage_order = " << a.storage_order << " must be 0 (row-major) or 1 (column-major)";
  }
  std::vector<Any> out{data->shape[0], data->shape[1]};
  for (int i = 0; i < N; ++i) out.push_back(WindowOut<N>(data->shape[2 + i], Any(k[i]), w, i, a.ceil_mode));
  if (block) out.push_back(data->shape[4]);
  TensorType values(Array<Any>(out), data->dtype);
  if constexpr (K == PoolKind::kMaxArgmax) {
    return TupleType({values, TensorType(Array<Any>(out), DataType::Int(64))});
  } else {
    return values;
  }
}

Type GlobalPoolRel(const Array<Type>& args, const GlobalPoolAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(a.p > 0 && a.p < 1e300, ValueError) << "p = " << a.p << " must be positive and finite";
  if (PoolBlock(a.layout, "", data)) {
    return TensorType({data->shape[0], data->shape[1], Any(int64_t(1)), Any(int64_t(1)), data->shape[4]}, data->dtype);
  }
  TVMLITE_CHECK_KIND(data->ndim() >= 3 && data->ndim() <= 5, ValueError)
      << "data must have rank 3 to 5 (batch, channels, spatial...), got shape " << ShapeToString(data->shape);
  CheckLayout(a.layout, "layout", ChannelFirstLayout(static_cast<int>(data->ndim()) - 2), true);
  std::vector<Any> out{data->shape[0], data->shape[1]};
  for (size_t i = 2; i < data->ndim(); ++i) out.push_back(Any(int64_t(1)));
  return TensorType(Array<Any>(out), data->dtype);
}

template <int N>
Type MaxUnpoolRel(const Array<Type>& args, const MaxUnpoolAttrs<N>& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* indices = TensorArg(args, 1);
  CheckRank(data, N + 2, "data (batch, channels, spatial...)");
  TVMLITE_CHECK_KIND(indices->dtype.is_int() || indices->dtype.code() == kDLUInt, TypeError)
      << "indices must be integers, got " << indices->dtype.str();
  bool same = indices->ndim() == data->ndim();
  for (size_t i = 0; same && i < data->ndim(); ++i) {
    same = DimEqual(data->shape[i], indices->shape[i]) || data->shape[i].type_index() != kTVMLiteInt ||
           indices->shape[i].type_index() != kTVMLiteInt;
  }
  TVMLITE_CHECK_KIND(same, ValueError) << "indices " << ShapeToString(indices->shape) << " must have data's shape "
                                       << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(a.pool_size.size() == static_cast<size_t>(N) || a.pool_size.size() == 1, ValueError)
      << "pool_size needs 1 or " << N << " values, got " << a.pool_size.size();
  std::array<int64_t, N> k = PerDim<N>(a.pool_size, "pool_size", 1, 1);
  Window<N> w = NormalizeWindow<N>(a.strides, a.padding, Array<int64_t>());
  TVMLITE_CHECK_KIND(a.output_size.empty() || a.output_size.size() == static_cast<size_t>(N), ValueError)
      << "output_size needs " << N << " values, got " << a.output_size.size();
  std::vector<Any> out{data->shape[0], data->shape[1]};
  for (int i = 0; i < N; ++i) {
    std::optional<int64_t> x = BoundedDim(data->shape[2 + i], "input dim");
    std::optional<int64_t> inferred;
    if (x) {
      __int128 v = static_cast<__int128>(*x - 1) * w.stride[i] - w.pad_begin[i] - w.pad_end[i] + k[i];
      TVMLITE_CHECK_KIND(v >= 0 && v <= kMaxWindowValue, ValueError)
          << "spatial dim " << i << " of the unpooled output would be out of range (input " << *x << ", stride "
          << w.stride[i] << ", padding (" << w.pad_begin[i] << ", " << w.pad_end[i] << "), kernel " << k[i] << ")";
      inferred = static_cast<int64_t>(v);
    }
    if (a.output_size.empty()) {
      out.push_back(inferred ? Any(*inferred) : Any(SizeVar::Any()));
      continue;
    }
    int64_t size = a.output_size[i];
    TVMLITE_CHECK_KIND(size >= 0 && size <= kMaxWindowValue && (!inferred || size >= *inferred), ValueError)
        << "output_size[" << i << "] = " << size << " is smaller than the unpooled size "
        << (inferred ? std::to_string(*inferred) : "?") << " (or out of range)";
    out.push_back(Any(size));
  }
  return TensorType(Array<Any>(out), data->dtype);
}

template <PoolKind K, int N>
void RegisterPool(const char* base, const char* what) {
  using A = PoolAttrs<K, N>;
  auto def = refl::ObjectDef<A>();
  def.def_ro("pool_size", &A::pool_size)
      .def_ro("strides", &A::strides)
      .def_ro("dilation", &A::dilation)
      .def_ro("padding", &A::padding)
      .def_ro("layout", &A::layout)
      .def_ro("out_layout", &A::out_layout)
      .def_ro("ceil_mode", &A::ceil_mode);
  if constexpr (K == PoolKind::kAvg || K == PoolKind::kLp) def.def_ro("count_include_pad", &A::count_include_pad);
  if constexpr (K == PoolKind::kLp) def.def_ro("p", &A::p);
  if constexpr (K == PoolKind::kMaxArgmax) def.def_ro("storage_order", &A::storage_order);
  std::string name = std::string("nn.") + base + std::to_string(N) + "d";
  if (K == PoolKind::kMaxArgmax) name += "_with_argmax";
  OpRegEntry::RegisterOrGet(name)
      .describe(std::to_string(N) + "-D " + what + " over " + ChannelFirstLayout(N) + " data.")
      .add_argument("data", "Tensor", "The input, (batch, channels, spatial...).")
      .add_type_rel("Pool", PoolRel<K, N>)
      .template set_attr<TOpPattern>("TOpPattern", K == PoolKind::kMaxArgmax ? kOpaque : kOutEWiseFusable);
}

template <int N>
void RegisterPools() {
  RegisterPool<PoolKind::kMax, N>("max_pool", "max pooling");
  RegisterPool<PoolKind::kMaxArgmax, N>("max_pool", "max pooling returning (values, flat argmax indices)");
  RegisterPool<PoolKind::kAvg, N>("avg_pool", "average pooling");
  RegisterPool<PoolKind::kLp, N>("lp_pool", "Lp pooling ((sum |x|^p)^(1/p) over each window)");
  using U = MaxUnpoolAttrs<N>;
  TVMLITE_REFLECT_FIELDS(U, pool_size, strides, padding, output_size);
  OpRegEntry::RegisterOrGet("nn.max_unpool" + std::to_string(N) + "d")
      .describe(std::to_string(N) + "-D max unpooling: scatter data to the flat indices of a zero tensor.")
      .add_argument("data", "Tensor", "The pooled values, (batch, channels, spatial...).")
      .add_argument("indices", "Tensor", "Flat indices (as MaxPool's Indices) of data's shape.")
      .add_type_rel("MaxUnpool", MaxUnpoolRel<N>)
      .template set_attr<TOpPattern>("TOpPattern", kOpaque);
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({
  RegisterPools<1>();
  RegisterPools<2>();
  RegisterPools<3>();
  TVMLITE_REFLECT_FIELDS(GlobalPoolAttrs, layout, p);
});

TVMLITE_REGISTER_OP("nn.global_avg_pool")
    .describe("Mean over every spatial dim of NC... data: (B, C, *S) -> (B, C, 1, ...).")
    .add_argument("data", "Tensor", "The input, (batch, channels, spatial...).")
    .add_type_rel("GlobalPool", GlobalPoolRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.global_max_pool")
    .describe("Max over every spatial dim of NC... data: (B, C, *S) -> (B, C, 1, ...).")
    .add_argument("data", "Tensor", "The input, (batch, channels, spatial...).")
    .add_type_rel("GlobalPool", GlobalPoolRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.global_lp_pool")
    .describe("(sum |x|^p)^(1/p) over every spatial dim of NC... data: (B, C, *S) -> (B, C, 1, ...).")
    .add_argument("data", "Tensor", "The input, (batch, channels, spatial...).")
    .add_type_rel("GlobalPool", GlobalPoolRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

}  // namespace relay
}  // namespace tvmlite
