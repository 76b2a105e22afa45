/*!
 * \file transform.cc
 * \brief Ops that build or combine tensors: concatenate, split, nn.pad (and dyn.nn.pad), full (and dyn.full),
 * arange, trilu, eye_like; the family's attrs reflection and shared helpers (transform_util.h).
 *
 * concatenate takes a Tuple: every field has the rank and dtype of the first, non-axis dims agree (a symbolic dim
 * meets a static one as the static one), the axis dim is the sum. split returns a Tuple of pieces. Padding widths
 * may be negative (a crop), but no result dim may be.
 */
#include "transform_util.h"

#include <algorithm>
#include <limits>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

// ------------------------------------------------------------------------------------------------ helpers

int64_t CheckedMul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  TVMLITE_CHECK_KIND(a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &r), ValueError)
      << what << " overflows (" << a << " * " << b << ")";
  return r;
}

Any MulDim(const Any& d, int64_t f) {
  if (f == 1) return d;
  if (!IsStatic(d)) return UnknownDim();
  return Any(CheckedMul(StaticValue(d), f, "a dim"));
}

Any AddDim(const Any& d, int64_t a, const char* what) {
  if (a == 0) return d;
  if (!IsStatic(d)) return UnknownDim();
  int64_t r;
  TVMLITE_CHECK_KIND(!__builtin_add_overflow(StaticValue(d), a, &r) && r >= 0, ValueError)
      << what << ": dim " << StaticValue(d) << " + " << a << " is negative or overflows";
  return Any(r);
}

int64_t StaticLengthArg(const Array<Type>& args, size_t i, const char* what) {
  const TensorTypeNode* t = TensorArg(args, i);
  TVMLITE_CHECK_KIND(IsIntegerDtype(t->dtype), TypeError)
      << what << " must be an integer tensor, got " << t->dtype.str();
  TVMLITE_CHECK_KIND(t->ndim() == 1, ValueError) << what << " must be 1-D, got shape " << ShapeToString(t->shape);
  std::optional<int64_t> n = t->static_dim(0);
  TVMLITE_CHECK_KIND(n.has_value(), ValueError)
      << what << " must have a static length (it fixes the result's rank), got " << ShapeToString(t->shape);
  TVMLITE_CHECK_KIND(*n <= kMaxRank, ValueError) << what << " has " << *n << " entries, more than the maximum "
                                                 << "rank " << kMaxRank;
  return *n;
}

const TensorTypeNode* ScalarArg(const Array<Type>& args, size_t i, const char* what, bool allow_vec1) {
  const TensorTypeNode* t = TensorArg(args, i);
  bool ok = t->ndim() == 0 || (allow_vec1 && t->ndim() == 1 && DimIs(t->shape[0], 1));
  TVMLITE_CHECK_KIND(ok, ValueError) << what << " must be a scalar, got shape " << ShapeToString(t->shape);
  return t;
}

Array<Any> UnknownShape(int64_t n) {
  std::vector<Any> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(UnknownDim());
  return Array<Any>(out);
}

std::vector<int64_t> NormalizeAxes(const Array<int64_t>& axes, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  std::vector<bool> seen(ndim, false);
  for (int64_t ax : axes) {
    TVMLITE_CHECK_KIND(ax >= -ndim && ax < ndim, IndexError)
        << op << ": axis " << ax << " is out of range for rank " << ndim << " (valid: [" << -ndim << ", " << ndim - 1
        << "])";
    int64_t a = ax < 0 ? ax + ndim : ax;
    TVMLITE_CHECK_KIND(!seen[a], ValueError) << op << ": axis " << a << " is repeated";
    seen[a] = true;
    out.push_back(a);
  }
  return out;
}

// ------------------------------------------------------------------------------------- concatenate, split

