/*!
 * \file fused_tail.h
 * \brief AVX-512: a FusedTail (tvmlite/topi/fused_tail.h) applied to one vector of 16 outputs before the store.
 * Included by the AVX-512 kernels only (it is compiled with their flags).
 */
#ifndef TVMLITE_TOPI_X86_AVX512_FUSED_TAIL_H_
#define TVMLITE_TOPI_X86_AVX512_FUSED_TAIL_H_

#include <immintrin.h>
#include <tvmlite/topi/fused_tail.h>

#include <cstdint>

namespace tvmlite {
namespace topi {
namespace {

/*! \brief v, then the tail's adds and activation, exactly as the interpreter computes them (float32, in order). */
__attribute__((always_inline)) inline __m512 ApplyTail(const FusedTail& t, __m512 v, int64_t channel_off,
                                                       int64_t full_off) {
  for (int k = 0; k < 2; ++k) {
    if (t.add_kind[k] == FusedTail::kChannel) v = _mm512_add_ps(v, _mm512_loadu_ps(t.add[k] + channel_off));
    if (t.add_kind[k] == FusedTail::kFull) v = _mm512_add_ps(v, _mm512_loadu_ps(t.add[k] + full_off));
  }
  if (t.act == FusedTail::kRelu) {  // x < 0 ? 0 : x (NaN and -0 kept)
    const __m512 zero = _mm512_setzero_ps();
    v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, zero);
  } else if (t.act == FusedTail::kClip) {  // x < lo ? lo : (x > hi ? hi : x)
    const __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
    const __mmask16 below = _mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ);
    const __mmask16 above = _mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ) & static_cast<__mmask16>(~below);
    v = _mm512_mask_blend_ps(above, _mm512_mask_blend_ps(below, v, lo), hi);
  }
  return v;
}

}  // namespace
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_X86_AVX512_FUSED_TAIL_H_
