/*!
 * \file conv2d_nchwc.cc
 * \brief topi.nn.conv2d_nchwc: the blocked 2-D convolution (nn.contrib_conv2d_NCHWc), with a fused epilogue; and
 * topi.nn.conv3d, the same machinery with a depth (nn.conv3d, nn.contrib_conv3d_NCDHWc).
 *
 *   f = topi.nn.conv2d_nchwc({"strides": [2, 2], "padding": [1, 1], "groups": 1, "epilogue": "add r0 r0 in0"})
 *   f(data, weight, bias, out)     # data (N, C/ic, H, W, ic), weight (O/oc, C/g/ic, KH, KW, ic, oc) -> out
 *   g = topi.nn.conv3d({"strides": [1, 2, 2], "padding": [1, 1, 1], "groups": 1})
 *   g(data, weight, out)           # data (N, C/ic, D, H, W, ic), weight (O/oc, C/g/ic, KD, KH, KW, ic, oc) -> out
 *
 * Both run one rank-templated driver (Rank<2>, Rank<3>): plain NCDHW / OIDHW tensors are blocks of 1, as for 2-D.
 * A 3-D conv is the 2-D workload with a depth (conv2d.h): every path walks the kernel's depth taps around its rows,
 * skipping the taps whose input slice is in the depth padding; the H / W padding is handled as for 2-D.
 *
 * Layouts and the workload: tvmlite/topi/nn/conv2d.h. The factory normalises strides / padding / dilation once
 * (relay's rules, window.h); every call reads the blocks from the tensors' shapes, checks them against each other
 * and against the window formula, binds the epilogue, and runs one path:
 *   AVX-512 (out block 16; out block 8: ymm tiles with 32 registers) or AVX2 (out block 8, or 16 as two halves):
 *     register-tiled direct convolution (csrc/topi/x86/avx512/conv2d_nchwc.cc, csrc/topi/x86/conv2d_nchwc_ymm.inc)
 *     over the grid PlanConv2D picks;
 *   portable: any blocks, one output row of one output block per item, a vector of oc accumulators per pixel (also
 *     the path of padding far larger than the input, which the fast paths' padded copy would make costly).
 * On the fast paths, an epilogue of bias / residual adds and relu / clip (MatchFusedTail) runs in registers before the
 * store; any other program runs through the interpreter on each finished output row.
 * For a conv that pads H or W, the AVX-512 path reads the input in place and gets zero-padded copies of only the
 * input columns its border columns reach (the edge strips); the AVX2 and ymm paths get a zero-padded copy of the
 * whole input and an unpadded workload. A narrow map (7x7) with many output channels on the 8-lane paths, and a
 * strided 1x1 conv there, run instead as a 1x1 conv over an im2col of the input, padded or not (Im2ColPays). The
 * copy's rows, then the work items, are claimed in batches from shared counters by the threads of one launch, so a
 * pool thread the OS runs late does not stall the call; convs under ~1M multiply-adds stay on the calling thread.
 * Depthwise convolution (one input channel per group) is topi.nn.depthwise_conv2d_nchwc's job; here it runs only
 * when the blocks make it an ordinary grouped conv (ic == 1 and oc dividing the channel multiplier).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/conv2d.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <string>
#include <vector>

#include "../../relay/op/nn/window.h"
#include "conv2d_im2col.h"
#include "match_fused_tail.h"

namespace tvmlite {
namespace topi {
namespace {

/*! \brief What differs between the 2-D and the 3-D kernel: names and layouts (S spatial dims). */
template <int S>
struct Rank {
  static_assert(S == 2 || S == 3, "2-D or 3-D");
  static const std::string& Name() {
    static const std::string name = S == 2 ? "topi.nn.conv2d_nchwc" : "topi.nn.conv3d";
    return name;
  }
  static constexpr const char* kData = S == 2 ? "NCHW" : "NCDHW";
  static constexpr const char* kKernel = S == 2 ? "OIHW" : "OIDHW";
  static constexpr const char* kDepthwise =
      S == 2 ? "topi.nn.depthwise_conv2d_nchwc" : "topi.nn.depthwise_conv3d_ncdhwc";
};

/*! \brief The attrs of one conv, normalised once by the factory. */
template <int S>
struct ConvParams {
  relay::Window<S> window;
  int64_t groups = 1;
};

/*! \brief An int-list attr that may also be given as one int (strides=2). */
std::vector<int64_t> IntsOrInt(const KernelAttrs& attrs, const char* key) {
  if (!attrs.Has(key)) return {};
  const Any* v = attrs.map().get()->Find(Any(String(key)));
  if (v->type_index() == kTVMLiteInt) return {v->cast<int64_t>()};
  return attrs.GetInts(key);
}

/*! \brief Whether text is prefix, optionally followed by blocks "<digits><letter>" for each letter of suffixes. */
bool IsLayout(const std::string& text, const std::string& prefix, const std::string& suffixes) {
  if (text == prefix) return true;
  if (text.compare(0, prefix.size(), prefix) != 0) return false;
  size_t pos = prefix.size();
  for (char letter : suffixes) {
    size_t digits = pos;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == pos || digits >= text.size() || text[digits] != letter) return false;
    pos = digits + 1;
  }
  return pos == text.size();
}

/*!
 * \brief The relay attrs this kernel does not read must describe what it computes: NCHW / NCHW{c}c data and output,
 * OIHW / OIHW{i}i{o}o weights (NCDHW / OIDHW for 3-D), float32 (NotImplementedError otherwise: the lowering then
 * runs the reference).
 */
