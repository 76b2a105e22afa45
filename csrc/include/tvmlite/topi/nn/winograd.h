/*!
 * \file tvmlite/topi/nn/winograd.h
 * \brief Winograd's minimal filtering for 3x3, stride-1 convolutions: F(m x m, 3 x 3) computes an m x m output tile
 * from an alpha x alpha input tile (alpha = m + 2) with alpha^2 multiplies per channel pair instead of 9 m^2 (4 x
 * fewer for m = 4), at the cost of transforms whose work grows only with C + O, not C x O.
 *
 *   U = G g G^T          (alpha x alpha per (o, c); nn.contrib_conv2d_winograd_weight_transform, folded at build)
 *   V = B^T d B          (alpha x alpha per (tile, c))
 *   M[xi] = V[xi] U[xi]  (one GEMM per tile position xi: tiles x C times C x O)
 *   Y = A^T M A          (m x m per (tile, o))
 *
 * Matrices: Lavin & Gray's, interpolation points 0, +-1, +-2 (m = 4) and 0, +-1 (m = 2); topi.nn.winograd_matrices
 * returns them (A^T, B^T, G), so the relay references use the very same values. Plain data: the ISA files include it.
 *
 * Stride 2 (polyphase): a 3x3 stride-2 conv is the sum of four stride-1 convs over the input's (row, column) parity
 * phases x[p::2, q::2], with 2x2, 2x1, 1x2 and 1x1 kernels (taps {0, 2} for an even phase, {1} for an odd one). All
 * four run in F(m x m, 2 x 2)'s transform domain (alpha = m + 1; points 0, 1, inf for m = 2 and 0, +-1, 2, inf for
 * m = 4), where a 1-tap kernel [g, 0] transforms to G's first column times g, zero at inf: transform element (i, j)
 * has the ee phase, eo when j < alpha - 1, oe when i < alpha - 1, oo when both, so the GEMM of element (i, j) runs
 * over K = C x its phases (4, 2 or 1): (2 alpha - 1)^2 multiplies per m x m output tile and channel pair against
 * the direct conv's 9 m^2 (25 against 36 for m = 2, 81 against 144 for m = 4). U's channels for element (i, j) are
 * its phases' in the order ee, eo, oe, oo (the absent phases' rows zero, at the end): U is (alpha, alpha, O, 4C).
 */
#ifndef TVMLITE_TOPI_NN_WINOGRAD_H_
#define TVMLITE_TOPI_NN_WINOGRAD_H_

#include <cstdint>

