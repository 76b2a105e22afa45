/*!
 * \file sort.cc
 * \brief Scans and sorts: cumsum / cumprod (and dyn.* with a run-time axis), topk (and dyn.topk with a run-time k),
 * argsort, sort and unique.
 *
 * Output dims that depend on values (dyn.topk's k, unique's counts) are SizeVar::Any(); everything static is
 * checked here: axes against the rank, k against a static dim, the index dtype is an integer type.
 */
#include <tvmlite/relay/attrs/sort.h>
#include <tvmlite/relay/type_rel.h>

#include <vector>

namespace tvmlite {
namespace relay {

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(ScanopAttrs, axis, dtype, exclusive, reverse);
  TVMLITE_REFLECT_FIELDS(TopKAttrs, k, axis, ret_type, is_ascend, dtype);
  TVMLITE_REFLECT_FIELDS(ArgsortAttrs, axis, is_ascend, dtype);
  TVMLITE_REFLECT_FIELDS(UniqueAttrs, sorted, axis);
});

namespace {

std::vector<Any> Dims(const Array<Any>& shape) {
  std::vector<Any> out;
  for (size_t i = 0; i < shape.size(); ++i) out.push_back(shape[i]);
  return out;
}

/*! \brief axis normalised into [0, ndim) for a tensor of rank >= 1; IndexError naming the rank otherwise. */
int64_t TensorAxis(int64_t axis, int64_t ndim) {
  TVMLITE_CHECK_KIND(ndim >= 1, ValueError) << "needs a tensor of rank >= 1, got a scalar";
  TVMLITE_CHECK_KIND(axis >= -ndim && axis < ndim, IndexError)
      << "axis " << axis << " is out of range for rank " << ndim << " (valid: [" << -ndim << ", " << ndim - 1 << "])";
  return axis < 0 ? axis + ndim : axis;
}

/*! \brief A run-time scalar input (axis, k): a 0-d or 1-element 1-D integer tensor. */
void CheckScalarInput(const TensorTypeNode* t, const char* what) {
  TVMLITE_CHECK_KIND(
      t->shape.empty() || (t->shape.size() == 1 && (t->shape[0].type_index() != kTVMLiteInt || DimIs(t->shape[0], 1))),
      ValueError)
      << what << " must be a scalar or a 1-element 1-D tensor, got shape " << ShapeToString(t->shape);
  TVMLITE_CHECK_KIND(t->dtype.is_int() || t->dtype.is_uint(), TypeError)
      << what << " must be an integer, got " << t->dtype.str();
}

void CheckIndexDtype(DataType t) {
  TVMLITE_CHECK_KIND((t.is_int() || t.is_uint()) && t.lanes() == 1, TypeError)
      << "the index dtype must be an integer type, got " << t.str();
}

Type TopKResult(const TensorTypeNode* data, const TopKAttrs* a, const Any& k_dim) {
  CheckIndexDtype(a->dtype);
  int64_t axis = TensorAxis(a->axis, static_cast<int64_t>(data->shape.size()));
  std::vector<Any> shape = Dims(data->shape);
  shape[axis] = k_dim;
  Type values = TensorType(Array<Any>(shape), data->dtype);
  Type indices = TensorType(Array<Any>(shape), a->dtype);
  if (a->ret_type == "both") return TupleType({values, indices});
  if (a->ret_type == "values") return values;
  TVMLITE_CHECK_KIND(a->ret_type == "indices", ValueError)
      << "ret_type must be both, values or indices, got '" << a->ret_type << "'";
  return indices;
}

}  // namespace

Type CumulativeRel(const Array<Type>& args, const ScanopAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  DataType dtype = a.dtype.bits() == 0 ? data->dtype : a.dtype;
  if (!a.axis.has_value()) {
    std::vector<Any> dims = Dims(data->shape);
    return TensorType(Array<Any>(std::vector<Any>{DimProduct(dims)}), dtype);
  }
  TensorAxis(*a.axis, static_cast<int64_t>(data->shape.size()));
  return TensorType(data->shape, dtype);
}

Type DynCumulativeRel(const Array<Type>& args, const ScanopAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckScalarInput(TensorArg(args, 1), "axis");
  TVMLITE_CHECK_KIND(!data->shape.empty(), ValueError) << "needs a tensor of rank >= 1, got a scalar";
  return TensorType(data->shape, a.dtype.bits() == 0 ? data->dtype : a.dtype);
}