template <int S>
void CheckLayouts(const KernelAttrs& attrs) {
  const std::string& kName = Rank<S>::Name();
  const std::string d = Rank<S>::kData, k = Rank<S>::kKernel;
  const std::string data = attrs.GetString("data_layout", ""), kernel = attrs.GetString("kernel_layout", "");
  const std::string out = attrs.GetString("out_layout", ""), dtype = attrs.GetString("out_dtype", "");
  TVMLITE_CHECK_KIND(data.empty() || IsLayout(data, d, "c"), NotImplementedError)
      << kName << ": data_layout '" << data << "' is not supported (" << d << " or " << d << "{c}c)";
  TVMLITE_CHECK_KIND(kernel.empty() || IsLayout(kernel, k, "io"), NotImplementedError)
      << kName << ": kernel_layout '" << kernel << "' is not supported (" << k << " or " << k << "{i}i{o}o)";
  TVMLITE_CHECK_KIND(out.empty() || IsLayout(out, d, "c"), NotImplementedError)
      << kName << ": out_layout '" << out << "' is not supported (" << d << " or " << d << "{c}c)";
  TVMLITE_CHECK_KIND(dtype.empty() || dtype == "float32", NotImplementedError)
      << kName << ": out_dtype '" << dtype << "' is not supported (float32)";
}

template <int S>
ConvParams<S> ParseParams(const KernelAttrs& attrs) {
  const std::string& kName = Rank<S>::Name();
  CheckLayouts<S>(attrs);
  ConvParams<S> p;
  auto arr = [](const std::vector<int64_t>& v) { return Array<int64_t>(v.begin(), v.end()); };
  try {
    p.window = relay::NormalizeWindow<S>(arr(IntsOrInt(attrs, "strides")), arr(IntsOrInt(attrs, "padding")),
                                         arr(IntsOrInt(attrs, "dilation")));
  } catch (const runtime::Error& e) {
    throw runtime::Error(e.kind(), kName + ": " + e.message());
  }
  p.groups = attrs.GetInt("groups", 1);
  TVMLITE_CHECK_KIND(p.groups >= 1 && p.groups <= relay::kMaxWindowValue, ValueError)
      << kName << ": groups must be >= 1, got " << p.groups;
  return p;
}

/*!
 * \brief The workload of one call, every tensor checked against the others (ValueError naming the kernel). Shapes
 * (S spatial dims: (H, W), or (D, H, W)): data (N, C/ic, *S, ic) or (N, C, *S); weight (O/oc, C/g/ic, *K, ic, oc)
 * or (O, C/g, *K); out (N, O/oc, *S_out, oc) or (N, O, *S_out).
 */
template <int S>
Conv2DWorkload MakeWorkload(const ConvParams<S>& p, const TensorArg& data, const TensorArg& weight,
                            const TensorArg& out) {
  const std::string& kName = Rank<S>::Name();
  const std::string d = Rank<S>::kData, k = Rank<S>::kKernel;
  data.Data<float>();
  weight.Data<float>();
  out.Data<float>();
  TVMLITE_CHECK_KIND(data.ndim() == S + 2 || data.ndim() == S + 3, ValueError)
      << kName << ": data must be " << d << "{c}c (" << S + 3 << "-D) or " << d << " (" << S + 2 << "-D), got shape "
      << ShapeString(data);
  TVMLITE_CHECK_KIND(weight.ndim() == S + 2 || weight.ndim() == S + 4, ValueError)
      << kName << ": weight must be " << k << "{i}i{o}o (" << S + 4 << "-D) or " << k << " (" << S + 2
      << "-D), got shape " << ShapeString(weight);
  TVMLITE_CHECK_KIND(out.ndim() == S + 2 || out.ndim() == S + 3, ValueError)
      << kName << ": out must be " << d << "{c}c (" << S + 3 << "-D) or " << d << " (" << S + 2 << "-D), got shape "
      << ShapeString(out);
  Conv2DWorkload wl;
  const relay::Window<S>& w = p.window;
  const bool blocked_data = data.ndim() == S + 3, blocked_weight = weight.ndim() == S + 4;
  wl.in_block = blocked_data ? data.dim(S + 2) : 1;
  wl.out_block = blocked_weight ? weight.dim(S + 3) : 1;
  const int64_t weight_in_block = blocked_weight ? weight.dim(S + 2) : 1;
  TVMLITE_CHECK_KIND(wl.in_block >= 1 && wl.out_block >= 1, ValueError)
      << kName << ": channel blocks must be >= 1 (data " << ShapeString(data) << ", weight " << ShapeString(weight)
      << ")";
  if (p.groups > 1 && wl.in_block != 1 && weight_in_block == 1 && weight.dim(1) == 1 &&
      p.groups == data.dim(1) * wl.in_block) {  // the depthwise op's tensors: say which kernel takes them
    TVMLITE_THROW(ValueError) << kName << ": depthwise convolution (groups == channels) is " << Rank<S>::kDepthwise
                              << "'s kernel";
  }
  TVMLITE_CHECK_KIND(weight_in_block == wl.in_block, ValueError)
      << kName << ": mismatched blocks: data " << ShapeString(data) << " has input block " << wl.in_block
      << " but weight " << ShapeString(weight) << " has " << weight_in_block;
  // Spatial dims, depth first when there is one (a 2-D conv has depth 1).
  int64_t in_sp[3] = {1, 1, 1}, kernel_sp[3] = {1, 1, 1};
  for (int i = 0; i < S; ++i) {
    in_sp[3 - S + i] = data.dim(2 + i);
    kernel_sp[3 - S + i] = weight.dim(2 + i);
  }
  wl.batch = data.dim(0);
  wl.in_channels = relay::BoundedMul(data.dim(1), wl.in_block, "input channels");
  wl.in_depth = in_sp[0];
  wl.in_height = in_sp[1];
  wl.in_width = in_sp[2];
  wl.out_channels = relay::BoundedMul(weight.dim(0), wl.out_block, "output channels");
  const int64_t group_channels = relay::BoundedMul(weight.dim(1), wl.in_block, "input channels per group");
  wl.kernel_d = kernel_sp[0];
  wl.kernel_h = kernel_sp[1];
  wl.kernel_w = kernel_sp[2];
  wl.groups = p.groups;
  TVMLITE_CHECK_KIND(group_channels * p.groups == wl.in_channels, ValueError)
      << kName << ": weight " << ShapeString(weight) << " reads " << group_channels << " input channels per group, "
      << "but data " << ShapeString(data) << " has " << wl.in_channels << " channels in " << p.groups << " groups";
  TVMLITE_CHECK_KIND(wl.out_channels % p.groups == 0 && (wl.out_channels / p.groups) % wl.out_block == 0, ValueError)
      << kName << ": " << wl.out_channels << " output channels in " << p.groups << " groups of blocks of "
      << wl.out_block << ": each group must hold whole blocks";
  std::array<int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, pad_begin{0, 0, 0}, pad_end{0, 0, 0}, out_sp{1, 1, 1};
  try {
    for (int i = 0; i < S; ++i) {
      const int j = 3 - S + i;
      stride[j] = w.stride[i], dilation[j] = w.dilation[i];
      pad_begin[j] = w.pad_begin[i], pad_end[j] = w.pad_end[i];
      out_sp[j] = relay::WindowOut<S>(Any(in_sp[j]), Any(kernel_sp[j]), w, i, false).template cast<int64_t>();
    }
  } catch (const runtime::Error& e) {
    throw runtime::Error(e.kind(), kName + ": " + e.message());
  }
  wl.stride_d = stride[0], wl.stride_h = stride[1], wl.stride_w = stride[2];
  wl.dilation_d = dilation[0], wl.dilation_h = dilation[1], wl.dilation_w = dilation[2];
  wl.pad_front = pad_begin[0], wl.pad_top = pad_begin[1], wl.pad_left = pad_begin[2];
  wl.pad_back = pad_end[0], wl.pad_bottom = pad_end[1], wl.pad_right = pad_end[2];
  wl.out_depth = out_sp[0], wl.out_height = out_sp[1], wl.out_width = out_sp[2];
  std::vector<int64_t> want{wl.batch, wl.out_channels / wl.out_block};
  for (int i = 0; i < S; ++i) want.push_back(out_sp[3 - S + i]);
  if (out.ndim() == S + 3) {
    want.push_back(wl.out_block);
  } else {
    TVMLITE_CHECK_KIND(wl.out_block == 1, ValueError) << kName << ": out is " << S + 2 << "-D (" << d << ") but weight "
                                                      << ShapeString(weight) << " has output block " << wl.out_block;
  }
  out.CheckShape(want);
  return wl;
}

