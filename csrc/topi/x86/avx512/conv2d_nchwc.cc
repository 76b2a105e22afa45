/*!
 * \file conv2d_nchwc.cc
 * \brief The AVX-512 blocked conv2d (out block 16): a direct convolution with its accumulators in registers.
 *
 * Algorithm (the shape of oneDNN's and LIBXSMM's direct convolutions, without a JIT):
 *   an item is (n, OB output blocks, R output rows), OB = 2 (3 when the block count is odd and divisible by 3,
 *   else 1); a row is cut into balanced tiles of T columns (T <= 28 / OB, at most 14: 56 = 4 x 14, 7 = 7);
 *   narrow maps (7x7) take two rows per tile (R = 2) so that a weight vector still serves 14 output pixels;
 *   a tile keeps R x T x OB zmm accumulators (<= 28 of the 32) and walks input-channel blocks, kernel rows, kernel
 *   columns and the ic channels of a block; each step loads OB weight vectors (16 output channels each) and, per
 *   pixel, broadcasts one input value and issues OB FMAs: OB + R x T loads for R x T x OB FMAs.
 *   The input column step (stride_w * ic floats) is a template constant for the common blocks, so a pixel's
 *   broadcast is a load at a fixed displacement from one or two row pointers.
 * Padding (tvmlite/topi/nn/conv2d.h): the input is read in place, and no inner loop tests a border. An output row
 * whose window reaches the top or bottom padding walks only its kernel rows inside the input; the interior columns
 * (windows inside the input's width) read the input; each border column reads the edge strips (zero-padded copies
 * of the few input columns it reaches), walking only its kernel columns inside the input, in tiles whose "columns"
 * are up to 14 output rows (a runtime column step of a row and an output column stride of a row), batched over the
 * rows a call's run of items covers. Two-row tiles take pairs of rows sharing their kernel rows.
 * The common epilogues (bias, residual, relu, clip: FusedTail) are applied in registers before the store; any
 * other runs through the interpreter on each finished row of each output block (OW x 16 floats, still in L1), or
 * with border columns on each finished run of rows.
 * A 1x1 stride-1 unpadded conv is a GEMM over pixels: its rows are runs of the flattened plane. A tile with one tap
 * of 16 channels per channel block (1x1 convs) walks a fixed 16-step loop under the channel blocks, not the general
 * kd / kh / kw / c nest.
 * Small maps whose weights overflow L1 (3x3, 512 channels at 7x7) run in passes over the input channels, ~16 KB of
 * weights per pass, each item a (n, block group) plane or a part of its rows (at least 16 items): partial sums go
 * through the output (still in L1/L2); a pass prefetches the next pass's weights into L2.
 * A 3-D conv (conv2d.h) adds a depth: an item is also one output depth slice, and the tile walks the kernel's
 * depth taps kd (those whose input slice is inside: depth padding is skipped, never read, as the kernel rows in the
 * top / bottom padding) around the kernel rows, so the whole KD x KH x KW sum stays in registers; the edge strips
 * have the input's depth slices.
 *
 * Everything here is in an anonymous namespace except the entry point (this file is compiled with -mavx512f).
 */
#include <immintrin.h>

#include <algorithm>
#include <tvmlite/topi/nn/conv2d.h>

#include "../fused_tail_vec.h"

