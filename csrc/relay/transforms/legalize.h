/*!
 * \file legalize.h
 * \brief What the Legalize pass (legalize.cc) and the ops' rewrites (legalize_rules.cc) share: the
 * "FTVMLiteLegalize" op attribute (TVM's FTVMLegalize) and the helpers of 1-D convs run as 2-D ones.
 *
 *   Function rule = OpAttrMap<Function>("FTVMLiteLegalize")[op];
 *   Any out = rule(call, new_args);  // call: as typed before the pass (its args' types); new_args: its args,
 *                                    // already legalized -> the replacement Expr, or None to keep the call
 *
 * A rule reads the original call for attrs and types (the rewritten args are untyped until the pass ends) and
 * builds its replacement from new_args. An op without a rule is elementwise-or-broadcast (TOpPattern) and free of
 * axis semantics, or kept: the pass sinks a squeeze below it (SinkSqueeze).
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_LEGALIZE_H_
#define TVMLITE_RELAY_TRANSFORMS_LEGALIZE_H_

#include <vector>

#include "pass_util.h"

namespace tvmlite {
namespace relay {
namespace legalize {

/*! \brief expand_dims(e, axis), one new axis. */
Expr ExpandDims(const Expr& e, int64_t axis);

/*! \brief squeeze(e, axis 2): a 2-D conv's NCHW result over H = 1 back to NCW. */
Expr SqueezeH(const Expr& e);

/*! \brief y when e is squeeze(y, axis 2) (or -2) of a 4-D y, original_type e's type before the pass; else null. */
Expr UnsqueezedH(const Expr& e, const TensorTypeNode* original_type);

/*! \brief e (3-D NCW, original_type its type before the pass) with a unit H: y when e is squeeze(y, 2), else
 * expand_dims(e, 2). */
Expr ExpandH(const Expr& e, const TensorTypeNode* original_type);

/*!
 * \brief f(..., squeeze(y, 2), ...) -> squeeze(f(... 4-D operands ...), 2) for a typed call of f whose result is
 * 3-D, when an operand is such a squeeze (legalize.cc's comment: the other operands get a unit axis before their last
 * one). bias_add: its (C,) bias stays and its axis becomes 1. Null when nothing is to sink.
 */
Expr SinkSqueeze(const CallNode* call, const std::vector<Expr>& args, bool bias_add);

}  // namespace legalize
}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_LEGALIZE_H_
