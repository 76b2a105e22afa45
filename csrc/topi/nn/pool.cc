/*!
 * \file pool.cc
 * \brief Windowed and global 2-D pooling: topi.nn.max_pool2d, topi.nn.avg_pool2d (relay's nn.max_pool2d and
 * nn.avg_pool2d), topi.nn.global_avg_pool2d and topi.nn.global_max_pool2d (nn.global_avg_pool /
 * nn.global_max_pool; unblocked, any number of spatial dims), and topi.nn.pool2d / topi.nn.global_pool2d taking
 * `pool_type` ("max" | "avg") for callers that pick the kind at run time. All share one implementation.
 *
 *   f = topi.nn.avg_pool2d({"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1], "layout": "NCHW16c",
 *                          "ceil_mode": 1, "count_include_pad": 0})
 *   f(data, out)
 *
 * Shapes by layout (attr `layout`; the block c is the last dim):
 *   "NCHW"      data (N, C, H, W)          -> out (N, C, OH, OW)          global: (N, C, 1, 1)
 *   "NCHW{c}c"  data (N, C/c, H, W, c)     -> out (N, C/c, OH, OW, c)     global: (N, C/c, 1, 1, c)
 * OH, OW follow relay's relation exactly (csrc/relay/op/nn/window.h WindowOut): floor, or with ceil_mode ceil
 * minus a last window that would start in the end padding.
 *
 * Semantics (the numpy references in tvmlite/relay/op/nn/_nn.py): padding never takes part in max; avg divides
 * the sum of the window's positions inside the input by how many there are (count_include_pad = 0), or by how
 * many lie inside the input plus its explicit padding (count_include_pad = 1; a ceil_mode overhang never counts).
 *
 * Algorithm: one task per output row of one (n, channel block) plane. Each output pixel clips its window to the
 * valid taps with per-column ranges computed once per call (no padding is materialised, no per-tap branch), and
 * reduces c lanes at once: one AVX-512 (c % 16 == 0) or AVX2 (c % 8 == 0) register per pixel
 * (csrc/topi/x86/{avx512,avx2}/pool.cc), else a lane loop with a compile-time trip count for the usual blocks. Plain
 * NCHW (c = 1) instead sweeps each tap over the columns it is valid for, accumulating into the output row, so the loop
 * runs along W. The epilogue runs on each written row.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/scratch.h>
#include <tvmlite/topi/nn/pool.h>

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "window_attrs.h"

namespace tvmlite {
namespace topi {

namespace {

enum class PoolType { kMax, kAvg };

PoolType ParsePoolType(const KernelAttrs& attrs) {
  std::string t = attrs.GetString("pool_type");
  TVMLITE_CHECK_KIND(t == "max" || t == "avg", ValueError)
      << attrs.kernel() << ": pool_type must be 'max' or 'avg', got '" << t << "'";
  return t == "max" ? PoolType::kMax : PoolType::kAvg;
}

/*! \brief Taps k in [lo_k, hi_k) of a window starting at `start` (step d, K taps) whose position is in [lo, hi). */
struct TapRange {
  int64_t lo_k, hi_k;
  int64_t count() const { return hi_k - lo_k; }
};

TapRange Taps(int64_t start, int64_t K, int64_t d, int64_t lo, int64_t hi) {
  int64_t lo_k = start >= lo ? 0 : (lo - start + d - 1) / d;
  int64_t hi_k = start >= hi ? 0 : std::min(K, (hi - start + d - 1) / d);
  lo_k = std::min(lo_k, K);
  return {lo_k, std::max(lo_k, hi_k)};
}

/*! \brief The window geometry of one call. */
struct PoolGeom {
  int64_t H, W, OH, OW, c;
  int64_t KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
  bool include_pad;
  // avg: 1 / (taps per output column): over the valid columns, and over the padded ones (count_include_pad);
  // NaN for a column with none. The plain rows scale by them instead of dividing pixel by pixel.
  const float* inv_cols = nullptr;
  const float* inv_pad_cols = nullptr;
};

