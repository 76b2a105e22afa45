/*!
 * \file conv2d_nchwc.cc
 * \brief The AVX2 + FMA blocked conv2d (out block 8, or 16 as two ymm halves): the AVX-512 file's algorithm with
 * 8 lanes and 16 registers (at most 12 accumulators).
 *
 * Algorithm (the shape of oneDNN's and LIBXSMM's direct convolutions, without a JIT):
 *   an item is (n, OB output blocks, one output row); the row is cut into tiles of T columns (T <= 12, the tiles
 *   of a row balanced);
 *   a tile keeps T x OB x HV ymm accumulators (HV = oc / 8 halves; <= 12 of the 16) and walks input-channel
 *   blocks, kernel rows, kernel columns and the ic channels of a block; each step loads OB x HV weight
 *   vectors and, per column, broadcasts one input value and issues OB x HV FMAs.
 *   The input column step (stride_w * ic floats) is a template constant for the common blocks, so a column's
 *   broadcast is a load at a fixed displacement.
 * The input arrives zero-padded (conv2d_nchwc.cc pads it once per call), so no loop here tests a border. The
 * common epilogues (FusedTail) are applied in registers before the store; any other runs through the
 * interpreter on each finished row of each output block (OW x oc contiguous floats, still in L1).
 * A 1x1 stride-1 unpadded conv is a GEMM over pixels: its rows are runs of the flattened plane.
 * A 3-D conv (conv2d.h) adds a depth: an item is also one output depth slice, and the tile walks the kernel's
 * depth taps kd whose input slice is inside around the kernel rows (the sum stays in registers).
 *
 * Everything here is in an anonymous namespace except the entry point (this file is compiled with -mavx2 -mfma).
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/conv2d.h>

namespace tvmlite {
namespace topi {
namespace {

constexpr int kLanes = 8;
constexpr int kMaxTile = 12;

/*! \brief What every tile of one call shares. */
struct TileArgs {
  int64_t ncb;          // input channel blocks per group
  int64_t kd;           // kernel depth taps this tile walks (1 for a 2-D conv; 0 when every tap is in padding)
  int64_t kh;           // kernel rows
  int64_t in_cb_stride; // input floats between channel blocks
  int64_t in_kd_stride; // input floats between kernel depth taps (dilation_d * H * W * ic)
  int64_t in_kh_stride; // input floats between kernel rows (dilation_h * W * ic)
  int64_t kw_loop;      // kernel columns walked by the kw loop (1 when kw and c are flattened)
  int64_t c_loop;       // channels walked by the inner loop (ic, or KW * ic when dilation_w == 1)
  int64_t kw_step;      // input floats between kernel columns (dilation_w * ic)
  int64_t col_step;     // input floats between output columns (stride_w * ic)
  int64_t w_ob_stride;  // weight floats between output blocks
  int64_t w_cb_stride;  // weight floats between input channel blocks
  int64_t w_kd_stride;  // weight floats between kernel depth taps
  int64_t w_kh_stride;  // weight floats between kernel rows
  int64_t w_kw_stride;  // weight floats between kernel columns (ic * oc)
  int64_t out_ob_stride;
  const FusedTail* tail;  // the epilogue in registers, or null (plain store)
  const float* out_base;        // the whole output (a full-shape epilogue input is read at the same offset)
  int64_t ob;                   // the tile's first output block (its bias)
};

using TileFn = void (*)(const TileArgs&, const float* in, const float* w, float* out);

