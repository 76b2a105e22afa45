/*!
 * \file tvmlite/runtime/object.h
 * \brief Object: the ref-counted base of every runtime value, ObjectPtr/ObjectRef, and type declarations.
 *
 * An Object starts with the C header TVMLiteObject and has no virtual functions, so a handle is just the object's
 * address and the C ABI can read the type index and the cells that follow the header. Destruction goes through the
 * header's deleter, which make_object sets to the right `delete` for the concrete class.
 */
#ifndef TVMLITE_RUNTIME_OBJECT_H_
#define TVMLITE_RUNTIME_OBJECT_H_

#include <tvmlite/c_api.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace tvmlite {
namespace runtime {

namespace details {
/*! \brief Count of live objects, for leak tests. Relaxed: it is a statistic, not a synchronisation point. */
void LiveCountAdd(int64_t delta);
/*!
 * \brief Run an object's deleter. Deleters that drop further last references do not recurse: those objects are
 * queued and destroyed by the outermost call, so freeing a million-long chain needs no deep C stack.
 */
void DestroyObject(TVMLiteObject* header);
}  // namespace details

/*! \brief Type index sentinel: "allocate one at run time". */
constexpr int32_t kDynamicTypeIndex = -1;

/*! \brief Allocate (or return) the runtime index of a type; see TypeRegistry for the rules. */
int32_t TypeIndexAssign(int32_t static_index, const char* type_key, int32_t parent_index, int32_t num_child_slots,
                        bool child_slots_can_overflow);
/*! \brief Slow path of IsInstance: walk the ancestors of derived_index. */
bool TypeIsDerivedFrom(int32_t derived_index, int32_t base_index);
/*! \brief Type key of an index ("<unknown>" when unregistered). */
const std::string& TypeIndexToKey(int32_t type_index);

class Object {
 public:
  static constexpr const char* _type_key = "runtime.Object";
  static constexpr int32_t _type_index = kTVMLiteObject;
  static constexpr bool _type_final = false;
  static constexpr int32_t _type_child_slots = 0;
  static constexpr bool _type_child_slots_can_overflow = true;
  static int32_t RuntimeTypeIndex() { return kTVMLiteObject; }

  Object() { header_.ref_count = 0, header_.type_index = 0, header_.reserved = 0, header_.deleter = nullptr; }
  // Objects are never copied by value: identity is the pointer.
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  int32_t type_index() const { return header_.type_index; }
  const std::string& GetTypeKey() const { return TypeIndexToKey(header_.type_index); }
  int64_t use_count() const { return __atomic_load_n(&header_.ref_count, __ATOMIC_RELAXED); }

  template <typename T>
  bool IsInstance() const;

  void IncRef() { __atomic_fetch_add(&header_.ref_count, 1, __ATOMIC_RELAXED); }
  void DecRef() {
    if (__atomic_fetch_sub(&header_.ref_count, 1, __ATOMIC_ACQ_REL) == 1) details::DestroyObject(&header_);
  }

  TVMLiteObject* header() { return &header_; }
  static Object* FromHeader(TVMLiteObject* h) { return reinterpret_cast<Object*>(h); }

 protected:
  TVMLiteObject header_;

