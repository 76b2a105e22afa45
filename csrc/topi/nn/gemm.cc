/*!
 * \file gemm.cc
 * \brief The GEMM driver (packing, tiling, threading, ISA dispatch) and the kernels on it:
 *
 *   topi.nn.dense_pack    data (..., K), weight packed (ceil(N / nb), K, nb) "NK{nb}n" -> (..., N), units = N
 *                         (zero past N in the last panel when nb does not divide N; unset: all the columns)
 *   topi.nn.dense         data (..., K), weight (N, K): y = x W^T                      -> (..., N)
 *   topi.nn.matmul        numpy.matmul (batch dims broadcast, 1-D operands), transpose_a / transpose_b
 *   topi.nn.batch_matmul  x (B, M, K) [(B, K, M) with transpose_a], y (B, N, K) [transpose_b] or (B, K, N)
 *
 * Algorithm (gemm.h has the packed layout): C is cut into column tiles of at most `cols` (whole panels, the panels
 * dealt out evenly: N = 64 is 32 + 32 on AVX-512's 8 x 48 tile) and row tiles of the tile's rows (AVX-512: 8 x 48, or
 * 4 x 64 for the matmul family, gemm.h TileShape; AVX2: 6 x 16). The (column tile, row tile) pairs,
 * column tile first and each weighing its panels, are cut into one contiguous part of equal weight per thread, so
 * a thread's row tiles share their B panels and wide and narrow tiles are balanced across threads. Inside a part,
 * per column tile, K runs in blocks (AVX-512 and portable: 768, the B block of a 48-column tile, 147 KB, staying in L2
 * across the part's row tiles; longer blocks measured faster than L1-sized ones of 128, whose every call reloads and
 * restores the C tile; AVX2: 4096, see Pick); each (K block, row tile) pair is one micro-kernel call. A column tile
 * whose width is not a whole number of vectors (the tail of N) computes into a stack tile and copies the valid columns
 * out. Operands that are not packed (dense's weight, matmul's B) are packed per call into thread-local scratch; dense
 * with M < 4 skips packing and runs dot products over the weight rows (one pass over W, the matrix-vector case of
 * batch-1 inference), and dense with N narrower than a panel and K <= 64 runs N short dot products a row.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/gemm.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "match_fused_tail.h"

namespace tvmlite {
namespace topi {

int DensePackBlock(int64_t n) {
  switch (CpuIsa()) {
    case Isa::kAVX512: return n % 16 == 0 ? 16 : 0;
    case Isa::kAVX2: return n % 8 == 0 ? 8 : 0;
    default: return n % 16 == 0 ? 16 : n % 8 == 0 ? 8 : 0;
  }
}

namespace gemm {
namespace {

constexpr int kMaxRows = 8;
constexpr int kMaxCols = 64;
// The least work (flops) worth a thread: about 10 us of one core; a thread's wake-up and the join cost a few us.
constexpr int64_t kMinChunkFlops = 1 << 20;
// The least weight bytes worth a thread in a matrix-vector product, which memory bounds: ~10 us of one core's
// stream from DRAM, where a model's classifier weights come from (ResNet-18's 2 MB dense ran on one thread at two).
constexpr int64_t kMinChunkBytes = 128 << 10;

/*!
 * \brief The portable micro-kernel: at most 4 rows x 64 columns. NB > 0 fixes the panel width at compile time (the
 * inner loop then vectorises with the baseline SSE); NB = 0 reads it from the tile (any width).
 */
template <int NB>
void TilePortable(const Tile& t) {
  float acc[4][kMaxCols];
  for (int r = 0; r < t.rows; ++r) {
    for (int j = 0; j < t.cols; ++j) acc[r][j] = t.accumulate ? t.c[r * t.ldc + j] : 0.0f;
  }
  const int64_t nb = NB > 0 ? NB : t.nb;
  const int panels = static_cast<int>(t.cols / nb);
  for (int64_t k = 0; k < t.k; ++k) {
    for (int r = 0; r < t.rows; ++r) {
      const float a = t.a[r * t.lda + k];
      for (int p = 0; p < panels; ++p) {
        const float* b = t.b + p * t.panel + k * t.ldb;
        float* dst = acc[r] + p * nb;
        for (int64_t j = 0; j < nb; ++j) dst[j] += a * b[j];
      }
    }
  }
  for (int r = 0; r < t.rows; ++r) std::memcpy(t.c + r * t.ldc, acc[r], sizeof(float) * t.cols);
}

/*! \brief The micro-kernel and tile shape for panels of nb under the current ISA. */
struct Config {
  void (*tile)(const Tile&);
  int rows;
  int64_t cols;     // a multiple of nb
  int64_t vec;      // the micro-kernel's column granule
  bool fused_tail;  // the micro-kernel applies Tile::tail
  int64_t k_block;  // K runs in blocks of this many steps
};

