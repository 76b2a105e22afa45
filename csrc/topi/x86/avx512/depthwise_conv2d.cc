/*!
 * \file depthwise_conv2d.cc
 * \brief AVX-512 rows of topi.nn.depthwise_conv2d_nchwc: a vector holds 16 channels of one pixel; an interior tile
 * keeps up to 16 output columns in registers and runs the KH * KW taps over them (one weight load per 16 FMAs). Border
 * columns check every tap. See tvmlite/topi/nn/depthwise.h.
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/depthwise.h>

#include <algorithm>
#include <array>
#include <utility>

namespace tvmlite {
namespace topi {

namespace {

constexpr int64_t kLanes = 16;
constexpr int kTile = 16;  // the widest tile: 16 accumulators + the tap

/*! \brief The accumulator's start: the bias of lanes [g, g + kLanes), or zero. */
__m512 Start(const DepthwiseRow& r, int64_t g) {
  return r.bias ? _mm512_loadu_ps(r.bias + g) : _mm512_setzero_ps();
}

/*!
 * \brief The fused clamp, NaN kept (max/min return their second operand when it is NaN). The maskz forms: plain
 * _mm512_max_ps trips a false GCC 12 -Wuninitialized (bug 105593).
 */
__m512 Clamp(const DepthwiseRow& r, __m512 v) {
  return _mm512_maskz_min_ps(0xFFFF, _mm512_set1_ps(r.hi), _mm512_maskz_max_ps(0xFFFF, _mm512_set1_ps(r.lo), v));
}

/*! \brief Column ow, lanes [g, g + 16): every tap checked against the input row's bounds. */
void EdgeColumn(const DepthwiseRow& r, int64_t g, int64_t ow, int64_t kh_lo, int64_t kh_hi) {
  __m512 acc = Start(r, g);
  const int64_t iw0 = ow * r.stride_w - r.pad_left;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const float* in_row = r.in + (r.ih0 + kh * r.dil_h) * r.W * r.c + g;
    const float* w_row = r.weight + kh * r.KW * r.c + g;
    for (int64_t kw = 0; kw < r.KW; ++kw) {
      const int64_t iw = iw0 + kw * r.dil_w;
      if (iw < 0 || iw >= r.W) continue;
      acc = _mm512_fmadd_ps(_mm512_loadu_ps(in_row + iw * r.c), _mm512_loadu_ps(w_row + kw * r.c), acc);
    }
  }
  _mm512_storeu_ps(r.out + ow * r.c + g, Clamp(r, acc));
}

/*!
 * \brief T interior columns from ow, lanes [g, g + 16), accumulated in registers. STEP: floats between the input
 * pixels of neighbouring columns (stride_w * c) when known at compile time (immediate offsets: one address
 * register for the tile's T loads), 0 to read it from r.
 */
template <int T, int STEP>
void InteriorTile(const DepthwiseRow& r, int64_t g, int64_t ow, int64_t kh_lo, int64_t kh_hi) {
  __m512 acc[T];
  const __m512 start = Start(r, g);
  for (int t = 0; t < T; ++t) acc[t] = start;
  const int64_t step = STEP ? STEP : r.stride_w * r.c;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const float* in_px = r.in + ((r.ih0 + kh * r.dil_h) * r.W + ow * r.stride_w - r.pad_left) * r.c + g;
    const float* w_row = r.weight + kh * r.KW * r.c + g;
    for (int64_t kw = 0; kw < r.KW; ++kw) {
      const __m512 w = _mm512_loadu_ps(w_row + kw * r.c);
      const float* p = in_px + kw * r.dil_w * r.c;
      for (int t = 0; t < T; ++t) acc[t] = _mm512_fmadd_ps(_mm512_loadu_ps(p + t * step), w, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(r.out + (ow + t) * r.c + g, Clamp(r, acc[t]));
}

using TileFn = void (*)(const DepthwiseRow&, int64_t, int64_t, int64_t, int64_t);

template <int STEP, size_t... I>
constexpr std::array<TileFn, sizeof...(I)> MakeTiles(std::index_sequence<I...>) {
  return {{&InteriorTile<static_cast<int>(I) + 1, STEP>...}};
}

/*! \brief InteriorTile<T, STEP> at [T - 1], T = 1..kTile: stride 1 and 2 over 16 channels, and any step. */
constexpr std::array<TileFn, kTile> kTilesStep16 = MakeTiles<16>(std::make_index_sequence<kTile>{});
constexpr std::array<TileFn, kTile> kTilesStep32 = MakeTiles<32>(std::make_index_sequence<kTile>{});
constexpr std::array<TileFn, kTile> kTilesAnyStep = MakeTiles<0>(std::make_index_sequence<kTile>{});

}  // namespace

void DepthwiseRowAVX512(const DepthwiseRow& r) {
  // Taps kh in [kh_lo, kh_hi) read rows inside the input.
  int64_t kh_lo = 0, kh_hi = r.KH;
  if (r.ih0 < 0) kh_lo = (-r.ih0 + r.dil_h - 1) / r.dil_h;
  const int64_t last = r.H - 1 - r.ih0;
  if (last < 0) {
    kh_hi = 0;
  } else if (last / r.dil_h + 1 < kh_hi) {
    kh_hi = last / r.dil_h + 1;
  }
  // The next row's new input lines, a share per interior tile, so the fetches overlap the FMAs.
  const char* pf = reinterpret_cast<const char*>(r.prefetch);
  const int64_t pf_bytes = r.prefetch_len * static_cast<int64_t>(sizeof(float));
  // The interior in balanced tiles of at most kTile columns (54 -> 14, 14, 13, 13): every tile keeps enough
  // independent accumulators to hide the FMA latency.
  const int64_t interior = std::max<int64_t>(0, r.ow_hi - std::min(r.ow_lo, r.OW));
  const int64_t tiles = (interior + kTile - 1) / kTile;
  const int64_t pf_step = tiles ? (pf_bytes / (tiles * ((r.c + kLanes - 1) / kLanes)) + 63) / 64 * 64 : 0;
  int64_t pf_done = 0;
  const int64_t step = r.stride_w * r.c;
  const std::array<TileFn, kTile>& kTiles = step == 16 ? kTilesStep16 : step == 32 ? kTilesStep32 : kTilesAnyStep;
  for (int64_t g = 0; g < r.c; g += kLanes) {
    int64_t ow = 0;
    for (; ow < r.ow_lo && ow < r.OW; ++ow) EdgeColumn(r, g, ow, kh_lo, kh_hi);
    for (int64_t i = 0; i < tiles; ++i) {
      for (int64_t end = std::min(pf_bytes, pf_done + pf_step); pf && pf_done < end; pf_done += 64) {
        _mm_prefetch(pf + pf_done, _MM_HINT_T0);
      }
      const int64_t width = interior / tiles + (i < interior % tiles ? 1 : 0);
      kTiles[width - 1](r, g, ow, kh_lo, kh_hi);
      ow += width;
    }
    for (; ow < r.OW; ++ow) EdgeColumn(r, g, ow, kh_lo, kh_hi);
  }
  for (; pf && pf_done < pf_bytes; pf_done += 64) _mm_prefetch(pf + pf_done, _MM_HINT_T0);
}

}  // namespace topi
}  // namespace tvmlite
