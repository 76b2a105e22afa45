/*!
 * \file softmax.cc
 * \brief AVX2 + FMA row primitives of softmax (tvmlite/topi/nn/softmax.h): 8 lanes at a time (exp and the
 * horizontal max / sum in ../softmax_vec.inc), the tail through a zero-padded stack copy.
 */
#include <immintrin.h>

#include <tvmlite/topi/nn/softmax.h>

#include <cstring>

namespace tvmlite {
namespace topi {
namespace softmax {
namespace {

#include "vec.inc"

#include "../softmax_vec.inc"

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
  float out = HMax8(m);
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
  return HSum8(acc);
}

void DivideRowAVX2(float* y, int64_t n, float s) {
  const __m256 d = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_div_ps(_mm256_loadu_ps(y + i), d));
  for (; i < n; ++i) y[i] /= s;
}

}  // namespace softmax
}  // namespace topi
}  // namespace tvmlite
