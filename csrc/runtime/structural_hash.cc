/*!
 * \file structural_hash.cc
 * \brief Structural hashing (see tvmlite/runtime/structural.h).
 *
 * Rules that keep the hash consistent with StructuralEqual and the same in every run:
 *  - no pointer values and no run-time type indices: objects hash their type key (StringHash);
 *  - whatever equality treats as equal hashes alike: NaN == NaN, 0.0 == -0.0, Map entries in any order, Map keys
 *    by the Map's key rule (1, 1.0 and True are one key), opaque objects by type only;
 *  - a variable hashes its fields and the order of its first occurrence (so fn(x, y) { x } and fn(x, y) { y }
 *    differ), never its identity.
 * The walk is post-order with an explicit stack (no C stack overflow on deep graphs); each object is hashed once
 * (DAGs), and an object met again while its own hash is being computed is a cycle, which is an error.
 */
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/structural.h>

#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tvmlite {
namespace runtime {

namespace {

/*! \brief splitmix64's finaliser: every input bit affects every output bit. */
inline uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/*! \brief Order-dependent combination (boost's hash_combine widened to 64 bits). */
inline uint64_t Combine(uint64_t h, uint64_t v) { return Mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2))); }

/*! \brief Hash of a byte buffer, eight bytes per step (tensor data can be large). Deterministic on one endianness. */
uint64_t BytesHash(std::string_view s) {
  uint64_t h = 0x243f6a8885a308d3ULL ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ Mix(w)) * 0x100000001b3ULL;
  }
  uint64_t tail = 0;
  // No zero-size copy: an empty view (an empty tensor's bytes) may have a null data(), and memcpy from null is
  // undefined even for zero bytes.
  if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);
  return Mix(h ^ Mix(tail + s.size() - i));
}

