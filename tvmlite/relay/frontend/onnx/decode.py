"""Attention and decoding ops with carried state: CausalConvWithState, LinearAttention, TensorScatter and
FlexAttention (ai.onnx.preview)."""
from ... import op as _op
from .common import OnnxOpConverter, axis_attr, choice_attr, dtype_attr, register_converter, required_attr


def _at(inputs, i):
    return inputs[i] if i < len(inputs) else None


@register_converter("CausalConvWithState")
class CausalConvWithState(OnnxOpConverter):
    @classmethod
    def _impl_v27(cls, inputs, attr, ctx):
        out = _op.nn.causal_conv_with_state(inputs[0], inputs[1], _at(inputs, 2), _at(inputs, 3),
                                            activation=choice_attr(attr, "activation", "none",
                                                                   ("none", "silu", "swish")))
        return _tuple_outputs(out, 2)


@register_converter("LinearAttention")
class LinearAttention(OnnxOpConverter):
    @classmethod
    def _impl_v27(cls, inputs, attr, ctx):
        required_attr(attr, "q_num_heads", "kv_num_heads")
        out = _op.nn.linear_attention(inputs[0], inputs[1], inputs[2], _at(inputs, 3), _at(inputs, 4),
                                      _at(inputs, 5), q_num_heads=attr["q_num_heads"],
                                      kv_num_heads=attr["kv_num_heads"], scale=attr.get("scale", 0.0),
                                      update_rule=choice_attr(attr, "update_rule", "gated_delta",
                                                              ("linear", "gated", "delta", "gated_delta")),
                                      chunk_size=attr.get("chunk_size", 64))
        return _tuple_outputs(out, 2)


@register_converter("TensorScatter")
class TensorScatter(OnnxOpConverter):
    @classmethod
    def _impl_v24(cls, inputs, attr, ctx):
        mode = choice_attr(attr, "mode", "linear", ("linear", "circular"))
        return _op.tensor_scatter(inputs[0], inputs[1], _at(inputs, 2), mode=mode,
                                  axis=axis_attr(attr, "axis", -2, inputs[0]))


def _tuple_outputs(expr, n):
    from ...expr import TupleGetItem

    return [TupleGetItem(expr, i) for i in range(n)]


@register_converter("FlexAttention", domain="ai.onnx.preview")
class FlexAttention(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        from ....ir.type import TensorType
        q, k = inputs[0].checked_type, inputs[1].checked_type
        softmax_dtype = dtype_attr(attr, "softmax_precision", kinds="f") or ""
        compute = softmax_dtype or ("float64" if str(q.dtype) == "float64" else "float32")
        scores = TensorType([q.shape[0], q.shape[1], q.shape[2], k.shape[2]], compute)
        mods = {name: ctx.convert_subgraph(attr[name], [scores]) if name in attr else None
                for name in ("score_mod", "prob_mod")}
        return _op.nn.flex_attention(inputs[0], inputs[1], inputs[2], mods["score_mod"], mods["prob_mod"],
                                     scale=attr.get("scale", 0.0), softmax_dtype=softmax_dtype)
