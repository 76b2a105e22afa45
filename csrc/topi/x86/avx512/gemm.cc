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

/*!
 * \brief The 16 x 16 transpose's last step (gemm_pack.inc TransposeBlock): u's 4 x 4 blocks transposed within
 * each 128-bit lane, out[i] = column i. Column 4 l + c gathers lane l of u[c], u[4 + c], u[8 + c], u[12 + c]: two
 * 128-bit lane shuffles.
 */
__attribute__((always_inline)) inline void TransposeAcrossLanes(const __m512 (&u)[16], __m512 (&out)[16]) {
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

constexpr bool kPrefetchNextRows = true;

}  // namespace

#define TVMLITE_GEMM_DOT_ENTRY DotRowsAVX512
#include "../gemm_dot.inc"

#define TVMLITE_GEMM_TILE_ENTRY GemmTileAVX512
#include "../gemm_tile.inc"
#define TVMLITE_GEMM_PACK_ENTRY PackBTransposedAVX512
#include "../gemm_pack.inc"

}  // namespace gemm
}  // namespace topi
}  // namespace tvmlite
