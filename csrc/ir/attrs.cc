/*!
 * \file attrs.cc
 * \brief Attrs: the base type, DictAttrs, and MakeAttrs (fill an attrs object's fields in declaration order).
 */
#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>

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

TVMLITE_STATIC_INIT_BLOCK({
  refl::ObjectDef<AttrsNode>();
  refl::ObjectDef<DictAttrsNode>().def_ro("dict", &DictAttrsNode::dict);
});

TVMLITE_REGISTER_GLOBAL("ir.DictAttrs").set_body_typed([](Map<String, Any> dict) {
  ObjectPtr<DictAttrsNode> n = make_object<DictAttrsNode>();
  n->dict = std::move(dict);
  return Attrs(std::move(n));
});

}  // namespace ir
}  // namespace tvmlite
