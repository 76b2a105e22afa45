/*!
 * \file dense.cc
 * \brief Matrix products: nn.dense, nn.matmul (numpy matmul) and nn.batch_matmul.
 *
 *   nn.dense         data (..., K), weight (units, K)                    -> (..., units)
 *   nn.matmul        a (..., M, K), b (..., K, N), batch dims broadcast  -> (..., M, N); a 1-D a is (K,) and its M
 *                    dim is dropped from the result, a 1-D b is (K,) and its N dim is dropped (numpy.matmul)
 *   nn.batch_matmul  x (B, M, K), y (B, N, K) (transpose_b, TVM's default) -> (B, M, N); B broadcasts from 1
 * transpose_a / transpose_b swap an operand's last two dims before the product. The reduction dims must agree
 * (a symbolic one is checked at run time); out_dtype, when set, is the result's dtype and lets the inputs' dtypes
 * differ (integer products accumulate in it).
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/runtime/reflection.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

DataType ProductDtype(const TensorTypeNode* a, const TensorTypeNode* b, const Optional<DataType>& out_dtype) {
  TVMLITE_CHECK_KIND(a->dtype == b->dtype || out_dtype.has_value(), TypeError)
      << "operand dtypes differ (" << a->dtype.str() << " vs " << b->dtype.str() << "); set out_dtype to mix them";
  return OutDtype(out_dtype, a->dtype);
}

/*! \brief ValueError naming both shapes unless the reduction dims agree (or one is symbolic). */
void CheckReduceDim(const Any& ka, const Any& kb, const TensorTypeNode* a, const TensorTypeNode* b) {
  bool both_static = ka.type_index() == kTVMLiteInt && kb.type_index() == kTVMLiteInt;
  TVMLITE_CHECK_KIND(!both_static || DimEqual(ka, kb), ValueError)
      << "reduction dims disagree: " << ShapeToString(a->shape) << " (K = " << DimToString(ka) << ") and "
      << ShapeToString(b->shape) << " (K = " << DimToString(kb) << ")";
}

/*! \brief The static one of two dims that must be equal. */
Any Unify(const Any& a, const Any& b) { return a.type_index() == kTVMLiteInt ? a : b; }

Type DenseRel(const Array<Type>& args, const DenseAttrs& attr) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(data->ndim() >= 1, ValueError) << "data must have rank >= 1, got a scalar";
  CheckRank(weight, 2, "weight (units, in_features)");
  DataType dtype = ProductDtype(data, weight, attr.out_dtype);
  CheckReduceDim(data->shape[data->ndim() - 1], weight->shape[1], data, weight);
  Any units = weight->shape[0];
  if (attr.units.has_value()) {
    std::optional<int64_t> u = units.as<int64_t>();
    TVMLITE_CHECK_KIND(*attr.units >= 0 && (!u || *u == *attr.units), ValueError)
        << "units = " << *attr.units << " disagrees with weight shape " << ShapeToString(weight->shape);
    units = Any(*attr.units);
  }
  std::vector<Any> out = ToVector(data->shape);
  out.back() = units;
  return TensorType(Array<Any>(out), dtype);
}

/*! \brief numpy.matmul's result shape, with optional transposes of the last two dims of each operand. */
Array<Any> MatmulShape(const TensorTypeNode* a, const TensorTypeNode* b, bool ta, bool tb, bool broadcast_batch) {
  std::vector<Any> sa = ToVector(a->shape), sb = ToVector(b->shape);
  if (ta && sa.size() >= 2) std::swap(sa[sa.size() - 1], sa[sa.size() - 2]);
  if (tb && sb.size() >= 2) std::swap(sb[sb.size() - 1], sb[sb.size() - 2]);
  bool vec_a = sa.size() == 1, vec_b = sb.size() == 1;
  if (vec_a) sa.insert(sa.begin(), Any(int64_t(1)));
  if (vec_b) sb.push_back(Any(int64_t(1)));
  CheckReduceDim(sa.back(), sb[sb.size() - 2], a, b);
  Array<Any> batch_a(std::vector<Any>(sa.begin(), sa.end() - 2)), batch_b(std::vector<Any>(sb.begin(), sb.end() - 2));
  std::vector<Any> out;
  if (broadcast_batch) {
    Array<Any> batch = BroadcastShapes(batch_a, batch_b);
    out = ToVector(batch);
  }
  if (!vec_a) out.push_back(sa[sa.size() - 2]);
  if (!vec_b) out.push_back(sb.back());
  return Array<Any>(out);
}

Type MatmulRel(const Array<Type>& args, const MatmulAttrs& attr) {
  const TensorTypeNode* a = TensorArg(args, 0);
  const TensorTypeNode* b = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(a->ndim() >= 1 && b->ndim() >= 1, ValueError)
      << "matmul operands must have rank >= 1, got " << ShapeToString(a->shape) << " and " << ShapeToString(b->shape);
  DataType dtype = ProductDtype(a, b, attr.out_dtype);
  return TensorType(MatmulShape(a, b, attr.transpose_a, attr.transpose_b, true), dtype);
}

Type BatchMatmulRel(const Array<Type>& args, const BatchMatmulAttrs& attr) {
  const TensorTypeNode* x = TensorArg(args, 0);
  const TensorTypeNode* y = TensorArg(args, 1);
  CheckRank(x, 3, "x (batch, M, K)");
  CheckRank(y, 3, "y (batch, N, K)");
  DataType dtype = ProductDtype(x, y, attr.out_dtype);
  const Any &bx = x->shape[0], &by = y->shape[0];
  TVMLITE_CHECK_KIND(DimIs(bx, 1) || DimIs(by, 1) || DimEqual(bx, by) || bx.type_index() != kTVMLiteInt ||
                         by.type_index() != kTVMLiteInt,
                     ValueError)
      << "batch dims disagree: " << ShapeToString(x->shape) << " and " << ShapeToString(y->shape);
  Any batch = DimIs(bx, 1) ? by : DimIs(by, 1) ? bx : Unify(bx, by);
  Array<Any> mn = MatmulShape(x, y, attr.transpose_a, attr.transpose_b, false);
  return TensorType(Array<Any>({batch, mn[0], mn[1]}), dtype);
}

