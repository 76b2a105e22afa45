/*!
 * \file depthwise_chain_banded.cc
 * \brief topi.nn.depthwise_chain_nchwc's banded path (RunBanded, depthwise_chain.h) and its policy,
 * DepthwiseChainBand (topi.nn.depthwise_chain_band for the lowering).
 *
 * AVX-512 with ec = 16, or AVX2 with ec = 8 or 16; the expand and depthwise epilogues register tails (per-channel
 * adds, relu / clip) or programs of per-channel inputs, which the interpreter runs on the scratch rows. Each thread
 * takes a contiguous range of the images' output rows (in pieces, see RunBanded) and walks each image's part in bands
 * of B rows (DepthwiseChainBand: the scratch of one band fits half of L2).
 * Per band,
 *   1. expand: the input rows the band's depthwise reads, into a scratch of E channels (from a zero-padded copy of
 *      data, made once per call, when the expand pads); the rows the previous band already computed (KH - stride of
 *      them) are moved to the top instead of recomputed;
 *   2. depthwise: from that scratch (without expand: from data) into a second scratch of B rows (without project:
 *      into out);
 *   3. project: from the second scratch into the band's rows of out, its epilogue (bias, residual) in registers, or
 *      any other program run on the band's rows.
 */
#include "depthwise_chain.h"

#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/nn/conv2d.h>
#include <tvmlite/topi/nn/depthwise.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <vector>

