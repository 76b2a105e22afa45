/*!
 * \file tvmlite/relay/op_facts.h
 * \brief Facts about an op that passes and the lowering ask instead of keeping lists of op names.
 *
 *   OpFacts facts;                         // one snapshot of the attributes, then lock-free lookups
 *   facts.Deterministic(op)                // same inputs, same outputs: it may be folded or computed once
 *   facts.ReadsOnlyShape(op, 1)            // argument 1 is read for its shape (and dtype) only
 *   facts.ShapeReadsValue(op, 1)           // the output's shape depends on argument 1's values
 *
 * The attributes behind them, set where the op is registered:
 *   "TNonDeterministic"  bool: the op draws random numbers (also assumed of any op whose name says random,
 *                        multinomial or bernoulli, the ONNX frontend's rule in frontend/onnx/fold.py);
 *   "TShapeOnlyArgs"     Array<int64_t>: the positions of the arguments whose values the op never reads
 *                        (shape_of's data, reshape_like's and broadcast_to_like's shape_like, ...);
 *   "TShapeDataDependent" Array<int64_t>: for an op whose output shape its inputs' values decide (dyn.reshape,
 *                        dyn.strided_slice: TVM's attribute of that name), the arguments whose values do; an op
 *                        without it is taken to read every argument's values for its shape (arange, argwhere).
 */
#ifndef TVMLITE_RELAY_OP_FACTS_H_
#define TVMLITE_RELAY_OP_FACTS_H_

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

 private:
  ir::OpAttrMapBase nondeterministic_, shape_only_args_, shape_data_dependent_;
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_OP_FACTS_H_
