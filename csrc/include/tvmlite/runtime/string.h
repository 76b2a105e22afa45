/*!
 * \file tvmlite/runtime/string.h
 * \brief String and Bytes: immutable byte strings stored inline after the header (one allocation).
 */
#ifndef TVMLITE_RUNTIME_STRING_H_
#define TVMLITE_RUNTIME_STRING_H_

#include <tvmlite/runtime/any.h>

#include <cstring>
#include <string>
#include <string_view>

namespace tvmlite {
namespace runtime {

/*! \brief Shared layout of String and Bytes: the C cell, then the NUL-terminated bytes. */
class BytesObjBase : public Object {
 public:
  TVMLiteStringCell cell;  // must directly follow the header
  std::string_view view() const { return {cell.data, static_cast<size_t>(cell.size)}; }
};

class StringObj : public BytesObjBase {
 public:
  static constexpr const char* _type_key = "runtime.String";
  static constexpr int32_t _type_index = kTVMLiteString;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(StringObj, Object);
};

class BytesObj : public BytesObjBase {
 public:
  static constexpr const char* _type_key = "runtime.Bytes";
  static constexpr int32_t _type_index = kTVMLiteBytes;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(BytesObj, Object);
};

namespace details {
/*! \brief One allocation holding the object and a NUL-terminated copy of data. */
template <typename ObjT>
ObjectPtr<ObjT> MakeBytesObj(const char* data, size_t size) {
  ObjectPtr<ObjT> n = make_inplace_object<ObjT>(size + 1);
  char* dst = reinterpret_cast<char*>(n.get()) + sizeof(ObjT);
  if (size) std::memcpy(dst, data, size);
  dst[size] = '\0';
  n->cell.data = dst;
  n->cell.size = static_cast<int64_t>(size);
  return n;
}
}  // namespace details

class String : public ObjectRef {
 public:
  String() : String("", 0) {}
  String(const char* data, size_t size) : ObjectRef(details::MakeBytesObj<StringObj>(data, size)) {}
  String(const char* str) : String(str, std::strlen(str)) {}    // NOLINT(*)
  String(const std::string& s) : String(s.data(), s.size()) {}  // NOLINT(*)
  String(std::string_view s) : String(s.data(), s.size()) {}    // NOLINT(*)
  explicit String(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}

  const StringObj* get() const { return static_cast<const StringObj*>(data_.get()); }
  const StringObj* operator->() const { return get(); }
  const char* data() const { return get()->cell.data; }
  const char* c_str() const { return data(); }
  size_t size() const { return static_cast<size_t>(get()->cell.size); }
  bool empty() const { return size() == 0; }
  std::string_view view() const { return get()->view(); }
  operator std::string() const { return std::string(view()); }  // NOLINT(*)

  bool operator==(const String& o) const { return view() == o.view(); }
  bool operator!=(const String& o) const { return view() != o.view(); }
  bool operator<(const String& o) const { return view() < o.view(); }
  bool operator==(const char* o) const { return view() == o; }
  bool operator==(const std::string& o) const { return view() == o; }

  static constexpr bool _type_is_nullable = false;
  using ContainerType = StringObj;
};

inline std::string operator+(const std::string& a, const String& b) { return a + std::string(b.view()); }
inline std::ostream& operator<<(std::ostream& os, const String& s) { return os << s.view(); }

class Bytes : public ObjectRef {
 public:
  Bytes(const char* data, size_t size) : ObjectRef(details::MakeBytesObj<BytesObj>(data, size)) {}
  explicit Bytes(const std::string& s) : Bytes(s.data(), s.size()) {}
  explicit Bytes(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  const BytesObj* get() const { return static_cast<const BytesObj*>(data_.get()); }
  const char* data() const { return get()->cell.data; }
  size_t size() const { return static_cast<size_t>(get()->cell.size); }
  std::string_view view() const { return get()->view(); }

  static constexpr bool _type_is_nullable = false;
  using ContainerType = BytesObj;
};

/*! \brief A String accepts a raw C string argument too (copying it). */
template <>
struct ObjectRefConvert<String> {
  static bool Check(const Object* obj) { return obj->type_index() == kTVMLiteString; }
  static std::optional<String> FromValue(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteRawStr) return String(v->v_c_str);
    return std::nullopt;
  }
  static std::string TypeStr() { return "str"; }
};

template <>
struct ObjectRefConvert<Bytes> {
  static bool Check(const Object* obj) { return obj->type_index() == kTVMLiteBytes; }
  static std::optional<Bytes> FromValue(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteByteArrayPtr) {
      auto* b = static_cast<const TVMLiteByteArray*>(v->v_ptr);
      return Bytes(b->data, static_cast<size_t>(b->size));
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "bytes"; }
};

/*! \brief std::string travels as a String; as an argument it is borrowed as a raw string. */
template <>
struct TypeTraits<std::string> {
  static constexpr bool enabled = true;
  static void CopyToView(const std::string& s, TVMLiteAny* out) {
    out->type_index = kTVMLiteRawStr, out->reserved = 0, out->v_c_str = s.c_str();
  }
  static void MoveToAny(const std::string& s, TVMLiteAny* out) { TypeTraits<String>::MoveToAny(String(s), out); }
  static std::optional<std::string> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteRawStr) return std::string(v->v_c_str);
    if (v->type_index == kTVMLiteString) {
      auto* cell = TVMLITE_OBJECT_CELL(TVMLiteStringCell, v->v_obj);
      return std::string(cell->data, static_cast<size_t>(cell->size));
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "str"; }
};

/*! \brief Hash of string bytes (FNV-1a): stable across runs, used by Map keys and structural hashing. */
inline uint64_t StringHash(std::string_view s) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace runtime
}  // namespace tvmlite

namespace std {
template <>
struct hash<::tvmlite::runtime::String> {
  size_t operator()(const ::tvmlite::runtime::String& s) const { return ::tvmlite::runtime::StringHash(s.view()); }
};
}  // namespace std
#endif  // TVMLITE_RUNTIME_STRING_H_
