/*!
 * \file strings.cc
 * \brief Ops over string tensors (ONNX StringConcat, StringSplit, StringNormalizer, RegexFullMatch) and
 * ml.label_encoder:
 *
 *   text.string_concat(a, b)            -> broadcast shape, string
 *   text.string_split(x)                -> (x.shape + (?,) strings, x.shape int64 counts)
 *   text.string_normalizer(x: (C,) | (1, C)) -> (?,) | (1, ?) strings (stopwords removed)
 *   text.regex_full_match(x)            -> x.shape bool
 *   ml.label_encoder(x)                 -> x.shape, out_dtype
 */
#include <tvmlite/relay/attrs/strings.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(StringSplitAttrs, delimiter, has_delimiter, maxsplit);
  TVMLITE_REFLECT_FIELDS(StringNormalizerAttrs, case_change_action, is_case_sensitive, locale, stopwords);
  TVMLITE_REFLECT_FIELDS(RegexFullMatchAttrs, pattern);
  TVMLITE_REFLECT_FIELDS(LabelEncoderAttrs, keys, values, default_value, out_dtype);
});

namespace {

const TensorTypeNode* StringArg(const Array<Type>& args, size_t i) {
  const TensorTypeNode* t = TensorArg(args, i);
  TVMLITE_CHECK_KIND(t->dtype.is_string(), TypeError)
      << "input " << i << " must be a string tensor, got " << t->dtype.str();
  return t;
}

Type StringConcatRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* a = StringArg(args, 0);
  const TensorTypeNode* b = StringArg(args, 1);
  return TensorType(BroadcastShapes(a->shape, b->shape), a->dtype);
}

Type StringSplitRel(const Array<Type>& args, const StringSplitAttrs&) {
  const TensorTypeNode* x = StringArg(args, 0);
  std::vector<Any> parts;
  for (const Any& d : x->shape) parts.push_back(d);
  parts.push_back(Any(SizeVar::Any()));
  return TupleType({TensorType(Array<Any>(parts), x->dtype), TensorType(x->shape, DataType::Int(64))});
}

Type StringNormalizerRel(const Array<Type>& args, const StringNormalizerAttrs& a) {
  TVMLITE_CHECK_KIND(
      a.case_change_action == "LOWER" || a.case_change_action == "UPPER" || a.case_change_action == "NONE", ValueError)
      << "case_change_action must be LOWER, UPPER or NONE, got '" << a.case_change_action << "'";
  const TensorTypeNode* x = StringArg(args, 0);
  TVMLITE_CHECK_KIND(x->ndim() == 1 || (x->ndim() == 2 && DimIs(x->shape[0], 1)), ValueError)
      << "the input must be (C,) or (1, C), got " << ShapeToString(x->shape);
  if (x->ndim() == 1) return TensorType(Array<Any>{Any(SizeVar::Any())}, x->dtype);
  return TensorType(Array<Any>{Any(int64_t(1)), Any(SizeVar::Any())}, x->dtype);
}

Type RegexFullMatchRel(const Array<Type>& args, const RegexFullMatchAttrs&) {
  return TensorType(StringArg(args, 0)->shape, DataType::Bool());
}

Type LabelEncoderRel(const Array<Type>& args, const LabelEncoderAttrs& a) {
  const TensorTypeNode* x = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(a.keys.size() == a.values.size(), ValueError)
      << "there are " << a.keys.size() << " keys but " << a.values.size() << " values";
  return TensorType(x->shape, DataType(a.out_dtype));
}

}  // namespace

TVMLITE_REGISTER_OP("text.string_concat")
    .describe("Elementwise concatenation of two string tensors with numpy broadcasting (ONNX StringConcat).")
    .add_argument("lhs", "Tensor", "Strings.")
    .add_argument("rhs", "Tensor", "Strings.")
    .add_type_rel("StringConcat", StringConcatRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("text.string_split")
    .describe("Split each string (ONNX StringSplit): substrings padded with \"\" and their counts.")
    .add_argument("data", "Tensor", "Strings.")
    .add_type_rel("StringSplit", StringSplitRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("text.string_normalizer")
    .describe("Remove stopwords and change case (ONNX StringNormalizer).")
    .add_argument("data", "Tensor", "(C,) or (1, C) strings.")
    .add_type_rel("StringNormalizer", StringNormalizerRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("text.regex_full_match")
    .describe("Whether each string matches a regular expression in full (ONNX RegexFullMatch).")
    .add_argument("data", "Tensor", "Strings.")
    .add_type_rel("RegexFullMatch", RegexFullMatchRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

TVMLITE_REGISTER_OP("ml.label_encoder")
    .describe("Map each value through a table, with a default for missing keys (ONNX ai.onnx.ml LabelEncoder).")
    .add_argument("data", "Tensor", "Strings, ints or floats.")
    .add_type_rel("LabelEncoder", LabelEncoderRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
