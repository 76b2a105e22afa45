/*!
 * \file tvmlite/runtime/any.h
 * \brief AnyView (borrowed) and Any (owned) tagged values, and TypeTraits<T>: how a C++ type enters and leaves one.
 *
 * TypeTraits<T> provides
 *   CopyToView(const T&, TVMLiteAny*)      borrow into a view (no reference taken)
 *   MoveToAny(T, TVMLiteAny*)              hand over an owned value
 *   TryCast(const TVMLiteAny*) -> optional<T>  convert with the FFI's coercions (int -> float, str -> String, ...)
 *   TypeStr() -> std::string               name used in error messages
 */
#ifndef TVMLITE_RUNTIME_ANY_H_
#define TVMLITE_RUNTIME_ANY_H_

#include <tvmlite/runtime/error.h>

#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvmlite {
namespace runtime {

template <typename T, typename = void>
struct TypeTraits {
  static constexpr bool enabled = false;
};

template <typename T>
using TypeTraitsNoCV = TypeTraits<std::remove_cv_t<std::remove_reference_t<T>>>;

class Any;
class AnyView;

// Any and AnyView pass through unchanged; declared before the classes because their constructors ask about them.
template <>
struct TypeTraits<AnyView> {
  static constexpr bool enabled = true;
  static void CopyToView(const AnyView& v, TVMLiteAny* out);
  static std::optional<AnyView> TryCast(const TVMLiteAny* v);
  static std::string TypeStr() { return "Any"; }
};
template <>
struct TypeTraits<Any> {
  static constexpr bool enabled = true;
  static void CopyToView(const Any& v, TVMLiteAny* out);
  static void MoveToAny(Any v, TVMLiteAny* out);
  static std::optional<Any> TryCast(const TVMLiteAny* v);
  static std::string TypeStr() { return "Any"; }
};

/*! \brief Name of the type a value holds: "int", "float", "str", a type key, ... (for error messages). */
std::string AnyTypeStr(const TVMLiteAny& v);

inline void AnySetNone(TVMLiteAny* v) {
  v->type_index = kTVMLiteNone;
  v->reserved = 0;
  v->v_int64 = 0;
}

/*! \brief A borrowed value: 16 bytes, no reference counting. Valid while what it points to is alive. */
class AnyView {
 public:
  AnyView() { AnySetNone(&data_); }
  AnyView(const Any& other);  // NOLINT(*)
  template <typename T, typename = std::enable_if_t<TypeTraitsNoCV<T>::enabled>>
  AnyView(const T& value) {  // NOLINT(*)
    TypeTraitsNoCV<T>::CopyToView(value, &data_);
  }
  AnyView(const char* str) {  // NOLINT(*)
    data_.type_index = kTVMLiteRawStr, data_.reserved = 0, data_.v_c_str = str;
  }

  int32_t type_index() const { return data_.type_index; }
  bool is_none() const { return data_.type_index == kTVMLiteNone; }
  const TVMLiteAny* raw() const { return &data_; }

  /*! \brief Convert, or nullopt when the value does not convert to T. */
  template <typename T>
  std::optional<T> as() const {
    return TypeTraitsNoCV<T>::TryCast(&data_);
  }
  /*! \brief Convert, or throw TypeError. */
  template <typename T>
  T cast() const;

  static AnyView FromRaw(const TVMLiteAny& raw) {
    AnyView v;
    v.data_ = raw;
    return v;
  }

 protected:
  TVMLiteAny data_;
};
static_assert(sizeof(AnyView) == sizeof(TVMLiteAny), "AnyView is a plain TVMLiteAny");

/*! \brief An owned value: holds a strong reference when it holds an object. Never holds a raw pointer kind. */
class Any {
 public:
  Any() { AnySetNone(&data_); }
  Any(const Any& other) : data_(other.data_) {
    if (IsObject()) Object::FromHeader(data_.v_obj)->IncRef();
  }
  Any(Any&& other) noexcept : data_(other.data_) { AnySetNone(&other.data_); }
  /*! \brief Own a view: raw strings become String, objects gain a reference. */
  Any(const AnyView& view);  // NOLINT(*)
  template <typename T,
            typename = std::enable_if_t<TypeTraitsNoCV<T>::enabled && !std::is_same_v<std::decay_t<T>, AnyView>>>
  Any(T value) {  // NOLINT(*)
    TypeTraitsNoCV<T>::MoveToAny(std::move(value), &data_);
  }
  Any(const char* str);  // NOLINT(*)
  ~Any() {
    if (IsObject()) Object::FromHeader(data_.v_obj)->DecRef();
  }

