/*!
 * \file tvmlite/relay/op_facts.h
 * \brief Facts about an op that passes and the lowering ask instead of keeping lists of op names.
 *
 *   OpFacts facts;                         // one snapshot of the attributes, then lock-free lookups
 *   facts.Deterministic(op)                // same inputs, same outputs: it may be folded or computed once
 *   facts.ReadsOnlyShape(op, 1)            // argument 1 is read for its shape (and dtype) only
 *   facts.ShapeReadsValue(op, 1)           // the output's shape depends on argument 1's values
 *   facts.HasAxisSemantics(op)             // its attrs or inputs name axes: not plain numpy broadcasting
 *   facts.KeepsFinite(call)                // small finite inputs give finite outputs (padded channels' filler)
 *   facts.IsView(op), facts.IsView(call)   // its output is its first input's bytes, reshaped
 *   facts.BroadcastsFirstInput(op)         // its output is its first input broadcast to the output's shape
 *
 * The attributes behind them, set where the op is registered:
 *   "TNonDeterministic"  bool: the op draws random numbers or has an effect (raise_error) (also assumed of any op
 *                        whose name says random, multinomial or bernoulli; the ONNX frontend's folding asks this
 *                        rule, frontend/onnx/fold.py);
 *   "TShapeOnlyArgs"     Array<int64_t>: the positions of the arguments whose values the op never reads
 *                        (shape_of's data, reshape_like's and broadcast_to_like's shape_like, ...);
 *   "TShapeDataDependent" Array<int64_t>: for an op whose output shape its inputs' values decide (dyn.reshape,
 *                        dyn.strided_slice: TVM's attribute of that name), the arguments whose values do; an op
 *                        without it is taken to read every argument's values for its shape (arange, argwhere);
 *   "TAxisSemantics"     bool: the op's attrs or inputs give an axis a meaning (bias_add's axis, expand_dims',
 *                        broadcast_to's and full's shapes, qnn's per-axis scales, every dyn.* op's run-time shape or
 *                        axes): though elementwise or broadcast by its TOpPattern, it is not numpy broadcasting, so
 *                        a pass that changes the rank or layout of its operands (AlterOpLayout's blocking, Legalize's
 *                        squeeze sinking) leaves it, or remaps the axes as Legalize does bias_add's;
 *   "TKeepsFinite"       bool: the op maps small finite inputs to finite outputs whatever the other operands are
 *                        among zeros, scalars and channel-free maps (add, multiply, maximum, the activations, exp;
 *                        not divide, log, sqrt, pow): AlterOpLayout lets zero-padded channels through it
 *                        (docs/compiler.md, "Padded channels");
 *   "FTVMLiteKeepsFinite" Function(call) -> bool: the same for an op that keeps finite only with some operands
 *                        (divide: by a nonzero scalar constant); asked when "TKeepsFinite" is not set;
 *   "TIsView"            bool: the output is the first input's bytes in another shape (reshape, squeeze,
 *                        expand_dims, nn.batch_flatten, reshape_like): the lowering makes a view of it, and FuseOps
 *                        keeps a symbolic one out of groups;
 *   "FTVMLiteIsView"     Function(call) -> bool: a call that is a view though its op is not always one
 *                        (layout_transform between layouts of one memory order, NCHW -> NCHW1c); the lowering's
 *                        view chains ask it (IsView(call));
 *   "TBroadcastsFirstInput" bool: the output is the first input broadcast to the output's shape by numpy's rules
 *                        (broadcast_to): an epilogue reads that input as it is.
 *
 * Python reads and sets them as any attribute (`tvmlite.ir.Op.get("nn.relu").get_attr("TKeepsFinite")`); a pass
 * sees what was set before it started. Deterministic is also the global "relay.OpDeterministic" (the ONNX
 * importer's folding asks it).
 */
#ifndef TVMLITE_RELAY_OP_FACTS_H_
#define TVMLITE_RELAY_OP_FACTS_H_

#include <tvmlite/ir/expr.h>
#include <tvmlite/ir/op.h>

#include <cstdint>

namespace tvmlite {
namespace relay {

class OpFacts {
 public:
  OpFacts();
  bool Deterministic(const ir::Op& op) const;
  bool ReadsOnlyShape(const ir::Op& op, int64_t arg) const;
  bool ShapeReadsValue(const ir::Op& op, int64_t arg) const;
  bool HasAxisSemantics(const ir::Op& op) const { return Flag(axis_semantics_, op); }
  bool KeepsFinite(const ir::Op& op) const { return Flag(keeps_finite_, op); }
  /*! \brief KeepsFinite(op) or the op's "FTVMLiteKeepsFinite" rule says call keeps it (call: of an op). */
  bool KeepsFinite(const ir::Call& call) const;
  bool IsView(const ir::Op& op) const { return Flag(is_view_, op); }
  /*! \brief IsView(op) or the op's "FTVMLiteIsView" rule says call is one (false for a call of a function). */
  bool IsView(const ir::Call& call) const;
  bool BroadcastsFirstInput(const ir::Op& op) const { return Flag(broadcasts_first_input_, op); }

 private:
  static bool Flag(const ir::OpAttrMapBase& attr, const ir::Op& op);
  ir::OpAttrMapBase nondeterministic_, shape_only_args_, shape_data_dependent_;
  /*! \brief rule(call) as a bool: TypeError naming the attribute and the op when it returns anything else. */
  static bool AskRule(const ir::OpAttrMapBase& attr, const char* name, const ir::Call& call);
  ir::OpAttrMapBase axis_semantics_, keeps_finite_, is_view_, broadcasts_first_input_;
  ir::OpAttrMapBase keeps_finite_rule_, is_view_rule_;
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_OP_FACTS_H_