/*! \brief Any blocks: one output row of one output block per item, oc accumulators per pixel. */
void PortableRows(const Conv2DWorkload& wl, const Conv2DTensors& io, int64_t begin, int64_t end) {
  const int64_t ic = wl.in_block, oc = wl.out_block;
  const int64_t D = wl.in_depth, H = wl.in_height, W = wl.in_width;
  const int64_t OD = wl.out_depth, OH = wl.out_height, OW = wl.out_width;
  const int64_t KD = wl.kernel_d, KH = wl.kernel_h, KW = wl.kernel_w;
  const int64_t in_blocks = wl.in_channels / ic, out_blocks = wl.out_channels / oc;
  const int64_t group_channels = wl.in_channels / wl.groups, group_out = wl.out_channels / wl.groups;
  const int64_t w_cb = group_channels / ic;
  std::vector<float> acc(oc);
  for (int64_t item = begin; item < end; ++item) {
    // item = ((n * out_blocks + ob) * OD + od) * OH + oh: the output's own row order.
    const int64_t oh = item % OH, od = (item / OH) % OD, ob = (item / OH / OD) % out_blocks;
    const int64_t n = item / OH / OD / out_blocks;
    const int64_t c_base = ob * oc / group_out * group_channels;
    const float* w_ob = io.weight + ob * w_cb * KD * KH * KW * ic * oc;
    float* out_row = io.out + item * OW * oc;
    for (int64_t ow = 0; ow < OW; ++ow) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t ci = 0; ci < group_channels; ++ci) {
        const int64_t c = c_base + ci;
        const float* x_c = io.data + ((n * in_blocks + c / ic) * D * H * W) * ic + c % ic;
        const float* w_c = w_ob + (ci / ic) * KD * KH * KW * ic * oc + (ci % ic) * oc;
        for (int64_t kd = 0; kd < KD; ++kd) {
          const int64_t id = od * wl.stride_d - wl.pad_front + kd * wl.dilation_d;
          if (id < 0 || id >= D) continue;
          for (int64_t kh = 0; kh < KH; ++kh) {
            const int64_t ih = oh * wl.stride_h - wl.pad_top + kh * wl.dilation_h;
            if (ih < 0 || ih >= H) continue;
            for (int64_t kw = 0; kw < KW; ++kw) {
              const int64_t iw = ow * wl.stride_w - wl.pad_left + kw * wl.dilation_w;
              if (iw < 0 || iw >= W) continue;
              const float x = x_c[((id * H + ih) * W + iw) * ic];
              const float* wp = w_c + ((kd * KH + kh) * KW + kw) * ic * oc;
              for (int64_t o = 0; o < oc; ++o) acc[o] += x * wp[o];
            }
          }
        }
      }
      std::copy(acc.begin(), acc.end(), out_row + ow * oc);
    }
    if (io.epilogue != nullptr) io.epilogue(io.epilogue_ctx, io.out, out_row - io.out, OW * oc);
  }
}

void ApplyEpilogue(void* ctx, float* out, int64_t begin, int64_t n) {
  static_cast<const BoundEpilogue*>(ctx)->Apply(out, begin, n);
}

/*!
 * \brief Items worth a thread of their own: about 2^19 multiply-adds (~3 us on one core). Within a model run the
 * pool's workers are still spinning from the previous kernel, so a launch costs well under a microsecond; smaller
 * convs stay on the caller. (2^21 kept MobileNetV2's 2-4M multiply-add projections on one thread at 2 threads,
 * 1.4-1.6x slower than onnxruntime's there.)
 */
int64_t MinChunk(int64_t macs_per_item) {
  return std::max<int64_t>(1, (int64_t(1) << 19) / std::max<int64_t>(1, macs_per_item));
}

