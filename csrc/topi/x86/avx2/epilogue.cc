/*!
 * \file avx2/epilogue.cc
 * \brief EpiRunAVX2: the epilogue interpreter's loops on 8 lanes with FMA (the ops are in ../epilogue_vec.inc).
 */
#include <tvmlite/topi/epilogue.h>

#include <immintrin.h>

#include <cmath>
#include <cstdint>

namespace tvmlite {
namespace topi {
namespace {

typedef __m256 V;
typedef __m256 M;
constexpr int W = 8;

static inline V Load(const float* p) { return _mm256_loadu_ps(p); }
static inline void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
static inline V Set1(float v) { return _mm256_set1_ps(v); }
static inline V Add(V a, V b) { return _mm256_add_ps(a, b); }
static inline V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
static inline V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
static inline V Div(V a, V b) { return _mm256_div_ps(a, b); }
static inline V Fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
static inline V Fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
static inline V Fmsub(V a, V b, V c) { return _mm256_fmsub_ps(a, b, c); }
static inline V Max(V a, V b) { return _mm256_max_ps(a, b); }
static inline V Min(V a, V b) { return _mm256_min_ps(a, b); }
static inline V Sqrt(V a) { return _mm256_sqrt_ps(a); }
static inline V Floor(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static inline V Ceil(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
static inline V RoundEven(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline V And(V a, V b) { return _mm256_and_ps(a, b); }
static inline V Or(V a, V b) { return _mm256_or_ps(a, b); }
static inline V Xor(V a, V b) { return _mm256_xor_ps(a, b); }
static inline V AndNot(V a, V b) { return _mm256_andnot_ps(a, b); }
static inline M Lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline M Le(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static inline M Gt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline M Eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline M Unord(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
static inline V Select(M m, V t, V f) { return _mm256_blendv_ps(f, t, m); }
/*! \brief 2^k for integer k in [-126, 127], built in the exponent field. */
static inline V Pow2i(__m256i k) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
}
static inline V Scale2(V p, V n) {
  // Two factors 2^(n/2) keep each in the normal range for n in [-150, 128]: the product overflows or goes
  // denormal as the exact result does. (NaN n: p is NaN too, the factors do not matter.)
  __m256i k = _mm256_cvtps_epi32(n);
  __m256i k1 = _mm256_srai_epi32(k, 1);
  __m256i k2 = _mm256_sub_epi32(k, k1);
  return _mm256_mul_ps(_mm256_mul_ps(p, Pow2i(k1)), Pow2i(k2));
}
static inline void LogSplit(V x, V* m, V* e) {
  const V tiny = _mm256_cmp_ps(x, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ);  // denormal: scale by 2^23 first
  V xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(8388608.0f)), tiny);
  __m256i bits = _mm256_castps_si256(xs);
  __m256i ex = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127));
  V ef = _mm256_sub_ps(_mm256_cvtepi32_ps(ex), _mm256_and_ps(tiny, _mm256_set1_ps(23.0f)));
  V mant = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)),
                                               _mm256_set1_epi32(0x3f800000)));
  V big = _mm256_cmp_ps(mant, _mm256_set1_ps(1.41421356f), _CMP_GT_OQ);
  *m = _mm256_blendv_ps(mant, _mm256_mul_ps(mant, _mm256_set1_ps(0.5f)), big);
  *e = _mm256_add_ps(ef, _mm256_and_ps(big, _mm256_set1_ps(1.0f)));
}

#include "../epilogue_vec.inc"

}  // namespace

void EpiRunAVX2(const EpiInstr& ins, float* y, const float* a, const float* b, int64_t n) {
  RunVector(ins, y, a, b, n);
}

}  // namespace topi
}  // namespace tvmlite
