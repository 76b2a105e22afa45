/*!
 * \file type_registry.h
 * \brief Internal: the registry behind type indices (see type_registry.cc). Not part of the public headers.
 */
#ifndef TVMLITE_RUNTIME_TYPE_REGISTRY_INTERNAL_H_
#define TVMLITE_RUNTIME_TYPE_REGISTRY_INTERNAL_H_

#include <tvmlite/runtime/map.h>
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
  TVMLiteTypeInfo info;  // what the C API hands out; points into the members below
  std::string key;
  std::vector<int32_t> ancestors;
  int32_t parent_index = -1;
  int32_t num_slots = 0;                 // child indices reserved right after this one
  int32_t allocated_slots = 0;           // how many of them are used
  bool can_overflow = true;              // children past the reservation get fresh indices
  int32_t dyn_num_slots = -1;            // >= 0 for types defined at run time: Any slots in the layout
  std::vector<TVMLiteFieldInfo> fields;  // own fields (not the parent's)
  std::deque<std::string> strings;       // stable storage for field names and type strings
  std::vector<std::unique_ptr<std::vector<TVMLiteFieldInfo>>> retired_fields;
};

/*! \brief A field to declare: what a TVMLiteFieldInfo says, with strings the registry copies. */
struct FieldDecl {
  std::string name;
  std::string type_str;
  int64_t offset;
  int32_t static_type_index;
  int32_t flags;
  TVMLiteFieldGetter getter;
  TVMLiteFieldSetter setter;
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
  void AddField(int32_t type_index, const FieldDecl& field);
  /*!
   * \brief Define a run-time type (dyn_num_slots = num_slots) with exactly `fields` as its own fields, published
   * only once complete, so lock-free readers never see it half-made. When key already names a run-time type with
   * the same parent and fields, returns its index; any other use of a taken key is a ValueError. A field whose
   * static_type_index is kTVMLiteDynFieldSelf holds objects of the type itself.
   */
  int32_t DefineDynamic(const std::string& key, int32_t parent_index, const std::vector<FieldDecl>& fields,
                        int32_t num_slots);
  void SetCreator(int32_t type_index, int (*creator)(TVMLiteObjectHandle*));
  std::mutex& mutex() { return mu_; }

 private:
  TypeRegistry();
  /*! \brief A new entry for key (not yet visible: see Publish). Caller holds mu_. */
  TypeEntry* NewEntry(int32_t index, const std::string& key, const TypeEntry* parent, int32_t num_slots,
                      bool can_overflow);
  /*! \brief Make an entry visible to lookups. Caller holds mu_. */
  void Publish(TypeEntry* e);
  /*! \brief The index for a new child of parent: a reserved slot, else a fresh one. Caller holds mu_. */
  int32_t AllocateIndex(TypeEntry* parent, const std::string& key, int32_t num_slots);
  /*! \brief Append a field to e's own fields. Caller holds mu_. */
  void AppendField(TypeEntry* e, const FieldDecl& field);

  std::atomic<TypeEntry*> entries_[kMaxTypes];
  std::mutex mu_;
  std::unordered_map<std::string, int32_t> key2index_;
  int32_t next_dynamic_ = kTVMLiteDynObjectBegin;
};

// Types defined at run time (dyn_object.cc).
/*! \brief Define (or find again, when identical) a run-time type; see TVMLiteTypeDefineDynamic. */
int32_t DynTypeDefine(const std::string& key, int32_t parent_index, const std::vector<TVMLiteDynFieldSpec>& fields);
ObjectPtr<Object> DynObjectCreate(int32_t type_index, const TVMLiteAny* values, int32_t num_values);
/*! \brief An object of a run-time type with every field None (deserialization fills them in). */
ObjectPtr<Object> DynObjectCreateDefault(int32_t type_index);
bool IsDynType(int32_t type_index);
/*! \brief Assign a field with the checks of TVMLiteObjectSetField. */
void SetFieldChecked(Object* obj, const TVMLiteFieldInfo* field, const TVMLiteAny& value);
/*!
 * \brief Fill a field of an object being built (LoadJSON): SetFieldChecked's conversion and type check (a TypeError
 * naming the type key and field), without the writable check, since read-only fields are set at construction too.
 */
void InitFieldChecked(Object* obj, const TVMLiteFieldInfo* field, const TVMLiteAny& value);
/*!
 * \brief Replace the field defaults of a run-time type (name -> value, each checked against its field's type), as
 * its Python class declares them. Exposed as the global "runtime.DynTypeSetDefaults".
 */
void DynTypeSetDefaults(int32_t type_index, const Map<Any, Any>& defaults);
/*! \brief The default of a field of a run-time type, or nullopt when it has none (a required field). */
std::optional<Any> DynFieldDefault(int32_t type_index, std::string_view name);

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_TYPE_REGISTRY_INTERNAL_H_