  Any& operator=(Any other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }

  int32_t type_index() const { return data_.type_index; }
  bool is_none() const { return data_.type_index == kTVMLiteNone; }
  const TVMLiteAny* raw() const { return &data_; }
  /*! \brief The object held (borrowed), or nullptr for plain values. */
  Object* object() const { return IsObject() ? Object::FromHeader(data_.v_obj) : nullptr; }

  template <typename T>
  std::optional<T> as() const {
    return TypeTraitsNoCV<T>::TryCast(&data_);
  }
  template <typename T>
  T cast() const;

  /*! \brief Take over an owned C value. */
  static Any MoveFromRaw(TVMLiteAny raw) {
    Any a;
    a.data_ = raw;
    return a;
  }
  /*! \brief Hand the owned value to C; this Any becomes None. */
  void MoveToRaw(TVMLiteAny* out) {
    *out = data_;
    AnySetNone(&data_);
  }

 private:
  bool IsObject() const { return data_.type_index >= kTVMLiteStaticObjectBegin; }
  TVMLiteAny data_;
};
static_assert(sizeof(Any) == sizeof(TVMLiteAny), "Any is a plain TVMLiteAny");

inline AnyView::AnyView(const Any& other) : data_(*other.raw()) {}

inline void TypeTraits<AnyView>::CopyToView(const AnyView& v, TVMLiteAny* out) { *out = *v.raw(); }
inline std::optional<AnyView> TypeTraits<AnyView>::TryCast(const TVMLiteAny* v) { return AnyView::FromRaw(*v); }
inline void TypeTraits<Any>::CopyToView(const Any& v, TVMLiteAny* out) { *out = *v.raw(); }
inline void TypeTraits<Any>::MoveToAny(Any v, TVMLiteAny* out) { v.MoveToRaw(out); }
inline std::optional<Any> TypeTraits<Any>::TryCast(const TVMLiteAny* v) { return Any(AnyView::FromRaw(*v)); }

namespace details {
[[noreturn]] void ThrowCastError(const TVMLiteAny& from, const std::string& to);
}  // namespace details

template <typename T>
inline T AnyView::cast() const {
  std::optional<T> r = as<T>();
  if (!r.has_value()) details::ThrowCastError(data_, TypeTraitsNoCV<T>::TypeStr());
  return std::move(*r);
}
template <typename T>
inline T Any::cast() const {
  std::optional<T> r = as<T>();
  if (!r.has_value()) details::ThrowCastError(data_, TypeTraitsNoCV<T>::TypeStr());
  return std::move(*r);
}

// ---------------------------------------------------------------------------------------------------------------
// Plain values
// ---------------------------------------------------------------------------------------------------------------

/*! \brief Shared shape of traits for values held inline (no ownership to manage). */
template <typename T>
struct PODTraitsBase {
  static constexpr bool enabled = true;
  static void MoveToAny(T v, TVMLiteAny* out) { TypeTraits<T>::CopyToView(v, out); }
};

template <typename T>
struct TypeTraits<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> : PODTraitsBase<T> {
  static void CopyToView(T v, TVMLiteAny* out) {
    out->type_index = kTVMLiteInt, out->reserved = 0, out->v_int64 = static_cast<int64_t>(v);
  }
  static std::optional<T> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteInt || v->type_index == kTVMLiteBool) return static_cast<T>(v->v_int64);
    return std::nullopt;
  }
  static std::string TypeStr() { return "int"; }
};

