/*!
 * \file pool.cc
 * \brief AVX-512 rows of topi.nn.{max,avg}_pool2d on blocked data: a vector is 16 channels of one pixel, each
 * output pixel reduces its clipped window in one register. See tvmlite/topi/nn/pool.h.
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/pool.h>

namespace tvmlite {
namespace topi {

namespace {

constexpr int64_t kLanes = 16;

template <bool kMax>
void Row(const PoolRowArgs& a) {
  const int64_t row_stride = a.W * a.c;
  for (int64_t g = 0; g < a.c; g += kLanes) {
    for (int64_t ow = 0; ow < a.OW; ++ow) {
      __m512 acc = kMax ? _mm512_set1_ps(-__builtin_inff()) : _mm512_setzero_ps();
      const int64_t base = (a.ih0 * a.W + ow * a.sw - a.pl) * a.c + g;  // may be negative: the taps are not
      const int64_t lo = a.col_lo[ow], hi = a.col_hi[ow];
      for (int64_t kh = a.kh_lo; kh < a.kh_hi; ++kh) {
        const int64_t row = base + kh * a.dh * row_stride;
        for (int64_t kw = lo; kw < hi; ++kw) {
          const __m512 v = _mm512_loadu_ps(a.plane + row + kw * a.dw * a.c);
          // maskz_max: plain _mm512_max_ps trips a false GCC 12 -Wmaybe-uninitialized.
          acc = kMax ? _mm512_maskz_max_ps(0xFFFF, v, acc) : _mm512_add_ps(acc, v);
        }
      }
      if (!kMax) acc = _mm512_mul_ps(acc, _mm512_set1_ps(a.scale[ow]));
      _mm512_storeu_ps(a.out + ow * a.c + g, acc);
    }
  }
}

}  // namespace

void PoolRowAVX512(const PoolRowArgs& a) {
  if (a.scale == nullptr) {
    Row<true>(a);
  } else {
    Row<false>(a);
  }
}

}  // namespace topi
}  // namespace tvmlite
