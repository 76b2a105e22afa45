/*!
 * \file softmax.cc
 * \brief AVX-512 row primitives of softmax (tvmlite/topi/nn/softmax.h): the row max and exp(x - shift) with its sum,
 * 16 lanes at a time (exp and the horizontal max / sum in ../softmax_vec.inc), the tail under a mask.
 */
#include <immintrin.h>

#include <tvmlite/topi/nn/softmax.h>

namespace tvmlite {
namespace topi {
namespace softmax {
namespace {

#include "vec.inc"

#include "../softmax_vec.inc"

float HSum(__m512 v) { return HSum8(_mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1))); }

float HMax(__m512 v) { return HMax8(_mm256_max_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1))); }

__mmask16 TailMask(int64_t left) { return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1); }

}  // namespace

float RowMaxAVX512(const float* x, int64_t n) {
  __m512 m = _mm512_set1_ps(-__builtin_inff());
  __mmask16 nan = 0;
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = TailMask(n - i);
    __m512 v = _mm512_mask_loadu_ps(m, k, x + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    m = _mm512_max_ps(m, v);
  }
  return nan ? __builtin_nanf("") : HMax(m);
}

float ExpShiftSumAVX512(const float* x, float* y, int64_t n, float shift) {
  const __m512 s = _mm512_set1_ps(shift);
  __m512 acc = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = TailMask(n - i);
    __m512 e = Exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), s));
    e = _mm512_maskz_mov_ps(k, e);
    acc = _mm512_add_ps(acc, e);
    if (y) _mm512_mask_storeu_ps(y + i, k, e);
  }
  return HSum(acc);
}

void DivideRowAVX512(float* y, int64_t n, float s) {
  const __m512 d = _mm512_set1_ps(s);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = TailMask(n - i);
    _mm512_mask_storeu_ps(y + i, k, _mm512_div_ps(_mm512_maskz_loadu_ps(k, y + i), d));
  }
}

}  // namespace softmax
}  // namespace topi
}  // namespace tvmlite
