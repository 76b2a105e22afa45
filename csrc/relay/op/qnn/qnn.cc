/*!
 * \file qnn.cc
 * \brief Quantization ops (ONNX semantics): qnn.quantize, qnn.dequantize, qnn.dynamic_quantize,
 * qnn.qlinear_matmul, qnn.qlinear_conv. See tvmlite/relay/attrs/qnn.h for the scale layouts.
 *
 *   quantize(x, scale, zero_point)  -> Tensor[x.shape, out_dtype]   (zero_point () when omitted)
 *   dequantize(x, scale, zero_point) -> Tensor[x.shape, out_dtype]
 *   dynamic_quantize(x) -> (uint8 x.shape, float32 scale, uint8 zero point)
 *   qlinear_matmul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) -> numpy matmul shape, y_zp's dtype
 *   qlinear_conv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias) -> NC<spatial>, y_zp's dtype
 */
#include <tvmlite/relay/attrs/qnn.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>

#include <algorithm>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(QuantizeAttrs, axis, block_size, out_dtype, saturate);
  TVMLITE_REFLECT_FIELDS(DequantizeAttrs, axis, block_size, out_dtype);
  TVMLITE_REFLECT_FIELDS(QLinearConvAttrs, strides, padding, dilation, groups);
});

namespace {

bool Absent(const Type& t) {
  const auto* tt = t.as<TupleTypeNode>();
  return tt != nullptr && tt->fields.empty();
}

bool IsScalarLike(const TensorTypeNode* t) { return t->ndim() == 0 || (t->ndim() == 1 && DimIs(t->shape[0], 1)); }

/*! \brief Check scale (and zero point) against x: per tensor, per axis or blocked. */
void CheckScale(const TensorTypeNode* x, const Array<Type>& args, int64_t axis_attr, int64_t block_size,
                bool quantize) {
  const TensorTypeNode* scale = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(quantize ? scale->dtype.code() == kDLFloat || scale->dtype.code() == kDLBfloat
                              : scale->dtype.code() != kDLOpaqueHandle,
                     TypeError)
      << "the scale must be float, got " << TypeToString(args[1]);
  TVMLITE_CHECK_KIND(block_size >= 0, ValueError) << "block_size must be >= 0, got " << block_size;
  if (block_size > 0) {
    int64_t axis = NormalizeAxis(axis_attr, x->ndim());
    TVMLITE_CHECK_KIND(scale->ndim() == x->ndim(), ValueError)
        << "blocked quantization: the scale must have the input's rank, got " << TypeToString(args[1]);
    for (size_t d = 0; d < x->ndim(); ++d) {
      std::optional<int64_t> xd = x->static_dim(d), sd = scale->static_dim(d);
      if (!xd || !sd) continue;
      int64_t want = static_cast<int64_t>(d) == axis ? *xd / block_size + (*xd % block_size != 0) : *xd;
      TVMLITE_CHECK_KIND(*sd == want, ValueError)
          << "blocked quantization: scale " << TypeToString(args[1]) << " does not fit input "
          << ShapeToString(x->shape) << " with block_size " << block_size << " on axis " << axis;
    }
  } else if (!IsScalarLike(scale)) {
    TVMLITE_CHECK_KIND(scale->ndim() == 1, ValueError)
        << "the scale must be a scalar or 1-D (per axis), got " << TypeToString(args[1]);
    int64_t axis = NormalizeAxis(axis_attr, x->ndim());
    TVMLITE_CHECK_KIND(DimEqual(scale->shape[0], x->shape[axis]) || scale->shape[0].type_index() != kTVMLiteInt ||
                           x->shape[axis].type_index() != kTVMLiteInt,
                       ValueError)
        << "per-axis scale " << TypeToString(args[1]) << " does not match dim " << axis << " of "
        << ShapeToString(x->shape);
  }
  if (!Absent(args[2]) && !(IsScalarLike(TensorArg(args, 2)) && IsScalarLike(scale))) {
    const TensorTypeNode* zp = TensorArg(args, 2);
    TVMLITE_CHECK_KIND(zp->ndim() == scale->ndim(), ValueError)
        << "the zero point " << TypeToString(args[2]) << " and the scale " << TypeToString(args[1])
        << " must have one shape";
    for (size_t d = 0; d < zp->ndim(); ++d) {
      TVMLITE_CHECK_KIND(DimEqual(zp->shape[d], scale->shape[d]) || zp->shape[d].type_index() != kTVMLiteInt ||
                             scale->shape[d].type_index() != kTVMLiteInt,
                         ValueError)
          << "the zero point " << TypeToString(args[2]) << " and the scale " << TypeToString(args[1])
          << " must have one shape";
    }
  }
}

}  // namespace

