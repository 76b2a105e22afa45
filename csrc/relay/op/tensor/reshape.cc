/*!
 * \file reshape.cc
 * \brief Ops that rearrange a tensor's shape without choosing elements: reshape (and dyn.reshape), transpose,
 * reshape_like, squeeze / expand_dims (and their dyn forms), broadcast_to_like, nn.batch_flatten, nn.depth_to_space /
 * nn.space_to_depth, broadcast_to / tile (and dyn forms), shape_of, ndarray_size.
 *
 * Symbolic dims: reshape's -1 is inferred by cancelling the input's dims against the output's known ones, so
 * (n, 3, 4) -> (0, -1) is (n, 12); a dim that cannot be computed becomes "?". The dyn.* forms take the target as
 * a 1-D integer tensor whose length must be static (it fixes the rank); their result dims are "?", except those
 * the relation can still prove (a broadcast dim that is static and not 1).
 */
#include "transform_util.h"

#include <algorithm>

namespace tvmlite {
namespace relay {

// ---------------------------------------------------------------------------------------------------- reshape

std::string NewshapeString(const Array<int64_t>& newshape) {
  std::vector<Any> dims;
  for (size_t i = 0; i < newshape.size(); ++i) dims.push_back(Any(newshape[i]));
  return ShapeToString(Array<Any>(dims));
}

/*! \brief reshape's result: newshape with 0 (copy, unless allowzero) and -1 (infer) resolved. */
Array<Any> InferReshape(const Array<Any>& in, const Array<int64_t>& newshape, bool allowzero) {
  TVMLITE_CHECK_KIND(static_cast<int64_t>(newshape.size()) <= kMaxRank, ValueError)
      << "reshape: newshape has " << newshape.size() << " dims, more than the maximum rank " << kMaxRank;
  std::vector<Any> out(newshape.size());
  int64_t infer_at = -1;
  for (size_t i = 0; i < newshape.size(); ++i) {
    int64_t v = newshape[i];
    if (v > 0 || (v == 0 && allowzero)) {
      out[i] = Any(v);
    } else if (v == 0) {
      TVMLITE_CHECK_KIND(i < in.size(), ValueError)
          << "reshape: newshape[" << i << "] is 0 (copy the input dim) but the input " << ShapeToString(in)
          << " has rank " << in.size();
      out[i] = in[i];
    } else if (v == -1) {
      TVMLITE_CHECK_KIND(infer_at < 0, ValueError) << "reshape: newshape has more than one -1";
      infer_at = static_cast<int64_t>(i);
    } else {
      TVMLITE_THROW(ValueError) << "reshape: newshape[" << i << "] is " << v << " (dims are >= -1)";
    }
  }
  // Cancel the output's known dims against the input's: what is left must be static to infer -1 or to check
  // the element counts.
  std::vector<Any> rest_in = Dims(in);
  int64_t in_static = 1, out_static = 1;
  bool out_unknown = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (static_cast<int64_t>(i) == infer_at) continue;
    if (IsStatic(out[i])) {
      out_static = CheckedMul(out_static, StaticValue(out[i]), "reshape: the output size");
      continue;
    }
    auto it = std::find_if(rest_in.begin(), rest_in.end(), [&](const Any& d) { return DimEqual(d, out[i]); });
    if (it != rest_in.end()) {
      rest_in.erase(it);
    } else {
      out_unknown = true;
    }
  }
  bool in_unknown = false;
  std::vector<Any> in_symbolic;
  for (const Any& d : rest_in) {
    if (IsStatic(d)) {
      in_static = CheckedMul(in_static, StaticValue(d), "reshape: the input size");
    } else {
      in_unknown = true;
      in_symbolic.push_back(d);
    }
  }
  if (infer_at >= 0) {
    if (!out_unknown && in_symbolic.size() == 1 && in_static == out_static && out_static != 0) {
      out[infer_at] = in_symbolic[0];  // (n, 3, 4) -> (-1, 12): the -1 is n
    } else if (in_unknown || out_unknown) {
      out[infer_at] = UnknownDim();
    } else {
      TVMLITE_CHECK_KIND(out_static != 0, ValueError)
          << "reshape: cannot infer the -1 dim of " << NewshapeString(newshape) << " when other dims are 0 (input "
          << ShapeToString(in) << ")";
      TVMLITE_CHECK_KIND(in_static % out_static == 0, ValueError)
          << "reshape: cannot reshape " << ShapeToString(in) << " into " << NewshapeString(newshape)
          << " (sizes do not divide)";
      out[infer_at] = Any(in_static / out_static);
    }
  } else if (!in_unknown && !out_unknown) {
    TVMLITE_CHECK_KIND(in_static == out_static, ValueError)
        << "reshape: cannot reshape " << ShapeToString(in) << " (size " << in_static << ") into "
        << ShapeToString(Array<Any>(out)) << " (size " << out_static << ")";
  }
  return Array<Any>(out);
}

Type ReshapeRel(const Array<Type>& args, const ReshapeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  return TensorType(InferReshape(data->shape, a.newshape, a.allowzero), data->dtype);
}

Type DynReshapeRel(const Array<Type>& args, const ReshapeAttrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t n = StaticLengthArg(args, 1, "dyn.reshape: newshape");
  return TensorType(UnknownShape(n), data->dtype);
}

/*! \brief [begin, end) of a rank-n shape as reshape_like reads it (end None: n; negative: from the end). */
std::pair<int64_t, int64_t> ReshapeLikeRange(int64_t begin, const Optional<int64_t>& end, int64_t n, const char* side) {
  int64_t b = begin < 0 ? begin + n : begin, e = end.has_value() ? *end : n;
  if (e < 0) e += n;
  TVMLITE_CHECK_KIND(0 <= b && b <= e && e <= n, ValueError)
      << "reshape_like: " << side << " range [" << begin << ", " << (end.has_value() ? std::to_string(*end) : "None")
      << ") is not within a rank of " << n;
  return {b, e};
}

Type ReshapeLikeRel(const Array<Type>& args, const ReshapeLikeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* like = TensorArg(args, 1);
  auto [lb, le] = ReshapeLikeRange(a.lhs_begin, a.lhs_end, static_cast<int64_t>(data->ndim()), "lhs");
  auto [rb, re] = ReshapeLikeRange(a.rhs_begin, a.rhs_end, static_cast<int64_t>(like->ndim()), "rhs");
  std::vector<Any> in = Dims(data->shape), dims = Dims(like->shape);
  std::vector<Any> out(in.begin(), in.begin() + lb);
  out.insert(out.end(), dims.begin() + rb, dims.begin() + re);
  out.insert(out.end(), in.begin() + le, in.end());
  TVMLITE_CHECK_KIND(static_cast<int64_t>(out.size()) <= kMaxRank, ValueError)
      << "reshape_like: the result rank " << out.size() << " exceeds " << kMaxRank;
  if (data->static_shape() && TensorType(Array<Any>(out), data->dtype)->static_shape()) {
    int64_t n_in = 1, n_out = 1;
    for (const Any& d : data->shape) n_in = CheckedMul(n_in, StaticValue(d), "reshape_like: the input size");
    for (const Any& d : out) n_out = CheckedMul(n_out, StaticValue(d), "reshape_like: the output size");
    TVMLITE_CHECK_KIND(n_in == n_out, ValueError)
        << "reshape_like: cannot reshape " << ShapeToString(data->shape) << " into " << ShapeToString(Array<Any>(out));
  }
  return TensorType(Array<Any>(out), data->dtype);
}

// ------------------------------------------------------------------------------------------------- transpose

Type TransposeRel(const Array<Type>& args, const TransposeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->ndim());
  std::vector<int64_t> perm;
  if (a.axes.empty()) {
    for (int64_t i = ndim - 1; i >= 0; --i) perm.push_back(i);
  } else {
    TVMLITE_CHECK_KIND(static_cast<int64_t>(a.axes.size()) == ndim, ValueError)
        << "transpose: axes has " << a.axes.size() << " entries for an input of rank " << ndim << " "
        << ShapeToString(data->shape);
    perm = NormalizeAxes(a.axes, ndim, "transpose");
  }
  std::vector<Any> out;
  for (int64_t p : perm) out.push_back(data->shape[p]);
  return TensorType(Array<Any>(out), data->dtype);
}

