/*!
 * \file softmax.cc
 * \brief AVX2 + FMA row primitives of softmax (tvmlite/topi/nn/softmax.h): 8 lanes at a time, the tail through a
 * zero-padded stack copy.
 */
#include <immintrin.h>

#include <tvmlite/topi/nn/softmax.h>

#include <cstring>

namespace tvmlite {
namespace topi {
namespace softmax {
namespace {

/*! \brief Cephes expf on 8 lanes (softmax.h). */
__m256 Exp(__m256 x) {
  const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(kExpLo)), _mm256_set1_ps(kExpHi));
  const __m256 fx = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(kLog2e)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(kLn2Hi), xc);
  r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(kLn2Lo), r);
  __m256 y = _mm256_set1_ps(kP0);
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP1));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP2));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP3));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP4));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kP5));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(r, r), r);
  y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  __m256 out = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
  out = _mm256_blendv_ps(out, _mm256_setzero_ps(), _mm256_cmp_ps(x, _mm256_set1_ps(kExpLo), _CMP_LT_OQ));
  out = _mm256_blendv_ps(out, _mm256_set1_ps(__builtin_inff()),
                         _mm256_cmp_ps(x, _mm256_set1_ps(88.72283935546875f), _CMP_GT_OQ));
  return _mm256_blendv_ps(out, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

float HMax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

float HSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

}  // namespace

float RowMaxAVX2(const float* x, int64_t n) {
  const float ninf = -__builtin_inff();
  __m256 m = _mm256_set1_ps(ninf), nan = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    m = _mm256_max_ps(m, v);
  }
  float out = HMax(m);
  bool has_nan = _mm256_movemask_ps(nan) != 0;
  for (; i < n; ++i) {
    has_nan |= x[i] != x[i];
    out = x[i] > out ? x[i] : out;
  }
  return has_nan ? __builtin_nanf("") : out;
}

float ExpShiftSumAVX2(const float* x, float* y, int64_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 e = Exp(_mm256_sub_ps(_mm256_loadu_ps(x + i), s));
    acc = _mm256_add_ps(acc, e);
    if (y) _mm256_storeu_ps(y + i, e);
  }
  if (i < n) {
    float buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t left = n - i;
    std::memcpy(buf, x + i, sizeof(float) * left);
    __m256 e = Exp(_mm256_sub_ps(_mm256_loadu_ps(buf), s));
    _mm256_storeu_ps(buf, e);
    for (int64_t j = left; j < 8; ++j) buf[j] = 0.0f;
    acc = _mm256_add_ps(acc, _mm256_loadu_ps(buf));
    if (y) std::memcpy(y + i, buf, sizeof(float) * left);
  }
  return HSum(acc);
}

}  // namespace softmax
}  // namespace topi
}  // namespace tvmlite
