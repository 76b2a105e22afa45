/*!
 * \file bias_add.cc
 * \brief nn.bias_add(data, bias, axis): data plus a 1-D bias broadcast along one axis (conv and dense biases).
 *
 *   data (B, C, H, W), bias (C,), axis = 1  ->  (B, C, H, W): out[b, c, h, w] = data[b, c, h, w] + bias[c]
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/runtime/reflection.h>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

Type BiasAddRel(const Array<Type>& args, const BiasAddAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* bias = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(data->ndim() >= 1, ValueError) << "data must have rank >= 1, got a scalar";
  int64_t axis = NormalizeAxis(a.axis, static_cast<int64_t>(data->ndim()));
  CheckRank(bias, 1, "bias");
  const Any &c = data->shape[axis], &n = bias->shape[0];
  TVMLITE_CHECK_KIND(DimEqual(c, n) || c.type_index() != kTVMLiteInt || n.type_index() != kTVMLiteInt, ValueError)
      << "bias " << ShapeToString(bias->shape) << " does not match axis " << axis << " of data "
      << ShapeToString(data->shape);
  MatchDtype(data, bias);
  return args[0];
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(BiasAddAttrs, axis); });

TVMLITE_REGISTER_OP("nn.bias_add")
    .describe("data plus a 1-D bias broadcast along `axis` (default 1, the channels of NC... data).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("bias", "Tensor", "The bias, (data.shape[axis],).")
    .add_type_rel("BiasAdd", BiasAddRel)
    .set_attr<TOpPattern>("TOpPattern", kBroadcast)
    .set_attr("TAxisSemantics", true);

}  // namespace relay
}  // namespace tvmlite
