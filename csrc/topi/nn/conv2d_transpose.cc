/*!
 * \file conv2d_transpose.cc
 * \brief topi.nn.conv2d_transpose: nn.conv2d_transpose (ONNX ConvTranspose) as a GEMM on the shared driver, then
 * col2im, with a fused epilogue; topi.nn.conv3d_transpose, the same with a depth (col2vol).
 *
 *   f = topi.nn.conv2d_transpose({"strides": [2, 2], "padding": [1, 1], "output_padding": [1, 1],
 *                                 "epilogue": "add r0 r0 in0; relu r0 r0"})
 *   f(data, weight, bias, out)   # data (N, C, H, W) NCHW, weight (C, O / G, KH, KW) IOHW -> out (N, O, OH, OW)
 *   g = topi.nn.conv3d_transpose({"strides": [2, 2, 2]})
 *   g(data, weight, out)         # data (N, C, D, H, W) NCDHW, weight (C, O / G, KD, KH, KW) IODHW -> out NCDHW
 *
 * with OH = (H - 1) * stride_h - pad_top - pad_bottom + dilation_h * (KH - 1) + 1 + output_padding_h (OW likewise;
 * output_padding only makes the output larger: what lies past the last window is zero), float32 only.
 *
 * Algorithm, per image n and group g (input channels [g * K, g * K + K), output channels [g * O/G, ...)), with
 * K = C / G, M = O/G * KH * KW and P = H * W input pixels:
 *   cols (M, P) = Wt_g (M, K) x X_g (K, P)               Wt_g[(o, kh, kw), c] = weight[g * K + c, o, kh, kw]
 *   out[o, oh, ow] = sum of cols[(o, kh, kw), (h, w)] over oh = h * stride_h - pad_top + kh * dilation_h,
 *                    ow = w * stride_w - pad_left + kw * dilation_w                             (col2im)
 * The GEMM is GemmPacked (gemm.h: packing, tiling, threads, ISA); its A is the weight transposed into Wt (every
 * group, once per call, before the units run), its B is X_g packed per call (PackB). col2im gathers: an output row
 * sums the cols rows that land on it (for each kh at most one input row h, for each kw a strided run of it), so each
 * row is written once, and the epilogue runs on a block of rows right after, while it is in cache; rows nothing
 * lands on (stride > dilation * KH, output_padding) are zeros. col2im items are (output channel, block of rows).
 *
 * Scratch (thread-local, kept across calls like the conv's padded input): Wt (the weight's size), the packed X_g
 * chunk and cols. cols is M x P floats; above kColsBudget the pixels are cut into chunks of at least one pixel (so
 * it stays within max(kColsBudget, M) floats, M <= the weight's size): the output is zeroed first, each chunk's
 * cols are added to the rows they reach, and the last chunk applies the epilogue.
 *
 * Threads: images x groups that are many (or small) run one per task, every step inline in it (a ParallelFor
 * inside a task runs inline); otherwise they run one after the other, each step (PackB, GEMM, col2im) parallel.
 *
 * 3-D (one driver templated over the spatial rank S; a 2-D conv is a 3-D one of depth 1): P = D * H * W pixels,
 * M = O/G * KD * KH * KW taps, and col2im's rows are the output's (od, oh) rows: each gathers, for every kd whose
 * input slice d lands on od and every kh whose input row h lands on oh, the strided runs of input row (d, h).
 *
 * The weight is constant in a model, so its transpose is folded at build: AlterOpLayout writes layout_transform(w,
 * "IOHW", "IOHW{K}i") with kernel_layout "IOHW{K}i" (K = C / G), a weight (G, O/G, KH, KW, K) that is Wt itself, and
 * FoldConstant evaluates it once. A plain IOHW weight (a graph input, a direct call) is transposed per call, in
 * parallel tiles: O(C * O/G * KH * KW) against the GEMM's P times more work, which only pays off when P is large
 * (a vocoder's upsampler, 512 -> 256 k16 over 32 frames, took longer transposing its 8 MB weight than multiplying).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/gemm.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "../../relay/op/nn/window.h"

namespace tvmlite {
namespace topi {
namespace {

const std::string kName = "topi.nn.conv2d_transpose";

/*! \brief cols above this many floats (16 MB) are computed in chunks of pixels. */
constexpr int64_t kColsBudget = int64_t(1) << 22;
/*! \brief An image-and-group unit under this many flops runs in one task when there are several (~100 us). */
constexpr int64_t kSmallUnitFlops = int64_t(1) << 23;
/*! \brief The least col2im work (output values times landing taps) worth a thread. */
constexpr int64_t kMinCol2ImWork = int64_t(1) << 15;

