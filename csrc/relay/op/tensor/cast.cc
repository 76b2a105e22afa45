/*!
 * \file cast.cc
 * \brief dtype conversions: cast (to an attribute's dtype), cast_like (to another tensor's dtype) and reinterpret
 * (the same bits as another type of the same width, ONNX BitCast).
 *
 * Every tensor dtype tvmlite names is a valid source and target, including bfloat16, the float8/float4 formats and
 * int4/uint4 (their semantics: saturation and rounding, are the reference implementation's, following ONNX Cast).
 */
#include <tvmlite/relay/attrs/cast.h>
#include <tvmlite/relay/type_rel.h>

namespace tvmlite {
namespace relay {

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(CastAttrs, dtype, saturate, round_mode);
  TVMLITE_REFLECT_FIELDS(CastLikeAttrs, saturate, round_mode);
});

namespace {

/*! \brief A dtype a tensor can hold: a named scalar type (no void, handle or vector lanes). */
void CheckTensorDtype(DataType t, const char* what) {
  TVMLITE_CHECK_KIND(runtime::IsValidDLDataType(t) && t.bits() > 0 && t.lanes() == 1 && t.code() != kDLOpaqueHandle,
                     TypeError)
      << what << " must be a scalar tensor dtype, got "
      << (runtime::IsValidDLDataType(t) ? t.str() : std::string("an invalid data type"));
}

void CheckRoundMode(const std::string& mode) {
  TVMLITE_CHECK_KIND(mode == "up" || mode == "down" || mode == "nearest", ValueError)
      << "round_mode must be up, down or nearest, got '" << mode << "'";
}

}  // namespace

Type CastRel(const Array<Type>& args, const CastAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckTensorDtype(a.dtype, "the target dtype");
  CheckRoundMode(a.round_mode);
  return TensorType(data->shape, a.dtype);
}

Type CastLikeRel(const Array<Type>& args, const CastLikeAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* like = TensorArg(args, 1);
  CheckTensorDtype(like->dtype, "the target dtype");
  CheckRoundMode(a.round_mode);
  return TensorType(data->shape, like->dtype);
}

Type ReinterpretRel(const Array<Type>& args, const CastAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckTensorDtype(a.dtype, "the target dtype");
  TVMLITE_CHECK_KIND(a.dtype.bits() == data->dtype.bits() && a.dtype.lanes() == data->dtype.lanes(), TypeError)
      << "reinterpret needs types of the same width: " << data->dtype.str() << " is " << data->dtype.bits() << " bits, "
      << a.dtype.str() << " is " << a.dtype.bits();
  return TensorType(data->shape, a.dtype);
}

TVMLITE_REGISTER_OP("cast")
    .describe("Convert to another dtype (ONNX Cast semantics, saturating float8 conversion by default).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Cast", CastRel)
    .set_attr<TOpPattern>("TOpPattern", kElemWise);

TVMLITE_REGISTER_OP("cast_like")
    .describe("Convert to the dtype of a second tensor.")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("like", "Tensor", "The tensor whose dtype is the target.")
    .add_type_rel("CastLike", CastLikeRel)
    .set_attr<TOpPattern>("TOpPattern", kElemWise)
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({1}));

TVMLITE_REGISTER_OP("reinterpret")
    .describe("The same bits seen as another dtype of the same width (ONNX BitCast).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Reinterpret", ReinterpretRel)
    .set_attr<TOpPattern>("TOpPattern", kElemWise);

}  // namespace relay
}  // namespace tvmlite
