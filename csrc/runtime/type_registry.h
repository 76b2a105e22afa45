/*!
 * \file type_registry.h
 * \brief Internal: the registry behind type indices (see type_registry.cc). Not part of the public headers.
 */
#ifndef TVMLITE_RUNTIME_TYPE_REGISTRY_INTERNAL_H_
#define TVMLITE_RUNTIME_TYPE_REGISTRY_INTERNAL_H_

#include <tvmlite/runtime/object.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tvmlite {
namespace runtime {

namespace details {
int64_t LiveCount();
}  // namespace details

struct TypeEntry {
  TVMLiteTypeInfo info;                      // what the C API hands out; points into the members below
  std::string key;
  std::vector<int32_t> ancestors;
  int32_t parent_index = -1;
  int32_t num_slots = 0;                     // child indices reserved right after this one
  int32_t allocated_slots = 0;               // how many of them are used
  bool can_overflow = true;                  // children past the reservation get fresh indices
  int32_t dyn_num_slots = -1;                // >= 0 for types defined at run time: Any slots in the layout
  std::vector<TVMLiteFieldInfo> fields;      // own fields (not the parent's)
  std::deque<std::string> strings;           // stable storage for field names and type strings
  std::vector<std::unique_ptr<std::vector<TVMLiteFieldInfo>>> retired_fields;
};

class TypeRegistry {
 public:
  static constexpr int32_t kMaxTypes = 1 << 15;
  static TypeRegistry* Global();

  /*! \brief Lock-free lookup; nullptr when unknown. */
  TypeEntry* Get(int32_t index) const {
    if (index < 0 || index >= kMaxTypes) return nullptr;
    return entries_[index].load(std::memory_order_acquire);
  }
  int32_t Assign(int32_t static_index, const std::string& key, int32_t parent_index, int32_t num_slots,
                 bool can_overflow);
  bool IsDerivedFrom(int32_t derived, int32_t base) const;
  /*! \brief -1 when unknown. */
  int32_t KeyToIndex(const std::string& key);
  void AddField(int32_t type_index, const std::string& name, const std::string& type_str, int64_t offset,
                int32_t static_type_index, int32_t flags, TVMLiteFieldGetter getter, TVMLiteFieldSetter setter);
  void SetCreator(int32_t type_index, int (*creator)(TVMLiteObjectHandle*));
  std::mutex& mutex() { return mu_; }

 private:
  TypeRegistry();
  TypeEntry* NewEntry(int32_t index, const std::string& key, const TypeEntry* parent, int32_t num_slots,
                      bool can_overflow);

  std::atomic<TypeEntry*> entries_[kMaxTypes];
  std::mutex mu_;
  std::unordered_map<std::string, int32_t> key2index_;
  int32_t next_dynamic_ = kTVMLiteDynObjectBegin;
};

// Types defined at run time (dyn_object.cc).
int32_t DynTypeRegister(const std::string& key, int32_t parent_index);
void DynTypeAddField(int32_t type_index, const std::string& name, const std::string& type_str,
                     int32_t static_type_index);
ObjectPtr<Object> DynObjectCreate(int32_t type_index, const TVMLiteAny* values, int32_t num_values);
/*! \brief An object of a run-time type with every field None (deserialization fills them in). */
ObjectPtr<Object> DynObjectCreateDefault(int32_t type_index);
bool IsDynType(int32_t type_index);
/*! \brief Assign a field with the checks of TVMLiteObjectSetField. */
void SetFieldChecked(Object* obj, const TVMLiteFieldInfo* field, const TVMLiteAny& value);

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_TYPE_REGISTRY_INTERNAL_H_
