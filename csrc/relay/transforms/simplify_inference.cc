/*!
 * \file simplify_inference.cc
 * \brief SimplifyInference: inference-time normalisation ops become the arithmetic they amount to.
 *
 * Algorithm. Type the module, then one mutator walk:
 *  - nn.batch_norm(x, gamma, beta, mean, var) with training = false becomes the tuple
 *    (x * scale + shift, mean, var) where scale = gamma * rsqrt(var + eps) (rsqrt(var + eps) when attrs.scale
 *    is off) and shift = beta - mean * scale (-mean * scale when attrs.center is off). scale and shift are (C,)
 *    and get expand_dims'ed to (C, 1, ..., 1) so they broadcast along attrs.axis of x; when the parameters'
 *    dtype is not x's, they are cast to it. Their inputs are usually constants, so FoldConstant makes them two
 *    constants and the multiply / add pair is what FoldScaleAxis and FuseOps see.
 *  - TupleGetItem(Tuple(f0, f1, ...), i) becomes f_i, so the usual `batch_norm(...)[0]` is just the arithmetic.
 *  - nn.dropout(x, ratio, training_mode)[0] with training_mode a constant false becomes x (the mask output, if
 *    used, keeps the dropout call).
 * Everything else is left as it is. Training-mode batch norm is kept (its statistics depend on the batch).
 */
#include <tvmlite/relay/attrs/cast.h>
#include <tvmlite/relay/attrs/norm.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/type_rel.h>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

Expr Cast(const Expr& x, DataType dtype) {
  auto attrs = make_object<CastAttrs>();
  attrs->dtype = dtype;
  return MakeCall("cast", {x}, Attrs(attrs));
}

/*! \brief A scalar constant of a float dtype (made in float32 and cast when the dtype is not float32/64). */
Expr FloatScalar(double value, DataType dtype) {
  if (dtype == DataType::Float(64)) {
    NDArray a = NDArray::Empty({}, DataType::Float(64));
    *static_cast<double*>(a->tensor.data) = value;
    return Constant(a);
  }
  NDArray a = NDArray::Empty({}, DataType::Float(32));
  *static_cast<float*>(a->tensor.data) = static_cast<float>(value);
  Expr c = Constant(a);
  return dtype == DataType::Float(32) ? c : Cast(c, dtype);
}

/*! \brief v (C,) reshaped to (C, 1, ..., 1) with trailing ones so it broadcasts along axis of a rank-ndim x. */
Expr AlongAxis(const Expr& v, int64_t axis, int64_t ndim) {
  int64_t trailing = ndim - axis - 1;
  if (trailing <= 0) return v;
  auto attrs = make_object<ExpandDimsAttrs>();
  attrs->axis = 1;
  attrs->num_newaxis = trailing;
  return MakeCall("expand_dims", {v}, Attrs(attrs));
}

/*! \brief Whether e is a constant whose every element is zero (false). */
bool IsConstantFalse(const Expr& e) {
  const auto* c = e.as<ConstantNode>();
  if (c == nullptr || !c->data.IsContiguous()) return false;
  const auto* bytes = static_cast<const uint8_t*>(c->data->tensor.data) + c->data->tensor.byte_offset;
  for (size_t i = 0; i < c->data.NBytes(); ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

class InferenceSimplifier : public ExprMutator {
 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    if (const auto* call = AsOpCall(original, "nn.batch_norm")) {
      const auto* attrs = call->attrs.as<BatchNormAttrs>();
      const TensorTypeNode* data_t = TensorTypeOf(call->args[0]);
      const TensorTypeNode* var_t = TensorTypeOf(call->args[4]);
      if (attrs != nullptr && !attrs->training && data_t != nullptr && var_t != nullptr) {
        return BatchNorm(attrs, new_children, data_t, var_t->dtype);
      }
    }
    if (const auto* get = original.as<TupleGetItemNode>()) {
      const Expr& tuple = new_children[0];
      if (const auto* t = tuple.as<TupleNode>()) return t->fields[get->index];
      const CallNode* dropout = AsOpCall(tuple, "nn.dropout");
      if (dropout != nullptr && get->index == 0 && IsConstantFalse(dropout->args[2])) return dropout->args[0];
    }
    return ExprMutator::Rewrite(original, new_children);
  }

 private:
  static Expr BatchNorm(const BatchNormAttrs* attrs, const Array<Expr>& children, const TensorTypeNode* data_t,
                        DataType param_dtype) {
    // children: op, data, gamma, beta, moving_mean, moving_var
    Expr data = children[1], gamma = children[2], beta = children[3], mean = children[4], var = children[5];
    int64_t ndim = static_cast<int64_t>(data_t->ndim());
    int64_t axis = attrs->axis < 0 ? attrs->axis + ndim : attrs->axis;
    Expr inv_std = MakeCall("rsqrt", {MakeCall("add", {var, FloatScalar(attrs->epsilon, param_dtype)})});
    Expr scale = attrs->scale ? MakeCall("multiply", {gamma, inv_std}) : inv_std;
    Expr mean_scaled = MakeCall("multiply", {mean, scale});
    Expr shift = attrs->center ? MakeCall("subtract", {beta, mean_scaled}) : MakeCall("negative", {mean_scaled});
    if (param_dtype != data_t->dtype) {
      scale = Cast(scale, data_t->dtype);
      shift = Cast(shift, data_t->dtype);
    }
    Expr out =
        MakeCall("add", {MakeCall("multiply", {data, AlongAxis(scale, axis, ndim)}), AlongAxis(shift, axis, ndim)});
    return Tuple(Array<Expr>({out, mean, var}));
  }
};

}  // namespace

IRModule SimplifyInference(const IRModule& mod) {
  IRModule typed = InferType(mod);
  return MapFunctions(typed,
                      [](const Function& f) { return runtime::Downcast<Function>(InferenceSimplifier().Mutate(f)); });
}

TVMLITE_REGISTER_GLOBAL("relay._transform.SimplifyInference").set_body_typed([](IRModule mod) {
  return SimplifyInference(mod);
});

}  // namespace relay
}  // namespace tvmlite
