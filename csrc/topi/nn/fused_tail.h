/*!
 * \file fused_tail.h
 * \brief The epilogues the conv kernels of csrc/topi/nn apply in registers: a program read as a Conv2DFusedTail.
 *
 *   Conv2DFusedTail tail;
 *   if (MatchFusedTail(program, args.Rest(2), out.shape(), &tail)) ...  // bias / residual adds, relu / clip
 */
#ifndef TVMLITE_TOPI_NN_FUSED_TAIL_H_
#define TVMLITE_TOPI_NN_FUSED_TAIL_H_

#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/nn/conv2d.h>

#include <vector>

namespace tvmlite {
namespace topi {

/*!
 * \brief The program as a Conv2DFusedTail when it is a chain "add (cur, in_k)" ... ["relu | clip" cur], each step
 * reading the register the previous one wrote (r0 first; the lowering names intermediates r1..r7) and the last
 * writing r0: at most two adds of a float32 input that is per-channel ((1, O/oc, 1, 1, oc) or (1, O, 1, 1),
 * right-aligned) or of the output's shape (rank 4 or 5), then at most one relu or clip. False for anything else
 * (the interpreter runs it).
 */
bool MatchFusedTail(const Epilogue& program, const std::vector<runtime::NDArray>& inputs,
                    const std::vector<int64_t>& out_shape, Conv2DFusedTail* tail);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_FUSED_TAIL_H_
