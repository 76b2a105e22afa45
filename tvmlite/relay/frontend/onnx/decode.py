"""Ops of autoregressive decoding with carried state: CausalConvWithState, LinearAttention, TensorScatter."""
from ... import op as _op
from .common import OnnxOpConverter, register_converter


def _at(inputs, i):
    return inputs[i] if i < len(inputs) else None


@register_converter("CausalConvWithState")
class CausalConvWithState(OnnxOpConverter):
    @classmethod
    def _impl_v27(cls, inputs, attr, ctx):
        out = _op.nn.causal_conv_with_state(inputs[0], inputs[1], _at(inputs, 2), _at(inputs, 3),
                                            activation=attr.get("activation", "none"))
        return _tuple_outputs(out, 2)


@register_converter("LinearAttention")
class LinearAttention(OnnxOpConverter):
    @classmethod
    def _impl_v27(cls, inputs, attr, ctx):
        for name in ("q_num_heads", "kv_num_heads"):
            if name not in attr:
                from ....error import OpAttributeRequired

                raise OpAttributeRequired(f"attribute '{name}' is required")
        out = _op.nn.linear_attention(inputs[0], inputs[1], inputs[2], _at(inputs, 3), _at(inputs, 4),
                                      _at(inputs, 5), q_num_heads=attr["q_num_heads"],
                                      kv_num_heads=attr["kv_num_heads"], scale=attr.get("scale", 0.0),
                                      update_rule=attr.get("update_rule", "gated_delta"),
                                      chunk_size=attr.get("chunk_size", 64))
        return _tuple_outputs(out, 2)


@register_converter("TensorScatter")
class TensorScatter(OnnxOpConverter):
    @classmethod
    def _impl_v24(cls, inputs, attr, ctx):
        return _op.tensor_scatter(inputs[0], inputs[1], _at(inputs, 2), mode=attr.get("mode", "linear"),
                                  axis=attr.get("axis", -2))


def _tuple_outputs(expr, n):
    from ...expr import TupleGetItem

    return [TupleGetItem(expr, i) for i in range(n)]