template <>
struct TypeTraits<bool> : PODTraitsBase<bool> {
  static void CopyToView(bool v, TVMLiteAny* out) {
    out->type_index = kTVMLiteBool, out->reserved = 0, out->v_int64 = v ? 1 : 0;
  }
  static std::optional<bool> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteBool || v->type_index == kTVMLiteInt) return v->v_int64 != 0;
    return std::nullopt;
  }
  static std::string TypeStr() { return "bool"; }
};

template <typename T>
struct TypeTraits<T, std::enable_if_t<std::is_floating_point_v<T>>> : PODTraitsBase<T> {
  static void CopyToView(T v, TVMLiteAny* out) {
    out->type_index = kTVMLiteFloat, out->reserved = 0, out->v_float64 = static_cast<double>(v);
  }
  static std::optional<T> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteFloat) return static_cast<T>(v->v_float64);
    if (v->type_index == kTVMLiteInt || v->type_index == kTVMLiteBool) return static_cast<T>(v->v_int64);
    return std::nullopt;
  }
  static std::string TypeStr() { return "float"; }
};

template <>
struct TypeTraits<std::nullptr_t> : PODTraitsBase<std::nullptr_t> {
  static void CopyToView(std::nullptr_t, TVMLiteAny* out) { AnySetNone(out); }
  static std::optional<std::nullptr_t> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteNone) return nullptr;
    return std::nullopt;
  }
  static std::string TypeStr() { return "None"; }
};

template <>
struct TypeTraits<void*> : PODTraitsBase<void*> {
  static void CopyToView(void* v, TVMLiteAny* out) {
    if (v == nullptr) return AnySetNone(out);
    out->type_index = kTVMLiteOpaquePtr, out->reserved = 0, out->v_ptr = v;
  }
  static std::optional<void*> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteOpaquePtr) return v->v_ptr;
    if (v->type_index == kTVMLiteNone) return static_cast<void*>(nullptr);
    return std::nullopt;
  }
  static std::string TypeStr() { return "void*"; }
};

/*!
 * \brief A device's type as the int it holds. A DLDevice from a C caller may hold a value outside DLDeviceType,
 * and loading that as the enum is undefined behaviour: code that reads a device it did not make reads it so.
 */
inline int32_t DeviceTypeCode(const DLDevice& d) {
  static_assert(sizeof(d.device_type) == sizeof(int32_t), "DLDeviceType is stored as an int");
  int32_t code;
  std::memcpy(&code, &d.device_type, sizeof(code));
  return code;
}

template <>
struct TypeTraits<DLDevice> : PODTraitsBase<DLDevice> {
  static void CopyToView(DLDevice v, TVMLiteAny* out) {
    out->type_index = kTVMLiteDevice, out->reserved = 0, out->v_int64 = 0, out->v_device = v;
  }
  static std::optional<DLDevice> TryCast(const TVMLiteAny* v) {
    if (v->type_index == kTVMLiteDevice) return v->v_device;
    return std::nullopt;
  }
  static std::string TypeStr() { return "Device"; }
};

/*! \brief A borrowed tensor: from a DLTensor* argument or from inside an NDArray object. */
template <>
struct TypeTraits<DLTensor*> {
  static constexpr bool enabled = true;
  static void CopyToView(DLTensor* v, TVMLiteAny* out) {
    out->type_index = kTVMLiteDLTensorPtr, out->reserved = 0, out->v_ptr = v;
  }
  static std::optional<DLTensor*> TryCast(const TVMLiteAny* v) {
    // A tensor view starts with its DLTensor, so both borrowed kinds are a DLTensor*.
    if (v->type_index == kTVMLiteDLTensorPtr || v->type_index == kTVMLiteTensorView) {
      return static_cast<DLTensor*>(v->v_ptr);
    }
    if (v->type_index == kTVMLiteNDArray) return &reinterpret_cast<TVMLiteNDArrayObject*>(v->v_obj)->tensor;
    return std::nullopt;
  }
  static std::string TypeStr() { return "DLTensor*"; }
};

// ---------------------------------------------------------------------------------------------------------------
// Object references
// ---------------------------------------------------------------------------------------------------------------

/*!
 * \brief Hook for references whose validity needs more than a type check (Array<T> checks its elements).
 * FromValue is asked for any value that fails Check: the place to build a reference from another value
 * (String from a raw str, ShapeTuple from an Array of ints).
 */
