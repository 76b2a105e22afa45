/*!
 * \file gemm.cc
 * \brief AVX-512 micro-kernels of the GEMM family (tvmlite/topi/nn/gemm.h): the register tile (../gemm_tile.inc) of
 * up to 8 rows x 3 zmm (48 columns) or 4 rows x 4 zmm (64) over packed panels, the transposing pack of B given as
 * rows, and the dot-product rows of nn.dense's matrix-vector path.
 *
 * GemmTileAVX512 picks the tile's instance. Which of 8 x 3 and 4 x 4 is faster depends on the caller (gemm.h
 * TileShape); for the matmul family 4 x 3, 5 x 4 and 6 x 4 were no better than 4 x 4, and 3 x 4 and 2 x 4 15-20%
 * slower (too few accumulators to hide the FMA latency).
 */
// GCC 12 reports its own AVX-512 cast intrinsics (_mm512_undefined_ps inside) as reading uninitialized values.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <tvmlite/topi/nn/gemm.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "../fused_tail_vec.h"

namespace tvmlite {
namespace topi {
namespace gemm {
namespace {

#include "vec.inc"
#include "../vec_math.inc"

float HSum(__m512 v) {
  __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// The tile: up to 8 rows x 3 zmm or 4 x 4. 4 vecs only up to 4 rows (32 accumulators would not fit with the B
// vectors); the driver never asks for more.
constexpr int kMaxRows = 8, kMaxVecs = 4;
constexpr bool TileFits(int rows, int vecs) { return vecs < 4 || rows <= 4; }

inline float Dot(const float* x, const float* w, int64_t k) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= k; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(w + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(w + i + 16), s1);
  }
  for (; i < k; i += 16) {
    __mmask16 m = k - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (k - i)) - 1);
    s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, w + i), s0);
  }
  return HSum(_mm512_add_ps(s0, s1));
}

/*! \brief y[0, 0:4] and y[1, 0:4] (the rows x0, x1 against w0..w3): each w row read once for two x rows. */
void Dot2x4(const float* x0, const float* x1, const float* w, int64_t k, float* y0, float* y1) {
  __m512 s[2][4];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) s[i][j] = _mm512_setzero_ps();
  for (int64_t i = 0; i < k; i += 16) {
    __mmask16 m = k - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (k - i)) - 1);
    __m512 a0 = _mm512_maskz_loadu_ps(m, x0 + i), a1 = _mm512_maskz_loadu_ps(m, x1 + i);
    for (int j = 0; j < 4; ++j) {
      __m512 b = _mm512_maskz_loadu_ps(m, w + j * k + i);
      s[0][j] = _mm512_fmadd_ps(a0, b, s[0][j]);
      s[1][j] = _mm512_fmadd_ps(a1, b, s[1][j]);
    }
  }
  for (int j = 0; j < 4; ++j) {
    y0[j] = HSum(s[0][j]);
    y1[j] = HSum(s[1][j]);
  }
}

/*!
 * \brief y[0:4] for one x row against w0..w3, two accumulators per w row (the FMA latency). next: the rows of the
 * next call (w4..w7), prefetched meanwhile, or null: a batch-1 dense streams its weights from memory (a classifier's
 * 5 MB do not stay in cache between runs), and four streams alone leave the memory latency exposed.
 */
void Dot1x4(const float* x, const float* w, int64_t k, float* y, const float* next) {
  __m512 s[4][2];  // every loop over it unrolled: else GCC keeps it on the stack (docs/compiler.md)
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) s[j][0] = s[j][1] = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= k; i += 32) {
    if (next != nullptr) {
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        _mm_prefetch(reinterpret_cast<const char*>(next + j * k + i), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(next + j * k + i + 16), _MM_HINT_T0);
      }
    }
    __m512 a0 = _mm512_loadu_ps(x + i), a1 = _mm512_loadu_ps(x + i + 16);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      s[j][0] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(w + j * k + i), s[j][0]);
      s[j][1] = _mm512_fmadd_ps(a1, _mm512_loadu_ps(w + j * k + i + 16), s[j][1]);
    }
  }
  for (; i < k; i += 16) {
    __mmask16 m = k - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (k - i)) - 1);
    __m512 a = _mm512_maskz_loadu_ps(m, x + i);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) s[j][0] = _mm512_fmadd_ps(a, _mm512_maskz_loadu_ps(m, w + j * k + i), s[j][0]);
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) y[j] = HSum(_mm512_add_ps(s[j][0], s[j][1]));
}

/*! \brief out[i] = column i of the 16 x 16 block in[0..15] (rows), in registers: 64 shuffles (gemm_pack.inc). */
__attribute__((always_inline)) inline void TransposeBlock(const __m512 (&in)[16], __m512 (&out)[16]) {
  __m512 t[16], u[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 2) {  // per 128-bit lane l: t[i] = rows i, i + 1 at 4 l, 4 l + 1; t[i + 1] at + 2, + 3
    t[i] = _mm512_unpacklo_ps(in[i], in[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(in[i], in[i + 1]);
  }
  // 4 x 4 blocks: u[4 g + c] holds, in its 128-bit lane l, column 4 l + c of rows 4 g .. 4 g + 3
#pragma GCC unroll 4
  for (int g = 0; g < 16; g += 4) {
    const __m512d t0 = _mm512_castps_pd(t[g]), t1 = _mm512_castps_pd(t[g + 1]);
    const __m512d t2 = _mm512_castps_pd(t[g + 2]), t3 = _mm512_castps_pd(t[g + 3]);
    u[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
    u[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
    u[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
    u[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
  }
  // Column 4 l + c gathers lane l of u[c], u[4 + c], u[8 + c], u[12 + c]: two 128-bit lane shuffles.
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const __m512 a02 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88), a13 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
    const __m512 b02 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
    const __m512 b13 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    out[c] = _mm512_shuffle_f32x4(a02, b02, 0x88);       // lane 0 of each row group: column c
    out[8 + c] = _mm512_shuffle_f32x4(a02, b02, 0xDD);   // lane 2: column 8 + c
    out[4 + c] = _mm512_shuffle_f32x4(a13, b13, 0x88);   // lane 1: column 4 + c
    out[12 + c] = _mm512_shuffle_f32x4(a13, b13, 0xDD);  // lane 3: column 12 + c
  }
}

/*! \brief The first n lanes (n in [1, 16]): the partial blocks of gemm_pack.inc. */
typedef __mmask16 LaneMask;
LaneMask FirstLanes(int64_t n) { return static_cast<__mmask16>((1u << n) - 1); }
V LoadFirst(const float* p, LaneMask mask) { return _mm512_maskz_loadu_ps(mask, p); }
constexpr bool kPrefetchNextPanel = true;

}  // namespace

void DotRowsAVX512(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, int64_t ldy) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    int64_t i = 0;
    for (; i + 2 <= m; i += 2) Dot2x4(x + i * k, x + (i + 1) * k, w + j * k, k, y + i * ldy + j, y + (i + 1) * ldy + j);
    if (i < m) Dot1x4(x + i * k, w + j * k, k, y + i * ldy + j, j + 12 <= n ? w + (j + 8) * k : nullptr);
  }
  for (; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) y[i * ldy + j] = Dot(x + i * k, w + j * k, k);
  }
}

#define TVMLITE_GEMM_TILE_ENTRY GemmTileAVX512
#include "../gemm_tile.inc"
#define TVMLITE_GEMM_PACK_ENTRY PackBTransposedAVX512
#include "../gemm_pack.inc"

}  // namespace gemm
}  // namespace topi
}  // namespace tvmlite
