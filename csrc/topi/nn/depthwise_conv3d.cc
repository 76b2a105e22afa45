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

#include "../../relay/op/nn/window.h"
#include "depthwise_common.h"

namespace tvmlite {
namespace topi {

namespace {

const char kName[] = "topi.nn.depthwise_conv3d_ncdhwc";

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

void Run(const DepthwiseConfig<3>& cfg, const KernelArgs& args) {
  const DepthwiseCall call = ReadDepthwiseCall(kName, cfg, args);
  const DepthwiseDims& d = call.d;
  const int64_t N = d.N, CB = d.CB, c = d.c, D = d.in[0], H = d.in[1], W = d.in[2];
  const int64_t KD = d.kernel[0], KH = d.kernel[1], KW = d.kernel[2];
  const relay::Window<3>& w = cfg.window;
  const int64_t OD = OutSize(w, 0, D, KD), OH = OutSize(w, 1, H, KH), OW = OutSize(w, 2, W, KW);
  // A per-channel bias then relu / clip runs in the rows' registers (as for 2-D); anything else after each row.
  const DepthwiseOutput o = BindDepthwiseOutput(kName, cfg.epilogue, args, d, {OD, OH, OW});
  if (args.Output().size() == 0) return;
  const float* x = call.x;
  const float* wt = call.weight;
  float* y = call.y;
  const BoundEpilogue& bound = o.bound;
  const float* bias = o.bias;
  const float lo = o.lo, hi = o.hi;
  const bool fused = o.fused;
  DepthwiseRow base = DepthwiseRowShape(H, W, c, OW, KH, KW, w.stride[2], w.dilation[1], w.dilation[2], w.pad_begin[2]);
  const DepthwiseRowFn row_fn = PickDepthwiseRow(cfg.isa, c);
  const int64_t row_len = OW * c, plane = H * W * c, taps = KH * KW * c;
  const int64_t rows = N * CB * OD * OH;
  const int64_t min_chunk = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_len * KD * KH * KW));
  runtime::ParallelFor(
      rows,
      [&](int64_t begin, int64_t end) {
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
      },
      min_chunk);
}

}  // namespace

TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_conv3d_ncdhwc")
    .set_kernel_factory()
    .set_body_typed([](Map<String, Any> attrs_in) {
      static const std::string kKernel = kName;
      KernelAttrs attrs(kKernel, attrs_in);
      const Array<int64_t> strides(IntsOrInt(attrs, "strides")), padding(IntsOrInt(attrs, "padding"));
      const Array<int64_t> dilation(IntsOrInt(attrs, "dilation"));
      relay::Window<3> window;
      try {
        window = relay::NormalizeWindow<3>(strides, padding, dilation);
      } catch (const runtime::Error& e) {
        TVMLITE_THROW(ValueError) << kKernel << ": " << e.message();
      }
      const DepthwiseConfig<3> cfg = ReadDepthwiseConfig<3>(attrs, window, [](const KernelAttrs& a) -> int64_t {
        if (!a.Has("data_layout")) return -1;
        const std::string layout = a.GetString("data_layout");
        const int64_t block = layout.empty() ? 0 : relay::ChannelFirstBlockOf(layout, "NCDHW");
        TVMLITE_CHECK_KIND(block >= 0, ValueError)
            << a.kernel() << ": data_layout '" << layout << "' is not supported (NCDHW or NCDHW<c>c, e.g. NCDHW16c)";
        return block;
      });
      return MakeKernel(kKernel, cfg.epilogue.num_inputs() + 3, [cfg](const KernelArgs& args) { Run(cfg, args); });
    });

TVMLITE_REGISTER_OP_KERNEL("nn.contrib_depthwise_conv3d_NCDHWc", "topi.nn.depthwise_conv3d_ncdhwc");

}  // namespace topi
}  // namespace tvmlite