// -------------------------------------------------------------------------------------- squeeze, expand_dims

Type SqueezeRel(const Array<Type>& args, const SqueezeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->ndim());
  std::vector<bool> drop(ndim, false);
  if (!a.axis.has_value()) {
    for (int64_t i = 0; i < ndim; ++i) drop[i] = DimIs(data->shape[i], 1);
  } else {
    for (int64_t ax : NormalizeAxes(*a.axis, ndim, "squeeze")) {
      const Any& d = data->shape[ax];
      TVMLITE_CHECK_KIND(!IsStatic(d) || StaticValue(d) == 1, ValueError)
          << "squeeze: axis " << ax << " of " << ShapeToString(data->shape) << " has size " << DimToString(d)
          << ", not 1";
      drop[ax] = true;
    }
  }
  std::vector<Any> out;
  for (int64_t i = 0; i < ndim; ++i) {
    if (!drop[i]) out.push_back(data->shape[i]);
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type DynSqueezeRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t n = StaticLengthArg(args, 1, "dyn.squeeze: axes");
  int64_t ndim = static_cast<int64_t>(data->ndim());
  TVMLITE_CHECK_KIND(n <= ndim, ValueError)
      << "dyn.squeeze: " << n << " axes for an input of rank " << ndim << " " << ShapeToString(data->shape);
  return TensorType(UnknownShape(ndim - n), data->dtype);
}

