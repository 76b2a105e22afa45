/*!
 * \file depthwise_conv2d.cc
 * \brief AVX2 rows of topi.nn.depthwise_conv2d_nchwc: a vector holds 8 channels of one pixel; an interior tile
 * keeps 8 output columns in registers and runs the KH * KW taps over them (one weight load per 8 FMAs). Border
 * columns check every tap. See tvmlite/topi/nn/depthwise.h.
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/depthwise.h>

namespace tvmlite {
namespace topi {

namespace {

constexpr int64_t kLanes = 8;
constexpr int kTile = 8;

/*! \brief The accumulator's start: the bias of lanes [g, g + kLanes), or zero. */
__m256 Start(const DepthwiseRow& r, int64_t g) {
  return r.bias ? _mm256_loadu_ps(r.bias + g) : _mm256_setzero_ps();
}

/*! \brief The fused clamp, NaN kept (max/min return their second operand when it is NaN). */
__m256 Clamp(const DepthwiseRow& r, __m256 v) {
  return _mm256_min_ps(_mm256_set1_ps(r.hi), _mm256_max_ps(_mm256_set1_ps(r.lo), v));
}

/*! \brief Column ow, lanes [g, g + 8): every tap checked against the input row's bounds. */
void EdgeColumn(const DepthwiseRow& r, int64_t g, int64_t ow, int64_t kh_lo, int64_t kh_hi) {
  __m256 acc = r.accumulate ? _mm256_loadu_ps(r.out + ow * r.c + g) : Start(r, g);
  const int64_t iw0 = ow * r.stride_w - r.pad_left;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const float* in_row = r.in + (r.ih0 + kh * r.dil_h) * r.W * r.c + g;
    const float* w_row = r.weight + kh * r.KW * r.c + g;
    for (int64_t kw = 0; kw < r.KW; ++kw) {
      const int64_t iw = iw0 + kw * r.dil_w;
      if (iw < 0 || iw >= r.W) continue;
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(in_row + iw * r.c), _mm256_loadu_ps(w_row + kw * r.c), acc);
    }
  }
  _mm256_storeu_ps(r.out + ow * r.c + g, Clamp(r, acc));
}

/*! \brief T interior columns from ow, lanes [g, g + 8), accumulated in registers. */
template <int T>
void InteriorTile(const DepthwiseRow& r, int64_t g, int64_t ow, int64_t kh_lo, int64_t kh_hi) {
  __m256 acc[T];
  if (r.accumulate) {  // a later depth tap of a 3-D conv: the sum so far
    for (int t = 0; t < T; ++t) acc[t] = _mm256_loadu_ps(r.out + (ow + t) * r.c + g);
  } else {
    const __m256 start = Start(r, g);
    for (int t = 0; t < T; ++t) acc[t] = start;
  }
  const int64_t step = r.stride_w * r.c;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const float* in_px = r.in + ((r.ih0 + kh * r.dil_h) * r.W + ow * r.stride_w - r.pad_left) * r.c + g;
    const float* w_row = r.weight + kh * r.KW * r.c + g;
    for (int64_t kw = 0; kw < r.KW; ++kw) {
      const __m256 w = _mm256_loadu_ps(w_row + kw * r.c);
      const float* p = in_px + kw * r.dil_w * r.c;
      for (int t = 0; t < T; ++t) acc[t] = _mm256_fmadd_ps(_mm256_loadu_ps(p + t * step), w, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) _mm256_storeu_ps(r.out + (ow + t) * r.c + g, Clamp(r, acc[t]));
}

}  // namespace

void DepthwiseRowAVX2(const DepthwiseRow& r) {
  // Taps kh in [kh_lo, kh_hi) read rows inside the input.
  int64_t kh_lo = 0, kh_hi = r.KH;
  if (r.ih0 < 0) kh_lo = (-r.ih0 + r.dil_h - 1) / r.dil_h;
  const int64_t last = r.H - 1 - r.ih0;
  if (last < 0) {
    kh_hi = 0;
  } else if (last / r.dil_h + 1 < kh_hi) {
    kh_hi = last / r.dil_h + 1;
  }
  for (int64_t g = 0; g < r.c; g += kLanes) {
    int64_t ow = 0;
    for (; ow < r.ow_lo && ow < r.OW; ++ow) EdgeColumn(r, g, ow, kh_lo, kh_hi);
    for (; ow + kTile <= r.ow_hi; ow += kTile) InteriorTile<kTile>(r, g, ow, kh_lo, kh_hi);
    if (ow + 4 <= r.ow_hi) {
      InteriorTile<4>(r, g, ow, kh_lo, kh_hi);
      ow += 4;
    }
    for (; ow < r.ow_hi; ++ow) InteriorTile<1>(r, g, ow, kh_lo, kh_hi);
    for (; ow < r.OW; ++ow) EdgeColumn(r, g, ow, kh_lo, kh_hi);
  }
}

}  // namespace topi
}  // namespace tvmlite
