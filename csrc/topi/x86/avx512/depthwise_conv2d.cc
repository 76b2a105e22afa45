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
constexpr int kNoEdge = 0, kLeftEdge = 1, kRightEdge = 2, kAnyEdge = 4;  // an InteriorTile's edge columns

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

/*!
 * \brief Column ow, lanes [g, g + 16), a border column: only the taps inside the input row, a range of kw found
 * first; kernel rows alternate between two accumulators so that a border column (two in seven at 7x7) is not one
 * long chain of dependent FMAs.
 */
void EdgeColumn(const DepthwiseRow& r, int64_t g, int64_t ow, int64_t kh_lo, int64_t kh_hi) {
  int64_t kw_lo, kw_hi;
  const int64_t iw0 = ow * r.stride_w - r.pad_left;
  if (r.dil_w == 1) {  // no divisions on the common path: a 7x7 map has two border columns in seven
    kw_lo = std::max<int64_t>(0, -iw0);
    kw_hi = std::min(r.KW, r.W - iw0);
  } else {
    kw_lo = iw0 >= 0 ? 0 : (-iw0 + r.dil_w - 1) / r.dil_w;
    kw_hi = r.W - 1 - iw0 < 0 ? 0 : std::min(r.KW, (r.W - 1 - iw0) / r.dil_w + 1);
  }
  // Two named accumulators, rows alternating (an indexed pair would live on the stack: a store-to-load chain).
  __m512 even = r.accumulate ? _mm512_loadu_ps(r.out + ow * r.c + g) : Start(r, g), odd = _mm512_setzero_ps();
  auto row_sum = [&](int64_t kh, __m512 a) {
    const float* in_row = r.in + (r.ih0 + kh * r.dil_h) * r.W * r.c + g;
    const float* w_row = r.weight + kh * r.KW * r.c + g;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      a = _mm512_fmadd_ps(_mm512_loadu_ps(in_row + (iw0 + kw * r.dil_w) * r.c), _mm512_loadu_ps(w_row + kw * r.c), a);
    }
    return a;
  };
  int64_t kh = kh_lo;
  for (; kh + 1 < kh_hi; kh += 2) {
    even = row_sum(kh, even);
    odd = row_sum(kh + 1, odd);
  }
  if (kh < kh_hi) even = row_sum(kh, even);
  _mm512_storeu_ps(r.out + ow * r.c + g, Clamp(r, _mm512_add_ps(even, odd)));
}

/*!
 * \brief T interior columns from ow, lanes [g, g + 16), accumulated in registers. S, C, K: stride_w, the channel
 * block and KW (dilation_w 1) when known at compile time (the common 3x3 stride-1/2 layers over 16 channels: every
 * load at an immediate offset from two registers, the taps of a row unrolled), 0 to read them from r. kEdge: which
 * input columns the tile reads lie outside the row (zero, never loaded): none, the first and/or the last (known at
 * compile time: with pad 1, a row's first and last tiles), or any (found at run time).
 */