/*! \brief v, then the tail's adds and activation, exactly as the interpreter computes them (float32, in order). */
__attribute__((always_inline)) inline __m256 ApplyTail(const FusedTail& t, __m256 v, int64_t channel_off,
                                                       int64_t full_off) {
  for (int k = 0; k < 2; ++k) {
    if (t.add_kind[k] == FusedTail::kChannel) v = _mm256_add_ps(v, _mm256_loadu_ps(t.add[k] + channel_off));
    if (t.add_kind[k] == FusedTail::kFull) v = _mm256_add_ps(v, _mm256_loadu_ps(t.add[k] + full_off));
  }
  if (t.act == FusedTail::kRelu) {  // x < 0 ? 0 : x (NaN and -0 kept)
    const __m256 zero = _mm256_setzero_ps();
    v = _mm256_blendv_ps(v, zero, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
  } else if (t.act == FusedTail::kClip) {  // x < lo ? lo : (x > hi ? hi : x)
    const __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
    const __m256 below = _mm256_cmp_ps(v, lo, _CMP_LT_OQ);
    const __m256 above = _mm256_andnot_ps(below, _mm256_cmp_ps(v, hi, _CMP_GT_OQ));
    v = _mm256_blendv_ps(_mm256_blendv_ps(v, lo, below), hi, above);
  }
  return v;
}

/*!
 * \brief T output columns x OB output blocks. in: the input at (first channel block of the group, the tile's first
 * input row and column); w: the weights at (first output block, first channel block).
 */
template <int T, int OB, int HV, int CS>
void Tile(const TileArgs& a, const float* in, const float* w, float* out) {
  constexpr int NV = OB * HV;  // vectors per column
  constexpr int OC = HV * kLanes;
  __m256 acc[T][NV];
#pragma GCC unroll 12
  for (int j = 0; j < T; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[j][v] = _mm256_setzero_ps();
  }
  const int64_t cs = CS ? CS : a.col_step;
  const int64_t wob = a.w_ob_stride;
  for (int64_t cb = 0; cb < a.ncb; ++cb) {
    for (int64_t kd = 0; kd < a.kd; ++kd) {
      for (int64_t kh = 0; kh < a.kh; ++kh) {
        const float* irow = in + cb * a.in_cb_stride + kd * a.in_kd_stride + kh * a.in_kh_stride;
        const float* wrow = w + cb * a.w_cb_stride + kd * a.w_kd_stride + kh * a.w_kh_stride;
        for (int64_t kw = 0; kw < a.kw_loop; ++kw) {
          const float* x = irow + kw * a.kw_step;
          const float* wp = wrow + kw * a.w_kw_stride;
          for (int64_t c = 0; c < a.c_loop; ++c, ++x, wp += OC) {
            __m256 wv[NV];
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) wv[v] = _mm256_loadu_ps(wp + (v / HV) * wob + (v % HV) * kLanes);
#pragma GCC unroll 12
            for (int j = 0; j < T; ++j) {
              __m256 xv = _mm256_broadcast_ss(x + j * cs);
#pragma GCC unroll 4
              for (int v = 0; v < NV; ++v) acc[j][v] = _mm256_fmadd_ps(xv, wv[v], acc[j][v]);
            }
          }
        }
      }
    }
  }
  if (a.tail == nullptr) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
#pragma GCC unroll 12
      for (int j = 0; j < T; ++j) {
        _mm256_storeu_ps(out + (v / HV) * a.out_ob_stride + j * OC + (v % HV) * kLanes, acc[j][v]);
      }
    }
    return;
  }
  // Written out here, not in a helper taking acc by reference: that would keep the accumulators in memory.
  const FusedTail& tail = *a.tail;
  const int64_t base = out - a.out_base;
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int64_t channel_off = (a.ob + v / HV) * OC + (v % HV) * kLanes;  // this vector's channels
#pragma GCC unroll 12
    for (int j = 0; j < T; ++j) {
      const int64_t off = (v / HV) * a.out_ob_stride + j * OC + (v % HV) * kLanes;
      _mm256_storeu_ps(out + off, ApplyTail(tail, acc[j][v], channel_off, base + off));
    }
  }
}

template <int T, int OB, int HV, int CS>
constexpr TileFn Pick() {
  if constexpr (T * OB * HV <= 12) {
    return &Tile<T, OB, HV, CS>;
  } else {
    return nullptr;
  }
}

#define TVMLITE_CONV_TILES(OB, HV, CS)                                                                        \
  {                                                                                                            \
    nullptr, Pick<1, OB, HV, CS>(), Pick<2, OB, HV, CS>(), Pick<3, OB, HV, CS>(), Pick<4, OB, HV, CS>(),       \
        Pick<5, OB, HV, CS>(), Pick<6, OB, HV, CS>(), Pick<7, OB, HV, CS>(), Pick<8, OB, HV, CS>(),            \
        Pick<9, OB, HV, CS>(), Pick<10, OB, HV, CS>(), Pick<11, OB, HV, CS>(), Pick<12, OB, HV, CS>()          \
  }
#define TVMLITE_CONV_TILES_CS(CS)                                                                           \
  {                                                                                                          \
    {TVMLITE_CONV_TILES(1, 1, CS), TVMLITE_CONV_TILES(2, 1, CS)}, {                                          \
      TVMLITE_CONV_TILES(1, 2, CS), TVMLITE_CONV_TILES(2, 2, CS)                                             \
    }                                                                                                        \
  }