/*!
 * \brief nn.matmul_integer(a, b, a_zero_point, b_zero_point) (ONNX MatMulInteger): numpy.matmul of
 * (a - a_zero_point) and (b - b_zero_point) in int32. a_zero_point: a scalar or one per row of a (M);
 * b_zero_point: a scalar or one per column of b (N). Zero points have their operand's dtype.
 */
Type MatmulIntegerRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* a = TensorArg(args, 0);
  const TensorTypeNode* b = TensorArg(args, 1);
  const TensorTypeNode* za = TensorArg(args, 2);
  const TensorTypeNode* zb = TensorArg(args, 3);
  for (const TensorTypeNode* t : {a, b}) {
    TVMLITE_CHECK_KIND(t->dtype.is_int() || t->dtype.code() == kDLUInt, TypeError)
        << "integer matmul needs integer operands, got " << t->dtype.str();
  }
  TVMLITE_CHECK_KIND(za->dtype == a->dtype && zb->dtype == b->dtype, TypeError)
      << "zero points must have their operand's dtype: a " << a->dtype.str() << " / " << za->dtype.str() << ", b "
      << b->dtype.str() << " / " << zb->dtype.str();
  TVMLITE_CHECK_KIND(a->ndim() >= 1 && b->ndim() >= 1, ValueError)
      << "matmul operands must have rank >= 1, got " << ShapeToString(a->shape) << " and " << ShapeToString(b->shape);
  auto check_zp = [](const TensorTypeNode* zp, const TensorTypeNode* x, int64_t axis, const char* name) {
    TVMLITE_CHECK_KIND(zp->ndim() <= 1, ValueError)
        << name << " must be a scalar or 1-D, got shape " << ShapeToString(zp->shape);
    if (zp->ndim() == 0 || DimIs(zp->shape[0], 1)) return;
    bool ok = axis >= 0 && (DimEqual(zp->shape[0], x->shape[axis]) || zp->shape[0].type_index() != kTVMLiteInt ||
                            x->shape[axis].type_index() != kTVMLiteInt);
    TVMLITE_CHECK_KIND(ok, ValueError) << name << " " << ShapeToString(zp->shape) << " does not match operand "
                                       << ShapeToString(x->shape);
  };
  check_zp(za, a, static_cast<int64_t>(a->ndim()) - 2, "a_zero_point");
  check_zp(zb, b, b->ndim() >= 2 ? static_cast<int64_t>(b->ndim()) - 1 : -1, "b_zero_point");
  return TensorType(MatmulShape(a, b, false, false, true), DataType::Int(32));
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(DenseAttrs, units, out_dtype);
  TVMLITE_REFLECT_FIELDS(MatmulAttrs, out_dtype, transpose_a, transpose_b);
  TVMLITE_REFLECT_FIELDS(BatchMatmulAttrs, out_dtype, transpose_a, transpose_b);
});

/*! \brief nn.dense's "FTVMLiteScaleAxis" (FoldScaleAxis): its units are the result's last axis, the weight's axis 0. */
runtime::Any DenseScaleAxis(const Call&) { return Array<int64_t>{-1, 0}; }

TVMLITE_REGISTER_OP("nn.dense")
    .describe("Fully connected layer: data (..., K) times weight (units, K) transposed -> (..., units).")
    .add_argument("data", "Tensor", "The input, (..., in_features).")
    .add_argument("weight", "Tensor", "The weights, (units, in_features).")
    .add_type_rel("Dense", DenseRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable)
    .set_attr("FTVMLiteScaleAxis", runtime::Function::FromTyped(DenseScaleAxis, "FTVMLiteScaleAxis of nn.dense"));

TVMLITE_REGISTER_OP("nn.matmul")
    .describe(
        "numpy.matmul: batch dims broadcast, 1-D operands are vectors; optional transposes of the last two "
        "dims.")
    .add_argument("tensor_a", "Tensor", "The left operand, (..., M, K) or (K,).")
    .add_argument("tensor_b", "Tensor", "The right operand, (..., K, N) or (K,).")
    .add_type_rel("Matmul", MatmulRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("nn.batch_matmul")
    .describe("Batched matrix product of rank-3 tensors: x (B, M, K), y (B, N, K) -> (B, M, N) (transpose_b).")
    .add_argument("x", "Tensor", "The left operand, (batch, M, K).")
    .add_argument("y", "Tensor", "The right operand, (batch, N, K), or (batch, K, N) without transpose_b.")
    .add_type_rel("BatchMatmul", BatchMatmulRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

}  // namespace relay
}  // namespace tvmlite

namespace tvmlite {
namespace relay {
TVMLITE_REGISTER_OP("nn.matmul_integer")
    .describe("ONNX MatMulInteger: numpy.matmul of (a - a_zero_point) and (b - b_zero_point), int32 result.")
    .add_argument("a", "Tensor", "The left operand (int8 / uint8).")
    .add_argument("b", "Tensor", "The right operand (int8 / uint8).")
    .add_argument("a_zero_point", "Tensor", "Scalar or per-row zero point of a.")
    .add_argument("b_zero_point", "Tensor", "Scalar or per-column zero point of b.")
    .add_type_rel("MatmulInteger", MatmulIntegerRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);
}  // namespace relay
}  // namespace tvmlite