/*! \brief What differs between the 2-D and the 3-D kernel. */
template <int S>
struct Rank {
  static_assert(S == 2 || S == 3, "2-D or 3-D");
  static const std::string& Name() {
    static const std::string name3 = "topi.nn.conv3d_transpose";
    return S == 2 ? kName : name3;
  }
  static constexpr const char* kData = S == 2 ? "NCHW" : "NCDHW";
  static constexpr const char* kKernel = S == 2 ? "IOHW" : "IODHW";
};

/*! \brief The attrs, normalised once by the factory. */
template <int S>
struct Params {
  relay::Window<S> window;
  std::array<int64_t, S> output_padding{};
  int64_t groups = 1;
  int64_t channels = -1;             // -1: not given
  int64_t packed = -1;               // kernel_layout: -1 not given, 0 plain (IOHW), K packed (IOHW{K}i)
  std::vector<int64_t> kernel_size;  // empty: not given
};

/*! \brief An int-list attr that may also be given as one int (strides=2); empty when absent. */
std::vector<int64_t> IntsOrInt(const KernelAttrs& attrs, const char* key) {
  if (!attrs.HasValue(key)) return {};
  const Any* v = attrs.map().get()->Find(Any(String(key)));
  if (v->type_index() == kTVMLiteInt) return {v->cast<int64_t>()};
  return attrs.GetInts(key);
}

template <int S>
Params<S> ParseParams(const KernelAttrs& attrs) {
  const std::string& kName = Rank<S>::Name();
  const std::string want_data = Rank<S>::kData, want_kernel = Rank<S>::kKernel;
  auto text = [&](const char* key) { return attrs.HasValue(key) ? attrs.GetString(key) : std::string(); };
  const std::string data = text("data_layout"), kernel = text("kernel_layout"), out = text("out_layout");
  const std::string dtype = text("out_dtype");
  TVMLITE_CHECK_KIND(data.empty() || data == want_data, NotImplementedError)
      << kName << ": data_layout '" << data << "' is not supported (" << want_data << ")";
  Params<S> p;
  if (!kernel.empty()) {
    try {
      p.packed = relay::PackedInputBlock(kernel, want_kernel);
    } catch (const runtime::Error& e) {
      throw runtime::Error(e.kind(), kName + ": " + e.message());
    }
  }
  TVMLITE_CHECK_KIND(out.empty() || out == want_data, NotImplementedError)
      << kName << ": out_layout '" << out << "' is not supported (" << want_data << ")";
  TVMLITE_CHECK_KIND(dtype.empty() || dtype == "float32", TypeError)
      << kName << ": out_dtype must be float32, got '" << dtype << "'";
  auto arr = [](const std::vector<int64_t>& v) { return Array<int64_t>(v.begin(), v.end()); };
  try {
    p.window = relay::NormalizeWindow<S>(arr(IntsOrInt(attrs, "strides")), arr(IntsOrInt(attrs, "padding")),
                                         arr(IntsOrInt(attrs, "dilation")));
    p.output_padding = relay::PerDim<S>(arr(IntsOrInt(attrs, "output_padding")), "output_padding", 0, 0);
  } catch (const runtime::Error& e) {
    throw runtime::Error(e.kind(), kName + ": " + e.message());
  }
  p.groups = attrs.HasValue("groups") ? attrs.GetInt("groups") : 1;
  TVMLITE_CHECK_KIND(p.groups >= 1 && p.groups <= relay::kMaxWindowValue, ValueError)
      << kName << ": groups must be in [1, " << relay::kMaxWindowValue << "], got " << p.groups;
  if (attrs.HasValue("channels")) {
    p.channels = attrs.GetInt("channels");
    TVMLITE_CHECK_KIND(p.channels >= 0, ValueError) << kName << ": channels must be >= 0, got " << p.channels;
  }
  p.kernel_size = IntsOrInt(attrs, "kernel_size");
  if (p.kernel_size.size() == 1) p.kernel_size.resize(S, p.kernel_size[0]);
  TVMLITE_CHECK_KIND(p.kernel_size.empty() || p.kernel_size.size() == S, ValueError)
      << kName << ": kernel_size needs 1 or " << S << " values, got " << p.kernel_size.size();
  return p;
}