Config Pick(int64_t nb, TileShape shape) {
  Isa isa = CpuIsa();
  if (isa == Isa::kAVX512 && (nb == 16 || nb == 32) && shape == TileShape::kRows4) {
    return {GemmTileAVX512, 4, 64, 16, true, 768};
  }
  if (isa == Isa::kAVX512 && nb % 16 == 0 && nb <= 48) {
    return {GemmTileAVX512, 8, std::max<int64_t>(1, 48 / nb) * nb, 16, true, 768};
  }
  // AVX2's tile reads a 16-column B panel (64 bytes a step): on a Zen 3, K blocks of 1536-4096 ran dense
  // 128 x 3072 x 768 and 512 x 1024 x 1024 2-4% faster than blocks of 768, and one block of 8192 1-2% slower.
  if (isa != Isa::kScalar && nb % 8 == 0 && nb <= 16) return {GemmTileAVX2, 6, 16, 8, true, 4096};
  auto tile = nb == 16 ? TilePortable<16> : nb == 8 ? TilePortable<8> : TilePortable<0>;
  return {tile, 4, std::max<int64_t>(1, 32 / nb) * nb, nb, false, 768};
}

/*! \brief This thread's scratch slot of at least n floats, kept across calls, 64-byte aligned (scratch.h). */
float* Scratch(int slot, int64_t n) {
  thread_local std::vector<float> buffers[2];
  return AlignedScratch(&buffers[slot], n);
}

void DotRowsPortable(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, int64_t ldy) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      const float* xi = x + i * k;
      const float* wj = w + j * k;
      float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      int64_t q = 0;
      for (; q + 8 <= k; q += 8) {
        for (int l = 0; l < 8; ++l) part[l] += xi[q + l] * wj[q + l];
      }
      float s = 0;
      for (; q < k; ++q) s += xi[q] * wj[q];
      y[i * ldy + j] = s + ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
    }
  }
}

/*! \brief y (M, N) = x (M, K) w (N, K)^T by dot products, parallel over N; then the epilogue row by row. */
void DotRows(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, const BoundEpilogue& epi,
             int64_t y_flat) {
  Isa isa = CpuIsa();
  auto fn = isa == Isa::kAVX512 ? DotRowsAVX512 : isa == Isa::kAVX2 ? DotRowsAVX2 : DotRowsPortable;
  const int64_t kGroup = 16;
  int64_t groups = (n + kGroup - 1) / kGroup;
  const int64_t by_flops = kMinChunkFlops / std::max<int64_t>(1, 2 * kGroup * k * m);
  const int64_t by_bytes = kMinChunkBytes / std::max<int64_t>(1, kGroup * k * int64_t(sizeof(float)));
  const int64_t min_chunk = std::max<int64_t>(1, std::min(by_flops, by_bytes));
  runtime::ParallelFor(
      groups,
      [&](int64_t g0, int64_t g1) {
        int64_t j0 = g0 * kGroup, j1 = std::min(n, g1 * kGroup);
        fn(x, m, w + j0 * k, j1 - j0, k, y + j0, n);
        if (!epi.empty()) {
          for (int64_t i = 0; i < m; ++i) epi.Apply(y - y_flat, y_flat + i * n + j0, j1 - j0);
        }
      },
      min_chunk);
}

/*!
 * \brief y (M, N) = x (M, K) w (N, K)^T for N narrower than a panel and a short K (CaiT's talking-heads
 * projections mix 4 heads: M = 38416, N = K = 4): N short dot products a row, parallel over rows, the epilogue on
 * each part. The GEMM's tiles would compute a whole panel of columns per row and copy N of them out (6x slower).
 */
void SkinnyRows(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y, const BoundEpilogue& epi) {
  runtime::ParallelFor(
      m,
      [&](int64_t r0, int64_t r1) {
        for (int64_t i = r0; i < r1; ++i) {
          const float* xi = x + i * k;
          float* yi = y + i * n;
          for (int64_t j = 0; j < n; ++j) {
            const float* wj = w + j * k;
            float s = 0;
            for (int64_t q = 0; q < k; ++q) s += xi[q] * wj[q];
            yi[j] = s;
          }
        }
        if (!epi.empty()) epi.Apply(y, r0 * n, (r1 - r0) * n);
      },
      std::max<int64_t>(1, kMinChunkFlops / std::max<int64_t>(1, 2 * n * k)));
}

}  // namespace

int64_t NativeBlock() { return CpuIsa() == Isa::kAVX2 ? 8 : 16; }

