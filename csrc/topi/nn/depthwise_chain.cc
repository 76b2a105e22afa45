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
 * Two paths compute the stages fused, each in its own file with its policy (registered here for the lowering):
 *   - banded (depthwise_chain_banded.cc, topi.nn.depthwise_chain_band): each thread takes a contiguous range of one
 *     image's output rows and walks it in bands whose scratch fits half of L2, expanding only the input rows a
 *     band's depthwise reads and projecting each band into out;
 *   - channel-split (depthwise_chain_split.cc, topi.nn.depthwise_chain_split): stages "expand,depthwise" over planes
 *     banding leaves alone; each thread takes a balanced run of one image's expand channel blocks and walks it a
 *     group of blocks at a time, expanding them over the whole plane into its scratch.
 * The stage kernels' own register-tiled loops do the work (the conv fast paths, PickConv2DFastPath, on windows of
 * rows or groups of blocks, through the workload's plane strides; PickDepthwiseRow's rows). Anything else (another
 * ISA or block, other epilogues) runs the stage kernels one after another through whole intermediate tensors: the
 * same results, without the saving.
 */
#include "depthwise_chain.h"

#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "match_fused_tail.h"
#include "window_attrs.h"

namespace tvmlite {
namespace topi {
namespace chain {
namespace {

const char* const kStageNames[] = {"expand", "depthwise", "project"};
const char* const kStageKernels[] = {"topi.nn.conv2d_nchwc", "topi.nn.depthwise_conv2d_nchwc", "topi.nn.conv2d_nchwc"};

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
      known = known ||
              (cfg.has[s] && key.compare(0, std::strlen(kStageNames[s]) + 1, std::string(kStageNames[s]) + ".") == 0);
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
      Fail("the expand weight", a.weight[kExpand],
           "(E/ec, " + std::to_string(s.CB) + ", KH, KW, " + std::to_string(s.ic) + ", ec)");
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
    Fail("the depthwise weight", a.weight[kDepthwise],
         "(" + std::to_string(s.EB) + ", 1, KH, KW, 1, " + std::to_string(s.ec) + ")");
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
      Fail("the project weight", a.weight[kProject],
           "(O/oc, " + std::to_string(s.EB) + ", 1, 1, " + std::to_string(s.ec) + ", oc)");
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

// For both paths (depthwise_chain.h).

bool StageTail(const Epilogue& program, const std::vector<NDArray>& inputs, const std::vector<int64_t>& out_shape,
               FusedTail* tail) {
  *tail = FusedTail();
  return program.empty() || MatchFusedTail(program, inputs, out_shape, ConvChannelShape(out_shape), tail);
}

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

TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_chain_nchwc")
    .set_kernel_factory()
    .set_body_typed([](Map<String, Any> attrs) {
      ChainConfig cfg = ParseConfig(attrs);
      int min_args = 3;  // data, the depthwise weight, out
      for (int st = 0; st < 3; ++st) min_args += cfg.has[st] ? (st != kDepthwise) + cfg.epilogue[st].num_inputs() : 0;
      return MakeKernel(kName, min_args, [cfg](const KernelArgs& args) { Run(cfg, args); });
    });

// The lowering's policy (csrc/backend/fuse_depthwise_chains.cc): output rows per band, 0 for "keep the stages apart".
TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_chain_band")
    .set_body_typed([](int64_t channels, int64_t block, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                       int64_t reach, int64_t stride_h, bool expand, bool project) {
      for (int64_t v : {channels, block, in_h, in_w, out_h, out_w, reach}) {
        TVMLITE_CHECK_KIND(v >= 0 && v <= (int64_t(1) << 40), ValueError)
            << "topi.nn.depthwise_chain_band: dims must be in [0, 2^40], got " << v;
      }
      TVMLITE_CHECK_KIND(stride_h >= 1 && stride_h <= (int64_t(1) << 40), ValueError)
          << "topi.nn.depthwise_chain_band: stride_h must be in [1, 2^40], got " << stride_h;
      return DepthwiseChainBand(channels, block, in_h, in_w, out_h, out_w, reach, stride_h, expand, project);
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

}  // namespace chain
}  // namespace topi
}  // namespace tvmlite