/*! \brief A 1x1 (1x1x1) kernel: PickConv2DFastPath's pointwise. */
bool IsPointwise(const Conv2DWorkload& wl) { return wl.kernel_d == 1 && wl.kernel_h == 1 && wl.kernel_w == 1; }

/*! \brief Whether the conv pads H or W (depth padding is never copied: the paths skip its taps). */
bool HasPadding(const Conv2DWorkload& wl) {
  return wl.pad_top != 0 || wl.pad_left != 0 || wl.pad_bottom != 0 || wl.pad_right != 0;
}

/*!
 * \brief A zero-padded copy of some columns of a conv's input, made by the threads that then compute on it
 * (ParallelItems): the whole padded input for the paths that read only unpadded workloads (one pass over the input
 * against O * KD * KH * KW / groups multiply-adds per input value, so their loops never test a border), or the edge
 * strips of the AVX-512 path (tvmlite/topi/nn/conv2d.h). Its rows (planes x padded height; a plane is (n, channel
 * block, depth slice)) are copied in batches any thread claims: a copy on the calling thread alone (11-60 us for
 * ResNet's stride-2 inputs) left the other threads idle meanwhile.
 */
struct PaddedCopy {
  const Conv2DWorkload* wl = nullptr;  // the padded conv
  const float* data = nullptr;
  float* dst = nullptr;
  int64_t seg_start[2] = {0, 0}, seg_len[2] = {0, 0};  // padded columns copied, the segments back to back
  int64_t width = 0;                                   // columns per row of dst
  int64_t rows = 0;                                    // planes * (H + pad_top + pad_bottom); 0: no copy
  int64_t batch = 1;                                   // rows per claim: ~32 KB

  PaddedCopy() = default;
  /*! \brief Padded columns [start0, start0 + len0) then [start1, start1 + len1) of every row into out. */
  PaddedCopy(const Conv2DWorkload& w, const float* src, float* out, int64_t start0, int64_t len0, int64_t start1,
             int64_t len1)
      : wl(&w), data(src), dst(out), seg_start{start0, start1}, seg_len{len0, len1}, width(len0 + len1) {
    rows = w.batch * (w.in_channels / w.in_block) * w.in_depth * (w.in_height + w.pad_top + w.pad_bottom);
    batch = std::max<int64_t>(1, (int64_t(1) << 13) / std::max<int64_t>(1, width * w.in_block));
  }

  /*! \brief The whole zero-padded input. */
  static PaddedCopy Whole(const Conv2DWorkload& w, const float* src, float* out) {
    return PaddedCopy(w, src, out, 0, w.in_width + w.pad_left + w.pad_right, 0, 0);
  }

  /*! \brief The workload of the unpadded conv over a whole copy (depth padding stays: the paths skip its taps). */
  Conv2DWorkload Padded() const {
    Conv2DWorkload padded = *wl;
    padded.in_height = wl->in_height + wl->pad_top + wl->pad_bottom;
    padded.in_width = wl->in_width + wl->pad_left + wl->pad_right;
    padded.pad_top = padded.pad_left = padded.pad_bottom = padded.pad_right = 0;
    return padded;
  }

  void Copy(int64_t begin, int64_t end) const {
    if (begin >= end) return;
    const int64_t ic = wl->in_block, H = wl->in_height, W = wl->in_width, pl = wl->pad_left;
    const int64_t Hp = H + wl->pad_top + wl->pad_bottom;
    for (int64_t r = begin; r < end; ++r) {
      const int64_t plane = r / Hp, ih = r % Hp - wl->pad_top;
      float* row = dst + r * width * ic;
      const float* src = ih >= 0 && ih < H ? data + (plane * H + ih) * W * ic : nullptr;
      for (int s = 0; s < 2; ++s) {
        // Padded columns [a, b) of this segment hold input columns [a - pl, b - pl); the rest is padding.
        const int64_t start = seg_start[s], stop = start + seg_len[s];
        const int64_t a = src ? std::min(stop, std::max(start, pl)) : stop;
        const int64_t b = src ? std::max(a, std::min(stop, pl + W)) : stop;
        std::fill(row, row + (a - start) * ic, 0.0f);
        if (b > a) std::copy(src + (a - pl) * ic, src + (b - pl) * ic, row + (a - start) * ic);
        std::fill(row + (b - start) * ic, row + (stop - start) * ic, 0.0f);
        row += (stop - start) * ic;
      }
    }
  }
};

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/*!
 * \brief Run fn over items [0, n) on the pool, the items claimed in batches from a shared counter: a thread the OS
 * starts late (the cores are shared) finds the work already done instead of holding up the call with its half.
 * Batches are contiguous runs of items (rows of one block group), so their weights stay in cache. With a copy of the
 * input to make (a PaddedCopy or an Im2ColCopy with pad.rows > 0), the threads first claim its rows the same way,
 * then wait for the last to be copied.
 */
template <typename F, typename Copy = PaddedCopy>
void ParallelItems(int64_t n, int64_t min_chunk, const F& fn, const Copy& pad = Copy()) {
  const int64_t threads = std::min<int64_t>(runtime::NumThreads(), n / std::max<int64_t>(1, min_chunk));
  if (threads < 2) {
    pad.Copy(0, pad.rows);
    fn(0, n);
    return;
  }
  const int64_t batch = std::max<int64_t>(1, n / (threads * 4));
  std::atomic<int64_t> next{0}, next_row{0}, copied{0};
  runtime::ParallelFor(threads, [&](int64_t, int64_t) {
    for (;;) {
      const int64_t r = next_row.fetch_add(pad.batch, std::memory_order_relaxed);
      if (r >= pad.rows) break;
      const int64_t e = std::min(pad.rows, r + pad.batch);
      pad.Copy(r, e);
      copied.fetch_add(e - r, std::memory_order_release);
    }
    while (copied.load(std::memory_order_acquire) < pad.rows) CpuRelax();  // at most one batch's copy (~2 us)
    for (;;) {
      const int64_t begin = next.fetch_add(batch, std::memory_order_relaxed);
      if (begin >= n) break;
      fn(begin, std::min(n, begin + batch));
    }
  });
}