/*! \brief One call's sizes, every tensor checked against the others and the attrs (depth 1 for 2-D). */
struct Workload {
  int64_t batch = 0, in_channels = 0, depth = 1, height = 0, width = 0;    // N, C, D, H, W
  int64_t out_channels = 0, out_depth = 1, out_height = 0, out_width = 0;  // O, OD, OH, OW
  int64_t kernel_d = 1, kernel_h = 1, kernel_w = 1, groups = 1;
  int64_t stride_d = 1, stride_h = 1, stride_w = 1, dilation_d = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_front = 0, pad_top = 0, pad_left = 0;
  int64_t group_in() const { return in_channels / groups; }    // K
  int64_t group_out() const { return out_channels / groups; }  // O / G
  int64_t taps() const { return kernel_d * kernel_h * kernel_w; }
  int64_t rows() const { return out_depth * out_height; }  // col2im's output rows, (od, oh)
};

/*! \brief The output size of one spatial dim, or ValueError when it is below 1 or beyond kMaxWindowValue. */
template <int S>
int64_t OutSize(const Params<S>& p, int i, int64_t in, int64_t kernel) {
  const std::string& kName = Rank<S>::Name();
  const relay::Window<S>& w = p.window;
  const __int128 size = static_cast<__int128>(in - 1) * w.stride[i] - w.pad_begin[i] - w.pad_end[i] +
                        static_cast<__int128>(w.dilation[i]) * (kernel - 1) + 1 + p.output_padding[i];
  TVMLITE_CHECK_KIND(in >= 1 && size >= 1 && size <= relay::kMaxWindowValue, ValueError)
      << kName << ": spatial dim " << i << " of the output would be "
      << (size > relay::kMaxWindowValue ? std::string("too large") : std::to_string(static_cast<int64_t>(size)))
      << " (input " << in << ", stride " << w.stride[i] << ", padding (" << w.pad_begin[i] << ", " << w.pad_end[i]
      << "), kernel " << kernel << ", dilation " << w.dilation[i] << ", output_padding " << p.output_padding[i] << ")";
  return static_cast<int64_t>(size);
}