namespace tvmlite {
namespace topi {
namespace chain {
namespace {

/*! \brief The scratch one band may take per thread: half of a 1-2 MB L2, the rest for weights and the stream. (Half
 * of a 512 KB L2, on Zen 3, measured slower on MobileNetV2 than this.) */
constexpr int64_t kBandBytes = int64_t(512) << 10;
/*! \brief Intermediates below this stay in L2 anyway: no round trip to save, and the stages tile better whole. */
constexpr int64_t kMinSavedBytes = int64_t(1) << 20;

}  // namespace

int64_t DepthwiseChainBand(int64_t channels, int64_t block, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                           int64_t reach, int64_t stride_h, bool expand, bool project) {
  const Isa isa = CpuIsa();
  if (!((isa == Isa::kAVX512 && block == 16) || (isa == Isa::kAVX2 && (block == 8 || block == 16)))) return 0;
  if (channels <= 0 || out_h <= 0) return 0;
  using Wide = __int128;  // products of dims a caller chooses: no overflow
  const Wide saved = (Wide(expand ? in_h * Wide(in_w) : 0) + (project ? out_h * Wide(out_w) : 0)) * channels * 4;
  if (saved < kMinSavedBytes) return 0;
  auto bytes = [&](int64_t band) {  // the scratch of a band: expand's input rows, the depthwise's output rows
    const Wide in_rows = std::min<Wide>(in_h, Wide(band - 1) * stride_h + reach + 1);
    return (Wide(expand ? in_rows * in_w : 0) + (project ? Wide(band) * out_w : 0)) * channels * 4;
  };
  int64_t lo = 1, hi = out_h;  // the largest band whose scratch fits (bytes grows with band), at least 1
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (bytes(mid) <= kBandBytes) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

namespace {

/*! \brief A project epilogue the registers do not hold, run on a band: offsets are the band's, out's base is y. */
struct BandEpilogue {
  const BoundEpilogue* bound;
  float* y;
  int64_t shift;  // the band's first value in y
  static void Apply(void* ctx, float*, int64_t begin, int64_t n) {
    const auto* e = static_cast<const BandEpilogue*>(ctx);
    e->bound->Apply(e->y, e->shift + begin, n);
  }
};

/*! \brief What every band of one call shares. */
struct Banded {
  const ChainConfig* cfg;
  ChainShape s;
  int64_t band, rows_cap;  // output rows per band; input rows the expand scratch holds
  const float* x;          // data
  const float* xp;         // the expand's input: data, or its zero-padded copy when the expand pads
  int64_t xp_h, xp_w;      // xp's rows and columns
  float* y;
  const float* weight[3];
  const FusedTail* expand_tail;       // null: plain store
  const BoundEpilogue* expand_bound;  // the expand's epilogue when not in registers, on the scratch's layout
  const float* dw_bias;
  float dw_lo, dw_hi;
  const BoundEpilogue* dw_bound;  // the depthwise's when not in registers: on the scratch's layout, or on out's
  FusedTail project_tail;
  bool project_in_registers;
  const BoundEpilogue* project_bound;
  Conv2DFastPath expand_path, project_path;  // the conv kernels for ec- and oc-channel output blocks
  DepthwiseRowFn dw_row;
};

/*! \brief The expand conv's output rows [from, hi) of one image, read from the (padded) input xp. */
Conv2DWorkload ExpandRows(const Banded& b, int64_t from, int64_t hi, int64_t out_plane) {
  const ChainShape& s = b.s;
  const relay::Window<2>& ew = b.cfg->expand_window;
  Conv2DWorkload wl;
  wl.batch = 1;
  wl.in_channels = s.CB * s.ic, wl.in_block = s.ic;
  wl.in_height = (hi - from - 1) * ew.stride[0] + (s.EKH - 1) * ew.dilation[0] + 1, wl.in_width = b.xp_w;
  wl.out_channels = s.EB * s.ec, wl.out_block = s.ec, wl.out_height = hi - from, wl.out_width = s.W;
  wl.kernel_h = s.EKH, wl.kernel_w = s.EKW;
  wl.stride_h = ew.stride[0], wl.stride_w = ew.stride[1];
  wl.dilation_h = ew.dilation[0], wl.dilation_w = ew.dilation[1];
  wl.in_plane_stride = b.xp_h * b.xp_w * s.ic, wl.out_plane_stride = out_plane;
  return wl;
}

/*!
 * \brief The expand rows a thread's scratch holds after a run of rows, for the next run when it continues this one:
 * the pool hands a thread its range in pieces, in order, so their shared input rows are computed once.
 */
struct RowCarry {
  uint64_t call = 0;                 // the chain call (a per-call number): 0 none
  int64_t n = -1, next_row = -1;     // the image, and the output row a continuing run starts at
  int64_t have_lo = 0, have_hi = 0;  // image rows [have_lo, have_hi) are the expand scratch's rows 0, 1, ...
};

/*!
 * \brief Output rows [row_begin, row_end) of image n, band by band; exp / dw: this thread's scratch, which carry
 * describes (the expand rows left by this thread's last run of rows), and describes again after.
 */
void RunRows(const Banded& b, uint64_t call, int64_t n, int64_t row_begin, int64_t row_end, float* exp, float* dw,
             RowCarry* carry) {
  const ChainShape& s = b.s;
  const relay::Window<2>& win = b.cfg->window;
  const int64_t sh = win.stride[0], pt = win.pad_begin[0], reach = (s.KH - 1) * win.dilation[0];
  const int64_t L = s.ec;
  const int64_t exp_plane = b.rows_cap * s.W * L, dw_plane = b.band * s.OW * L;
  const bool expand = b.cfg->has[kExpand], project = b.cfg->has[kProject];
  DepthwiseRow row = DepthwiseRowShape(s.H, s.W, L, s.OW, s.KH, s.KW, win.stride[1], win.dilation[0], win.dilation[1],
                                       win.pad_begin[1]);
  row.lo = b.dw_lo, row.hi = b.dw_hi;
  const bool continues = carry->call == call && carry->n == n && carry->next_row == row_begin;
  int64_t have_lo = continues ? carry->have_lo : 0, have_hi = continues ? carry->have_hi : 0;
  for (int64_t r0 = row_begin; r0 < row_end; r0 += b.band) {
    const int64_t r1 = std::min(row_end, r0 + b.band);
    if (expand) {
      const int64_t lo = std::max<int64_t>(0, r0 * sh - pt);
      const int64_t hi = std::max(lo, std::min(s.H, (r1 - 1) * sh - pt + reach + 1));
      int64_t from = lo;                    // the first row to compute
      if (have_lo <= lo && lo < have_hi) {  // rows [lo, have_hi) were computed for the last band: move them up
        if (lo > have_lo) {
          for (int64_t p = 0; p < s.EB; ++p) {
            float* plane = exp + p * exp_plane;
            std::memmove(plane, plane + (lo - have_lo) * s.W * L, (have_hi - lo) * s.W * L * sizeof(float));
          }
        }
        from = have_hi;
      }
      if (hi > from) {
        const Conv2DWorkload wl = ExpandRows(b, from, hi, exp_plane);
        const Conv2DPlan plan = PlanConv2D(wl, b.expand_path.lanes, b.expand_path.regs, b.expand_path.max_tile_rows);
        const int64_t first_row = from * b.cfg->expand_window.stride[0];  // in xp
        Conv2DTensors io{b.xp + (n * s.CB * b.xp_h + first_row) * b.xp_w * s.ic,
                         b.weight[kExpand],
                         exp + (from - lo) * s.W * L,
                         nullptr,
                         nullptr,
                         b.expand_tail};
        b.expand_path.fn(wl, plan, io, 0, plan.num_items);
        if (b.expand_bound != nullptr) {  // on the rows just computed, per plane (still in L1 / L2)
          for (int64_t p = 0; p < s.EB; ++p) {
            b.expand_bound->Apply(exp, p * exp_plane + (from - lo) * s.W * L, (hi - from) * s.W * L);
          }
        }
      }
      have_lo = lo, have_hi = std::max(hi, from);
    }
    // The depthwise: a plane per channel block, its rows of this band.
    for (int64_t p = 0; p < s.EB; ++p) {
      if (expand) {
        row.in = exp + p * exp_plane, row.H = have_hi - have_lo;
      } else {
        row.in = b.x + (n * s.CB + p) * s.XH * s.XW * L, row.H = s.H;
      }
      const int64_t origin = expand ? have_lo : 0;  // the image row of row.in's row 0
      row.weight = b.weight[kDepthwise] + p * s.KH * s.KW * L;
      row.bias = b.dw_bias ? b.dw_bias + p * L : nullptr;
      for (int64_t oh = r0; oh < r1; ++oh) {
        row.ih0 = oh * sh - pt - origin;
        row.out = project ? dw + p * dw_plane + (oh - r0) * s.OW * L : b.y + ((n * s.EB + p) * s.OH + oh) * s.OW * L;
        // The rows the next output row reads that this one does not (from memory without expand).
        const int64_t first = std::max<int64_t>(0, row.ih0 + reach + 1);
        const int64_t last = std::min<int64_t>(row.H - 1, row.ih0 + reach + sh);
        row.prefetch = oh + 1 < r1 && first <= last ? row.in + first * s.W * L : nullptr;
        row.prefetch_len = row.prefetch ? (last - first + 1) * s.W * L : 0;
        b.dw_row(row);
      }
      if (b.dw_bound != nullptr) {
        if (project) {
          b.dw_bound->Apply(dw, p * dw_plane, (r1 - r0) * s.OW * L);
        } else {
          b.dw_bound->Apply(b.y, ((n * s.EB + p) * s.OH + r0) * s.OW * L, (r1 - r0) * s.OW * L);
        }
      }
    }
    if (project) {
      const Conv2DWorkload wl =
          PointwiseRows(s.EB * L, L, s.OB * s.oc, s.oc, r1 - r0, s.OW, dw_plane, s.OH * s.OW * s.oc);
      const Conv2DPlan plan = PlanConv2D(wl, b.project_path.lanes, b.project_path.regs, b.project_path.max_tile_rows);
      const int64_t shift = (n * s.OB * s.OH + r0) * s.OW * s.oc;  // the band's first value in y
      FusedTail tail = b.project_tail;
      for (int k = 0; k < 2; ++k) {
        if (tail.add_kind[k] == FusedTail::kFull) tail.add[k] += shift;  // read at y's offsets
      }
      BandEpilogue epi{b.project_bound, b.y, shift};
      Conv2DTensors io{dw, b.weight[kProject], b.y + shift, nullptr, nullptr, nullptr};
      if (b.project_in_registers) {
        io.tail = &tail;
      } else if (b.project_bound != nullptr) {
        io.epilogue = &BandEpilogue::Apply, io.epilogue_ctx = &epi;
      }
      b.project_path.fn(wl, plan, io, 0, plan.num_items);
    }
  }
  *carry = RowCarry{call, n, row_end, have_lo, have_hi};
}

}  // namespace

bool RunBanded(const ChainConfig& cfg, const ChainArgs& a, const ChainShape& s) {
  const relay::Window<2>& win = cfg.window;
  const int64_t reach = (s.KH - 1) * win.dilation[0];
  const int64_t band = DepthwiseChainBand(s.EB * s.ec, s.ec, s.H, s.W, s.OH, s.OW, reach, win.stride[0],
                                          cfg.has[kExpand], cfg.has[kProject]);
  if (band == 0) return false;
  const Isa isa = CpuIsa();
  Banded b{};
  b.expand_path = PickConv2DFastPath(s.ec, isa, /*pointwise=*/true);
  b.dw_row = PickDepthwiseRow(isa, s.ec);
  b.cfg = &cfg;
  b.s = s;
  b.band = band;
  b.rows_cap = std::min(s.H, (band - 1) * win.stride[0] + reach + 1);
  b.x = b.xp = a.x, b.y = a.y;
  b.xp_h = s.XH, b.xp_w = s.XW;
  for (int st = 0; st < 3; ++st) b.weight[st] = a.w[st];
  if (cfg.has[kExpand]) {  // the expand's input zero-padded once, as topi.nn.conv2d_nchwc's fast paths take it
    const relay::Window<2>& ew = cfg.expand_window;
    Conv2DWorkload whole;
    whole.batch = s.N;
    whole.in_channels = s.CB * s.ic, whole.in_block = s.ic, whole.in_height = s.XH, whole.in_width = s.XW;
    whole.out_channels = s.EB * s.ec, whole.out_block = s.ec, whole.out_height = s.H, whole.out_width = s.W;
    whole.kernel_h = s.EKH, whole.kernel_w = s.EKW;
    whole.pad_top = ew.pad_begin[0], whole.pad_left = ew.pad_begin[1];
    whole.pad_bottom = ew.pad_end[0], whole.pad_right = ew.pad_end[1];
    const int64_t padded = Conv2DPaddedSize(whole);
    if (padded < 0) return false;  // padding far beyond the input: the stage kernels' portable path
    // The calling thread's buffer, kept (the workers read it while this thread waits in ParallelFor below).
    static thread_local std::vector<float> xpad;
    if (padded > s.N * s.CB * s.XH * s.XW * s.ic) {
      float* dst = AlignedScratch(&xpad, padded);
      const Conv2DWorkload unpadded = PadConv2DInput(whole, a.x, dst);
      b.xp = dst, b.xp_h = unpadded.in_height, b.xp_w = unpadded.in_width;
    }
  }
  // The expand's and depthwise's epilogues: in registers when they are register tails; else the interpreter on each
  // band's rows, bound to the scratch's layout, which only inputs constant over the rows and columns allow (a
  // per-channel bias or scale; a full-shape input would be read at the scratch's offsets).
  FusedTail expand_tail;
  BoundEpilogue expand_bound, dw_bound;
  if (cfg.has[kExpand]) {
    const std::vector<int64_t> shape{s.N, s.EB, s.H, s.W, s.ec};
    if (StageTail(cfg.epilogue[kExpand], a.epi_inputs[kExpand], shape, &expand_tail) &&
        expand_tail.add_kind[0] != FusedTail::kFull && expand_tail.add_kind[1] != FusedTail::kFull) {
      b.expand_tail = cfg.epilogue[kExpand].empty() ? nullptr : &expand_tail;
    } else if (PerChannel(a.epi_inputs[kExpand])) {
      expand_bound = cfg.epilogue[kExpand].Bind({1, s.EB, b.rows_cap, s.W, s.ec}, a.epi_inputs[kExpand], kName);
      b.expand_bound = &expand_bound;
    } else {
      return false;
    }
  }
  FusedTail dw_tail;
  const std::vector<int64_t> dw_shape{s.N, s.EB, s.OH, s.OW, s.ec};
  b.dw_lo = -std::numeric_limits<float>::infinity(), b.dw_hi = std::numeric_limits<float>::infinity();
  if (!StageTail(cfg.epilogue[kDepthwise], a.epi_inputs[kDepthwise], dw_shape, &dw_tail) ||
      !DepthwiseRowTail(dw_tail, &b.dw_bias, &b.dw_lo, &b.dw_hi)) {
    b.dw_bias = nullptr;
    if (!cfg.has[kProject]) {
      dw_bound = cfg.epilogue[kDepthwise].Bind(dw_shape, a.epi_inputs[kDepthwise], kName);  // on out's rows
    } else if (PerChannel(a.epi_inputs[kDepthwise])) {
      dw_bound = cfg.epilogue[kDepthwise].Bind({1, s.EB, band, s.OW, s.ec}, a.epi_inputs[kDepthwise], kName);
    } else {
      return false;
    }
    b.dw_bound = &dw_bound;
  }
  BoundEpilogue project_bound;
  if (cfg.has[kProject]) {
    b.project_path = PickConv2DFastPath(s.oc, isa, /*pointwise=*/true);
    if (b.project_path.fn == nullptr) return false;
    const std::vector<int64_t> out_shape = a.out.Shape();
    project_bound = cfg.epilogue[kProject].Bind(out_shape, a.epi_inputs[kProject], kName);
    b.project_in_registers = StageTail(cfg.epilogue[kProject], a.epi_inputs[kProject], out_shape, &b.project_tail);
    b.project_bound = project_bound.empty() ? nullptr : &project_bound;
  }
  // Items: the images' output rows. The pool gives each thread a contiguous range of them, in pieces it runs in
  // order (pieces of at least half a band), and lets a thread that is done take the last pieces of another's range:
  // the expand rows a band shares with the next are computed once within a thread's run, once more where a run
  // breaks. Without expand or with a stride, few or none are shared.
  static std::atomic<uint64_t> calls{0};
  const uint64_t call = calls.fetch_add(1, std::memory_order_relaxed) + 1;
  const int64_t exp_size = cfg.has[kExpand] ? s.EB * b.rows_cap * s.W * s.ec : 0;
  const int64_t dw_size = cfg.has[kProject] ? s.EB * band * s.OW * s.ec : 0;
  runtime::ParallelFor(
      s.N * s.OH,
      [&](int64_t begin, int64_t end) {
        // This thread's scratch, grown as needed and kept: the executor runs the same chains every run.
        static thread_local std::vector<float> exp_scratch, dw_scratch;
        static thread_local RowCarry carry;
        float* exp = AlignedScratch(&exp_scratch, exp_size);  // 64-byte aligned: each pixel's 16 channels one line
        float* dw = AlignedScratch(&dw_scratch, dw_size);
        for (int64_t row = begin; row < end;) {
          const int64_t n = row / s.OH, r0 = row % s.OH, r1 = std::min(s.OH, r0 + (end - row));
          RunRows(b, call, n, r0, r1, exp, dw, &carry);
          row += r1 - r0;
        }
      },
      std::max<int64_t>(1, band / 2));
  return true;
}

}  // namespace chain
}  // namespace topi
}  // namespace tvmlite