namespace tvmlite {
namespace topi {
namespace {

constexpr int kLanes = 16;
constexpr int kMaxTile = 14;

/*! \brief What every tile of one call shares. */
struct TileArgs {
  int64_t ncb;           // input channel blocks per group
  int64_t kd;            // kernel depth taps this tile walks (1 for a 2-D conv; 0 when every tap is in padding)
  int64_t kh;            // kernel rows
  int64_t in_cb_stride;  // input floats between channel blocks
  int64_t in_kd_stride;  // input floats between kernel depth taps (dilation_d * H * W * ic)
  int64_t in_kh_stride;  // input floats between kernel rows (dilation_h * W * ic)
  int64_t kw_loop;       // kernel columns walked by the kw loop (1 when kw and c are flattened)
  int64_t c_loop;        // channels walked by the inner loop (ic, or KW * ic when dilation_w == 1)
  int64_t kw_step;       // input floats between kernel columns (dilation_w * ic)
  int64_t col_step;      // input floats between output columns (stride_w * ic)
  int64_t w_ob_stride;   // weight floats between output blocks
  int64_t w_cb_stride;   // weight floats between input channel blocks
  int64_t w_kd_stride;   // weight floats between kernel depth taps
  int64_t w_kh_stride;   // weight floats between kernel rows
  int64_t w_kw_stride;   // weight floats between kernel columns (ic * 16)
  int64_t out_ob_stride;
  int64_t out_col_stride;  // output floats between the tile's columns: 16, or a row (a border column's tile)
  const FusedTail* tail;   // the epilogue in registers, or null (plain store)
  const float* out_base;   // the whole output (a full-shape epilogue input is read at the same offset)
  int64_t ob;              // the tile's first output block (its bias)
  // Lines [prefetch, prefetch_end) fetched into L2, one per input channel step: the next block group's weights, which
  // a model's late layers (MBs of them, read once per run) would otherwise wait on memory for.
  const char* prefetch = nullptr;
  const char* prefetch_end = nullptr;
};

using TileFn = void (*)(const TileArgs&, const float* in, int64_t rs, const float* w, float* out, int64_t os,
                        bool accumulate);

/*!
 * \brief One input channel step of a tile: OB weight vectors (wp, wob floats apart), and per pixel (row r, column j:
 * x[r * rs + j * cs]) a broadcast and OB FMAs. Inlined, so that acc stays in registers.
 */
template <int R, int T, int OB>
__attribute__((always_inline)) inline void Step(__m512 (&acc)[R][T][OB], const float* x, int64_t rs, int64_t cs,
                                                const float* wp, int64_t wob) {
  __m512 wv[OB];
#pragma GCC unroll 4
  for (int b = 0; b < OB; ++b) wv[b] = _mm512_loadu_ps(wp + b * wob);
#pragma GCC unroll 2
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 28
    for (int j = 0; j < T; ++j) {
      const __m512 xv = _mm512_set1_ps(x[r * rs + j * cs]);
#pragma GCC unroll 4
      for (int b = 0; b < OB; ++b) acc[r][j][b] = _mm512_fmadd_ps(xv, wv[b], acc[r][j][b]);
    }
  }
}

/*!
 * \brief R rows x T output columns x OB output blocks. in: the input at (first channel block of the group, the
 * tile's first input row and column); rs: input floats between the tile's rows; w: the weights at (first output
 * block, first channel block); out: the output at (first block, first row, first column); os: floats between rows;
 * accumulate: add to out (a later pass over the input channels) instead of overwriting it.
 */
template <int R, int T, int OB, int CS>
void Tile(const TileArgs& a, const float* in, int64_t rs, const float* w, float* out, int64_t os, bool accumulate) {
  const int64_t ocs = CS >= 0 ? kLanes : a.out_col_stride;
  __m512 acc[R][T][OB];
#pragma GCC unroll 2
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 28
    for (int j = 0; j < T; ++j) {
#pragma GCC unroll 4
      for (int b = 0; b < OB; ++b) {
        acc[r][j][b] = accumulate ? _mm512_loadu_ps(out + b * a.out_ob_stride + r * os + j * ocs) : _mm512_setzero_ps();
      }
    }
  }
  const int64_t cs = CS > 0 ? CS : a.col_step;
  const int64_t wob = a.w_ob_stride;
  const char* pf = a.prefetch;
  if (a.kd == 1 && a.kh == 1 && a.kw_loop == 1 && a.c_loop == kLanes) {
    // One tap of 16 channels per channel block (a 1x1 conv): a fixed 16-step loop under the cb loop, and the cb's
    // prefetch lines issued together. The general nest's trip-1 kd/kh/kw loops, their address arithmetic and the
    // per-step prefetch test cost 2-4% of these tiles (FMA-bound at ~95% of peak).
    for (int64_t cb = 0; cb < a.ncb; ++cb) {
      if (pf < a.prefetch_end) {
        const char* stop = a.prefetch_end - pf > kLanes * 64 ? pf + kLanes * 64 : a.prefetch_end;
        for (; pf < stop; pf += 64) _mm_prefetch(pf, _MM_HINT_T1);
      }
      const float* x = in + cb * a.in_cb_stride;
      const float* wp = w + cb * a.w_cb_stride;
#pragma GCC unroll 2
      for (int c = 0; c < kLanes; ++c) Step<R, T, OB>(acc, x + c, rs, cs, wp + c * kLanes, wob);
    }
  } else {
    for (int64_t cb = 0; cb < a.ncb; ++cb) {
      for (int64_t kd = 0; kd < a.kd; ++kd) {
        for (int64_t kh = 0; kh < a.kh; ++kh) {
          const float* irow = in + cb * a.in_cb_stride + kd * a.in_kd_stride + kh * a.in_kh_stride;
          const float* wrow = w + cb * a.w_cb_stride + kd * a.w_kd_stride + kh * a.w_kh_stride;
          for (int64_t kw = 0; kw < a.kw_loop; ++kw) {
            const float* x = irow + kw * a.kw_step;
            const float* wp = wrow + kw * a.w_kw_stride;
            for (int64_t c = 0; c < a.c_loop; ++c, ++x, wp += kLanes) {
              if (pf < a.prefetch_end) {
                _mm_prefetch(pf, _MM_HINT_T1);
                pf += 64;
              }
              Step<R, T, OB>(acc, x, rs, cs, wp, wob);
            }
          }
        }
      }
    }
  }
  if (a.tail == nullptr) {
#pragma GCC unroll 4
    for (int b = 0; b < OB; ++b) {
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 28
        for (int j = 0; j < T; ++j) _mm512_storeu_ps(out + b * a.out_ob_stride + r * os + j * ocs, acc[r][j][b]);
      }
    }
    return;
  }
  // Written out here, not in a helper taking acc by reference: that would keep the accumulators in memory.
  const int64_t base = out - a.out_base;
#pragma GCC unroll 4
  for (int b = 0; b < OB; ++b) {
    const TailRegs<16> tail = LoadTail<16>(*a.tail, (a.ob + b) * kLanes);  // this block's 16 channels
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 28
      for (int j = 0; j < T; ++j) {
        const int64_t off = b * a.out_ob_stride + r * os + j * ocs;
        _mm512_storeu_ps(out + off, ApplyTail(tail, acc[r][j][b], base + off));
      }
    }
  }
}

