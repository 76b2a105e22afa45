/*!
 * \file tvmlite/relay/attrs/strings.h
 * \brief Attrs of the string ops (text.string_split, text.string_normalizer, text.regex_full_match,
 * ml.label_encoder). String tensors exist only as IR types and executor values (see DataType::is_string).
 */
#ifndef TVMLITE_RELAY_ATTRS_STRINGS_H_
#define TVMLITE_RELAY_ATTRS_STRINGS_H_

#include <tvmlite/ir/attrs.h>

#include <string>

namespace tvmlite {
namespace relay {

using runtime::Any;
using runtime::Array;
using runtime::DataType;
using runtime::String;

struct StringSplitAttrs : public ir::AttrsNode {
  std::string delimiter;  // "" with has_delimiter false: split on runs of whitespace
  bool has_delimiter = false;
  int64_t maxsplit = -1;  // < 0: no limit

  TVMLITE_DECLARE_ATTRS(StringSplitAttrs, "relay.attrs.StringSplitAttrs");
};

struct StringNormalizerAttrs : public ir::AttrsNode {
  std::string case_change_action = "NONE";  // LOWER, UPPER, NONE
  bool is_case_sensitive = false;
  std::string locale;
  Array<String> stopwords;

  TVMLITE_DECLARE_ATTRS(StringNormalizerAttrs, "relay.attrs.StringNormalizerAttrs");
};

struct RegexFullMatchAttrs : public ir::AttrsNode {
  std::string pattern;

  TVMLITE_DECLARE_ATTRS(RegexFullMatchAttrs, "relay.attrs.RegexFullMatchAttrs");
};

/*! \brief keys[i] -> values[i]; keys and values are strings, ints or floats (the *_dtype fields say which). */
struct LabelEncoderAttrs : public ir::AttrsNode {
  Array<Any> keys;
  Array<Any> values;
  Any default_value;
  std::string out_dtype;  // the values' dtype: "string", "int64", "float32", ...

  TVMLITE_DECLARE_ATTRS(LabelEncoderAttrs, "relay.attrs.LabelEncoderAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_STRINGS_H_
