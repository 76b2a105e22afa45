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

/*!
 * \brief func with the parameters named in params replaced by Constants of those arrays (TVM's
 * bind_params_by_name). ValueError lists unknown names; a shape or dtype that does not fit is a ValueError.
 */
ir::Function BindParams(const ir::Function& func, const runtime::Map<runtime::String, runtime::NDArray>& params);
/*! \brief nn.batch_norm (inference) -> data * scale + shift; inference dropout -> its input. */
ir::IRModule SimplifyInference(const ir::IRModule& mod);
/*! \brief Arithmetic spelling out an op rewritten into it: Erf-form GELU -> nn.gelu (simplify_expr.cc). */
ir::IRModule SimplifyExpr(const ir::IRModule& mod);
/*! \brief Calls whose inputs are all constants evaluated once (through "relay.backend.eval_const"). */
ir::IRModule FoldConstant(const ir::IRModule& mod);
/*! \brief A constant per-channel multiply after conv2d / dense (optionally through a bias add) folded into the
 * weight. */
ir::IRModule FoldScaleAxis(const ir::IRModule& mod);
/*!
 * \brief nn.conv1d / nn.conv1d_transpose -> squeeze(nn.conv2d / nn.conv2d_transpose over H = 1, 2), the squeeze then
 * sunk below the elementwise ops after it and cancelled against a following expand_dims (legalize.cc).
 */
ir::IRModule Legalize(const ir::IRModule& mod);
/*! \brief TupleGetItem(Tuple(...), i) -> field i; functions main cannot reach dropped. */
ir::IRModule DeadCodeElimination(const ir::IRModule& mod);
/*!
 * \brief Groups of one anchor op plus the elementwise ops after it (or elementwise DAGs), each a
 * Function{"Primitive": 1} called from its function, at most max_depth ops each. fuse_opt_level 0: no fusion (the
 * module as it is, typed).
 */
ir::IRModule FuseOps(const ir::IRModule& mod, int fuse_opt_level, int max_depth = 32);

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORM_H_