template <int S>
Workload MakeWorkload(const Params<S>& p, const TensorArg& data, const TensorArg& weight, const TensorArg& out) {
  const std::string& kName = Rank<S>::Name();
  const std::string layout = Rank<S>::kData;
  data.Data<float>();
  weight.Data<float>();
  out.Data<float>();
  TVMLITE_CHECK_KIND(data.ndim() == S + 2, ValueError)
      << kName << ": data must be " << layout << " (" << S + 2 << "-D), got shape " << ShapeString(data);
  // A packed weight (G, O/G, *K, C/G) is Wt already; a plain one (C, O/G, *K) is transposed per call.
  const bool packed = weight.ndim() == S + 3;
  TVMLITE_CHECK_KIND(weight.ndim() == S + 2 || packed, ValueError)
      << kName << ": weight must be " << Rank<S>::kKernel << " (" << S + 2
      << "-D: in_channels, out_channels / groups, kernel...) or " << Rank<S>::kKernel << "{k}i (" << S + 3
      << "-D: groups, out_channels / groups, kernel..., in_channels / groups), got shape " << ShapeString(weight);
  TVMLITE_CHECK_KIND(p.packed < 0 || (p.packed > 0) == packed, ValueError)
      << kName << ": weight " << ShapeString(weight) << " does not match kernel_layout '" << Rank<S>::kKernel
      << (p.packed > 0 ? std::to_string(p.packed) + "i'" : "'");
  TVMLITE_CHECK_KIND(out.ndim() == S + 2, ValueError)
      << kName << ": out must be " << layout << " (" << S + 2 << "-D), got shape " << ShapeString(out);
  Workload wl;
  wl.batch = data.dim(0);
  wl.in_channels = data.dim(1);
  wl.groups = p.groups;
  // Spatial dims, depth first when there is one.
  int64_t in_sp[3] = {1, 1, 1}, k_sp[3] = {1, 1, 1};
  for (int i = 0; i < S; ++i) {
    in_sp[3 - S + i] = data.dim(2 + i);
    k_sp[3 - S + i] = weight.dim(2 + i);
  }
  wl.depth = in_sp[0], wl.height = in_sp[1], wl.width = in_sp[2];
  wl.kernel_d = k_sp[0], wl.kernel_h = k_sp[1], wl.kernel_w = k_sp[2];
  const int64_t weight_in =
      packed ? relay::BoundedMul(weight.dim(0), weight.dim(S + 2), "input channels") : weight.dim(0);
  TVMLITE_CHECK_KIND(weight_in == wl.in_channels && (!packed || weight.dim(0) == p.groups), ValueError)
      << kName << ": weight " << ShapeString(weight) << " is for " << weight_in << " input channels"
      << (packed ? " in " + std::to_string(weight.dim(0)) + " groups" : std::string()) << ", data " << ShapeString(data)
      << " has " << wl.in_channels << (packed ? " in " + std::to_string(p.groups) : std::string());
  TVMLITE_CHECK_KIND(wl.in_channels % p.groups == 0, ValueError)
      << kName << ": data " << ShapeString(data) << " has " << wl.in_channels
      << " channels, not divisible by groups = " << p.groups;
  try {
    wl.out_channels = relay::BoundedMul(weight.dim(1), p.groups, "output channels");
  } catch (const runtime::Error& e) {
    throw runtime::Error(e.kind(), kName + ": " + e.message());
  }
  TVMLITE_CHECK_KIND(p.channels < 0 || p.channels == wl.out_channels, ValueError)
      << kName << ": weight " << ShapeString(weight) << " in " << p.groups << " groups gives " << wl.out_channels
      << " output channels, attribute channels = " << p.channels;
  bool empty = false, kernel_ok = true;
  std::string kernel_text, attr_text;  // "3x3" and "(2, 2)"
  for (int i = 0; i < S; ++i) {
    empty = empty || weight.dim(2 + i) < 1;
    kernel_ok = kernel_ok && (p.kernel_size.empty() || p.kernel_size[i] == weight.dim(2 + i));
    kernel_text += (i ? "x" : "") + std::to_string(weight.dim(2 + i));
    if (!p.kernel_size.empty()) attr_text += (i ? ", " : "(") + std::to_string(p.kernel_size[i]);
  }
  TVMLITE_CHECK_KIND(!empty, ValueError) << kName << ": weight " << ShapeString(weight) << " has an empty kernel";
  TVMLITE_CHECK_KIND(kernel_ok, ValueError) << kName << ": weight " << ShapeString(weight) << " has a " << kernel_text
                                            << " kernel, attribute kernel_size = " << attr_text << ")";
  int64_t out_sp[3] = {1, 1, 1};
  std::vector<int64_t> want{wl.batch, wl.out_channels};
  for (int i = 0; i < S; ++i) {
    out_sp[3 - S + i] = OutSize<S>(p, i, data.dim(2 + i), weight.dim(2 + i));
    want.push_back(out_sp[3 - S + i]);
  }
  wl.out_depth = out_sp[0], wl.out_height = out_sp[1], wl.out_width = out_sp[2];
  out.CheckShape(want);
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
  for (int i = 0; i < S; ++i) {
    stride[3 - S + i] = p.window.stride[i];
    dilation[3 - S + i] = p.window.dilation[i];
    pad[3 - S + i] = p.window.pad_begin[i];
  }
  wl.stride_d = stride[0], wl.stride_h = stride[1], wl.stride_w = stride[2];
  wl.dilation_d = dilation[0], wl.dilation_h = dilation[1], wl.dilation_w = dilation[2];
  wl.pad_front = pad[0], wl.pad_top = pad[1], wl.pad_left = pad[2];
  return wl;
}

