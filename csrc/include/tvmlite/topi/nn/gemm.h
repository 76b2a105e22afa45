/*!
 * \file tvmlite/topi/nn/gemm.h
 * \brief The GEMM family: one blocked float32 GEMM over a pre-packed right operand, and the kernels on top of it
 * (topi.nn.dense_pack, topi.nn.dense, topi.nn.matmul, topi.nn.batch_matmul).
 *
 *   // The layout rewrite nn.dense(x, W_const) -> nn.contrib_dense_pack(x, layout_transform(W, "NK", "NK16n")):
 *   // the panel width from topi.nn.dense_pack_width(n, k) (0: no rewrite); a width no panel divides (a
 *   // vocabulary head of 50257) is packed zero-padded to whole panels, with units = n
 *   // packed weight: (ceil(units / nb), K, nb), packed[p, k, j] = W[p * nb + j, k]   ("NK{nb}n")
 *
 * Packed layout of the right operand B (K, N) of C[M, N] = A[M, K] B: panels of nb columns, (ceil(N / nb), K, nb),
 * panel p holding columns [p * nb, p * nb + nb) row after row, so one k step of a panel is nb contiguous floats
 * (one zmm for nb = 16, one ymm for nb = 8). Columns past N in the last panel are zero (PackB pads them).
 *
 * The driver (GemmPacked) cuts C into register tiles (AVX-512: up to 8 rows x 48 columns, 24 zmm accumulators, or
 * 4 x 64 for the matmul family, see TileShape; 6 x 16 on AVX2: 12 ymm; 4 x 32 portable; a row's tiles of balanced
 * widths) and K into blocks (768; 4096 on AVX2); each (K block, tile) is one call of the ISA's micro-kernel
 * (GemmTile*), which keeps the tile's accumulators in registers over the K block. Threads get contiguous runs of
 * tiles of equal work, column tile first (batch-1 transformers have M = 1), then rows. Bias / residual adds, a
 * leading scale and relu / clip / GELU (a FusedTail) run in the AVX-512 and AVX2 tiles' registers as they are
 * stored; another epilogue runs through the interpreter on each tile's rows right after its last K block, while
 * they are in cache (after the whole GEMM on AVX2, whose 16-column tiles are too narrow for it).
 */
#ifndef TVMLITE_TOPI_NN_GEMM_H_
#define TVMLITE_TOPI_NN_GEMM_H_

#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/fused_tail.h>

#include <cstdint>

