/*!
 * \file tvmlite/relay/type_rel.h
 * \brief Helpers for writing type relations: argument checks, dims and numpy broadcasting.
 *
 *   Type AddRel(const Array<Type>& args, const Attrs&) {
 *     const TensorTypeNode* a = TensorArg(args, 0);
 *     const TensorTypeNode* b = TensorArg(args, 1);
 *     return TensorType(BroadcastShape(a, b), MatchDtype(a, b));
 *   }
 *
 * The op's arity (its arguments, or set_num_inputs) is checked before a relation registered with add_type_rel
 * runs; a variadic op's relation, or one called directly, checks its own with CheckNumArgs.
 * A relation throws TVMLITE_THROW(TypeError / ValueError) with what disagrees ("shapes (2, 3) and (4,) do not
 * broadcast"); InferType adds the op, the call and its argument types to the message.
 */
#ifndef TVMLITE_RELAY_TYPE_REL_H_
#define TVMLITE_RELAY_TYPE_REL_H_

#include <tvmlite/ir/op.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tvmlite {
namespace relay {

using namespace ::tvmlite::ir;  // NOLINT(*): relations are written in IR terms
using runtime::DataType;

/*! \brief TypeError unless there are n arguments. */
void CheckNumArgs(const Array<Type>& args, size_t n);
/*! \brief Argument i as a tensor type; TypeError naming it otherwise. */
const TensorTypeNode* TensorArg(const Array<Type>& args, size_t i);
/*! \brief ValueError naming what, the value and the allowed values unless value is one of them. */
void CheckOneOf(const std::string& what, const std::string& value, std::initializer_list<const char*> allowed);

/*! \brief A dim known to be n. */
inline bool DimIs(const Any& dim, int64_t n) {
  std::optional<int64_t> v = dim.as<int64_t>();
  return v.has_value() && *v == n;
}
/*! \brief Whether two dims are the same: equal ints or the same SizeVar. */
bool DimEqual(const Any& a, const Any& b);
/*! \brief A shape as text: "(1, 3, n)". */
std::string ShapeToString(const Array<Any>& shape);
/*! \brief numpy broadcasting of two shapes; ValueError naming both when they do not broadcast. */
Array<Any> BroadcastShapes(const Array<Any>& a, const Array<Any>& b);
/*! \brief The common dtype of two tensors; TypeError naming both when they differ. */
DataType MatchDtype(const TensorTypeNode* a, const TensorTypeNode* b);
/*! \brief Normalise axis into [0, ndim) (negative counts from the end); IndexError naming the range. */
int64_t NormalizeAxis(int64_t axis, int64_t ndim);
/*! \brief The product of dims, or a fresh SizeVar::Any() when one is symbolic. */
Any DimProduct(const std::vector<Any>& dims);

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TYPE_REL_H_
