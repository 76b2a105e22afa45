/*!
 * \file conv2d_nchwc.cc
 * \brief The AVX-512 blocked conv2d (out block 16): a direct convolution with its accumulators in registers.
 *
 * Algorithm (the shape of oneDNN's and LIBXSMM's direct convolutions, without a JIT):
 *   an item is (n, OB output blocks, one output row); the row is cut into tiles of T columns (T <= 14, the tiles
 *   of a row balanced: 56 = 4 x 14, 7 = 7);
 *   a tile keeps T x OB zmm accumulators (<= 28 of the 32) and walks input-channel blocks, valid kernel rows, kernel
 *   columns and the ic channels of a block; each step loads OB weight vectors (16 output channels each) and, per
 *   column, broadcasts one input value and issues OB FMAs. Per step: OB + T loads for T x OB FMAs.
 *   The input column step (stride_w * ic floats) is a template constant for the common blocks, so a column's
 *   broadcast is a load at a fixed displacement.
 * Padding never reaches the inner loops: kernel rows outside the input are dropped per output row (the weight
 * pointer starts at the first valid one), and a tile whose columns read left/right padding reads a zero-padded copy
 * of just the input it needs (thread-local scratch). The epilogue runs on each finished row of each output block
 * (OW x 16 contiguous floats, still in L1).
 * A 1x1 stride-1 unpadded conv is a GEMM over pixels: its rows are runs of the flattened plane.
 *
 * Everything here is in an anonymous namespace except the entry point (this file is compiled with -mavx512f).
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/conv2d.h>

#include <cstdlib>
#include <cstring>

namespace tvmlite {
namespace topi {
namespace {

constexpr int kLanes = 16;
constexpr int kMaxTile = 14;

/*! \brief What every tile of one call shares. */
struct TileArgs {
  int64_t ncb;          // input channel blocks per group
  int64_t kw_loop;      // kernel columns walked by the kw loop (1 when kw and c are flattened)
  int64_t c_loop;       // channels walked by the inner loop (ic, or KW * ic when dilation_w == 1)
  int64_t kw_step;      // input floats between kernel columns (dilation_w * ic)
  int64_t col_step;     // input floats between output columns (stride_w * ic)
  int64_t w_ob_stride;  // weight floats between output blocks
  int64_t w_cb_stride;  // weight floats between input channel blocks
  int64_t w_kh_stride;  // weight floats between kernel rows
  int64_t w_kw_stride;  // weight floats between kernel columns (ic * 16)
  int64_t out_ob_stride;
};

using TileFn = void (*)(const TileArgs&, const float* in, int64_t in_cb_stride, int64_t in_kh_stride, int64_t nkh,
                        const float* w, float* out);

/*!
 * \brief T output columns x OB output blocks. in: the input at (first channel block, first valid kernel row, the
 * tile's first column); w: the weights at (first output block, first channel block, first valid kernel row).
 */