template <typename RefT, typename = void>
struct ObjectRefConvert {
  static bool Check(const Object* obj) { return obj->IsInstance<typename RefT::ContainerType>(); }
  static std::optional<RefT> FromValue(const TVMLiteAny*) { return std::nullopt; }
  static std::string TypeStr() { return RefT::ContainerType::_type_key; }
};

template <typename RefT>
struct TypeTraits<RefT, std::enable_if_t<std::is_base_of_v<ObjectRef, RefT>>> {
  static constexpr bool enabled = true;
  static void CopyToView(const RefT& ref, TVMLiteAny* out) {
    if (!ref.defined()) return AnySetNone(out);
    out->type_index = ref->type_index(), out->reserved = 0;
    out->v_obj = const_cast<Object*>(static_cast<const Object*>(ref.get()))->header();
  }
  static void MoveToAny(RefT ref, TVMLiteAny* out) {
    CopyToView(ref, out);
    ref.ObjectPtrRef().release();  // the reference moves into out
  }
  static std::optional<RefT> TryCast(const TVMLiteAny* v) {
    if (v->type_index >= kTVMLiteStaticObjectBegin) {
      Object* obj = Object::FromHeader(v->v_obj);
      if (ObjectRefConvert<RefT>::Check(obj)) return RefT(ObjectPtr<Object>::CopyFromRaw(obj));
      return ObjectRefConvert<RefT>::FromValue(v);
    }
    if (v->type_index == kTVMLiteNone) {
      if constexpr (RefT::_type_is_nullable) return RefT();
      return std::nullopt;
    }
    return ObjectRefConvert<RefT>::FromValue(v);
  }
  static std::string TypeStr() { return ObjectRefConvert<RefT>::TypeStr(); }
};

/*! \brief Checked downcast between references; throws TypeError on a mismatch. Null stays null. */
template <typename RefT>
inline RefT Downcast(ObjectRef ref) {
  if (ref.defined() && !ObjectRefConvert<RefT>::Check(ref.get())) {
    TVMLITE_THROW(TypeError) << "Downcast from " << ref->GetTypeKey() << " to " << ObjectRefConvert<RefT>::TypeStr()
                             << " failed";
  }
  return RefT(std::move(ref.ObjectPtrRef()));
}

/*! \brief Optional<T>: a T or None. */
template <typename T>
class Optional {
 public:
  Optional() = default;
  Optional(std::nullopt_t) {}                      // NOLINT(*)
  Optional(T value) : value_(std::move(value)) {}  // NOLINT(*)
  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return has_value(); }
  const T& value() const {
    TVMLITE_ICHECK(has_value()) << "Optional has no value";
    return *value_;
  }
  T value_or(T other) const { return value_.has_value() ? *value_ : other; }
  const T* operator->() const { return &value(); }
  const T& operator*() const { return value(); }

 private:
  std::optional<T> value_;
};

template <typename T>
struct TypeTraits<Optional<T>> {
  static constexpr bool enabled = true;
  static void CopyToView(const Optional<T>& v, TVMLiteAny* out) {
    if (!v.has_value()) return AnySetNone(out);
    TypeTraits<T>::CopyToView(*v, out);
  }
  static void MoveToAny(Optional<T> v, TVMLiteAny* out) {
    if (!v.has_value()) return AnySetNone(out);
    TypeTraits<T>::MoveToAny(*v, out);
  }
  static std::optional<Optional<T>> TryCast(const TVMLiteAny* v) {
    // Built in place: moving an empty Optional<T> in copied its unset payload (GCC 12's -Wmaybe-uninitialized).
    if (v->type_index == kTVMLiteNone) return std::optional<Optional<T>>(std::in_place);
    std::optional<T> inner = TypeTraits<T>::TryCast(v);
    if (!inner.has_value()) return std::nullopt;
    return Optional<T>(std::move(*inner));
  }
  static std::string TypeStr() { return "Optional<" + TypeTraits<T>::TypeStr() + ">"; }
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_ANY_H_
