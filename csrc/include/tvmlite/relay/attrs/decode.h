/*!
 * \file tvmlite/relay/attrs/decode.h
 * \brief Attrs of the ops for autoregressive decoding with carried state: nn.causal_conv_with_state,
 * nn.linear_attention, nn.flex_attention and tensor_scatter (ONNX CausalConvWithState, LinearAttention,
 * FlexAttention, TensorScatter).
 */
#ifndef TVMLITE_RELAY_ATTRS_DECODE_H_
#define TVMLITE_RELAY_ATTRS_DECODE_H_

#include <tvmlite/ir/attrs.h>

#include <string>

namespace tvmlite {
namespace relay {

/*! \brief Inputs: data, weight[, bias][, past_state] (which optional ones are present is in the flags). */
struct CausalConvWithStateAttrs : public ir::AttrsNode {
  std::string activation = "none";  // "none", "silu", "swish"
  bool has_bias = false;
  bool has_past_state = false;

  TVMLITE_DECLARE_ATTRS(CausalConvWithStateAttrs, "relay.attrs.CausalConvWithStateAttrs");
};

/*! \brief Inputs: query, key, value[, past_state][, decay][, beta]. */
struct LinearAttentionAttrs : public ir::AttrsNode {
  int64_t q_num_heads = 1;
  int64_t kv_num_heads = 1;
  double scale = 0.0;  // 0: 1/sqrt(d_k)
  std::string update_rule = "gated_delta";
  int64_t chunk_size = 64;  // a tuning hint; does not change results
  bool has_past_state = false;
  bool has_decay = false;
  bool has_beta = false;

  TVMLITE_DECLARE_ATTRS(LinearAttentionAttrs, "relay.attrs.LinearAttentionAttrs");
};

/*! \brief Inputs: q, k, v[, score_mod: fn(scores) -> scores][, prob_mod: fn(probs) -> probs]. */
struct FlexAttentionAttrs : public ir::AttrsNode {
  double scale = 0.0;              // 0: 1/sqrt(head_size)
  std::string softmax_dtype = "";  // "": float32, or float64 for float64 inputs
  bool has_score_mod = false;
  bool has_prob_mod = false;

  TVMLITE_DECLARE_ATTRS(FlexAttentionAttrs, "relay.attrs.FlexAttentionAttrs");
};

/*! \brief Inputs: past_cache, update[, write_indices]. */
struct TensorScatterAttrs : public ir::AttrsNode {
  std::string mode = "linear";  // "linear", "circular"
  int64_t axis = -2;
  bool has_write_indices = false;

  TVMLITE_DECLARE_ATTRS(TensorScatterAttrs, "relay.attrs.TensorScatterAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_DECODE_H_