/*! \brief This thread's scratch buffer `slot`, grown to n floats and kept (the executor repeats the same calls). */
float* Scratch(int slot, int64_t n) {
  thread_local std::vector<float> buffers[3];
  return AlignedScratch(&buffers[slot], n);  // 64-byte aligned: the packed panels' vectors on cache lines
}
enum Slot { kWeightT = 0, kPackedX = 1, kCols = 2 };

/*!
 * \brief Wt (G, M, K) from the IOHW weight, whose group g is a row-major (K, M) matrix. Tiles of 16 x 16 go through
 * a buffer: each source line is read once, whole (M is often a power of two, so the 16 rows of a tile share one
 * cache set: read in place, column by column, they would evict each other 16 times over). An item is 16 source rows,
 * read front to back (items of 16 columns, each reading a line from every row, made 2 threads slower than 1).
 */
void TransposeWeight(const Workload& wl, const float* w, float* wt) {
  const int64_t K = wl.group_in(), M = wl.group_out() * wl.taps();
  constexpr int64_t kT = 16;
  const int64_t k_tiles = (K + kT - 1) / kT;
  runtime::ParallelFor(
      wl.groups * k_tiles,
      [&](int64_t b, int64_t e) {
        float buf[kT][kT];
        for (int64_t item = b; item < e; ++item) {
          const int64_t g = item / k_tiles, k0 = item % k_tiles * kT, kn = std::min(kT, K - k0);
          const float* src = w + (g * K + k0) * M;
          float* dst = wt + g * M * K + k0;
          for (int64_t m0 = 0; m0 < M; m0 += kT) {
            const int64_t mn = std::min(kT, M - m0);
            if (kn == kT && mn == kT) {  // whole tiles: fixed trip counts, which the compiler unrolls
              float tile[kT][kT];
              for (int64_t k = 0; k < kT; ++k) std::memcpy(buf[k], src + k * M + m0, sizeof(buf[k]));
              for (int64_t m = 0; m < kT; ++m) {
                for (int64_t k = 0; k < kT; ++k) tile[m][k] = buf[k][m];
              }
              for (int64_t m = 0; m < kT; ++m) std::memcpy(dst + (m0 + m) * K, tile[m], sizeof(tile[m]));
              continue;
            }
            for (int64_t k = 0; k < kn; ++k) std::memcpy(buf[k], src + k * M + m0, sizeof(float) * mn);
            for (int64_t m = 0; m < mn; ++m) {
              for (int64_t k = 0; k < kn; ++k) dst[(m0 + m) * K + k] = buf[k][m];
            }
          }
        }
      },
      std::max<int64_t>(1, 16384 / (kT * std::max<int64_t>(1, M))));
}

/*! \brief What col2im needs of one call, fixed for all its units. */
struct Col2Im {
  const Workload* wl;
  std::vector<int64_t> w_begin, w_end;  // per kw: the input columns w whose output column lies in [0, OW)
  int64_t rows_per_item = 1, items_per_plane = 1, min_chunk = 1;
};

