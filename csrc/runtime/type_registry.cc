/*!
 * \file type_registry.cc
 * \brief Type key <-> type index, ancestors, reserved child slots and reflected fields.
 *
 * Indices are handed out once and never change. A base class may reserve child slots: its children are numbered
 * right after it, so IsInstance is a range check; children past the reservation (when allowed) take fresh indices
 * and IsInstance falls back to the ancestor list. Readers never lock: entries are published through atomic pointers
 * and never freed (the registry lives for the process).
 */
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "./type_registry.h"

namespace tvmlite {
namespace runtime {

namespace details {
namespace {
/*!
 * \brief Live objects are counted per thread (a plain add on every allocation and free, no lock-prefixed atomic on
 * a shared cache line) and summed when asked. A thread's count is folded into `retired` when it exits; an object
 * freed on another thread than it was made on is simply +1 there and -1 here.
 */
struct LiveCounters {
  std::mutex mu;
  std::vector<std::atomic<int64_t>*> threads;
  int64_t retired = 0;
  static LiveCounters* Global() {
    static LiveCounters* inst = new LiveCounters();  // leaked: threads may exit during static destruction
    return inst;
  }
};

struct ThreadLiveCounter {
  std::atomic<int64_t> value{0};
  ThreadLiveCounter() {
    LiveCounters* g = LiveCounters::Global();
    std::lock_guard<std::mutex> lock(g->mu);
    g->threads.push_back(&value);
  }
  ~ThreadLiveCounter() {
    LiveCounters* g = LiveCounters::Global();
    std::lock_guard<std::mutex> lock(g->mu);
    g->retired += value.load(std::memory_order_relaxed);
    g->threads.erase(std::find(g->threads.begin(), g->threads.end(), &value));
  }
};
thread_local ThreadLiveCounter this_thread_live;
}  // namespace

void LiveCountAdd(int64_t delta) {
  // Only this thread writes its counter: a relaxed load and store is exact and compiles to a plain add.
  std::atomic<int64_t>& v = this_thread_live.value;
  v.store(v.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

void DestroyObject(TVMLiteObject* header) {
  // Like CPython's trashcan: nested destructions are deferred to the outermost one on this thread.
  static thread_local bool destroying = false;
  static thread_local std::vector<TVMLiteObject*> pending;
  if (destroying) {
    pending.push_back(header);
    return;
  }
  destroying = true;
  header->deleter(header);
  while (!pending.empty()) {
    TVMLiteObject* next = pending.back();
    pending.pop_back();
    next->deleter(next);
  }
  destroying = false;
}
int64_t LiveCount() {
  LiveCounters* g = LiveCounters::Global();
  std::lock_guard<std::mutex> lock(g->mu);
  int64_t sum = g->retired;
  for (const std::atomic<int64_t>* v : g->threads) sum += v->load(std::memory_order_relaxed);
  return sum;
}
}  // namespace details

TypeRegistry* TypeRegistry::Global() {
  // Leaked on purpose: objects destroyed during static destruction may still ask for type info.
  static TypeRegistry* inst = new TypeRegistry();
  return inst;
}

TypeRegistry::TypeRegistry() {
  for (auto& e : entries_) e.store(nullptr, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  Publish(NewEntry(kTVMLiteObject, Object::_type_key, nullptr, 0, true));
}

TypeEntry* TypeRegistry::NewEntry(int32_t index, const std::string& key, const TypeEntry* parent, int32_t num_slots,
                                  bool can_overflow) {
  TVMLITE_ICHECK(index >= 0 && index < kMaxTypes) << "type index " << index << " out of range";
  TVMLITE_ICHECK(Get(index) == nullptr) << "type index " << index << " is taken by " << Get(index)->key;
  auto* e = new TypeEntry();
  e->key = key;
  e->num_slots = num_slots;
  e->can_overflow = can_overflow;
  if (parent != nullptr) {
    e->ancestors = parent->ancestors;
    e->ancestors.push_back(parent->info.type_index);
    e->parent_index = parent->info.type_index;
  }
  e->info.type_index = index;
  e->info.type_depth = static_cast<int32_t>(e->ancestors.size());
  e->info.type_key = {e->key.data(), static_cast<int64_t>(e->key.size())};
  e->info.ancestors = e->ancestors.data();
  e->info.num_fields = 0;
  e->info.fields = nullptr;
  e->info.creator = nullptr;
  return e;
}

void TypeRegistry::Publish(TypeEntry* e) {
  int32_t index = e->info.type_index;
  key2index_[e->key] = index;
  entries_[index].store(e, std::memory_order_release);
  if (index >= next_dynamic_) next_dynamic_ = index + 1 + e->num_slots;
}

int32_t TypeRegistry::AllocateIndex(TypeEntry* parent, const std::string& key, int32_t num_slots) {
  if (parent->allocated_slots + num_slots + 1 <= parent->num_slots) {
    int32_t index = parent->info.type_index + 1 + parent->allocated_slots;
    parent->allocated_slots += num_slots + 1;
    return index;
  }
  TVMLITE_CHECK_KIND(parent->can_overflow, RuntimeError)
      << "type '" << parent->key << "' has no child slot left for '" << key << "'; raise its _type_child_slots";
  TVMLITE_CHECK_KIND(next_dynamic_ < kMaxTypes, RuntimeError)
      << "cannot register '" << key << "': all " << kMaxTypes << " type indices are taken";
  return next_dynamic_;
}

int32_t TypeRegistry::Assign(int32_t static_index, const std::string& key, int32_t parent_index, int32_t num_slots,
                             bool can_overflow) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = key2index_.find(key);
  if (it != key2index_.end()) {
    // Same declaration seen again (another shared library, a re-import): hand back the same index.
    TypeEntry* e = Get(it->second);
    TVMLITE_CHECK_KIND(e->parent_index == parent_index, ValueError)
        << "type key '" << key << "' is already registered with parent '" << TypeIndexToKey(e->parent_index)
        << "', not '" << TypeIndexToKey(parent_index) << "'";
    return it->second;
  }
  TypeEntry* parent = Get(parent_index);
  TVMLITE_ICHECK(parent != nullptr) << "parent of '" << key << "' is not registered";
  int32_t index = static_index >= 0 ? static_index : AllocateIndex(parent, key, num_slots);
  TypeEntry* e = NewEntry(index, key, parent, num_slots, can_overflow);
  Publish(e);
  return index;
}

namespace {
std::string FieldNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}
}  // namespace

int32_t TypeRegistry::DefineDynamic(const std::string& key, int32_t parent_index, const std::vector<FieldDecl>& fields,
                                    int32_t num_slots) {
  std::lock_guard<std::mutex> lock(mu_);
  auto resolve = [](int32_t static_index, int32_t self) {
    return static_index == kTVMLiteDynFieldSelf ? self : static_index;
  };
  auto it = key2index_.find(key);
  if (it != key2index_.end()) {
    const TypeEntry* e = Get(it->second);
    TVMLITE_CHECK_KIND(e->dyn_num_slots >= 0, ValueError)
        << "type key '" << key << "' is a C++ type; a type defined in Python needs a key of its own";
    TVMLITE_CHECK_KIND(e->parent_index == parent_index, ValueError)
        << "type key '" << key << "' is already defined with parent '" << TypeIndexToKey(e->parent_index)
        << "'; cannot redefine it with parent '" << TypeIndexToKey(parent_index) << "'";
    bool same = e->fields.size() == fields.size();
    for (size_t i = 0; same && i < fields.size(); ++i) {
      const TVMLiteFieldInfo& f = e->fields[i];
      same = std::string(f.name.data, f.name.size) == fields[i].name &&
             std::string(f.type_str.data, f.type_str.size) == fields[i].type_str &&
             f.static_type_index == resolve(fields[i].static_type_index, e->info.type_index) &&
             f.flags == fields[i].flags;
    }
    if (!same) {
      std::vector<std::string> old_names, new_names;
      for (const auto& f : e->fields) old_names.emplace_back(f.name.data, f.name.size);
      for (const auto& f : fields) new_names.push_back(f.name);
      TVMLITE_THROW(ValueError) << "type key '" << key << "' is already defined with fields " << FieldNames(old_names)
                                << "; cannot redefine it with fields " << FieldNames(new_names)
                                << " (a defined type's layout never changes: use a new key)";
    }
    return e->info.type_index;
  }
  TypeEntry* parent = Get(parent_index);
  TVMLITE_CHECK_KIND(parent != nullptr, ValueError) << "unknown parent type index " << parent_index;
  int32_t index = AllocateIndex(parent, key, 0);
  TypeEntry* e = NewEntry(index, key, parent, 0, true);
  for (FieldDecl f : fields) {
    f.static_type_index = resolve(f.static_type_index, index);
    AppendField(e, f);
  }
  e->dyn_num_slots = num_slots;
  Publish(e);
  return index;
}
bool TypeRegistry::IsDerivedFrom(int32_t derived, int32_t base) const {
  if (derived == base) return true;
  const TypeEntry* d = Get(derived);
  const TypeEntry* b = Get(base);
  if (d == nullptr || b == nullptr) return false;
  if (b->info.type_depth >= d->info.type_depth) return false;
  return d->ancestors[b->info.type_depth] == base;
}

int32_t TypeRegistry::KeyToIndex(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = key2index_.find(key);
  return it == key2index_.end() ? -1 : it->second;
}

void TypeRegistry::AddField(int32_t type_index, const FieldDecl& field) {
  std::lock_guard<std::mutex> lock(mu_);
  TypeEntry* e = Get(type_index);
  TVMLITE_ICHECK(e != nullptr) << "unknown type index " << type_index;
  AppendField(e, field);
}

void TypeRegistry::AppendField(TypeEntry* e, const FieldDecl& field) {
  for (const auto& f : e->fields) {
    TVMLITE_CHECK_KIND(std::string(f.name.data, f.name.size) != field.name, ValueError)
        << "type '" << e->key << "' already has a field '" << field.name << "'";
  }
  const std::string& n = e->strings.emplace_back(field.name);
  const std::string& t = e->strings.emplace_back(field.type_str);
  TVMLiteFieldInfo f;
  f.name = {n.data(), static_cast<int64_t>(n.size())};
  f.type_str = {t.data(), static_cast<int64_t>(t.size())};
  f.offset = field.offset;
  f.static_type_index = field.static_type_index;
  f.flags = field.flags;
  f.getter = field.getter;
  f.setter = field.setter;
  // The field list is replaced, not grown in place, so a reader holding the old pointer stays valid.
  auto* next = new std::vector<TVMLiteFieldInfo>(e->fields);
  next->push_back(f);
  e->retired_fields.emplace_back(next);
  e->fields = *next;
  e->info.fields = next->data();
  e->info.num_fields = static_cast<int32_t>(next->size());
}

void TypeRegistry::SetCreator(int32_t type_index, int (*creator)(TVMLiteObjectHandle*)) {
  std::lock_guard<std::mutex> lock(mu_);
  TypeEntry* e = Get(type_index);
  TVMLITE_ICHECK(e != nullptr) << "unknown type index " << type_index;
  e->info.creator = creator;
}

// --------------------------------------------------------------------------------------------------------------
// Free functions used by object.h and reflection.h
// --------------------------------------------------------------------------------------------------------------

int32_t TypeIndexAssign(int32_t static_index, const char* type_key, int32_t parent_index, int32_t num_child_slots,
                        bool child_slots_can_overflow) {
  return TypeRegistry::Global()->Assign(static_index, type_key, parent_index, num_child_slots,
                                        child_slots_can_overflow);
}

bool TypeIsDerivedFrom(int32_t derived_index, int32_t base_index) {
  return TypeRegistry::Global()->IsDerivedFrom(derived_index, base_index);
}

const std::string& TypeIndexToKey(int32_t type_index) {
  static const std::string unknown = "<unknown>";
  const TypeEntry* e = TypeRegistry::Global()->Get(type_index);
  return e ? e->key : unknown;
}

namespace refl {
void RegisterField(int32_t type_index, const std::string& name, const std::string& type_str, int64_t offset,
                   int32_t static_type_index, int32_t flags, TVMLiteFieldGetter getter, TVMLiteFieldSetter setter) {
  TypeRegistry::Global()->AddField(type_index, {name, type_str, offset, static_type_index, flags, getter, setter});
}
void RegisterCreator(int32_t type_index, int (*creator)(TVMLiteObjectHandle* out)) {
  TypeRegistry::Global()->SetCreator(type_index, creator);
}
void RegisterConstructor(const std::string& type_key, Function f) {
  Registry::Set(ConstructorName(type_key), std::move(f), /*can_override=*/false);
}
}  // namespace refl

}  // namespace runtime
}  // namespace tvmlite