Type ExpandDimsRel(const Array<Type>& args, const ExpandDimsAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->ndim());
  TVMLITE_CHECK_KIND(a.num_newaxis >= 0 && a.num_newaxis <= kMaxRank - ndim, ValueError)
      << "expand_dims: num_newaxis " << a.num_newaxis << " must be in [0, " << kMaxRank - ndim
      << "] for an input of rank " << ndim;
  TVMLITE_CHECK_KIND(a.axis >= -ndim - 1 && a.axis <= ndim, IndexError)
      << "expand_dims: axis " << a.axis << " is out of range for rank " << ndim << " (valid: [" << -ndim - 1 << ", "
      << ndim << "])";
  int64_t axis = a.axis < 0 ? a.axis + ndim + 1 : a.axis;
  std::vector<Any> out = Dims(data->shape);
  out.insert(out.begin() + axis, static_cast<size_t>(a.num_newaxis), Any(int64_t(1)));
  return TensorType(Array<Any>(out), data->dtype);
}

Type DynExpandDimsRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t n = StaticLengthArg(args, 1, "dyn.expand_dims: axes");
  int64_t ndim = static_cast<int64_t>(data->ndim());
  TVMLITE_CHECK_KIND(n <= kMaxRank - ndim, ValueError)
      << "dyn.expand_dims: " << n << " new axes on rank " << ndim << " exceed the maximum rank " << kMaxRank;
  return TensorType(UnknownShape(ndim + n), data->dtype);
}

// ---------------------------------------------------------------------------- batch_flatten, depth <-> space

Type BatchFlattenRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(data->ndim() >= 1, ValueError) << "nn.batch_flatten: the input must have rank >= 1, got a scalar";
  std::vector<Any> rest = Dims(data->shape, 1);
  Any prod = DimProduct(rest);
  if (IsStatic(prod)) {
    int64_t p = 1;
    for (const Any& d : rest) p = CheckedMul(p, StaticValue(d), "nn.batch_flatten: the flattened size");
    prod = Any(p);
  }
  return TensorType(Array<Any>({data->shape[0], prod}), data->dtype);
}