Col2Im PlanCol2Im(const Workload& wl) {
  Col2Im c;
  c.wl = &wl;
  c.w_begin.resize(wl.kernel_w);
  c.w_end.resize(wl.kernel_w);
  for (int64_t kw = 0; kw < wl.kernel_w; ++kw) {
    // ow = w * stride - pad_left + kw * dilation in [0, OW): every term below is bounded by the output's size check.
    const int64_t off = kw * wl.dilation_w - wl.pad_left;
    const int64_t lo = off >= 0 ? 0 : (-off + wl.stride_w - 1) / wl.stride_w;
    const int64_t last = wl.out_width - 1 - off;  // w * stride <= last
    const int64_t hi = last < 0 ? 0 : std::min(wl.width, last / wl.stride_w + 1);
    c.w_begin[kw] = std::min(lo, hi);
    c.w_end[kw] = hi;
  }
  // Enough items for the pool when the planes are few; a whole plane per item otherwise. Rows are (od, oh).
  const int64_t want = 4 * static_cast<int64_t>(runtime::NumThreads()), rows = wl.rows();
  const int64_t per_plane =
      std::min(rows, std::max<int64_t>(1, (want + wl.group_out() - 1) / std::max<int64_t>(1, wl.group_out())));
  c.rows_per_item = (rows + per_plane - 1) / per_plane;
  c.items_per_plane = (rows + c.rows_per_item - 1) / c.rows_per_item;
  // Work per item: its output values times the taps landing on each (in double: a heuristic that must not overflow).
  const double landing = std::max(1.0, static_cast<double>(wl.taps()) / wl.stride_d / wl.stride_h / wl.stride_w);
  const double work = static_cast<double>(c.rows_per_item) * wl.out_width * landing;
  c.min_chunk = std::max<int64_t>(1, static_cast<int64_t>(kMinCol2ImWork / work));
  return c;
}

/*!
 * \brief row[at + w * stride] += src[from + w] for w in [begin, end) (offsets, not pointers: at and from may be
 * negative, only the elements touched are inside the arrays).
 */
inline void AddStrided(float* row, int64_t at, const float* src, int64_t from, int64_t stride, int64_t begin,
                       int64_t end) {
  if (stride == 1) {
    for (int64_t w = begin; w < end; ++w) row[at + w] += src[from + w];
  } else if (stride == 2) {
    for (int64_t w = begin; w < end; ++w) row[at + 2 * w] += src[from + w];
  } else {
    for (int64_t w = begin; w < end; ++w) row[at + w * stride] += src[from + w];
  }
}

/*!
 * \brief Output rows [r0, r1) of plane `plane` (n * O + g * O/G + o; row r is (od, oh) = (r / OH, r % OH)): zeroed
 * first when fresh, plus the cols of output channel o of its group whose input pixels are in [p0, p1) (cols holds
 * pixels [p0, p1), row stride p1 - p0).
 */
void GatherRows(const Col2Im& c, const float* cols, int64_t p0, int64_t p1, int64_t o, float* plane, int64_t r0,
                int64_t r1, bool fresh) {
  const Workload& wl = *c.wl;
  const int64_t W = wl.width, OW = wl.out_width, KD = wl.kernel_d, KH = wl.kernel_h, KW = wl.kernel_w;
  const int64_t sw = wl.stride_w, OH = wl.out_height;
  const int64_t ncols = p1 - p0;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t od = r / OH, oh = r % OH;
    float* row = plane + r * OW;
    if (fresh) std::fill(row, row + OW, 0.0f);
    for (int64_t kdh = 0; kdh < KD * KH; ++kdh) {
      const int64_t kd = kdh / KH, kh = kdh % KH;
      const int64_t td = od + wl.pad_front - kd * wl.dilation_d;
      if (td < 0 || td % wl.stride_d != 0) continue;
      const int64_t d = td / wl.stride_d;
      const int64_t t = oh + wl.pad_top - kh * wl.dilation_h;
      if (d >= wl.depth || t < 0 || t % wl.stride_h != 0) continue;
      const int64_t h = t / wl.stride_h;
      if (h >= wl.height) continue;
      const int64_t pixel = (d * wl.height + h) * W;  // input row (d, h)'s first pixel
      const int64_t first = std::max<int64_t>(0, p0 - pixel), end = std::min(W, p1 - pixel);
      if (first >= end) continue;
      // Tap (kd, kh, kw) of input column w: cols[from + kw * ncols + w], landing on row[w * sw + kw * dw - pad_left].
      const int64_t from = ((o * KD + kd) * KH + kh) * KW * ncols + (pixel - p0);
      int64_t kw = 0;
      if (sw == 2 && wl.dilation_w == 1) {
        // Taps kw and kw + 1 land on neighbouring columns: one pass interleaves them (the compiler vectorises it).
        // Tap kw + 1's columns start and end no later than tap kw's (w_begin, w_end never grow with kw), so the
        // pair is tap kw + 1 alone, then both, then tap kw alone.
        for (; kw + 1 < KW; kw += 2) {
          const int64_t wa0 = std::max(first, c.w_begin[kw]), wb0 = std::min(end, c.w_end[kw]);
          const int64_t wa1 = std::max(first, c.w_begin[kw + 1]), wb1 = std::min(end, c.w_end[kw + 1]);
          const int64_t both = std::max(wa0, wb1);
          const int64_t at = kw - wl.pad_left, a = from + kw * ncols, b = a + ncols;
          AddStrided(row, at + 1, cols, b, 2, wa1, std::min(wb1, wa0));
          for (int64_t w = wa0; w < both; ++w) {
            row[at + 2 * w] += cols[a + w];
            row[at + 2 * w + 1] += cols[b + w];
          }
          AddStrided(row, at, cols, a, 2, both, wb0);
        }
      }
      for (; kw < KW; ++kw) {
        const int64_t wa = std::max(first, c.w_begin[kw]), wb = std::min(end, c.w_end[kw]);
        AddStrided(row, kw * wl.dilation_w - wl.pad_left, cols, from + kw * ncols, sw, wa, wb);
      }
    }
  }
}

