/*!
 * \file fused_tail_vec.h
 * \brief A FusedTail (tvmlite/topi/fused_tail.h) applied to one vector of outputs before the store, written once for
 * both register widths: a ymm of 8 (the AVX2 kernels and the ymm conv tiles of AVX-512VL, conv2d_nchwc_ymm.inc) and,
 * in files compiled for AVX-512, a zmm of 16 (its conv tile and the GEMM tile, gemm_tile.inc). Included by those x86
 * files only (it is compiled with their flags).
 *
 *   const TailRegs<8> tail = LoadTail<8>(*a.tail, channel_off);   // a ymm: once per run of 8 channels
 *   _mm256_storeu_ps(out, ApplyTail(tail, acc, flat_off));       // per vector
 */
#ifndef TVMLITE_TOPI_X86_FUSED_TAIL_VEC_H_
#define TVMLITE_TOPI_X86_FUSED_TAIL_VEC_H_

#include <immintrin.h>
#include <tvmlite/topi/fused_tail.h>

#include <cstdint>

namespace tvmlite {
namespace topi {
namespace {

/*!
 * \brief The instructions of a tail that differ by width, keyed by the lanes (a register type as the template
 * argument loses its attributes: GCC's -Wignored-attributes). +, * and / are GCC's vector operators, which
 * _mm256_add_ps and the others are defined as.
 */
template <int kLanes>
struct TailVec;

template <>
struct TailVec<8> {
  using V = __m256;
  static __m256 Set1(float x) { return _mm256_set1_ps(x); }
  static __m256 Load(const float* p) { return _mm256_loadu_ps(p); }
  static __m256 Max(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
  static __m256 Min(__m256 a, __m256 b) { return _mm256_min_ps(a, b); }
  /*! \brief x < lo ? lo : (x > hi ? hi : x), for lo > hi too. */
  static __m256 ClipInOrder(__m256 v, __m256 lo, __m256 hi) {
    const __m256 below = _mm256_cmp_ps(v, lo, _CMP_LT_OQ), above = _mm256_cmp_ps(v, hi, _CMP_GT_OQ);
    return _mm256_blendv_ps(_mm256_blendv_ps(v, hi, above), lo, below);
  }
};

#ifdef __AVX512F__
template <>
struct TailVec<16> {
  using V = __m512;
  static __m512 Set1(float x) { return _mm512_set1_ps(x); }
  static __m512 Load(const float* p) { return _mm512_loadu_ps(p); }
  // The maskz forms: plain _mm512_max_ps trips a false GCC 12 -Wuninitialized (bug 105593).
  static __m512 Max(__m512 a, __m512 b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
  static __m512 Min(__m512 a, __m512 b) { return _mm512_maskz_min_ps(0xFFFF, a, b); }
  static __m512 ClipInOrder(__m512 v, __m512 lo, __m512 hi) {
    const __mmask16 below = _mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ), above = _mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ);
    return _mm512_mask_blend_ps(below, _mm512_mask_blend_ps(above, v, hi), lo);
  }
};
#endif

/*!
 * \brief A FusedTail ready for the vectors of one run of channels: a copy of its fields (a local the kernel's
 * stores cannot alias, so nothing is reloaded per vector), its per-channel adds loaded once, its bounds broadcast.
 * The common tails (per-channel adds, then relu, clip or nothing) run branch-free: an absent add adds -0 (x + -0 is
 * x, -0 and NaN included) and the activation is max(lo, .) then min(hi, .) with lo = -inf and hi = +inf where there
 * is none. A 3 -> 32 stem conv + bias + relu took 1.25x the plain conv on AVX2 with a test per add and activation
 * for every vector, 1.0x without.
 */
template <int kLanes>
struct TailRegs {
  using V = typename TailVec<kLanes>::V;
  int scale_op;
  V scale;
  bool simple;  // no full-shape add, and no clip with lo > hi
  // Exactly one full-shape add (a residual) and no clip with lo > hi: no tests per add, as (v + pre) + full or
  // (v + full) + post (one branch, the same for every vector of the call), pre / post the per-channel add before /
  // after it or -0. The general path's tests took ResNet-50's residual 1x1 convs 10-20% over the plain conv on AVX2.
  const float* one_full;
  bool full_second;  // the full add is add 1: (v + pre) + full; else (v + full) + post
  V pre, post;
  int kind[2];
  const float* full[2];
  V channel[2];
  int act;
  V lo, hi;
};

/*! \brief The tail for the channels [channel_off, channel_off + kLanes). */
template <int kLanes>
__attribute__((always_inline)) inline TailRegs<kLanes> LoadTail(const FusedTail& t, int64_t channel_off) {
  using O = TailVec<kLanes>;
  TailRegs<kLanes> r;
  r.scale_op = t.scale_op;
  r.scale = O::Set1(t.scale);
  r.simple = true;
  for (int k = 0; k < 2; ++k) {
    r.kind[k] = t.add_kind[k];
    r.full[k] = t.add[k];
    r.channel[k] = t.add_kind[k] == FusedTail::kChannel ? O::Load(t.add[k] + channel_off) : O::Set1(-0.0f);
    if (t.add_kind[k] == FusedTail::kFull) r.simple = false;
  }
  r.act = t.act;
  const float inf = __builtin_inff();
  r.lo = O::Set1(t.act == FusedTail::kClip ? t.lo : t.act == FusedTail::kRelu ? 0.0f : -inf);
  r.hi = O::Set1(t.act == FusedTail::kClip ? t.hi : inf);
  const bool min_max = t.act != FusedTail::kClip || t.lo <= t.hi;
  const bool full0 = t.add_kind[0] == FusedTail::kFull, full1 = t.add_kind[1] == FusedTail::kFull;
  r.one_full = min_max && full0 != full1 ? t.add[full0 ? 0 : 1] : nullptr;
  r.full_second = full1;
  r.pre = full1 ? r.channel[0] : O::Set1(-0.0f);
  r.post = full0 ? r.channel[1] : O::Set1(-0.0f);
  if (!min_max) r.simple = false;
  return r;
}

/*!
 * \brief v, then the tail's scale, adds and activation, exactly as the interpreter computes them (float32, in order);
 * full_off: v's flat offset in the output (a full-shape add's). relu (x < 0 ? 0 : x) and clip (x < lo ? lo : x > hi ?
 * hi : x) as max(lo, x) then min(hi, .): the instructions return their second operand for a NaN or two zeros, so NaN
 * and -0 come out as the interpreter's. kScale: the tail may open with a scale (the GEMM's; MatchFusedTail's
 * allow_scale). The convs' tails never do, and testing for it per vector made their small-K tiles 2-4% slower.
 * kGelu is left to the caller (the GEMM tile, which has vec_math.inc's GeluRows).
 */
template <bool kScale = false, int kLanes>
__attribute__((always_inline)) inline typename TailVec<kLanes>::V ApplyTail(const TailRegs<kLanes>& r,
                                                                            typename TailVec<kLanes>::V v,
                                                                            int64_t full_off) {
  using O = TailVec<kLanes>;
  using V = typename O::V;
  if constexpr (kScale) {
    if (r.scale_op == FusedTail::kMulImm) v = v * r.scale;
    if (r.scale_op == FusedTail::kDivImm) v = v / r.scale;
  }
  if (r.simple) return O::Min(r.hi, O::Max(r.lo, (v + r.channel[0]) + r.channel[1]));
  if (r.one_full != nullptr) {
    const V full = O::Load(r.one_full + full_off);
    v = r.full_second ? (v + r.pre) + full : (v + full) + r.post;
    return O::Min(r.hi, O::Max(r.lo, v));
  }
  for (int k = 0; k < 2; ++k) {
    if (r.kind[k] == FusedTail::kChannel) v = v + r.channel[k];
    if (r.kind[k] == FusedTail::kFull) v = v + O::Load(r.full[k] + full_off);
  }
  if (r.act == FusedTail::kRelu) return O::Max(r.lo, v);
  if (r.act == FusedTail::kClip) return O::ClipInOrder(v, r.lo, r.hi);
  return v;
}

}  // namespace
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_X86_FUSED_TAIL_VEC_H_