uint64_t FloatBits(double d) {
  if (std::isnan(d)) d = std::nan("");  // every NaN is equal to every other
  if (d == 0.0) d = 0.0;                // -0.0 == 0.0
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

uint64_t TypeKeyHash(const Object* obj) { return StringHash(obj->GetTypeKey()); }

/*! \brief Hash of a plain (non-object) value; the tag is its static type index, fixed by the C ABI. */
uint64_t PlainHash(const TVMLiteAny& a) {
  uint64_t h = Mix(static_cast<uint64_t>(a.type_index));
  switch (a.type_index) {
    case kTVMLiteInt:
    case kTVMLiteBool: return Combine(h, static_cast<uint64_t>(a.v_int64));
    case kTVMLiteFloat: return Combine(h, FloatBits(a.v_float64));
    case kTVMLiteDataType: return Combine(Combine(Combine(h, a.v_dtype.code), a.v_dtype.bits), a.v_dtype.lanes);
    case kTVMLiteDevice:
      return Combine(Combine(h, static_cast<uint64_t>(DeviceTypeCode(a.v_device))),
                     static_cast<uint64_t>(a.v_device.device_id));
    default:  // None; an opaque pointer hashes by kind only (its value is not deterministic)
      return h;
  }
}

/*! \brief Objects hashed without looking at children: strings, shapes, tensors and opaque objects. */
bool IsLeaf(int32_t tindex) {
  switch (tindex) {
    case kTVMLiteString:
    case kTVMLiteBytes:
    case kTVMLiteShape:
    case kTVMLiteNDArray: return true;
    case kTVMLiteArray:
    case kTVMLiteMap: return false;
    default: return !IsVarType(tindex) && !details::HasReflectedStructure(tindex);
  }
}

class StructuralHasher {
 public:
  uint64_t Run(const Any& root) {
    const Object* obj = root.object();
    if (obj == nullptr) return PlainHash(*root.raw());
    if (IsLeaf(obj->type_index())) return LeafHash(obj);
    stack_.push_back(Frame{obj, {}, false});
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      if (f.expanded) {
        memo_[f.obj] = Finish(f);
        on_path_.erase(f.obj);
        stack_.pop_back();
      } else if (memo_.count(f.obj)) {
        stack_.pop_back();  // reached twice before it was hashed: done by the first visit
      } else {
        TVMLITE_CHECK_KIND(on_path_.insert(f.obj).second, ValueError)
            << "StructuralHash: the object graph has a cycle through a " << f.obj->GetTypeKey();
        Expand(&f);
      }
    }
    return memo_.at(obj);
  }

 private:
  struct Frame {
    const Object* obj;
    std::vector<Any> children;  // field values / items / interleaved keys and values, owned (getters copy)
    bool expanded;
  };

  void Expand(Frame* f) {
    const Object* obj = f->obj;
    switch (obj->type_index()) {
      case kTVMLiteArray: {
        auto* arr = static_cast<const ArrayObj*>(obj);
        f->children.assign(arr->data(), arr->data() + arr->size());
        break;
      }
      case kTVMLiteMap:
        for (const auto& kv : static_cast<const MapObj*>(obj)->items()) {
          f->children.push_back(kv.first);
          f->children.push_back(kv.second);
        }
        break;
      default:
        // Numbered at first sight, in the pre-order that equality walks in too.
        if (IsVarType(obj->type_index())) var_order_.emplace(obj, var_order_.size());
        details::ForEachReflectedField(obj->type_index(), [&](const TVMLiteFieldInfo& fi) {
          if (!(fi.flags & kTVMLiteFieldNoCompare)) f->children.push_back(details::ReadField(obj, fi));
        });
    }
    f->expanded = true;
    // Copy what to visit first: pushing may move the frames (and f with them).
    std::vector<const Object*> todo;
    for (const Any& c : f->children) {
      const Object* co = c.object();
      if (co != nullptr && !IsLeaf(co->type_index()) && !memo_.count(co)) todo.push_back(co);
    }
    for (auto it = todo.rbegin(); it != todo.rend(); ++it) stack_.push_back(Frame{*it, {}, false});
  }

  uint64_t Finish(const Frame& f) {
    const Object* obj = f.obj;
    uint64_t h = Combine(TypeKeyHash(obj), f.children.size());
    if (obj->type_index() == kTVMLiteMap) {
      // Entries in any order: a commutative sum of entry hashes.
      uint64_t sum = 0;
      for (size_t i = 0; i < f.children.size(); i += 2) {
        sum += Mix(Combine(KeyHash(f.children[i]), ValueHash(f.children[i + 1])));
      }
      return Combine(h, sum);
    }
    for (const Any& c : f.children) h = Combine(h, ValueHash(c));
    auto var = var_order_.find(obj);
    if (var != var_order_.end()) h = Combine(h, var->second);
    return h;
  }

  uint64_t ValueHash(const Any& v) {
    const Object* obj = v.object();
    if (obj == nullptr) return PlainHash(*v.raw());
    auto it = memo_.find(obj);
    if (it != memo_.end()) return it->second;
    return LeafHash(obj);  // children that are not leaves were hashed before their parent finished
  }

  /*! \brief Map keys follow the Map's rule: numbers by value across int/bool/float, strings by content. */
  uint64_t KeyHash(const Any& k) {
    const TVMLiteAny& a = *k.raw();
    if (a.type_index == kTVMLiteInt || a.type_index == kTVMLiteBool) return Mix(static_cast<uint64_t>(a.v_int64));
    if (a.type_index == kTVMLiteFloat) {
      double d = a.v_float64;
      if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d))) {
        return Mix(static_cast<uint64_t>(static_cast<int64_t>(d)));
      }
      return Mix(FloatBits(d));
    }
    return ValueHash(k);
  }

  uint64_t LeafHash(const Object* obj) {
    auto it = memo_.find(obj);
    if (it != memo_.end()) return it->second;
    uint64_t h = TypeKeyHash(obj);
    switch (obj->type_index()) {
      case kTVMLiteString:
      case kTVMLiteBytes: h = Combine(h, StringHash(static_cast<const BytesObjBase*>(obj)->view())); break;
      case kTVMLiteShape: {
        const TVMLiteShapeCell& c = static_cast<const ShapeTupleObj*>(obj)->cell;
        h = Combine(h, static_cast<uint64_t>(c.size));
        for (int64_t i = 0; i < c.size; ++i) h = Combine(h, static_cast<uint64_t>(c.data[i]));
        break;
      }
      case kTVMLiteNDArray: {
        const DLTensor& t = static_cast<const NDArrayObj*>(obj)->tensor;
        h = Combine(h, static_cast<uint64_t>(t.ndim));
        for (int32_t i = 0; i < t.ndim; ++i) h = Combine(h, static_cast<uint64_t>(t.shape[i]));
        h = Combine(Combine(Combine(h, t.dtype.code), t.dtype.bits), t.dtype.lanes);
        std::string scratch;
        h = Combine(h, BytesHash(details::TensorBytes(t, &scratch)));
        break;
      }
      default:  // opaque: equal only to itself, so the type alone is a consistent (if weak) hash
        break;
    }
    // Strings are too cheap to be worth a table entry; tensors and shapes are not.
    if (obj->type_index() == kTVMLiteNDArray) memo_.emplace(obj, h);
    return h;
  }

  std::vector<Frame> stack_;
  std::unordered_map<const Object*, uint64_t> memo_;
  std::unordered_set<const Object*> on_path_;
  std::unordered_map<const Object*, uint64_t> var_order_;
};

}  // namespace

uint64_t StructuralHash(const Any& value) { return StructuralHasher().Run(value); }

TVMLITE_REGISTER_GLOBAL("runtime.StructuralHash").set_body_packed([](PackedArgs args, Any* rv) {
  // The optional second argument (map_free_vars) is accepted for TVM compatibility: variables hash by their order
  // of first occurrence either way, which agrees with equality in both modes.
  TVMLITE_CHECK_KIND(args.size() == 1 || args.size() == 2, TypeError)
      << "runtime.StructuralHash takes (value, map_free_vars=False), got " << args.size() << " arguments";
  *rv = static_cast<int64_t>(StructuralHash(Any(args[0])));
});

}  // namespace runtime
}  // namespace tvmlite