/*! \brief depth_to_space (to_space) or space_to_depth on NCHW. */
template <bool kToSpace>
Type SubPixelRel(const Array<Type>& args, const SubPixelAttrs& a) {
  const char* op = kToSpace ? "nn.depth_to_space" : "nn.space_to_depth";
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(a.layout == "NCHW", ValueError) << op << ": layout '" << a.layout << "' (only NCHW)";
  TVMLITE_CHECK_KIND(a.mode == "DCR" || a.mode == "CRD", ValueError)
      << op << ": mode '" << a.mode << "' (expected DCR or CRD)";
  TVMLITE_CHECK_KIND(data->ndim() == 4, ValueError)
      << op << ": the input must be NCHW (rank 4), got " << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(a.block_size >= 1 && a.block_size <= (int64_t(1) << 20), ValueError)
      << op << ": block_size " << a.block_size << " must be in [1, 2^20]";
  int64_t b = a.block_size, bb = b * b;
  const Any &n = data->shape[0], &c = data->shape[1], &h = data->shape[2], &w = data->shape[3];
  auto div = [&](const Any& d, int64_t f, const char* name) -> Any {
    if (f == 1) return d;
    if (!IsStatic(d)) return UnknownDim();
    TVMLITE_CHECK_KIND(StaticValue(d) % f == 0, ValueError)
        << op << ": " << name << " " << StaticValue(d) << " of " << ShapeToString(data->shape)
        << " is not divisible by " << f << " (block_size " << b << ")";
    return Any(StaticValue(d) / f);
  };
  if (kToSpace) {
    return TensorType(Array<Any>({n, div(c, bb, "channels"), MulDim(h, b), MulDim(w, b)}), data->dtype);
  }
  return TensorType(Array<Any>({n, MulDim(c, bb), div(h, b, "height"), div(w, b, "width")}), data->dtype);
}

// ------------------------------------------------------------------------------------- broadcast_to, tile

Type BroadcastToRel(const Array<Type>& args, const BroadcastToAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(static_cast<int64_t>(a.shape.size()) <= kMaxRank, ValueError)
      << "broadcast_to: shape has " << a.shape.size() << " dims, more than the maximum rank " << kMaxRank;
  std::vector<Any> shape;
  for (int64_t d : a.shape) {
    TVMLITE_CHECK_KIND(d >= 0, ValueError) << "broadcast_to: shape has a negative dim " << d;
    shape.push_back(Any(d));
  }
  return TensorType(BroadcastShapes(data->shape, Array<Any>(shape)), data->dtype);
}