template <int T, int S, int C, int K, int kEdge = kNoEdge>
void InteriorTile(const DepthwiseRow& r, int64_t g, int64_t ow, int64_t kh_lo, int64_t kh_hi) {
  __m512 acc[T];
  const int64_t c = C ? C : r.c;
  // Every loop over the accumulators fully unrolled: otherwise GCC keeps acc on the stack around the kh loop (a
  // store and a load per accumulator and kernel row: the stores alone took as long as the FMAs).
  if (r.accumulate) {  // a later depth tap of a 3-D conv: the sum so far
#pragma GCC unroll 16
    for (int t = 0; t < T; ++t) acc[t] = _mm512_loadu_ps(r.out + (ow + t) * c + g);
  } else {
    const __m512 start = Start(r, g);
#pragma GCC unroll 16
    for (int t = 0; t < T; ++t) acc[t] = start;
  }
  const int64_t step = S ? S * C : r.stride_w * r.c;
  const int64_t kw_step = K ? C : r.dil_w * r.c;
  const int64_t kw_count = K ? K : r.KW;
  // An edge tile reads input columns [first, first + (T - 1) * S + K), some outside the row: those are zero, never
  // loaded (j in [j_lo, j_hi) are inside). Its pointers are formed only for the columns inside.
  const int64_t first = ow * (S ? S : r.stride_w) - r.pad_left;
  const int64_t j_lo = first < 0 ? -first : 0, j_hi = r.W - first;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const float* in_row = r.in + (r.ih0 + kh * r.dil_h) * r.W * c + g;
    const float* in_px = in_row + first * c;
    const float* w_row = r.weight + kh * kw_count * c + g;
    if constexpr (K != 0) {
      // Each input column loaded once, into a register, and applied to every output column it reaches (tap k of
      // column t reads input column t * S + k): (T - 1) * S + K loads for T * K FMAs. Left alone, GCC folds a load
      // into each FMA, one load per FMA: 10-25% slower.
      __m512 w[K];
#pragma GCC unroll 8
      for (int k = 0; k < K; ++k) w[k] = _mm512_loadu_ps(w_row + k * C);
#pragma GCC unroll 64
      for (int j = 0; j < (T - 1) * S + K; ++j) {
        __m512 x;
        if constexpr (kEdge == kAnyEdge) {
          x = j >= j_lo && j < j_hi ? _mm512_loadu_ps(in_row + (first + j) * C) : _mm512_setzero_ps();
        } else if (((kEdge & kLeftEdge) && j == 0) || ((kEdge & kRightEdge) && j == (T - 1) * S + K - 1)) {
          x = _mm512_setzero_ps();  // j is a constant here (the loop is unrolled): no test at run time
        } else {
          x = _mm512_loadu_ps(in_px + j * C);
        }
        asm("" : "+v"(x));
#pragma GCC unroll 8
        for (int k = 0; k < K; ++k) {
          const int d = j - k;  // S times the output column tap k of input column j serves
          if (d >= 0 && d % S == 0 && d / S < T) acc[d / S] = _mm512_fmadd_ps(x, w[k], acc[d / S]);
        }
      }
      continue;
    }
#pragma GCC unroll 4
    for (int64_t kw = 0; kw < kw_count; ++kw) {
      const __m512 w = _mm512_loadu_ps(w_row + kw * c);
      const float* p = in_px + kw * kw_step;
#pragma GCC unroll 16
      for (int t = 0; t < T; ++t) acc[t] = _mm512_fmadd_ps(_mm512_loadu_ps(p + t * step), w, acc[t]);
    }
  }
  // The bounds read once: r.out could alias r as far as the compiler knows, so Clamp(r, .) would reload them.
  const __m512 lo = _mm512_set1_ps(r.lo), hi = _mm512_set1_ps(r.hi);
  float* out = r.out + ow * c + g;
#pragma GCC unroll 16
  for (int t = 0; t < T; ++t) {
    _mm512_storeu_ps(out + t * c, _mm512_maskz_min_ps(0xFFFF, hi, _mm512_maskz_max_ps(0xFFFF, lo, acc[t])));
  }
}

using TileFn = void (*)(const DepthwiseRow&, int64_t, int64_t, int64_t, int64_t);

template <int S, int C, int K, int kEdge, size_t... I>
constexpr std::array<TileFn, sizeof...(I)> MakeTiles(std::index_sequence<I...>) {
  return {{&InteriorTile<static_cast<int>(I) + 1, S, C, K, kEdge>...}};
}

using Tiles = std::array<TileFn, kTile>;

/*! \brief InteriorTile<T, ...> at [T - 1], T = 1..kTile. */
template <int S, int C, int K, int kEdge>
constexpr Tiles kTiles = MakeTiles<S, C, K, kEdge>(std::make_index_sequence<kTile>{});

/*! \brief The tiles of 3-wide taps over 16 channels, [stride_w - 1][edge kind]. */
constexpr const Tiles* kTaps3[2][5] = {
    {&kTiles<1, 16, 3, 0>, &kTiles<1, 16, 3, 1>, &kTiles<1, 16, 3, 2>, &kTiles<1, 16, 3, 3>, &kTiles<1, 16, 3, 4>},
    {&kTiles<2, 16, 3, 0>, &kTiles<2, 16, 3, 1>, &kTiles<2, 16, 3, 2>, &kTiles<2, 16, 3, 3>, &kTiles<2, 16, 3, 4>}};

