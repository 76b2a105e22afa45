"""Builders of the ops for autoregressive decoding with carried state (csrc/relay/op/nn/decode.cc)."""
from . import _make

__all__ = ["causal_conv_with_state", "linear_attention", "flex_attention"]


def _present(*inputs):
    return [x for x in inputs if x is not None]


def causal_conv_with_state(data, weight, bias=None, past_state=None, activation="none"):
    """Causal depthwise 1D convolution of data (B, C, L) with weight (C, 1, K) after past_state (B, C, K-1) or
    zeros; returns (output (B, C, L), present_state (B, C, K-1)). activation: "none", "silu" or "swish"."""
    return _make.causal_conv_with_state(_present(data, weight, bias, past_state), activation, bias is not None,
                                        past_state is not None)


def linear_attention(query, key, value, past_state=None, decay=None, beta=None, q_num_heads=1, kv_num_heads=1,
                     scale=0.0, update_rule="gated_delta", chunk_size=64):
    """Linear attention recurrence over packed (B, T, H*D) inputs; returns (output, present_state)."""
    return _make.linear_attention(_present(query, key, value, past_state, decay, beta), q_num_heads, kv_num_heads,
                                  scale, update_rule, chunk_size, past_state is not None, decay is not None,
                                  beta is not None)


def flex_attention(q, k, v, score_mod=None, prob_mod=None, scale=0.0, softmax_dtype=""):
    """softmax(prob_mod(score_mod(q k^T * scale))) v over (B, H, L, E) inputs (grouped K/V heads allowed);
    score_mod and prob_mod are relay Functions mapping the (B, Hq, L, S) scores (in softmax_dtype: float32, or
    float64 for float64 inputs, by default) to the same type."""
    return _make.flex_attention(_present(q, k, v, score_mod, prob_mod), scale, softmax_dtype,
                                score_mod is not None, prob_mod is not None)
