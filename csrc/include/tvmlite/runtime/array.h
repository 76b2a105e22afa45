/*!
 * \file tvmlite/runtime/array.h
 * \brief Array<T>: an immutable-by-default sequence of Any with copy-on-write mutation.
 *
 * The elements live inline after the object (one allocation); the C cell points at them so the Cython core can
 * index an Array without a call.
 */
#ifndef TVMLITE_RUNTIME_ARRAY_H_
#define TVMLITE_RUNTIME_ARRAY_H_

#include <tvmlite/runtime/any.h>

#include <initializer_list>
#include <vector>

namespace tvmlite {
namespace runtime {

class ArrayObj : public Object {
 public:
  TVMLiteSeqCell cell;  // must directly follow the header

  ~ArrayObj() {
    Any* items = data();
    for (int64_t i = 0; i < cell.size; ++i) items[i].~Any();
  }
  int64_t size() const { return cell.size; }
  int64_t capacity() const { return cell.capacity; }
  Any* data() const { return reinterpret_cast<Any*>(cell.data); }
  const Any& at(int64_t i) const { return data()[i]; }

  /*! \brief A new array with room for capacity elements and size 0. */
  static ObjectPtr<ArrayObj> Empty(int64_t capacity);
  /*! \brief Append in place; the caller guarantees size < capacity. */
  void EmplaceBack(Any value) {
    new (data() + cell.size) Any(std::move(value));
    ++cell.size;
  }

  static constexpr const char* _type_key = "runtime.Array";
  static constexpr int32_t _type_index = kTVMLiteArray;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(ArrayObj, Object);
};

template <typename T>
class Array : public ObjectRef {
 public:
  Array() : ObjectRef(ArrayObj::Empty(0)) {}
  Array(std::initializer_list<T> init) : Array(init.begin(), init.end()) {}
  Array(const std::vector<T>& init) : Array(init.begin(), init.end()) {}  // NOLINT(*)
  template <typename Iter>
  Array(Iter first, Iter last) {
    ObjectPtr<ArrayObj> n = ArrayObj::Empty(static_cast<int64_t>(std::distance(first, last)));
    for (; first != last; ++first) n->EmplaceBack(Any(T(*first)));
    data_ = std::move(n);
  }
  explicit Array(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}

  const ArrayObj* get() const { return static_cast<const ArrayObj*>(data_.get()); }
  const ArrayObj* operator->() const { return get(); }
  size_t size() const { return static_cast<size_t>(get()->size()); }
  bool empty() const { return size() == 0; }

  T operator[](size_t i) const {
    TVMLITE_CHECK_KIND(i < size(), IndexError) << "Array index " << i << " out of range for size " << size();
    return get()->at(static_cast<int64_t>(i)).template cast<T>();
  }
  T back() const { return (*this)[size() - 1]; }

  /*! \brief Append; copies the storage first when it is shared or full (copy-on-write). */
  void push_back(T value) {
    ArrayObj* n = MutableWithRoom(1);
    n->EmplaceBack(Any(std::move(value)));
  }
  /*! \brief Replace element i; copies the storage first when it is shared. */
  void Set(size_t i, T value) {
    TVMLITE_CHECK_KIND(i < size(), IndexError) << "Array index " << i << " out of range for size " << size();
    MutableWithRoom(0)->data()[i] = Any(std::move(value));
  }

  class iterator {
   public:
    iterator(const Any* p) : p_(p) {}  // NOLINT(*)
    T operator*() const { return p_->template cast<T>(); }
    iterator& operator++() {
      ++p_;
      return *this;
    }
    bool operator!=(const iterator& o) const { return p_ != o.p_; }
    bool operator==(const iterator& o) const { return p_ == o.p_; }

   private:
    const Any* p_;
  };
  iterator begin() const { return iterator(get()->data()); }
  iterator end() const { return iterator(get()->data() + get()->size()); }

  static constexpr bool _type_is_nullable = false;
  using ContainerType = ArrayObj;

 private:
  ArrayObj* MutableWithRoom(int64_t extra) {
    ArrayObj* cur = static_cast<ArrayObj*>(data_.get());
    if (cur->use_count() == 1 && cur->size() + extra <= cur->capacity()) return cur;
    int64_t cap = cur->size() + extra;
    if (extra) cap = std::max<int64_t>(cap, cur->capacity() * 2);
    ObjectPtr<ArrayObj> n = ArrayObj::Empty(cap);
    for (int64_t i = 0; i < cur->size(); ++i) n->EmplaceBack(cur->at(i));
    data_ = std::move(n);
    return static_cast<ArrayObj*>(data_.get());
  }
};

/*! \brief An Array<T> argument must be an Array whose every element converts to T. */
template <typename T>
struct ObjectRefConvert<Array<T>> {
  static bool Check(const Object* obj) {
    if (obj->type_index() != kTVMLiteArray) return false;
    if constexpr (std::is_same_v<T, Any> || std::is_same_v<T, ObjectRef>) {
      return true;
    } else {
      auto* arr = static_cast<const ArrayObj*>(obj);
      for (int64_t i = 0; i < arr->size(); ++i) {
        if (!arr->at(i).template as<T>().has_value()) return false;
      }
      return true;
    }
  }
  static std::optional<Array<T>> FromValue(const TVMLiteAny*) { return std::nullopt; }
  static std::string TypeStr() { return "Array<" + TypeTraits<T>::TypeStr() + ">"; }
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_ARRAY_H_
