/*!
 * \file tvmlite/topi/resize_geometry.h
 * \brief ONNX Resize's output shape and per-axis scales: the one place this arithmetic lives.
 *
 *   ResizeGeometry g = ResizeOutputShape({2, 3, 7, 10}, {2, 3}, {}, {}, {15, 12}, ResizePolicy::kNotLarger,
 *                                        "topi.image.resize2d");
 *   // g.shape == {2, 3, 7, 10} scaled by min(15/7, 12/10) = 1.2 rounded half up: {2, 3, 8, 12}; g.scale[2] == 1.2
 *
 * Users: the kernel topi.image.resize2d (csrc/topi/image/resize.cc); DynamicToStatic, which sets a resize's
 * output_size once its operands are constants (ResizeStaticOutputSize); and through the globals of
 * csrc/topi/image/resize_geometry.cc the numpy reference and the ONNX frontend (tvmlite/relay/op/image/_image.py:
 * resize_output_shape, static_output_size).
 *
 * The spec's arithmetic, per resized axis a (of any rank; axes empty: every axis):
 *   sizes, stretch:          out[a] = sizes[i], scale[a] = sizes[i] / in[a] (0 when in[a] is 0)
 *   sizes, not_larger/_smaller: r = min / max over i of sizes[i] / in[a]; out[a] = floor(r * in[a] + 0.5) (round
 *                            half up), scale[a] = r
 *   scales:                  out[a] = floor(in[a] * crop[i] * scales[i]), scale[a] = scales[i], with
 *                            crop[i] = roi[n + i] - roi[i] for tf_crop_and_resize (n resized axes), else 1
 * in float64, each scale first rounded to float32 (ONNX's type), so every caller gets the same dims bit for bit.
 * Bad values raise ValueError naming `what` and the argument: counts that do not fit the axes, a scale that is not
 * positive and finite, an output dim that is negative or beyond int64.
 */
#ifndef TVMLITE_TOPI_RESIZE_GEOMETRY_H_
#define TVMLITE_TOPI_RESIZE_GEOMETRY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tvmlite {
namespace topi {

/*! \brief keep_aspect_ratio_policy: how sizes apply when it is given. */
enum class ResizePolicy { kStretch, kNotLarger, kNotSmaller };

/*! \brief The policy named `value`; ValueError "<what>: keep_aspect_ratio_policy '<value>' is not supported (...)". */
ResizePolicy ParseResizePolicy(const std::string& value, const std::string& what);

struct ResizeGeometry {
  std::vector<int64_t> shape;  //!< the output shape (the input's dims where not resized)
  std::vector<double> scale;   //!< per dim, the scale its coordinates use (1 where not resized)
};

/*!
 * \brief Resize's output of an input of static `shape`: axes (may be negative; empty: every axis), roi (the
 * tf_crop_and_resize region, starts then ends per resized axis; pass it empty for any other coordinate mode),
 * scales (empty when sizes is given) and sizes (empty when scales is given), as the file comment says.
 */
ResizeGeometry ResizeOutputShape(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes,
                                 const std::vector<double>& roi, const std::vector<double>& scales,
                                 const std::vector<int64_t>& sizes, ResizePolicy policy, const std::string& what);

/*!
 * \brief Resize's output_size attr for what is known before run time: shape has -1 for a symbolic dim, and an
 * operand (roi, scales, sizes) not known is nullptr (known but empty: given as omitted). The result has -1 where a
 * dim is known only at run time (a dim not resized, or one resized by a scale of a symbolic dim); nullopt when no
 * dim is static: neither scales nor sizes known, sizes with a keep-aspect policy over a symbolic resized dim (the
 * common scale needs them all), or tf_crop_and_resize (`crop`) without a known roi. Errors as ResizeOutputShape.
 */
std::optional<std::vector<int64_t>> ResizeStaticOutputSize(const std::vector<int64_t>& shape,
                                                           const std::vector<int64_t>& axes,
                                                           const std::vector<double>* roi,
                                                           const std::vector<double>* scales,
                                                           const std::vector<int64_t>* sizes, ResizePolicy policy,
                                                           bool crop, const std::string& what);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_RESIZE_GEOMETRY_H_
