/*!
 * \file tvmlite/ir/attrs.h
 * \brief Attrs: the typed, immutable attributes of an op call (Conv2DAttrs, ...), declared by reflection.
 *
 *   struct ConcatenateAttrs : public AttrsNode {
 *     int64_t axis = 0;                                   // the member initializer is the default
 *     static constexpr const char* _type_key = "relay.attrs.ConcatenateAttrs";
 *     TVMLITE_DECLARE_ATTRS(ConcatenateAttrs);
 *   };
 *   TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(ConcatenateAttrs, axis); });
 *
 * An op's attrs type is set at its registration (set_attrs_type<T>()); its `relay.op._make.*` function fills the
 * fields in declaration order through the checked reflection setters, so no op needs a hand-written maker.
 * Attrs never change after the maker returns.
 */
#ifndef TVMLITE_IR_ATTRS_H_
#define TVMLITE_IR_ATTRS_H_

#include <tvmlite/ir/type.h>
#include <tvmlite/runtime/map.h>

#include <map>
#include <string>

namespace tvmlite {
namespace ir {

using runtime::Map;

/*! \brief Base of every attrs type. */
class AttrsNode : public Object {
 public:
  static constexpr const char* _type_key = "ir.Attrs";
  TVMLITE_DYNAMIC_TYPE_INDEX;
  static constexpr int32_t _type_child_slots = 96;
  static constexpr bool _type_child_slots_can_overflow = true;
  TVMLITE_DECLARE_BASE_OBJECT_INFO(AttrsNode, Object);
};

/*! \brief Attrs of a call; null for ops without attributes. Nullable across the FFI (an op may have none). */
class Attrs : public ObjectRef {
 public:
  Attrs() = default;
  explicit Attrs(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  const AttrsNode* operator->() const { return static_cast<const AttrsNode*>(data_.get()); }
  const AttrsNode* get() const { return operator->(); }
  static constexpr bool _type_is_nullable = true;
  using ContainerType = AttrsNode;
};

/*! \brief Attrs as a name -> value map, for ops whose attributes vary too much for one struct. */
class DictAttrsNode : public AttrsNode {
 public:
  Map<String, Any> dict;

  TVMLITE_DECLARE_FINAL_OBJECT("ir.DictAttrs", DictAttrsNode, AttrsNode);
};

/*! \brief Declare a final attrs struct and its type key (TVM's TVM_DECLARE_ATTRS(ClassName, TypeKey)). */
#define TVMLITE_DECLARE_ATTRS(TypeName, TypeKey) \
  TVMLITE_DECLARE_FINAL_OBJECT(TypeKey, TypeName, ::tvmlite::ir::AttrsNode)

/*! \brief The attrs as T; TypeError (an internal mix-up) otherwise. */
template <typename T>
const T* AttrsAs(const Attrs& attrs) {
  const T* a = attrs.as<T>();
  TVMLITE_CHECK_KIND(a != nullptr, TypeError)
      << "expected attrs " << T::_type_key << ", got " << (attrs.defined() ? attrs->GetTypeKey() : "None");
  return a;
}

/*!
 * \brief A default attrs object of type_index with its reflected fields set from values in declaration order
 * (inherited first); fields past the end keep their defaults. TypeError names the field whose value does not fit.
 */
Attrs MakeAttrs(int32_t type_index, const Any* values, size_t num_values, const std::string& context);

/*!
 * \brief A copy of attrs with the fields named in changes set to their values (checked as MakeAttrs checks them):
 * WithAttrFields(call->attrs, {{"groups", Any(int64_t(8))}}, "Legalize"). ValueError when a name is no field.
 */
Attrs WithAttrFields(const Attrs& attrs, const std::map<std::string, Any>& changes, const std::string& context);

}  // namespace ir
}  // namespace tvmlite
#endif  // TVMLITE_IR_ATTRS_H_