void PackB(const float* b, int64_t sk, int64_t sn, int64_t k, int64_t n, int64_t nb, float* out) {
  int64_t panels = (n + nb - 1) / nb;
  const Isa isa = CpuIsa();
  // B given as (N, K) rows (dense's weight, batch_matmul's transpose_b): whole vector blocks transposed in registers
  auto trans = sk != 1 || sn <= 1                ? nullptr
               : isa == Isa::kAVX512 && nb == 16 ? PackBTransposedAVX512
               : isa == Isa::kAVX2 && nb == 8    ? PackBTransposedAVX2
                                                 : nullptr;
  runtime::ParallelFor(
      panels,
      [&](int64_t p0, int64_t p1) {
        if (trans != nullptr) {
          trans(b, sn, k, n, p0, p1, out);
          return;
        }
        for (int64_t p = p0; p < p1; ++p) {
          float* dst = out + p * k * nb;
          int64_t c0 = p * nb, w = std::min(nb, n - c0);
          if (sn == 1) {
            for (int64_t q = 0; q < k; ++q) {
              std::memcpy(dst + q * nb, b + q * sk + c0, sizeof(float) * w);
              for (int64_t j = w; j < nb; ++j) dst[q * nb + j] = 0.0f;
            }
          } else {
            for (int64_t q = 0; q < k; ++q) {
              for (int64_t j = 0; j < w; ++j) dst[q * nb + j] = b[q * sk + (c0 + j) * sn];
              for (int64_t j = w; j < nb; ++j) dst[q * nb + j] = 0.0f;
            }
          }
        }
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, k * nb)));
}

namespace {

/*!
 * \brief The driver over B in panels of nb: column c, step q at bp[(c / nb) * panel + q * ldb + c % nb] (packed:
 * panel = K nb, ldb = nb; a row-major B read in place: panel = nb, ldb = its row stride).
 */
void Gemm(const float* a, int64_t lda, const float* bp, int64_t nb, int64_t panel, int64_t ldb, int64_t m, int64_t n,
          int64_t k, float* c, int64_t ldc, const BoundEpilogue& epi, int64_t c_flat, const FusedTail* tail,
          TileShape shape) {
  float* base = c - c_flat;  // the epilogue indexes the whole output
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
      epi.Apply(base, c_flat + i * ldc, n);
    }
    return;
  }
  const Config cfg = Pick(nb, shape);
  // Column tiles of balanced widths: ceil(panels / per_tile) tiles, the panels dealt out evenly (N = 64 on AVX-512's
  // 8 x 48 tile: 32 + 32, not 48 + 16; as many tiles, so as many B loads and A broadcasts per k step).
  const int64_t panels = (n + nb - 1) / nb, per_tile = std::max<int64_t>(1, cfg.cols / nb);
  const int64_t col_tiles = (panels + per_tile - 1) / per_tile;
  const int64_t row_tiles = (m + cfg.rows - 1) / cfg.rows;
  // The work, (column tile, row tile) pairs column tile first, each weighing its panels (units: a panel of a row
  // tile), dealt out by the pool as one contiguous range of units per thread (in pieces): a thread's row tiles share
  // their B panels, and a wide column tile does not land on one thread with the narrow one left to the other (N = 64
  // was a 3:1 split). Small GEMMs stay whole.
  const int64_t units = panels * row_tiles;
  const int64_t unit_flops = std::max<int64_t>(1, 2 * k * n * m / units);
  // An epilogue not fused into the tile runs on each finished tile row while it is in cache, unless the column tiles
  // are narrow (AVX2's 16 columns): there the interpreter's setup per call outweighed its 16 values, and it runs
  // after the GEMM over whole rows instead (on a Zen 3, the transformer encoder of bench/models.py 1.23x faster at
  // one thread, 1.13x at two; its dense + GELU had taken twice its GEMM's time). A tail fused into the tiles leaves
  // only the partial tiles (the tail of N) to the interpreter, each as it is stored.
  const bool fused = tail != nullptr && cfg.fused_tail;
  const bool epi_after = !epi.empty() && !fused && per_tile * nb < 32;

  auto run = [&](int64_t jt, int64_t rt0, int64_t rt1, float* buf) {
    const int64_t p0 = jt * panels / col_tiles, p1 = (jt + 1) * panels / col_tiles;
    const int64_t col0 = p0 * nb;
    const int64_t width = std::min(p1 * nb, n) - col0;
    const int64_t width_v = (width + cfg.vec - 1) / cfg.vec * cfg.vec;
    const bool partial = width_v != width;
    for (int64_t kb = 0; kb < k; kb += cfg.k_block) {
      const int64_t kc = std::min(cfg.k_block, k - kb);
      const bool last = kb + kc == k;
      for (int64_t rt = rt0; rt < rt1; ++rt) {
        const int64_t r0 = rt * cfg.rows;
        const int rows = static_cast<int>(std::min<int64_t>(cfg.rows, m - r0));
        float* dst = c + r0 * ldc + col0;
        const bool fuse = last && !partial && fused;
        Tile t{a + r0 * lda + kb,
               lda,
               bp + p0 * panel + kb * ldb,
               panel,
               nb,
               ldb,
               kc,
               partial ? buf : dst,
               partial ? width_v : ldc,
               rows,
               static_cast<int>(width_v),
               kb > 0,
               fuse ? tail : nullptr,
               col0,
               c_flat + r0 * ldc + col0};
        if (partial && kb > 0) {
          for (int r = 0; r < rows; ++r) std::memcpy(buf + r * width_v, dst + r * ldc, sizeof(float) * width);
        }
        cfg.tile(t);
        if (partial) {
          for (int r = 0; r < rows; ++r) std::memcpy(dst + r * ldc, buf + r * width_v, sizeof(float) * width);
        }
        if (last && !epi.empty() && !fuse && !epi_after) {
          for (int r = 0; r < rows; ++r) epi.Apply(base, c_flat + (r0 + r) * ldc + col0, width);
        }
      }
    }
  };
  runtime::ParallelFor(
      units,
      [&](int64_t u0, int64_t u1) {
        alignas(64) float buf[kMaxRows * kMaxCols];
        // Row tile rt of column tile jt is this piece's when its first unit, P(jt) * row_tiles + rt * w, is in [u0,
        // u1).
        for (int64_t jt = 0; jt < col_tiles; ++jt) {
          const int64_t p0 = jt * panels / col_tiles, w = (jt + 1) * panels / col_tiles - p0;
          const int64_t first = p0 * row_tiles;
          const int64_t rt0 = std::min(row_tiles, std::max<int64_t>(0, (u0 - first + w - 1) / w));
          const int64_t rt1 = std::min(row_tiles, std::max<int64_t>(0, (u1 - first + w - 1) / w));
          if (rt0 < rt1) run(jt, rt0, rt1, buf);
        }
      },
      std::max<int64_t>(1, kMinChunkFlops / unit_flops));
  if (epi_after) {
    runtime::ParallelFor(
        m,
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) epi.Apply(base, c_flat + r * ldc, n);
        },
        std::max<int64_t>(1, (int64_t(1) << 14) / std::max<int64_t>(1, n)));
  }
}

}  // namespace

