/*!
 * \file depthwise_chain.cc
 * \brief topi.nn.depthwise_chain_nchwc: a depthwise convolution with the pointwise (1x1) convolutions around it
 * (MobileNet's inverted bottleneck: expand, depthwise, project), computed band by band of output rows (or, an expand
 * and a depthwise over a small plane, group by group of channel blocks), so that the wide intermediate tensors stay
 * in cache instead of making a round trip through memory.
 *
 *   f = topi.nn.depthwise_chain_nchwc({"stages": "expand,depthwise,project",
 *                                      "expand.epilogue": "add r0 r0 in0; clip r0 r0 0 6",
 *                                      "depthwise.strides": [1, 1], "depthwise.padding": [1, 1, 1, 1],
 *                                      "depthwise.epilogue": "add r0 r0 in0; clip r0 r0 0 6",
 *                                      "project.epilogue": "add r1 r0 in0; add r0 r1 in1"})
 *   f(data, w_expand, b_expand, w_depthwise, b_depthwise, w_project, b_project, residual, out)
 *
 * Stages: "expand,depthwise,project", "depthwise,project" or "expand,depthwise". A stage's attrs are its own
 * kernel's, prefixed by its name: topi.nn.conv2d_nchwc for expand (one group: a 1x1 expansion, or a network's
 * strided stem before its first depthwise) and project (a 1x1 convolution: stride 1, no padding, one group), and
 * topi.nn.depthwise_conv2d_nchwc. Arguments: data, then per stage its weight and its epilogue's inputs, then out.
 * Shapes (NCHW{c}c):
 *   data     (N, C/ic, XH, XW, ic)
 *   expand   (E/ec, C/ic, KH', KW', ic, ec)  its output (N, E/ec, H, W, ec); without expand: E = C, ec = ic, H = XH
 *   depthwise (E/ec, 1, KH, KW, 1, ec)
 *   project  (O/oc, E/ec, 1, 1, ec, oc)
 *   out      (N, O/oc, OH, OW, oc)           without project: (N, E/ec, OH, OW, ec)
 *
 * Banded path (AVX-512, ec = 16; the expand and depthwise epilogues register tails of per-channel adds and relu /
 * clip): each thread takes a contiguous range of one image's output rows and walks it in bands of B rows
 * (DepthwiseChainBand: the scratch of one band fits half of L2). Per band,
 *   1. expand: the input rows the band's depthwise reads, into a scratch of E channels (from a zero-padded copy of
 *      data, made once per call, when the expand pads); the rows the previous band already computed (KH - stride of
 *      them) are moved to the top instead of recomputed;
 *   2. depthwise: from that scratch (without expand: from data) into a second scratch of B rows (without project:
 *      into out);
 *   3. project: from the second scratch into the band's rows of out, its epilogue (bias, residual) in registers, or
 *      any other program run on the band's rows.
 * Channel-split path (AVX-512; stages "expand,depthwise" with a 1x1 expand into blocks of 16, over a plane whose
 * expanded tensor banding leaves alone, DepthwiseChainSplit): each thread takes a balanced run of one image's expand
 * channel blocks and walks it in groups of 2 blocks:
 *   1. expand: the group's output blocks over the whole plane, into the thread's scratch (25 KB at 14x14), the next
 *      group's weights fetched into L2 meanwhile;
 *   2. depthwise: the group's rows, from that scratch into out.
 * The expanded tensor is never written to memory, and no core reads lines of it the other wrote (as three nodes at
 * two threads, the depthwise read the expand's output across the cores). The project, which reads every channel of
 * each pixel, stays its own node.
 * The stage kernels' own register-tiled loops do the work (Conv2DNCHWcAVX512 / AVX512Ymm on windows of rows or
 * groups of blocks, through the workload's plane strides; DepthwiseRowAVX512). Anything else (another ISA, other
 * epilogues) runs the stage kernels one after another through whole intermediate tensors: the same results, without
 * the saving.
 */
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/conv2d.h>
#include <tvmlite/topi/nn/depthwise.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "match_fused_tail.h"
#include "window_attrs.h"