/*! \brief The edge kind of a tile of 3-wide taps, T columns from ow: which input columns it reads lie outside. */
int EdgeKind(const DepthwiseRow& r, int64_t ow, int64_t T) {
  const int64_t first = ow * r.stride_w - r.pad_left, last = first + (T - 1) * r.stride_w + 2;
  if (first < -1 || last > r.W) return kAnyEdge;
  return (first == -1 ? kLeftEdge : kNoEdge) | (last == r.W ? kRightEdge : kNoEdge);
}

}  // namespace

void DepthwiseRowAVX512(const DepthwiseRow& r) {
  // Taps kh in [kh_lo, kh_hi) read rows inside the input.
  int64_t kh_lo = 0, kh_hi = r.KH;
  const int64_t last = r.H - 1 - r.ih0;
  if (r.dil_h == 1) {  // no divisions on the common path: a 7-column row is ~60 FMAs
    kh_lo = std::max<int64_t>(0, -r.ih0);
    kh_hi = std::max<int64_t>(0, std::min(r.KH, last + 1));
  } else {
    if (r.ih0 < 0) kh_lo = (-r.ih0 + r.dil_h - 1) / r.dil_h;
    if (last < 0) {
      kh_hi = 0;
    } else if (last / r.dil_h + 1 < kh_hi) {
      kh_hi = last / r.dil_h + 1;
    }
  }
  // The next row's new input lines, a share per interior tile, so the fetches overlap the FMAs.
  const char* pf = reinterpret_cast<const char*>(r.prefetch);
  const int64_t pf_bytes = r.prefetch_len * static_cast<int64_t>(sizeof(float));
  // 3-wide taps over 16 channels at stride 1 or 2: the whole row in balanced tiles of at most kTile columns
  // (56 -> 4 x 14), those reaching past the row edge tiles (their outside columns zero). Otherwise the interior in
  // balanced tiles (54 -> 14, 14, 13, 13) and the border columns one by one. Every tile keeps enough independent
  // accumulators to hide the FMA latency.
  const bool taps3 = r.c == 16 && r.KW == 3 && r.dil_w == 1 && (r.stride_w == 1 || r.stride_w == 2);
  const int64_t tiled_lo = taps3 ? 0 : std::min(r.ow_lo, r.OW);
  const int64_t tiled = taps3 ? r.OW : std::max<int64_t>(0, r.ow_hi - tiled_lo);
  const int64_t tiles = (tiled + kTile - 1) / kTile;
  const int64_t pf_step = pf && tiles ? (pf_bytes / (tiles * ((r.c + kLanes - 1) / kLanes)) + 63) / 64 * 64 : 0;
  const int64_t narrow = tiles ? tiled / tiles : 0, wide_tiles = tiles ? tiled % tiles : 0;  // balanced widths
  int64_t pf_done = 0;
  const Tiles* const* taps3_tiles = kTaps3[r.stride_w == 2];
  for (int64_t g = 0; g < r.c; g += kLanes) {
    int64_t ow = 0;
    for (; ow < tiled_lo; ++ow) EdgeColumn(r, g, ow, kh_lo, kh_hi);
    for (int64_t i = 0; i < tiles; ++i) {
      for (int64_t end = std::min(pf_bytes, pf_done + pf_step); pf && pf_done < end; pf_done += 64) {
        _mm_prefetch(pf + pf_done, _MM_HINT_T0);
      }
      const int64_t width = narrow + (i < wide_tiles ? 1 : 0);
      if (taps3) {
        (*taps3_tiles[EdgeKind(r, ow, width)])[width - 1](r, g, ow, kh_lo, kh_hi);
      } else {
        kTiles<0, 0, 0, kNoEdge>[width - 1](r, g, ow, kh_lo, kh_hi);
      }
      ow += width;
    }
    for (; ow < r.OW; ++ow) EdgeColumn(r, g, ow, kh_lo, kh_hi);
  }
  for (; pf && pf_done < pf_bytes; pf_done += 64) _mm_prefetch(pf + pf_done, _MM_HINT_T0);
}

}  // namespace topi
}  // namespace tvmlite
