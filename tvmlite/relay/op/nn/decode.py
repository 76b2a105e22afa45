"""Builders of the ops for autoregressive decoding with carried state (csrc/relay/op/nn/decode.cc)."""
from . import _make

__all__ = ["causal_conv_with_state", "linear_attention"]


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