void GemmPacked(const float* a, int64_t lda, const float* bp, int64_t nb, int64_t m, int64_t n, int64_t k, float* c,
                int64_t ldc, const BoundEpilogue& epi, int64_t c_flat, const FusedTail* tail, TileShape shape) {
  if (m == 0 || n == 0) return;
  Gemm(a, lda, bp, nb, k * nb, nb, m, n, k, c, ldc, epi, c_flat, tail, shape);
}

void GemmPackedPrefix(const float* a, int64_t lda, const float* bp, int64_t nb, int64_t panel, int64_t m, int64_t n,
                      int64_t k, float* c, int64_t ldc, const BoundEpilogue& epi, int64_t c_flat, TileShape shape) {
  if (m == 0 || n == 0) return;
  TVMLITE_ICHECK(panel >= k * nb) << "GemmPackedPrefix: panels of " << panel << " floats hold fewer than " << k
                                  << " steps of " << nb;
  Gemm(a, lda, bp, nb, panel, nb, m, n, k, c, ldc, epi, c_flat, nullptr, shape);
}

void GemmRowMajorB(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t m, int64_t n, int64_t k, float* c,
                   int64_t ldc, const BoundEpilogue& epi, int64_t c_flat, const FusedTail* tail, TileShape shape) {
  if (m == 0 || n == 0) return;
  const int64_t nb = NativeBlock();
  TVMLITE_ICHECK(n % nb == 0) << "GemmRowMajorB: N = " << n << " is not a multiple of " << nb;
  Gemm(a, lda, b, nb, nb, ldb, m, n, k, c, ldc, epi, c_flat, tail, shape);
}

}  // namespace gemm

// ---------------------------------------------------------------------------------------------------------------
// Kernels