/*!
 * \brief The floats of the zero-padded input, or -1 when padding reaches far beyond the input (huge strides and
 * pads): the padded copy would then be the cost, and the portable path (which needs none) runs instead.
 */
int64_t PaddedSize(const Conv2DWorkload& wl) {
  const __int128 planes = static_cast<__int128>(wl.batch * wl.in_channels) * wl.in_depth;
  const __int128 padded =
      planes * (wl.in_height + wl.pad_top + wl.pad_bottom) * (wl.in_width + wl.pad_left + wl.pad_right);
  const __int128 input = planes * wl.in_height * wl.in_width;
  return padded <= 4 * input + (1 << 20) ? static_cast<int64_t>(padded) : -1;
}

/*!
 * \brief Whether a conv runs as a 1x1 conv over its im2col (conv2d_im2col.h) rather than as planned, on the 8-lane
 * paths. The 1x1 conv runs the pointwise build's tiles, its broadcasts at fixed offsets, over all the input channels
 * at once (no passes over partial sums), over the flattened plane; the copy is KH * KW times the output plane per
 * input channel. On AVX2, alternating in one process:
 *  - a conv they would run in gathered tiles (narrow maps: 7x7) with at least 256 output channels a group, so each
 *    copied float feeds 256 or more multiply-adds: 3x3 convs to 7x7 with 384-512 output channels (ResNet's stride 2,
 *    Inception's stride 1) 1.02-1.06x faster at one thread, 1.1-1.24x at two, ResNet-18 and Inception v1 0-3%; with
 *    128 output channels or fewer 0.7-0.95x;
 *  - a strided (or padded) 1x1 conv over 8-channel blocks with at least 128 output channels a group: the copy is its
 *    strided subsample, and the 1x1 over it runs flat runs of 6-column tiles instead of rows whose broadcasts skip
 *    every other pixel (7 columns: 4 + 3): ResNet's stride-2 shortcut convs 1.03-1.22x at one thread, 1.0-1.19x at two
 *    (1024 -> 2048 at 14x14: 76 -> 93 GFLOP/s), ResNet-50 1.3%.
 */
bool Im2ColPays(const Conv2DWorkload& wl, const Conv2DPlan& plan, int lanes) {
  if (lanes != 8 || wl.in_depth != 1 || wl.kernel_d != 1 || Im2ColCopy::Size(wl) > (int64_t(1) << 24)) return false;
  const int64_t group_out = wl.out_channels / wl.groups;
  if (plan.gather_pixels) return group_out >= 256;
  return IsPointwise(wl) && !plan.flat_pixels && wl.in_block == 8 && group_out >= 128;
}

/*! \brief The conv as a 1x1 conv over its im2col, the copy made on the pool by the threads that compute. */
void RunIm2Col(const Conv2DWorkload& given, Conv2DTensors io, int64_t threads) {
  static thread_local std::vector<float> cols;  // the calling thread's, kept: the executor calls the same convs
  const Im2ColCopy copy(given, io.data, AlignedScratch(&cols, Im2ColCopy::Size(given)));
  const Conv2DWorkload wl = copy.Pointwise();
  const Conv2DFastPath path = PickConv2DFastPath(wl.out_block, CpuIsa(), /*pointwise=*/true);
  const Conv2DPlan plan = PlanConv2D(wl, path.lanes, path.regs, path.max_tile_rows, path.borders, threads);
  io.data = copy.dst;
  const int64_t macs =
      wl.batch * wl.out_channels * wl.out_height * wl.out_width / plan.num_items * (wl.in_channels / wl.groups);
  ParallelItems(plan.num_items, MinChunk(macs), [&](int64_t b, int64_t e) { path.fn(wl, plan, io, b, e); }, copy);
}

/*!
 * \brief A fast path over the whole grid: plan, copy the edge strips or the whole padded input if the conv pads
 * (the copy made on the pool by the threads that compute), run on the pool.
 */
void RunFast(const Conv2DWorkload& given, Conv2DTensors io, const Conv2DFastPath& path, const FusedTail* tail) {
  Conv2DWorkload wl = given;
  PaddedCopy pad;
  const int64_t threads = runtime::NumThreads();
  Conv2DPlan plan = PlanConv2D(wl, path.lanes, path.regs, path.max_tile_rows, path.borders, threads);
  if (tail != nullptr) {
    io.tail = tail;
    io.epilogue = nullptr;
  }
  if (Im2ColPays(wl, plan, path.lanes)) return RunIm2Col(wl, io, threads);
  // The calling thread's buffer, grown as needed and kept: the executor calls the same convs every run.
  static thread_local std::vector<float> padded;
  if (plan.pad_in_kernel) {  // the input read in place, the border columns (if any) from the edge strips
    const int64_t edge_width = plan.edge_left + plan.edge_right;
    if (edge_width > 0) {
      const int64_t planes = wl.batch * (wl.in_channels / wl.in_block) * wl.in_depth;
      const int64_t Hp = wl.in_height + wl.pad_top + wl.pad_bottom;
      float* edge = AlignedScratch(&padded, planes * Hp * edge_width * wl.in_block);  // 64-byte aligned (scratch.h)
      pad = PaddedCopy(given, io.data, edge, 0, plan.edge_left, plan.edge_right_start, plan.edge_right);
      io.edge = edge;
    }
  } else if (HasPadding(given)) {  // a whole padded copy, and the unpadded conv over it
    pad = PaddedCopy::Whole(given, io.data, AlignedScratch(&padded, PaddedSize(given)));
    wl = pad.Padded();
    io.data = pad.dst;
    plan = PlanConv2D(wl, path.lanes, path.regs, path.max_tile_rows, false, threads);
  }
  const int64_t macs_per_pixel = wl.in_channels / wl.groups * wl.kernel_d * wl.kernel_h * wl.kernel_w;
  const int64_t macs =
      wl.batch * wl.out_channels * wl.out_depth * wl.out_height * wl.out_width / plan.num_items * macs_per_pixel;
  ParallelItems(plan.num_items, MinChunk(macs), [&](int64_t b, int64_t e) { path.fn(wl, plan, io, b, e); }, pad);
}