Type QuantizeRel(const Array<Type>& args, const QuantizeAttrs& a) {
  const TensorTypeNode* x = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(x->dtype.code() == kDLFloat || x->dtype.code() == kDLBfloat || x->dtype == DataType::Int(32),
                     TypeError)
      << "the input must be float or int32, got " << TypeToString(args[0]);
  CheckScale(x, args, a.axis, a.block_size, true);
  if (!Absent(args[2])) {
    const TensorTypeNode* zp = TensorArg(args, 2);
    TVMLITE_CHECK_KIND(zp->dtype == a.out_dtype, TypeError)
        << "the zero point is " << zp->dtype << " but out_dtype is " << a.out_dtype;
  }
  return TensorType(x->shape, a.out_dtype);
}

Type DequantizeRel(const Array<Type>& args, const DequantizeAttrs& a) {
  const TensorTypeNode* x = TensorArg(args, 0);
  CheckScale(x, args, a.axis, a.block_size, false);
  if (!Absent(args[2])) {
    const TensorTypeNode* zp = TensorArg(args, 2);
    TVMLITE_CHECK_KIND(zp->dtype == x->dtype, TypeError)
        << "the zero point is " << zp->dtype << " but the input is " << x->dtype;
  }
  TVMLITE_CHECK_KIND(a.out_dtype.code() == kDLFloat || a.out_dtype.code() == kDLBfloat, TypeError)
      << "out_dtype must be float, got " << a.out_dtype;
  return TensorType(x->shape, a.out_dtype);
}

Type DynamicQuantizeRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* x = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(x->dtype == DataType::Float(32), TypeError)
      << "the input must be float32, got " << TypeToString(args[0]);
  std::vector<int64_t> scalar;
  return TupleType(Array<Type>{TensorType(x->shape, DataType::UInt(8)), TensorType(scalar, DataType::Float(32)),
                               TensorType(scalar, DataType::UInt(8))});
}

namespace {

const TensorTypeNode* QuantParam(const Array<Type>& args, size_t i, const char* what) {
  const TensorTypeNode* t = TensorArg(args, i);
  TVMLITE_CHECK_KIND(t->ndim() <= 1, ValueError) << what << " must be a scalar or 1-D, got " << TypeToString(args[i]);
  return t;
}

const TensorTypeNode* Int8Arg(const Array<Type>& args, size_t i, const char* what) {
  const TensorTypeNode* t = TensorArg(args, i);
  TVMLITE_CHECK_KIND(t->dtype == DataType::Int(8) || t->dtype == DataType::UInt(8), TypeError)
      << what << " must be int8 or uint8, got " << TypeToString(args[i]);
  return t;
}

}  // namespace