namespace {

using gemm::GemmPacked;
using gemm::PackB;
using gemm::PackedSize;
using gemm::TileShape;

/*! \brief out_dtype, when given, must be float32 (the kernels compute float32 only). */
void CheckOutDtype(const KernelAttrs& attrs) {
  if (!attrs.HasValue("out_dtype")) return;
  std::string dt = attrs.GetString("out_dtype");
  TVMLITE_CHECK_KIND(dt.empty() || dt == "float32", TypeError)
      << attrs.kernel() << ": out_dtype must be float32, got '" << dt << "'";
}

/*!
 * \brief The epilogue as a tail in registers (per-channel inputs: one value per output column; a leading scale by a
 * constant, attention's scores / sqrt(d)), or null.
 */
const FusedTail* MatchGemmTail(const Epilogue& program, const KernelArgs& args, const std::vector<int64_t>& out_shape,
                               FusedTail* tail) {
  std::vector<int64_t> channel(out_shape.size(), 1);
  channel.back() = out_shape.back();
  return MatchFusedTail(program, args.Rest(2), out_shape, channel, tail, /*allow_scale=*/true, /*allow_gelu=*/true)
             ? tail
             : nullptr;
}

int64_t Prod(const std::vector<int64_t>& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

/*! \brief The panel width in a layout string "NK{nb}n" (0 when it is not of that form). */
int64_t ParseWeightLayout(const std::string& layout) {
  if (layout.size() < 4 || layout.compare(0, 2, "NK") != 0 || layout.back() != 'n') return 0;
  int64_t nb = 0;
  for (size_t i = 2; i + 1 < layout.size(); ++i) {
    if (layout[i] < '0' || layout[i] > '9' || nb > 1000) return 0;
    nb = nb * 10 + (layout[i] - '0');
  }
  return nb;
}

/*!
 * \brief The float32 tensors of a dense kernel, run(data, weight, [epilogue inputs], out): data (..., K) of rank >= 1,
 * weight of rank weight_rank whose dim 1 is K (else "weight must be <weight_form> with K = ...").
 */
struct DenseCall {
  TensorArg data, weight, out;
  const float* x;
  const float* w;
  float* y;
  int64_t k;
};

DenseCall ReadDenseCall(const KernelArgs& args, int weight_rank, const char* weight_form) {
  TensorArg data = args.Input(0, "data"), weight = args.Input(1, "weight"), out = args.Output();
  DenseCall c{data, weight, out, data.Data<float>(), weight.Data<float>(), out.Data<float>(), 0};
  if (data.ndim() < 1) data.Fail("must have rank >= 1, got a scalar");
  weight.CheckNDim(weight_rank);
  c.k = data.dim(data.ndim() - 1);
  if (weight.dim(1) != c.k) {
    weight.Fail(std::string("must be ") + weight_form + " with K = " + std::to_string(c.k) + " (data " +
                ShapeString(data.shape()) + "), got " + ShapeString(weight.shape()));
  }
  return c;
}

/*! \brief out checked to be data's shape with the last dim n; *rows = the product of the other dims. */
std::vector<int64_t> CheckDenseOut(const DenseCall& c, int64_t n, int64_t* rows) {
  std::vector<int64_t> oshape = c.data.shape();
  oshape.back() = n;
  c.out.CheckShape(oshape);
  *rows = Prod(oshape, 0, oshape.size() - 1);
  return oshape;
}

TVMLITE_REGISTER_GLOBAL("topi.nn.dense_pack").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.nn.dense_pack";
  KernelAttrs attrs(kName, attrs_in);
  CheckOutDtype(attrs);
  int64_t units = attrs.HasValue("units") ? attrs.GetInt("units") : -1;
  int64_t layout_nb = 0;
  if (attrs.HasValue("weight_layout")) {
    std::string layout = attrs.GetString("weight_layout");
    layout_nb = ParseWeightLayout(layout);
    TVMLITE_CHECK_KIND(layout_nb >= 1 && layout_nb <= 64, ValueError)
        << kName << ": weight_layout must be NK{nb}n with 1 <= nb <= 64, got '" << layout << "'";
  }
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 3 + epi.num_inputs(), [=](const KernelArgs& args) {
    const DenseCall c = ReadDenseCall(args, 3, "(N / nb, K, nb)");
    const TensorArg& weight = c.weight;
    const int64_t k = c.k, nb = weight.dim(2), padded = weight.dim(0) * nb;
    if (nb < 1 || nb > 64) weight.Fail("panel width (dim 2) must be in [1, 64], got " + ShapeString(weight.shape()));
    if (layout_nb != 0 && layout_nb != nb) {
      weight.Fail("has panel width " + std::to_string(nb) + " but weight_layout says " + std::to_string(layout_nb));
    }
    // units below the panels' columns: N that no panel width divides, the last panel zero-padded past it. The
    // driver computes that panel into a stack tile and stores (and runs the epilogue on) its first N columns only.
    if (units >= 0 && (units > padded || units <= padded - nb)) {
      weight.Fail("gives " + std::to_string(padded) + " output units, attribute units = " + std::to_string(units) +
                  " (panels of " + std::to_string(nb) + " hold units in (" + std::to_string(padded - nb) + ", " +
                  std::to_string(padded) + "])");
    }
    const int64_t n = units >= 0 ? units : padded;
    int64_t m;
    const std::vector<int64_t> oshape = CheckDenseOut(c, n, &m);
    BoundEpilogue bound = epi.Bind(oshape, args.Rest(2), args.kernel());
    FusedTail tail;
    GemmPacked(c.x, k, c.w, nb, m, n, k, c.y, n, bound, 0, MatchGemmTail(epi, args, oshape, &tail), TileShape::kRows4);
  });
});

