/*!
 * \file resize_geometry.cc
 * \brief ResizeOutputShape and ResizeStaticOutputSize (tvmlite/topi/resize_geometry.h) and their globals:
 *
 *   topi.image.resize_output_shape(shape, axes, roi, scales, sizes, keep_aspect_ratio_policy,
 *                                  coordinate_transformation_mode) -> [output shape, scale per dim]
 *   topi.image.resize_static_output_size(shape, axes, roi, scales, sizes, keep_aspect_ratio_policy,
 *                                        coordinate_transformation_mode) -> output_size, or None
 *
 * (the second: -1 for a symbolic dim of shape, None for an operand not known). roi is read only under
 * tf_crop_and_resize (the one mode that crops), as the spec says.
 */
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/resize_geometry.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace tvmlite {
namespace topi {

using runtime::Any;
using runtime::Array;
using runtime::Optional;
using runtime::String;

namespace {

constexpr double kInt64Limit = 9223372036854775808.0;  // 2^63: the first double past int64's range

/*! \brief v (already floored) as an output dim, or ValueError: negative, NaN or beyond int64. */
int64_t OutputDim(double v, int64_t axis, const std::string& what) {
  if (!(v >= 0 && v < kInt64Limit)) {
    TVMLITE_THROW(ValueError) << what << ": the output size of axis " << axis << " would be " << v
                              << ", not a valid dim";
  }
  return static_cast<int64_t>(v);
}

/*! \brief The scale s as ONNX's float32 holds it; ValueError unless positive and finite there. */
double Float32Scale(double s, const std::string& what) {
  const double rounded = s > 0 && s <= FLT_MAX ? static_cast<double>(static_cast<float>(s)) : 0.0;
  if (!(rounded > 0)) TVMLITE_THROW(ValueError) << what << ": scales must be positive and finite, got " << s;
  return rounded;
}

template <typename T>
std::vector<T> ToVector(const Array<T>& a) {
  std::vector<T> v;
  for (T x : a) v.push_back(x);
  return v;
}

void CheckCount(size_t count, size_t axes, const char* name, const std::string& what) {
  if (count != axes) {
    TVMLITE_THROW(ValueError) << what << ": " << name << " has " << count << " values for " << axes << " resized axes";
  }
}

}  // namespace

ResizePolicy ParseResizePolicy(const std::string& value, const std::string& what) {
  if (value == "stretch") return ResizePolicy::kStretch;
  if (value == "not_larger") return ResizePolicy::kNotLarger;
  if (value == "not_smaller") return ResizePolicy::kNotSmaller;
  TVMLITE_THROW(ValueError) << what << ": keep_aspect_ratio_policy '" << value
                            << "' is not supported (stretch, not_larger, not_smaller)";
}

ResizeGeometry ResizeOutputShape(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes_in,
                                 const std::vector<double>& roi, const std::vector<double>& scales,
                                 const std::vector<int64_t>& sizes, ResizePolicy policy, const std::string& what) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  for (int64_t d : shape) {
    if (d < 0) TVMLITE_THROW(ValueError) << what << ": shape must have non-negative dims, got " << d;
  }
  std::vector<int64_t> axes;
  std::vector<bool> seen(rank, false);
  for (int64_t a : axes_in) {
    const int64_t n = a < 0 ? a + rank : a;
    if (a < -rank || a >= rank || seen[n]) {
      TVMLITE_THROW(ValueError) << what << ": axes must be distinct axes of " << rank << "-D data, got " << a;
    }
    seen[n] = true;
    axes.push_back(n);
  }
  if (axes_in.empty()) {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  ResizeGeometry g{shape, std::vector<double>(rank, 1.0)};
  const size_t n = axes.size();
  if (!sizes.empty()) {
    CheckCount(sizes.size(), n, "sizes", what);
    if (policy == ResizePolicy::kStretch) {
      for (size_t i = 0; i < n; ++i) {
        const int64_t a = axes[i];
        g.shape[a] = sizes[i] >= 0 ? sizes[i] : OutputDim(static_cast<double>(sizes[i]), a, what);  // < 0: throws
        g.scale[a] = shape[a] ? static_cast<double>(sizes[i]) / static_cast<double>(shape[a]) : 0.0;
      }
      return g;
    }
    double common = 0;  // the one scale every resized axis takes, keeping the aspect ratio
    for (size_t i = 0; i < n; ++i) {
      if (shape[axes[i]] == 0) {
        TVMLITE_THROW(ValueError) << what << ": keep_aspect_ratio_policy needs every resized dim > 0, axis " << axes[i]
                                  << " is 0";
      }
      const double ratio = static_cast<double>(sizes[i]) / static_cast<double>(shape[axes[i]]);
      common = i == 0 ? ratio : policy == ResizePolicy::kNotLarger ? std::min(common, ratio) : std::max(common, ratio);
    }
    for (int64_t a : axes) {
      g.shape[a] = OutputDim(std::floor(common * static_cast<double>(shape[a]) + 0.5), a, what);
      g.scale[a] = common;
    }
    return g;
  }
  if (scales.empty()) TVMLITE_THROW(ValueError) << what << ": one of scales and sizes must be given (both are empty)";
  CheckCount(scales.size(), n, "scales", what);
  if (!roi.empty() && roi.size() != 2 * n) {
    TVMLITE_THROW(ValueError) << what << ": roi has " << roi.size() << " values, expected " << 2 * n
                              << " for tf_crop_and_resize";
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes[i];
    const double s = Float32Scale(scales[i], what);
    const double crop = roi.empty() ? 1.0 : roi[n + i] - roi[i];
    g.shape[a] = OutputDim(std::floor(static_cast<double>(shape[a]) * crop * s), a, what);
    g.scale[a] = s;
  }
  return g;
}

std::optional<std::vector<int64_t>> ResizeStaticOutputSize(const std::vector<int64_t>& shape,
                                                           const std::vector<int64_t>& axes,
                                                           const std::vector<double>* roi,
                                                           const std::vector<double>* scales,
                                                           const std::vector<int64_t>* sizes, ResizePolicy policy,
                                                           bool crop, const std::string& what) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> resized(rank, axes.empty());
  for (int64_t a : axes) {
    if (a >= -rank && a < rank) resized[a < 0 ? a + rank : a] = true;  // the others: ResizeOutputShape's error
  }
  auto symbolic = [&](int64_t i) { return shape[i] == -1; };
  const bool use_sizes = sizes != nullptr && !sizes->empty();
  if (use_sizes) {
    for (int64_t i = 0; i < rank; ++i) {
      if (policy != ResizePolicy::kStretch && resized[i] && symbolic(i)) return std::nullopt;
    }
  } else if (scales == nullptr || scales->empty() || (crop && roi == nullptr)) {
    return std::nullopt;
  }
  // Symbolic dims enter the arithmetic as 1; their results are not used.
  std::vector<int64_t> concrete = shape;
  for (int64_t& d : concrete) d = d == -1 ? 1 : d;
  const std::vector<double> none;
  const std::vector<double>& crop_roi = crop && roi != nullptr ? *roi : none;
  const ResizeGeometry g = ResizeOutputShape(concrete, axes, crop_roi, use_sizes ? none : *scales,
                                             use_sizes ? *sizes : std::vector<int64_t>(), policy, what);
  std::vector<int64_t> out(rank, -1);
  for (int64_t i = 0; i < rank; ++i) {
    if (resized[i] && (use_sizes || !symbolic(i))) out[i] = g.shape[i];
  }
  return out;
}

TVMLITE_REGISTER_GLOBAL("topi.image.resize_output_shape")
    .set_body_typed([](Array<int64_t> shape, Array<int64_t> axes, Array<double> roi, Array<double> scales,
                       Array<int64_t> sizes, String policy, String ctm) {
      static const std::string kWhat = "topi.image.resize_output_shape";
      const bool crop = std::string(ctm) == "tf_crop_and_resize";
      ResizeGeometry g = ResizeOutputShape(ToVector(shape), ToVector(axes), ToVector(crop ? roi : Array<double>()),
                                           ToVector(scales), ToVector(sizes), ParseResizePolicy(policy, kWhat), kWhat);
      return Array<Any>{Any(Array<int64_t>(g.shape)), Any(Array<double>(g.scale))};
    });

TVMLITE_REGISTER_GLOBAL("topi.image.resize_static_output_size")
    .set_body_typed([](Array<int64_t> shape, Array<int64_t> axes, Optional<Array<double>> roi,
                       Optional<Array<double>> scales, Optional<Array<int64_t>> sizes, String policy, String ctm) {
      static const std::string kWhat = "topi.image.resize_static_output_size";
      std::optional<std::vector<double>> roi_v, scales_v;
      std::optional<std::vector<int64_t>> sizes_v;
      if (roi) roi_v = ToVector(*roi);
      if (scales) scales_v = ToVector(*scales);
      if (sizes) sizes_v = ToVector(*sizes);
      std::optional<std::vector<int64_t>> out =
          ResizeStaticOutputSize(ToVector(shape), ToVector(axes), roi_v ? &*roi_v : nullptr,
                                 scales_v ? &*scales_v : nullptr, sizes_v ? &*sizes_v : nullptr,
                                 ParseResizePolicy(policy, kWhat), std::string(ctm) == "tf_crop_and_resize", kWhat);
      return out ? Optional<Array<int64_t>>(Array<int64_t>(*out)) : Optional<Array<int64_t>>();
    });

}  // namespace topi
}  // namespace tvmlite
