/*!
 * \file depthwise_conv3d.cc
 * \brief topi.nn.depthwise_conv3d_ncdhwc: depthwise 3-D convolution (groups == channels, multiplier 1) over blocked
 * data, the kernel of relay's nn.contrib_depthwise_conv3d_NCDHWc, on the 2-D depthwise kernel's rows.
 *
 *   f = topi.nn.depthwise_conv3d_ncdhwc({"strides": [1, 2, 2], "padding": [1, 1, 1], "groups": 64,
 *                                        "epilogue": "add r0 r0 in0; relu r0 r0"})
 *   f(data, weight, bias, out)
 *
 * Shapes (NCDHW{c}c / OIDHW1i{c}o):
 *   data   (N, C/c, D, H, W, c)          or (N, C, D, H, W)     (plain NCDHW: c = 1)
 *   weight (C/c, 1, KD, KH, KW, 1, c)    or (C, 1, KD, KH, KW)
 *   out    (N, C/c, OD, OH, OW, c)       or (N, C, OD, OH, OW)
 *
 * Algorithm: one task per output row (n, channel block, od, oh). The row is the sum over the kernel's depth taps kd
 * whose input slice id = od * stride_d - pad_front + kd * dilation_d lies inside [0, D) (the depth padding is never
 * read) of the 2-D depthwise row (tvmlite/topi/nn/depthwise.h: register-tiled on AVX-512 / AVX2, borders checked
 * tap by tap) over input slice id with the taps of slice kd: the first pass starts from the bias, the later ones
 * accumulate on the row (OW x c floats, in L1), the last one applies the clamp. So a fused bias + relu / relu6 costs
 * nothing extra; any other epilogue runs through the interpreter on each finished row. A row whose every depth tap is
 * in the padding is the bias (clamped), or zero.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/relay/layout.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/depthwise.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include "../../relay/op/nn/window.h"
#include "match_fused_tail.h"

namespace tvmlite {
namespace topi {

namespace {

const char kName[] = "topi.nn.depthwise_conv3d_ncdhwc";

struct Config {
  relay::Window<3> window;
  int64_t groups;  // -1: not given
  std::vector<int64_t> kernel_size;
  int64_t data_block;  // from data_layout: -1 not given, 0 plain NCDHW, else the block
  Isa isa;
  Epilogue epilogue;
};

[[noreturn]] void FailShape(const char* what, const std::vector<int64_t>& shape, const std::string& expected) {
  std::ostringstream os;
  os << kName << ": " << what << " has shape " << runtime::ShapeTuple(shape) << ", expected " << expected;
  TVMLITE_THROW(ValueError) << os.str();
}

/*! \brief An int-list attr that may also be given as one int (strides=2); empty when absent. */
std::vector<int64_t> IntsOrInt(const KernelAttrs& attrs, const char* key) {
  if (!attrs.Has(key)) return {};
  const Any* v = attrs.map().get()->Find(Any(String(key)));
  if (v->type_index() == kTVMLiteInt) return {v->cast<int64_t>()};
  return attrs.GetInts(key);
}

/*! \brief The output size of one spatial dim (relay's window rule); ValueError when the kernel does not fit. */
int64_t OutSize(const relay::Window<3>& w, int i, int64_t in, int64_t kernel) {
  const int64_t span = in + w.pad_begin[i] + w.pad_end[i] - w.dilation[i] * (kernel - 1) - 1;  // bounded: < 2^43
  if (kernel < 1 || span < 0) {
    TVMLITE_THROW(ValueError) << kName << ": kernel " << kernel << " (dilation " << w.dilation[i]
                              << ") does not fit the padded input " << in << " in spatial dim " << i;
  }
  return span / w.stride[i] + 1;
}

