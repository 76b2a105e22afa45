/*!
 * \file attrs.cc
 * \brief Attrs: the base type, DictAttrs, MakeAttrs (fill an attrs object's fields in declaration order) and
 * WithAttrFields (a copy with some fields changed).
 */
#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>

#include <cstring>
#include <vector>

#include "../runtime/type_registry.h"

namespace tvmlite {
namespace ir {

namespace refl = runtime::refl;

namespace {
/*! \brief The reflected fields of a type, inherited first. */
std::vector<const TVMLiteFieldInfo*> AllFields(int32_t type_index) {
  const TVMLiteTypeInfo* own = TVMLiteGetTypeInfo(type_index);
  std::vector<int32_t> chain(own->ancestors, own->ancestors + own->type_depth);
  chain.push_back(type_index);
  std::vector<const TVMLiteFieldInfo*> fields;
  for (int32_t t : chain) {
    const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(t);
    for (int32_t i = 0; i < info->num_fields; ++i) fields.push_back(&info->fields[i]);
  }
  return fields;
}
}  // namespace

Attrs MakeAttrs(int32_t type_index, const Any* values, size_t num_values, const std::string& context) {
  const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(type_index);
  TVMLITE_ICHECK(info != nullptr && info->creator != nullptr) << "attrs type " << type_index << " has no creator";
  std::vector<const TVMLiteFieldInfo*> fields = AllFields(type_index);
  TVMLITE_CHECK_KIND(num_values <= fields.size(), TypeError)
      << context << " takes at most " << fields.size() << " attribute arguments, got " << num_values;
  TVMLiteObjectHandle handle = nullptr;
  if (info->creator(&handle) != 0) throw runtime::Error::MoveFromRaised();
  ObjectPtr<Object> obj = ObjectPtr<Object>::MoveFromRaw(Object::FromHeader(handle));
  for (size_t i = 0; i < num_values; ++i) {
    try {
      runtime::InitFieldChecked(obj.get(), fields[i], *values[i].raw());
    } catch (const runtime::Error& err) {
      throw runtime::Error(err.kind(), context + ": " + err.message());
    }
  }
  return Attrs(std::move(obj));
}

Attrs WithAttrFields(const Attrs& attrs, const std::map<std::string, Any>& changes, const std::string& context) {
  const int32_t type_index = attrs->type_index();
  std::vector<Any> values;
  size_t changed = 0;
  for (const TVMLiteFieldInfo* field : AllFields(type_index)) {
    auto it = changes.find(std::string(field->name.data, field->name.size));
    if (it != changes.end()) {
      values.push_back(it->second);
      ++changed;
      continue;
    }
    TVMLiteAny out;
    std::memset(&out, 0, sizeof(out));  // None
    void* addr = reinterpret_cast<char*>(const_cast<AttrsNode*>(attrs.get())) + field->offset;
    if (field->getter(addr, &out) != 0) throw runtime::Error::MoveFromRaised();
    values.push_back(Any::MoveFromRaw(out));
  }
  TVMLITE_CHECK_KIND(changed == changes.size(), ValueError)
      << context << ": " << attrs->GetTypeKey() << " lacks a field it was asked to change";
  return MakeAttrs(type_index, values.data(), values.size(), context);
}

TVMLITE_STATIC_INIT_BLOCK({
  refl::ObjectDef<AttrsNode>();
  TVMLITE_REFLECT_FIELDS(DictAttrsNode, dict);
});

TVMLITE_REGISTER_GLOBAL("ir.DictAttrs").set_body_typed([](Map<String, Any> dict) {
  ObjectPtr<DictAttrsNode> n = make_object<DictAttrsNode>();
  n->dict = std::move(dict);
  return Attrs(std::move(n));
});

}  // namespace ir
}  // namespace tvmlite