Type ConcatenateRel(const Array<Type>& args, const ConcatenateAttrs& a) {
  const auto* tuple = args[0].as<TupleTypeNode>();
  TVMLITE_CHECK_KIND(tuple != nullptr, TypeError)
      << "concatenate: the input must be a tuple of tensors, got " << TypeToString(args[0]);
  TVMLITE_CHECK_KIND(!tuple->fields.empty(), ValueError) << "concatenate: the tuple is empty";
  std::vector<const TensorTypeNode*> ts;
  for (size_t i = 0; i < tuple->fields.size(); ++i) {
    const auto* t = tuple->fields[i].as<TensorTypeNode>();
    TVMLITE_CHECK_KIND(t != nullptr, TypeError)
        << "concatenate: field " << i << " must be a tensor, got " << TypeToString(tuple->fields[i]);
    ts.push_back(t);
  }
  int64_t ndim = static_cast<int64_t>(ts[0]->ndim());
  TVMLITE_CHECK_KIND(ndim >= 1, ValueError) << "concatenate: scalars cannot be concatenated";
  int64_t axis = NormalizeAxis(a.axis, ndim);
  std::vector<Any> out = Dims(ts[0]->shape);
  int64_t total = 0;
  bool total_known = true;
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorTypeNode* t = ts[i];
    TVMLITE_CHECK_KIND(t->dtype == ts[0]->dtype, TypeError)
        << "concatenate: field " << i << " is " << t->dtype.str() << ", field 0 is " << ts[0]->dtype.str();
    TVMLITE_CHECK_KIND(static_cast<int64_t>(t->ndim()) == ndim, ValueError)
        << "concatenate: field " << i << " " << ShapeToString(t->shape) << " and field 0 "
        << ShapeToString(ts[0]->shape) << " differ in rank";
    for (int64_t d = 0; d < ndim; ++d) {
      const Any& dim = t->shape[d];
      if (d == axis) {
        if (IsStatic(dim) && total_known) {
          total_known = !__builtin_add_overflow(total, StaticValue(dim), &total);
        } else {
          total_known = false;
        }
        continue;
      }
      if (IsStatic(dim) && IsStatic(out[d])) {
        TVMLITE_CHECK_KIND(StaticValue(dim) == StaticValue(out[d]), ValueError)
            << "concatenate: field " << i << " " << ShapeToString(t->shape) << " and field 0 "
            << ShapeToString(ts[0]->shape) << " differ on dim " << d << " (concatenating on axis " << axis << ")";
      } else if (IsStatic(dim)) {
        out[d] = dim;  // a symbolic dim meets a static one: the static one
      }
    }
  }
  out[axis] = total_known ? Any(total) : UnknownDim();
  return TensorType(Array<Any>(out), ts[0]->dtype);
}

Type SplitRel(const Array<Type>& args, const SplitAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->ndim());
  TVMLITE_CHECK_KIND(ndim >= 1, ValueError) << "split: the input must have rank >= 1, got a scalar";
  int64_t axis = NormalizeAxis(a.axis, ndim);
  const Any& d = data->shape[axis];
  std::vector<Any> dims;
  if (a.sections > 0 || a.indices.empty()) {
    int64_t sections = a.sections > 0 ? a.sections : 1;
    TVMLITE_CHECK_KIND(sections <= (int64_t(1) << 16), ValueError)
        << "split: " << sections << " sections (at most 65536)";
    TVMLITE_CHECK_KIND(a.indices.empty(), ValueError) << "split: give sections or indices, not both";
    Any piece = UnknownDim();
    if (IsStatic(d)) {
      TVMLITE_CHECK_KIND(StaticValue(d) % sections == 0, ValueError)
          << "split: dim " << axis << " of " << ShapeToString(data->shape) << " does not split into " << sections
          << " equal sections";
      piece = Any(StaticValue(d) / sections);
    }
    dims.assign(sections, piece);
  } else {
    TVMLITE_CHECK_KIND(a.indices.size() < (size_t(1) << 16), ValueError) << "split: too many indices";
    int64_t prev = 0;
    for (size_t i = 0; i <= a.indices.size(); ++i) {
      if (!IsStatic(d)) {
        dims.push_back(UnknownDim());
        continue;
      }
      int64_t n = StaticValue(d);
      int64_t cur = i < a.indices.size() ? std::min(std::max<int64_t>(a.indices[i], 0), n) : n;
      dims.push_back(Any(std::max<int64_t>(cur - prev, 0)));  // numpy: piece i is [point i-1, point i)
      prev = cur;
    }
  }
  std::vector<Type> fields;
  for (const Any& piece : dims) {
    std::vector<Any> shape = Dims(data->shape);
    shape[axis] = piece;
    fields.push_back(TensorType(Array<Any>(shape), data->dtype));
  }
  return TupleType(Array<Type>(fields));
}

// ------------------------------------------------------------------------------------------------------ pad

void CheckPadMode(const std::string& mode, const char* op) {
  TVMLITE_CHECK_KIND(mode == "constant" || mode == "reflect" || mode == "edge" || mode == "wrap", ValueError)
      << op << ": pad_mode '" << mode << "' (expected constant, reflect, edge or wrap)";
}

