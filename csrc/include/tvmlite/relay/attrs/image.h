/*!
 * \file tvmlite/relay/attrs/image.h
 * \brief Attrs of the image ops: image.resize, image.grid_sample, image.affine_grid.
 *
 *   image.resize(data, roi, scales, sizes)      data (d0, ..., dr-1) -> the same rank, resized on `axes`
 *   image.grid_sample(data, grid)               data (N, C, D1..Dr), grid (N, O1..Or, r) -> (N, C, O1..Or)
 *   image.affine_grid(theta, size)              theta (N, r, r+1), size [N, C, D1..Dr] -> (N, D1..Dr, r)
 *   image.decode(encoded)                       1-D uint8 file bytes -> (?, ?, C) uint8, C = 3 (RGB/BGR) or 1
 *
 * Sizes that come from tensor inputs (scales/sizes, size) are data-dependent: the relation makes those dims
 * symbolic (`?`) unless the builder passes the statically known output size (`output_size`), which the frontend
 * does when the inputs are constants. The reference recomputes the size from the inputs, and the executor checks
 * that both agree.
 */
#ifndef TVMLITE_RELAY_ATTRS_IMAGE_H_
#define TVMLITE_RELAY_ATTRS_IMAGE_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

#include <string>

namespace tvmlite {
namespace relay {

using runtime::Array;
using runtime::String;

/*! \brief image.resize: ONNX Resize (and Upsample) semantics over any rank. */
struct ResizeAttrs : public ir::AttrsNode {
  /*! \brief The resized axes (empty: all); scales/sizes/roi list these axes only. */
  Array<int64_t> axes;
  /*! \brief "nearest", "linear" or "cubic". */
  std::string mode = "nearest";
  /*! \brief half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize, half_pixel_symmetric. */
  std::string coordinate_transformation_mode = "half_pixel";
  /*! \brief round_prefer_floor, round_prefer_ceil, floor, ceil. */
  std::string nearest_mode = "round_prefer_floor";
  double cubic_coeff_a = -0.75;
  bool exclude_outside = false;
  double extrapolation_value = 0.0;
  bool antialias = false;
  /*! \brief stretch, not_larger, not_smaller (with sizes). */
  std::string keep_aspect_ratio_policy = "stretch";
  /*! \brief The static output shape (one entry per data dim, -1 = known at run time); empty: unknown. */
  Array<int64_t> output_size;

  TVMLITE_DECLARE_ATTRS(ResizeAttrs, "relay.attrs.ResizeAttrs");
};

/*! \brief image.grid_sample: ONNX GridSample. */
struct GridSampleAttrs : public ir::AttrsNode {
  /*! \brief "linear" (or "bilinear"), "nearest", "cubic" (or "bicubic"). */
  std::string mode = "linear";
  /*! \brief "zeros", "border", "reflection". */
  std::string padding_mode = "zeros";
  bool align_corners = false;

  TVMLITE_DECLARE_ATTRS(GridSampleAttrs, "relay.attrs.GridSampleAttrs");
};

/*! \brief image.affine_grid: ONNX AffineGrid. */
struct AffineGridAttrs : public ir::AttrsNode {
  bool align_corners = false;
  /*! \brief The static `size` input [N, C, D1..Dr] when known; empty: the spatial dims are symbolic. */
  Array<int64_t> output_size;

  TVMLITE_DECLARE_ATTRS(AffineGridAttrs, "relay.attrs.AffineGridAttrs");
};

/*! \brief image.decode: ONNX ImageDecoder. */
struct ImageDecodeAttrs : public ir::AttrsNode {
  /*! \brief "RGB", "BGR" or "Grayscale". */
  std::string pixel_format = "RGB";

  TVMLITE_DECLARE_ATTRS(ImageDecodeAttrs, "relay.attrs.ImageDecodeAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_IMAGE_H_
