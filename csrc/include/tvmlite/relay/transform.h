/*!
 * \file tvmlite/relay/transform.h
 * \brief Whole-module passes. Each is also a registered global (`relay._transform.InferType`).
 */
#ifndef TVMLITE_RELAY_TRANSFORM_H_
#define TVMLITE_RELAY_TRANSFORM_H_

#include <tvmlite/ir/module.h>

namespace tvmlite {
namespace relay {

/*!
 * \brief Types for every expression of every function: a new module whose nodes carry checked_type_.
 * Errors name the op, the call (printed) and the argument types.
 */
ir::IRModule InferType(const ir::IRModule& mod);
/*! \brief expr with types (its free variables must be annotated). */
ir::Expr InferTypeExpr(const ir::Expr& expr);

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORM_H_