/*! \brief One output row oh of one plane: per column, the reduction over the valid taps. */
template <int kC, PoolType kType>
void PoolRow(const PoolGeom& g, const std::vector<TapRange>& cols, const std::vector<int64_t>& col_pad_count,
             const float* plane, float* out, int64_t oh) {
  constexpr int64_t kChunk = kC > 0 ? kC : 64;
  const int64_t c = kC > 0 ? kC : g.c;
  const int64_t ih0 = oh * g.sh - g.pt;
  const TapRange rows = Taps(ih0, g.KH, g.dh, 0, g.H);
  const int64_t row_pad_count = Taps(ih0, g.KH, g.dh, -g.pt, g.H + g.pb).count();
  for (int64_t ow = 0; ow < g.OW; ++ow) {
    const TapRange& cr = cols[ow];
    const int64_t iw0 = ow * g.sw - g.pl;
    float scale = 1.0f;
    if (kType == PoolType::kAvg) {
      int64_t n = g.include_pad ? row_pad_count * col_pad_count[ow] : rows.count() * cr.count();
      scale = n > 0 ? 1.0f / static_cast<float>(n) : std::numeric_limits<float>::quiet_NaN();
    }
    for (int64_t l0 = 0; l0 < c; l0 += kChunk) {
      const int64_t len = kC > 0 ? kC : std::min(kChunk, c - l0);
      float acc[kChunk];
      for (int64_t l = 0; l < len; ++l) {
        acc[l] = kType == PoolType::kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
      }
      for (int64_t kh = rows.lo_k; kh < rows.hi_k; ++kh) {
        const float* in_row = plane + (ih0 + kh * g.dh) * g.W * c + l0;
        for (int64_t kw = cr.lo_k; kw < cr.hi_k; ++kw) {
          const float* p = in_row + (iw0 + kw * g.dw) * c;
          if (kType == PoolType::kMax) {
            for (int64_t l = 0; l < len; ++l) acc[l] = p[l] > acc[l] ? p[l] : acc[l];
          } else {
            for (int64_t l = 0; l < len; ++l) acc[l] += p[l];
          }
        }
      }
      float* o = out + ow * c + l0;
      if (kType == PoolType::kMax) {
        for (int64_t l = 0; l < len; ++l) o[l] = acc[l];
      } else {
        for (int64_t l = 0; l < len; ++l) o[l] = acc[l] * scale;
      }
    }
  }
}

/*!
 * \brief Plain NCHW (c = 1): the output row is the accumulator and each tap (kh, kw) sweeps the columns it is valid
 * for, so the inner loop is a contiguous (stride 1) or strided max / add over the row, not a per-pixel window; avg
 * then scales the row by 1 / (rows) times each column's 1 / (columns), a vector multiply (a division per pixel
 * took 70% of the row).
 */
template <PoolType kType>
void PoolRowPlain(const PoolGeom& g, const std::vector<TapRange>& /*cols: g's inverses*/,
                  const std::vector<int64_t>& /*col_pad_count*/, const float* plane, float* out, int64_t oh) {
  const int64_t ih0 = oh * g.sh - g.pt;
  const TapRange rows = Taps(ih0, g.KH, g.dh, 0, g.H);
  const float init = kType == PoolType::kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  std::fill(out, out + g.OW, init);
  for (int64_t kh = rows.lo_k; kh < rows.hi_k; ++kh) {
    const float* in_row = plane + (ih0 + kh * g.dh) * g.W;
    for (int64_t kw = 0; kw < g.KW; ++kw) {
      const int64_t off = kw * g.dw - g.pl;  // column ow reads in_row[ow * sw + off]
      const int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
      const int64_t hi = g.W - 1 - off < 0 ? 0 : std::min(g.OW, (g.W - 1 - off) / g.sw + 1);
      if (g.sw == 1) {
        const float* src = in_row + off + lo;  // column lo + i reads src[i]
        float* dst = out + lo;
        for (int64_t i = 0; i < hi - lo; ++i) {
          if (kType == PoolType::kMax) {
            dst[i] = src[i] > dst[i] ? src[i] : dst[i];
          } else {
            dst[i] += src[i];
          }
        }
      } else {
        for (int64_t ow = lo; ow < hi; ++ow) {
          const float v = in_row[ow * g.sw + off];
          if (kType == PoolType::kMax) {
            out[ow] = v > out[ow] ? v : out[ow];
          } else {
            out[ow] += v;
          }
        }
      }
    }
  }
  if (kType == PoolType::kAvg) {
    const int64_t n = g.include_pad ? Taps(ih0, g.KH, g.dh, -g.pt, g.H + g.pb).count() : rows.count();
    const float row_inv = n > 0 ? 1.0f / static_cast<float>(n) : std::numeric_limits<float>::quiet_NaN();
    const float* col_inv = g.include_pad ? g.inv_pad_cols : g.inv_cols;
    for (int64_t ow = 0; ow < g.OW; ++ow) out[ow] *= row_inv * col_inv[ow];
  }
}