Type PadRel(const Array<Type>& args, const PadAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* value = ScalarArg(args, 1, "nn.pad: pad_value");
  CheckPadMode(a.pad_mode, "nn.pad");
  TVMLITE_CHECK_KIND(value->dtype == data->dtype, TypeError)
      << "nn.pad: pad_value is " << value->dtype.str() << ", data is " << data->dtype.str();
  size_t ndim = data->ndim();
  TVMLITE_CHECK_KIND(a.pad_width.size() == 2 * ndim, ValueError)
      << "nn.pad: pad_width has " << a.pad_width.size() << " values, expected 2 per axis of "
      << ShapeToString(data->shape);
  std::vector<Any> out;
  for (size_t i = 0; i < ndim; ++i) {
    int64_t before = a.pad_width[2 * i], after = a.pad_width[2 * i + 1], sum;
    TVMLITE_CHECK_KIND(!__builtin_add_overflow(before, after, &sum), ValueError) << "nn.pad: pad_width overflows";
    out.push_back(AddDim(data->shape[i], sum, "nn.pad"));
  }
  return TensorType(Array<Any>(out), data->dtype);
}

Type DynPadRel(const Array<Type>& args, const PadAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t npads = StaticLengthArg(args, 1, "dyn.nn.pad: pads");
  const TensorTypeNode* value = ScalarArg(args, 2, "dyn.nn.pad: pad_value");
  int64_t naxes = StaticLengthArg(args, 3, "dyn.nn.pad: axes");
  CheckPadMode(a.pad_mode, "dyn.nn.pad");
  TVMLITE_CHECK_KIND(value->dtype == data->dtype, TypeError)
      << "dyn.nn.pad: pad_value is " << value->dtype.str() << ", data is " << data->dtype.str();
  TVMLITE_CHECK_KIND(npads == 2 * naxes && naxes <= static_cast<int64_t>(data->ndim()), ValueError)
      << "dyn.nn.pad: " << npads << " pads for " << naxes << " axes of " << ShapeToString(data->shape)
      << " (expected 2 per axis)";
  return TensorType(UnknownShape(static_cast<int64_t>(data->ndim())), data->dtype);
}

// ------------------------------------------------------------------------------ full, arange, trilu, eye_like

template <bool kDyn>
Type FullRel(const Array<Type>& args, const FullAttrs& a) {
  const TensorTypeNode* fill = ScalarArg(args, 0, kDyn ? "dyn.full: fill_value" : "full: fill_value");
  DataType dtype = IsVoidDtype(a.dtype) ? fill->dtype : a.dtype;
  if (kDyn) return TensorType(UnknownShape(StaticLengthArg(args, 1, "dyn.full: shape")), dtype);
  TVMLITE_CHECK_KIND(static_cast<int64_t>(a.shape.size()) <= kMaxRank, ValueError)
      << "full: shape has " << a.shape.size() << " dims, more than the maximum rank " << kMaxRank;
  std::vector<Any> shape;
  for (int64_t d : a.shape) {
    TVMLITE_CHECK_KIND(d >= 0, ValueError) << "full: shape has a negative dim " << d;
    shape.push_back(Any(d));
  }
  return TensorType(Array<Any>(shape), dtype);
}

Type ArangeRel(const Array<Type>& args, const FullAttrs& a) {
  // A 1-element tensor is taken as its element, as the kernel and the reference do (onnx's expanded AffineGrid
  // node tests give Range a Slice of a shape).
  const TensorTypeNode* start = ScalarArg(args, 0, "arange: start", true);
  const TensorTypeNode* stop = ScalarArg(args, 1, "arange: stop", true);
  const TensorTypeNode* step = ScalarArg(args, 2, "arange: step", true);
  TVMLITE_CHECK_KIND(start->dtype == stop->dtype && start->dtype == step->dtype, TypeError)
      << "arange: start, stop and step differ in dtype (" << start->dtype.str() << ", " << stop->dtype.str() << ", "
      << step->dtype.str() << ")";
  DataType dtype = IsVoidDtype(a.dtype) ? start->dtype : a.dtype;
  return TensorType(Array<Any>({UnknownDim()}), dtype);
}

Type TriluRel(const Array<Type>& args, const TriluAttrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* k = ScalarArg(args, 1, "trilu: k", true);
  TVMLITE_CHECK_KIND(IsIntegerDtype(k->dtype), TypeError) << "trilu: k must be an integer, got " << k->dtype.str();
  TVMLITE_CHECK_KIND(data->ndim() >= 2, ValueError)
      << "trilu: the input must have rank >= 2, got " << ShapeToString(data->shape);
  return args[0];
}

Type EyeLikeRel(const Array<Type>& args, const EyeLikeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(data->ndim() == 2, ValueError)
      << "eye_like: the input must be 2-D, got " << ShapeToString(data->shape);
  return TensorType(data->shape, IsVoidDtype(a.dtype) ? data->dtype : a.dtype);
}