template <int R, int T, int OB, int CS>
constexpr TileFn Pick() {
  if constexpr (R * T * OB <= 28) {
    return &Tile<R, T, OB, CS>;
  } else {
    return nullptr;
  }
}

#define TVMLITE_CONV_TILES(R, OB, CS) \
  {nullptr,                           \
   Pick<R, 1, OB, CS>(),              \
   Pick<R, 2, OB, CS>(),              \
   Pick<R, 3, OB, CS>(),              \
   Pick<R, 4, OB, CS>(),              \
   Pick<R, 5, OB, CS>(),              \
   Pick<R, 6, OB, CS>(),              \
   Pick<R, 7, OB, CS>(),              \
   Pick<R, 8, OB, CS>(),              \
   Pick<R, 9, OB, CS>(),              \
   Pick<R, 10, OB, CS>(),             \
   Pick<R, 11, OB, CS>(),             \
   Pick<R, 12, OB, CS>(),             \
   Pick<R, 13, OB, CS>(),             \
   Pick<R, 14, OB, CS>()}
#define TVMLITE_CONV_TILES_CS(CS)                                                                 \
  {                                                                                               \
    {TVMLITE_CONV_TILES(1, 1, CS), TVMLITE_CONV_TILES(1, 2, CS), TVMLITE_CONV_TILES(1, 3, CS)}, { \
      TVMLITE_CONV_TILES(2, 1, CS), TVMLITE_CONV_TILES(2, 2, CS), TVMLITE_CONV_TILES(2, 3, CS)    \
    }                                                                                             \
  }