using PoolRowFn = void (*)(const PoolGeom&, const std::vector<TapRange>&, const std::vector<int64_t>&, const float*,
                           float*, int64_t);

/*!
 * \brief pick(kC) for c channels a point: kC = c for 16, 8, 4, 2 and 1 (loops of a constant trip count, which the
 * compiler unrolls and vectorises), 0 for any other c (the loops read c at run time).
 */
template <class Pick>
auto PickForChannels(int64_t c, Pick pick) {
  switch (c) {
    case 16: return pick(std::integral_constant<int, 16>());
    case 8: return pick(std::integral_constant<int, 8>());
    case 4: return pick(std::integral_constant<int, 4>());
    case 2: return pick(std::integral_constant<int, 2>());
    case 1: return pick(std::integral_constant<int, 1>());
    default: return pick(std::integral_constant<int, 0>());
  }
}

template <PoolType kType>
PoolRowFn PickPoolRow(int64_t c) {
  return PickForChannels(c, [](auto kC) -> PoolRowFn {
    if constexpr (kC == 1) return PoolRowPlain<kType>;
    else return PoolRow<kC, kType>;
  });
}

/*! \brief The validated data of a pooling call: (N, planes' channel blocks, H, W, c) whatever the layout. */
struct PoolData {
  const float* x;
  int64_t N, CB, H, W, c;
};

PoolData CheckData(const TensorArg& data, int64_t block, const std::string& layout) {
  PoolData d;
  d.x = data.Data<float>();
  const int rank = block == 0 ? 4 : 5;
  if (data.ndim() != rank) {
    data.Fail("must have rank " + std::to_string(rank) + " for layout " + layout + ", got rank " +
              std::to_string(data.ndim()));
  }
  d.N = data.dim(0), d.CB = data.dim(1), d.H = data.dim(2), d.W = data.dim(3);
  d.c = block == 0 ? 1 : data.dim(4);
  if (block != 0 && d.c != block) {
    data.Fail("has block " + std::to_string(d.c) + " in its last dim, but layout " + layout + " says " +
              std::to_string(block));
  }
  return d;
}

std::vector<int64_t> OutShape(const PoolData& d, int64_t block, int64_t OH, int64_t OW) {
  return block == 0 ? std::vector<int64_t>{d.N, d.CB, OH, OW} : std::vector<int64_t>{d.N, d.CB, OH, OW, d.c};
}

/*! \brief The window config of topi.nn.{max,avg}_pool2d, validated once at factory time. */
struct PoolConfig {
  std::string kernel;
  PoolType type;
  int64_t KH, KW;
  relay::Window<2> window;
  bool ceil_mode, include_pad;
  int64_t block;
  std::string layout;
  Isa isa;
  Epilogue epilogue;
};