Type QLinearMatMulRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* a = Int8Arg(args, 0, "a");
  const TensorTypeNode* b = Int8Arg(args, 3, "b");
  const char* names[] = {"a_scale", "a_zero_point", "b_scale", "b_zero_point", "y_scale", "y_zero_point"};
  size_t idx[] = {1, 2, 4, 5, 6, 7};
  for (int i = 0; i < 6; ++i) QuantParam(args, idx[i], names[i]);
  TVMLITE_CHECK_KIND(TensorArg(args, 2)->dtype == a->dtype && TensorArg(args, 5)->dtype == b->dtype, TypeError)
      << "zero points must have their input's dtype";
  const TensorTypeNode* yzp = Int8Arg(args, 7, "y_zero_point");
  TVMLITE_CHECK_KIND(a->ndim() >= 1 && b->ndim() >= 1, ValueError) << "matmul inputs must be at least 1-D";
  std::vector<Any> sa, sb;
  for (const Any& d : a->shape) sa.push_back(d);
  for (const Any& d : b->shape) sb.push_back(d);
  bool va = sa.size() == 1, vb = sb.size() == 1;
  if (va) sa.insert(sa.begin(), Any(int64_t(1)));
  if (vb) sb.push_back(Any(int64_t(1)));
  const Any& k1 = sa.back();
  const Any& k2 = sb[sb.size() - 2];
  TVMLITE_CHECK_KIND(DimEqual(k1, k2) || k1.type_index() != kTVMLiteInt || k2.type_index() != kTVMLiteInt, ValueError)
      << "matmul of " << ShapeToString(a->shape) << " and " << ShapeToString(b->shape) << ": inner dims differ";
  Array<Any> batch = BroadcastShapes(Array<Any>(std::vector<Any>(sa.begin(), sa.end() - 2)),
                                     Array<Any>(std::vector<Any>(sb.begin(), sb.end() - 2)));
  std::vector<Any> out;
  for (const Any& d : batch) out.push_back(d);
  if (!va) out.push_back(sa[sa.size() - 2]);
  if (!vb) out.push_back(sb.back());
  return TensorType(Array<Any>(out), yzp->dtype);
}

Type QLinearConvRel(const Array<Type>& args, const QLinearConvAttrs& a) {
  const TensorTypeNode* x = Int8Arg(args, 0, "x");
  const TensorTypeNode* w = Int8Arg(args, 3, "w");
  QuantParam(args, 1, "x_scale");
  QuantParam(args, 2, "x_zero_point");
  QuantParam(args, 4, "w_scale");
  QuantParam(args, 5, "w_zero_point");
  QuantParam(args, 6, "y_scale");
  DataType out_dtype = x->dtype;
  if (!Absent(args[7])) out_dtype = Int8Arg(args, 7, "y_zero_point")->dtype;
  TVMLITE_CHECK_KIND(x->ndim() >= 3 && w->ndim() == x->ndim(), ValueError)
      << "x and w must have one rank >= 3, got " << ShapeToString(x->shape) << " and " << ShapeToString(w->shape);
  size_t nsp = x->ndim() - 2;
  TVMLITE_CHECK_KIND(a.strides.size() == nsp && a.dilation.size() == nsp && a.padding.size() == 2 * nsp, ValueError)
      << "strides/dilation need " << nsp << " values and padding " << 2 * nsp;
  TVMLITE_CHECK_KIND(a.groups >= 1, ValueError) << "groups must be >= 1";
  if (!Absent(args[8])) {
    const TensorTypeNode* bias = TensorArg(args, 8);
    TVMLITE_CHECK_KIND(bias->ndim() == 1 && bias->dtype == DataType::Int(32), TypeError)
        << "bias must be 1-D int32, got " << TypeToString(args[8]);
  }
  std::optional<int64_t> cin = x->static_dim(1), wc = w->static_dim(1);
  if (cin && wc) {
    TVMLITE_CHECK_KIND(*wc * a.groups == *cin, ValueError)
        << "input channels " << *cin << " != weight channels " << *wc << " * groups " << a.groups;
  }
  std::vector<Any> out{x->shape[0], w->shape[0]};
  constexpr int64_t kBig = int64_t(1) << 40;  // bounds that keep the arithmetic below far from overflow
  for (size_t i = 0; i < nsp; ++i) {
    std::optional<int64_t> in = x->static_dim(2 + i), k = w->static_dim(2 + i);
    int64_t s = a.strides[i], d = a.dilation[i], pb = a.padding[i], pe = a.padding[nsp + i];
    TVMLITE_CHECK_KIND(s >= 1 && d >= 1 && pb >= 0 && pe >= 0, ValueError)
        << "strides and dilations must be >= 1 and padding >= 0";
    TVMLITE_CHECK_KIND(s < kBig && d < kBig && pb < kBig && pe < kBig, ValueError)
        << "strides, dilations and padding must be < 2^40";
    if (in && k && *in < kBig && *k < kBig && (*k == 0 || d < kBig / std::max<int64_t>(*k, 1))) {
      int64_t eff = (*k - 1) * d + 1;
      TVMLITE_CHECK_KIND(*k >= 1 && *in + pb + pe >= eff, ValueError) << "the kernel is larger than the padded input";
      out.push_back(Any((*in + pb + pe - eff) / s + 1));
    } else {
      out.push_back(Any(SizeVar::Any()));
    }
  }
  return TensorType(Array<Any>(out), out_dtype);
}

