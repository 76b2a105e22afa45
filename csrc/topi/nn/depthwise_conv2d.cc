/*!
 * \file depthwise_conv2d.cc
 * \brief topi.nn.depthwise_conv2d_nchwc: depthwise 2-D convolution (groups == channels, multiplier 1) over
 * blocked data, the kernel of relay's nn.contrib_depthwise_conv2d_NCHWc.
 *
 *   f = topi.nn.depthwise_conv2d_nchwc({"strides": [2, 2], "padding": [1, 1], "groups": 32,
 *                                       "epilogue": "add r0 r0 in0; clip r0 r0 0 6"})
 *   f(data, weight, bias, out)
 *
 * Shapes (TVM's NCHW{c}c / OIHW1i{c}o):
 *   data   (N, C/c, H, W, c)          or (N, C, H, W)     (plain NCHW: c = 1)
 *   weight (C/c, 1, KH, KW, 1, c)     or (C, 1, KH, KW)
 *   out    (N, C/c, OH, OW, c)        or (N, C, OH, OW),  OH = (H + pt + pb - dh * (KH - 1) - 1) / sh + 1
 *
 * Algorithm: one task per output row of one (n, channel block) plane. Lane l of a pixel's c channels only meets
 * lane l of the taps, so a vector of c lanes (16 on AVX-512, 8 on AVX2) is one pixel, and a row is a sequence of
 * independent pixels: interior columns (every tap inside the input) are register-tiled, 8 pixels at a time, with
 * one weight load per 8 FMAs; the few border columns check each tap. Plain NCHW (c = 1) instead sweeps each tap
 * over the columns it is valid for, accumulating into the output row. Zero padding is never materialised. The
 * epilogue runs on each row as soon as it is written; the usual one, a per-channel bias then relu / relu6 (a
 * folded batch norm), is instead applied in registers (bias as the accumulators' start, the clamp before the
 * store), which saves a second pass over every row. The work per byte is KH * KW FMAs, so the big layers are
 * bound by memory bandwidth: nothing is copied, and each input row is read from cache KH times.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/depthwise.h>

#include <algorithm>
#include <limits>

#include "depthwise_common.h"
#include "window_attrs.h"

namespace tvmlite {
namespace topi {

namespace {

const char kName[] = "topi.nn.depthwise_conv2d_nchwc";

/*! \brief The portable row: any block c (1 for plain NCHW), every tap checked. */
void DepthwiseRowPortable(const DepthwiseRow& r) {
  for (int64_t ow = 0; ow < r.OW; ++ow) {
    float* o = r.out + ow * r.c;
    if (r.accumulate) {
      // the sum so far is in o
    } else if (r.bias) {
      std::copy(r.bias, r.bias + r.c, o);
    } else {
      std::fill(o, o + r.c, 0.0f);
    }
    const int64_t iw0 = ow * r.stride_w - r.pad_left;
    for (int64_t kh = 0; kh < r.KH; ++kh) {
      const int64_t ih = r.ih0 + kh * r.dil_h;
      if (ih < 0 || ih >= r.H) continue;
      for (int64_t kw = 0; kw < r.KW; ++kw) {
        const int64_t iw = iw0 + kw * r.dil_w;
        if (iw < 0 || iw >= r.W) continue;
        const float* x = r.in + (ih * r.W + iw) * r.c;
        const float* w = r.weight + (kh * r.KW + kw) * r.c;
        for (int64_t l = 0; l < r.c; ++l) o[l] += x[l] * w[l];
      }
    }
    for (int64_t l = 0; l < r.c; ++l) {  // the fused clamp; NaN stays NaN, as in the interpreter
      o[l] = o[l] < r.lo ? r.lo : (o[l] > r.hi ? r.hi : o[l]);
    }
  }
}

/*!
 * \brief Plain NCHW (C = 1) and blocks of 2 or 4 (channels no 8 divides: ShuffleNet's 116, MixNet's): the output
 * row is the accumulator and each tap sweeps the columns it is valid for. At stride 1 a tap's columns are one
 * contiguous run of C-lane pixels in both rows, swept in vectors of 8 floats against the tap's C weights repeated
 * 8 / C times; at other strides pixel by pixel.
 */