int64_t PoolOutSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, bool ceil_mode) {
  const int64_t span = in + pb + pe - d * (k - 1) - 1;
  if (span < 0) return -1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

void RunPool(const PoolConfig& cfg, const KernelArgs& args) {
  TensorArg data = args.Input(0, "data");
  TensorArg out = args.Output();
  PoolData d = CheckData(data, cfg.block, cfg.layout);
  float* y = out.Data<float>();
  const relay::Window<2>& w = cfg.window;
  PoolGeom g;
  g.H = d.H, g.W = d.W, g.c = d.c, g.KH = cfg.KH, g.KW = cfg.KW;
  g.sh = w.stride[0], g.sw = w.stride[1], g.dh = w.dilation[0], g.dw = w.dilation[1];
  g.pt = w.pad_begin[0], g.pl = w.pad_begin[1], g.pb = w.pad_end[0], g.pr = w.pad_end[1];
  g.include_pad = cfg.include_pad;
  g.OH = PoolOutSize(d.H, g.KH, g.sh, g.dh, g.pt, g.pb, cfg.ceil_mode);
  g.OW = PoolOutSize(d.W, g.KW, g.sw, g.dw, g.pl, g.pr, cfg.ceil_mode);
  if (g.OH < 1 || g.OW < 1) {
    TVMLITE_THROW(ValueError) << cfg.kernel << ": the " << g.KH << "x" << g.KW << " window (dilation " << g.dh << ", "
                              << g.dw << ") does not fit the padded " << d.H << "x" << d.W << " input";
  }
  std::vector<int64_t> shape = OutShape(d, cfg.block, g.OH, g.OW);
  out.CheckShape(shape);
  BoundEpilogue bound = cfg.epilogue.Bind(shape, args.Rest(1), cfg.kernel);
  std::vector<TapRange> cols(g.OW);
  std::vector<int64_t> col_pad_count(g.OW);
  for (int64_t ow = 0; ow < g.OW; ++ow) {
    const int64_t iw0 = ow * g.sw - g.pl;
    cols[ow] = Taps(iw0, g.KW, g.dw, 0, g.W);
    col_pad_count[ow] = Taps(iw0, g.KW, g.dw, -g.pl, g.W + g.pr).count();
  }
  void (*isa_row)(const PoolRowArgs&) = nullptr;
  if (cfg.isa == Isa::kAVX512 && d.c % 16 == 0 && d.c > 1) {
    isa_row = PoolRowAVX512;
  } else if (cfg.isa >= Isa::kAVX2 && d.c % 8 == 0 && d.c > 1) {
    isa_row = PoolRowAVX2;
  }
  const PoolRowFn row_fn =
      cfg.type == PoolType::kMax ? PickPoolRow<PoolType::kMax>(d.c) : PickPoolRow<PoolType::kAvg>(d.c);
  std::vector<float> inv_cols(g.OW), inv_pad_cols(g.OW);
  for (int64_t ow = 0; ow < g.OW; ++ow) {
    const int64_t n = cols[ow].count(), n_pad = col_pad_count[ow];
    inv_cols[ow] = n > 0 ? 1.0f / static_cast<float>(n) : std::numeric_limits<float>::quiet_NaN();
    inv_pad_cols[ow] = n_pad > 0 ? 1.0f / static_cast<float>(n_pad) : std::numeric_limits<float>::quiet_NaN();
  }
  g.inv_cols = inv_cols.data(), g.inv_pad_cols = inv_pad_cols.data();
  std::vector<int64_t> col_lo(g.OW), col_hi(g.OW);
  for (int64_t ow = 0; ow < g.OW; ++ow) col_lo[ow] = cols[ow].lo_k, col_hi[ow] = cols[ow].hi_k;
  const int64_t row_len = g.OW * d.c, plane_len = d.H * d.W * d.c;
  const int64_t rows = d.N * d.CB * g.OH;
  const int64_t min_chunk = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_len * g.KH * g.KW));
  runtime::ParallelFor(
      rows,
      [&](int64_t begin, int64_t end) {
        // avg's 1 / count per output column of the row (the thread's buffer, kept across calls: scratch.h)
        static thread_local std::vector<float> scale_buf;
        float* scale = isa_row && cfg.type == PoolType::kAvg ? AlignedScratch(&scale_buf, g.OW) : nullptr;
        // The epilogue runs on runs of rows of at least 1024 values (a 7-wide NCHW row alone is too short).
        int64_t pending = begin;
        for (int64_t row = begin; row < end; ++row) {
          const float* plane = d.x + (row / g.OH) * plane_len;
          float* out_row = y + row * row_len;
          const int64_t oh = row % g.OH;
          if (isa_row) {
            const int64_t ih0 = oh * g.sh - g.pt;
            const TapRange taps = Taps(ih0, g.KH, g.dh, 0, g.H);
            if (scale != nullptr) {
              const int64_t row_pad_count = Taps(ih0, g.KH, g.dh, -g.pt, g.H + g.pb).count();
              for (int64_t ow = 0; ow < g.OW; ++ow) {
                const int64_t n = g.include_pad ? row_pad_count * col_pad_count[ow] : taps.count() * cols[ow].count();
                scale[ow] = n > 0 ? 1.0f / static_cast<float>(n) : std::numeric_limits<float>::quiet_NaN();
              }
            }
            PoolRowArgs a{plane, out_row, g.W,       g.OW,      d.c,           g.sw,          g.dw, g.pl,
                          g.dh,  ih0,     taps.lo_k, taps.hi_k, col_lo.data(), col_hi.data(), scale};
            isa_row(a);
          } else {
            row_fn(g, cols, col_pad_count, plane, out_row, oh);
          }
          if ((row + 1 - pending) * row_len >= 1024 || row + 1 == end) {
            bound.Apply(y, pending * row_len, (row + 1 - pending) * row_len);
            pending = row + 1;
          }
        }
      },
      min_chunk);
}

