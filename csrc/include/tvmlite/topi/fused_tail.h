/*!
 * \file tvmlite/topi/fused_tail.h
 * \brief The common epilogues a kernel applies in registers before its store, instead of the interpreter: a bias,
 * a residual, relu / clip, and (GEMM only) a leading scale by a constant (attention's scores / sqrt(d)) and GELU (a
 * transformer's FFN). Plain data, shared by the ISA files (csrc/topi/nn/match_fused_tail.h reads a program into one;
 * csrc/topi/x86/fused_tail_vec.h applies it to a ymm or zmm vector).
 *
 *   FusedTail tail;                       // add[k] per channel or of the output's shape, then an activation
 *   v = ApplyTail(tail, v, channel_offset, flat_offset);
 */
#ifndef TVMLITE_TOPI_FUSED_TAIL_H_
#define TVMLITE_TOPI_FUSED_TAIL_H_

namespace tvmlite {
namespace topi {

/*!
 * \brief An optional multiply or divide by an immediate (only where the kernel asked MatchFusedTail for it: the
 * GEMM tiles), then up to two adds, in program order, of a per-channel input (read at the channel's offset) or a
 * tensor of the output's shape (read at the output's flat offset), then relu, clip or (GEMM only) GELU. The same
 * float32 operations in the same order as the interpreter: the results are identical.
 */
struct FusedTail {
  enum AddKind : int { kNone = 0, kChannel = 1, kFull = 2 };
  enum Act : int { kIdentity = 0, kRelu = 1, kClip = 2, kGelu = 3 };
  enum Scale : int { kNoScale = 0, kMulImm = 1, kDivImm = 2 };
  int scale_op = kNoScale;  // v * scale or v / scale, before the adds
  float scale = 1;
  const float* add[2] = {nullptr, nullptr};
  int add_kind[2] = {kNone, kNone};
  int act = kIdentity;
  float lo = 0, hi = 0;  // clip's bounds
};

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_FUSED_TAIL_H_
