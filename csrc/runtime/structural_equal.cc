/*!
 * \file structural_equal.cc
 * \brief Structural equality (see tvmlite/runtime/structural.h), the reflection helpers it shares with hashing and
 * JSON, and two small testing types that exercise variable binding.
 *
 * The walk uses an explicit stack instead of recursion, so a deep graph (a long chain of let-bindings) cannot
 * overflow the C stack. Every pair pushed must be equal for the answer to be true and the first difference ends
 * the walk; so a pair of objects is expanded only once (memo), and a pair met again while being compared
 * (a cycle) may be taken as equal.
 */
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/structural.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "./type_registry.h"

namespace tvmlite {
namespace runtime {

// --------------------------------------------------------------------------------------------------------------
// Shared helpers (declared in structural.h)
// --------------------------------------------------------------------------------------------------------------

namespace {
// One flag per possible type index: read on every object compared, so no lock and no hashing.
std::atomic<bool> var_types[TypeRegistry::kMaxTypes];
}  // namespace

void MarkVarType(int32_t type_index) {
  TVMLITE_CHECK_KIND(TypeRegistry::Global()->Get(type_index) != nullptr, ValueError)
      << "MarkVarType: unknown type index " << type_index;
  var_types[type_index].store(true, std::memory_order_release);
}

bool IsVarType(int32_t type_index) {
  return type_index >= 0 && type_index < TypeRegistry::kMaxTypes &&
         var_types[type_index].load(std::memory_order_acquire);
}

namespace details {

Any ReadField(const Object* obj, const TVMLiteFieldInfo& field) {
  TVMLiteAny out;
  AnySetNone(&out);
  void* addr = reinterpret_cast<char*>(const_cast<Object*>(obj)) + field.offset;
  if (field.getter(addr, &out) != 0) throw Error::MoveFromRaised();
  return Any::MoveFromRaw(out);
}

bool HasReflectedStructure(int32_t type_index) {
  if (IsDynType(type_index)) return true;
  const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(type_index);
  if (info == nullptr) return false;
  if (info->creator != nullptr) return true;
  bool any_field = false;
  ForEachReflectedField(type_index, [&](const TVMLiteFieldInfo&) { any_field = true; });
  return any_field;
}

std::string_view TensorBytes(const DLTensor& t, std::string* scratch) {
  const size_t elem = static_cast<size_t>(DataType(t.dtype).bytes());
  int64_t numel = 1;
  for (int32_t i = 0; i < t.ndim; ++i) numel *= t.shape[i];
  if (numel <= 0 || elem == 0) return {};
  TVMLITE_CHECK_KIND(t.data != nullptr, ValueError) << "NDArray has no data";
  const char* base = static_cast<const char*>(t.data) + t.byte_offset;
  bool compact = true;
  if (t.strides != nullptr) {
    int64_t expected = 1;
    for (int32_t i = t.ndim - 1; i >= 0; --i) {
      if (t.shape[i] != 1 && t.strides[i] != expected) compact = false;
      expected *= t.shape[i];
    }
  }
  if (compact) return {base, static_cast<size_t>(numel) * elem};
  // Strided view: gather the elements in row-major order, walking the index like an odometer.
  scratch->resize(static_cast<size_t>(numel) * elem);
  std::vector<int64_t> idx(static_cast<size_t>(t.ndim), 0);
  for (int64_t k = 0; k < numel; ++k) {
    int64_t off = 0;
    for (int32_t d = 0; d < t.ndim; ++d) off += idx[d] * t.strides[d];
    std::memcpy(&(*scratch)[static_cast<size_t>(k) * elem], base + off * static_cast<int64_t>(elem), elem);
    for (int32_t d = t.ndim - 1; d >= 0 && ++idx[d] == t.shape[d]; --d) idx[d] = 0;
  }
  return *scratch;
}

}  // namespace details

// --------------------------------------------------------------------------------------------------------------
// The checker
// --------------------------------------------------------------------------------------------------------------

namespace {

Any AnyFromObject(const Object* obj) {
  return Any(ObjectRef(ObjectPtr<Object>::CopyFromRaw(const_cast<Object*>(obj))));
}

/*! \brief A short rendering of a value for mismatch messages. */
std::string Repr(const Any& v) {
  const TVMLiteAny& a = *v.raw();
  switch (a.type_index) {
    case kTVMLiteNone: return "None";
    case kTVMLiteInt: return std::to_string(a.v_int64);
    case kTVMLiteBool: return a.v_int64 ? "True" : "False";
    case kTVMLiteFloat: {
      std::ostringstream os;
      os.precision(17);
      os << a.v_float64;
      return os.str();
    }
    case kTVMLiteDataType: return DLDataTypeToString(a.v_dtype);
    case kTVMLiteString: {
      std::string_view s = static_cast<const StringObj*>(v.object())->view();
      return "'" + std::string(s.substr(0, 40)) + (s.size() > 40 ? "...'" : "'");
    }
    default: return AnyTypeStr(a);
  }
}

class StructuralEqualChecker {
 public:
  StructuralEqualChecker(bool map_free_vars, bool trace) : map_free_vars_(map_free_vars), trace_(trace) {}

