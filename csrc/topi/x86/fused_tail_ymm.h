/*!
 * \file fused_tail_ymm.h
 * \brief A FusedTail (tvmlite/topi/fused_tail.h) applied to one ymm of 8 outputs before the store: the ymm conv tiles
 * (conv2d_nchwc_ymm.inc, for AVX2 and AVX-512VL) and the AVX2 GEMM tile. Included by those x86 files only (it is
 * compiled with their flags); avx512/fused_tail.h is the zmm one.
 */
#ifndef TVMLITE_TOPI_X86_FUSED_TAIL_YMM_H_
#define TVMLITE_TOPI_X86_FUSED_TAIL_YMM_H_

#include <immintrin.h>
#include <tvmlite/topi/fused_tail.h>

#include <cstdint>

namespace tvmlite {
namespace topi {
namespace {

/*!
 * \brief A FusedTail ready for the vectors of one run of 8 channels: a copy of its fields (a local the kernel's
 * stores cannot alias), its per-channel adds loaded once, its bounds broadcast. The common tails (per-channel adds,
 * then relu, clip or nothing) run branch-free: an absent add adds -0 (x + -0 is x, -0 and NaN included) and the
 * activation is max(lo, .) then min(hi, .) with lo = -inf and hi = +inf where there is none. A 3 -> 32 stem conv
 * + bias + relu took 1.25x the plain conv with a test per add and activation for every vector, 1.0x without.
 */
struct TailRegs {
  int scale_op;
  __m256 scale;
  bool simple;  // no full-shape add, and no clip with lo > hi
  // Exactly one full-shape add (a residual) and no clip with lo > hi: no tests per add, as (v + pre) + full or
  // (v + full) + post (one branch, the same for every vector of the call), pre / post the per-channel add before /
  // after it or -0. The general path's tests took ResNet-50's residual 1x1 convs 10-20% over the plain conv on AVX2.
  const float* one_full;
  bool full_second;  // the full add is add 1: (v + pre) + full; else (v + full) + post
  __m256 pre, post;
  int kind[2];
  const float* full[2];
  __m256 channel[2];
  int act;
  __m256 lo, hi;
};

/*! \brief The tail for channels [channel_off, channel_off + 8). */
__attribute__((always_inline)) inline TailRegs LoadTail(const FusedTail& t, int64_t channel_off) {
  TailRegs r;
  r.scale_op = t.scale_op;
  r.scale = _mm256_set1_ps(t.scale);
  r.simple = true;
  for (int k = 0; k < 2; ++k) {
    r.kind[k] = t.add_kind[k];
    r.full[k] = t.add[k];
    r.channel[k] =
        t.add_kind[k] == FusedTail::kChannel ? _mm256_loadu_ps(t.add[k] + channel_off) : _mm256_set1_ps(-0.0f);
    if (t.add_kind[k] == FusedTail::kFull) r.simple = false;
  }
  r.act = t.act;
  const float inf = __builtin_inff();
  r.lo = _mm256_set1_ps(t.act == FusedTail::kClip ? t.lo : t.act == FusedTail::kRelu ? 0.0f : -inf);
  r.hi = _mm256_set1_ps(t.act == FusedTail::kClip ? t.hi : inf);
  const bool min_max = t.act != FusedTail::kClip || t.lo <= t.hi;
  const bool full0 = t.add_kind[0] == FusedTail::kFull, full1 = t.add_kind[1] == FusedTail::kFull;
  r.one_full = min_max && full0 != full1 ? t.add[full0 ? 0 : 1] : nullptr;
  r.full_second = full1;
  r.pre = full1 ? r.channel[0] : _mm256_set1_ps(-0.0f);
  r.post = full0 ? r.channel[1] : _mm256_set1_ps(-0.0f);
  if (!min_max) r.simple = false;
  return r;
}

/*!
 * \brief v, then the tail's scale (kScale: the GEMM's; the convs' tails have none), adds and activation, exactly as
 * the interpreter computes them (float32, in order); full_off: v's flat offset in the output (a full-shape add's).
 * relu (x < 0 ? 0 : x) and clip (x < lo ? lo : x > hi ? hi : x) as max(lo, x) then min(hi, .): vmaxps / vminps
 * return their second operand for a NaN or two zeros, so NaN and -0 come out as the interpreter's. kGelu is left to
 * the caller (the GEMM tile, which has vec_math.inc's GeluV).
 */
template <bool kScale = false>
__attribute__((always_inline)) inline __m256 ApplyTail(const TailRegs& r, __m256 v, int64_t full_off) {
  if constexpr (kScale) {
    if (r.scale_op == FusedTail::kMulImm) v = _mm256_mul_ps(v, r.scale);
    if (r.scale_op == FusedTail::kDivImm) v = _mm256_div_ps(v, r.scale);
  }
  if (r.simple) {
    v = _mm256_add_ps(_mm256_add_ps(v, r.channel[0]), r.channel[1]);
    return _mm256_min_ps(r.hi, _mm256_max_ps(r.lo, v));
  }
  if (r.one_full != nullptr) {
    const __m256 full = _mm256_loadu_ps(r.one_full + full_off);
    v = r.full_second ? _mm256_add_ps(_mm256_add_ps(v, r.pre), full) : _mm256_add_ps(_mm256_add_ps(v, full), r.post);
    return _mm256_min_ps(r.hi, _mm256_max_ps(r.lo, v));
  }
  for (int k = 0; k < 2; ++k) {
    if (r.kind[k] == FusedTail::kChannel) v = _mm256_add_ps(v, r.channel[k]);
    if (r.kind[k] == FusedTail::kFull) v = _mm256_add_ps(v, _mm256_loadu_ps(r.full[k] + full_off));
  }
  if (r.act == FusedTail::kRelu) {
    v = _mm256_max_ps(r.lo, v);
  } else if (r.act == FusedTail::kClip) {  // x < lo ? lo : (x > hi ? hi : x), for lo > hi too
    const __m256 below = _mm256_cmp_ps(v, r.lo, _CMP_LT_OQ);
    const __m256 above = _mm256_andnot_ps(below, _mm256_cmp_ps(v, r.hi, _CMP_GT_OQ));
    v = _mm256_blendv_ps(_mm256_blendv_ps(v, r.lo, below), r.hi, above);
  }
  return v;
}

}  // namespace
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_X86_FUSED_TAIL_YMM_H_