// [column step][R - 1][OB - 1][T] (OB 1..3): column steps 16 (ic 16, stride 1), 32 (ic 16, stride 2), 8 (ic 8 / ic 4
// stride 2), 6 (the stem: ic 3, stride 2), anything else through the runtime step (0). The tiles of border columns
// (kBorderStep) also take their output column stride at run time: their "columns" are output rows. Kept apart from
// step 0, whose constant output stride saves the address arithmetic of up to 28 stores (its tiles ran 20% slower).
constexpr int kBorderStep = -1;
constexpr int kColSteps[] = {0, 16, 32, 8, 6};
const TileFn kTiles[5][2][3][kMaxTile + 1] = {TVMLITE_CONV_TILES_CS(0), TVMLITE_CONV_TILES_CS(16),
                                              TVMLITE_CONV_TILES_CS(32), TVMLITE_CONV_TILES_CS(8),
                                              TVMLITE_CONV_TILES_CS(6)};
const TileFn kBorderTiles[kMaxTile + 1][3] = {
    {nullptr, nullptr, nullptr},
#define TVMLITE_BORDER_TILES(T) \
  {Pick<1, T, 1, kBorderStep>(), Pick<1, T, 2, kBorderStep>(), Pick<1, T, 3, kBorderStep>()}
    TVMLITE_BORDER_TILES(1),     TVMLITE_BORDER_TILES(2),  TVMLITE_BORDER_TILES(3),  TVMLITE_BORDER_TILES(4),
    TVMLITE_BORDER_TILES(5),     TVMLITE_BORDER_TILES(6),  TVMLITE_BORDER_TILES(7),  TVMLITE_BORDER_TILES(8),
    TVMLITE_BORDER_TILES(9),     TVMLITE_BORDER_TILES(10), TVMLITE_BORDER_TILES(11), TVMLITE_BORDER_TILES(12),
    TVMLITE_BORDER_TILES(13),    TVMLITE_BORDER_TILES(14)
#undef TVMLITE_BORDER_TILES
};
#undef TVMLITE_CONV_TILES_CS
#undef TVMLITE_CONV_TILES

/*!
 * \brief Output depth slice od of a 3-D conv: its kernel depth taps [*kd0, *kd0 + count) read input slices inside
 * [0, D); returns count (0 when every tap falls in the padding) and sets *slice to the input slice of tap *kd0.
 */
int64_t DepthTaps(const Conv2DWorkload& wl, int64_t od, int64_t* kd0, int64_t* slice) {
  const int64_t first = od * wl.stride_d - wl.pad_front;  // the input slice of tap 0
  const int64_t dd = wl.dilation_d;
  const int64_t lo = first >= 0 ? 0 : (-first + dd - 1) / dd;
  const int64_t last = wl.in_depth - 1 - first;
  const int64_t hi = last < 0 ? 0 : std::min(wl.kernel_d, last / dd + 1);
  *kd0 = lo < hi ? lo : 0;
  *slice = lo < hi ? first + lo * dd : 0;
  return lo < hi ? hi - lo : 0;
}

}  // namespace