  bool Run(const Any& lhs, const Any& rhs) {
    Push(lhs, rhs, false, -1, [] { return std::string("root"); });
    while (!stack_.empty()) {
      Task t = std::move(stack_.back());
      stack_.pop_back();
      if (!Check(t)) return false;
    }
    return true;
  }

  /*! \brief "path: reason" of the first difference (trace mode). */
  std::string Mismatch() const {
    std::vector<const std::string*> parts;
    for (int64_t s = fail_step_; s >= 0; s = steps_[s].parent) parts.push_back(&steps_[s].label);
    std::string path;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) path += **it;
    return path + ": " + reason_;
  }

 private:
  struct Task {
    Any lhs, rhs;
    bool define;   // below a kFieldDefinition field: variables met here get bound
    int64_t step;  // index into steps_ (trace mode), -1 otherwise
  };
  struct Step {
    int64_t parent;
    std::string label;  // "root", ".name", "[3]", "[key]"
  };
  struct MemoKey {
    const Object* lhs;
    const Object* rhs;
    bool define;
    bool operator==(const MemoKey& o) const { return lhs == o.lhs && rhs == o.rhs && define == o.define; }
  };
  struct MemoHash {
    size_t operator()(const MemoKey& k) const {
      return std::hash<const void*>()(k.lhs) * 31 + std::hash<const void*>()(k.rhs) + k.define;
    }
  };

  // The label is only built when tracing, so the fast mode makes no strings.
  template <typename LabelFn>
  void Push(Any lhs, Any rhs, bool define, int64_t parent_step, LabelFn label) {
    int64_t step = -1;
    if (trace_) {
      step = static_cast<int64_t>(steps_.size());
      steps_.push_back(Step{parent_step, label()});
    }
    stack_.push_back(Task{std::move(lhs), std::move(rhs), define, step});
  }

  bool Fail(const Task& t, std::string reason) {
    if (trace_) fail_step_ = t.step, reason_ = std::move(reason);
    return false;
  }
  bool FailValues(const Task& t) { return trace_ ? Fail(t, Repr(t.lhs) + " vs " + Repr(t.rhs)) : false; }

  bool Check(const Task& t) {
    const TVMLiteAny& a = *t.lhs.raw();
    const TVMLiteAny& b = *t.rhs.raw();
    if (a.type_index != b.type_index) {
      return trace_ ? Fail(t, "type " + AnyTypeStr(a) + " vs " + AnyTypeStr(b)) : false;
    }
    switch (a.type_index) {
      case kTVMLiteNone: return true;
      case kTVMLiteInt:
      case kTVMLiteBool: return a.v_int64 == b.v_int64 || FailValues(t);
      case kTVMLiteFloat:
        return a.v_float64 == b.v_float64 || (std::isnan(a.v_float64) && std::isnan(b.v_float64)) || FailValues(t);
      case kTVMLiteOpaquePtr: return a.v_ptr == b.v_ptr || FailValues(t);
      case kTVMLiteDataType:
        return (a.v_dtype.code == b.v_dtype.code && a.v_dtype.bits == b.v_dtype.bits &&
                a.v_dtype.lanes == b.v_dtype.lanes) ||
               FailValues(t);
      case kTVMLiteDevice:
        return (DeviceTypeCode(a.v_device) == DeviceTypeCode(b.v_device) &&
                a.v_device.device_id == b.v_device.device_id) ||
               FailValues(t);
      default: break;
    }
    TVMLITE_ICHECK(a.type_index >= kTVMLiteStaticObjectBegin) << "borrowed value kind in an owned Any";
    return CheckObject(t, Object::FromHeader(a.v_obj), Object::FromHeader(b.v_obj));
  }

