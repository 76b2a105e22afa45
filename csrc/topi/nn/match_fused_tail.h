/*!
 * \file match_fused_tail.h
 * \brief Which epilogues a kernel applies in registers (tvmlite/topi/fused_tail.h): a program read as a FusedTail.
 *
 *   FusedTail tail;   // conv: per-channel inputs are (1, O/oc, 1, 1, oc); GEMM: (1, ..., 1, N)
 *   if (MatchFusedTail(program, args.Rest(2), out.shape(), ChannelShape(out.shape()), &tail)) ...
 */
#ifndef TVMLITE_TOPI_NN_MATCH_FUSED_TAIL_H_
#define TVMLITE_TOPI_NN_MATCH_FUSED_TAIL_H_

#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/fused_tail.h>

#include <vector>

namespace tvmlite {
namespace topi {

/*!
 * \brief The program as a FusedTail when it is a chain "add (cur, in_k)" ... ["relu | clip" cur], each step reading
 * the register the previous one wrote (r0 first; the lowering names intermediates r1..r7) and the last writing r0:
 * at most two adds of a float32 input that is per-channel (channel_shape, right-aligned: inputs of fewer dims
 * broadcast) or of the output's shape, then at most one relu or clip. With allow_scale (kernels whose tail applies
 * FusedTail::scale_op), the chain may open with "mul cur imm" (either order) or "div cur imm"; with allow_gelu
 * (kernels that apply FusedTail::kGelu), the activation may be "gelu cur". False for anything else (the interpreter
 * runs it).
 */
bool MatchFusedTail(const Epilogue& program, const std::vector<runtime::NDArray>& inputs,
                    const std::vector<int64_t>& out_shape, const std::vector<int64_t>& channel_shape, FusedTail* tail,
                    bool allow_scale = false, bool allow_gelu = false);

/*! \brief The per-channel shape of a conv output: (1, C, 1, 1) for NCHW, (1, C/c, 1, 1, c) for NCHW{c}c. */
std::vector<int64_t> ConvChannelShape(const std::vector<int64_t>& out_shape);

/*! \brief The per-channel shape of a blocked conv output of any rank: (1, C/c, 1, ..., 1, c) (NCDHW{c}c too). */
std::vector<int64_t> BlockedChannelShape(const std::vector<int64_t>& out_shape);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_MATCH_FUSED_TAIL_H_