void Conv2DNCHWcAVX512(const Conv2DWorkload& wl, const Conv2DPlan& plan, const Conv2DTensors& io, int64_t begin,
                       int64_t end) {
  const int64_t ic = wl.in_block, oc = kLanes;
  const int64_t D = wl.in_depth, H = wl.in_height, W = wl.in_width, OH = wl.out_height, OW = wl.out_width;
  const int64_t KD = wl.kernel_d, KH = wl.kernel_h, KW = wl.kernel_w, OD = wl.out_depth;
  const int64_t sh = wl.stride_h, dh = wl.dilation_h, dw = wl.dilation_w, pt = wl.pad_top, pl = wl.pad_left;
  const int64_t in_blocks = wl.in_channels / ic, out_blocks = wl.out_channels / oc;
  const int64_t ncb = wl.in_channels / wl.groups / ic;
  const int64_t group_blocks = wl.out_channels / wl.groups / oc;
  const int64_t OB = plan.out_blocks_per_item, block_groups = out_blocks / OB;
  const int64_t R = plan.tile_rows, tmax = plan.tile_width;
  const int64_t row_groups = (plan.rows + R - 1) / R;
  const int64_t in_slice = H * W * ic, out_slice = OH * OW * oc;  // floats per depth slice of a channel block
  // Interior columns [col_lo, col_hi) read the input in place; the border ones the edge strips (pad_in_kernel).
  const int64_t col_lo = plan.pad_in_kernel ? plan.col_lo : 0, col_hi = plan.pad_in_kernel ? plan.col_hi : OW;
  const bool borders = col_lo > 0 || col_hi < OW;
  const int64_t edge_width = plan.edge_left + plan.edge_right, Hp = H + pt + wl.pad_bottom;
  const int64_t edge_slice = Hp * edge_width * ic, edge_cb_stride = D * edge_slice;  // the strips' floats

  TileArgs a;
  a.ncb = ncb;
  a.kd = KD;
  a.kh = KH;
  a.in_cb_stride = wl.in_plane_stride ? wl.in_plane_stride : D * in_slice;
  a.in_kd_stride = wl.dilation_d * in_slice;
  a.in_kh_stride = dh * W * ic;
  const bool flat_kw = wl.dilation_w == 1;  // kernel columns and channels are one contiguous run
  a.kw_loop = flat_kw ? 1 : KW;
  a.c_loop = flat_kw ? KW * ic : ic;
  a.kw_step = wl.dilation_w * ic;
  a.col_step = wl.stride_w * ic;
  a.w_kw_stride = ic * oc;
  a.w_kh_stride = KW * ic * oc;
  a.w_kd_stride = KH * KW * ic * oc;
  a.w_cb_stride = KD * a.w_kd_stride;
  a.w_ob_stride = ncb * a.w_cb_stride;
  a.out_ob_stride = wl.out_plane_stride ? wl.out_plane_stride : OD * out_slice;
  a.out_col_stride = oc;
  a.tail = io.tail;
  a.out_base = io.out;
  a.ob = 0;
  int cs_index = 0;
  for (int i = 1; i < 5; ++i) {
    if (kColSteps[i] == a.col_step) cs_index = i;
  }
  const TileFn* tiles1 = kTiles[cs_index][0][OB - 1];
  const TileFn* tiles2 = kTiles[cs_index][1][OB - 1];
  auto border_tile = [&](int64_t width) { return kBorderTiles[width][OB - 1]; };  // a border column's rows
  const int64_t rs = sh * W * ic;                                                 // input floats between output rows

  // The kernel rows [k0, k1) of output row oh that read input rows (the others fall in the top / bottom padding).
  auto kernel_rows = [&](int64_t oh, int64_t* k0, int64_t* k1) {
    const int64_t ih = oh * sh - pt;  // kernel row 0's input row
    const int64_t first = ih >= 0 ? 0 : std::min(KH, (-ih + dh - 1) / dh);
    const int64_t count = ih > H - 1 ? 0 : std::min(KH, (H - 1 - ih) / dh + 1);
    *k0 = first, *k1 = std::max(first, count);
  };
  // Output rows [row0, row0 + rows) (rows 1, or 2 sharing their kernel rows [k0, k1)), the interior columns in
  // balanced tiles; data_n / weight at the item's first depth tap; share(t, ntiles) sets tile t's prefetch lines.
  auto interior = [&](TileArgs& t, const float* data_n, const float* weight, float* out_n, int64_t row0, int64_t rows,
                      int64_t k0, int64_t k1, bool accumulate, auto&& share) {
    const int64_t count = col_hi - col_lo, ntiles = (count + tmax - 1) / tmax;
    const TileFn* tiles = rows == 2 ? tiles2 : tiles1;
    t.kh = k1 - k0;
    const float* in =
        t.kh > 0 ? data_n + (row0 * sh - pt + k0 * dh) * W * ic + (col_lo * wl.stride_w - pl) * ic : data_n;
    const float* w = weight + k0 * a.w_kh_stride;
    int64_t ow0 = col_lo;
    for (int64_t tile = 0; tile < ntiles; ++tile) {
      const int64_t width = count / ntiles + (tile < count % ntiles ? 1 : 0);
      share(tile, ntiles);
      tiles[width](t, t.kh > 0 ? in + (ow0 - col_lo) * a.col_step : in, rs, w, out_n + (row0 * OW + ow0) * oc, OW * oc,
                   accumulate);
      ow0 += width;
    }
    t.kh = KH;
  };
  // Output rows [row0, row0 + rows), interior columns: as two-row tiles where a pair shares its kernel rows.
  auto interior_rows = [&](TileArgs& t, const float* data_n, const float* weight, float* out_n, int64_t row0,
                           int64_t rows, bool accumulate, auto&& share) {
    int64_t k0, k1, q0, q1;
    kernel_rows(row0, &k0, &k1);
    if (rows == 2) kernel_rows(row0 + 1, &q0, &q1);
    if (rows == 2 && (q0 != k0 || q1 != k1)) {
      interior(t, data_n, weight, out_n, row0, 1, k0, k1, accumulate, share);
      interior(t, data_n, weight, out_n, row0 + 1, 1, q0, q1, accumulate, share);
    } else {
      interior(t, data_n, weight, out_n, row0, rows, k0, k1, accumulate, share);
    }
  };
  // The border columns of output rows [ra, rb): per column, tiles of up to tmax rows reading the edge strips (every
  // kernel row and column there, the padding being zeros); edge_n: the strips of the group's first channel block at
  // the item's first depth tap, weight at that tap (base.kd taps).
  auto border = [&](const TileArgs& base, const float* edge_n, const float* weight, float* out_n, int64_t ra,
                    int64_t rb, bool accumulate) {
    TileArgs t = base;
    t.in_cb_stride = edge_cb_stride;
    t.in_kd_stride = wl.dilation_d * edge_slice;
    t.in_kh_stride = dh * edge_width * ic;
    t.col_step = sh * edge_width * ic;  // the tile's "columns" are output rows
    t.out_col_stride = OW * oc;
    t.prefetch = t.prefetch_end = nullptr;
    const int64_t count = rb - ra, ntiles = (count + tmax - 1) / tmax;
    for (int64_t ow = col_lo > 0 ? 0 : col_hi; ow < OW; ow = ow + 1 == col_lo ? col_hi : ow + 1) {
      const int64_t col = ow < col_lo ? ow * wl.stride_w : plan.edge_left + ow * wl.stride_w - plan.edge_right_start;
      // Only the kernel columns [kw0, kw1) whose input column (ow * stride_w - pl + kw * dw) is inside [0, W): the
      // others would multiply the strip's zero columns (5% of a 3x3 stride-2 conv's multiply-adds at 7x7 outputs,
      // 10% at stride 1).
      const int64_t start = ow * wl.stride_w - pl, last = W - 1 - start;  // kw * dw reaching input columns 0, W - 1
      const int64_t kw0 = std::min(KW, (std::max<int64_t>(0, -start) + dw - 1) / dw);
      const int64_t kw1 = last < 0 ? kw0 : std::max(kw0, std::min(KW, last / dw + 1));
      t.kw_loop = flat_kw ? 1 : kw1 - kw0;
      t.c_loop = flat_kw ? (kw1 - kw0) * ic : ic;
      const float* w_kw = weight + kw0 * a.w_kw_stride;
      const int64_t col_kw = col + kw0 * dw;
      int64_t r = ra;
      for (int64_t tile = 0; tile < ntiles; ++tile) {
        const int64_t width = count / ntiles + (tile < count % ntiles ? 1 : 0);
        border_tile(width)(t, edge_n + (r * sh * edge_width + col_kw) * ic, 0, w_kw, out_n + (r * OW + ow) * oc, 0,
                           accumulate);
        r += width;
      }
    }
  };

  if (plan.cb_chunk < ncb) {
    // Weights do not fit L1: pass over the input channels cb_chunk blocks at a time, every row of the item per
    // pass (an item is (n, block group, od, part of the plane's rows)), so each chunk's weights serve them from L1.
    const int64_t parts = plan.plane_parts;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t part = item % parts, od = item / parts % OD, rest = item / parts / OD;
      const int64_t r0 = part * OH / parts, r1 = (part + 1) * OH / parts;
      const int64_t ob0 = (rest % block_groups) * OB, n = rest / block_groups;
      const int64_t cb0 = (ob0 / group_blocks) * ncb;
      int64_t kd0, slice;
      const int64_t kd = DepthTaps(wl, od, &kd0, &slice);
      const float* data_n = io.data + (n * in_blocks + cb0) * a.in_cb_stride + slice * in_slice;
      const float* edge_n = borders ? io.edge + (n * in_blocks + cb0) * edge_cb_stride + slice * edge_slice : nullptr;
      const float* weight = io.weight + ob0 * a.w_ob_stride + kd0 * a.w_kd_stride;
      float* out_n = io.out + (n * out_blocks + ob0) * a.out_ob_stride + od * out_slice;
      for (int64_t c0 = 0; c0 < ncb; c0 += plan.cb_chunk) {
        TileArgs chunk = a;
        chunk.kd = kd;
        chunk.ncb = ncb - c0 < plan.cb_chunk ? ncb - c0 : plan.cb_chunk;
        chunk.tail = c0 + chunk.ncb >= ncb ? io.tail : nullptr;  // the epilogue on the last pass's store
        chunk.ob = ob0;
        const float* in_c = data_n + c0 * a.in_cb_stride;
        const float* w_c = weight + c0 * a.w_cb_stride;
        // The next pass's weights (this item's, or the next item's first) into L2 meanwhile, a block per tile of the
        // first OB: they come from L3 or memory (MBs of them per layer), and a pass's first tiles otherwise wait.
        const int64_t next_c0 = c0 + chunk.ncb, next_ob0 = ((item + 1) / parts / OD % block_groups) * OB;
        const float* next_w = next_c0 < ncb    ? io.weight + ob0 * a.w_ob_stride + next_c0 * a.w_cb_stride
                              : item + 1 < end ? io.weight + next_ob0 * a.w_ob_stride
                                               : nullptr;
        const int64_t next_cbs = std::min(plan.cb_chunk, next_c0 < ncb ? ncb - next_c0 : ncb);
        int64_t calls = 0;
        auto pass_share = [&](int64_t, int64_t) {
          const int64_t k = calls++;
          const char* p =
              next_w != nullptr && k < OB ? reinterpret_cast<const char*>(next_w + k * a.w_ob_stride) : nullptr;
          chunk.prefetch = p;
          chunk.prefetch_end = p ? p + next_cbs * a.w_cb_stride * static_cast<int64_t>(sizeof(float)) : nullptr;
        };
        // Two-row tiles for pairs of rows that share their kernel rows, paired greedily: with one restricted top
        // row, rows 1-2, 3-4, ... pair (a pairing from row 0 would leave two rows single).
        for (int64_t row0 = r0, rows; row0 < r1; row0 += rows) {
          int64_t k0, k1, q0 = -1, q1 = -1;
          kernel_rows(row0, &k0, &k1);
          if (R == 2 && row0 + 1 < r1) kernel_rows(row0 + 1, &q0, &q1);
          rows = q0 == k0 && q1 == k1 ? 2 : 1;
          interior(chunk, in_c, w_c, out_n, row0, rows, k0, k1, c0 > 0, pass_share);
        }
        chunk.prefetch = chunk.prefetch_end = nullptr;
        if (borders) border(chunk, edge_n + c0 * edge_cb_stride, w_c, out_n, r0, r1, c0 > 0);
      }
      if (io.epilogue != nullptr) {
        for (int64_t b = 0; b < OB; ++b) {
          float* p = out_n + b * a.out_ob_stride + r0 * OW * oc;
          io.epilogue(io.epilogue_ctx, io.out, p - io.out, (r1 - r0) * OW * oc);
        }
      }
    }
    return;
  }

  // Rows [seg_row0, seg_row1) of plane seg_plane ((n, block group) * OD + od) still need their border columns (and,
  // with borders, the interpreted epilogue): the run of this call's items in one plane, done when the run ends.
  int64_t seg_plane = -1, seg_row0 = 0, seg_row1 = 0;
  auto finish_segment = [&]() {
    if (seg_plane < 0) return;
    const int64_t od = seg_plane % OD, rest = seg_plane / OD;
    const int64_t ob0 = (rest % block_groups) * OB, n = rest / block_groups;
    const int64_t cb0 = (ob0 / group_blocks) * ncb;
    float* out_n = io.out + (n * out_blocks + ob0) * a.out_ob_stride + od * out_slice;
    TileArgs t = a;
    t.ob = ob0;
    int64_t kd0, slice;
    t.kd = DepthTaps(wl, od, &kd0, &slice);
    border(t, io.edge + (n * in_blocks + cb0) * edge_cb_stride + slice * edge_slice,
           io.weight + ob0 * a.w_ob_stride + kd0 * a.w_kd_stride, out_n, seg_row0, seg_row1, false);
    if (io.epilogue != nullptr) {
      for (int64_t b = 0; b < OB; ++b) {
        float* p = out_n + b * a.out_ob_stride + seg_row0 * OW * oc;
        io.epilogue(io.epilogue_ctx, io.out, p - io.out, (seg_row1 - seg_row0) * OW * oc);
      }
    }
    seg_plane = -1;
  };
  for (int64_t item = begin; item < end; ++item) {
    const int64_t row0 = (item % row_groups) * R, plane = item / row_groups;
    const int64_t od = plane % OD, rest = plane / OD;
    const int64_t ob0 = (rest % block_groups) * OB, n = rest / block_groups;
    const int64_t cb0 = (ob0 / group_blocks) * ncb;
    TileArgs ai = a;
    ai.ob = ob0;
    int64_t kd0, slice;
    ai.kd = DepthTaps(wl, od, &kd0, &slice);
    const float* data_n = io.data + (n * in_blocks + cb0) * a.in_cb_stride + slice * in_slice;
    const float* weight = io.weight + ob0 * a.w_ob_stride + kd0 * a.w_kd_stride;
    float* out_n = io.out + (n * out_blocks + ob0) * a.out_ob_stride + od * out_slice;
    // This thread's next item starts another block group: prefetch its weights, a share per tile of this one.
    const int64_t next_ob0 = ((rest + 1) % block_groups) * OB;
    const bool next_group = item + 1 < end && (item + 1) % (row_groups * OD) == 0 && next_ob0 != ob0;
    const char* pf_begin = next_group ? reinterpret_cast<const char*>(io.weight + next_ob0 * a.w_ob_stride) : nullptr;
    int64_t pf_bytes = next_group ? OB * a.w_ob_stride * static_cast<int64_t>(sizeof(float)) : 0;
    if (!next_group && io.next_weight != nullptr) {  // the caller's next call's weights, a slice per item
      const int64_t bytes = io.next_weight_floats * static_cast<int64_t>(sizeof(float));
      const int64_t per = (bytes / (end - begin) + 63) / 64 * 64, lo = std::min(bytes, (item - begin) * per);
      pf_begin = reinterpret_cast<const char*>(io.next_weight) + lo;
      pf_bytes = std::min(bytes, lo + per) - lo;
    }
    auto share = [&](int64_t t, int64_t ntiles) {  // tile t's slice of the lines
      const int64_t per = (pf_bytes / ntiles + 63) / 64 * 64;
      ai.prefetch = pf_begin ? pf_begin + t * per : nullptr;
      ai.prefetch_end = pf_begin ? pf_begin + std::min(pf_bytes, (t + 1) * per) : nullptr;
    };
    float* out_row;
    int64_t count;
    if (plan.flat_pixels) {
      const int64_t p0 = row0 * plan.row_length;
      count = OH * OW - p0 < plan.row_length ? OH * OW - p0 : plan.row_length;
      out_row = out_n + p0 * oc;
      const float* in = data_n + p0 * ic;
      const int64_t ntiles = (count + tmax - 1) / tmax;
      int64_t col = 0;
      for (int64_t t = 0; t < ntiles; ++t) {
        const int64_t width = count / ntiles + (t < count % ntiles ? 1 : 0);
        share(t, ntiles);
        tiles1[width](ai, in + col * ic, 0, weight, out_row + col * oc, 0, false);
        col += width;
      }
    } else {
      const int64_t rows = OH - row0 < R ? OH - row0 : R;
      count = rows * OW;
      out_row = out_n + row0 * OW * oc;
      interior_rows(ai, data_n, weight, out_n, row0, rows, false, share);
      if (borders) {
        if (plane != seg_plane || row0 != seg_row1) {
          finish_segment();
          seg_plane = plane, seg_row0 = row0;
        }
        seg_row1 = row0 + rows;
        continue;  // the segment's epilogue runs once its border columns are done
      }
    }
    if (io.epilogue != nullptr) {
      for (int64_t b = 0; b < OB; ++b) {
        float* p = out_row + b * a.out_ob_stride;
        io.epilogue(io.epilogue_ctx, io.out, p - io.out, count * oc);
      }
    }
  }
  finish_segment();
}

}  // namespace topi
}  // namespace tvmlite
