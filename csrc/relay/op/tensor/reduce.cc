/*!
 * \file reduce.cc
 * \brief Reductions: sum, mean, max, min, prod, logsumexp, log_sum, l1_norm, l2_norm, sum_square (data dtype),
 * argmax / argmin (int64 indices), their dyn.* variants with the axes as a run-time tensor, and det.
 *
 * Axis rules (one place, ReducedAxes): axes are normalised against the rank (IndexError naming it), may not repeat,
 * and `exclude` takes the complement. None means every axis; an empty list means none, so the op applies only its
 * elementwise part (ONNX's noop_with_empty_axes). keepdims keeps reduced axes as 1s.
 */
#include <tvmlite/relay/attrs/reduce.h>
#include <tvmlite/relay/type_rel.h>

#include <vector>

namespace tvmlite {
namespace relay {

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(ReduceAttrs, axis, keepdims, exclude);
  TVMLITE_REFLECT_FIELDS(ArgReduceAttrs, axis, keepdims, exclude, select_last_index);
  TVMLITE_REFLECT_FIELDS(DynReduceAttrs, keepdims, noop_with_empty_axes);
});

namespace {

/*! \brief Which of ndim axes are reduced. */
std::vector<bool> ReducedAxes(const Optional<Array<int64_t>>& axis, bool exclude, int64_t ndim) {
  std::vector<bool> reduced(static_cast<size_t>(ndim), !axis.has_value());
  if (!axis.has_value()) return reduced;
  std::vector<bool> listed(static_cast<size_t>(ndim), false);
  for (size_t i = 0; i < axis->size(); ++i) {
    int64_t ax = (*axis)[i];
    TVMLITE_CHECK_KIND(ax >= -ndim && ax < ndim, IndexError)
        << "axis " << ax << " is out of range for rank " << ndim
        << (ndim ? " (valid: [" + std::to_string(-ndim) + ", " + std::to_string(ndim - 1) + "])" : "");
    int64_t a = ax < 0 ? ax + ndim : ax;
    TVMLITE_CHECK_KIND(!listed[a], ValueError) << "axis " << ax << " is listed twice";
    listed[a] = true;
  }
  for (int64_t i = 0; i < ndim; ++i) reduced[i] = listed[i] != exclude;
  return reduced;
}

Array<Any> ReducedShape(const Array<Any>& shape, const std::vector<bool>& reduced, bool keepdims) {
  std::vector<Any> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!reduced[i]) {
      out.push_back(shape[i]);
    } else if (keepdims) {
      out.push_back(Any(int64_t(1)));
    }
  }
  return Array<Any>(out);
}

}  // namespace

Type ReduceRel(const Array<Type>& args, const ReduceAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->shape.size());
  return TensorType(ReducedShape(data->shape, ReducedAxes(a.axis, a.exclude, ndim), a.keepdims), data->dtype);
}

Type ArgReduceRel(const Array<Type>& args, const ArgReduceAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  int64_t ndim = static_cast<int64_t>(data->shape.size());
  std::vector<bool> reduced = ReducedAxes(a.axis, a.exclude, ndim);
  for (size_t i = 0; i < reduced.size(); ++i) {
    TVMLITE_CHECK_KIND(!reduced[i] || !DimIs(data->shape[i], 0), ValueError)
        << "cannot take the arg-extreme over axis " << i << " of size 0 (shape " << ShapeToString(data->shape) << ")";
  }
  return TensorType(ReducedShape(data->shape, reduced, a.keepdims), DataType::Int(64));
}

Type DynReduceRel(const Array<Type>& args, const DynReduceAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* axes = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(axes->shape.size() == 1, ValueError)
      << "axes must be a 1-D tensor, got shape " << ShapeToString(axes->shape);
  TVMLITE_CHECK_KIND(axes->dtype.is_int(), TypeError) << "axes must be integers, got " << axes->dtype.str();
  int64_t ndim = static_cast<int64_t>(data->shape.size());
  std::vector<Any> out;
  if (a.keepdims) {
    // Which dims are reduced is known at run time only: a dim of 1 stays 1, others are unknown.
    for (const Any& d : data->shape) out.push_back(DimIs(d, 1) ? d : Any(SizeVar::Any()));
    return TensorType(Array<Any>(out), data->dtype);
  }
  std::optional<int64_t> k = axes->shape[0].as<int64_t>();
  TVMLITE_CHECK_KIND(k.has_value(), ValueError)
      << "without keepdims the axes tensor needs a static length (the output rank depends on it), got shape "
      << ShapeToString(axes->shape);
  TVMLITE_CHECK_KIND(*k <= ndim, ValueError) << *k << " axes for a tensor of rank " << ndim;
  int64_t rank = *k == 0 ? (a.noop_with_empty_axes ? ndim : 0) : ndim - *k;
  for (int64_t i = 0; i < rank; ++i) out.push_back(Any(SizeVar::Any()));
  return TensorType(Array<Any>(out), data->dtype);
}

