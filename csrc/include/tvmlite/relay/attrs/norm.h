/*!
 * \file tvmlite/relay/attrs/norm.h
 * \brief Attrs of the normalization, softmax, activation, dropout, attention and loss ops
 *        (csrc/relay/op/nn/{normalization,activation,attention}.cc).
 *
 *   Call c = relay.nn.layer_norm(x, gamma, beta, axis=-1, epsilon=1e-5)   # LayerNormAttrs{axis=-1, epsilon=1e-5}
 *
 * Conventions shared by these ops:
 *  - An optional tensor input that is absent is the empty tuple `()` (type TupleType([])); relations accept it
 *    where documented and references receive `()`.
 *  - `axis` fields may be negative (counted from the end) and are checked against the data's rank by the relation.
 *  - `stash_type` is the dtype statistics are computed in (ONNX's stash_type; "" = the input's dtype).
 */
#ifndef TVMLITE_RELAY_ATTRS_NORM_H_
#define TVMLITE_RELAY_ATTRS_NORM_H_

#include <tvmlite/ir/attrs.h>

#include <string>

namespace tvmlite {
namespace relay {

using ir::AttrsNode;
using runtime::Array;
using runtime::Optional;

/*! \brief nn.batch_norm: out, mean_out, var_out = BN(data, gamma, beta, moving_mean, moving_var). */
struct BatchNormAttrs : public AttrsNode {
  int64_t axis = 1;  // the channel axis
  double epsilon = 1e-5;
  bool center = true;     // add beta
  bool scale = true;      // multiply by gamma
  double momentum = 0.9;  // training: running = running * momentum + batch * (1 - momentum)
  bool training = false;  // normalise with the batch's statistics and return the updated running ones
  TVMLITE_DECLARE_ATTRS(BatchNormAttrs, "relay.attrs.BatchNormAttrs");
};

/*! \brief nn.layer_norm / nn.rms_norm: normalise over the axes [axis, ndim). */
struct LayerNormAttrs : public AttrsNode {
  int64_t axis = -1;
  double epsilon = 1e-5;
  std::string stash_type = "float32";
  TVMLITE_DECLARE_ATTRS(LayerNormAttrs, "relay.attrs.LayerNormAttrs");
};

/*! \brief nn.instance_norm. */
struct InstanceNormAttrs : public AttrsNode {
  double epsilon = 1e-5;
  TVMLITE_DECLARE_ATTRS(InstanceNormAttrs, "relay.attrs.InstanceNormAttrs");
};

/*! \brief nn.group_norm: channels (axis 1) split into num_groups groups; gamma/beta are per channel. */
struct GroupNormAttrs : public AttrsNode {
  int64_t num_groups = 1;
  double epsilon = 1e-5;
  std::string stash_type = "float32";
  TVMLITE_DECLARE_ATTRS(GroupNormAttrs, "relay.attrs.GroupNormAttrs");
};

/*! \brief nn.lrn: local response normalisation across channels (axis). */
struct LRNAttrs : public AttrsNode {
  int64_t size = 5;
  int64_t axis = 1;
  double bias = 2.0;
  double alpha = 1e-4;
  double beta = 0.75;
  TVMLITE_DECLARE_ATTRS(LRNAttrs, "relay.attrs.LRNAttrs");
};

/*! \brief nn.lp_normalize: x / ||x||_p along axis (p is 1 or 2). */
struct LpNormalizeAttrs : public AttrsNode {
  int64_t axis = -1;
  int64_t p = 2;
  TVMLITE_DECLARE_ATTRS(LpNormalizeAttrs, "relay.attrs.LpNormalizeAttrs");
};

/*! \brief nn.mean_variance_normalization: (x - mean) / (sqrt(var) + epsilon) over axes (ONNX's form). */
struct MVNAttrs : public AttrsNode {
  Array<int64_t> axes;
  double epsilon = 1e-9;
  TVMLITE_DECLARE_ATTRS(MVNAttrs, "relay.attrs.MVNAttrs");
};

/*!
 * \brief nn.softmax / nn.log_softmax / nn.hardmax. With `flatten` the op normalises over every axis from `axis`
 * to the end jointly (ONNX before opset 13: the input coerced to 2-D at axis); otherwise over `axis` alone.
 */
struct SoftmaxAttrs : public AttrsNode {
  int64_t axis = -1;
  bool flatten = false;
  TVMLITE_DECLARE_ATTRS(SoftmaxAttrs, "relay.attrs.SoftmaxAttrs");
};

/*!
 * \brief nn.dropout(data, ratio, training_mode): a seed makes training mode reproducible (numpy's MT19937);
 * mask_dtype is the mask's dtype (bool; ONNX before opset 10 gives the input's dtype).
 */
struct DropoutAttrs : public AttrsNode {
  Optional<int64_t> seed;
  std::string mask_dtype = "bool";
  TVMLITE_DECLARE_ATTRS(DropoutAttrs, "relay.attrs.DropoutAttrs");
};

/*! \brief Activations with one or two scalar parameters (leaky_relu, elu, celu, selu, hard_sigmoid,
 *         thresholded_relu, shrink, swish); each op documents what alpha and beta mean for it. */
struct ActivationAttrs : public AttrsNode {
  double alpha = 0.0;
  double beta = 0.0;
  TVMLITE_DECLARE_ATTRS(ActivationAttrs, "relay.attrs.ActivationAttrs");
};

/*! \brief nn.gelu: approximate is "none" (erf) or "tanh". */
struct GeluAttrs : public AttrsNode {
  std::string approximate = "none";
  TVMLITE_DECLARE_ATTRS(GeluAttrs, "relay.attrs.GeluAttrs");
};

/*! \brief nn.nll_loss(predictions, targets, weights-or-()): reduction "none" | "sum" | "mean". */
struct NLLLossAttrs : public AttrsNode {
  std::string reduction = "mean";
  Optional<int64_t> ignore_index;
  TVMLITE_DECLARE_ATTRS(NLLLossAttrs, "relay.attrs.NLLLossAttrs");
};

/*!
 * \brief nn.attention (ONNX Attention): heads are only given for 3-D (batch, seq, hidden) inputs (0 = 4-D);
 * scale absent = 1/sqrt(head_size); softcap 0 = none; softmax_precision "" = the input's dtype;
 * window sizes -1 = unbounded.
 */
struct AttentionAttrs : public AttrsNode {
  int64_t q_num_heads = 0;
  int64_t kv_num_heads = 0;
  bool is_causal = false;
  Optional<double> scale;
  double softcap = 0.0;
  std::string softmax_precision;
  int64_t qk_matmul_output_mode = 0;
  int64_t left_window_size = -1;
  int64_t right_window_size = -1;
  TVMLITE_DECLARE_ATTRS(AttentionAttrs, "relay.attrs.AttentionAttrs");
};

/*! \brief nn.rotary_embedding (ONNX RotaryEmbedding); rotary_embedding_dim 0 = the whole head. */
struct RotaryEmbeddingAttrs : public AttrsNode {
  bool interleaved = false;
  int64_t num_heads = 0;
  int64_t rotary_embedding_dim = 0;
  TVMLITE_DECLARE_ATTRS(RotaryEmbeddingAttrs, "relay.attrs.RotaryEmbeddingAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_NORM_H_
