/*!
 * \file containers.cc
 * \brief Owning conversions of Any, and the out-of-line parts of Array, Map and ShapeTuple.
 */
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/runtime/shape.h>

#include <cmath>
#include <cstring>

namespace tvmlite {
namespace runtime {

TVMLITE_REGISTER_OBJECT_TYPE(StringObj);
TVMLITE_REGISTER_OBJECT_TYPE(BytesObj);
TVMLITE_REGISTER_OBJECT_TYPE(ArrayObj);
TVMLITE_REGISTER_OBJECT_TYPE(MapObj);
TVMLITE_REGISTER_OBJECT_TYPE(ShapeTupleObj);

Any::Any(const AnyView& view) {
  const TVMLiteAny& v = *view.raw();
  switch (v.type_index) {
    case kTVMLiteRawStr: TypeTraits<String>::MoveToAny(String(v.v_c_str), &data_); return;
    case kTVMLiteByteArrayPtr: {
      auto* b = static_cast<const TVMLiteByteArray*>(v.v_ptr);
      TypeTraits<Bytes>::MoveToAny(Bytes(b->data, static_cast<size_t>(b->size)), &data_);
      return;
    }
    case kTVMLiteTensorView:
      TypeTraits<NDArray>::MoveToAny(RetainTensorView(static_cast<TVMLiteTensorView*>(v.v_ptr)), &data_);
      return;
    case kTVMLiteDLTensorPtr:
      // A borrowed tensor is wrapped as a view NDArray; whoever passed it keeps the memory alive.
      TypeTraits<NDArray>::MoveToAny(NDArray::FromExternal(*static_cast<DLTensor*>(v.v_ptr), nullptr, nullptr), &data_);
      return;
    default:
      data_ = v;
      if (v.type_index >= kTVMLiteStaticObjectBegin) Object::FromHeader(v.v_obj)->IncRef();
  }
}

Any::Any(const char* str) { TypeTraits<String>::MoveToAny(String(str), &data_); }

// --------------------------------------------------------------------------------------------------------------
// Array
// --------------------------------------------------------------------------------------------------------------

ObjectPtr<ArrayObj> ArrayObj::Empty(int64_t capacity) {
  ObjectPtr<ArrayObj> n = make_inplace_object<ArrayObj>(static_cast<size_t>(capacity) * sizeof(Any));
  n->cell.data = reinterpret_cast<TVMLiteAny*>(reinterpret_cast<char*>(n.get()) + sizeof(ArrayObj));
  n->cell.size = 0;
  n->cell.capacity = capacity;
  return n;
}

// --------------------------------------------------------------------------------------------------------------
// Map
// --------------------------------------------------------------------------------------------------------------

namespace {
bool IsValueKey(int32_t t) { return t < kTVMLiteStaticObjectBegin || t == kTVMLiteString || t == kTVMLiteBytes; }

/*! \brief Whether d is an integer that int64 holds exactly (then *out is it). NaN, inf and 2^63 are not. */
bool FloatAsInt(double d, int64_t* out) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != std::trunc(d)) return false;
  *out = static_cast<int64_t>(d);
  return true;
}
}  // namespace

size_t AnyKeyHash::operator()(const Any& a) const {
  const TVMLiteAny& v = *a.raw();
  switch (v.type_index) {
    case kTVMLiteString:
    case kTVMLiteBytes: {
      auto* c = TVMLITE_OBJECT_CELL(TVMLiteStringCell, v.v_obj);
      return StringHash(std::string_view(c->data, static_cast<size_t>(c->size)));
    }
    case kTVMLiteFloat: {
      // Integral floats hash like the equal int, as in Python (1.0 == 1).
      int64_t i;
      if (FloatAsInt(v.v_float64, &i)) return std::hash<int64_t>()(i);
      return std::hash<double>()(v.v_float64);
    }
    case kTVMLiteInt:
    case kTVMLiteBool: return std::hash<int64_t>()(v.v_int64);
    default: return std::hash<int64_t>()(v.v_int64) ^ static_cast<size_t>(v.type_index);
  }
}

bool AnyKeyEqual::operator()(const Any& a, const Any& b) const {
  const TVMLiteAny& x = *a.raw();
  const TVMLiteAny& y = *b.raw();
  auto numeric = [](int32_t t) { return t == kTVMLiteInt || t == kTVMLiteBool || t == kTVMLiteFloat; };
  if (numeric(x.type_index) && numeric(y.type_index)) {
    bool fx = x.type_index == kTVMLiteFloat, fy = y.type_index == kTVMLiteFloat;
    if (fx && fy) return x.v_float64 == y.v_float64;
    if (!fx && !fy) return x.v_int64 == y.v_int64;
    // int vs float: equal only when the float is exactly that integer (consistent with the hash).
    int64_t i;
    return FloatAsInt(fx ? x.v_float64 : y.v_float64, &i) && i == (fx ? y.v_int64 : x.v_int64);
  }
  if (x.type_index != y.type_index) return false;
  if (x.type_index == kTVMLiteString || x.type_index == kTVMLiteBytes) {
    auto* cx = TVMLITE_OBJECT_CELL(TVMLiteStringCell, x.v_obj);
    auto* cy = TVMLITE_OBJECT_CELL(TVMLiteStringCell, y.v_obj);
    return cx->size == cy->size && std::memcmp(cx->data, cy->data, static_cast<size_t>(cx->size)) == 0;
  }
  if (IsValueKey(x.type_index)) return x.v_int64 == y.v_int64;
  return x.v_obj == y.v_obj;
}

void MapObj::Set(Any key, Any value) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    items_[it->second].second = std::move(value);
    return;
  }
  index_.emplace(key, items_.size());
  items_.emplace_back(std::move(key), std::move(value));
}

ObjectPtr<MapObj> MapObj::Copy() const {
  ObjectPtr<MapObj> n = make_object<MapObj>();
  n->items_ = items_;
  n->index_ = index_;
  return n;
}

// --------------------------------------------------------------------------------------------------------------
// ShapeTuple
// --------------------------------------------------------------------------------------------------------------

ShapeTuple::ShapeTuple(const int64_t* dims, size_t ndim) {
  ObjectPtr<ShapeTupleObj> n = make_inplace_object<ShapeTupleObj>(ndim * sizeof(int64_t));
  auto* dst = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(n.get()) + sizeof(ShapeTupleObj));
  if (ndim) std::memcpy(dst, dims, ndim * sizeof(int64_t));
  n->cell.data = dst;
  n->cell.size = static_cast<int64_t>(ndim);
  data_ = std::move(n);
}

}  // namespace runtime
}  // namespace tvmlite