Type BroadcastToLikeRel(const Array<Type>& args, const BroadcastToLikeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* like = TensorArg(args, 1);
  if (a.axes.empty()) {
    TVMLITE_CHECK_KIND(a.like_axes.empty(), ValueError) << "broadcast_to_like: like_axes without axes";
    BroadcastShapes(data->shape, like->shape);  // a ValueError naming both when they cannot
    TVMLITE_CHECK_KIND(data->ndim() <= like->ndim(), ValueError)
        << "broadcast_to_like: data " << ShapeToString(data->shape) << " has more dims than shape_like "
        << ShapeToString(like->shape);
    return TensorType(like->shape, data->dtype);
  }
  TVMLITE_CHECK_KIND(a.axes.size() == a.like_axes.size(), ValueError)
      << "broadcast_to_like: " << a.axes.size() << " axes but " << a.like_axes.size() << " like_axes";
  std::vector<int64_t> axes = NormalizeAxes(a.axes, static_cast<int64_t>(data->ndim()), "broadcast_to_like");
  std::vector<int64_t> like_axes = NormalizeAxes(a.like_axes, static_cast<int64_t>(like->ndim()), "broadcast_to_like");
  std::vector<Any> out = Dims(data->shape);
  for (size_t j = 0; j < axes.size(); ++j) {
    const Any &d = data->shape[axes[j]], &l = like->shape[like_axes[j]];
    TVMLITE_CHECK_KIND(!IsStatic(d) || StaticValue(d) == 1 || !IsStatic(l) || DimEqual(d, l), ValueError)
        << "broadcast_to_like: data " << ShapeToString(data->shape) << " does not broadcast to shape_like "
        << ShapeToString(like->shape) << "'s dim " << like_axes[j] << " on axis " << axes[j];
    out[axes[j]] = l;
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type DynBroadcastToRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t n = StaticLengthArg(args, 1, "dyn.broadcast_to: shape");
  int64_t ndim = static_cast<int64_t>(data->ndim());
  int64_t rank = std::max(n, ndim);
  std::vector<Any> out(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t j = i - (rank - ndim);  // the aligned input dim
    // A static input dim other than 1 is the result (the target dim must be 1 or equal to it).
    bool keep = j >= 0 && IsStatic(data->shape[j]) && StaticValue(data->shape[j]) != 1;
    out[i] = keep ? data->shape[j] : UnknownDim();
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type TileRel(const Array<Type>& args, const TileAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->ndim()), nreps = static_cast<int64_t>(a.reps.size());
  int64_t rank = std::max(ndim, nreps);
  TVMLITE_CHECK_KIND(rank <= kMaxRank, ValueError) << "tile: reps has " << nreps << " entries, more than the "
                                                   << "maximum rank " << kMaxRank;
  std::vector<Any> out(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t j = i - (rank - ndim), k = i - (rank - nreps);
    Any d = j >= 0 ? data->shape[j] : Any(int64_t(1));
    int64_t r = k >= 0 ? a.reps[k] : 1;
    TVMLITE_CHECK_KIND(r >= 0, ValueError) << "tile: reps[" << k << "] is " << r << " (must be >= 0)";
    out[i] = r == 0 ? Any(int64_t(0)) : MulDim(d, r);
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type DynTileRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t n = StaticLengthArg(args, 1, "dyn.tile: reps");
  return TensorType(UnknownShape(std::max<int64_t>(n, static_cast<int64_t>(data->ndim()))), data->dtype);
}

// -------------------------------------------------------------------------------------- shape_of, ndarray_size

template <bool kSize>
Type ShapeOfRel(const Array<Type>& args, const DtypeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(IsIntegerDtype(a.dtype) && a.dtype.lanes() == 1, TypeError)
      << (kSize ? "ndarray_size" : "shape_of") << ": dtype must be an integer type, got " << a.dtype.str();
  if (kSize) return TensorType(Array<Any>(), a.dtype);
  return TensorType(Array<Any>({Any(static_cast<int64_t>(data->ndim()))}), a.dtype);
}

// ------------------------------------------------------------------------------------------- registrations

TVMLITE_REGISTER_OP("reshape")
    .describe("Reshape to newshape (0 copies an input dim unless allowzero, -1 infers one dim).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Reshape", ReshapeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TIsView", true);

TVMLITE_REGISTER_OP("reshape_like")
    .describe("data's dims [lhs_begin, lhs_end) replaced by shape_like's [rhs_begin, rhs_end) (TVM's reshape_like).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("shape_like", "Tensor", "A tensor whose dims the result takes (its values are not read).")
    .add_type_rel("ReshapeLike", ReshapeLikeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({1}))
    .set_attr("TIsView", true);

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(ReshapeLikeAttrs, lhs_begin, lhs_end, rhs_begin, rhs_end); });

TVMLITE_REGISTER_OP("broadcast_to_like")
    .describe("data broadcast to shape_like's shape, or to its dims like_axes on axes (TVM's, with axes).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("shape_like", "Tensor", "A tensor whose dims the result takes (its values are not read).")
    .add_type_rel("BroadcastToLike", BroadcastToLikeRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)  // its kernel takes no epilogue: a group alone
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({1}));

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(BroadcastToLikeAttrs, axes, like_axes); });

TVMLITE_REGISTER_OP("dyn.reshape")
    .describe("Reshape to the shape held by a 1-D integer tensor (ONNX 0/-1 rules, allowzero).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("newshape", "Tensor", "The target shape (1-D, static length).")
    .add_type_rel("DynReshape", DynReshapeRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)  // its kernel makes its own output: a group alone
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({1}));

TVMLITE_REGISTER_OP("transpose")
    .describe("Permute the axes (reverse them when axes is empty).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Transpose", TransposeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("squeeze")
    .describe("Remove dims of size 1 (the listed axes, or every static 1 when axis is None).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Squeeze", SqueezeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TIsView", true);

TVMLITE_REGISTER_OP("dyn.squeeze")
    .describe("Remove the size-1 dims listed by a 1-D integer tensor.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("axes", "Tensor", "The axes (1-D, static length).")
    .add_type_rel("DynSqueeze", DynSqueezeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TAxisSemantics", true);

TVMLITE_REGISTER_OP("expand_dims")
    .describe("Insert num_newaxis dims of size 1 at axis.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("ExpandDims", ExpandDimsRel)
    .set_attr<TOpPattern>("TOpPattern", kBroadcast)
    .set_attr("TAxisSemantics", true)
    .set_attr("TIsView", true);

TVMLITE_REGISTER_OP("dyn.expand_dims")
    .describe("Insert size-1 dims at the output positions listed by a 1-D integer tensor (ONNX Unsqueeze).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("axes", "Tensor", "The output positions (1-D, static length).")
    .add_type_rel("DynExpandDims", DynExpandDimsRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TAxisSemantics", true);

TVMLITE_REGISTER_OP("nn.batch_flatten")
    .describe("Flatten every dim after the first: (d0, d1 * ... * dn).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("BatchFlatten", BatchFlattenRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TIsView", true);

TVMLITE_REGISTER_OP("nn.depth_to_space")
    .describe("Move channel blocks into block_size x block_size spatial blocks (NCHW; DCR or CRD order).")
    .add_argument("data", "Tensor", "The input (NCHW).")
    .add_type_rel("DepthToSpace", SubPixelRel<true>)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("nn.space_to_depth")
    .describe("Move block_size x block_size spatial blocks into channels (NCHW; DCR or CRD order).")
    .add_argument("data", "Tensor", "The input (NCHW).")
    .add_type_rel("SpaceToDepth", SubPixelRel<false>)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("broadcast_to")
    .describe("Broadcast data with shape (numpy rules, both ways: ONNX Expand).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("BroadcastTo", BroadcastToRel)
    .set_attr<TOpPattern>("TOpPattern", kBroadcast)
    .set_attr("TAxisSemantics", true)
    .set_attr("TBroadcastsFirstInput", true);

TVMLITE_REGISTER_OP("dyn.broadcast_to")
    .describe("Broadcast data with the shape held by a 1-D integer tensor (numpy rules, both ways).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("shape", "Tensor", "The shape (1-D, static length).")
    .add_type_rel("DynBroadcastTo", DynBroadcastToRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)  // its kernel makes its own output: a group alone
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({1}));

TVMLITE_REGISTER_OP("tile")
    .describe("Repeat the input reps[i] times along axis i (numpy.tile).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Tile", TileRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("dyn.tile")
    .describe("numpy.tile with reps held by a 1-D integer tensor.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("reps", "Tensor", "The repetitions (1-D, static length).")
    .add_type_rel("DynTile", DynTileRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)  // its kernel makes its own output: a group alone
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({1}));

TVMLITE_REGISTER_OP("shape_of")
    .describe("The input's shape as a 1-D tensor of dtype.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("ShapeOf", ShapeOfRel<false>)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({0}));

TVMLITE_REGISTER_OP("ndarray_size")
    .describe("The input's element count as a scalar of dtype.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("NdarraySize", ShapeOfRel<true>)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({0}));

}  // namespace relay
}  // namespace tvmlite