template <int C>
void DepthwiseRowSweep(const DepthwiseRow& r) {
  static_assert(8 % C == 0, "blocks of 1, 2, 4, 8");
  if (!r.accumulate) {
    for (int64_t ow = 0; ow < r.OW; ++ow) {
      for (int l = 0; l < C; ++l) r.out[ow * C + l] = r.bias ? r.bias[l] : 0.0f;
    }
  }
  for (int64_t kh = 0; kh < r.KH; ++kh) {
    const int64_t ih = r.ih0 + kh * r.dil_h;
    if (ih < 0 || ih >= r.H) continue;
    const float* in_row = r.in + ih * r.W * C;
    for (int64_t kw = 0; kw < r.KW; ++kw) {
      const float* wv = r.weight + (kh * r.KW + kw) * C;
      const int64_t off = kw * r.dil_w - r.pad_left;  // column ow reads input column ow * stride_w + off
      const int64_t lo = off >= 0 ? 0 : (-off + r.stride_w - 1) / r.stride_w;
      const int64_t hi = r.W - 1 - off < 0 ? 0 : std::min(r.OW, (r.W - 1 - off) / r.stride_w + 1);
      if (hi <= lo) continue;
      if (r.stride_w == 1) {
        float w8[8];
        for (int j = 0; j < 8; ++j) w8[j] = wv[j % C];
        const float* src = in_row + (off + lo) * C;  // float i of the run reads src[i]
        float* dst = r.out + lo * C;
        const int64_t n = (hi - lo) * C;
        int64_t i = 0;
        for (; i + 8 <= n; i += 8) {
          for (int j = 0; j < 8; ++j) dst[i + j] += w8[j] * src[i + j];
        }
        for (; i < n; ++i) dst[i] += wv[i % C] * src[i];
      } else {
        for (int64_t ow = lo; ow < hi; ++ow) {
          const float* x = in_row + (ow * r.stride_w + off) * C;
          for (int l = 0; l < C; ++l) r.out[ow * C + l] += wv[l] * x[l];
        }
      }
    }
  }
  for (int64_t i = 0; i < r.OW * C; ++i) {  // the fused clamp; NaN stays NaN, as in the interpreter
    const float v = r.out[i];
    r.out[i] = v < r.lo ? r.lo : (v > r.hi ? r.hi : v);
  }
}

using RowFn = DepthwiseRowFn;

void Run(const DepthwiseConfig<2>& cfg, const KernelArgs& args) {
  const DepthwiseCall call = ReadDepthwiseCall(kName, cfg, args);
  const float* x = call.x;
  const float* wt = call.weight;
  float* y = call.y;
  const DepthwiseDims& d = call.d;
  const int64_t N = d.N, CB = d.CB, c = d.c, H = d.in[0], W = d.in[1], KH = d.kernel[0], KW = d.kernel[1];
  const relay::Window<2>& w = cfg.window;
  const int64_t pt = w.pad_begin[0], pl = w.pad_begin[1];
  const int64_t span_h = H + pt + w.pad_end[0] - w.dilation[0] * (KH - 1) - 1;
  const int64_t span_w = W + pl + w.pad_end[1] - w.dilation[1] * (KW - 1) - 1;
  if (KH < 1 || KW < 1 || span_h < 0 || span_w < 0) {
    TVMLITE_THROW(ValueError) << kName << ": the " << KH << "x" << KW << " kernel (dilation " << w.dilation[0] << ", "
                              << w.dilation[1] << ") does not fit the padded " << H << "x" << W << " input";
  }
  const int64_t OH = span_h / w.stride[0] + 1, OW = span_w / w.stride[1] + 1;
  // A per-channel bias then relu / clip runs in registers; anything else after each row.
  const DepthwiseOutput o = BindDepthwiseOutput(kName, cfg.epilogue, args, d, {OH, OW});
  const BoundEpilogue& bound = o.bound;
  const float* bias = o.bias;
  const bool fused = o.fused;
  DepthwiseRow base = DepthwiseRowShape(H, W, c, OW, KH, KW, w.stride[1], w.dilation[0], w.dilation[1], pl);
  base.lo = o.lo, base.hi = o.hi;  // -inf / inf unless fused
  const RowFn row_fn = PickDepthwiseRow(cfg.isa, c);
  const int64_t reach = (KH - 1) * w.dilation[0];  // the last input row a row reads, from ih0
  const int64_t row_len = OW * c;
  const int64_t rows = N * CB * OH;
  const int64_t min_chunk = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_len * KH * KW));
  runtime::ParallelFor(
      rows,
      [&](int64_t begin, int64_t end) {
        DepthwiseRow r = base;
        // (plane, oh) stepped along, not divided out per row: a small row is only ~60 FMAs. plane = n * CB + cb.
        int64_t plane = begin / OH, oh = begin % OH, cb = plane % CB;
        for (int64_t row = begin; row < end; ++row) {
          r.in = x + plane * H * W * c;
          r.weight = wt + cb * KH * KW * c;
          r.out = y + row * row_len;
          r.ih0 = oh * w.stride[0] - pt;
          if (bias) r.bias = bias + cb * c;
          // Rows the next output row reads that this one does not: (ih0 + reach, ih0 + reach + stride_h].
          const int64_t first = std::max<int64_t>(0, r.ih0 + reach + 1);
          const int64_t last = std::min<int64_t>(H - 1, r.ih0 + reach + w.stride[0]);
          r.prefetch = oh + 1 < OH && first <= last ? r.in + first * W * c : nullptr;
          r.prefetch_len = r.prefetch ? (last - first + 1) * W * c : 0;
          row_fn(r);
          if (!fused) bound.Apply(y, row * row_len, row_len);
          if (++oh == OH) {
            oh = 0, ++plane;
            if (++cb == CB) cb = 0;
          }
        }
      },
      min_chunk);
}

}  // namespace