// [column step][HV - 1][OB - 1][T]: column steps 8 (ic 8, stride 1), 16 (ic 16 / ic 8 stride 2), 32 (ic 16,
// stride 2), 6 (the stem: ic 3, stride 2), anything else through the runtime step.
constexpr int kColSteps[] = {0, 8, 16, 32, 6};
const TileFn kTiles[5][2][2][kMaxTile + 1] = {TVMLITE_CONV_TILES_CS(0), TVMLITE_CONV_TILES_CS(8),
                                              TVMLITE_CONV_TILES_CS(16), TVMLITE_CONV_TILES_CS(32),
                                              TVMLITE_CONV_TILES_CS(6)};
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
  const int64_t hi = last < 0 ? 0 : (wl.kernel_d < last / dd + 1 ? wl.kernel_d : last / dd + 1);
  *kd0 = lo < hi ? lo : 0;
  *slice = lo < hi ? first + lo * dd : 0;
  return lo < hi ? hi - lo : 0;
}

}  // namespace

void Conv2DNCHWcAVX2(const Conv2DWorkload& wl, const Conv2DPlan& plan, const Conv2DTensors& io, int64_t begin,
                     int64_t end) {
  const int64_t ic = wl.in_block, oc = wl.out_block, halves = oc / kLanes;
  const int64_t H = wl.in_height, W = wl.in_width, OH = wl.out_height, OW = wl.out_width;
  const int64_t KD = wl.kernel_d, KH = wl.kernel_h, KW = wl.kernel_w, OD = wl.out_depth;
  const int64_t in_blocks = wl.in_channels / ic, out_blocks = wl.out_channels / oc;
  const int64_t ncb = wl.in_channels / wl.groups / ic;
  const int64_t group_blocks = wl.out_channels / wl.groups / oc;
  const int64_t OB = plan.out_blocks_per_item, block_groups = out_blocks / OB;
  const int64_t tmax = plan.tile_width;
  const int64_t in_slice = H * W * ic, out_slice = OH * OW * oc;  // floats per depth slice of a channel block

  TileArgs a;
  a.ncb = ncb;
  a.kd = KD;
  a.kh = KH;
  a.in_cb_stride = wl.in_plane_stride ? wl.in_plane_stride : wl.in_depth * in_slice;
  a.in_kd_stride = wl.dilation_d * in_slice;
  a.in_kh_stride = wl.dilation_h * W * ic;
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
  a.tail = io.tail;
  a.out_base = io.out;
  a.ob = 0;
  int cs_index = 0;
  for (int i = 1; i < 5; ++i) {
    if (kColSteps[i] == a.col_step) cs_index = i;
  }
  const TileFn* tiles = kTiles[cs_index][halves - 1][OB - 1];

  for (int64_t item = begin; item < end; ++item) {
    const int64_t row = item % plan.rows;
    const int64_t od = (item / plan.rows) % OD, rest = item / plan.rows / OD;
    const int64_t ob0 = (rest % block_groups) * OB, n = rest / block_groups;
    const int64_t cb0 = (ob0 / group_blocks) * ncb;
    TileArgs ai = a;
    ai.ob = ob0;
    int64_t kd0, slice;
    ai.kd = DepthTaps(wl, od, &kd0, &slice);
    const float* data_n = io.data + (n * in_blocks + cb0) * a.in_cb_stride + slice * in_slice;
    const float* weight = io.weight + ob0 * a.w_ob_stride + kd0 * a.w_kd_stride;
    float* out_n = io.out + (n * out_blocks + ob0) * a.out_ob_stride + od * out_slice;
    const float* in;
    float* out_row;
    int64_t count;
    if (plan.flat_pixels) {
      const int64_t p0 = row * plan.row_length;
      count = OH * OW - p0 < plan.row_length ? OH * OW - p0 : plan.row_length;
      out_row = out_n + p0 * oc;
      in = data_n + p0 * ic;
    } else {
      count = OW;
      out_row = out_n + row * OW * oc;
      in = data_n + row * wl.stride_h * W * ic;
    }
    const int64_t ntiles = (count + tmax - 1) / tmax;
    int64_t col = 0;
    for (int64_t t = 0; t < ntiles; ++t) {
      const int64_t width = count / ntiles + (t < count % ntiles ? 1 : 0);
      tiles[width](ai, in + col * a.col_step, weight, out_row + col * oc);
      col += width;
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
