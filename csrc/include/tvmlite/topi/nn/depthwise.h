/*!
 * \file tvmlite/topi/nn/depthwise.h
 * \brief The ISA entry points of topi.nn.depthwise_conv2d_nchwc (csrc/topi/nn/depthwise_conv2d.cc dispatches).
 *
 *   DepthwiseRow r{...};                      // one output row of one (batch, channel block) plane
 *   if (CpuIsa() == Isa::kAVX512 && r.c % 16 == 0) DepthwiseRowAVX512(r);
 *
 * Layouts (NCHW{c}c): the input plane is (H, W, c), the block's taps (KH, KW, c), the output row (OW, c); channel
 * lane l of every pixel uses tap lane l only (channel multiplier 1). Columns [ow_lo, ow_hi) are the interior,
 * whose every tap lies inside the input row; the others are checked tap by tap. Rows out of range are skipped.
 * A per-channel bias and a clamp (relu, relu6) fused in the epilogue are applied before the store.
 * A 3-D depthwise conv (topi.nn.depthwise_conv3d_ncdhwc) runs one row per kernel depth tap, the later ones with
 * `accumulate` (the sum so far read back from the output row, still in L1), the bias on the first, the clamp on the
 * last.
 */
#ifndef TVMLITE_TOPI_NN_DEPTHWISE_H_
#define TVMLITE_TOPI_NN_DEPTHWISE_H_

#include <tvmlite/topi/fused_tail.h>
#include <tvmlite/topi/isa.h>

#include <cstdint>

namespace tvmlite {
namespace topi {

/*! \brief One output row of a depthwise convolution: plain data, shared by the ISA variants. */
struct DepthwiseRow {
  const float* in;      // the (n, cb) input plane, H x W x c
  const float* weight;  // the block's taps, KH x KW x c
  float* out;           // the output row, OW x c
  int64_t H, W, c, OW, KH, KW;
  int64_t stride_w, dil_h, dil_w;
  int64_t ih0;  // input row of tap kh = 0: oh * stride_h - pad_top (may be negative)
  int64_t pad_left;
  int64_t ow_lo, ow_hi;  // the interior columns
  // The fused tail, applied in registers: out = min(hi, max(lo, bias + conv)) (NaN stays NaN).
  const float* bias;  // the block's c values, or nullptr for none (ignored when accumulate)
  float lo, hi;       // -inf / +inf when there is no clamp
  // The input rows the next output row reads first (contiguous, prefetch_len floats), fetched ahead while this row
  // computes: the big layers stream their input from L3 or memory. nullptr: none.
  const float* prefetch;
  int64_t prefetch_len;
  // Add to the output row's values (a later pass of a sum) instead of starting from the bias or zero.
  bool accumulate;
};

/*!
 * \brief The fields every row of one convolution shares: the shapes, the window and the interior columns (the rest
 * is per row: in, weight, out, ih0, bias, prefetch). No bias, no clamp.
 */
DepthwiseRow DepthwiseRowShape(int64_t H, int64_t W, int64_t c, int64_t OW, int64_t KH, int64_t KW, int64_t stride_w,
                               int64_t dil_h, int64_t dil_w, int64_t pad_left);

/*!
 * \brief The row's register tail from a matched FusedTail: *bias (per channel, for every block; nullptr for none),
 * *lo and *hi. False when the tail is more than one per-channel add then relu / clip with lo <= hi (a clip the rows'
 * min(hi, max(lo, x)) would compute differently): the interpreter must run it.
 */
bool DepthwiseRowTail(const FusedTail& tail, const float** bias, float* lo, float* hi);

using DepthwiseRowFn = void (*)(const DepthwiseRow&);

/*!
 * \brief The row function for block c under isa: AVX-512 (c a multiple of 16) or AVX2 (of 8) when isa allows, else
 * the portable row (c = 1: plain NCHW, each tap swept along the row).
 */
DepthwiseRowFn PickDepthwiseRow(Isa isa, int64_t c);

/*! \brief c a multiple of 16; AVX-512F only. */
void DepthwiseRowAVX512(const DepthwiseRow& r);
/*! \brief c a multiple of 8; AVX2 + FMA only. */
void DepthwiseRowAVX2(const DepthwiseRow& r);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_DEPTHWISE_H_
