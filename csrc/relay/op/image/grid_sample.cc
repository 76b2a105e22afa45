/*!
 * \file grid_sample.cc
 * \brief image.grid_sample and image.affine_grid (ONNX GridSample, AffineGrid), any spatial rank r.
 *
 *   grid_sample: data (N, C, D1..Dr), grid (N, O1..Or, r) with coordinates in [-1, 1] (x first, i.e. the last
 *                spatial axis) -> (N, C, O1..Or).
 *   affine_grid: theta (N, r, r+1), size = [N, C, D1..Dr] (a 1-D int tensor) -> grid (N, D1..Dr, r).
 */
#include <tvmlite/relay/attrs/image.h>
#include <tvmlite/relay/type_rel.h>

#include <vector>

namespace tvmlite {
namespace relay {

namespace {

/*! \brief Check that dims a and b agree when both are static. */
void CheckDimsAgree(const Any& a, const Any& b, const char* what, const Array<Any>& sa, const Array<Any>& sb) {
  if (a.type_index() == kTVMLiteInt && b.type_index() == kTVMLiteInt) {
    TVMLITE_CHECK_KIND(a.cast<int64_t>() == b.cast<int64_t>(), ValueError)
        << what << " (shapes " << ShapeToString(sa) << " and " << ShapeToString(sb) << ")";
  }
}

}  // namespace

Type GridSampleRel(const Array<Type>& args, const GridSampleAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* grid = TensorArg(args, 1);
  const size_t rank = data->shape.size();
  TVMLITE_CHECK_KIND(rank >= 3, ValueError)
      << "data must be (N, C, D1, ...) with at least one spatial dim, got shape " << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(grid->shape.size() == rank, ValueError)
      << "grid must have the data's rank " << rank << ", got grid shape " << ShapeToString(grid->shape) << " for data "
      << ShapeToString(data->shape);
  CheckOneOf("mode", a.mode, {"linear", "bilinear", "nearest", "cubic", "bicubic"});
  CheckOneOf("padding_mode", a.padding_mode, {"zeros", "border", "reflection"});
  CheckDimsAgree(data->shape[0], grid->shape[0], "data and grid batch sizes differ", data->shape, grid->shape);
  if (grid->shape[rank - 1].type_index() == kTVMLiteInt) {
    TVMLITE_CHECK_KIND(DimIs(grid->shape[rank - 1], static_cast<int64_t>(rank - 2)), ValueError)
        << "the grid's last dim must be the spatial rank " << rank - 2 << ", got grid shape "
        << ShapeToString(grid->shape);
  }
  TVMLITE_CHECK_KIND(grid->dtype == data->dtype, TypeError)
      << "grid dtype " << grid->dtype.str() << " differs from data dtype " << data->dtype.str();
  std::vector<Any> out{data->shape[0], data->shape[1]};
  for (size_t i = 1; i + 1 < rank; ++i) out.push_back(grid->shape[i]);
  return TensorType(Array<Any>(out), data->dtype);
}

Type AffineGridRel(const Array<Type>& args, const AffineGridAttrs& a) {
  const TensorTypeNode* theta = TensorArg(args, 0);
  const TensorTypeNode* size = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(theta->shape.size() == 3 && (DimIs(theta->shape[1], 2) || DimIs(theta->shape[1], 3)), ValueError)
      << "theta must be (N, 2, 3) or (N, 3, 4), got shape " << ShapeToString(theta->shape);
  const int64_t r = theta->shape[1].cast<int64_t>();
  TVMLITE_CHECK_KIND(DimIs(theta->shape[2], r + 1) || theta->shape[2].type_index() != kTVMLiteInt, ValueError)
      << "theta must be (N, 2, 3) or (N, 3, 4), got shape " << ShapeToString(theta->shape);
  TVMLITE_CHECK_KIND(size->shape.size() == 1, ValueError)
      << "size must be 1-D, got shape " << ShapeToString(size->shape);
  TVMLITE_CHECK_KIND(size->shape[0].type_index() != kTVMLiteInt || DimIs(size->shape[0], r + 2), ValueError)
      << "size must hold " << r + 2 << " values (N, C and " << r << " spatial dims) for theta "
      << ShapeToString(theta->shape) << ", got size shape " << ShapeToString(size->shape);
  TVMLITE_CHECK_KIND(size->dtype.is_int(), TypeError) << "size must be an integer tensor, got " << size->dtype.str();
  std::vector<Any> out{theta->shape[0]};
  if (!a.output_size.empty()) {
    TVMLITE_CHECK_KIND(static_cast<int64_t>(a.output_size.size()) == r + 2, ValueError)
        << "output_size has " << a.output_size.size() << " values, expected " << r + 2;
    for (int64_t i = 0; i < r + 2; ++i) {
      TVMLITE_CHECK_KIND(a.output_size[i] >= 0, ValueError)
          << "size[" << i << "] = " << a.output_size[i] << " is negative";
    }
    CheckDimsAgree(theta->shape[0], Any(a.output_size[0]), "size[0] differs from theta's batch", theta->shape,
                   Array<Any>(std::vector<Any>{Any(a.output_size[0])}));
    out[0] = Any(a.output_size[0]);
    for (int64_t i = 2; i < r + 2; ++i) out.push_back(Any(a.output_size[i]));
  } else {
    for (int64_t i = 0; i < r; ++i) out.push_back(Any(SizeVar::Any()));
  }
  out.push_back(Any(r));
  return TensorType(Array<Any>(out), theta->dtype);
}

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(GridSampleAttrs, mode, padding_mode, align_corners);
  TVMLITE_REFLECT_FIELDS(AffineGridAttrs, align_corners, output_size);
});

TVMLITE_REGISTER_OP("image.grid_sample")
    .describe("Sample data at the normalized grid coordinates (ONNX GridSample).")
    .add_argument("data", "Tensor", "(N, C, D1..Dr).")
    .add_argument("grid", "Tensor", "(N, O1..Or, r) coordinates in [-1, 1].")
    .add_type_rel("GridSample", GridSampleRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("image.affine_grid")
    .describe("The sampling grid of a batch of affine transforms (ONNX AffineGrid).")
    .add_argument("theta", "Tensor", "(N, 2, 3) or (N, 3, 4) affine matrices.")
    .add_argument("size", "Tensor", "1-D int: [N, C, D1..Dr].")
    .add_type_rel("AffineGrid", AffineGridRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

}  // namespace relay
}  // namespace tvmlite
