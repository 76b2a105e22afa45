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

constexpr bool kPrefetchNextRows = false;

}  // namespace

#define TVMLITE_GEMM_DOT_ENTRY DotRowsAVX2
#include "../gemm_dot.inc"

#define TVMLITE_GEMM_TILE_ENTRY GemmTileAVX2
#include "../gemm_tile.inc"
#define TVMLITE_GEMM_PACK_ENTRY PackBTransposedAVX2
#include "../gemm_pack.inc"

}  // namespace gemm
}  // namespace topi
}  // namespace tvmlite