/*!
 * \brief Blocks no fast path takes, on a fast path: plain NCHW / OIHW tensors (blocks of 1; NCDHW / OIDHW likewise),
 * and blocks of 2 or 4 (AlterOpLayout's for channels no 8 divides: ShuffleNet's 58 / 116 / 232). Re-block the data
 * and the weights (ic: the group's channels when at most 16, else the largest of 16, 8, 4, 2 dividing them; oc: 16
 * or 8, and for one group whose channels neither divides, 8 over the channels padded with zero weights), run
 * blocked into a scratch output, copy its real channels out in the output's blocks, then run the epilogue on the
 * output. Three passes over the tensors against O * KH * KW / groups multiply-adds per input value. False when no
 * output block fits (the portable path runs).
 */
bool RunRepacked(const Conv2DWorkload& wl, const Conv2DTensors& io, Isa isa, const BoundEpilogue& bound) {
  const int64_t group_in = wl.in_channels / wl.groups, group_out = wl.out_channels / wl.groups;
  int64_t ic = group_in <= 16 ? group_in : 1;
  for (int64_t b : {16, 8, 4, 2}) {
    if (ic == 1 && group_in % b == 0) ic = b;
  }
  const bool pad_out = group_out % 8 != 0 && wl.groups == 1;
  const int64_t oc = group_out % 16 == 0 ? 16 : group_out % 8 == 0 || pad_out ? 8 : 0;
  const Conv2DFastPath path = PickConv2DFastPath(oc, isa, IsPointwise(wl));
  if (path.fn == nullptr || ic < 1) return false;
  const int64_t N = wl.batch, C = wl.in_channels, O = wl.out_channels, padded_o = (O + oc - 1) / oc * oc;
  Conv2DWorkload blocked = wl;
  blocked.in_block = ic;
  blocked.out_block = oc;
  blocked.out_channels = padded_o;
  const int64_t plane = wl.in_depth * wl.in_height * wl.in_width;
  const int64_t taps = wl.kernel_d * wl.kernel_h * wl.kernel_w;
  const int64_t out_plane = wl.out_depth * wl.out_height * wl.out_width;
  static thread_local std::vector<float> data_buf, weight_buf, out_buf;  // 64-byte aligned (scratch.h)
  const int64_t in_b = wl.in_block, w_ob = wl.out_block, out_b = wl.out_block;
  float* data = ic == in_b ? nullptr : AlignedScratch(&data_buf, N * C * plane);  // null: the input as it is
  float* weight = AlignedScratch(&weight_buf, padded_o * group_in * taps);
  float* out = AlignedScratch(&out_buf, N * padded_o * out_plane);
  // Element (n, c, i) of an (N, channels / b, pixels, b) tensor (b = 1: NCHW) is at blocked_at(n, c, i, ...).
  auto blocked_at = [](int64_t n, int64_t c, int64_t i, int64_t channels, int64_t b, int64_t pixels) {
    return ((n * channels + c - c % b) * pixels + i * b) + c % b;
  };
  if (data != nullptr)
    runtime::ParallelFor(
        N * C,
        [&](int64_t begin, int64_t end) {  // blocks of in_b -> of ic
          for (int64_t nc = begin; nc < end; ++nc) {
            const int64_t n = nc / C, c = nc % C;
            const float* src = io.data + blocked_at(n, c, 0, C, in_b, plane);
            float* dst = data + blocked_at(n, c, 0, C, ic, plane);
            for (int64_t i = 0; i < plane; ++i) dst[i * ic] = src[i * in_b];
          }
        },
        /*min_chunk=*/std::max<int64_t>(1, 16384 / std::max<int64_t>(plane, 1)));
  // weight: (O/w_ob, C/g/in_b, taps, in_b, w_ob) -> (padded_o/oc, C/g/ic, taps, ic, oc), zeros past O
  if (padded_o != O) std::fill(weight, weight + padded_o * group_in * taps, 0.0f);
  for (int64_t o = 0; o < O; ++o) {
    for (int64_t ci = 0; ci < group_in; ++ci) {
      const float* src =
          io.weight + ((o / w_ob * (group_in / in_b) + ci / in_b) * taps * in_b + ci % in_b) * w_ob + o % w_ob;
      float* dst = weight + ((o / oc * (group_in / ic) + ci / ic) * taps * ic + ci % ic) * oc + o % oc;
      for (int64_t k = 0; k < taps; ++k) dst[k * ic * oc] = src[k * in_b * w_ob];
    }
  }
  RunFast(blocked, Conv2DTensors{data ? data : io.data, weight, out, nullptr, nullptr}, path, nullptr);
  runtime::ParallelFor(
      N * O,
      [&](int64_t begin, int64_t end) {  // out: blocks of oc (padded) -> blocks of out_b
        for (int64_t no = begin; no < end; ++no) {
          const int64_t n = no / O, o = no % O;
          const float* src = out + blocked_at(n, o, 0, padded_o, oc, out_plane);
          float* dst = io.out + blocked_at(n, o, 0, O, out_b, out_plane);
          for (int64_t i = 0; i < out_plane; ++i) dst[i * out_b] = src[i * oc];
        }
      },
      /*min_chunk=*/std::max<int64_t>(1, 16384 / std::max<int64_t>(out_plane, 1)));
  if (!bound.empty()) {
    runtime::ParallelFor(
        N * O * out_plane, [&](int64_t b, int64_t e) { bound.Apply(io.out, b, e - b); }, /*min_chunk=*/16384);
  }
  return true;
}