  template <typename T>
  friend class ObjectAllocator;
};

// The header must sit at offset 0 so Object* and TVMLiteObject* are interchangeable.
static_assert(sizeof(Object) == sizeof(TVMLiteObject), "Object must hold only the C header");

template <typename T>
inline bool Object::IsInstance() const {
  if constexpr (std::is_same_v<T, Object>) {
    return true;
  } else {
    const int32_t self = header_.type_index;
    const int32_t begin = T::RuntimeTypeIndex();
    if (self == begin) return true;
    if constexpr (T::_type_final) {
      return false;
    } else {
      // Children allocated in the reserved slots sit right after the parent: one range check.
      if (self > begin && self <= begin + T::_type_child_slots) return true;
      if (!T::_type_child_slots_can_overflow || self < begin) return false;
      return TypeIsDerivedFrom(self, begin);
    }
  }
}

/*! \brief Owning pointer to an Object (or subclass); one strong reference. */
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}  // NOLINT(*)
  ObjectPtr(const ObjectPtr& other) : ptr_(other.ptr_) {
    if (ptr_) ptr_->IncRef();
  }
  ObjectPtr(ObjectPtr&& other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(const ObjectPtr<U>& other) : ptr_(other.get()) {
    if (ptr_) ptr_->IncRef();
  }  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(ObjectPtr<U>&& other) : ptr_(other.release()) {}  // NOLINT(*)
  ~ObjectPtr() {
    if (ptr_) ptr_->DecRef();
  }

  ObjectPtr& operator=(ObjectPtr other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool operator==(const ObjectPtr& o) const { return ptr_ == o.ptr_; }
  bool operator!=(const ObjectPtr& o) const { return ptr_ != o.ptr_; }
  bool operator==(std::nullptr_t) const { return ptr_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return ptr_ != nullptr; }

  /*! \brief Give up ownership without a DecRef. */
  T* release() {
    T* p = ptr_;
    ptr_ = nullptr;
    return p;
  }
  /*! \brief Take over a reference the caller already owns. */
  static ObjectPtr MoveFromRaw(T* p) {
    ObjectPtr r;
    r.ptr_ = p;
    return r;
  }
  /*! \brief Share an object the caller only borrows (adds a reference). */
  static ObjectPtr CopyFromRaw(T* p) {
    if (p) p->IncRef();
    return MoveFromRaw(p);
  }

 private:
  T* ptr_{nullptr};
};

/*!
 * \brief Allocator behind make_object. Registers the runtime type, counts live objects and sets the deleter.
 * Allocate with extra > 0 to place `extra` trailing bytes right after T (strings, arrays, shapes).
 */
template <typename T>
class ObjectAllocator {
 public:
  template <typename... Args>
  static T* New(size_t extra, Args&&... args) {
    void* mem = ::operator new(sizeof(T) + extra);
    T* obj = new (mem) T(std::forward<Args>(args)...);
    obj->header_.type_index = T::RuntimeTypeIndex();
    obj->header_.ref_count = 1;
    obj->header_.deleter = &Deleter;
    details::LiveCountAdd(1);
    return obj;
  }

 private:
  static void Deleter(TVMLiteObject* h) {
    T* obj = static_cast<T*>(Object::FromHeader(h));
    obj->~T();
    ::operator delete(static_cast<void*>(obj));
    details::LiveCountAdd(-1);
  }
};

template <typename T, typename... Args>
inline ObjectPtr<T> make_object(Args&&... args) {
  return ObjectPtr<T>::MoveFromRaw(ObjectAllocator<T>::New(0, std::forward<Args>(args)...));
}

/*! \brief make_object with `extra` bytes of trailing storage after T. */
template <typename T, typename... Args>
inline ObjectPtr<T> make_inplace_object(size_t extra, Args&&... args) {
  return ObjectPtr<T>::MoveFromRaw(ObjectAllocator<T>::New(extra, std::forward<Args>(args)...));
}

/*! \brief Base of the typed references (Array, String, Function, ...): a nullable ObjectPtr<Object>. */
class ObjectRef {
 public:
  using ContainerType = Object;
  static constexpr bool _type_is_nullable = true;

  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) : data_(std::move(data)) {}

  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  bool defined() const { return data_ != nullptr; }
  bool same_as(const ObjectRef& other) const { return data_ == other.data_; }
  bool operator==(const ObjectRef& other) const { return data_ == other.data_; }
  bool operator!=(const ObjectRef& other) const { return data_ != other.data_; }
  int32_t type_index() const { return data_ ? data_->type_index() : kTVMLiteNone; }
  int64_t use_count() const { return data_ ? data_->use_count() : 0; }

  /*! \brief The object as T*, or nullptr when it is not a T. */
  template <typename T>
  const T* as() const {
    return (data_ && data_->IsInstance<T>()) ? static_cast<const T*>(data_.get()) : nullptr;
  }

  /*! \brief Raw access for the FFI: borrow and take. */
  Object* GetObjectPtrUnsafe() const { return data_.get(); }
  ObjectPtr<Object>& ObjectPtrRef() { return data_; }

 protected:
  ObjectPtr<Object> data_;

  Object* get_mutable() const { return data_.get(); }
};

/*! \brief Hash and equality by identity, for unordered containers keyed by ObjectRef. */
struct ObjectPtrHash {
  size_t operator()(const ObjectRef& a) const { return std::hash<const void*>()(a.get()); }
};
struct ObjectPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
};

}  // namespace runtime
}  // namespace tvmlite

