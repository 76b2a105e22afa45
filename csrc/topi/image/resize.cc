/*!
 * \file resize.cc
 * \brief topi.image.resize2d: relay's image.resize (ONNX Resize) on 4-D NCHW float32 data, resizing H and W.
 *
 *   f = topi.image.resize2d({"mode": "linear", "coordinate_transformation_mode": "half_pixel"})
 *   f(data, roi, scales, sizes, out)        // the op's four inputs; the output is preallocated
 *
 * Inputs are the op's: data (N, C, H, W) float32, roi (ignored: tf_crop_and_resize is not served), scales (1-D
 * float32, one per resized axis, empty when sizes is given), sizes (1-D int64, empty when scales is given). The
 * output size and the scale each axis's coordinates use come from ResizeOutputShape (tvmlite/topi/resize_geometry.h,
 * which the reference uses too): with scales, out = floor(in * scale) and the coordinates use the scale itself, not
 * out / in; with sizes, the keep_aspect_ratio_policy. The out tensor must have that shape.
 * `axes` may list N and C only where they stay as they are (scale 1, same size).
 *
 * Served: mode nearest (every nearest_mode), linear and cubic (cubic_coeff_a, exclude_outside); coordinate modes
 * half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn. Not
 * served, ValueError when the kernel is made (the lowering falls back to the reference): tf_crop_and_resize, and
 * antialias with linear / cubic.
 *
 * Algorithm: resize is separable. Per call, each spatial axis gets a table of (input index, weight) taps per
 * output position (1 for nearest, 2 linear, 4 cubic), built in float64 with the reference's own arithmetic (its
 * floor/ratio rule, edge clamping, exclude_outside renormalisation), so nearest picks exactly the reference's
 * pixels. Nearest is a gather. Interpolation is two passes over bands of 16 output rows: each input row the band
 * reads is interpolated along W once (into a per-task buffer), then each output row is sum_ty wy * row_ty, a
 * contiguous, vectorised sum. An axis the reference leaves alone (same
 * size and scale 1) gets the identity table.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/kernel_accepts.h>
#include <tvmlite/topi/resize_geometry.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace tvmlite {
namespace topi {

namespace {

const char kName[] = "topi.image.resize2d";

enum class Mode { kNearest, kLinear, kCubic };
enum class Ctm { kHalfPixel, kHalfPixelSymmetric, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixelForNN };
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

template <typename E>
E Choose(const std::string& key, const std::string& value, const std::vector<std::pair<const char*, E>>& choices) {
  std::string list;
  for (const auto& [name, e] : choices) {
    if (value == name) return e;
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  TVMLITE_THROW(ValueError) << kName << ": " << key << " '" << value << "' is not supported (" << list << ")";
}

struct ResizeConfig {
  Mode mode;
  Ctm ctm;
  NearestMode nearest;
  ResizePolicy policy;
  double cubic_a;
  bool exclude_outside;
  std::vector<int64_t> axes;
  Epilogue epilogue;
};

/*! \brief One axis: out_len output positions, each `taps` (input index, weight) pairs. */
struct AxisTable {
  int taps = 1;
  std::vector<int64_t> index;
  std::vector<float> weight;
};