Function MakePool(const std::string& kernel, Map<String, Any> attrs_in, const PoolType* fixed) {
  KernelAttrs attrs(kernel, attrs_in);
  PoolConfig cfg;
  cfg.kernel = kernel;
  cfg.type = fixed ? *fixed : ParsePoolType(attrs);
  std::vector<int64_t> ps = attrs.GetInts("pool_size");
  TVMLITE_CHECK_KIND(ps.size() == 1 || ps.size() == 2, ValueError)
      << kernel << ": pool_size needs 1 or 2 values, got " << ps.size();
  cfg.KH = ps[0], cfg.KW = ps.back();
  TVMLITE_CHECK_KIND(cfg.KH >= 1 && cfg.KW >= 1 && cfg.KH <= relay::kMaxWindowValue && cfg.KW <= relay::kMaxWindowValue,
                     ValueError)
      << kernel << ": pool_size (" << cfg.KH << ", " << cfg.KW << ") must be positive";
  cfg.window = KernelWindow(attrs);
  const int64_t extent[2] = {cfg.window.dilation[0] * (cfg.KH - 1) + 1, cfg.window.dilation[1] * (cfg.KW - 1) + 1};
  for (int i = 0; i < 2; ++i) {
    TVMLITE_CHECK_KIND(cfg.window.pad_begin[i] < extent[i] && cfg.window.pad_end[i] < extent[i], ValueError)
        << kernel << ": padding (" << cfg.window.pad_begin[i] << ", " << cfg.window.pad_end[i] << ") of spatial dim "
        << i << " must be smaller than the pooling window (extent " << extent[i] << ")";
  }
  cfg.ceil_mode = attrs.GetInt("ceil_mode", 0) != 0;
  cfg.include_pad = attrs.GetInt("count_include_pad", 0) != 0;
  cfg.block = LayoutBlock(attrs, "layout");
  cfg.layout = attrs.GetString("layout", "NCHW");
  std::string out_layout = attrs.GetString("out_layout", "");
  TVMLITE_CHECK_KIND(out_layout.empty() || out_layout == cfg.layout, ValueError)
      << kernel << ": out_layout '" << out_layout << "' must be empty or the layout '" << cfg.layout << "'";
  cfg.isa = CpuIsa();
  cfg.epilogue = attrs.GetEpilogue();
  return MakeKernel(kernel, cfg.epilogue.num_inputs() + 2, [cfg](const KernelArgs& args) { RunPool(cfg, args); });
}

// --- global pooling ---------------------------------------------------------------------------------------------

template <int kC, PoolType kType>
void GlobalPlane(const float* x, int64_t hw, int64_t c_rt, float* out) {
  constexpr int64_t kChunk = kC > 0 ? kC : 64;
  const int64_t c = kC > 0 ? kC : c_rt;
  for (int64_t l0 = 0; l0 < c; l0 += kChunk) {
    const int64_t len = kC > 0 ? kC : std::min(kChunk, c - l0);
    if (kType == PoolType::kMax) {
      float acc[kChunk];
      for (int64_t l = 0; l < len; ++l) acc[l] = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < hw; ++i) {
        const float* p = x + i * c + l0;
        for (int64_t l = 0; l < len; ++l) acc[l] = p[l] > acc[l] ? p[l] : acc[l];
      }
      for (int64_t l = 0; l < len; ++l) out[l0 + l] = acc[l];
    } else {
      double acc[kChunk];  // the reference accumulates in float64: long planes would drift in float
      for (int64_t l = 0; l < len; ++l) acc[l] = 0.0;
      for (int64_t i = 0; i < hw; ++i) {
        const float* p = x + i * c + l0;
        for (int64_t l = 0; l < len; ++l) acc[l] += p[l];
      }
      for (int64_t l = 0; l < len; ++l) out[l0 + l] = static_cast<float>(acc[l] / static_cast<double>(hw));
    }
  }
}

