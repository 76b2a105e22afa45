"""Normalization, softmax, activation, dropout, attention and loss converters (relay ops in relay/op/nn/norm.py).

Opset versions where the semantics changed, per op:
  BatchNormalization  1/6 (spatial, is_test), 7/9 (training inferred from extra outputs), 14/15 (training_mode)
  Softmax, LogSoftmax, Hardmax  1/11: the input coerced to 2-D at axis (default 1); 13: one axis (default -1)
  GroupNormalization  18: scale/bias per group; 21: per channel
  Clip                1/6: min/max attributes; 11+: min/max inputs
  Dropout             1/6/7: ratio attribute, mask of the input's dtype; 10: bool mask; 12+: ratio and
                      training_mode inputs, seed attribute
  Attention           23; 24 adds nonpad_kv_seqlen; 25 adds the sliding window
Other ops only widened their types across versions and share one implementation.
Old Dropout (before 12) always converts to inference (the identity), as runtimes treat it.
"""
import numpy as np

from ....error import OpAttributeInvalid, OpAttributeRequired
from ... import expr as _expr
from ... import op as _op
from .common import (OnnxOpConverter, axis_attr, choice_attr, dims_of, dtype_attr, dtype_of, input_at, normalize_axes,
                     opset_versions, rank_of, register_converter, required_attr, unsupported)

_nn = _op.nn


def _constant_value(expr, ctx):
    """expr's value when it is a constant or an initializer, else None."""
    value = ctx.try_constant(expr)
    if value is None and isinstance(expr, _expr.Var) and ctx.params and expr.name_hint in ctx.params:
        value = ctx.params[expr.name_hint]
    return value


def _stash(attr):
    return dtype_attr(attr, "stash_type", 1, kinds="f")


