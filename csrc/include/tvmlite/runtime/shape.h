/*!
 * \file tvmlite/runtime/shape.h
 * \brief ShapeTuple: an immutable tuple of int64 dimensions stored inline (one allocation).
 */
#ifndef TVMLITE_RUNTIME_SHAPE_H_
#define TVMLITE_RUNTIME_SHAPE_H_

#include <tvmlite/runtime/array.h>

#include <ostream>
#include <vector>

namespace tvmlite {
namespace runtime {

class ShapeTupleObj : public Object {
 public:
  TVMLiteShapeCell cell;  // must directly follow the header

  static constexpr const char* _type_key = "runtime.ShapeTuple";
  static constexpr int32_t _type_index = kTVMLiteShape;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(ShapeTupleObj, Object);
};

class ShapeTuple : public ObjectRef {
 public:
  using index_type = int64_t;
  ShapeTuple() : ShapeTuple(nullptr, 0) {}
  ShapeTuple(const int64_t* dims, size_t ndim);
  ShapeTuple(std::initializer_list<int64_t> dims) : ShapeTuple(dims.begin(), dims.size()) {}
  ShapeTuple(const std::vector<int64_t>& dims) : ShapeTuple(dims.data(), dims.size()) {}  // NOLINT(*)
  explicit ShapeTuple(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}

  const ShapeTupleObj* get() const { return static_cast<const ShapeTupleObj*>(data_.get()); }
  const int64_t* data() const { return get()->cell.data; }
  size_t size() const { return static_cast<size_t>(get()->cell.size); }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t at(size_t i) const {
    TVMLITE_CHECK_KIND(i < size(), IndexError) << "ShapeTuple index " << i << " out of range for size " << size();
    return data()[i];
  }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size(); }
  /*! \brief Product of the dimensions. */
  int64_t Product() const {
    int64_t p = 1;
    for (int64_t d : *this) p *= d;
    return p;
  }

  static constexpr bool _type_is_nullable = false;
  using ContainerType = ShapeTupleObj;
};

inline std::ostream& operator<<(std::ostream& os, const ShapeTuple& shape) {
  os << '(';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  return os << (shape.size() == 1 ? ",)" : ")");
}

/*! \brief A ShapeTuple argument also accepts an Array of ints (a Python tuple or list). */
template <>
struct ObjectRefConvert<ShapeTuple> {
  static bool Check(const Object* obj) { return obj->type_index() == kTVMLiteShape; }
  static std::optional<ShapeTuple> FromValue(const TVMLiteAny* v) {
    if (v->type_index != kTVMLiteArray) return std::nullopt;
    auto* arr = reinterpret_cast<const ArrayObj*>(v->v_obj);
    std::vector<int64_t> dims;
    dims.reserve(static_cast<size_t>(arr->size()));
    for (int64_t i = 0; i < arr->size(); ++i) {
      if (arr->at(i).type_index() != kTVMLiteInt) return std::nullopt;
      dims.push_back(arr->at(i).raw()->v_int64);
    }
    return ShapeTuple(dims);
  }
  static std::string TypeStr() { return "ShapeTuple"; }
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_SHAPE_H_