double OriginalCoord(Ctm ctm, double x, int64_t in_len, int64_t out_len, double scale) {
  const double width = static_cast<double>(in_len) * scale;
  switch (ctm) {
    case Ctm::kHalfPixel: return (x + 0.5) / scale - 0.5;
    case Ctm::kHalfPixelSymmetric: {
      const double adjustment = width != 0 ? static_cast<double>(out_len) / width : 1.0;
      const double offset = static_cast<double>(in_len) / 2 * (1 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case Ctm::kPytorchHalfPixel: return width > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case Ctm::kAlignCorners: return width != 1 ? x * static_cast<double>(in_len - 1) / (width - 1) : 0.0;
    case Ctm::kAsymmetric: return x / scale;
    case Ctm::kTfHalfPixelForNN: return (x + 0.5) / scale;
  }
  return 0.0;
}

AxisTable BuildAxis(const ResizeConfig& cfg, int64_t in_len, int64_t out_len, double scale) {
  AxisTable t;
  if (out_len == in_len && scale == 1.0) {  // the reference skips this axis: the identity
    for (int64_t o = 0; o < out_len; ++o) t.index.push_back(o), t.weight.push_back(1.0f);
    return t;
  }
  t.taps = cfg.mode == Mode::kNearest ? 1 : cfg.mode == Mode::kLinear ? 2 : 4;
  t.index.resize(out_len * t.taps);
  t.weight.resize(out_len * t.taps);
  const double a = cfg.cubic_a;
  for (int64_t o = 0; o < out_len; ++o) {
    const double x = OriginalCoord(cfg.ctm, static_cast<double>(o), in_len, out_len, scale);
    double f = std::floor(x);
    double ratio = x - f;
    if (ratio == 0) f -= 1, ratio = 1.0;
    int64_t base = static_cast<int64_t>(f);
    double coeffs[4];
    int64_t first;  // offset of the first tap from f
    if (cfg.mode == Mode::kNearest) {
      bool up = ratio == 1.0                                    ? true
                : cfg.nearest == NearestMode::kRoundPreferFloor ? ratio > 0.5
                : cfg.nearest == NearestMode::kRoundPreferCeil  ? ratio >= 0.5
                                                                : cfg.nearest == NearestMode::kCeil;
      first = up ? 1 : 0;
      coeffs[0] = 1.0;
    } else if (cfg.mode == Mode::kLinear) {
      first = 0;
      coeffs[0] = 1 - ratio, coeffs[1] = ratio;
    } else {
      first = -1;
      const double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
      coeffs[0] = ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a;
      coeffs[1] = ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1;
      coeffs[2] = ((a + 2) * q - (a + 3)) * q * q + 1;
      coeffs[3] = ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a;
    }
    if (cfg.exclude_outside && cfg.mode != Mode::kNearest) {
      double total = 0;
      for (int k = 0; k < t.taps; ++k) {
        const int64_t i = base + first + k;
        if (i < 0 || i >= in_len) coeffs[k] = 0;
        total += coeffs[k];
      }
      if (total != 0) {
        for (int k = 0; k < t.taps; ++k) coeffs[k] /= total;
      }
    }
    for (int k = 0; k < t.taps; ++k) {
      t.index[o * t.taps + k] = std::clamp<int64_t>(base + first + k, 0, in_len - 1);
      t.weight[o * t.taps + k] = static_cast<float>(coeffs[k]);
    }
  }
  return t;
}

/*! \brief Output dims and per-dim scales of data's 4 dims (ResizeOutputShape, with the kernel's tensor checks). */
ResizeGeometry OutputGeometry(const ResizeConfig& cfg, const std::vector<int64_t>& shape, const TensorArg& scales,
                              const TensorArg& sizes) {
  std::vector<double> scale_values;
  std::vector<int64_t> size_values;
  if (sizes.size() > 0) {
    sizes.CheckNDim(1);
    size_values.assign(sizes.Data<int64_t>(), sizes.Data<int64_t>() + sizes.size());
  } else if (scales.size() > 0) {
    scales.CheckNDim(1);
    scale_values.assign(scales.Data<float>(), scales.Data<float>() + scales.size());
  }
  return ResizeOutputShape(shape, cfg.axes, {}, scale_values, size_values, cfg.policy, kName);
}

/*!
 * \brief The dtypes of run(data, roi, scales, sizes, [epilogue inputs], out) the kernel takes: float32 data, scales
 * and out, int64 sizes (checked whether or not the call reads them); roi is never read.
 */
std::string DTypesReason(DLDataType data, DLDataType scales, DLDataType sizes, DLDataType out) {
  if (!IsF32(data)) return std::string(kName) + ": data must be float32, got " + DTypeName(data);
  if (!IsF32(scales)) return std::string(kName) + ": scales must be float32, got " + DTypeName(scales);
  if (!IsDType(sizes, kDLInt, 64)) return std::string(kName) + ": sizes must be int64, got " + DTypeName(sizes);
  if (!IsF32(out)) return std::string(kName) + ": out must be float32, got " + DTypeName(out);
  return "";
}

void Run(const ResizeConfig& cfg, const KernelArgs& args) {
  TensorArg data = args.Input(0, "data");
  TensorArg scales = args.Input(2, "scales");
  TensorArg sizes = args.Input(3, "sizes");
  TensorArg out = args.Output();
  const std::string reason = DTypesReason(data.dtype(), scales.dtype(), sizes.dtype(), out.dtype());
  TVMLITE_CHECK_KIND(reason.empty(), TypeError) << reason;
  const float* x = data.Data<float>();
  float* y = out.Data<float>();
  data.CheckNDim(4);
  const std::vector<int64_t> shape = data.shape();
  const ResizeGeometry geometry = OutputGeometry(cfg, shape, scales, sizes);
  const std::vector<int64_t>& want = geometry.shape;
  const std::vector<double>& scale = geometry.scale;
  out.CheckShape(want);
  for (int a = 0; a < 2; ++a) {
    if (want[a] != shape[a] || scale[a] != 1.0) {
      TVMLITE_THROW(ValueError) << kName << ": resizing axis " << a << " (" << (a == 0 ? "batch" : "channels")
                                << ") is not supported, only H and W";
    }
  }
  const int64_t N = shape[0], C = shape[1], H = shape[2], W = shape[3], OH = want[2], OW = want[3];
  if ((H == 0 && OH > 0) || (W == 0 && OW > 0)) data.Fail("is empty: there is nothing to resize");
  BoundEpilogue bound = cfg.epilogue.Bind(want, args.Rest(4), kName);
  if (N * C * OH * OW == 0) return;
  const AxisTable th = BuildAxis(cfg, H, OH, scale[2]);
  const AxisTable tw = BuildAxis(cfg, W, OW, scale[3]);
  if (th.taps == 1 && tw.taps == 1) {  // nearest (or identity): a gather per output row
    const int64_t rows = N * C * OH;
    runtime::ParallelFor(
        rows,
        [&](int64_t begin, int64_t end) {
          for (int64_t row = begin; row < end; ++row) {
            const int64_t plane = row / OH, oy = row % OH;
            const float* src = x + plane * H * W + th.index[oy] * W;
            float* o = y + row * OW;
            for (int64_t ox = 0; ox < OW; ++ox) o[ox] = src[tw.index[ox]];
          }
          bound.Apply(y, begin * OW, (end - begin) * OW);
        },
        std::max<int64_t>(1, 16384 / std::max<int64_t>(1, OW)));
    return;
  }
  // Interpolation: per unit of up to kBand output rows of one plane, the horizontal pass runs once for each input
  // row the band reads (kept in a per-chunk buffer), then each output row is a weighted sum of those rows.
  constexpr int64_t kBand = 16;
  const int64_t bands = (OH + kBand - 1) / kBand;
  runtime::ParallelFor(
      N * C * bands,
      [&](int64_t begin, int64_t end) {
        std::vector<float> rows_buf;
        std::vector<int64_t> slot;  // input row -> its row in rows_buf, or -1
        for (int64_t unit = begin; unit < end; ++unit) {
          const int64_t plane = unit / bands, oy0 = (unit % bands) * kBand, oy1 = std::min(OH, oy0 + kBand);
          const float* in = x + plane * H * W;
          int64_t lo = H, hi = -1;
          for (int64_t i = oy0 * th.taps; i < oy1 * th.taps; ++i) {
            lo = std::min(lo, th.index[i]), hi = std::max(hi, th.index[i]);
          }
          slot.assign(hi - lo + 1, -1);
          rows_buf.resize(0);
          for (int64_t i = oy0 * th.taps; i < oy1 * th.taps; ++i) {
            int64_t& s = slot[th.index[i] - lo];
            if (s >= 0) continue;
            s = static_cast<int64_t>(rows_buf.size() / std::max<int64_t>(OW, 1));
            rows_buf.resize(rows_buf.size() + OW);
            float* t = rows_buf.data() + s * OW;
            const float* src = in + th.index[i] * W;
            const int64_t* ix = tw.index.data();
            const float* wx = tw.weight.data();
            for (int64_t ox = 0; ox < OW; ++ox) {
              float acc = 0;
              for (int tx = 0; tx < tw.taps; ++tx) acc += wx[ox * tw.taps + tx] * src[ix[ox * tw.taps + tx]];
              t[ox] = acc;
            }
          }
          for (int64_t oy = oy0; oy < oy1; ++oy) {
            float* o = y + (plane * OH + oy) * OW;
            std::fill(o, o + OW, 0.0f);
            for (int ty = 0; ty < th.taps; ++ty) {
              const float* t = rows_buf.data() + slot[th.index[oy * th.taps + ty] - lo] * OW;
              const float wy = th.weight[oy * th.taps + ty];
              for (int64_t ox = 0; ox < OW; ++ox) o[ox] += wy * t[ox];
            }
          }
          bound.Apply(y, (plane * OH + oy0) * OW, (oy1 - oy0) * OW);
        }
      },
      std::max<int64_t>(1, 4096 / std::max<int64_t>(1, OW * kBand)));
}

}  // namespace

TVMLITE_REGISTER_GLOBAL("topi.image.resize2d").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kKernel = kName;
  KernelAttrs attrs(kKernel, attrs_in);
  ResizeConfig cfg;
  cfg.mode = Choose<Mode>("mode", attrs.GetString("mode", "nearest"),
                          {{"nearest", Mode::kNearest}, {"linear", Mode::kLinear}, {"cubic", Mode::kCubic}});
  cfg.ctm =
      Choose<Ctm>("coordinate_transformation_mode", attrs.GetString("coordinate_transformation_mode", "half_pixel"),
                  {{"half_pixel", Ctm::kHalfPixel},
                   {"half_pixel_symmetric", Ctm::kHalfPixelSymmetric},
                   {"pytorch_half_pixel", Ctm::kPytorchHalfPixel},
                   {"align_corners", Ctm::kAlignCorners},
                   {"asymmetric", Ctm::kAsymmetric},
                   {"tf_half_pixel_for_nn", Ctm::kTfHalfPixelForNN}});
  cfg.nearest = Choose<NearestMode>("nearest_mode", attrs.GetString("nearest_mode", "round_prefer_floor"),
                                    {{"round_prefer_floor", NearestMode::kRoundPreferFloor},
                                     {"round_prefer_ceil", NearestMode::kRoundPreferCeil},
                                     {"floor", NearestMode::kFloor},
                                     {"ceil", NearestMode::kCeil}});
  cfg.policy = ParseResizePolicy(attrs.GetString("keep_aspect_ratio_policy", "stretch"), kKernel);
  cfg.cubic_a = attrs.GetFloat("cubic_coeff_a", -0.75);
  cfg.exclude_outside = attrs.GetInt("exclude_outside", 0) != 0;
  TVMLITE_CHECK_KIND(attrs.GetInt("antialias", 0) == 0 || cfg.mode == Mode::kNearest, ValueError)
      << kKernel << ": antialias is not supported for " << (cfg.mode == Mode::kLinear ? "linear" : "cubic")
      << " resizing";
  cfg.axes = attrs.GetInts("axes", {});
  std::vector<bool> seen(4, false);
  for (int64_t a : cfg.axes) {
    TVMLITE_CHECK_KIND(a >= -4 && a < 4 && !seen[a < 0 ? a + 4 : a], ValueError)
        << kKernel << ": axes must be distinct axes of 4-D data, got " << a;
    seen[a < 0 ? a + 4 : a] = true;
  }
  // The relay attrs carry the static output shape when the builder knew it: its length is the data's rank.
  std::vector<int64_t> output_size = attrs.GetInts("output_size", {});
  TVMLITE_CHECK_KIND(output_size.empty() || output_size.size() == 4, ValueError)
      << kKernel << ": only 4-D (NCHW) data is supported, output_size has " << output_size.size() << " dims";
  cfg.epilogue = attrs.GetEpilogue();
  return MakeKernel(kKernel, cfg.epilogue.num_inputs() + 5, [cfg](const KernelArgs& args) { Run(cfg, args); });
});

// The epilogue's checks, DTypesReason, and 4-D data.
std::string ResizeAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 4));
  TVMLITE_ACCEPTS_CHECK(DTypesReason(t[0].dtype, t[2].dtype, t[3].dtype, t.back().dtype));
  return t[0].ndim == 4 ? "" : attrs.kernel() + ": data must have rank 4, got " + std::to_string(t[0].ndim);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.image.resize2d", ResizeAccepts);

TVMLITE_REGISTER_OP_KERNEL("image.resize", "topi.image.resize2d");

}  // namespace topi
}  // namespace tvmlite