namespace tvmlite {
namespace topi {

/*!
 * \brief The panel width the GEMM wants for a packed weight with n output columns, or 0: do not pack, keep nn.dense.
 * AVX-512: 16 when 16 divides n; AVX2: 8 when 8 divides n; scalar: 16 or 8. Global: topi.nn.dense_pack_block. The
 * layout pass asks topi.nn.dense_pack_width(n, k) instead, which also packs widths no panel divides (the last panel
 * zero-padded, units = n: the driver stores that panel's valid columns only).
 */
int DensePackBlock(int64_t n);

namespace gemm {

/*! \brief One register tile: C[0:rows, 0:vecs*W] (+)= A[0:rows, 0:k] * B, B's columns from packed panels. */
struct Tile {
  const float* a;  // row r, step k: a[r * lda + k]
  int64_t lda;
  const float* b;  // the first panel at this tile's k offset;
                   // column c, step k: b[(c / nb) * panel + k * ldb + c % nb]
  int64_t panel;   // floats between consecutive panels (K * nb packed, nb read in place)
  int64_t nb;
  int64_t ldb;  // floats between k steps of a panel: nb when packed, B's row stride when read in place
  int64_t k;    // the K block's length
  float* c;     // row r, column j: c[r * ldc + j]
  int64_t ldc;
  int rows;         // 1..8 (AVX-512; 1..4 when cols is 64), 1..6 (AVX2), 1..4 (portable)
  int cols;         // a multiple of the ISA's vector width, at most the driver's tile width
  bool accumulate;  // add to C instead of overwriting it
  // The epilogue in registers as the tile is stored (AVX-512, last K block), or null: column j's per-channel value
  // is add[.][col + j], a full-shape input's is add[.][c_flat + r * ldc + j].
  const FusedTail* tail;
  int64_t col;
  int64_t c_flat;
};

/*!
 * \brief The AVX-512 register tile for panels of 16 (and 32): kRows8, 8 rows x 48 columns (24 accumulators), or
 * kRows4, 4 x 64 (16). On this Zen 4, kRows4 measured faster for the matmul family on small K (attention's Q K^T
 * 12 x 128 x 64 x 128 +3.5%, 1536 x 64 x 128 +3%; dense 128 x 768 x 768 / x 3072 and M = 1 rows equal) and kRows8 for
 * Winograd's GEMMs (kRows4 6-20% slower on ResNet's 256- and 512-channel 3x3 layers); panels of 48 always take
 * 8 x 48, the other ISAs their own tile.
 */
enum class TileShape { kRows8, kRows4 };

/*! \brief Micro-kernels: nb a multiple of 16 (AVX-512, cols <= 64, <= 48 above 4 rows) or of 8 (AVX2, cols <= 16). */
void GemmTileAVX512(const Tile& t);
void GemmTileAVX2(const Tile& t);

/*!
 * \brief out[i] = dot(x[m, :], w[n, :]) for rows x of M and rows w of N (both row-major, K long), into y (ldy):
 * the unpacked matrix-vector path of nn.dense for small M. ISA variants of the same loop.
 */
void DotRowsAVX512(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, int64_t ldy);
void DotRowsAVX2(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, int64_t ldy);

/*!
 * \brief Panels [p0, p1) of PackB for b (N, K) row-major with row stride ld (sk = 1, sn = ld), in panels of the
 * ISA's vector width (16 / 8): 16 x 16 (8 x 8) blocks transposed in registers. The element-by-element gather reads
 * each float of a column from another row; for batch_matmul's B^T at K = 64 it took ~12% of the call.
 */
void PackBTransposedAVX512(const float* b, int64_t ld, int64_t k, int64_t n, int64_t p0, int64_t p1, float* out);
void PackBTransposedAVX2(const float* b, int64_t ld, int64_t k, int64_t n, int64_t p0, int64_t p1, float* out);

/*! \brief Floats PackB writes for (K, N) in panels of nb. */
inline int64_t PackedSize(int64_t k, int64_t n, int64_t nb) { return (n + nb - 1) / nb * nb * k; }

/*!
 * \brief Pack B, element (k, n) at b[k * sk + n * sn], into out (PackedSize floats; the last panel zero-padded).
 * sk = N, sn = 1 for a row-major (K, N) matrix; sk = 1, sn = K for a dense weight (N, K).
 */
void PackB(const float* b, int64_t sk, int64_t sn, int64_t k, int64_t n, int64_t nb, float* out);

/*!
 * \brief C[M, N] (row stride ldc) = A[M, K] (row stride lda) * packed B, then epi on each stored row segment
 * (c's element (m, j) is the output's flat element c_flat + m * ldc + j). tail, when given, is epi in registers
 * (per-channel inputs indexed by the column): the micro-kernels that can apply it do, the others run epi. Parallel
 * unless called from a task.
 */
void GemmPacked(const float* a, int64_t lda, const float* bp, int64_t nb, int64_t m, int64_t n, int64_t k, float* c,
                int64_t ldc, const BoundEpilogue& epi, int64_t c_flat, const FusedTail* tail = nullptr,
                TileShape shape = TileShape::kRows8);

/*!
 * \brief GemmPacked over the first k steps of B's panels, which are panel floats apart (panel >= k * nb): a K prefix
 * of a packed (K', N) B (the stride-2 Winograd's U, whose elements run over 1, 2 or 4 of its 4C rows).
 */
void GemmPackedPrefix(const float* a, int64_t lda, const float* bp, int64_t nb, int64_t panel, int64_t m, int64_t n,
                      int64_t k, float* c, int64_t ldc, const BoundEpilogue& epi, int64_t c_flat,
                      TileShape shape = TileShape::kRows8);

/*!
 * \brief GemmPacked with B (K, N) row-major (row stride ldb) read in place, as panels of NativeBlock() columns whose
 * k steps are ldb apart: no per-call pack. N must be a multiple of NativeBlock(); meant for a B of few columns (a
 * column tile's K rows then span few L1 sets and pages): attention's per-head scores @ V, and Q K^T with K^T given.
 */
void GemmRowMajorB(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t m, int64_t n, int64_t k, float* c,
                   int64_t ldc, const BoundEpilogue& epi, int64_t c_flat, const FusedTail* tail = nullptr,
                   TileShape shape = TileShape::kRows8);

/*! \brief The panel width of per-call packs under the current ISA: 16 (AVX-512 and scalar) or 8 (AVX2). */
int64_t NativeBlock();

}  // namespace gemm
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_GEMM_H_
