/*!
 * \file index.cc
 * \brief Ops that choose elements by position: strided_slice (and dyn.strided_slice), take (ONNX Gather), gather
 * (GatherElements), gather_nd, scatter_elements, scatter_nd, argwhere, one_hot (and dyn.one_hot),
 * reverse_sequence, where.
 *
 * Slicing follows python/numpy (and ONNX Slice): a negative bound counts from the end, then bounds are clamped to
 * [0, n] for a positive step and [-1, n-1] for a negative one; the length is ceil((end - begin) / step), at
 * least 0. With a symbolic dim only the full slice [0:big:1] keeps the dim; other slices of it are "?".
 * gather_nd and scatter_nd use ONNX's index layout: the last dim of indices is the index tuple.
 */
#include <tvmlite/topi/slice_range.h>

#include "transform_util.h"

#include <algorithm>
#include <limits>

namespace tvmlite {
namespace relay {

// -------------------------------------------------------------------------------------------- strided_slice

/*! \brief slice_like's axes, normalised against data's rank and each within like's. */
std::vector<int64_t> SliceLikeAxes(const TensorTypeNode* data, const TensorTypeNode* like, const Array<int64_t>& axes) {
  const int64_t nd = static_cast<int64_t>(data->ndim()), nl = static_cast<int64_t>(like->ndim());
  std::vector<int64_t> out;
  if (axes.empty()) {
    TVMLITE_CHECK_KIND(nl <= nd, ValueError) << "slice_like: shape_like " << ShapeToString(like->shape)
                                             << " has more dims than data " << ShapeToString(data->shape);
    for (int64_t i = 0; i < nl; ++i) out.push_back(i);
    return out;
  }
  out = NormalizeAxes(axes, nd, "slice_like");
  for (int64_t a : out) {
    TVMLITE_CHECK_KIND(a < nl, ValueError)
        << "slice_like: axis " << a << " is out of range for shape_like " << ShapeToString(like->shape);
  }
  return out;
}

Type SliceLikeRel(const Array<Type>& args, const SliceLikeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* like = TensorArg(args, 1);
  std::vector<Any> out = Dims(data->shape);
  for (int64_t axis : SliceLikeAxes(data, like, a.axes)) {
    const Any &d = data->shape[axis], &l = like->shape[axis];
    TVMLITE_CHECK_KIND(!IsStatic(d) || !IsStatic(l) || StaticValue(l) <= StaticValue(d), ValueError)
        << "slice_like: shape_like " << ShapeToString(like->shape) << " exceeds data " << ShapeToString(data->shape)
        << " on axis " << axis;
    out[axis] = l;
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type StridedSliceRel(const Array<Type>& args, const StridedSliceAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->ndim());
  size_t n = a.begin.size();
  TVMLITE_CHECK_KIND(a.end.size() == n, ValueError)
      << "strided_slice: begin has " << n << " entries, end has " << a.end.size();
  TVMLITE_CHECK_KIND(a.strides.empty() || a.strides.size() == n || a.strides.size() == 1, ValueError)
      << "strided_slice: strides has " << a.strides.size() << " entries for " << n << " sliced axes";
  TVMLITE_CHECK_KIND(a.slice_mode == "end" || a.slice_mode == "size", ValueError)
      << "strided_slice: slice_mode '" << a.slice_mode << "' (expected 'end' or 'size')";
  std::vector<int64_t> axes;
  if (a.axes.has_value()) {
    TVMLITE_CHECK_KIND(a.axes->size() == n, ValueError)
        << "strided_slice: axes has " << a.axes->size() << " entries, begin has " << n;
    axes = NormalizeAxes(*a.axes, ndim, "strided_slice");
  } else {
    TVMLITE_CHECK_KIND(static_cast<int64_t>(n) <= ndim, ValueError)
        << "strided_slice: " << n << " bounds for an input of rank " << ndim << " " << ShapeToString(data->shape);
    for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<Any> out = Dims(data->shape);
  bool size_mode = a.slice_mode == "size";
  for (size_t i = 0; i < n; ++i) {
    int64_t step = a.strides.empty() ? 1 : a.strides[a.strides.size() == 1 ? 0 : i];
    if (size_mode) step = 1;
    TVMLITE_CHECK_KIND(step != 0, ValueError) << "strided_slice: step 0 on axis " << axes[i];
    int64_t begin = a.begin[i], end = a.end[i];
    const Any& d = data->shape[axes[i]];
    if (size_mode) {
      TVMLITE_CHECK_KIND(end >= -1, ValueError) << "strided_slice: size " << end << " on axis " << axes[i];
      if (end == -1) {
        end = std::numeric_limits<int64_t>::max();
      } else if (!IsStatic(d) && begin >= 0) {
        end = begin > std::numeric_limits<int64_t>::max() - end ? std::numeric_limits<int64_t>::max() : begin + end;
      } else if (IsStatic(d)) {
        end = topi::SizeModeEnd(StaticValue(d), begin, end);
      }
    }
    if (IsStatic(d)) {
      out[axes[i]] = Any(topi::SliceIndices(StaticValue(d), begin, end, step).length);
    } else if (!(begin == 0 && step == 1 && end >= std::numeric_limits<int32_t>::max())) {
      out[axes[i]] = UnknownDim();  // the full slice keeps a symbolic dim; others cannot be computed
    }
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type DynStridedSliceRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t n = StaticLengthArg(args, 1, "dyn.strided_slice: begin");
  const char* names[] = {"end", "strides", "axes"};
  for (size_t i = 2; i < 5; ++i) {
    int64_t m = StaticLengthArg(args, i, "dyn.strided_slice: a bound");
    TVMLITE_CHECK_KIND(m == n, ValueError)
        << "dyn.strided_slice: begin has " << n << " entries, " << names[i - 2] << " has " << m;
  }
  return TensorType(UnknownShape(static_cast<int64_t>(data->ndim())), data->dtype);
}

// ----------------------------------------------------------------------------------------- take, gather, nd

const TensorTypeNode* IndicesArg(const Array<Type>& args, size_t i, const char* op) {
  const TensorTypeNode* t = TensorArg(args, i);
  TVMLITE_CHECK_KIND(IsIntegerDtype(t->dtype), TypeError)
      << op << ": indices must be an integer tensor, got " << t->dtype.str();
  return t;
}

Type TakeRel(const Array<Type>& args, const TakeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* idx = IndicesArg(args, 1, "take");
  TVMLITE_CHECK_KIND(a.mode == "fast" || a.mode == "clip" || a.mode == "wrap", ValueError)
      << "take: mode '" << a.mode << "' (expected fast, clip or wrap)";
  int64_t r = static_cast<int64_t>(data->ndim()), q = static_cast<int64_t>(idx->ndim());
  TVMLITE_CHECK_KIND(r >= 1, ValueError) << "take: data must have rank >= 1, got a scalar";
  int64_t axis = NormalizeAxis(a.axis, r);
  int64_t bd = a.batch_dims < 0 ? a.batch_dims + q : a.batch_dims;
  TVMLITE_CHECK_KIND(bd >= 0 && bd <= q && bd <= axis, ValueError)
      << "take: batch_dims " << a.batch_dims << " must be in [0, min(indices rank " << q << ", axis " << axis << ")]";
  for (int64_t i = 0; i < bd; ++i) {
    TVMLITE_CHECK_KIND(!IsStatic(data->shape[i]) || !IsStatic(idx->shape[i]) || DimEqual(data->shape[i], idx->shape[i]),
                       ValueError)
        << "take: batch dim " << i << " differs: data " << ShapeToString(data->shape) << ", indices "
        << ShapeToString(idx->shape);
  }
  TVMLITE_CHECK_KIND(r - 1 + q - bd <= kMaxRank, ValueError) << "take: the result rank exceeds " << kMaxRank;
  std::vector<Any> out = Dims(data->shape, 0, axis);
  Append(&out, Dims(idx->shape, bd));
  Append(&out, Dims(data->shape, axis + 1));
  return TensorType(Array<Any>(out), data->dtype);
}

Type GatherRel(const Array<Type>& args, const GatherAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* idx = IndicesArg(args, 1, "gather");
  TVMLITE_CHECK_KIND(data->ndim() == idx->ndim() && data->ndim() >= 1, ValueError)
      << "gather: indices " << ShapeToString(idx->shape) << " must have the rank of data " << ShapeToString(data->shape)
      << " (>= 1)";
  NormalizeAxis(a.axis, static_cast<int64_t>(data->ndim()));
  return TensorType(idx->shape, data->dtype);
}

Type GatherNDRel(const Array<Type>& args, const GatherNDAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* idx = IndicesArg(args, 1, "gather_nd");
  int64_t r = static_cast<int64_t>(data->ndim()), q = static_cast<int64_t>(idx->ndim());
  TVMLITE_CHECK_KIND(q >= 1, ValueError) << "gather_nd: indices must have rank >= 1, got a scalar";
  std::optional<int64_t> k = idx->static_dim(q - 1);
  TVMLITE_CHECK_KIND(k.has_value(), ValueError)
      << "gather_nd: the last dim of indices " << ShapeToString(idx->shape) << " must be static";
  int64_t b = a.batch_dims;
  TVMLITE_CHECK_KIND(b >= 0 && b < q && b < r, ValueError)
      << "gather_nd: batch_dims " << b << " must be in [0, min(rank(data) " << r << ", rank(indices) " << q << "))";
  TVMLITE_CHECK_KIND(*k >= 0 && *k <= r - b, ValueError)
      << "gather_nd: indices " << ShapeToString(idx->shape) << " address " << *k << " dims of data "
      << ShapeToString(data->shape) << " after " << b << " batch dims";
  std::vector<Any> out = Dims(idx->shape, 0, idx->shape.size() - 1);
  Append(&out, Dims(data->shape, b + *k));
  TVMLITE_CHECK_KIND(static_cast<int64_t>(out.size()) <= kMaxRank, ValueError)
      << "gather_nd: the result rank exceeds " << kMaxRank;
  return TensorType(Array<Any>(out), data->dtype);
}

/*! \brief A scatter's data, indices and updates: updates of data's dtype, the reduction one ONNX names. */
struct ScatterArgs {
  const TensorTypeNode *data, *indices, *updates;
};

ScatterArgs CheckScatterArgs(const Array<Type>& args, const std::string& reduction, const char* op) {
  ScatterArgs s{TensorArg(args, 0), IndicesArg(args, 1, op), TensorArg(args, 2)};
  TVMLITE_CHECK_KIND(
      reduction == "update" || reduction == "add" || reduction == "mul" || reduction == "min" || reduction == "max",
      ValueError)
      << op << ": reduction '" << reduction << "' (expected update, add, mul, min or max)";
  TVMLITE_CHECK_KIND(s.updates->dtype == s.data->dtype, TypeError)
      << op << ": updates are " << s.updates->dtype.str() << ", data is " << s.data->dtype.str();
  return s;
}

Type ScatterElementsRel(const Array<Type>& args, const ScatterElementsAttrs& a) {
  auto [data, idx, upd] = CheckScatterArgs(args, a.reduction, "scatter_elements");
  TVMLITE_CHECK_KIND(idx->ndim() == data->ndim() && upd->ndim() == data->ndim() && data->ndim() >= 1, ValueError)
      << "scatter_elements: data " << ShapeToString(data->shape) << ", indices " << ShapeToString(idx->shape)
      << " and updates " << ShapeToString(upd->shape) << " must have one rank (>= 1)";
  for (size_t i = 0; i < idx->ndim(); ++i) {
    TVMLITE_CHECK_KIND(!IsStatic(idx->shape[i]) || !IsStatic(upd->shape[i]) || DimEqual(idx->shape[i], upd->shape[i]),
                       ValueError)
        << "scatter_elements: indices " << ShapeToString(idx->shape) << " and updates " << ShapeToString(upd->shape)
        << " differ";
  }
  NormalizeAxis(a.axis, static_cast<int64_t>(data->ndim()));
  return args[0];
}

Type ScatterNDRel(const Array<Type>& args, const ScatterNDAttrs& a) {
  auto [data, idx, upd] = CheckScatterArgs(args, a.mode, "scatter_nd");
  int64_t r = static_cast<int64_t>(data->ndim()), q = static_cast<int64_t>(idx->ndim());
  TVMLITE_CHECK_KIND(q >= 1, ValueError) << "scatter_nd: indices must have rank >= 1, got a scalar";
  std::optional<int64_t> k = idx->static_dim(q - 1);
  TVMLITE_CHECK_KIND(k.has_value() && *k <= r, ValueError)
      << "scatter_nd: the last dim of indices " << ShapeToString(idx->shape) << " must be static and <= rank " << r
      << " of data " << ShapeToString(data->shape);
  std::vector<Any> want = Dims(idx->shape, 0, idx->shape.size() - 1);
  Append(&want, Dims(data->shape, *k));
  bool ok = static_cast<int64_t>(upd->ndim()) == static_cast<int64_t>(want.size());
  for (size_t i = 0; ok && i < want.size(); ++i) {
    ok = !IsStatic(want[i]) || !IsStatic(upd->shape[i]) || DimEqual(want[i], upd->shape[i]);
  }
  TVMLITE_CHECK_KIND(ok, ValueError) << "scatter_nd: updates " << ShapeToString(upd->shape) << " must be "
                                     << ShapeToString(Array<Any>(want)) << " (indices.shape[:-1] + data.shape[k:])";
  return args[0];
}

// ------------------------------------------------------------------------- argwhere, one_hot, reverse, where

Type ArgwhereRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  return TensorType(Array<Any>({UnknownDim(), Any(static_cast<int64_t>(data->ndim()))}), DataType::Int(64));
}

template <bool kDyn>
Type OneHotRel(const Array<Type>& args, const OneHotAttrs& a) {
  const char* op = kDyn ? "dyn.one_hot" : "one_hot";
  const TensorTypeNode* idx = TensorArg(args, 0);  // ONNX OneHot casts any number to an index
  TVMLITE_CHECK_KIND(IsIntegerDtype(idx->dtype) || idx->dtype.is_float(), TypeError)
      << op << ": indices must be numbers, got " << idx->dtype.str();
  const TensorTypeNode* on = ScalarArg(args, 1, "on_value");
  const TensorTypeNode* off = ScalarArg(args, 2, "off_value");
  TVMLITE_CHECK_KIND(on->dtype == off->dtype, TypeError)
      << op << ": on_value is " << on->dtype.str() << ", off_value is " << off->dtype.str();
  DataType dtype = IsVoidDtype(a.dtype) ? on->dtype : a.dtype;
  TVMLITE_CHECK_KIND(dtype == on->dtype, TypeError)
      << op << ": dtype " << dtype.str() << " differs from on_value's " << on->dtype.str();
  Any depth;
  if (kDyn) {
    const TensorTypeNode* d = ScalarArg(args, 3, "depth", true);
    TVMLITE_CHECK_KIND(IsIntegerDtype(d->dtype) || d->dtype.is_float(), TypeError)
        << op << ": depth must be a number, got " << d->dtype.str();
    depth = UnknownDim();
  } else {
    TVMLITE_CHECK_KIND(a.depth >= 0, ValueError) << op << ": depth " << a.depth << " must be >= 0";
    depth = Any(a.depth);
  }
  int64_t r = static_cast<int64_t>(idx->ndim());
  TVMLITE_CHECK_KIND(r < kMaxRank, ValueError) << op << ": the result rank exceeds " << kMaxRank;
  TVMLITE_CHECK_KIND(a.axis >= -r - 1 && a.axis <= r, IndexError)
      << op << ": axis " << a.axis << " is out of range for a result of rank " << r + 1;
  int64_t axis = a.axis < 0 ? a.axis + r + 1 : a.axis;
  std::vector<Any> out = Dims(idx->shape);
  out.insert(out.begin() + axis, depth);
  return TensorType(Array<Any>(out), dtype);
}

Type ReverseSequenceRel(const Array<Type>& args, const ReverseSequenceAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* lens = IndicesArg(args, 1, "reverse_sequence");
  int64_t r = static_cast<int64_t>(data->ndim());
  TVMLITE_CHECK_KIND(r >= 2, ValueError) << "reverse_sequence: data must have rank >= 2, got "
                                         << ShapeToString(data->shape);
  int64_t seq = NormalizeAxis(a.seq_axis, r), batch = NormalizeAxis(a.batch_axis, r);
  TVMLITE_CHECK_KIND(seq != batch, ValueError) << "reverse_sequence: seq_axis and batch_axis are both " << seq;
  TVMLITE_CHECK_KIND(lens->ndim() == 1, ValueError)
      << "reverse_sequence: seq_lengths must be 1-D, got " << ShapeToString(lens->shape);
  const Any& nb = data->shape[batch];
  TVMLITE_CHECK_KIND(!IsStatic(nb) || !IsStatic(lens->shape[0]) || DimEqual(nb, lens->shape[0]), ValueError)
      << "reverse_sequence: seq_lengths " << ShapeToString(lens->shape) << " must have the batch size "
      << DimToString(nb) << " of data " << ShapeToString(data->shape);
  return args[0];
}

Type WhereRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* cond = TensorArg(args, 0);
  const TensorTypeNode* x = TensorArg(args, 1);
  const TensorTypeNode* y = TensorArg(args, 2);
  TVMLITE_CHECK_KIND(cond->dtype.is_bool(), TypeError) << "where: condition must be bool, got " << cond->dtype.str();
  DataType dtype = MatchDtype(x, y);
  return TensorType(BroadcastShapes(BroadcastShapes(cond->shape, x->shape), y->shape), dtype);
}

// ------------------------------------------------------------------------------------------- registrations

TVMLITE_REGISTER_OP("strided_slice")
    .describe("data[begin:end:strides] on the listed axes (numpy slicing, bounds clamped).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("StridedSlice", StridedSliceRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("slice_like")
    .describe("data[0:like.shape[a]] on each of axes: the result takes like's dims there (TVM's slice_like).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("shape_like", "Tensor", "A tensor whose dims the result takes on axes (its values are not read).")
    .add_type_rel("SliceLike", SliceLikeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({1}));

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(SliceLikeAttrs, axes); });

TVMLITE_REGISTER_OP("dyn.strided_slice")
    .describe("strided_slice with begin, end, strides and axes held by 1-D integer tensors (ONNX Slice).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("begin", "Tensor", "Start of each sliced axis.")
    .add_argument("end", "Tensor", "End (exclusive) of each sliced axis.")
    .add_argument("strides", "Tensor", "Step of each sliced axis.")
    .add_argument("axes", "Tensor", "The sliced axes.")
    .add_type_rel("DynStridedSlice", DynStridedSliceRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)  // its kernel makes its own output: a group alone
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({1, 2, 3, 4}));

TVMLITE_REGISTER_OP("take")
    .describe("Select slices of data along axis by indices (ONNX Gather).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("indices", "Tensor", "Integer indices.")
    .add_type_rel("Take", TakeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("gather")
    .describe("out[i][j][k] = data[i][indices[i][j][k]][k] on axis 1, and so on (ONNX GatherElements).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("indices", "Tensor", "Integer indices, the rank of data.")
    .add_type_rel("Gather", GatherRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("gather_nd")
    .describe("Gather slices addressed by the index tuples in the last dim of indices (ONNX GatherND).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("indices", "Tensor", "Integer index tuples (..., k).")
    .add_type_rel("GatherND", GatherNDRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("scatter_elements")
    .describe("A copy of data with updates written (or reduced) at per-element indices along axis.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("indices", "Tensor", "Integer indices, the shape of updates.")
    .add_argument("updates", "Tensor", "The values written.")
    .add_type_rel("ScatterElements", ScatterElementsRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("scatter_nd")
    .describe("A copy of data with update slices written (or reduced) at index tuples (ONNX ScatterND).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("indices", "Tensor", "Integer index tuples (..., k).")
    .add_argument("updates", "Tensor", "The slices written.")
    .add_type_rel("ScatterND", ScatterNDRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("argwhere")
    .describe("The indices of the non-zero elements, one row each: (count, rank), int64.")
    .add_argument("condition", "Tensor", "The input.")
    .add_type_rel("Argwhere", ArgwhereRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("one_hot")
    .describe("One-hot encode indices along a new axis of size depth.")
    .add_argument("indices", "Tensor", "Integer indices.")
    .add_argument("on_value", "Tensor", "Scalar written at the index.")
    .add_argument("off_value", "Tensor", "Scalar written elsewhere.")
    .add_type_rel("OneHot", OneHotRel<false>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("dyn.one_hot")
    .describe("one_hot with depth held by a scalar tensor (ONNX OneHot).")
    .add_argument("indices", "Tensor", "Integer indices.")
    .add_argument("on_value", "Tensor", "Scalar written at the index.")
    .add_argument("off_value", "Tensor", "Scalar written elsewhere.")
    .add_argument("depth", "Tensor", "The new axis' size (scalar).")
    .add_type_rel("DynOneHot", OneHotRel<true>)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable)
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({3}));

TVMLITE_REGISTER_OP("reverse_sequence")
    .describe("Reverse the first seq_lengths[b] items along seq_axis for each batch item b.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("seq_lengths", "Tensor", "1-D lengths, one per batch item.")
    .add_type_rel("ReverseSequence", ReverseSequenceRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("where")
    .describe("condition ? x : y elementwise, the three broadcast together.")
    .add_argument("condition", "Tensor", "bool selector.")
    .add_argument("x", "Tensor", "Chosen where condition holds.")
    .add_argument("y", "Tensor", "Chosen elsewhere.")
    .add_type_rel("Where", WhereRel)
    .set_attr<TOpPattern>("TOpPattern", kBroadcast);

}  // namespace relay
}  // namespace tvmlite