template <int S>
void Run(const ConvParams<S>& p, const Epilogue& program, const KernelArgs& args) {
  TensorArg data = args.Input(0, "data"), weight = args.Input(1, "weight"), out = args.Output();
  Conv2DWorkload wl = MakeWorkload<S>(p, data, weight, out);
  BoundEpilogue bound = program.Bind(out.shape(), args.Rest(2), Rank<S>::Name());
  Conv2DTensors io{data.Data<float>(), weight.Data<float>(), out.Data<float>(),
                   bound.empty() ? nullptr : &ApplyEpilogue, &bound};
  if (out.size() == 0) return;
  const Isa isa = CpuIsa();
  const bool pad_ok = PaddedSize(wl) >= 0;
  const bool plain = data.ndim() == S + 2 && weight.ndim() == S + 2 && out.ndim() == S + 2;
  const Conv2DFastPath path = pad_ok ? PickConv2DFastPath(wl.out_block, isa, IsPointwise(wl)) : Conv2DFastPath();
  if (pad_ok && (plain || path.fn == nullptr) && isa != Isa::kScalar && RunRepacked(wl, io, isa, bound)) return;
  if (path.fn == nullptr) {
    const int64_t macs_per_pixel = wl.in_channels / wl.groups * wl.kernel_d * wl.kernel_h * wl.kernel_w;
    const int64_t items = wl.batch * (wl.out_channels / wl.out_block) * wl.out_depth * wl.out_height;
    ParallelItems(items, MinChunk(wl.out_block * wl.out_width * macs_per_pixel),
                  [&](int64_t b, int64_t e) { PortableRows(wl, io, b, e); });
    return;
  }
  FusedTail tail;
  const bool fused = io.epilogue != nullptr && out.ndim() == S + 3 &&
                     MatchFusedTail(program, args.Rest(2), out.shape(), BlockedChannelShape(out.shape()), &tail);
  RunFast(wl, io, path, fused ? &tail : nullptr);
}

template <int S>
Function MakeConv(const std::string& name, Map<String, Any> attrs_in) {
  return MakeParsedKernel(name, attrs_in, 2, ParseParams<S>, Run<S>);
}

}  // namespace

Conv2DFastPath PickConv2DFastPath(int64_t out_block, Isa isa, bool pointwise) {
  Conv2DFastPath f;
  if (isa == Isa::kAVX512 && out_block == 16) {
    f.fn = &Conv2DNCHWcAVX512, f.lanes = 16, f.regs = 32, f.max_tile_rows = 2, f.borders = true;
  } else if (isa == Isa::kAVX512 && out_block == 8) {
    f.fn = &Conv2DNCHWcAVX512Ymm, f.lanes = 8, f.regs = 32;
  } else if (isa != Isa::kScalar && (out_block == 8 || out_block == 16)) {
    f.fn = pointwise ? &Conv2DNCHWcAVX2Pointwise : &Conv2DNCHWcAVX2, f.lanes = 8, f.regs = 16;
  }
  return f;
}

