/*!
 * \file json.cc
 * \brief tvmlite's JSON reader and writer (tvmlite/runtime/json.h): strict grammar, no dependency, every malformed
 * input a ValueError.
 */
#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/json.h>
#include <tvmlite/runtime/map.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace tvmlite {
namespace runtime {
namespace json {

const Value* Value::Get(std::string_view key) const {
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k] == key) return &items[k];
  }
  return nullptr;
}

namespace {

class Reader {
 public:
  Reader(std::string_view text, const std::string& who, bool allow_nonfinite, int max_depth)
      : s_(text), who_(who), allow_nonfinite_(allow_nonfinite), max_depth_(max_depth) {}

  Value ParseDocument() {
    Value v = ParseValue(0);
    SkipSpace();
    if (pos_ != s_.size()) Fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    TVMLITE_THROW(ValueError) << who_ << ": malformed JSON at offset " << pos_ << ": " << what;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail(std::string("expected '") + c + "'");
  }

  Value ParseValue(int depth) {
    if (depth > max_depth_) Fail("nested too deeply");
    SkipSpace();
    if (pos_ >= s_.size()) Fail("unexpected end of input");
    Value v;
    char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v.kind = Value::kObject;
      if (Eat('}')) return v;
      do {
        SkipSpace();
        if (pos_ >= s_.size() || s_[pos_] != '"') Fail("expected a member name");
        v.keys.push_back(ParseString());
        Expect(':');
        v.items.push_back(ParseValue(depth + 1));
      } while (Eat(','));
      Expect('}');
    } else if (c == '[') {
      ++pos_;
      v.kind = Value::kArray;
      if (Eat(']')) return v;
      do {
        v.items.push_back(ParseValue(depth + 1));
      } while (Eat(','));
      Expect(']');
    } else if (c == '"') {
      v.kind = Value::kString;
      v.s = ParseString();
    } else if (allow_nonfinite_ && NonFinite(&v)) {
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      ParseNumber(&v);
    } else if (s_.compare(pos_, 4, "true") == 0) {
      pos_ += 4, v.kind = Value::kBool, v.b = true;
    } else if (s_.compare(pos_, 5, "false") == 0) {
      pos_ += 5, v.kind = Value::kBool;
    } else if (s_.compare(pos_, 4, "null") == 0) {
      pos_ += 4;
    } else {
      Fail(std::string("unexpected character '") + c + "'");
    }
    return v;
  }

  /*! \brief Python's NaN, Infinity and -Infinity (a float); false, consuming nothing, at anything else. */
  bool NonFinite(Value* v) {
    static const std::pair<const char*, double> kWords[] = {
        {"NaN", std::nan("")}, {"Infinity", HUGE_VAL}, {"-Infinity", -HUGE_VAL}};
    for (const auto& [word, value] : kWords) {
      const size_t n = std::strlen(word);
      if (s_.compare(pos_, n, word) == 0) {
        pos_ += n, v->kind = Value::kFloat, v->d = value;
        return true;
      }
    }
    return false;
  }

  void ParseNumber(Value* v) {
    // The JSON grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    const size_t start = pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      if (pos_ == from) Fail("expected a digit");
    };
    if (s_[pos_] == '-') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
    } else {
      digits();
    }
    bool is_float = false;
    if (pos_ < s_.size() && s_[pos_] == '.') ++pos_, digits(), is_float = true;
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      digits();
      is_float = true;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    std::from_chars_result r;
    if (is_float) {
      v->kind = Value::kFloat;
      r = std::from_chars(first, last, v->d);  // locale-independent, unlike strtod
    } else {
      v->kind = Value::kInt;
      r = std::from_chars(first, last, v->i);
    }
    if (r.ec != std::errc() || r.ptr != last) Fail("number out of range: " + std::string(first, last));
  }

  unsigned ParseHex4() {
    if (pos_ + 4 > s_.size()) Fail("truncated \\u escape");
    unsigned cp = 0;
    for (int k = 0; k < 4; ++k) {
      char h = s_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9') cp |= h - '0';
      else if (h >= 'a' && h <= 'f') cp |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') cp |= h - 'A' + 10;
      else Fail("bad hex digit in \\u escape");
    }
    return cp;
  }

  static void AppendUTF8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  std::string ParseString() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) Fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[pos_++]);
      if (c == '"') return out;
      if (c < 0x20) Fail("control character in a string");
      if (c != '\\') {
        // Copy the run of plain characters in one go: tensor data is one long base64 string.
        size_t end = pos_;
        while (end < s_.size() && s_[end] != '"' && s_[end] != '\\' && static_cast<unsigned char>(s_[end]) >= 0x20) {
          ++end;
        }
        out.append(s_.data() + pos_ - 1, end - pos_ + 1);
        pos_ = end;
        continue;
      }
      if (pos_ >= s_.size()) Fail("unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          unsigned cp = ParseHex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) Fail("lone low surrogate in \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a UTF-16 pair spells one code point above U+FFFF
            if (s_.compare(pos_, 2, "\\u") != 0) Fail("lone high surrogate in \\u escape");
            pos_ += 2;
            unsigned lo = ParseHex4();
            if (lo < 0xDC00 || lo > 0xDFFF) Fail("bad low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          AppendUTF8(cp, &out);
          break;
        }
        default: Fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  std::string_view s_;
  const std::string& who_;
  const bool allow_nonfinite_;
  const int max_depth_;
  size_t pos_ = 0;
};