TVMLITE_REGISTER_GLOBAL("topi.nn.dense").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.nn.dense";
  KernelAttrs attrs(kName, attrs_in);
  CheckOutDtype(attrs);
  int64_t units = attrs.HasValue("units") ? attrs.GetInt("units") : -1;
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 3 + epi.num_inputs(), [=](const KernelArgs& args) {
    const DenseCall c = ReadDenseCall(args, 2, "(units, K)");
    const float* x = c.x;
    const float* w = c.w;
    float* y = c.y;
    const int64_t k = c.k, n = c.weight.dim(0);
    if (units >= 0 && units != n) {
      c.weight.Fail("has " + std::to_string(n) + " rows, attribute units = " + std::to_string(units));
    }
    int64_t m;
    const std::vector<int64_t> oshape = CheckDenseOut(c, n, &m);
    BoundEpilogue bound = epi.Bind(oshape, args.Rest(2), args.kernel());
    if (m < 4 && k > 0) {
      gemm::DotRows(x, m, w, n, k, y, bound, 0);
      return;
    }
    const int64_t nb = gemm::NativeBlock();
    if (n < nb && k <= 64) {
      gemm::SkinnyRows(x, m, w, n, k, y, bound);
      return;
    }
    float* packed = gemm::Scratch(0, PackedSize(k, n, nb));
    PackB(w, 1, k, k, n, nb, packed);
    FusedTail tail;
    GemmPacked(x, k, packed, nb, m, n, k, y, n, bound, 0, MatchGemmTail(epi, args, oshape, &tail), TileShape::kRows4);
  });
});

/*!
 * \brief A batched product as numpy.matmul sees it: out_batch (broadcast), per batch a (M, K) with element (i, q)
 * at a_off + i * a_sm + q * a_sk, and b (K, N) likewise.
 */
struct MatmulPlan {
  std::vector<int64_t> out_shape, batch;
  std::vector<int64_t> a_bstride, b_bstride;  // per batch dim, 0 where broadcast
  int64_t m = 0, n = 0, k = 0;
  int64_t a_sm = 0, a_sk = 0, b_sk = 0, b_sn = 0;
};

MatmulPlan PlanMatmul(const TensorArg& ta, const TensorArg& tb, bool trans_a, bool trans_b, const std::string& kernel) {
  MatmulPlan p;
  std::vector<int64_t> sa = ta.shape(), sb = tb.shape();
  const bool vec_a = sa.size() == 1, vec_b = sb.size() == 1;
  if (vec_a) {
    p.m = 1, p.k = sa[0], p.a_sm = 0, p.a_sk = 1;
  } else {
    int64_t r = sa[sa.size() - 2], c = sa.back();
    if (trans_a) p.m = c, p.k = r, p.a_sm = 1, p.a_sk = c;
    else p.m = r, p.k = c, p.a_sm = c, p.a_sk = 1;
  }
  int64_t kb;
  if (vec_b) {
    kb = sb[0], p.n = 1, p.b_sk = 1, p.b_sn = 0;
  } else {
    int64_t r = sb[sb.size() - 2], c = sb.back();
    if (trans_b) kb = c, p.n = r, p.b_sk = 1, p.b_sn = c;
    else kb = r, p.n = c, p.b_sk = c, p.b_sn = 1;
  }
  TVMLITE_CHECK_KIND(kb == p.k, ValueError)
      << kernel << ": reduction dims disagree: " << ShapeString(sa) << " (K = " << p.k << ") and " << ShapeString(sb)
      << " (K = " << kb << ")" << (trans_a || trans_b ? " after the transposes" : "");
  const size_t ra = vec_a ? 0 : sa.size() - 2, rb = vec_b ? 0 : sb.size() - 2;
  const size_t rank = std::max(ra, rb);
  p.batch.assign(rank, 1);
  p.a_bstride.assign(rank, 0);
  p.b_bstride.assign(rank, 0);
  int64_t stride_a = vec_a ? sa[0] : sa[ra] * sa[ra + 1], stride_b = vec_b ? sb[0] : sb[rb] * sb[rb + 1];
  for (size_t i = rank; i-- > 0;) {
    int64_t da = i + ra >= rank ? sa[i + ra - rank] : 1, db = i + rb >= rank ? sb[i + rb - rank] : 1;
    TVMLITE_CHECK_KIND(da == db || da == 1 || db == 1, ValueError)
        << kernel << ": batch dims do not broadcast: " << ShapeString(sa) << " and " << ShapeString(sb);
    p.batch[i] = da == 1 ? db : da;
    p.a_bstride[i] = da == 1 ? 0 : stride_a;
    p.b_bstride[i] = db == 1 ? 0 : stride_b;
    stride_a *= da, stride_b *= db;
  }
  p.out_shape = p.batch;
  if (!vec_a) p.out_shape.push_back(p.m);
  if (!vec_b) p.out_shape.push_back(p.n);
  return p;
}

constexpr int64_t kInPlaceCols = 256;

/*!
 * \brief y = a B for one row a of k values, B's element (q, j) at b[q * sk + j * sn]: one pass over B where it is.
 * A decode step's attention (q @ K^T, P @ V: M = 1 per head) would otherwise pack all of B per call to read it once.
 */
