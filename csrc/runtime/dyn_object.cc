/*!
 * \file dyn_object.cc
 * \brief Object types defined at run time (from Python): the layout is the header, a slot count, then one owned
 * Any per field. Their fields are ordinary reflected fields, so C++ reads them like any other object's.
 */
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/string.h>

#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "./type_registry.h"

namespace tvmlite {
namespace runtime {

namespace {

class DynObject : public Object {
 public:
  int64_t num_slots;
  Any* slots() { return reinterpret_cast<Any*>(reinterpret_cast<char*>(this) + sizeof(DynObject)); }
};
constexpr int64_t kSlotOffset = sizeof(DynObject);

void DeleteDynObject(TVMLiteObject* h) {
  auto* obj = static_cast<DynObject*>(Object::FromHeader(h));
  for (int64_t i = 0; i < obj->num_slots; ++i) obj->slots()[i].~Any();
  ::operator delete(static_cast<void*>(obj));
  details::LiveCountAdd(-1);
}

DynObject* NewDynObject(int32_t type_index, int64_t num_slots) {
  void* mem = ::operator new(sizeof(DynObject) + num_slots * sizeof(Any));
  auto* obj = new (mem) DynObject();
  obj->num_slots = num_slots;
  for (int64_t i = 0; i < num_slots; ++i) new (obj->slots() + i) Any();
  TVMLiteObject* h = obj->header();
  h->type_index = type_index;
  h->ref_count = 1;
  h->deleter = &DeleteDynObject;
  details::LiveCountAdd(1);
  return obj;
}

/*! \brief Convert value to what `field` stores, or nullopt when it does not fit its static type. */
std::optional<Any> CoerceToField(const TVMLiteAny& value, const TVMLiteFieldInfo* field) {
  AnyView v = AnyView::FromRaw(value);
  if (value.type_index == kTVMLiteNone && (field->flags & kTVMLiteFieldOptional)) return Any();
  switch (field->static_type_index) {
    case -1: return Any(v);
    case kTVMLiteInt:
      if (value.type_index == kTVMLiteInt) return Any(v);
      return std::nullopt;
    case kTVMLiteFloat:
      if (auto d = v.as<double>()) return Any(*d);
      return std::nullopt;
    case kTVMLiteBool:
      if (value.type_index == kTVMLiteBool) return Any(v);
      return std::nullopt;
    case kTVMLiteString:
      if (auto s = v.as<String>()) return Any(*s);
      return std::nullopt;
    default:
      if (value.type_index == kTVMLiteNone) return Any();
      if (value.type_index == field->static_type_index ||
          (value.type_index >= kTVMLiteStaticObjectBegin &&
           TypeIsDerivedFrom(value.type_index, field->static_type_index))) {
        return Any(v);
      }
      return std::nullopt;
  }
}

int GetSlot(void* addr, TVMLiteAny* out) {
  Any(*static_cast<Any*>(addr)).MoveToRaw(out);
  return 0;
}

int SetSlot(void* addr, const TVMLiteAny* value) {
  try {
    *static_cast<Any*>(addr) = Any(AnyView::FromRaw(*value));
    return 0;
  }
  TVMLITE_CATCH_TO_RAISED(return -1)
}

/*! \brief All fields of a run-time type, the inherited ones first. */
std::vector<const TVMLiteFieldInfo*> AllFields(const TypeEntry* e) {
  std::vector<const TVMLiteFieldInfo*> out;
  TypeRegistry* reg = TypeRegistry::Global();
  for (int32_t a : e->ancestors) {
    const TypeEntry* p = reg->Get(a);
    for (int32_t i = 0; i < p->info.num_fields; ++i) out.push_back(&p->info.fields[i]);
  }
  for (int32_t i = 0; i < e->info.num_fields; ++i) out.push_back(&e->info.fields[i]);
  return out;
}

}  // namespace

namespace {
std::string ByteArrayString(const TVMLiteByteArray& b) {
  TVMLITE_CHECK_KIND(b.size >= 0 && (b.size == 0 || b.data != nullptr), ValueError) << "invalid byte array";
  std::string s(b.data ? b.data : "", static_cast<size_t>(b.size));
  TVMLITE_CHECK_KIND(s.find('\0') == std::string::npos, ValueError)
      << "a NUL byte inside '" << s.c_str() << "...' would make names collide";
  return s;
}

bool ValidFieldType(int32_t index) {
  switch (index) {
    case -1:
    case kTVMLiteDynFieldSelf:
    case kTVMLiteInt:
    case kTVMLiteBool:
    case kTVMLiteFloat:
    case kTVMLiteDataType:
    case kTVMLiteDevice: return true;
    default: return index >= kTVMLiteStaticObjectBegin && TypeRegistry::Global()->Get(index) != nullptr;
  }
}
}  // namespace

int32_t DynTypeDefine(const std::string& key, int32_t parent_index, const std::vector<TVMLiteDynFieldSpec>& fields) {
  TypeRegistry* reg = TypeRegistry::Global();
  TVMLITE_CHECK_KIND(!key.empty(), ValueError) << "a type key must not be empty";
  const TypeEntry* parent = reg->Get(parent_index);
  TVMLITE_CHECK_KIND(parent != nullptr, ValueError) << "unknown parent type index " << parent_index;
  TVMLITE_CHECK_KIND(parent_index == kTVMLiteObject || parent->dyn_num_slots >= 0, TypeError)
      << "cannot define '" << key << "' with fields as a subclass of the C++ type '" << parent->key
      << "': a type defined in Python derives from runtime.Object or another Python-defined type";
  // A run-time parent's layout is fixed once it is visible, so its slot count and fields can be read unlocked.
  int64_t inherited_slots = parent_index == kTVMLiteObject ? 0 : parent->dyn_num_slots;
  std::vector<const TVMLiteFieldInfo*> inherited = AllFields(parent);
  std::vector<FieldDecl> decls;
  for (const TVMLiteDynFieldSpec& spec : fields) {
    std::string name = ByteArrayString(spec.name);
    TVMLITE_CHECK_KIND(!name.empty(), ValueError) << "type '" << key << "': a field name must not be empty";
    for (const TVMLiteFieldInfo* f : inherited) {
      TVMLITE_CHECK_KIND(std::string(f->name.data, f->name.size) != name, ValueError)
          << "type '" << key << "': field '" << name << "' is already declared by '" << parent->key << "'";
    }
    for (const FieldDecl& d : decls) {
      TVMLITE_CHECK_KIND(d.name != name, ValueError)
          << "type '" << key << "': field '" << name << "' is declared twice";
    }
    TVMLITE_CHECK_KIND(ValidFieldType(spec.static_type_index), ValueError)
        << "type '" << key << "': field '" << name << "' has an invalid type index " << spec.static_type_index;
    TVMLITE_CHECK_KIND((spec.flags & ~kTVMLiteFieldOptional) == 0, ValueError)
        << "type '" << key << "': field '" << name << "' has invalid flags " << spec.flags;
    int64_t offset = kSlotOffset + (inherited_slots + static_cast<int64_t>(decls.size())) * sizeof(Any);
    decls.push_back({name, ByteArrayString(spec.type_str), offset, spec.static_type_index,
                     kTVMLiteFieldWritable | spec.flags, &GetSlot, &SetSlot});
  }
  return reg->DefineDynamic(key, parent_index, decls, static_cast<int32_t>(inherited_slots + decls.size()));
}

ObjectPtr<Object> DynObjectCreate(int32_t type_index, const TVMLiteAny* values, int32_t num_values) {
  TypeRegistry* reg = TypeRegistry::Global();
  const TypeEntry* e = reg->Get(type_index);
  TVMLITE_CHECK_KIND(e != nullptr && e->dyn_num_slots >= 0, TypeError)
      << "type index " << type_index << " is not a type defined at run time";
  std::vector<const TVMLiteFieldInfo*> fields = AllFields(e);
  TVMLITE_CHECK_KIND(static_cast<int32_t>(fields.size()) == num_values, TypeError)
      << e->key << "() takes " << fields.size() << " field values but got " << num_values;
  ObjectPtr<Object> obj = ObjectPtr<Object>::MoveFromRaw(NewDynObject(type_index, e->dyn_num_slots));
  for (int32_t i = 0; i < num_values; ++i) {
    const TVMLiteFieldInfo* f = fields[i];
    std::optional<Any> v = CoerceToField(values[i], f);
    TVMLITE_CHECK_KIND(v.has_value(), TypeError)
        << e->key << "(): field `" << std::string(f->name.data, f->name.size) << "` expects "
        << std::string(f->type_str.data, f->type_str.size) << " but got " << AnyTypeStr(values[i]);
    *reinterpret_cast<Any*>(reinterpret_cast<char*>(obj.get()) + f->offset) = std::move(*v);
  }
  return obj;
}

/*! \brief Default object of a run-time type (all fields None), for deserialization. */
ObjectPtr<Object> DynObjectCreateDefault(int32_t type_index) {
  const TypeEntry* e = TypeRegistry::Global()->Get(type_index);
  TVMLITE_ICHECK(e != nullptr && e->dyn_num_slots >= 0) << "not a run-time type";
  return ObjectPtr<Object>::MoveFromRaw(NewDynObject(type_index, e->dyn_num_slots));
}

void InitFieldChecked(Object* obj, const TVMLiteFieldInfo* field, const TVMLiteAny& value) {
  std::optional<Any> v = CoerceToField(value, field);
  TVMLITE_CHECK_KIND(v.has_value(), TypeError)
      << obj->GetTypeKey() << "." << std::string(field->name.data, static_cast<size_t>(field->name.size)) << " expects "
      << std::string(field->type_str.data, field->type_str.size) << " but got " << AnyTypeStr(value);
  if (field->setter(reinterpret_cast<char*>(obj) + field->offset, v->raw()) != 0) throw Error::MoveFromRaised();
}

void SetFieldChecked(Object* obj, const TVMLiteFieldInfo* field, const TVMLiteAny& value) {
  TVMLITE_CHECK_KIND(field->flags & kTVMLiteFieldWritable, AttributeError)
      << "field '" << std::string(field->name.data, static_cast<size_t>(field->name.size)) << "' of "
      << obj->GetTypeKey() << " is read-only";
  InitFieldChecked(obj, field, value);
}

namespace {
// Field defaults of run-time types, as their Python class declares them; LoadJSON fills a missing field with its
// default. They live apart from the type's layout because registering a class again (a notebook cell run twice)
// may change its defaults, never its fields: the latest registration wins, as it does for the Python class.
// A str default is kept as text, not as a String object: the usual defaults then hold no objects, so defining a
// type leaves the live object count alone. An object default (rare) lives as long as the type.
struct FieldDefault {
  Any value;
  std::optional<std::string> text;
};
using FieldDefaults = std::unordered_map<std::string, FieldDefault>;
struct DynDefaultsTable {
  std::mutex mu;
  std::unordered_map<int32_t, std::shared_ptr<const FieldDefaults>> by_type;
};
DynDefaultsTable* DynDefaults() {
  static auto* table = new DynDefaultsTable();  // leaked: the values may be objects that must not die at exit
  return table;
}
}  // namespace

void DynTypeSetDefaults(int32_t type_index, const Map<Any, Any>& defaults) {
  const TypeEntry* e = TypeRegistry::Global()->Get(type_index);
  TVMLITE_CHECK_KIND(e != nullptr && e->dyn_num_slots >= 0, TypeError)
      << "type index " << type_index << " is not a type defined at run time";
  std::vector<const TVMLiteFieldInfo*> fields = AllFields(e);
  auto table = std::make_shared<FieldDefaults>();
  for (const auto& kv : defaults) {
    std::optional<std::string> name = kv.first.as<std::string>();
    TVMLITE_CHECK_KIND(name.has_value(), TypeError)
        << e->key << ": field default names must be str, got " << AnyTypeStr(*kv.first.raw());
    auto it = std::find_if(fields.begin(), fields.end(), [&](const TVMLiteFieldInfo* f) {
      return std::string_view(f->name.data, static_cast<size_t>(f->name.size)) == *name;
    });
    TVMLITE_CHECK_KIND(it != fields.end(), ValueError) << e->key << " has no field '" << *name << "'";
    std::optional<Any> v = CoerceToField(*kv.second.raw(), *it);
    TVMLITE_CHECK_KIND(v.has_value(), TypeError)
        << e->key << "." << *name << " expects " << std::string((*it)->type_str.data, (*it)->type_str.size)
        << " but its default is " << AnyTypeStr(*kv.second.raw());
    if (v->raw()->type_index == kTVMLiteString) {
      table->emplace(*name, FieldDefault{Any(), v->cast<std::string>()});
    } else {
      table->emplace(*name, FieldDefault{std::move(*v), std::nullopt});
    }
  }
  std::shared_ptr<const FieldDefaults> old = std::move(table);
  {
    std::lock_guard<std::mutex> lock(DynDefaults()->mu);
    std::swap(DynDefaults()->by_type[type_index], old);
  }
  // `old` dies here, outside the lock: freeing a default may run arbitrary code (a Python callable's deleter).
}

std::optional<Any> DynFieldDefault(int32_t type_index, std::string_view name) {
  std::shared_ptr<const FieldDefaults> table;
  {
    std::lock_guard<std::mutex> lock(DynDefaults()->mu);
    auto it = DynDefaults()->by_type.find(type_index);
    if (it == DynDefaults()->by_type.end()) return std::nullopt;
    table = it->second;
  }
  auto it = table->find(std::string(name));
  if (it == table->end()) return std::nullopt;
  if (it->second.text) return Any(String(*it->second.text));
  return it->second.value;
}

TVMLITE_REGISTER_GLOBAL("runtime.DynTypeSetDefaults").set_body_typed([](int32_t type_index, Map<Any, Any> d) {
  DynTypeSetDefaults(type_index, d);
});

bool IsDynType(int32_t type_index) {
  const TypeEntry* e = TypeRegistry::Global()->Get(type_index);
  return e != nullptr && e->dyn_num_slots >= 0;
}

}  // namespace runtime
}  // namespace tvmlite
