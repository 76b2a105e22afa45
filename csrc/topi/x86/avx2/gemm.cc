/*!
 * \file gemm.cc
 * \brief AVX2 + FMA micro-kernels of the GEMM family (tvmlite/topi/nn/gemm.h): the register tile (../gemm_tile.inc)
 * of up to 6 rows x 2 ymm (16 columns) over packed panels (12 accumulators of the 16 ymm), the transposing pack of B
 * given as rows, and the dot-product rows of nn.dense's matrix-vector path.
 */
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

// The tile: up to 6 rows x 2 ymm, 12 accumulators of the 16 registers, the 2 B vectors and the broadcast.
constexpr int kMaxRows = 6, kMaxVecs = 2;
constexpr bool TileFits(int /*rows*/, int /*vecs*/) { return true; }

float HSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/*! \brief y[0:4] for one x row against the w rows w0..w3 (each k long), two accumulators per w row. */
void Dot1x4(const float* x, const float* w, int64_t k, float* y) {
  __m256 s[4][2];
  for (int j = 0; j < 4; ++j) s[j][0] = s[j][1] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    __m256 a0 = _mm256_loadu_ps(x + i), a1 = _mm256_loadu_ps(x + i + 8);
    for (int j = 0; j < 4; ++j) {
      s[j][0] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(w + j * k + i), s[j][0]);
      s[j][1] = _mm256_fmadd_ps(a1, _mm256_loadu_ps(w + j * k + i + 8), s[j][1]);
    }
  }
  for (; i + 8 <= k; i += 8) {
    __m256 a = _mm256_loadu_ps(x + i);
    for (int j = 0; j < 4; ++j) s[j][0] = _mm256_fmadd_ps(a, _mm256_loadu_ps(w + j * k + i), s[j][0]);
  }
  for (int j = 0; j < 4; ++j) {
    float tail = 0;
    for (int64_t q = i; q < k; ++q) tail += x[q] * w[j * k + q];
    y[j] = HSum(_mm256_add_ps(s[j][0], s[j][1])) + tail;
  }
}

float Dot(const float* x, const float* w, int64_t k) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(w + i + 8), s1);
  }
  float tail = 0;
  for (; i < k; ++i) tail += x[i] * w[i];
  return HSum(_mm256_add_ps(s0, s1)) + tail;
}

/*! \brief out[i] = column i of the 8 x 8 block in[0..7] (rows), in registers: 24 shuffles (gemm_pack.inc). */
__attribute__((always_inline)) inline void TransposeBlock(const __m256 (&in)[8], __m256 (&out)[8]) {
  __m256 t[8], u[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i += 2) {  // per 128-bit lane l: t[i] = rows i, i + 1 at 4 l, 4 l + 1; t[i + 1] at + 2, + 3
    t[i] = _mm256_unpacklo_ps(in[i], in[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(in[i], in[i + 1]);
  }
#pragma GCC unroll 2
  for (int g = 0; g < 8; g += 4) {  // u[4 g + c]: in lane l, column 4 l + c of rows 4 g .. 4 g + 3
    u[g] = _mm256_shuffle_ps(t[g], t[g + 2], 0x44);
    u[g + 1] = _mm256_shuffle_ps(t[g], t[g + 2], 0xEE);
    u[g + 2] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0x44);
    u[g + 3] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    out[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
    out[4 + c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
  }
}

/*! \brief The first n lanes (n in [1, 8]), all ones in them: the partial blocks of gemm_pack.inc. */
typedef __m256i LaneMask;
LaneMask FirstLanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
V LoadFirst(const float* p, LaneMask mask) { return _mm256_maskload_ps(p, mask); }
constexpr bool kPrefetchNextPanel = false;

}  // namespace

void DotRowsAVX2(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, int64_t ldy) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    for (int64_t i = 0; i < m; ++i) Dot1x4(x + i * k, w + j * k, k, y + i * ldy + j);
  }
  for (; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) y[i * ldy + j] = Dot(x + i * k, w + j * k, k);
  }
}

#define TVMLITE_GEMM_TILE_ENTRY GemmTileAVX2
#include "../gemm_tile.inc"
#define TVMLITE_GEMM_PACK_ENTRY PackBTransposedAVX2
#include "../gemm_pack.inc"

}  // namespace gemm
}  // namespace topi
}  // namespace tvmlite
