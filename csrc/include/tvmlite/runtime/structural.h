/*!
 * \file tvmlite/runtime/structural.h
 * \brief Structural equality and hashing of any value or object graph, driven by reflection.
 *
 * Two values are structurally equal when they have the same kind and
 *  - plain values: the same value (floats by value; NaN equals NaN, 0.0 equals -0.0);
 *  - String / Bytes: the same bytes; ShapeTuple: the same dims;
 *  - NDArray: the same shape, dtype and element bytes (the device is not compared);
 *  - Array: equal elements in order; Map: the same keys (by the Map's own key rule: value for None, numbers and
 *    strings, identity for other objects) mapped to equal values, in any order;
 *  - other objects: the same type and equal reflected fields (inherited first), skipping kTVMLiteFieldNoCompare.
 *    A type with no reflected fields and no creator (Function, Module, Error) is opaque: compared by identity.
 * The same object on both sides is equal without a look inside. Shared sub-graphs (DAGs) are compared and hashed
 * once per pair / object; a cycle (only possible through writable fields) is an error for hashing and JSON.
 *
 * Variables (the hook for the IR): objects of a type marked with MarkVarType are equal only when *bound* to each
 * other. A binding lhs <-> rhs is made (one-to-one, after their own fields compare equal) where the pair meets in a
 * field flagged kFieldDefinition (a function's params, a let's var: everything below such a field is compared in
 * "definition" mode), or anywhere when map_free_vars is set; an unbound variable equals only itself. So
 * fn(x) { x } equals fn(y) { y }, and fn(x, y) { x } does not equal fn(x, y) { y }.
 * The hash numbers each variable by its first occurrence, so it agrees with equality on well-formed graphs (a
 * variable object used both free and bound, inside a sub-graph shared by both sides, can defeat that).
 */
#ifndef TVMLITE_RUNTIME_STRUCTURAL_H_
#define TVMLITE_RUNTIME_STRUCTURAL_H_

#include <tvmlite/runtime/ndarray.h>

#include <optional>
#include <string>
#include <string_view>

namespace tvmlite {
namespace runtime {

/*!
 * \brief Field flag (a TVMLiteFieldInfo::flags bit, next to kTVMLiteFieldWritable and kTVMLiteFieldNoCompare): the
 * field defines the variables it holds, so comparing it binds lhs variables to rhs ones.
 * Pass it to refl::ObjectDef::def_ro(name, member, kFieldDefinition).
 */
constexpr int32_t kFieldDefinition = kTVMLiteFieldDefinition;

/*! \brief Mark a type as a variable type (see the file comment). Thread-safe; call at registration time. */
void MarkVarType(int32_t type_index);
/*! \brief Whether MarkVarType was called for type_index. */
bool IsVarType(int32_t type_index);

/*! \brief Whether lhs and rhs are structurally equal. map_free_vars: bind unbound variables where they meet. */
bool StructuralEqual(const Any& lhs, const Any& rhs, bool map_free_vars = false);

/*!
 * \brief nullopt when lhs and rhs are structurally equal, else where and how they first differ, e.g.
 * "root.first[1]: 2 vs 3". Slower than StructuralEqual (it records paths): use it to report a failure.
 */
std::optional<std::string> StructuralMismatch(const Any& lhs, const Any& rhs, bool map_free_vars = false);

/*! \brief Hash agreeing with StructuralEqual (equal values hash alike); the same in every run and process. */
uint64_t StructuralHash(const Any& value);

namespace details {

/*! \brief Call f(const TVMLiteFieldInfo&) for every reflected field of a type, inherited ones first. */
template <typename F>
inline void ForEachReflectedField(int32_t type_index, F&& f) {
  const TVMLiteTypeInfo* info = TVMLiteGetTypeInfo(type_index);
  if (info == nullptr) return;
  for (int32_t d = 0; d < info->type_depth; ++d) {
    const TVMLiteTypeInfo* anc = TVMLiteGetTypeInfo(info->ancestors[d]);
    for (int32_t i = 0; i < anc->num_fields; ++i) f(anc->fields[i]);
  }
  for (int32_t i = 0; i < info->num_fields; ++i) f(info->fields[i]);
}

/*! \brief Read a reflected field of obj (throws the getter's error). */
Any ReadField(const Object* obj, const TVMLiteFieldInfo& field);

/*! \brief Whether objects of a type are compared and saved by their fields (false: opaque, by identity). */
bool HasReflectedStructure(int32_t type_index);

/*!
 * \brief The element bytes of a tensor in row-major order: a view of its memory when compact, else a compact copy
 * made in *scratch. Valid while the tensor and *scratch live.
 */
std::string_view TensorBytes(const DLTensor& tensor, std::string* scratch);

}  // namespace details
}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_STRUCTURAL_H_
