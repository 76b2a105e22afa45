/*!
 * \file shape_func.h
 * \brief The output shapes of a graph node whose type has symbolic dims, computed at run time from its inputs'.
 *
 *   // at lowering: the node's group as a function of its leaves (constants become typed free variables)
 *   ir::Function f = MakeShapeFunc(leaves, root);
 *   // at run time: the leaves' concrete types -> the node's output types (the ops' type relations, in order)
 *   ir::Type out = EvalShapeFunc(f, {TensorType({2, 128}, f32), ...});
 *
 * A shape function is the group itself, typed by the same "FTypeRelation" InferType runs, now on concrete dims:
 * one definition of every op's output shape serves build and run (TVM Relax's shape functions, without writing a
 * second one per op). Evaluation is an iterative post-order walk (a file's function may be deep) calling one
 * relation per op; its errors (shapes that do not broadcast, a reshape that does not fit) are the relations' own.
 * The executor caches the result per input shape signature (graph_executor.cc), so a new shape costs a few
 * microseconds per node once.
 */
#ifndef TVMLITE_BACKEND_SHAPE_FUNC_H_
#define TVMLITE_BACKEND_SHAPE_FUNC_H_

#include <tvmlite/ir/expr.h>
#include <tvmlite/ir/type.h>

#include <vector>

namespace tvmlite {
namespace backend {

/*!
 * \brief Function(params, body) where params are fresh variables of the leaves' types and body is root with each
 * leaf replaced by its parameter and every constant by a free variable of the constant's type (the function holds
 * no tensor data).
 */
ir::Function MakeShapeFunc(const std::vector<ir::Expr>& leaves, const ir::Expr& root);

/*!
 * \brief The type of f's body with its params of types args (concrete). Free variables have their annotated
 * type. ValueError for a function that is not a shape function (other node kinds, a param count mismatch).
 */
ir::Type EvalShapeFunc(const ir::Function& f, const std::vector<ir::Type>& args);

/*! \brief A static shape of each tensor in t (a tensor: one; a tuple: its fields flattened); ValueError otherwise. */
std::vector<std::vector<int64_t>> ConcreteShapes(const ir::Type& t);

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_SHAPE_FUNC_H_