DepthwiseRowFn PickDepthwiseRow(Isa isa, int64_t c) {
  if (isa == Isa::kAVX512 && c % 16 == 0) return DepthwiseRowAVX512;
  if (isa >= Isa::kAVX2 && c % 8 == 0) return DepthwiseRowAVX2;
  if (c == 1) return DepthwiseRowSweep<1>;
  if (c == 2) return DepthwiseRowSweep<2>;
  if (c == 4) return DepthwiseRowSweep<4>;
  return DepthwiseRowPortable;
}

DepthwiseRow DepthwiseRowShape(int64_t H, int64_t W, int64_t c, int64_t OW, int64_t KH, int64_t KW, int64_t stride_w,
                               int64_t dil_h, int64_t dil_w, int64_t pad_left) {
  DepthwiseRow r{};
  r.H = H, r.W = W, r.c = c, r.OW = OW, r.KH = KH, r.KW = KW;
  r.stride_w = stride_w, r.dil_h = dil_h, r.dil_w = dil_w, r.pad_left = pad_left;
  r.ow_lo = std::min(OW, (pad_left + stride_w - 1) / stride_w);
  const int64_t last = W - 1 + pad_left - (KW - 1) * dil_w;  // the last column whose every tap is inside
  r.ow_hi = last < 0 ? 0 : std::min(OW, last / stride_w + 1);
  r.lo = -std::numeric_limits<float>::infinity();
  r.hi = std::numeric_limits<float>::infinity();
  return r;
}

bool DepthwiseRowTail(const FusedTail& tail, const float** bias, float* lo, float* hi) {
  if (tail.add_kind[0] == FusedTail::kFull || tail.add_kind[1] != FusedTail::kNone) return false;
  if (tail.act == FusedTail::kClip && !(tail.lo <= tail.hi)) return false;
  const float inf = std::numeric_limits<float>::infinity();
  *bias = tail.add_kind[0] == FusedTail::kChannel ? tail.add[0] : nullptr;
  *lo = tail.act == FusedTail::kRelu ? 0.0f : tail.act == FusedTail::kClip ? tail.lo : -inf;
  *hi = tail.act == FusedTail::kClip ? tail.hi : inf;
  return true;
}

TVMLITE_REGISTER_GLOBAL("topi.nn.depthwise_conv2d_nchwc")
    .set_kernel_factory()
    .set_body_typed([](Map<String, Any> attrs_in) {
      static const std::string kKernel = kName;
      KernelAttrs attrs(kKernel, attrs_in);
      const DepthwiseConfig<2> cfg = ReadDepthwiseConfig<2>(attrs, KernelWindow(attrs), [](const KernelAttrs& a) {
        return a.Has("data_layout") ? LayoutBlock(a, "data_layout") : int64_t{-1};
      });
      return MakeKernel(kKernel, cfg.epilogue.num_inputs() + 3, [cfg](const KernelArgs& args) { Run(cfg, args); });
    });

TVMLITE_REGISTER_OP_KERNEL("nn.contrib_depthwise_conv2d_NCHWc", "topi.nn.depthwise_conv2d_nchwc");

}  // namespace topi
}  // namespace tvmlite