  bool CheckObject(const Task& t, const Object* x, const Object* y) {
    const int32_t tindex = x->type_index();
    if (IsVarType(tindex)) return CheckVar(t, x, y);
    if (x == y) return true;
    switch (tindex) {
      case kTVMLiteString:
      case kTVMLiteBytes:
        return static_cast<const BytesObjBase*>(x)->view() == static_cast<const BytesObjBase*>(y)->view() ||
               FailValues(t);
      case kTVMLiteShape: {
        const TVMLiteShapeCell& cx = static_cast<const ShapeTupleObj*>(x)->cell;
        const TVMLiteShapeCell& cy = static_cast<const ShapeTupleObj*>(y)->cell;
        return (cx.size == cy.size && std::equal(cx.data, cx.data + cx.size, cy.data)) || Fail(t, "ShapeTuples differ");
      }
      case kTVMLiteNDArray:
        return CheckNDArray(t, static_cast<const NDArrayObj*>(x)->tensor, static_cast<const NDArrayObj*>(y)->tensor);
      case kTVMLiteArray: return CheckArray(t, static_cast<const ArrayObj*>(x), static_cast<const ArrayObj*>(y));
      case kTVMLiteMap: return CheckMap(t, static_cast<const MapObj*>(x), static_cast<const MapObj*>(y));
      default: break;
    }
    if (!details::HasReflectedStructure(tindex)) {
      return Fail(t, "two distinct objects of the opaque type " + x->GetTypeKey() + " (compared by identity)");
    }
    if (!memo_.insert(MemoKey{x, y, t.define}).second) return true;
    PushFields(t, x, y);
    return true;
  }

  bool CheckNDArray(const Task& t, const DLTensor& a, const DLTensor& b) {
    if (a.ndim != b.ndim || !std::equal(a.shape, a.shape + a.ndim, b.shape)) return Fail(t, "NDArray shapes differ");
    if (a.dtype.code != b.dtype.code || a.dtype.bits != b.dtype.bits || a.dtype.lanes != b.dtype.lanes) {
      return Fail(t, "NDArray dtypes differ: " + DLDataTypeToString(a.dtype) + " vs " + DLDataTypeToString(b.dtype));
    }
    std::string sa, sb;
    return details::TensorBytes(a, &sa) == details::TensorBytes(b, &sb) || Fail(t, "NDArray contents differ");
  }

  bool CheckArray(const Task& t, const ArrayObj* x, const ArrayObj* y) {
    if (x->size() != y->size()) {
      return Fail(t, "Array sizes differ: " + std::to_string(x->size()) + " vs " + std::to_string(y->size()));
    }
    if (!memo_.insert(MemoKey{x, y, t.define}).second) return true;
    const size_t base = stack_.size();
    for (int64_t i = 0; i < x->size(); ++i) {
      Push(x->at(i), y->at(i), t.define, t.step, [i] { return "[" + std::to_string(i) + "]"; });
    }
    std::reverse(stack_.begin() + base, stack_.end());  // pop (compare) in order: definitions before uses
    return true;
  }