void Run(const Config& cfg, const KernelArgs& args) {
  TensorArg data = args.Input(0, "data");
  TensorArg weight = args.Input(1, "weight");
  TensorArg out = args.Output();
  const float* x = data.Data<float>();
  const float* wt = weight.Data<float>();
  float* y = out.Data<float>();
  const bool blocked = data.ndim() == 6;
  if (data.ndim() != 5 && !blocked) {
    data.Fail("must be (N, C/c, D, H, W, c) or (N, C, D, H, W), got rank " + std::to_string(data.ndim()));
  }
  const int64_t N = data.dim(0), CB = data.dim(1), D = data.dim(2), H = data.dim(3), W = data.dim(4);
  const int64_t c = blocked ? data.dim(5) : 1;
  const int64_t C = CB * c;
  if (cfg.data_block >= 0 && cfg.data_block != (blocked ? c : 0)) {
    data.Fail("does not match data_layout (block " + std::to_string(cfg.data_block) + "): its shape is " +
              std::to_string(data.ndim()) + "-D" + (blocked ? " with block " + std::to_string(c) : ""));
  }
  // weight: (C/c, 1, KD, KH, KW, 1, c) or (C, 1, KD, KH, KW)
  const std::vector<int64_t> ws = weight.shape();
  if (static_cast<int>(ws.size()) != (blocked ? 7 : 5)) {
    FailShape("weight", ws,
              blocked ? "(C/c, 1, KD, KH, KW, 1, c) for blocked data" : "(C, 1, KD, KH, KW) for NCDHW data");
  }
  const int64_t out_channels = blocked ? ws[0] * ws[6] : ws[0];
  if (out_channels != C && C > 0 && out_channels % C == 0 && ws[1] == 1) {
    TVMLITE_THROW(ValueError) << kName << ": channel multiplier " << out_channels / C
                              << " is not supported (weight has " << out_channels << " output channels for " << C
                              << " input channels; only multiplier 1)";
  }
  if (ws[0] != CB || ws[1] != 1 || (blocked && (ws[5] != 1 || ws[6] != c))) {
    FailShape("weight", ws, blocked ? "(" + std::to_string(CB) + ", 1, KD, KH, KW, 1, " + std::to_string(c) + ")"
                                    : "(" + std::to_string(C) + ", 1, KD, KH, KW)");
  }
  const int64_t KD = ws[2], KH = ws[3], KW = ws[4];
  if (cfg.groups >= 0 && cfg.groups != C) {
    TVMLITE_THROW(ValueError) << kName << ": groups = " << cfg.groups << " must equal the channels (" << C
                              << ") of a depthwise convolution";
  }
  if (!cfg.kernel_size.empty() && (cfg.kernel_size.size() != 3 || cfg.kernel_size[0] != KD ||
                                   cfg.kernel_size[1] != KH || cfg.kernel_size[2] != KW)) {
    std::ostringstream os;
    os << "kernel_size " << runtime::ShapeTuple(cfg.kernel_size);
    FailShape("weight", ws, os.str());
  }
  const relay::Window<3>& w = cfg.window;
  const int64_t OD = OutSize(w, 0, D, KD), OH = OutSize(w, 1, H, KH), OW = OutSize(w, 2, W, KW);
  std::vector<int64_t> want = blocked ? std::vector<int64_t>{N, CB, OD, OH, OW, c}
                                      : std::vector<int64_t>{N, C, OD, OH, OW};
  out.CheckShape(want);
  BoundEpilogue bound = cfg.epilogue.Bind(want, args.Rest(2), kName);  // checks the epilogue's inputs
  if (out.size() == 0) return;
  // A per-channel bias then relu / clip runs in the rows' registers (as for 2-D); anything else after each row.
  FusedTail tail;
  const float* bias = nullptr;
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  const std::vector<int64_t> channel_shape = blocked ? BlockedChannelShape(want) : std::vector<int64_t>{1, C, 1, 1, 1};
  const bool fused = MatchFusedTail(cfg.epilogue, args.Rest(2), want, channel_shape, &tail) &&
                     DepthwiseRowTail(tail, &bias, &lo, &hi);
  DepthwiseRow base =
      DepthwiseRowShape(H, W, c, OW, KH, KW, w.stride[2], w.dilation[1], w.dilation[2], w.pad_begin[2]);
  const DepthwiseRowFn row_fn = PickDepthwiseRow(cfg.isa, c);
  const int64_t row_len = OW * c, plane = H * W * c, taps = KH * KW * c;
  const int64_t rows = N * CB * OD * OH;
  const int64_t min_chunk = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_len * KD * KH * KW));
  runtime::ParallelFor(rows, [&](int64_t begin, int64_t end) {
    DepthwiseRow r = base;
    for (int64_t row = begin; row < end; ++row) {
      const int64_t oh = row % OH, od = row / OH % OD, nc = row / OH / OD;  // nc = n * CB + cb
      const int64_t cb = nc % CB;
      const float* channel_bias = fused && bias ? bias + cb * c : nullptr;
      r.out = y + row * row_len;
      r.ih0 = oh * w.stride[1] - w.pad_begin[1];
      // Depth taps [kd0, kd1) read slices inside the input.
      const int64_t first = od * w.stride[0] - w.pad_begin[0], dd = w.dilation[0];
      const int64_t kd0 = first >= 0 ? 0 : (-first + dd - 1) / dd;
      const int64_t kd1 = D - 1 - first < 0 ? 0 : std::min(KD, (D - 1 - first) / dd + 1);
      if (kd0 >= kd1) {  // every tap in the padding: the bias (clamped), or zero
        for (int64_t i = 0; i < row_len; ++i) {
          const float v = channel_bias ? channel_bias[i % c] : 0.0f;
          r.out[i] = v < lo ? lo : (v > hi ? hi : v);
        }
      }
      for (int64_t kd = kd0; kd < kd1; ++kd) {
        r.in = x + (nc * D + first + kd * dd) * plane;
        r.weight = wt + (cb * KD + kd) * taps;
        r.accumulate = kd > kd0;
        r.bias = kd == kd0 ? channel_bias : nullptr;
        r.lo = kd + 1 == kd1 && fused ? lo : -std::numeric_limits<float>::infinity();
        r.hi = kd + 1 == kd1 && fused ? hi : std::numeric_limits<float>::infinity();
        row_fn(r);
      }
      if (!fused) bound.Apply(y, row * row_len, row_len);
    }
  }, min_chunk);
}

}  // namespace

TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_conv3d_ncdhwc").set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kKernel = kName;
  KernelAttrs attrs(kKernel, attrs_in);
  Config cfg;
  const Array<int64_t> strides(IntsOrInt(attrs, "strides")), padding(IntsOrInt(attrs, "padding"));
  const Array<int64_t> dilation(IntsOrInt(attrs, "dilation"));
  try {
    cfg.window = relay::NormalizeWindow<3>(strides, padding, dilation);
  } catch (const runtime::Error& e) {
    TVMLITE_THROW(ValueError) << kKernel << ": " << e.message();
  }
  cfg.groups = attrs.GetInt("groups", -1);
  TVMLITE_CHECK_KIND(cfg.groups == -1 || cfg.groups >= 1, ValueError)
      << kKernel << ": groups = " << cfg.groups << " must be >= 1";
  cfg.kernel_size = attrs.GetInts("kernel_size", {});
  cfg.data_block = -1;
  if (attrs.Has("data_layout")) {
    const std::string layout = attrs.GetString("data_layout");
    cfg.data_block = layout.empty() ? 0 : relay::ChannelFirstBlockOf(layout, "NCDHW");
    TVMLITE_CHECK_KIND(cfg.data_block >= 0, ValueError)
        << kKernel << ": data_layout '" << layout << "' is not supported (NCDHW or NCDHW<c>c, e.g. NCDHW16c)";
  }
  const Any* dtype = attrs.map().get()->Find(Any(String("out_dtype")));
  if (dtype != nullptr) {
    std::optional<String> s = dtype->as<String>();
    TVMLITE_CHECK_KIND(!s || s->empty() || std::string(*s) == "float32", ValueError)
        << kKernel << ": out_dtype '" << std::string(*s) << "' is not supported (float32 only)";
  }
  cfg.isa = CpuIsa();
  cfg.epilogue = Epilogue::Parse(attrs.GetString("epilogue", ""), kKernel);
  return MakeKernel(kKernel, cfg.epilogue.num_inputs() + 3, [cfg](const KernelArgs& args) { Run(cfg, args); });
});

TVMLITE_REGISTER_OP("nn.contrib_depthwise_conv3d_NCDHWc")
    .set_attr<runtime::String>("FTVMLiteKernel", runtime::String("topi.nn.depthwise_conv3d_ncdhwc"));

}  // namespace topi
}  // namespace tvmlite
