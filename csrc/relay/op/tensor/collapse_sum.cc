/*!
 * \file collapse_sum.cc
 * \brief collapse_sum_like(data, like): data summed down to like's shape, undoing numpy broadcasting (TVM's op; the
 * gradient of a broadcast op is its output gradient collapsed to each input's shape).
 */
#include <tvmlite/relay/type_rel.h>

namespace tvmlite {
namespace relay {

namespace {

Type CollapseSumLikeRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* like = TensorArg(args, 1);
  MatchDtype(data, like);
  // like must broadcast to data: then summing data over the broadcast dims gives like's shape.
  Array<Any> joined = BroadcastShapes(data->shape, like->shape);
  TVMLITE_CHECK_KIND(joined.size() == data->ndim(), ValueError)
      << "shape " << ShapeToString(like->shape) << " does not broadcast to " << ShapeToString(data->shape);
  for (size_t i = 0; i < joined.size(); ++i) {
    TVMLITE_CHECK_KIND(DimEqual(joined[i], data->shape[i]) || joined[i].type_index() != kTVMLiteInt ||
                           data->shape[i].type_index() != kTVMLiteInt,
                       ValueError)
        << "shape " << ShapeToString(like->shape) << " does not broadcast to " << ShapeToString(data->shape);
  }
  return TensorType(like->shape, like->dtype);
}

}  // namespace

TVMLITE_REGISTER_OP("collapse_sum_like")
    .describe("Sum data over the axes along which like was broadcast to data's shape.")
    .add_argument("data", "Tensor", "The tensor to sum.")
    .add_argument("like", "Tensor", "The tensor whose shape the result has.")
    .add_type_rel("CollapseSumLike", CollapseSumLikeRel)
    .set_attr<TOpPattern>("TOpPattern", kCommReduce)
    .set_attr("TShapeOnlyArgs", runtime::Array<int64_t>({1}));

}  // namespace relay
}  // namespace tvmlite