  bool CheckMap(const Task& t, const MapObj* x, const MapObj* y) {
    if (x->size() != y->size()) {
      return Fail(t, "Map sizes differ: " + std::to_string(x->size()) + " vs " + std::to_string(y->size()));
    }
    if (!memo_.insert(MemoKey{x, y, t.define}).second) return true;
    const size_t base = stack_.size();
    for (const auto& kv : x->items()) {
      const Any* rv = nullptr;
      // A key that is a bound variable is looked up as the variable it is bound to.
      auto bound = kv.first.object() ? lhs2rhs_.find(kv.first.object()) : lhs2rhs_.end();
      rv = bound != lhs2rhs_.end() ? y->Find(AnyFromObject(bound->second)) : y->Find(kv.first);
      if (rv == nullptr) return Fail(t, "key " + Repr(kv.first) + " is missing on the right");
      Push(kv.second, *rv, t.define, t.step, [&kv] { return "[" + Repr(kv.first) + "]"; });
    }
    std::reverse(stack_.begin() + base, stack_.end());
    return true;
  }

  void PushFields(const Task& t, const Object* x, const Object* y) {
    const size_t base = stack_.size();
    details::ForEachReflectedField(x->type_index(), [&](const TVMLiteFieldInfo& f) {
      if (f.flags & kTVMLiteFieldNoCompare) return;
      Push(details::ReadField(x, f), details::ReadField(y, f), t.define || (f.flags & kFieldDefinition), t.step,
           [&f] { return "." + std::string(f.name.data, static_cast<size_t>(f.name.size)); });
    });
    std::reverse(stack_.begin() + base, stack_.end());
  }

  // Variables: equal when bound to each other; a binding is made (one-to-one) in definition mode or when free
  // variables may be mapped, and only after the variables' own fields (their type) compare equal.
  bool CheckVar(const Task& t, const Object* x, const Object* y) {
    auto it = lhs2rhs_.find(x);
    if (it != lhs2rhs_.end()) return it->second == y || Fail(t, "variable is bound to a different variable");
    if (rhs2lhs_.count(y)) return Fail(t, "the right variable is bound to a different left variable");
    if (x != y && !t.define && !map_free_vars_) return Fail(t, "different free variables");
    // Bind a variable met on both sides to itself too, so the other side cannot later bind it to another one.
    lhs2rhs_.emplace(x, y);
    rhs2lhs_.emplace(y, x);
    if (x != y) PushFields(t, x, y);
    return true;
  }

  bool map_free_vars_;
  bool trace_;
  std::vector<Task> stack_;
  std::unordered_set<MemoKey, MemoHash> memo_;
  std::unordered_map<const Object*, const Object*> lhs2rhs_, rhs2lhs_;
  std::vector<Step> steps_;
  int64_t fail_step_ = -1;
  std::string reason_;
};

}  // namespace

bool StructuralEqual(const Any& lhs, const Any& rhs, bool map_free_vars) {
  return StructuralEqualChecker(map_free_vars, false).Run(lhs, rhs);
}

std::optional<std::string> StructuralMismatch(const Any& lhs, const Any& rhs, bool map_free_vars) {
  StructuralEqualChecker checker(map_free_vars, true);
  if (checker.Run(lhs, rhs)) return std::nullopt;
  return checker.Mismatch();
}

namespace {
/*! \brief (lhs, rhs[, map_free_vars]) from a packed call. */
bool MapFreeVarsArg(const PackedArgs& args, const char* name) {
  TVMLITE_CHECK_KIND(args.size() == 2 || args.size() == 3, TypeError)
      << name << " takes (lhs, rhs, map_free_vars=False), got " << args.size() << " arguments";
  return args.size() == 3 && args[2].cast<bool>();
}
}  // namespace

TVMLITE_REGISTER_GLOBAL("runtime.StructuralEqual").set_body_packed([](PackedArgs args, Any* rv) {
  bool map_free_vars = MapFreeVarsArg(args, "runtime.StructuralEqual");
  *rv = StructuralEqual(Any(args[0]), Any(args[1]), map_free_vars);
});

/*! \brief None when equal, else "path: reason" of the first difference. */
TVMLITE_REGISTER_GLOBAL("runtime.StructuralMismatch").set_body_packed([](PackedArgs args, Any* rv) {
  bool map_free_vars = MapFreeVarsArg(args, "runtime.StructuralMismatch");
  std::optional<std::string> m = StructuralMismatch(Any(args[0]), Any(args[1]), map_free_vars);
  if (m.has_value()) *rv = String(*m);
});

}  // namespace runtime
}  // namespace tvmlite