/*!
 * \brief col2im of one unit's chunk [p0, p1) over its group's output planes (from plane0), items (o, row block) on
 * the pool. `only`: the one chunk (rows start from zero; otherwise the output was zeroed and chunks add to it);
 * `last`: the last chunk, which applies the epilogue to each block it finishes.
 */
void RunCol2Im(const Col2Im& c, const float* cols, int64_t p0, int64_t p1, float* out, int64_t plane0, bool only,
               bool last, const BoundEpilogue& epi) {
  const Workload& wl = *c.wl;
  const int64_t rows = wl.rows(), plane_size = rows * wl.out_width;
  // A chunk that is not the last reaches only the output rows of its input rows (of its input slices in 3-D).
  int64_t reach0 = 0, reach1 = rows;
  if (!only && !last) {
    const int64_t h0 = p0 / wl.width, h1 = (p1 - 1) / wl.width;  // input rows (d, h), flattened
    if (wl.depth == 1) {
      reach0 = std::max<int64_t>(0, h0 * wl.stride_h - wl.pad_top);
      reach1 = std::min(rows, h1 * wl.stride_h - wl.pad_top + (wl.kernel_h - 1) * wl.dilation_h + 1);
    } else {
      const int64_t d0 = h0 / wl.height, d1 = h1 / wl.height;
      reach0 = std::max<int64_t>(0, d0 * wl.stride_d - wl.pad_front) * wl.out_height;
      reach1 = std::min(wl.out_depth, d1 * wl.stride_d - wl.pad_front + (wl.kernel_d - 1) * wl.dilation_d + 1) *
               wl.out_height;
    }
  }
  runtime::ParallelFor(
      wl.group_out() * c.items_per_plane,
      [&](int64_t b, int64_t e) {
        for (int64_t item = b; item < e; ++item) {
          const int64_t o = item / c.items_per_plane;
          const int64_t oh0 = item % c.items_per_plane * c.rows_per_item;
          const int64_t oh1 = std::min(rows, oh0 + c.rows_per_item);
          const int64_t flat = (plane0 + o) * plane_size;
          GatherRows(c, cols, p0, p1, o, out + flat, std::max(oh0, reach0), std::min(oh1, reach1), only);
          if (last && !epi.empty()) epi.Apply(out, flat + oh0 * wl.out_width, (oh1 - oh0) * wl.out_width);
        }
      },
      c.min_chunk);
}