template <int T, int OB, int CS>
void Tile(const TileArgs& a, const float* in, int64_t in_cb_stride, int64_t in_kh_stride, int64_t nkh,
          const float* w, float* out) {
  __m512 acc[T][OB];
#pragma GCC unroll 28
  for (int j = 0; j < T; ++j) {
#pragma GCC unroll 4
    for (int b = 0; b < OB; ++b) acc[j][b] = _mm512_setzero_ps();
  }
  const int64_t cs = CS ? CS : a.col_step;
  const int64_t wob = a.w_ob_stride;
  for (int64_t cb = 0; cb < a.ncb; ++cb) {
    for (int64_t kh = 0; kh < nkh; ++kh) {
      const float* irow = in + cb * in_cb_stride + kh * in_kh_stride;
      const float* wrow = w + cb * a.w_cb_stride + kh * a.w_kh_stride;
      for (int64_t kw = 0; kw < a.kw_loop; ++kw) {
        const float* x = irow + kw * a.kw_step;
        const float* wp = wrow + kw * a.w_kw_stride;
        for (int64_t c = 0; c < a.c_loop; ++c, ++x, wp += kLanes) {
          __m512 wv[OB];
#pragma GCC unroll 4
          for (int b = 0; b < OB; ++b) wv[b] = _mm512_loadu_ps(wp + b * wob);
#pragma GCC unroll 28
          for (int j = 0; j < T; ++j) {
            __m512 xv = _mm512_set1_ps(x[j * cs]);
#pragma GCC unroll 4
            for (int b = 0; b < OB; ++b) acc[j][b] = _mm512_fmadd_ps(xv, wv[b], acc[j][b]);
          }
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int b = 0; b < OB; ++b) {
#pragma GCC unroll 28
    for (int j = 0; j < T; ++j) _mm512_storeu_ps(out + b * a.out_ob_stride + j * kLanes, acc[j][b]);
  }
}

template <int T, int OB, int CS>
constexpr TileFn Pick() {
  if constexpr (T * OB <= 28) {
    return &Tile<T, OB, CS>;
  } else {
    return nullptr;
  }
}

#define TVMLITE_CONV_TILES(OB, CS)                                                                              \
  {                                                                                                              \
    nullptr, Pick<1, OB, CS>(), Pick<2, OB, CS>(), Pick<3, OB, CS>(), Pick<4, OB, CS>(), Pick<5, OB, CS>(),      \
        Pick<6, OB, CS>(), Pick<7, OB, CS>(), Pick<8, OB, CS>(), Pick<9, OB, CS>(), Pick<10, OB, CS>(),          \
        Pick<11, OB, CS>(), Pick<12, OB, CS>(), Pick<13, OB, CS>(), Pick<14, OB, CS>()                           \
  }
#define TVMLITE_CONV_TILES_CS(CS) \
  { TVMLITE_CONV_TILES(1, CS), TVMLITE_CONV_TILES(2, CS) }

// [column step][OB - 1][T]: column steps 16 (ic 16, stride 1), 32 (ic 16, stride 2), 8 (ic 8 / ic 4 stride 2),
// 6 (the stem: ic 3, stride 2), anything else through the runtime step.
constexpr int kColSteps[] = {0, 16, 32, 8, 6};
const TileFn kTiles[5][2][kMaxTile + 1] = {TVMLITE_CONV_TILES_CS(0), TVMLITE_CONV_TILES_CS(16),
                                           TVMLITE_CONV_TILES_CS(32), TVMLITE_CONV_TILES_CS(8),
                                           TVMLITE_CONV_TILES_CS(6)};
#undef TVMLITE_CONV_TILES_CS
#undef TVMLITE_CONV_TILES

/*! \brief A thread's scratch for zero-padded input patches; grows, freed at thread exit. */
struct Scratch {
  float* data = nullptr;
  int64_t size = 0;
  ~Scratch() { std::free(data); }
  float* Get(int64_t n) {
    if (n > size) {
      std::free(data);
      size = n + 1024;
      data = static_cast<float*>(std::aligned_alloc(64, ((size * sizeof(float) + 63) / 64) * 64));
      if (data == nullptr) size = 0;
    }
    return data;
  }
};

/*!
 * \brief Copy the input a tile reads into dst [cb][kh][span][ic], zeros where it falls in the padding. src: the
 * input at (n, first channel block of the group, first valid input row).
 */
void CopyPatch(const Conv2DWorkload& wl, const float* src, int64_t ncb, int64_t nkh, int64_t iw_begin, int64_t span,
               float* dst) {
  const int64_t ic = wl.in_block, W = wl.in_width;
  const int64_t lo = iw_begin < 0 ? -iw_begin : 0;                           // first patch column inside
  const int64_t hi = iw_begin + span > W ? W - iw_begin : span;              // one past the last inside
  for (int64_t cb = 0; cb < ncb; ++cb) {
    for (int64_t kh = 0; kh < nkh; ++kh) {
      const float* s = src + cb * wl.in_height * W * ic + kh * wl.dilation_h * W * ic;
      if (lo > 0) std::memset(dst, 0, sizeof(float) * (lo < span ? lo : span) * ic);
      if (hi > lo) std::memcpy(dst + lo * ic, s + (iw_begin + lo) * ic, sizeof(float) * (hi - lo) * ic);
      if (hi < span) {
        int64_t from = hi > lo ? hi : (lo < span ? lo : span);
        std::memset(dst + from * ic, 0, sizeof(float) * (span - from) * ic);
      }
      dst += span * ic;
    }
  }
}

}  // namespace

void Conv2DNCHWcAVX512(const Conv2DWorkload& wl, const Conv2DPlan& plan, const Conv2DTensors& io, int64_t begin,
                       int64_t end) {
  static thread_local Scratch scratch;
  const int64_t ic = wl.in_block, oc = kLanes;
  const int64_t H = wl.in_height, W = wl.in_width, OH = wl.out_height, OW = wl.out_width;
  const int64_t KH = wl.kernel_h, KW = wl.kernel_w;
  const int64_t in_blocks = wl.in_channels / ic, out_blocks = wl.out_channels / oc;
  const int64_t ncb = wl.in_channels / wl.groups / ic;
  const int64_t group_blocks = wl.out_channels / wl.groups / oc;
  const int64_t OB = plan.out_blocks_per_item, block_groups = out_blocks / OB;
  const int64_t tmax = plan.tile_width;

  TileArgs a;
  a.ncb = ncb;
  const bool flat_kw = wl.dilation_w == 1;  // kernel columns and channels are one contiguous run
  a.kw_loop = flat_kw ? 1 : KW;
  a.c_loop = flat_kw ? KW * ic : ic;
  a.kw_step = wl.dilation_w * ic;
  a.col_step = wl.stride_w * ic;
  a.w_kw_stride = ic * oc;
  a.w_kh_stride = KW * ic * oc;
  a.w_cb_stride = KH * KW * ic * oc;
  a.w_ob_stride = ncb * KH * KW * ic * oc;
  a.out_ob_stride = OH * OW * oc;
  int cs_index = 0;
  for (int i = 1; i < 5; ++i) {
    if (kColSteps[i] == a.col_step) cs_index = i;
  }
  const TileFn* tiles = kTiles[cs_index][OB - 1];
  const int64_t plane = H * W * ic;

  for (int64_t item = begin; item < end; ++item) {
    const int64_t row = item % plan.rows;
    const int64_t rest = item / plan.rows;
    const int64_t ob0 = (rest % block_groups) * OB, n = rest / block_groups;
    const int64_t cb0 = (ob0 / group_blocks) * ncb;
    const float* data_n = io.data + (n * in_blocks + cb0) * plane;
    const float* weight = io.weight + ob0 * a.w_ob_stride;
    float* out_n = io.out + (n * out_blocks + ob0) * a.out_ob_stride;
    float* out_row;
    int64_t count;
    if (plan.flat_pixels) {
      const int64_t p0 = row * plan.row_length;
      count = OH * OW - p0 < plan.row_length ? OH * OW - p0 : plan.row_length;
      out_row = out_n + p0 * oc;
      const float* in = data_n + p0 * ic;
      const int64_t ntiles = (count + tmax - 1) / tmax;
      int64_t col = 0;
      for (int64_t t = 0; t < ntiles; ++t) {
        const int64_t width = count / ntiles + (t < count % ntiles ? 1 : 0);
        tiles[width](a, in + col * ic, plane, 0, 1, weight, out_row + col * oc);
        col += width;
      }
    } else {
      const int64_t oh = row;
      const int64_t ih0 = oh * wl.stride_h - wl.pad_top;
      const int64_t kh_lo = ih0 >= 0 ? 0 : (-ih0 + wl.dilation_h - 1) / wl.dilation_h;
      int64_t kh_hi = H - 1 - ih0 < 0 ? 0 : (H - 1 - ih0) / wl.dilation_h + 1;
      if (kh_hi > KH) kh_hi = KH;
      const int64_t nkh = kh_hi > kh_lo ? kh_hi - kh_lo : 0;
      const float* in_row = nkh ? data_n + (ih0 + kh_lo * wl.dilation_h) * W * ic : data_n;
      const float* w_row = weight + kh_lo * a.w_kh_stride;
      count = OW;
      out_row = out_n + oh * OW * oc;
      const int64_t ntiles = (OW + tmax - 1) / tmax;
      int64_t ow0 = 0;
      for (int64_t t = 0; t < ntiles; ++t) {
        const int64_t width = OW / ntiles + (t < OW % ntiles ? 1 : 0);
        const int64_t iw_begin = ow0 * wl.stride_w - wl.pad_left;
        const int64_t span = (width - 1) * wl.stride_w + (KW - 1) * wl.dilation_w + 1;
        if (iw_begin >= 0 && iw_begin + span <= W) {
          tiles[width](a, in_row + iw_begin * ic, plane, wl.dilation_h * W * ic, nkh, w_row, out_row + ow0 * oc);
        } else {
          float* patch = scratch.Get(ncb * nkh * span * ic + 1);
          if (patch == nullptr) std::abort();  // out of memory for a few KB: nothing sane left to do
          CopyPatch(wl, in_row, ncb, nkh, iw_begin, span, patch);
          tiles[width](a, patch, nkh * span * ic, span * ic, nkh, w_row, out_row + ow0 * oc);
        }
        ow0 += width;
      }
    }
    if (io.epilogue != nullptr) {
      for (int64_t b = 0; b < OB; ++b) {
        float* p = out_row + b * a.out_ob_stride;
        io.epilogue(io.epilogue_ctx, io.out, p - io.out, count * oc);
      }
    }
  }
}

}  // namespace topi
}  // namespace tvmlite