TVMLITE_REGISTER_OP("qnn.quantize")
    .describe("ONNX QuantizeLinear: saturate(round(x / scale) + zero_point).")
    .add_argument("data", "Tensor", "x.")
    .add_argument("scale", "Tensor", "y_scale.")
    .add_argument("zero_point", "Tensor", "y_zero_point, or ().")
    .add_type_rel("Quantize", QuantizeRel)
    .set_attr<TOpPattern>("TOpPattern", kElemWise)
    .set_attr("TAxisSemantics", true);

TVMLITE_REGISTER_OP("qnn.dequantize")
    .describe("ONNX DequantizeLinear: (x - zero_point) * scale.")
    .add_argument("data", "Tensor", "x.")
    .add_argument("scale", "Tensor", "x_scale.")
    .add_argument("zero_point", "Tensor", "x_zero_point, or ().")
    .add_type_rel("Dequantize", DequantizeRel)
    .set_attr<TOpPattern>("TOpPattern", kElemWise)
    .set_attr("TAxisSemantics", true);

TVMLITE_REGISTER_OP("qnn.dynamic_quantize")
    .describe("ONNX DynamicQuantizeLinear: uint8 quantization with a scale and zero point from x's range.")
    .add_argument("data", "Tensor", "x (float32).")
    .add_type_rel("DynamicQuantize", DynamicQuantizeRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("qnn.qlinear_matmul")
    .describe("ONNX QLinearMatMul: integer matmul of dequantized operands, requantized.")
    .add_argument("a", "Tensor", "")
    .add_argument("a_scale", "Tensor", "")
    .add_argument("a_zero_point", "Tensor", "")
    .add_argument("b", "Tensor", "")
    .add_argument("b_scale", "Tensor", "")
    .add_argument("b_zero_point", "Tensor", "")
    .add_argument("y_scale", "Tensor", "")
    .add_argument("y_zero_point", "Tensor", "")
    .add_type_rel("QLinearMatMul", QLinearMatMulRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

TVMLITE_REGISTER_OP("qnn.qlinear_conv")
    .describe("ONNX QLinearConv: integer convolution (int32 accumulation), requantized.")
    .add_argument("x", "Tensor", "")
    .add_argument("x_scale", "Tensor", "")
    .add_argument("x_zero_point", "Tensor", "")
    .add_argument("w", "Tensor", "")
    .add_argument("w_scale", "Tensor", "")
    .add_argument("w_zero_point", "Tensor", "")
    .add_argument("y_scale", "Tensor", "")
    .add_argument("y_zero_point", "Tensor", "()")
    .add_argument("bias", "Tensor", "int32, or ().")
    .add_type_rel("QLinearConv", QLinearConvRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

}  // namespace relay
}  // namespace tvmlite
