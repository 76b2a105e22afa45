/*!
 * \file dyn_nn.cc
 * \brief nn ops whose output shape an input tensor gives, known at run time only (ONNX Col2Im's image_shape and
 * block_shape, MaxUnpool's output_shape computed in the graph): dyn.nn.col2im and dyn.nn.max_unpool{1,2,3}d. Their
 * attrs are the static ops' (the shape fields left empty); DynamicToStatic makes the static op once the shape
 * inputs are constants. The result's batch (and, for max_unpool, channels) are data's, its other dims "?".
 */
#include <tvmlite/relay/attrs/nn.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace {

/*! \brief Argument i as a 1-D integer tensor of static length (a shape); that length. */
int64_t ShapeArgLength(const Array<Type>& args, size_t i, const char* what) {
  const TensorTypeNode* t = TensorArg(args, i);
  TVMLITE_CHECK_KIND(t->dtype.is_int() || t->dtype.is_uint(), TypeError)
      << what << " must be an integer tensor, got " << t->dtype.str();
  TVMLITE_CHECK_KIND(t->ndim() == 1 && t->shape[0].type_index() == kTVMLiteInt, ValueError)
      << what << " must be 1-D with a static length, got " << ShapeToString(t->shape);
  return t->shape[0].cast<int64_t>();
}

Type DynCol2ImRel(const Array<Type>& args, const Col2ImAttrs&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckRank(data, 3, "data (batch, channels * prod(block_shape), blocks)");
  int64_t n = ShapeArgLength(args, 1, "image_shape");
  TVMLITE_CHECK_KIND(n >= 1 && n <= 3, ValueError) << "image_shape needs 1 to 3 values, got " << n;
  TVMLITE_CHECK_KIND(ShapeArgLength(args, 2, "block_shape") == n, ValueError)
      << "block_shape must have image_shape's " << n << " values";
  std::vector<Any> out{data->shape[0]};
  for (int64_t i = 0; i <= n; ++i) out.push_back(Any(SizeVar::Any()));
  return TensorType(Array<Any>(out), data->dtype);
}

template <int N>
Type DynMaxUnpoolRel(const Array<Type>& args, const MaxUnpoolAttrs<N>&) {
  const TensorTypeNode* data = TensorArg(args, 0);
  CheckRank(data, N + 2, "data (batch, channels, spatial...)");
  const TensorTypeNode* indices = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(indices->dtype.is_int() || indices->dtype.is_uint(), TypeError)
      << "indices must be integers, got " << indices->dtype.str();
  TVMLITE_CHECK_KIND(ShapeArgLength(args, 2, "output_shape") == N + 2, ValueError)
      << "output_shape must have " << N + 2 << " values (batch, channels, spatial...)";
  std::vector<Any> out{data->shape[0], data->shape[1]};
  for (int i = 0; i < N; ++i) out.push_back(Any(SizeVar::Any()));
  return TensorType(Array<Any>(out), data->dtype);
}

template <int N>
void RegisterDynMaxUnpool() {
  OpRegEntry::RegisterOrGet("dyn.nn.max_unpool" + std::to_string(N) + "d")
      .describe(std::to_string(N) + "-D max unpooling into the spatial dims of an output_shape tensor.")
      .add_argument("data", "Tensor", "The pooled values, (batch, channels, spatial...).")
      .add_argument("indices", "Tensor", "Flat indices (as MaxPool's Indices) of data's shape.")
      .add_argument("output_shape", "Tensor", "The full output shape (batch, channels, spatial...), 1-D integer.")
      .add_type_rel("DynMaxUnpool", DynMaxUnpoolRel<N>)
      .template set_attr<TOpPattern>("TOpPattern", kOpaque)
      .template set_attr<bool>("TAxisSemantics", true);
}

}  // namespace

TVMLITE_REGISTER_OP("dyn.nn.col2im")
    .describe("nn.col2im with image_shape and block_shape held by 1-D integer tensors (ONNX Col2Im).")
    .add_argument("data", "Tensor", "The columns, (batch, channels * prod(block_shape), blocks).")
    .add_argument("image_shape", "Tensor", "The image's spatial dims.")
    .add_argument("block_shape", "Tensor", "The sliding block's dims.")
    .add_type_rel("DynCol2Im", DynCol2ImRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque)
    .set_attr("TAxisSemantics", true);

TVMLITE_STATIC_INIT_BLOCK({
  RegisterDynMaxUnpool<1>();
  RegisterDynMaxUnpool<2>();
  RegisterDynMaxUnpool<3>();
});

}  // namespace relay
}  // namespace tvmlite