/*! \brief A parsed value as plain tvmlite values (json.h). */
Any ToPlain(const Value& v, const std::string& who) {
  switch (v.kind) {
    case Value::kNull: return Any();
    case Value::kBool: return Any(v.b);
    case Value::kInt: return Any(v.i);
    case Value::kFloat: return Any(v.d);
    case Value::kString:
      TVMLITE_CHECK_KIND(IsValidUTF8(v.s), ValueError) << who << ": a string is not valid UTF-8";
      return Any(String(v.s));
    case Value::kArray: {
      std::vector<Any> items;
      items.reserve(v.items.size());
      for (const Value& x : v.items) items.push_back(ToPlain(x, who));
      return Any(Array<Any>(items));
    }
    case Value::kObject: break;
  }
  Map<String, Any> m;
  for (size_t k = 0; k < v.keys.size(); ++k) {
    TVMLITE_CHECK_KIND(IsValidUTF8(v.keys[k]), ValueError) << who << ": a member name is not valid UTF-8";
    m.Set(String(v.keys[k]), ToPlain(v.items[k], who));
  }
  return Any(m);
}

}  // namespace

Value Parse(std::string_view text, const std::string& who, bool allow_nonfinite, int max_depth) {
  return Reader(text, who, allow_nonfinite, max_depth).ParseDocument();
}

Any ParsePlain(std::string_view text, const std::string& who, bool allow_nonfinite, int max_depth) {
  return ToPlain(Parse(text, who, allow_nonfinite, max_depth), who);
}

bool IsValidUTF8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the first continuation byte
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if (c == 0xED) n = 2, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) n = 2;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c == 0xF4) n = 3, hi = 0x8F;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else return false;
    if (i + n >= s.size()) return false;  // truncated sequence
    for (int k = 1; k <= n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (cc < lo || cc > hi) : (cc < 0x80 || cc > 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

void WriteString(std::string_view s, std::string* out) {
  static const char* hex = "0123456789abcdef";
  out->push_back('"');
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          *out += "\\u00";
          out->push_back(hex[c >> 4]);
          out->push_back(hex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void WriteFloat(double v, std::string* out) {
  if (std::isnan(v)) {
    *out += "NaN";  // Python's json reads these, and Parse with allow_nonfinite
    return;
  }
  if (std::isinf(v)) {
    *out += v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  *out += buf;
  if (!std::strpbrk(buf, ".eE")) *out += ".0";
}

bool WritePlain(const Any& v, std::string* out) {
  switch (v.type_index()) {
    case kTVMLiteNone: *out += "null"; return true;
    case kTVMLiteInt:
    case kTVMLiteBool: *out += std::to_string(v.cast<int64_t>()); return true;
    case kTVMLiteFloat: WriteFloat(v.cast<double>(), out); return true;
    case kTVMLiteString: WriteString(std::string(v.cast<String>()), out); return true;
    case kTVMLiteArray: {
      *out += '[';
      bool first = true;
      for (const Any& x : v.cast<Array<Any>>()) {
        if (!first) *out += ',';
        first = false;
        if (!WritePlain(x, out)) return false;
      }
      *out += ']';
      return true;
    }
    case kTVMLiteMap: {
      *out += '{';
      bool first = true;
      for (const auto& kv : v.cast<Map<String, Any>>()) {
        if (!first) *out += ',';
        first = false;
        WriteString(std::string(kv.first), out);
        *out += ':';
        if (!WritePlain(kv.second, out)) return false;
      }
      *out += '}';
      return true;
    }
    default: return false;
  }
}

}  // namespace json
}  // namespace runtime
}  // namespace tvmlite