Type DetRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  size_t n = data->shape.size();
  TVMLITE_CHECK_KIND(n >= 2, ValueError) << "det needs (..., M, M), got shape " << ShapeToString(data->shape);
  const Any& r = data->shape[n - 2];
  const Any& c = data->shape[n - 1];
  TVMLITE_CHECK_KIND(!(r.type_index() == kTVMLiteInt && c.type_index() == kTVMLiteInt) || DimEqual(r, c), ValueError)
      << "det needs square matrices, got shape " << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(data->dtype.is_floating_point(), TypeError)
      << "det needs a float tensor, got " << data->dtype.str();
  std::vector<Any> out;
  for (size_t i = 0; i + 2 < n; ++i) out.push_back(data->shape[i]);
  return TensorType(Array<Any>(out), data->dtype);
}

#define TVMLITE_REGISTER_REDUCE_OP(OpName, Desc)                                          \
  TVMLITE_REGISTER_OP(OpName)                                                             \
      .describe(Desc)                                                                     \
      .add_argument("data", "Tensor", "The input.")                                       \
      .add_type_rel("Reduce", ReduceRel)                                                  \
      .set_attr<TOpPattern>("TOpPattern", kCommReduce);                                   \
  TVMLITE_REGISTER_OP("dyn." OpName)                                                      \
      .describe(Desc " Axes from a run-time tensor.")                                     \
      .add_argument("data", "Tensor", "The input.")                                       \
      .add_argument("axes", "Tensor", "1-D integer axes (negative counts from the end).") \
      .add_type_rel("DynReduce", DynReduceRel)                                            \
      .set_attr<TOpPattern>("TOpPattern", kOpaque)                                        \
      .set_attr("TAxisSemantics", true)

TVMLITE_REGISTER_REDUCE_OP("sum", "Sum over axes (0 over an empty set).");
TVMLITE_REGISTER_REDUCE_OP("mean", "Mean over axes (NaN over an empty set).");
TVMLITE_REGISTER_REDUCE_OP("max", "Maximum over axes (the dtype's lowest value, -inf for floats, over an empty set).");
TVMLITE_REGISTER_REDUCE_OP("min", "Minimum over axes (the dtype's highest value, inf for floats, over an empty set).");
TVMLITE_REGISTER_REDUCE_OP("prod", "Product over axes (1 over an empty set).");
TVMLITE_REGISTER_REDUCE_OP("logsumexp", "log(sum(exp(x))) over axes, computed stably (-inf over an empty set).");
TVMLITE_REGISTER_REDUCE_OP("log_sum", "log(sum(x)) over axes (-inf over an empty set).");
TVMLITE_REGISTER_REDUCE_OP("l1_norm", "sum(|x|) over axes.");
TVMLITE_REGISTER_REDUCE_OP("l2_norm", "sqrt(sum(x * x)) over axes.");
TVMLITE_REGISTER_REDUCE_OP("sum_square", "sum(x * x) over axes.");

#define TVMLITE_REGISTER_ARG_REDUCE_OP(OpName, Desc) \
  TVMLITE_REGISTER_OP(OpName)                        \
      .describe(Desc)                                \
      .add_argument("data", "Tensor", "The input.")  \
      .add_type_rel("ArgReduce", ArgReduceRel)       \
      .set_attr<TOpPattern>("TOpPattern", kCommReduce)

TVMLITE_REGISTER_ARG_REDUCE_OP("argmax", "int64 index of the maximum over axes (row-major over several axes).");
TVMLITE_REGISTER_ARG_REDUCE_OP("argmin", "int64 index of the minimum over axes (row-major over several axes).");

TVMLITE_REGISTER_OP("det")
    .describe("Determinant of each square matrix in the last two dims.")
    .add_argument("data", "Tensor", "(..., M, M) floats.")
    .add_type_rel("Det", DetRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
