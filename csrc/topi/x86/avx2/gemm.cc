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

/*!
 * \brief The 8 x 8 transpose's last step (gemm_pack.inc TransposeBlock): u's 4 x 4 blocks transposed within each
 * 128-bit lane, out[i] = column i, the lanes exchanged.
 */
__attribute__((always_inline)) inline void TransposeAcrossLanes(const __m256 (&u)[8], __m256 (&out)[8]) {
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