# -- normalization ---------------------------------------------------------------------------------------------
@register_converter("BatchNormalization")
@opset_versions(1, 6, 7, 9, 14, 15)
class BatchNormalization(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        if version < 9 and attr.get("spatial", 1) != 1:
            unsupported("spatial=0 (per-activation statistics)")
        n_out = len([o for o in ctx.node.output if o])
        if version >= 14:
            training = bool(attr.get("training_mode", 0))
        else:
            if n_out > 3:
                unsupported("the saved_mean / saved_var outputs of training mode before opset 14")
            training = n_out > 1
        if version >= 14 and not training and n_out > 1:
            raise OpAttributeInvalid("running_mean / running_var outputs need training_mode=1")
        out = _nn.batch_norm(*inputs[:5], axis=1, epsilon=attr.get("epsilon", 1e-5),
                             momentum=attr.get("momentum", 0.9), training=training)
        return [out[0], out[1], out[2]] if n_out > 1 else out[0]


@register_converter("LayerNormalization")
@opset_versions(17)
class LayerNormalization(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        out = _nn.layer_norm(inputs[0], inputs[1], input_at(inputs, 2), axis=axis_attr(attr, "axis", -1, inputs[0]),
                             epsilon=attr.get("epsilon", 1e-5), stash_type=_stash(attr), return_stats=True)
        return [out[0], out[1], out[2]]


@register_converter("RMSNormalization")
@opset_versions(23)
class RMSNormalization(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _nn.rms_norm(inputs[0], inputs[1], axis=axis_attr(attr, "axis", -1, inputs[0]),
                            epsilon=attr.get("epsilon", 1e-5), stash_type=_stash(attr))


@register_converter("InstanceNormalization")
@opset_versions(1, 6, 22)
class InstanceNormalization(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _nn.instance_norm(inputs[0], inputs[1], inputs[2], epsilon=attr.get("epsilon", 1e-5))


@register_converter("GroupNormalization")
@opset_versions(18, 21)
class GroupNormalization(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        groups = int(required_attr(attr, "num_groups"))
        data, scale, bias = inputs[:3]
        if version < 21:  # per-group scale and bias: repeat each over its group's channels
            channels = dims_of(data)[1] if len(dims_of(data)) > 1 else None
            if channels != groups:
                values = [_constant_value(p, ctx) for p in (scale, bias)]
                if not isinstance(channels, int) or groups <= 0 or channels % groups or \
                        any(v is None for v in values):
                    unsupported("per-group scale/bias (opset 18) that are not constant, or unknown channels")
                scale, bias = (_expr.const(np.repeat(v, channels // groups)) for v in values)
        return _nn.group_norm(data, scale, bias, groups, epsilon=attr.get("epsilon", 1e-5),
                              stash_type=_stash(attr) if version >= 21 else "float32")


@register_converter("LRN")
@opset_versions(1, 13)
class LRN(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _nn.lrn(inputs[0], size=required_attr(attr, "size"), axis=1, bias=attr.get("bias", 1.0),
                       alpha=attr.get("alpha", 1e-4), beta=attr.get("beta", 0.75))


@register_converter("LpNormalization")
@opset_versions(1, 22)
class LpNormalization(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _nn.lp_normalize(inputs[0], axis=axis_attr(attr, "axis", -1, inputs[0]), p=attr.get("p", 2))


@register_converter("MeanVarianceNormalization")
@opset_versions(9, 13)
class MeanVarianceNormalization(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        axes = attr.get("axes", [0, 2, 3])
        if rank_of(inputs[0]) is not None:
            normalize_axes(axes, rank_of(inputs[0]))
        return _nn.mean_variance_normalization(inputs[0], axes=axes)


def _softmax_like(builder):
    @opset_versions(1, 11, 13)
    class Converter(OnnxOpConverter):
        @classmethod
        def _convert(cls, inputs, attr, ctx, version):
            if version >= 13:
                return builder(inputs[0], axis=axis_attr(attr, "axis", -1, inputs[0]))
            rank = len(dims_of(inputs[0]))
            axis = attr.get("axis", 1)
            if axis == rank or (rank == 0 and axis in (0, -1)):  # the 2-D view is (n, 1): one element per row
                unsupported(f"axis {axis} equal to the rank {rank}")
            return builder(inputs[0], axis=axis_attr(attr, "axis", 1, inputs[0]), flatten=True)

    return Converter


for _name, _builder in [("Softmax", _nn.softmax), ("LogSoftmax", _nn.log_softmax), ("Hardmax", _nn.hardmax)]:
    register_converter(_name)(type(_name, (_softmax_like(_builder),), {}))


# -- activations -------------------------------------------------------------------------------------------------
def _activation(builder, versions, **defaults):
    """A converter passing the named attributes (with ONNX's defaults) to builder."""
    @opset_versions(*versions)
    class Converter(OnnxOpConverter):
        @classmethod
        def _convert(cls, inputs, attr, ctx, version):
            return builder(inputs[0], **{name: attr.get(name, value) for name, value in defaults.items()})

    return Converter


for _name, _builder, _versions_of, _defaults in [
        ("LeakyRelu", _nn.leaky_relu, (1, 6, 16), {"alpha": 0.01}),
        ("Elu", _nn.elu, (1, 6, 22), {"alpha": 1.0}),
        ("Celu", _nn.celu, (12, 28), {"alpha": 1.0}),
        ("Selu", _nn.selu, (1, 6, 22), {"alpha": 1.67326319217681884765625, "gamma": 1.05070102214813232421875}),
        ("HardSigmoid", _nn.hard_sigmoid, (1, 6, 22), {"alpha": 0.2, "beta": 0.5}),
        ("HardSwish", _nn.hard_swish, (14, 22), {}),
        ("ThresholdedRelu", _nn.thresholded_relu, (10, 22), {"alpha": 1.0}),
        ("Shrink", _nn.shrink, (9,), {"lambd": 0.5, "bias": 0.0}),
        ("Swish", _nn.swish, (24,), {"alpha": 1.0}),
        ("Gelu", _nn.gelu, (20,), {"approximate": "none"}),
        ("Softplus", _nn.softplus, (1, 22), {}),
        ("Softsign", _nn.softsign, (1, 22), {}),
        ("Mish", _nn.mish, (18, 22), {})]:
    register_converter(_name)(type(_name, (_activation(_builder, _versions_of, **_defaults),), {}))


@register_converter("PRelu")
@opset_versions(1, 6, 7, 9, 16)
class PRelu(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data, slope = inputs[0], inputs[1]
        if version < 7:  # before numpy broadcasting, a (C,) slope runs along the channel axis 1
            d, sl = dims_of(data), dims_of(slope)
            if len(sl) == 1 and len(d) > 2 and sl[0] != 1:
                slope = _op.reshape(slope, [-1] + [1] * (len(d) - 2))
        return _nn.prelu(data, slope)


@register_converter("SwiGLU")
@opset_versions(28)
class SwiGLU(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        a, b = inputs[:2]
        sa, sb = dims_of(a), dims_of(b)
        if len(sa) != len(sb) or any(isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(sa, sb)):
            raise ValueError(f"SwiGLU: gate A {tuple(sa)} and value B {tuple(sb)} must have the same shape")
        return _op.multiply(_nn.swish(a, alpha=attr.get("alpha", 1.0)), b)


@register_converter("Clip")
@opset_versions(1, 6, 11, 12, 13)
class Clip(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data = inputs[0]
        if version < 11:
            dtype = dtype_of(data)
            lo, hi = (None if name not in attr else _expr.const(np.asarray(attr[name], dtype=dtype))
                      for name in ("min", "max"))
            return _nn.clip(data, lo, hi)
        return _nn.clip(data, input_at(inputs, 1), input_at(inputs, 2))


@register_converter("Dropout")
@opset_versions(1, 6, 7, 10, 12, 13, 22)
class Dropout(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data = inputs[0]
        if version < 12:
            mask_dtype = "bool" if version >= 10 else dtype_of(data)
            out = _nn.dropout_raw(data, _expr.const(np.float32(attr.get("ratio", 0.5))), False,
                                  mask_dtype=mask_dtype)
        else:
            ratio = input_at(inputs, 1)
            training = input_at(inputs, 2)
            out = _nn.dropout_raw(data, ratio if ratio is not None else 0.5,
                                  training if training is not None else False, seed=attr.get("seed"))
        return [out[0], out[1]]


# -- attention -------------------------------------------------------------------------------------------------
@register_converter("Attention")
@opset_versions(23, 24, 25)
class Attention(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        q = inputs[0]
        three_d = len(dims_of(q)) == 3
        for name in ("q_num_heads", "kv_num_heads"):
            if three_d and name not in attr:
                raise OpAttributeRequired(f"attribute '{name}' is required for 3-D inputs")
        windows = (attr.get("left_window_size", -1), attr.get("right_window_size", -1)) if version >= 25 else (-1, -1)
        out = _nn.attention(
            q, inputs[1], inputs[2], attn_mask=input_at(inputs, 3), past_key=input_at(inputs, 4),
            past_value=input_at(inputs, 5), nonpad_kv_seqlen=input_at(inputs, 6) if version >= 24 else None,
            q_num_heads=attr.get("q_num_heads", 0) if three_d else 0,
            kv_num_heads=attr.get("kv_num_heads", 0) if three_d else 0, is_causal=bool(attr.get("is_causal", 0)),
            scale=attr.get("scale"), softcap=attr.get("softcap", 0.0),
            softmax_precision=dtype_attr(attr, "softmax_precision", kinds="f") or "",
            qk_matmul_output_mode=attr.get("qk_matmul_output_mode", 0), left_window_size=windows[0],
            right_window_size=windows[1])
        return [out[0], out[1], out[2], out[3]]


@register_converter("RotaryEmbedding")
@opset_versions(23)
class RotaryEmbedding(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _nn.rotary_embedding(inputs[0], inputs[1], inputs[2], input_at(inputs, 3),
                                    interleaved=bool(attr.get("interleaved", 0)), num_heads=attr.get("num_heads", 0),
                                    rotary_embedding_dim=attr.get("rotary_embedding_dim", 0))


# -- losses ------------------------------------------------------------------------------------------------------
def _reduction(attr):
    return choice_attr(attr, "reduction", "mean", ("none", "sum", "mean"))


@register_converter("NegativeLogLikelihoodLoss")
@opset_versions(12, 13, 22)
class NegativeLogLikelihoodLoss(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _nn.nll_loss(inputs[0], inputs[1], input_at(inputs, 2), reduction=_reduction(attr),
                            ignore_index=attr.get("ignore_index"))


@register_converter("SoftmaxCrossEntropyLoss")
@opset_versions(12, 13)
class SoftmaxCrossEntropyLoss(OnnxOpConverter):
    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        log_prob = _nn.log_softmax(inputs[0], axis=1)
        loss = _nn.nll_loss(log_prob, inputs[1], input_at(inputs, 2), reduction=_reduction(attr),
                            ignore_index=attr.get("ignore_index"))
        return [loss, log_prob]


del _name, _builder, _versions_of, _defaults