void MatVec(const float* a, const float* b, int64_t sk, int64_t sn, int64_t n, int64_t k, float* y) {
  if (sn == 1) {  // B's rows contiguous: y += a[q] * B[q, :], row after row
    std::fill(y, y + n, 0.0f);
    for (int64_t q = 0; q < k; ++q) {
      const float s = a[q];
      const float* row = b + q * sk;
      for (int64_t j = 0; j < n; ++j) y[j] += s * row[j];
    }
    return;
  }
  if (sk == 1 && sn == k) {  // B's columns are rows of K floats (q @ K^T with K as it is): the ISA's dot products
    Isa isa = CpuIsa();
    auto dot = isa == Isa::kAVX512 ? gemm::DotRowsAVX512
               : isa == Isa::kAVX2 ? gemm::DotRowsAVX2
                                   : gemm::DotRowsPortable;
    dot(a, 1, b, n, k, y, n);
    return;
  }
  for (int64_t j = 0; j < n; ++j) {  // B's columns strided: dot products, four partial sums
    const float* col = b + j * sn;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int64_t q = 0;
    for (; q + 4 <= k; q += 4) {
      for (int t = 0; t < 4; ++t) acc[t] += a[q + t] * col[(q + t) * sk];
    }
    float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (; q < k; ++q) sum += a[q] * col[q * sk];
    y[j] = sum;
  }
}

/*!
 * \brief out = plan's product, with the epilogue (tail: the same in registers, or null); B packed per batch (once
 * when every batch shares it) or read in place; one row per batch (a decode step) a matrix-vector product (MatVec).
 */
void RunMatmul(const MatmulPlan& p, const float* a, const float* b, float* out, const BoundEpilogue& epi,
               const FusedTail* tail) {
  const int64_t nbatch = Prod(p.batch, 0, p.batch.size());
  const int64_t m = p.m, n = p.n, k = p.k, mn = m * n;
  if (nbatch == 0 || mn == 0) return;
  const int64_t nb = gemm::NativeBlock();
  const int64_t packed_size = PackedSize(k, n, nb);
  bool b_shared = std::all_of(p.b_bstride.begin(), p.b_bstride.end(), [](int64_t s) { return s == 0; });
  // a's batches laid out back to back (no broadcast) with rows of stride K: one GEMM of nbatch * M rows.
  bool a_flat = p.a_sk == 1 && (p.a_sm == k || m == 1);
  for (size_t i = p.batch.size(), expect = m * k; a_flat && i-- > 0;) {
    a_flat = p.batch[i] == 1 || p.a_bstride[i] == static_cast<int64_t>(expect);
    expect *= p.batch[i];
  }
  if (b_shared && a_flat) {
    float* packed = gemm::Scratch(0, packed_size);
    PackB(b, p.b_sk, p.b_sn, k, n, nb, packed);
    GemmPacked(a, k, packed, nb, nbatch * m, n, k, out, n, epi, 0, tail, TileShape::kRows4);
    return;
  }
  // Per-batch row-major B of whole vectors and at most kInPlaceCols columns (attention's per-head V, or K^T) is read
  // in place: its pack was a copy of every row (7% of scores @ V at 12 x 128 x 128 x 64, one call of memcpy per 16
  // floats); wider rows would put a column tile's K rows 4 KB apart, on the same L1 sets.
  const bool in_place = p.b_sn == 1 && p.b_sk >= n && n % nb == 0 && n <= kInPlaceCols;
  auto one = [&](int64_t bi) {
    int64_t a_off = 0, b_off = 0;
    for (size_t i = p.batch.size(), rest = bi; i-- > 0;) {
      int64_t idx = static_cast<int64_t>(rest) % p.batch[i];
      rest /= p.batch[i];
      a_off += idx * p.a_bstride[i], b_off += idx * p.b_bstride[i];
    }
    const float* ab = a + a_off;
    int64_t lda = p.a_sm;
    if (p.a_sk != 1) {  // transposed a: rows of stride K in scratch
      float* t = gemm::Scratch(1, m * k);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t q = 0; q < k; ++q) t[i * k + q] = ab[i * p.a_sm + q * p.a_sk];
      ab = t, lda = k;
    } else if (m == 1) {
      lda = k;
    }
    if (m == 1 && tail == nullptr && !in_place) {
      MatVec(ab, b + b_off, p.b_sk, p.b_sn, n, k, out + bi * mn);
      epi.Apply(out, bi * mn, mn);
      return;
    }
    if (in_place) {
      gemm::GemmRowMajorB(ab, lda, b + b_off, p.b_sk, m, n, k, out + bi * mn, n, epi, bi * mn, tail, TileShape::kRows4);
      return;
    }
    float* packed = gemm::Scratch(0, packed_size);
    PackB(b + b_off, p.b_sk, p.b_sn, k, n, nb, packed);
    GemmPacked(ab, lda, packed, nb, m, n, k, out + bi * mn, n, epi, bi * mn, tail, TileShape::kRows4);
  };
  if (nbatch >= runtime::NumThreads() && nbatch > 1) {
    int64_t min_chunk = std::max<int64_t>(1, gemm::kMinChunkFlops / std::max<int64_t>(1, 2 * mn * k));
    runtime::ParallelFor(
        nbatch,
        [&](int64_t b0, int64_t b1) {
          for (int64_t bi = b0; bi < b1; ++bi) one(bi);
        },
        min_chunk);
  } else {
    for (int64_t bi = 0; bi < nbatch; ++bi) one(bi);
  }
}