// ------------------------------------------------------------------------------------------- registrations

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(ReshapeAttrs, newshape, allowzero);
  TVMLITE_REFLECT_FIELDS(TransposeAttrs, axes);
  TVMLITE_REFLECT_FIELDS(ConcatenateAttrs, axis);
  TVMLITE_REFLECT_FIELDS(SplitAttrs, sections, indices, axis);
  TVMLITE_REFLECT_FIELDS(StridedSliceAttrs, begin, end, strides, axes, slice_mode);
  TVMLITE_REFLECT_FIELDS(TakeAttrs, batch_dims, axis, mode);
  TVMLITE_REFLECT_FIELDS(GatherAttrs, axis);
  TVMLITE_REFLECT_FIELDS(GatherNDAttrs, batch_dims);
  TVMLITE_REFLECT_FIELDS(ScatterElementsAttrs, axis, reduction);
  TVMLITE_REFLECT_FIELDS(ScatterNDAttrs, mode);
  TVMLITE_REFLECT_FIELDS(BroadcastToAttrs, shape);
  TVMLITE_REFLECT_FIELDS(TileAttrs, reps);
  TVMLITE_REFLECT_FIELDS(PadAttrs, pad_width, pad_mode);
  TVMLITE_REFLECT_FIELDS(SqueezeAttrs, axis);
  TVMLITE_REFLECT_FIELDS(ExpandDimsAttrs, axis, num_newaxis);
  TVMLITE_REFLECT_FIELDS(SubPixelAttrs, block_size, layout, mode);
  TVMLITE_REFLECT_FIELDS(DtypeAttrs, dtype);
  TVMLITE_REFLECT_FIELDS(FullAttrs, dtype, shape);
  TVMLITE_REFLECT_FIELDS(TriluAttrs, upper);
  TVMLITE_REFLECT_FIELDS(EyeLikeAttrs, k, dtype);
  TVMLITE_REFLECT_FIELDS(OneHotAttrs, depth, axis, dtype);
  TVMLITE_REFLECT_FIELDS(ReverseSequenceAttrs, seq_axis, batch_axis);
});

TVMLITE_REGISTER_OP("concatenate")
    .describe("Join a tuple of tensors along axis.")
    .add_argument("data", "Tuple", "The tensors.")
    .add_type_rel("Concatenate", ConcatenateRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("split")
    .describe("Split along axis into equal sections or at indices; returns a tuple.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Split", SplitRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("nn.pad")
    .describe("Pad (or, with negative widths, crop) each axis: constant, reflect, edge or wrap.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("pad_value", "Tensor", "The scalar used by constant mode.")
    .add_type_rel("Pad", PadRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("dyn.nn.pad")
    .describe("nn.pad with pads ([begins..., ends...], ONNX order) and axes held by 1-D integer tensors.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("pads", "Tensor", "Begins then ends, one per listed axis.")
    .add_argument("pad_value", "Tensor", "The scalar used by constant mode.")
    .add_argument("axes", "Tensor", "The padded axes.")
    .add_type_rel("DynPad", DynPadRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)  // its kernel makes its own output: a group alone
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({1, 3}));

TVMLITE_REGISTER_OP("full")
    .describe("A tensor of shape filled with fill_value.")
    .add_argument("fill_value", "Tensor", "The scalar value.")
    .add_type_rel("Full", FullRel<false>)
    .set_attr<TOpPattern>("TOpPattern", kElemWise)
    .set_attr("TAxisSemantics", true);

TVMLITE_REGISTER_OP("dyn.full")
    .describe("A tensor of the shape held by a 1-D integer tensor, filled with fill_value.")
    .add_argument("fill_value", "Tensor", "The scalar value.")
    .add_argument("shape", "Tensor", "The shape (1-D, static length).")
    .add_type_rel("DynFull", FullRel<true>)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)  // its kernel makes its own output: a group alone
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({1}));

TVMLITE_REGISTER_OP("arange")
    .describe("start, start + step, ... below stop (above it for a negative step); ONNX Range.")
    .add_argument("start", "Tensor", "Scalar start.")
    .add_argument("stop", "Tensor", "Scalar stop (exclusive).")
    .add_argument("step", "Tensor", "Scalar step.")
    .add_type_rel("Arange", ArangeRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("trilu")
    .describe("Keep the upper (or lower) triangle of the last two dims, diagonal shifted by k.")
    .add_argument("data", "Tensor", "The input (rank >= 2).")
    .add_argument("k", "Tensor", "Integer diagonal offset (scalar).")
    .add_type_rel("Trilu", TriluRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("eye_like")
    .describe("Ones on diagonal k of a 2-D tensor shaped as the input, zeros elsewhere.")
    .add_argument("data", "Tensor", "The 2-D input (its shape is used).")
    .add_type_rel("EyeLike", EyeLikeRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective)
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({0}));

}  // namespace relay
}  // namespace tvmlite