Type TopKRel(const Array<Type>& args, const TopKAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(a.k >= 0, ValueError) << "k must be >= 0, got " << a.k;
  int64_t axis = TensorAxis(a.axis, static_cast<int64_t>(data->shape.size()));
  std::optional<int64_t> n = data->shape[axis].as<int64_t>();
  TVMLITE_CHECK_KIND(!n.has_value() || a.k <= *n, ValueError)
      << "k = " << a.k << " is larger than axis " << axis << " of shape " << ShapeToString(data->shape);
  return TopKResult(data, &a, Any(a.k));
}

Type DynTopKRel(const Array<Type>& args, const TopKAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckScalarInput(TensorArg(args, 1), "k");
  return TopKResult(data, &a, Any(SizeVar::Any()));
}

Type ArgsortRel(const Array<Type>& args, const ArgsortAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckIndexDtype(a.dtype);
  TensorAxis(a.axis, static_cast<int64_t>(data->shape.size()));
  return TensorType(data->shape, a.dtype);
}

Type SortRel(const Array<Type>& args, const ArgsortAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TensorAxis(a.axis, static_cast<int64_t>(data->shape.size()));
  return TensorType(data->shape, data->dtype);
}

Type UniqueRel(const Array<Type>& args, const UniqueAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  DataType i64 = DataType::Int(64);
  auto vec = [&](Any n) { return TensorType(Array<Any>(std::vector<Any>{n}), i64); };
  Type indices = vec(Any(SizeVar::Any())), counts = vec(Any(SizeVar::Any()));
  if (!a.axis.has_value()) {
    std::vector<Any> dims = Dims(data->shape);
    Type y = TensorType(Array<Any>(std::vector<Any>{Any(SizeVar::Any())}), data->dtype);
    return TupleType({y, indices, vec(DimProduct(dims)), counts});
  }
  int64_t axis = TensorAxis(*a.axis, static_cast<int64_t>(data->shape.size()));
  std::vector<Any> shape = Dims(data->shape);
  Any n = shape[axis];
  shape[axis] = Any(SizeVar::Any());
  return TupleType({TensorType(Array<Any>(shape), data->dtype), indices, vec(n), counts});
}

#define TVMLITE_REGISTER_SCAN_OP(OpName, Desc)                                               \
  TVMLITE_REGISTER_OP(OpName)                                                                \
      .describe(Desc)                                                                        \
      .add_argument("data", "Tensor", "The input.")                                          \
      .add_type_rel("Scan", CumulativeRel)                                                   \
      .set_attr<TOpPattern>("TOpPattern", kOpaque);                                          \
  TVMLITE_REGISTER_OP("dyn." OpName)                                                         \
      .describe(Desc " The axis comes from a run-time scalar tensor.")                       \
      .add_argument("data", "Tensor", "The input.")                                          \
      .add_argument("axis", "Tensor", "Integer scalar axis (negative counts from the end).") \
      .add_type_rel("DynScan", DynCumulativeRel)                                             \
      .set_attr<TOpPattern>("TOpPattern", kOpaque)                                           \
      .set_attr("TAxisSemantics", true)

TVMLITE_REGISTER_SCAN_OP("cumsum", "Cumulative sum along an axis (exclusive: starting from 0; reverse: from the end).");
TVMLITE_REGISTER_SCAN_OP("cumprod",
                         "Cumulative product along an axis (exclusive: starting from 1; reverse: from the end).");

TVMLITE_REGISTER_OP("topk")
    .describe("The k largest (or smallest) elements along an axis, sorted, ties by the lower index.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("TopK", TopKRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("dyn.topk")
    .describe("topk with k from a run-time scalar tensor.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("k", "Tensor", "Integer scalar k.")
    .add_type_rel("DynTopK", DynTopKRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)
    .set_attr("TAxisSemantics", true)
    .set_attr("TShapeDataDependent", runtime::Array<int64_t>({1}));

TVMLITE_REGISTER_OP("argsort")
    .describe("Indices that sort the data along an axis (stable).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Argsort", ArgsortRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("sort")
    .describe("The data sorted along an axis.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Sort", SortRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("unique")
    .describe("Unique elements (or slices along axis): (Y, first indices, inverse indices, counts), int64 indices.")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Unique", UniqueRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
