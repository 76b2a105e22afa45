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

/*!
 * \brief A FusedTail ready for the vectors of one run of 16 channels: a copy of its fields (a local the kernel's
 * stores cannot alias, so nothing is reloaded per vector), its per-channel adds loaded once, its bounds broadcast.
 */
struct TailRegs {
  int scale_op;
  __m512 scale;
  int kind[2];
  const float* full[2];
  __m512 channel[2];
  int act;
  bool min_max;  // clip as max then min: lo <= hi (else the compare-and-blend form)
  __m512 lo, hi;
};

/*! \brief The tail for channels [channel_off, channel_off + 16). */
__attribute__((always_inline)) inline TailRegs LoadTail(const FusedTail& t, int64_t channel_off) {
  TailRegs r;
  r.scale_op = t.scale_op;
  r.scale = _mm512_set1_ps(t.scale);
  for (int k = 0; k < 2; ++k) {
    r.kind[k] = t.add_kind[k];
    r.full[k] = t.add[k];
    r.channel[k] = t.add_kind[k] == FusedTail::kChannel ? _mm512_loadu_ps(t.add[k] + channel_off) : _mm512_setzero_ps();
  }
  r.act = t.act;
  r.min_max = t.act != FusedTail::kClip || t.lo <= t.hi;
  r.lo = _mm512_set1_ps(t.act == FusedTail::kClip ? t.lo : 0.0f);
  r.hi = _mm512_set1_ps(t.hi);
  return r;
}

/*!
 * \brief v, then the tail's scale, adds and activation, exactly as the interpreter computes them (float32, in order);
 * full_off: v's flat offset in the output (a full-shape add's). relu (x < 0 ? 0 : x) and clip (x < lo ? lo : x > hi ?
 * hi : x) as max(lo, x) then min(hi, .): the instructions return their second operand for a NaN or two zeros, so
 * NaN and -0 come out as the interpreter's. kScale: the tail may open with a scale (the GEMM's; MatchFusedTail's
 * allow_scale). The convs' tails never do, and testing for it per vector made their small-K tiles 2-4% slower.
 */
template <bool kScale = false>
__attribute__((always_inline)) inline __m512 ApplyTail(const TailRegs& r, __m512 v, int64_t full_off) {
  if constexpr (kScale) {
    if (r.scale_op == FusedTail::kMulImm) v = _mm512_mul_ps(v, r.scale);
    if (r.scale_op == FusedTail::kDivImm) v = _mm512_div_ps(v, r.scale);
  }
  for (int k = 0; k < 2; ++k) {
    if (r.kind[k] == FusedTail::kChannel) v = _mm512_add_ps(v, r.channel[k]);
    if (r.kind[k] == FusedTail::kFull) v = _mm512_add_ps(v, _mm512_loadu_ps(r.full[k] + full_off));
  }
  // The maskz forms: plain _mm512_max_ps trips a false GCC 12 -Wuninitialized (bug 105593).
  if (r.act == FusedTail::kRelu) {
    v = _mm512_maskz_max_ps(0xFFFF, r.lo, v);
  } else if (r.act == FusedTail::kClip && r.min_max) {
    v = _mm512_maskz_min_ps(0xFFFF, r.hi, _mm512_maskz_max_ps(0xFFFF, r.lo, v));
  } else if (r.act == FusedTail::kClip) {  // lo > hi: x < lo ? lo : (x > hi ? hi : x)
    const __mmask16 below = _mm512_cmp_ps_mask(v, r.lo, _CMP_LT_OQ);
    const __mmask16 above = _mm512_cmp_ps_mask(v, r.hi, _CMP_GT_OQ) & static_cast<__mmask16>(~below);
    v = _mm512_mask_blend_ps(above, _mm512_mask_blend_ps(below, v, r.lo), r.hi);
  }
  return v;
}

}  // namespace
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_X86_AVX512_FUSED_TAIL_H_