Function MakeMatmulKernel(const std::string& name, Map<String, Any> attrs_in, bool batch_matmul) {
  KernelAttrs attrs(name, attrs_in);
  CheckOutDtype(attrs);
  const bool trans_a = attrs.GetInt("transpose_a", 0) != 0;
  const bool trans_b = attrs.GetInt("transpose_b", batch_matmul ? 1 : 0) != 0;
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(name, 3 + epi.num_inputs(), [=](const KernelArgs& args) {
    TensorArg ta = args.Input(0, batch_matmul ? "x" : "tensor_a");
    TensorArg tb = args.Input(1, batch_matmul ? "y" : "tensor_b");
    TensorArg out = args.Output();
    const float* a = ta.Data<float>();
    const float* b = tb.Data<float>();
    float* y = out.Data<float>();
    if (batch_matmul) {
      ta.CheckNDim(3);
      tb.CheckNDim(3);
    } else {
      if (ta.ndim() < 1) ta.Fail("must have rank >= 1, got a scalar");
      if (tb.ndim() < 1) tb.Fail("must have rank >= 1, got a scalar");
    }
    MatmulPlan plan = PlanMatmul(ta, tb, trans_a, trans_b, args.kernel());
    out.CheckShape(plan.out_shape);
    BoundEpilogue bound = epi.Bind(plan.out_shape, args.Rest(2), args.kernel());
    if (plan.k == 0) {  // an empty reduction: zeros, then the epilogue
      std::fill(y, y + out.size(), 0.0f);
      bound.Apply(y, 0, out.size());
      return;
    }
    // A 1-D b drops N from the output: its last dim is then not the GEMM's columns, so no per-column tail.
    FusedTail tail;
    const bool vec_b = tb.ndim() == 1;
    RunMatmul(plan, a, b, y, bound, vec_b ? nullptr : MatchGemmTail(epi, args, plan.out_shape, &tail));
  });
}

TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.matmul", MakeMatmulKernel, false);

TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.batch_matmul", MakeMatmulKernel, true);

TVMLITE_REGISTER_GLOBAL("topi.nn.dense_pack_block").set_body_typed([](int64_t n) {
  TVMLITE_CHECK_KIND(n >= 1, ValueError) << "topi.nn.dense_pack_block: n must be >= 1, got " << n;  // 0: keep nn.dense
  return static_cast<int64_t>(DensePackBlock(n));
});

// The panel width the layout pass packs a constant weight of n columns and reduction k in, 0: keep nn.dense. When no
// width divides n, the ISA's, the last panel zero-padded (dense_pack's units give N): on a Zen 3 at one thread GPT-2's
// 50257-word head (K = 768) ran 1.6x faster than nn.dense, which packs per call, at M = 32 and 1.16x at M = 1. A
// weight narrower than a panel over a short K stays nn.dense where its N short dot products a row (SkinnyRows) win:
// on AVX2 (panels of 8, M = 38416) only N = 1 with K <= 16 (packed 0.6-0.8x; N = 2..7 packed ran 1.1-5x faster);
// panels of 16 keep N < 16 with K <= 64 (CaiT's 4 talking heads ran 6x slower in whole panels on a Zen 4).
TVMLITE_REGISTER_GLOBAL("topi.nn.dense_pack_width").set_body_typed([](int64_t n, int64_t k) {
  TVMLITE_CHECK_KIND(n >= 1 && k >= 0, ValueError)
      << "topi.nn.dense_pack_width: n must be >= 1 and k >= 0, got n = " << n << ", k = " << k;
  if (int nb = DensePackBlock(n); nb != 0) return static_cast<int64_t>(nb);
  const int64_t native = gemm::NativeBlock();
  const bool skinny = native == 8 ? n == 1 && k <= 16 : n < native && k <= 64;
  return skinny ? int64_t(0) : native;
});

TVMLITE_REGISTER_OP_KERNEL("nn.dense", "topi.nn.dense");
TVMLITE_REGISTER_OP_KERNEL("nn.contrib_dense_pack", "topi.nn.dense_pack");
TVMLITE_REGISTER_OP_KERNEL("nn.matmul", "topi.nn.matmul");
TVMLITE_REGISTER_OP_KERNEL("nn.batch_matmul", "topi.nn.batch_matmul");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