/*!
 * \brief Declare the type info of an object class that other classes may derive from.
 * Put `static constexpr const char* _type_key = "ns.Name";` (and optionally `_type_child_slots`) before it.
 */
#define TVMLITE_DECLARE_BASE_OBJECT_INFO(TypeName, ParentType)                                                   \
  static_assert(!ParentType::_type_final, "cannot derive from a final object type");                             \
  static constexpr bool _type_final = false;                                                                     \
  static int32_t RuntimeTypeIndex() {                                                                            \
    static const int32_t tindex = ::tvmlite::runtime::TypeIndexAssign(                                           \
        TypeName::_type_index, TypeName::_type_key, ParentType::RuntimeTypeIndex(), TypeName::_type_child_slots, \
        TypeName::_type_child_slots_can_overflow);                                                               \
    return tindex;                                                                                               \
  }                                                                                                              \
  using _type_parent = ParentType

/*! \brief As TVMLITE_DECLARE_BASE_OBJECT_INFO for a class nothing derives from (IsInstance is one compare). */
#define TVMLITE_DECLARE_FINAL_OBJECT_INFO(TypeName, ParentType)                                                   \
  static constexpr int32_t _type_child_slots = 0;                                                                 \
  static constexpr bool _type_child_slots_can_overflow = false;                                                   \
  static_assert(!ParentType::_type_final, "cannot derive from a final object type");                              \
  static constexpr bool _type_final = true;                                                                       \
  static int32_t RuntimeTypeIndex() {                                                                             \
    static const int32_t tindex = ::tvmlite::runtime::TypeIndexAssign(TypeName::_type_index, TypeName::_type_key, \
                                                                      ParentType::RuntimeTypeIndex(), 0, false);  \
    return tindex;                                                                                                \
  }                                                                                                               \
  using _type_parent = ParentType

/*! \brief Default dynamic index for classes that do not pin a static one. */
#define TVMLITE_DYNAMIC_TYPE_INDEX static constexpr int32_t _type_index = ::tvmlite::runtime::kDynamicTypeIndex

/*!
 * \brief A final object type whose index is assigned at run time, declared with its key in one line (tvm-ffi's
 * TVM_FFI_DECLARE_OBJECT_INFO_FINAL(TypeKey, TypeName, ParentType) form).
 */
#define TVMLITE_DECLARE_FINAL_OBJECT(TypeKey, TypeName, ParentType) \
  static constexpr const char* _type_key = TypeKey;                 \
  TVMLITE_DYNAMIC_TYPE_INDEX;                                       \
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(TypeName, ParentType)

/*!
 * \brief Constructors and accessors of a reference class TypeName wrapping ObjectName.
 * The reference is not nullable from the FFI: a None argument is a TypeError (use Optional<T> for that).
 */
#define TVMLITE_DEFINE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName)                                    \
  TypeName() = default;                                                                                        \
  explicit TypeName(::tvmlite::runtime::ObjectPtr<::tvmlite::runtime::Object> n) : ParentType(std::move(n)) {} \
  const ObjectName* operator->() const { return static_cast<const ObjectName*>(data_.get()); }                 \
  const ObjectName* get() const { return operator->(); }                                                       \
  static constexpr bool _type_is_nullable = false;                                                             \
  using ContainerType = ObjectName

/*! \brief As TVMLITE_DEFINE_OBJECT_REF_METHODS, plus mutable access (for copy-on-write owners). */
#define TVMLITE_DEFINE_MUTABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName) \
  TVMLITE_DEFINE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName);              \
  ObjectName* operator->() { return static_cast<ObjectName*>(data_.get()); }

/*! \brief Register a type at library load so its index exists before anyone asks (stable listing order). */
#define TVMLITE_REGISTER_OBJECT_TYPE(TypeName) \
  static const int32_t TVMLITE_CONCAT(__tvmlite_type_reg_, __COUNTER__) = TypeName::RuntimeTypeIndex()

#define TVMLITE_CONCAT_IMPL(a, b) a##b
#define TVMLITE_CONCAT(a, b) TVMLITE_CONCAT_IMPL(a, b)

#endif  // TVMLITE_RUNTIME_OBJECT_H_