namespace tvmlite {
namespace topi {
namespace {

const std::string kName = "topi.nn.depthwise_chain_nchwc";
enum Stage { kExpand = 0, kDepthwise = 1, kProject = 2 };
const char* const kStageNames[] = {"expand", "depthwise", "project"};
const char* const kStageKernels[] = {"topi.nn.conv2d_nchwc", "topi.nn.depthwise_conv2d_nchwc",
                                     "topi.nn.conv2d_nchwc"};

/*! \brief The scratch one band may take per thread: half of a 1-2 MB L2, the rest for weights and the stream. */
constexpr int64_t kBandBytes = int64_t(512) << 10;
/*! \brief Intermediates below this stay in L2 anyway: no round trip to save, and the stages tile better whole. */
constexpr int64_t kMinSavedBytes = int64_t(1) << 20;

/*!
 * \brief Output rows per band, or 0 when banding does not pay (not AVX-512, or intermediates that fit L2).
 * reach: the input rows a depthwise output row spans minus one, (KH - 1) * dilation_h.
 */
int64_t DepthwiseChainBand(int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, int64_t reach,
                           int64_t stride_h, bool expand, bool project) {
  if (CpuIsa() != Isa::kAVX512 || channels <= 0 || out_h <= 0) return 0;
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

/*!
 * \brief The scratch one item of the channel-split path may take: its expanded planes and the expand weights that
 * make them. A quarter of a 1 MB L2: the expand's input (every item reads the image's, up to ~100 KB at 14x14) and
 * the depthwise's output rows stream through the rest.
 */
constexpr int64_t kSplitBytes = int64_t(256) << 10;

/*!
 * \brief Expand channel blocks (of 16) per group of the channel-split path (stages "expand,depthwise", the expand a
 * 1x1 conv with stride 1 and no padding), or 0 when it does not apply: not AVX-512, channels not in blocks of 16, an
 * expanded tensor that banding takes (DepthwiseChainBand: 1 MB or more), or a plane too large for one block's
 * scratch. A group's blocks are expanded over the whole h x w plane into per-thread scratch and their depthwise rows
 * run from there: the expanded tensor is never written to memory, and no core reads lines of it the other wrote.
 * Two blocks, as the expand conv's own register tile takes them (two weight vectors per broadcast input value),
 * when their planes and weights fit kSplitBytes: 25 KB + 12 KB at 14x14 (the planes L1-hot for the depthwise),
 * 100 KB at 28x28; else one. Balance over the threads is RunSplit's (balanced runs of blocks: an odd count costs at
 * most one block). Groups of 3 to 18 blocks measured the same within 1% on MobileNetV2 at one and two threads.
 */
int64_t DepthwiseChainSplit(int64_t in_channels, int64_t channels, int64_t h, int64_t w) {
  if (CpuIsa() != Isa::kAVX512 || in_channels <= 0 || channels <= 0 || channels % 16 != 0 || h <= 0 || w <= 0) {
    return 0;
  }
  // Banding's test for an expand without project reads only the expanded tensor's size.
  if (DepthwiseChainBand(channels, h, w, h, w, 0, 1, true, false) > 0) return 0;
  using Wide = __int128;
  const Wide block_bytes = (Wide(h) * w + in_channels) * 16 * 4;  // one block's plane and its expand weights
  for (int64_t blocks : {2, 1}) {
    if (blocks * block_bytes <= kSplitBytes) return blocks;
  }
  return 0;
}

/*! \brief The attrs of one stage: the keys "<stage>.<key>" of attrs, without the prefix. */
Map<String, Any> StageAttrs(const Map<String, Any>& attrs, const std::string& stage) {
  Map<String, Any> out;
  const std::string prefix = stage + ".";
  for (const auto& kv : attrs) {
    const std::string key(kv.first);
    if (key.compare(0, prefix.size(), prefix) == 0) out.Set(String(key.substr(prefix.size())), kv.second);
  }
  return out;
}

/*! \brief A pointwise stage must be a plain 1x1 conv: stride 1, no padding, dilation 1, one group. */
void CheckPointwise(const KernelAttrs& attrs, const char* stage) {
  auto all = [&](const char* key, int64_t v) {
    for (int64_t x : attrs.GetInts(key, {})) {
      if (x != v) return false;
    }
    return true;
  };
  TVMLITE_CHECK_KIND(all("strides", 1) && all("padding", 0) && all("dilation", 1) && attrs.GetInt("groups", 1) == 1,
                     ValueError)
      << kName << ": the " << stage << " stage must be a 1x1 convolution with stride 1, no padding, dilation 1 "
      << "and one group";
}

/*! \brief The expand stage: any window, one group (a grouped expansion is not one the chain computes). */
void CheckExpand(const KernelAttrs& attrs) {
  TVMLITE_CHECK_KIND(attrs.GetInt("groups", 1) == 1, ValueError)
      << kName << ": the expand stage must have one group, got " << attrs.GetInt("groups", 1);
}

struct ChainConfig {
  bool has[3] = {false, true, false};
  relay::Window<2> window;         // the depthwise's
  relay::Window<2> expand_window;  // the expand's (stride 1, no padding for a 1x1 expansion)
  Epilogue epilogue[3];
  Function kernel[3];  // the stage kernels, for the unbanded path
};

ChainConfig ParseConfig(const Map<String, Any>& attrs_in) {
  KernelAttrs attrs(kName, attrs_in);
  ChainConfig cfg;
  const std::string stages = attrs.GetString("stages");
  cfg.has[kExpand] = stages == "expand,depthwise,project" || stages == "expand,depthwise";
  cfg.has[kProject] = stages == "expand,depthwise,project" || stages == "depthwise,project";
  TVMLITE_CHECK_KIND(cfg.has[kExpand] || cfg.has[kProject], ValueError)
      << kName << ": stages must be \"expand,depthwise,project\", \"depthwise,project\" or \"expand,depthwise\", "
      << "got \"" << stages << "\"";
  for (const auto& kv : attrs_in) {
    const std::string key(kv.first);
    bool known = key == "stages";
    for (int s = 0; s < 3; ++s) {
      known = known || (cfg.has[s] && key.compare(0, std::strlen(kStageNames[s]) + 1,
                                                  std::string(kStageNames[s]) + ".") == 0);
    }
    TVMLITE_CHECK_KIND(known, ValueError) << kName << ": unknown attr '" << key << "' for stages \"" << stages << "\"";
  }
  for (int s = 0; s < 3; ++s) {
    if (!cfg.has[s]) continue;
    Map<String, Any> stage_attrs = StageAttrs(attrs_in, kStageNames[s]);
    KernelAttrs sa(kName, stage_attrs);
    if (s == kDepthwise) {
      cfg.window = KernelWindow(sa);
    } else if (s == kExpand) {
      CheckExpand(sa);
      cfg.expand_window = KernelWindow(sa);
    } else {
      CheckPointwise(sa, kStageNames[s]);
    }
    cfg.epilogue[s] = Epilogue::Parse(sa.GetString("epilogue", ""), kName);
    cfg.kernel[s] = runtime::Registry::Get(kStageKernels[s])(stage_attrs).cast<Function>();
  }
  return cfg;
}

/*! \brief One call's tensors (checked float32, contiguous): per stage its weight and epilogue inputs. */
struct ChainArgs {
  NDArray data, out;
  NDArray weight[3];
  std::vector<NDArray> epi_inputs[3];
  const float* x;  // the data pointers (byte offsets applied)
  float* y;
  const float* w[3];
};

/*! \brief The dims of one call, every tensor checked against the others. */
struct ChainShape {
  int64_t N, CB, XH, XW, ic;  // data
  int64_t EKH, EKW;           // the expand's kernel (1 x 1 without expand)
  int64_t H, W;               // the depthwise's input: the expand's output (data's without expand)
  int64_t EB, ec;             // the depthwise's channel blocks
  int64_t KH, KW, OH, OW;
  int64_t OB, oc;            // out's channel blocks (EB, ec without project)
};

[[noreturn]] void Fail(const char* what, const NDArray& a, const std::string& expected) {
  std::ostringstream os;
  os << kName << ": " << what << " has shape " << runtime::ShapeTuple(a.Shape()) << ", expected " << expected;
  TVMLITE_THROW(ValueError) << os.str();
}

ChainShape CheckShapes(const ChainConfig& cfg, const ChainArgs& a) {
  ChainShape s{};
  const std::vector<int64_t> d = a.data.Shape();
  if (d.size() != 5) Fail("data", a.data, "(N, C/ic, H, W, ic)");
  s.N = d[0], s.CB = d[1], s.XH = d[2], s.XW = d[3], s.ic = d[4];
  s.H = s.XH, s.W = s.XW, s.EKH = s.EKW = 1;
  s.EB = s.CB, s.ec = s.ic;
  auto dims = [](std::initializer_list<int64_t> v) {
    std::ostringstream os;
    os << runtime::ShapeTuple(std::vector<int64_t>(v));
    return os.str();
  };
  if (cfg.has[kExpand]) {
    const std::vector<int64_t> w = a.weight[kExpand].Shape();
    if (w.size() != 6 || w[1] != s.CB || w[2] < 1 || w[3] < 1 || w[4] != s.ic || w[5] < 1) {
      Fail("the expand weight", a.weight[kExpand], "(E/ec, " + std::to_string(s.CB) + ", KH, KW, " +
                                                       std::to_string(s.ic) + ", ec)");
    }
    s.EB = w[0], s.ec = w[5], s.EKH = w[2], s.EKW = w[3];
    const relay::Window<2>& ew = cfg.expand_window;
    const int64_t span_h = s.XH + ew.pad_begin[0] + ew.pad_end[0] - ew.dilation[0] * (s.EKH - 1) - 1;
    const int64_t span_w = s.XW + ew.pad_begin[1] + ew.pad_end[1] - ew.dilation[1] * (s.EKW - 1) - 1;
    TVMLITE_CHECK_KIND(span_h >= 0 && span_w >= 0, ValueError)
        << kName << ": the " << s.EKH << "x" << s.EKW << " expand kernel does not fit the padded " << s.XH << "x"
        << s.XW << " input";
    s.H = span_h / ew.stride[0] + 1, s.W = span_w / ew.stride[1] + 1;
  }
  const std::vector<int64_t> w = a.weight[kDepthwise].Shape();
  if (w.size() != 6 || w[0] != s.EB || w[1] != 1 || w[4] != 1 || w[5] != s.ec) {
    Fail("the depthwise weight", a.weight[kDepthwise], "(" + std::to_string(s.EB) + ", 1, KH, KW, 1, " +
                                                           std::to_string(s.ec) + ")");
  }
  s.KH = w[2], s.KW = w[3];
  const relay::Window<2>& win = cfg.window;
  const int64_t span_h = s.H + win.pad_begin[0] + win.pad_end[0] - win.dilation[0] * (s.KH - 1) - 1;
  const int64_t span_w = s.W + win.pad_begin[1] + win.pad_end[1] - win.dilation[1] * (s.KW - 1) - 1;
  TVMLITE_CHECK_KIND(s.KH >= 1 && s.KW >= 1 && span_h >= 0 && span_w >= 0, ValueError)
      << kName << ": the " << s.KH << "x" << s.KW << " depthwise kernel does not fit the padded " << s.H << "x" << s.W
      << " input";
  s.OH = span_h / win.stride[0] + 1, s.OW = span_w / win.stride[1] + 1;
  s.OB = s.EB, s.oc = s.ec;
  if (cfg.has[kProject]) {
    const std::vector<int64_t> p = a.weight[kProject].Shape();
    if (p.size() != 6 || p[1] != s.EB || p[2] != 1 || p[3] != 1 || p[4] != s.ec || p[5] < 1) {
      Fail("the project weight", a.weight[kProject], "(O/oc, " + std::to_string(s.EB) + ", 1, 1, " +
                                                         std::to_string(s.ec) + ", oc)");
    }
    s.OB = p[0], s.oc = p[5];
  }
  if (a.out.Shape() != std::vector<int64_t>{s.N, s.OB, s.OH, s.OW, s.oc}) {
    Fail("out", a.out, dims({s.N, s.OB, s.OH, s.OW, s.oc}));
  }
  // The intermediates (whole on the unbanded path) against the tensors given: a wide expand weight over a huge
  // image must not ask for an absurd allocation. MobileNets' are below 10x.
  __int128 given = static_cast<__int128>(a.data.NumElements()) + a.out.NumElements();
  for (const NDArray& w : a.weight) given += w.defined() ? w.NumElements() : 0;
  const __int128 between = static_cast<__int128>(s.N) * s.EB * s.ec * (s.H * s.W + s.OH * s.OW);
  TVMLITE_CHECK_KIND(between <= 64 * given + (1 << 26), ValueError)
      << kName << ": the intermediate tensors (" << s.EB * s.ec << " channels of " << s.H << "x" << s.W
      << ") would be more than 64 times the size of the data, weights and out";
  return s;
}

/*! \brief Call a stage kernel on tensors. */
void CallKernel(const Function& f, const std::vector<NDArray>& tensors) {
  std::vector<runtime::AnyView> views(tensors.begin(), tensors.end());
  runtime::Any rv;
  f.CallPacked(runtime::PackedArgs(views.data(), static_cast<int32_t>(views.size())), &rv);
}

/*! \brief The unbanded path: the stage kernels one after another through whole intermediate tensors. */
void RunStages(const ChainConfig& cfg, const ChainArgs& a, const ChainShape& s) {
  NDArray cur = a.data;
  for (int st = 0; st < 3; ++st) {
    if (!cfg.has[st]) continue;
    const bool last = st == kProject || (st == kDepthwise && !cfg.has[kProject]);
    NDArray next = last ? a.out
                        : NDArray::Empty(st == kExpand ? std::vector<int64_t>{s.N, s.EB, s.H, s.W, s.ec}
                                                       : std::vector<int64_t>{s.N, s.EB, s.OH, s.OW, s.ec},
                                         runtime::DataType::Float(32));
    std::vector<NDArray> tensors{cur, a.weight[st]};
    tensors.insert(tensors.end(), a.epi_inputs[st].begin(), a.epi_inputs[st].end());
    tensors.push_back(next);
    CallKernel(cfg.kernel[st], tensors);
    cur = next;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The banded path
// ---------------------------------------------------------------------------------------------------------------

using ConvFn = void (*)(const Conv2DWorkload&, const Conv2DPlan&, const Conv2DTensors&, int64_t, int64_t);

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
  const float* x;   // data
  const float* xp;  // the expand's input: data, or its zero-padded copy when the expand pads
  int64_t xp_h, xp_w;  // xp's rows and columns
  float* y;
  const float* weight[3];
  const FusedTail* expand_tail;      // null: plain store
  const BoundEpilogue* expand_bound;  // the expand's epilogue when not in registers, on the scratch's layout
  const float* dw_bias;
  float dw_lo, dw_hi;
  const BoundEpilogue* dw_bound;  // the depthwise's when not in registers: on the scratch's layout, or on out's
  FusedTail project_tail;
  bool project_in_registers;
  const BoundEpilogue* project_bound;
  ConvFn project_fn;
  int project_lanes, project_regs, project_tile_rows;
};

/*! \brief A 1x1 conv over `rows` rows of width `width`: a window of rows of a taller tensor (plane strides). */
Conv2DWorkload PointwiseRows(int64_t in_channels, int64_t ic, int64_t out_channels, int64_t oc, int64_t rows,
                             int64_t width, int64_t in_plane, int64_t out_plane) {
  Conv2DWorkload wl;
  wl.batch = 1;
  wl.in_channels = in_channels, wl.in_block = ic, wl.in_height = rows, wl.in_width = width;
  wl.out_channels = out_channels, wl.out_block = oc, wl.out_height = rows, wl.out_width = width;
  wl.in_plane_stride = in_plane, wl.out_plane_stride = out_plane;
  return wl;
}

/*! \brief The expand conv's output rows [from, hi) of one image, read from the (padded) input xp. */
Conv2DWorkload ExpandRows(const Banded& b, int64_t from, int64_t hi, int64_t out_plane) {
  const ChainShape& s = b.s;
  const relay::Window<2>& ew = b.cfg->expand_window;
  Conv2DWorkload wl;
  wl.batch = 1;
  wl.in_channels = s.CB * s.ic, wl.in_block = s.ic;
  wl.in_height = (hi - from - 1) * ew.stride[0] + (s.EKH - 1) * ew.dilation[0] + 1, wl.in_width = b.xp_w;
  wl.out_channels = s.EB * 16, wl.out_block = 16, wl.out_height = hi - from, wl.out_width = s.W;
  wl.kernel_h = s.EKH, wl.kernel_w = s.EKW;
  wl.stride_h = ew.stride[0], wl.stride_w = ew.stride[1], wl.dilation_h = ew.dilation[0], wl.dilation_w = ew.dilation[1];
  wl.in_plane_stride = b.xp_h * b.xp_w * s.ic, wl.out_plane_stride = out_plane;
  return wl;
}

/*! \brief Output rows [row_begin, row_end) of image n, band by band; exp / dw: this thread's scratch. */
void RunRows(const Banded& b, int64_t n, int64_t row_begin, int64_t row_end, float* exp, float* dw) {
  const ChainShape& s = b.s;
  const relay::Window<2>& win = b.cfg->window;
  const int64_t sh = win.stride[0], pt = win.pad_begin[0], reach = (s.KH - 1) * win.dilation[0];
  const int64_t L = 16;  // ec on this path
  const int64_t exp_plane = b.rows_cap * s.W * L, dw_plane = b.band * s.OW * L;
  const bool expand = b.cfg->has[kExpand], project = b.cfg->has[kProject];
  DepthwiseRow row = DepthwiseRowShape(s.H, s.W, L, s.OW, s.KH, s.KW, win.stride[1], win.dilation[0],
                                       win.dilation[1], win.pad_begin[1]);
  row.lo = b.dw_lo, row.hi = b.dw_hi;
  int64_t have_lo = 0, have_hi = 0;  // image rows [have_lo, have_hi) are the expand scratch's rows 0, 1, ...
  for (int64_t r0 = row_begin; r0 < row_end; r0 += b.band) {
    const int64_t r1 = std::min(row_end, r0 + b.band);
    if (expand) {
      const int64_t lo = std::max<int64_t>(0, r0 * sh - pt);
      const int64_t hi = std::max(lo, std::min(s.H, (r1 - 1) * sh - pt + reach + 1));
      int64_t from = lo;  // the first row to compute
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
        const Conv2DPlan plan = PlanConv2D(wl, 16, 32, 2);
        const int64_t first_row = from * b.cfg->expand_window.stride[0];  // in xp
        Conv2DTensors io{b.xp + (n * s.CB * b.xp_h + first_row) * b.xp_w * s.ic, b.weight[kExpand],
                         exp + (from - lo) * s.W * L, nullptr, nullptr, b.expand_tail};
        Conv2DNCHWcAVX512(wl, plan, io, 0, plan.num_items);
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
        DepthwiseRowAVX512(row);
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
      const Conv2DWorkload wl = PointwiseRows(s.EB * L, L, s.OB * s.oc, s.oc, r1 - r0, s.OW, dw_plane,
                                              s.OH * s.OW * s.oc);
      const Conv2DPlan plan = PlanConv2D(wl, b.project_lanes, b.project_regs, b.project_tile_rows);
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
      b.project_fn(wl, plan, io, 0, plan.num_items);
    }
  }
}

/*!
 * \brief A stage's epilogue as a register tail of out_shape: *tail stays empty (act identity, no adds) for the empty
 * program; false when the registers cannot run it.
 */
bool StageTail(const Epilogue& program, const std::vector<NDArray>& inputs, const std::vector<int64_t>& out_shape,
               FusedTail* tail) {
  *tail = FusedTail();
  return program.empty() || MatchFusedTail(program, inputs, out_shape, ConvChannelShape(out_shape), tail);
}

/*! \brief Whether every epilogue input is constant over the batch, rows and columns (right-aligned to rank 5). */
bool PerChannel(const std::vector<NDArray>& inputs) {
  for (const NDArray& in : inputs) {
    const std::vector<int64_t> shape = in.Shape();
    const size_t rank = shape.size();
    for (size_t axis : {0, 2, 3}) {  // N, H, W of (N, C/c, H, W, c)
      if (rank + axis >= 5 && shape[rank + axis - 5] != 1) return false;
    }
  }
  return true;
}

/*! \brief The banded path, when it applies (false: the caller runs the stages whole). */
bool RunBanded(const ChainConfig& cfg, const ChainArgs& a, const ChainShape& s) {
  const relay::Window<2>& win = cfg.window;
  const int64_t reach = (s.KH - 1) * win.dilation[0];
  const int64_t band = DepthwiseChainBand(s.EB * s.ec, s.H, s.W, s.OH, s.OW, reach, win.stride[0], cfg.has[kExpand],
                                          cfg.has[kProject]);
  if (band == 0 || s.ec != 16) return false;
  Banded b{};
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
    whole.out_channels = s.EB * 16, whole.out_block = 16, whole.out_height = s.H, whole.out_width = s.W;
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
    const std::vector<int64_t> shape{s.N, s.EB, s.H, s.W, 16};
    if (StageTail(cfg.epilogue[kExpand], a.epi_inputs[kExpand], shape, &expand_tail) &&
        expand_tail.add_kind[0] != FusedTail::kFull && expand_tail.add_kind[1] != FusedTail::kFull) {
      b.expand_tail = cfg.epilogue[kExpand].empty() ? nullptr : &expand_tail;
    } else if (PerChannel(a.epi_inputs[kExpand])) {
      expand_bound = cfg.epilogue[kExpand].Bind({1, s.EB, b.rows_cap, s.W, 16}, a.epi_inputs[kExpand], kName);
      b.expand_bound = &expand_bound;
    } else {
      return false;
    }
  }
  FusedTail dw_tail;
  const std::vector<int64_t> dw_shape{s.N, s.EB, s.OH, s.OW, 16};
  b.dw_lo = -std::numeric_limits<float>::infinity(), b.dw_hi = std::numeric_limits<float>::infinity();
  if (!StageTail(cfg.epilogue[kDepthwise], a.epi_inputs[kDepthwise], dw_shape, &dw_tail) ||
      !DepthwiseRowTail(dw_tail, &b.dw_bias, &b.dw_lo, &b.dw_hi)) {
    b.dw_bias = nullptr;
    if (!cfg.has[kProject]) {
      dw_bound = cfg.epilogue[kDepthwise].Bind(dw_shape, a.epi_inputs[kDepthwise], kName);  // on out's rows
    } else if (PerChannel(a.epi_inputs[kDepthwise])) {
      dw_bound = cfg.epilogue[kDepthwise].Bind({1, s.EB, band, s.OW, 16}, a.epi_inputs[kDepthwise], kName);
    } else {
      return false;
    }
    b.dw_bound = &dw_bound;
  }
  BoundEpilogue project_bound;
  if (cfg.has[kProject]) {
    if (s.oc == 16) {
      b.project_fn = &Conv2DNCHWcAVX512, b.project_lanes = 16, b.project_regs = 32, b.project_tile_rows = 2;
    } else if (s.oc == 8) {
      b.project_fn = &Conv2DNCHWcAVX512Ymm, b.project_lanes = 8, b.project_regs = 32, b.project_tile_rows = 1;
    } else {
      return false;
    }
    const std::vector<int64_t> out_shape = a.out.Shape();
    project_bound = cfg.epilogue[kProject].Bind(out_shape, a.epi_inputs[kProject], kName);
    b.project_in_registers = StageTail(cfg.epilogue[kProject], a.epi_inputs[kProject], out_shape, &b.project_tail);
    b.project_bound = project_bound.empty() ? nullptr : &project_bound;
  }
  // Each thread a contiguous range of one image's rows: the expand rows a band shares with the next are computed
  // once within a range, once more per range boundary.
  const int64_t threads = runtime::NumThreads();
  const int64_t bands = (s.OH + band - 1) / band;
  const int64_t ranges = std::max<int64_t>(1, std::min(bands, (threads + s.N - 1) / s.N));
  const int64_t exp_size = cfg.has[kExpand] ? s.EB * b.rows_cap * s.W * 16 : 0;
  const int64_t dw_size = cfg.has[kProject] ? s.EB * band * s.OW * 16 : 0;
  runtime::ParallelFor(s.N * ranges, [&](int64_t begin, int64_t end) {
    // This thread's scratch, grown as needed and kept: the executor runs the same chains every run.
    static thread_local std::vector<float> exp_scratch, dw_scratch;
    float* exp = AlignedScratch(&exp_scratch, exp_size);  // 64-byte aligned: each pixel's 16 channels one line
    float* dw = AlignedScratch(&dw_scratch, dw_size);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / ranges, k = item % ranges;
      RunRows(b, n, s.OH * k / ranges, s.OH * (k + 1) / ranges, exp, dw);
    }
  });
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// The channel-split path
// ---------------------------------------------------------------------------------------------------------------

/*! \brief Whether the expand is a 1x1 conv with stride 1, no padding and dilation 1. */
bool PointwiseExpand(const ChainConfig& cfg, const ChainShape& s) {
  const relay::Window<2>& ew = cfg.expand_window;
  for (int d = 0; d < 2; ++d) {
    if (ew.stride[d] != 1 || ew.dilation[d] != 1 || ew.pad_begin[d] != 0 || ew.pad_end[d] != 0) return false;
  }
  return s.EKH == 1 && s.EKW == 1;
}

/*! \brief What every group of one call of the channel-split path shares. */
struct Split {
  const ChainConfig* cfg;
  const ChainArgs* a;
  ChainShape s;
  int64_t group;                      // expand blocks per group
  FusedTail expand_tail;              // the expand's register tail (per-channel inputs from channel 0)
  const BoundEpilogue* expand_bound;  // or its program on each plane of the scratch; null when in registers
  DepthwiseRow row;                   // the depthwise rows' shape, bias and clamp
  const BoundEpilogue* dw_bound;      // the depthwise's program on out's rows when not in registers, or null
};

/*!
 * \brief Expand blocks [g0, g0 + blocks) of image n over the whole plane into exp (this thread's scratch), then
 * their depthwise rows from there into out; next: the expand weights of this thread's next group (next_blocks
 * blocks), fetched into L2 meanwhile, or null.
 */
void RunGroup(const Split& sp, float* exp, int64_t n, int64_t g0, int64_t blocks, const float* next,
              int64_t next_blocks) {
  const ChainShape& s = sp.s;
  const ChainArgs& a = *sp.a;
  const relay::Window<2>& win = sp.cfg->window;
  const int64_t L = 16, plane = s.H * s.W * L, out_plane = s.OH * s.OW * L, w_block = s.CB * s.ic * L;
  // 1. A 1x1 conv of `blocks` output blocks on their weights, the tail's per-channel inputs read from channel g0 * 16.
  const Conv2DWorkload wl = PointwiseRows(s.CB * s.ic, s.ic, blocks * L, L, s.H, s.W, 0, 0);
  const Conv2DPlan plan = PlanConv2D(wl, 16, 32, 2);
  FusedTail tail = sp.expand_tail;
  for (int k = 0; k < 2; ++k) {
    if (tail.add_kind[k] == FusedTail::kChannel) tail.add[k] += g0 * L;
  }
  const bool in_registers = sp.expand_bound == nullptr && !sp.cfg->epilogue[kExpand].empty();
  Conv2DTensors io{a.x + n * s.CB * s.H * s.W * s.ic, a.w[kExpand] + g0 * w_block, exp, nullptr, nullptr,
                   in_registers ? &tail : nullptr};
  io.next_weight = next, io.next_weight_floats = next_blocks * w_block;
  Conv2DNCHWcAVX512(wl, plan, io, 0, plan.num_items);
  for (int64_t p = 0; p < blocks && sp.expand_bound != nullptr; ++p) {
    sp.expand_bound->ApplyTo(exp + p * plane, (g0 + p) * plane, plane);  // at the expanded tensor's indices
  }
  // 2. Their depthwise rows, from the scratch (L1 / L2) into out.
  for (int64_t p = 0; p < blocks; ++p) {
    DepthwiseRow row = sp.row;
    row.in = exp + p * plane;
    row.weight = a.w[kDepthwise] + (g0 + p) * s.KH * s.KW * L;
    if (row.bias != nullptr) row.bias += (g0 + p) * L;
    float* out = a.y + (n * s.EB + g0 + p) * out_plane;
    for (int64_t oh = 0; oh < s.OH; ++oh) {
      row.ih0 = oh * win.stride[0] - win.pad_begin[0];
      row.out = out + oh * s.OW * L;
      DepthwiseRowAVX512(row);
    }
    if (sp.dw_bound != nullptr) sp.dw_bound->Apply(a.y, (n * s.EB + g0 + p) * out_plane, out_plane);
  }
}

/*!
 * \brief Stages "expand,depthwise" over planes below banding's threshold (DepthwiseChainSplit), when it applies
 * (false: the caller runs the stages whole). Each thread takes a balanced run of one image's expand channel blocks
 * and walks it `group` blocks at a time (RunGroup): their expand over the whole plane into its scratch, then their
 * depthwise rows into out. Every value is computed by the stage kernels' own loops, in their order, with their
 * epilogues: the output is theirs, bit for bit.
 */
bool RunSplit(const ChainConfig& cfg, const ChainArgs& a, const ChainShape& s) {
  if (!cfg.has[kExpand] || cfg.has[kProject] || s.ec != 16 || !PointwiseExpand(cfg, s)) return false;
  Split sp{};
  sp.cfg = &cfg, sp.a = &a, sp.s = s;
  sp.group = DepthwiseChainSplit(s.CB * s.ic, s.EB * 16, s.H, s.W);
  if (sp.group == 0) return false;
  // The expand's epilogue in registers, or the interpreter on each expanded plane (inputs constant over the rows
  // and columns only: the scratch holds a few planes of one image).
  BoundEpilogue expand_bound, dw_bound;
  if (!StageTail(cfg.epilogue[kExpand], a.epi_inputs[kExpand], {s.N, s.EB, s.H, s.W, 16}, &sp.expand_tail) ||
      sp.expand_tail.add_kind[0] == FusedTail::kFull || sp.expand_tail.add_kind[1] == FusedTail::kFull) {
    if (!PerChannel(a.epi_inputs[kExpand])) return false;
    expand_bound = cfg.epilogue[kExpand].Bind({1, s.EB, s.H, s.W, 16}, a.epi_inputs[kExpand], kName);
    sp.expand_bound = &expand_bound;
  }
  // The depthwise's: the rows' bias and clamp, or the interpreter on out's rows.
  const relay::Window<2>& win = cfg.window;
  sp.row = DepthwiseRowShape(s.H, s.W, 16, s.OW, s.KH, s.KW, win.stride[1], win.dilation[0], win.dilation[1],
                             win.pad_begin[1]);
  const std::vector<int64_t> dw_shape{s.N, s.EB, s.OH, s.OW, 16};
  FusedTail dw_tail;
  if (!StageTail(cfg.epilogue[kDepthwise], a.epi_inputs[kDepthwise], dw_shape, &dw_tail) ||
      !DepthwiseRowTail(dw_tail, &sp.row.bias, &sp.row.lo, &sp.row.hi)) {
    sp.row.bias = nullptr;
    dw_bound = cfg.epilogue[kDepthwise].Bind(dw_shape, a.epi_inputs[kDepthwise], kName);
    sp.dw_bound = &dw_bound;
  }
  // Items: (image, a balanced run of its blocks), as many runs per image as the threads need: two threads take 18
  // blocks each of 36, 4 and 5 of 9.
  const int64_t ranges = std::max<int64_t>(1, std::min(s.EB, (runtime::NumThreads() + s.N - 1) / s.N));
  const int64_t w_block = s.CB * s.ic * 16;
  runtime::ParallelFor(s.N * ranges, [&](int64_t begin, int64_t end) {
    // This thread's scratch, grown as needed and kept: the executor runs the same chains every run.
    static thread_local std::vector<float> split_scratch;
    float* exp = AlignedScratch(&split_scratch, sp.group * s.H * s.W * 16);  // 64-byte aligned: a pixel a line
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / ranges, k = item % ranges, b_end = s.EB * (k + 1) / ranges;
      for (int64_t g0 = s.EB * k / ranges; g0 < b_end; g0 += sp.group) {
        const int64_t blocks = std::min(sp.group, b_end - g0);
        const int64_t next_blocks = std::min(sp.group, b_end - g0 - blocks);
        RunGroup(sp, exp, n, g0, blocks, next_blocks > 0 ? a.w[kExpand] + (g0 + blocks) * w_block : nullptr,
                 std::max<int64_t>(0, next_blocks));
      }
    }
  });
  return true;
}

void Run(const ChainConfig& cfg, const KernelArgs& args) {
  ChainArgs a{};
  TensorArg data = args.Input(0, "data");
  a.x = data.Data<float>();
  a.data = data.array();
  int pos = 1;
  for (int st = 0; st < 3; ++st) {
    if (!cfg.has[st]) continue;
    const std::string what = std::string(kStageNames[st]) + " weight";
    TVMLITE_CHECK_KIND(pos < args.size() - 1, TypeError)
        << kName << ": expected the " << what << " at argument " << pos << ", got " << args.size() << " arguments";
    TensorArg w = args.Input(pos++, kStageNames[st]);
    a.w[st] = w.Data<float>();
    a.weight[st] = w.array();
    for (int k = 0; k < cfg.epilogue[st].num_inputs(); ++k) {
      TVMLITE_CHECK_KIND(pos < args.size() - 1, TypeError)
          << kName << ": the " << kStageNames[st] << " epilogue reads " << cfg.epilogue[st].num_inputs()
          << " inputs; only " << k << " were given";
      a.epi_inputs[st].push_back(args.Input(pos++, "epilogue input").array());
    }
  }
  TVMLITE_CHECK_KIND(pos == args.size() - 1, TypeError)
      << kName << ": expected " << pos + 1 << " tensor arguments (data, per stage its weight and epilogue inputs, "
      << "out), got " << args.size();
  TensorArg out = args.Output();
  a.y = out.Data<float>();
  a.out = out.array();
  const ChainShape s = CheckShapes(cfg, a);
  if (a.out.NumElements() == 0) return;
  if (!RunBanded(cfg, a, s) && !RunSplit(cfg, a, s)) RunStages(cfg, a, s);
}

}  // namespace

TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_chain_nchwc").set_body_typed([](Map<String, Any> attrs) {
  ChainConfig cfg = ParseConfig(attrs);
  int min_args = 3;  // data, the depthwise weight, out
  for (int st = 0; st < 3; ++st) min_args += cfg.has[st] ? (st != kDepthwise) + cfg.epilogue[st].num_inputs() : 0;
  return MakeKernel(kName, min_args, [cfg](const KernelArgs& args) { Run(cfg, args); });
});