/*! \brief c = 1: the plane is contiguous; four partial sums / maxima break the dependency chain. */
template <PoolType kType>
void GlobalPlaneScalar(const float* x, int64_t hw, int64_t, float* out) {
  if (kType == PoolType::kMax) {
    float m[4] = {-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
    int64_t i = 0;
    for (; i + 4 <= hw; i += 4) {
      for (int l = 0; l < 4; ++l) m[l] = x[i + l] > m[l] ? x[i + l] : m[l];
    }
    for (; i < hw; ++i) m[0] = x[i] > m[0] ? x[i] : m[0];
    *out = std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
  } else {
    double s[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= hw; i += 4) {
      for (int l = 0; l < 4; ++l) s[l] += x[i + l];
    }
    for (; i < hw; ++i) s[0] += x[i];
    *out = static_cast<float>(((s[0] + s[1]) + (s[2] + s[3])) / static_cast<double>(hw));
  }
}

using GlobalFn = void (*)(const float*, int64_t, int64_t, float*);

template <PoolType kType>
GlobalFn PickGlobal(int64_t c) {
  return PickForChannels(c, [](auto kC) -> GlobalFn {
    if constexpr (kC == 1) return GlobalPlaneScalar<kType>;
    else return GlobalPlane<kC, kType>;
  });
}

Function MakeGlobalPool(const std::string& kernel, Map<String, Any> attrs_in, const PoolType* fixed) {
  KernelAttrs attrs(kernel, attrs_in);
  const PoolType type = fixed ? *fixed : ParsePoolType(attrs);
  const int64_t block = LayoutBlock(attrs, "layout");
  std::string layout = attrs.GetString("layout", "");
  if (layout.empty()) layout = "NCHW";
  Epilogue epilogue = attrs.GetEpilogue();
  return MakeKernel(kernel, epilogue.num_inputs() + 2, [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data");
    TensorArg out = args.Output();
    PoolData d;
    std::vector<int64_t> shape;
    if (block == 0 && data.ndim() >= 3 && data.ndim() != 4) {
      // NC and one or three spatial dims (GlobalAveragePool on (N, C, L): a sequence model's mean over time;
      // (N, C, D, H, W)): the plane is every dim after C, as for NCHW.
      d = PoolData{data.Data<float>(), data.dim(0), data.dim(1), 1, 1, 1};
      shape = {d.N, d.CB};
      for (int i = 2; i < data.ndim(); ++i) d.H *= data.dim(i), shape.push_back(1);
    } else {
      d = CheckData(data, block, layout);
      shape = OutShape(d, block, 1, 1);
    }
    float* y = out.Data<float>();
    out.CheckShape(shape);
    if (d.H * d.W == 0 && d.N * d.CB * d.c > 0) data.Fail("has an empty spatial extent: nothing to pool");
    BoundEpilogue bound = epilogue.Bind(shape, args.Rest(1), kernel);
    const GlobalFn fn = type == PoolType::kMax ? PickGlobal<PoolType::kMax>(d.c) : PickGlobal<PoolType::kAvg>(d.c);
    const int64_t hw = d.H * d.W;
    runtime::ParallelFor(
        d.N * d.CB,
        [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) fn(d.x + p * hw * d.c, hw, d.c, y + p * d.c);
          bound.Apply(y, begin * d.c, (end - begin) * d.c);
        },
        std::max<int64_t>(1, 32768 / std::max<int64_t>(1, hw * d.c)));
  });
}

const PoolType kMaxType = PoolType::kMax;
const PoolType kAvgType = PoolType::kAvg;

}  // namespace

TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.pool2d", MakePool, nullptr);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.max_pool2d", MakePool, &kMaxType);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.avg_pool2d", MakePool, &kAvgType);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.global_pool2d", MakeGlobalPool, nullptr);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.global_max_pool2d", MakeGlobalPool, &kMaxType);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.global_avg_pool2d", MakeGlobalPool, &kAvgType);

TVMLITE_REGISTER_OP_KERNEL("nn.max_pool2d", "topi.nn.max_pool2d");
TVMLITE_REGISTER_OP_KERNEL("nn.avg_pool2d", "topi.nn.avg_pool2d");
TVMLITE_REGISTER_OP_KERNEL("nn.global_max_pool", "topi.nn.global_max_pool2d");
TVMLITE_REGISTER_OP_KERNEL("nn.global_avg_pool", "topi.nn.global_avg_pool2d");

}  // namespace topi
}  // namespace tvmlite