/*! \brief One image n and group g: the GEMM and col2im chunk by chunk. */
void RunUnit(const Workload& wl, const Col2Im& c, const float* x, const float* wt, float* out, int64_t n, int64_t g,
             const BoundEpilogue& epi) {
  const int64_t K = wl.group_in(), M = wl.group_out() * wl.taps(), P = wl.depth * wl.height * wl.width;
  const int64_t chunk = std::min(P, std::max<int64_t>(1, kColsBudget / M));
  const int64_t nb = gemm::NativeBlock();
  const float* xg = x + (n * wl.in_channels + g * K) * P;
  const float* wg = wt + g * M * K;
  const int64_t plane0 = n * wl.out_channels + g * wl.group_out();
  const bool only = chunk == P;
  float* packed = Scratch(kPackedX, gemm::PackedSize(K, chunk, nb));
  float* cols = Scratch(kCols, M * chunk);
  const BoundEpilogue none;
  for (int64_t p0 = 0; p0 < P; p0 += chunk) {
    const int64_t p1 = std::min(P, p0 + chunk);
    gemm::PackB(xg + p0, P, 1, K, p1 - p0, nb, packed);
    gemm::GemmPacked(wg, K, packed, nb, M, p1 - p0, K, cols, p1 - p0, none, 0);
    RunCol2Im(c, cols, p0, p1, out, plane0, only, p1 == P, epi);
  }
}

template <int S>
void Run(const Params<S>& p, const Epilogue& program, const KernelArgs& args) {
  TensorArg data = args.Input(0, "data"), weight = args.Input(1, "weight"), out = args.Output();
  const Workload wl = MakeWorkload<S>(p, data, weight, out);
  BoundEpilogue bound = program.Bind(out.shape(), args.Rest(2), Rank<S>::Name());
  float* y = out.Data<float>();
  const int64_t total = out.size();
  if (total == 0) return;
  if (wl.group_in() == 0) {  // no input channels: an empty sum
    std::fill(y, y + total, 0.0f);
    bound.Apply(y, 0, total);
    return;
  }
  // Every tensor is non-empty from here: its dims' products fit in memory.
  const int64_t K = wl.group_in(), M = wl.group_out() * wl.taps(), P = wl.depth * wl.height * wl.width;
  const float* wt = weight.Data<float>();
  if (weight.ndim() == S + 2) {  // plain: transposed here (AlterOpLayout packs constant weights at build)
    float* t = Scratch(kWeightT, weight.size());
    TransposeWeight(wl, weight.Data<float>(), t);
    wt = t;
  }
  const Col2Im c = PlanCol2Im(wl);
  if (P > std::max<int64_t>(1, kColsBudget / M)) {  // chunks add into the output
    runtime::ParallelFor(total, [&](int64_t b, int64_t e) { std::fill(y + b, y + e, 0.0f); }, int64_t(1) << 16);
  }
  const float* x = data.Data<float>();
  const int64_t units = wl.batch * wl.groups, threads = runtime::NumThreads();
  const double unit_flops = 2.0 * M * K * P;
  if (threads > 1 && units > 1 && (units >= 2 * threads || unit_flops < kSmallUnitFlops)) {
    runtime::ParallelFor(units, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) RunUnit(wl, c, x, wt, y, u / wl.groups, u % wl.groups, bound);
    });
    return;
  }
  for (int64_t u = 0; u < units; ++u) RunUnit(wl, c, x, wt, y, u / wl.groups, u % wl.groups, bound);
}

template <int S>
Function MakeConvTranspose(const std::string& name, Map<String, Any> attrs_in) {
  return MakeParsedKernel(name, attrs_in, 2, ParseParams<S>, Run<S>);
}

TVMLITE_REGISTER_KERNEL_FACTORY(Rank<2>::Name(), MakeConvTranspose<2>);
TVMLITE_REGISTER_KERNEL_FACTORY(Rank<3>::Name(), MakeConvTranspose<3>);

TVMLITE_REGISTER_OP_KERNEL("nn.conv2d_transpose", "topi.nn.conv2d_transpose");
TVMLITE_REGISTER_OP_KERNEL("nn.conv3d_transpose", "topi.nn.conv3d_transpose");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