Conv2DPlan PlanConv2D(const Conv2DWorkload& wl, int lanes, int num_regs, int max_tile_rows, bool borders,
                      int64_t threads) {
  Conv2DPlan plan;
  plan.col_hi = wl.out_width;
  if (borders && HasPadding(wl)) {
    // Interior columns: ow * stride_w - pad_left >= 0 and ow * stride_w - pad_left + reach <= W - 1.
    const int64_t sw = wl.stride_w, reach = (wl.kernel_w - 1) * wl.dilation_w;
    const int64_t lo = (wl.pad_left + sw - 1) / sw, last = wl.in_width - 1 + wl.pad_left - reach;
    const int64_t hi = last < 0 ? 0 : std::min(wl.out_width, last / sw + 1);
    if (lo < hi) {
      plan.pad_in_kernel = true;
      plan.col_lo = lo, plan.col_hi = hi;
      plan.edge_left = lo > 0 ? (lo - 1) * sw + reach + 1 : 0;
      plan.edge_right_start = hi * sw;
      plan.edge_right = hi < wl.out_width ? (wl.out_width - 1) * sw + reach + 1 - hi * sw : 0;
    }
  }
  const int64_t halves = std::max<int64_t>(1, wl.out_block / lanes);  // vectors per output block
  const int64_t budget = num_regs - 4;                                // accumulators; the rest: weights, input
  const int64_t group_blocks = wl.out_channels / wl.groups / wl.out_block;
  const int64_t max_tile = num_regs >= 32 ? 14 : 12;
  // Two blocks per tile when they divide the group; else three (9 blocks: 144 channels; on AVX2 3 blocks, 4 columns:
  // MobileNetV2's 24-channel projects ran 1.25-1.3x faster than one block of 12 columns, which read each input
  // pixel three times); else one.
  plan.out_blocks_per_item = group_blocks % 2 == 0 && budget / (2 * halves) >= 3       ? 2
                             : group_blocks % 3 == 0 && halves == 1 && budget / 3 >= 4 ? 3
                                                                                       : 1;
  const int64_t vectors = plan.out_blocks_per_item * halves;  // per output pixel
  plan.tile_width = std::min<int64_t>(max_tile, budget / vectors);
  plan.flat_pixels = wl.kernel_h == 1 && wl.kernel_w == 1 && wl.stride_h == 1 && wl.stride_w == 1 && wl.pad_top == 0 &&
                     wl.pad_left == 0 && wl.pad_bottom == 0 && wl.pad_right == 0;
  const int64_t block_groups = wl.out_channels / wl.out_block / plan.out_blocks_per_item;
  const int64_t planes = wl.batch * block_groups * wl.out_depth;  // (n, block group, od)
  // A row of OW columns in ceil(OW / T) balanced tiles fills on average OW / ceil(OW / T) of T columns: below 70%
  // (7 columns of 6: 3.5), the 8-lane paths tile the flattened plane instead (the AVX-512 path has two-row tiles).
  // On AVX2, 3x3 convs to a 7x7 output ran 1.07-1.2x faster at one thread, 1.08x at two; 14 columns of 6 (78%)
  // ran 0.95-1.08x, 1x1 convs (stride 2, 7x7) 0.89x, and tiles of 12 columns (one block) 0.94-0.96x (the columns'
  // offsets no longer fit the general registers): none of those gathers.
  const int64_t row_tiles = (wl.out_width + plan.tile_width - 1) / plan.tile_width;
  const int64_t taps = wl.kernel_d * wl.kernel_h * wl.kernel_w;
  const bool one_tap = taps == 1;
  plan.gather_pixels = !plan.flat_pixels && !one_tap && lanes == 8 && plan.tile_width <= 8 && wl.out_height > 1 &&
                       100 * wl.out_width < 70 * row_tiles * plan.tile_width;
  if (plan.flat_pixels || plan.gather_pixels) {
    const int64_t pixels = wl.out_height * wl.out_width;
    // Runs of 16 tiles for the 8-lane paths' 1x1 convs, not 4: an item's set-up costs about a tile of a 1x1 conv over
    // 16 channels (MobileNetV2's 16 -> 96 at 112x112 1.09x faster at one thread on AVX2, ResNet's 1x1 convs 1-2%).
    const int64_t tiles_per_run = plan.flat_pixels && lanes == 8 ? 16 : 4;
    plan.row_length = std::min<int64_t>(pixels, tiles_per_run * plan.tile_width);
    plan.rows = (pixels + plan.row_length - 1) / plan.row_length;
    // A last run narrower than a tile: balance (a gathered 7x7: 17 + 17 + 15, not 24 + 24 + 1).
    if (pixels - (plan.rows - 1) * plan.row_length < plan.tile_width) {
      plan.row_length = (pixels + plan.rows - 1) / plan.rows;
      plan.rows = (pixels + plan.row_length - 1) / plan.row_length;
    }
    // More, shorter runs while the items do not balance over the threads (MobileNetV2's 960 -> 160 at 7x7: 5 block
    // groups of one run each left one of two threads idle for a fifth of the conv), down to one tile's width.
    for (int64_t rows = plan.rows + 1;
         planes * plan.rows % threads != 0 && planes * plan.rows < 8 * threads && pixels / rows >= plan.tile_width;
         ++rows) {
      plan.row_length = (pixels + rows - 1) / rows;
      plan.rows = (pixels + plan.row_length - 1) / plan.row_length;
    }
  } else {
    plan.row_length = wl.out_width;
    plan.rows = wl.out_height;
    // A narrow row (7 columns) leaves registers idle: let a tile take two rows when the widest tile still fits.
    const int64_t widest = (wl.out_width + (wl.out_width + plan.tile_width - 1) / plan.tile_width - 1) /
                           ((wl.out_width + plan.tile_width - 1) / plan.tile_width);
    if (max_tile_rows >= 2 && wl.out_height >= 2 && 2 * widest * vectors <= budget) plan.tile_rows = 2;
  }
  plan.num_items = planes * ((plan.rows + plan.tile_rows - 1) / plan.tile_rows);
  const int64_t ncb = wl.in_channels / wl.groups / wl.in_block;
  plan.cb_chunk = ncb;
  // Small maps (<= 14 columns) whose 3x3 (or larger) weights per block group overflow L1: passes of ~16 KB of
  // weights, when that leaves at least 2 items per thread's worth of parallelism (the pass needs the whole plane in
  // one item). Not 1x1 convs: their input, re-read by every pass of every block group, is the larger stream.
  const int64_t bytes_per_cb = wl.in_block * taps * plan.out_blocks_per_item * wl.out_block * 4;
  // On AVX2 (ResNet's 3x3 stride-2 convs to 7x7 and 14x14): 1.02-1.11x at one thread, 1.04-1.11x at two.
  if (!plan.flat_pixels && taps > 1 && wl.out_width <= 14 && ncb * bytes_per_cb > (int64_t(48) << 10) && planes >= 8) {
    plan.cb_chunk = std::max<int64_t>(1, (int64_t(16) << 10) / bytes_per_cb);
    if (plan.cb_chunk < ncb) {
      // 8 whole planes (ResNet's 256-channel stride-2 conv) left a thread idle for up to one of them (~12%) at two
      // threads; parts of at least 2 rows each (the ymm paths: one row or run) re-read the pass's weights, from L2
      // when on one thread.
      const int64_t max_parts = max_tile_rows >= 2 ? wl.out_height / 2 : plan.rows;
      plan.plane_parts = std::max<int64_t>(1, std::min((16 + planes - 1) / planes, max_parts));
      plan.num_items = planes * plan.plane_parts;
    }
  }
  return plan;
}

int64_t Conv2DPaddedSize(const Conv2DWorkload& wl) { return PaddedSize(wl); }

Conv2DWorkload PadConv2DInput(const Conv2DWorkload& wl, const float* data, float* dst) {
  if (!HasPadding(wl)) return wl;
  // The caller's copy, made apart from its conv: its rows in parallel only when the input is large (the stem's
  // 600 KB), a launch costing more than a small copy.
  const PaddedCopy pad = PaddedCopy::Whole(wl, data, dst);
  const int64_t Wp = wl.in_width + wl.pad_left + wl.pad_right;
  runtime::ParallelFor(
      pad.rows, [&](int64_t begin, int64_t end) { pad.Copy(begin, end); },
      std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, Wp * wl.in_block)));
  return pad.Padded();
}

TVMLITE_REGISTER_KERNEL_FACTORY(Rank<2>::Name(), MakeConv<2>);
TVMLITE_REGISTER_KERNEL_FACTORY(Rank<3>::Name(), MakeConv<3>);

// The lowering's kernel for the blocked conv (AlterOpLayout's output) and for plain NCHW convs (blocks of 1).
TVMLITE_REGISTER_OP_KERNEL("nn.contrib_conv2d_NCHWc", "topi.nn.conv2d_nchwc");
TVMLITE_REGISTER_OP_KERNEL("nn.conv2d", "topi.nn.conv2d_nchwc");
// The 3-D conv: the blocked op AlterOpLayout makes, and plain NCDHW convs (blocks of 1).
TVMLITE_REGISTER_OP_KERNEL("nn.contrib_conv3d_NCDHWc", "topi.nn.conv3d");
TVMLITE_REGISTER_OP_KERNEL("nn.conv3d", "topi.nn.conv3d");

}  // namespace topi
}  // namespace tvmlite