// The lowering's policy (csrc/backend/fuse_depthwise_chains.cc): output rows per band, 0 for "keep the stages apart".
TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_chain_band")
    .set_body_typed([](int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, int64_t reach,
                       int64_t stride_h, bool expand, bool project) {
      for (int64_t v : {channels, in_h, in_w, out_h, out_w, reach}) {
        TVMLITE_CHECK_KIND(v >= 0 && v <= (int64_t(1) << 40), ValueError)
            << "topi.nn.depthwise_chain_band: dims must be in [0, 2^40], got " << v;
      }
      TVMLITE_CHECK_KIND(stride_h >= 1 && stride_h <= (int64_t(1) << 40), ValueError)
          << "topi.nn.depthwise_chain_band: stride_h must be in [1, 2^40], got " << stride_h;
      return DepthwiseChainBand(channels, in_h, in_w, out_h, out_w, reach, stride_h, expand, project);
    });

// The lowering's policy for stages "expand,depthwise" that banding leaves apart: expand channel blocks per work item
// of the channel-split path, 0 for "keep the stages apart".
TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_chain_split")
    .set_body_typed([](int64_t in_channels, int64_t channels, int64_t h, int64_t w) {
      for (int64_t v : {in_channels, channels, h, w}) {
        TVMLITE_CHECK_KIND(v >= 0 && v <= (int64_t(1) << 40), ValueError)
            << "topi.nn.depthwise_chain_split: dims must be in [0, 2^40], got " << v;
      }
      return DepthwiseChainSplit(in_channels, channels, h, w);
    });

}  // namespace topi
}  // namespace tvmlite
