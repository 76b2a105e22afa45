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

#include "vec.inc"

static inline V Scale2(V p, V n) {
  // Two factors 2^(n/2) keep each in the normal range for n in [-150, 128]: the product overflows or goes
  // denormal as the exact result does. (NaN n: p is NaN too, the factors do not matter.)
  VI k = ToInt(n);
  VI k1 = _mm256_srai_epi32(k, 1);
  VI k2 = _mm256_sub_epi32(k, k1);
  return Mul(Mul(p, Pow2i(k1)), Pow2i(k2));
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
