/*!
 * \file json.h
 * \brief tvmlite's one JSON module: a strict reader and the writer helpers. SaveJSON/LoadJSON (serialization.h),
 * the lowering's graph JSON (backend/graph_codegen.cc) and the executor's reading of it (backend/graph_executor.cc)
 * all go through it. No dependency; every malformed input is a ValueError, never a crash.
 *
 *   json::Value v = json::Parse(text, "LoadJSON");                 // the document tree
 *   Any graph = json::ParsePlain(text, "graph executor");          // plain values, as Python's json.loads gives
 *   std::string out; json::WriteString("a\"b", &out); json::WriteFloat(0.5, &out);
 *
 * Plain values: an object is a Map<String, Any>, an array an Array<Any>, a number without fraction or exponent an
 * int (int64: beyond it is an error), any other number a float, true/false a bool, null None, a string a String.
 * With allow_nonfinite the reader also takes Python's NaN, Infinity and -Infinity (what WriteFloat writes for them).
 */
#ifndef TVMLITE_RUNTIME_JSON_H_
#define TVMLITE_RUNTIME_JSON_H_

#include <tvmlite/runtime/any.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tvmlite {
namespace runtime {
namespace json {

/*! \brief A parsed JSON value. An object keeps its members in order (keys parallel to items). */
struct Value {
  enum Kind { kNull, kBool, kInt, kFloat, kString, kArray, kObject } kind = kNull;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<Value> items;       // kArray elements, kObject member values
  std::vector<std::string> keys;  // kObject member names, parallel to items

  /*! \brief The member named key of an object (the last one of that name), or null. */
  const Value* Get(std::string_view key) const;
};

/*!
 * \brief Parse one JSON document (nothing but white space after it). Errors are ValueErrors
 * "<who>: malformed JSON at offset N: ..."; nesting deeper than max_depth is one of them (it guards the C stack).
 */
Value Parse(std::string_view text, const std::string& who, bool allow_nonfinite = false, int max_depth = 64);

/*! \brief Parse a document of plain values (see the file comment); strings must be valid UTF-8. */
Any ParsePlain(std::string_view text, const std::string& who, bool allow_nonfinite = true, int max_depth = 64);

/*! \brief Whether s is strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF). */
bool IsValidUTF8(std::string_view s);

/*! \brief Append a JSON string literal of s (valid UTF-8: written as is, with only the required escapes). */
void WriteString(std::string_view s, std::string* out);

/*! \brief Append a float so that it reads back as the same double and as a float (".0" added when needed);
 * NaN, Infinity and -Infinity as Python's json writes them. */
void WriteFloat(double v, std::string* out);

/*!
 * \brief Append a plain value (None, bool, int, float, String, or an Array / Map<String, Any> of them); false
 * (out partly written) when it holds anything else. Bools are written as ints (what the graph JSON's readers want).
 */
bool WritePlain(const Any& v, std::string* out);

}  // namespace json
}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_JSON_H_