namespace tvmlite {
namespace topi {
namespace winograd {

// F(4x4, 3x3)
constexpr float kAT4[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
constexpr float kBT4[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                              {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr double kG4[6][3] = {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};
// F(2x2, 3x3)
constexpr float kAT2[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
constexpr float kBT2[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
// F(2x2, 2x2) and F(4x4, 2x2), the stride-2 phases' transforms
constexpr float kAT2S2[2][3] = {{1, 1, 0}, {0, 1, 1}};
constexpr float kBT2S2[3][3] = {{1, -1, 0}, {0, 1, 0}, {0, -1, 1}};
constexpr double kG2S2[3][2] = {{1, 0}, {1, 1}, {0, 1}};
constexpr float kAT4S2[4][5] = {{1, 1, 1, 1, 0}, {0, 1, -1, 2, 0}, {0, 1, 1, 4, 0}, {0, 1, -1, 8, 1}};
constexpr float kBT4S2[5][5] = {
    {2, -1, -2, 1, 0}, {0, -2, -1, 1, 0}, {0, 2, -3, 1, 0}, {0, -1, 0, 1, 0}, {0, 2, -1, -2, 1}};
constexpr double kG4S2[5][2] = {{1.0 / 2, 0}, {-1.0 / 2, -1.0 / 2}, {-1.0 / 6, 1.0 / 6}, {1.0 / 6, 1.0 / 3}, {0, 1}};

/*! \brief Stride 2, transform side alpha: whether phase ph (ee 0, eo 1, oe 2, oo 3: row parity ph >> 1, column
 * parity ph & 1) has transform element (i, j), and the phases element (i, j) has (its GEMM's K is that times C). */
constexpr bool PhaseHasElement(int ph, int i, int j, int alpha) {
  return ((ph >> 1) == 0 || i < alpha - 1) && ((ph & 1) == 0 || j < alpha - 1);
}
constexpr int PhasesOfElement(int i, int j, int alpha) { return (i < alpha - 1 ? 2 : 1) * (j < alpha - 1 ? 2 : 1); }
/*! \brief Stride 2: the phases of the elements before element e = alpha i + j (V's element e starts at tiles x C x
 * that); PhaseElements(alpha), of all of them (V's size in tiles x C). */
constexpr int PhasesBefore(int e, int alpha) {
  return e <= 0 ? 0 : PhasesBefore(e - 1, alpha) + PhasesOfElement((e - 1) / alpha, (e - 1) % alpha, alpha);
}
constexpr int PhaseElements(int alpha) { return PhasesBefore(alpha * alpha, alpha); }
/*! \brief The transformed tile's side: tile_size + 2 for F(m x m, 3 x 3), tile_size + 1 for stride 2's
 * F(m x m, 2 x 2). */
constexpr int64_t AlphaOf(int64_t tile_size, int64_t stride) { return stride == 2 ? tile_size + 1 : tile_size + 2; }
static_assert(PhaseElements(3) == 25 && PhaseElements(5) == 81, "(2 alpha - 1)^2 multiplies per tile and pair");

/*!
 * \brief One call's geometry: data (N, C / cb, H, W, cb), output (N, O / ob, OH, OW, ob), tiles th x tw per image
 * (P = N th tw in all, row-major), V and M scratch as [alpha^2][P][C] and [alpha^2][P][O]. Stride 2: V's element
 * (i, j) is [P][C x PhasesOfElement(i, j)], the elements one after another.
 */
struct Geometry {
  int64_t m, alpha;  // alpha m + 1: the stride-2 F(m x m, 2 x 2)
  int64_t batch, in_channels, in_block, height, width;
  int64_t out_channels, out_block, out_height, out_width;
  int64_t pad_top, pad_left;
  int64_t tiles_h, tiles_w, tiles;  // tiles = batch * tiles_h * tiles_w
};

/*!
 * The portable build, and the AVX-512 and AVX2 + FMA builds (csrc/topi/x86/): the same code, its lane loops
 * compiled with each ISA's flags; topi.nn.conv2d_winograd_nchwc calls the CPU's.
 */

/*! \brief V for the tiles of rows [row_begin, row_end) of (n, channel block) planes: item = (n * CB + cb) * th + ty. */
void InputTransform(const Geometry& g, const float* data, float* v, int64_t item_begin, int64_t item_end);
void InputTransformAVX512(const Geometry& g, const float* data, float* v, int64_t item_begin, int64_t item_end);
void InputTransformAVX2(const Geometry& g, const float* data, float* v, int64_t item_begin, int64_t item_end);

/*! \brief Stride 2: V of every phase for the items' tiles (same items; each tile reads a (2m + 1)^2 input window). */
void InputTransformS2(const Geometry& g, const float* data, float* v, int64_t item_begin, int64_t item_end);
void InputTransformS2AVX512(const Geometry& g, const float* data, float* v, int64_t item_begin, int64_t item_end);
void InputTransformS2AVX2(const Geometry& g, const float* data, float* v, int64_t item_begin, int64_t item_end);

/*! \brief Y for items (n * OB + ob) * th + ty: every tile of that tile row, valid pixels only, plain store (either
 * stride: g.alpha - g.m tells F(m x m, 3 x 3) from F(m x m, 2 x 2)). */
void OutputTransform(const Geometry& g, const float* mm, float* out, int64_t item_begin, int64_t item_end);
void OutputTransformAVX512(const Geometry& g, const float* mm, float* out, int64_t item_begin, int64_t item_end);
void OutputTransformAVX2(const Geometry& g, const float* mm, float* out, int64_t item_begin, int64_t item_end);

}  // namespace winograd
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_WINOGRAD_H_
