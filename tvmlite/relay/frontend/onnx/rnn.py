"""Recurrent layers: RNN, GRU and LSTM -> relay.nn.rnn (one op, mode attr; ONNX semantics and layouts)."""
from ....error import get_error_class
from ... import expr as _expr
from ... import op as _op
from .common import OnnxOpConverter, register_converter, unsupported

_NUM_INPUTS = {"RNN": 6, "GRU": 6, "LSTM": 8}
_NAMES = ["Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu",
          "Softsign", "Softplus"]
_ACTIVATIONS = {n.lower() for n in _NAMES}


def _convert(mode, inputs, attr, ctx, layout):
    inputs = list(inputs) + [None] * (_NUM_INPUTS[mode] - len(inputs))
    x, w, r = inputs[:3]
    if w is None or r is None:
        raise ValueError(f"{mode}: W and R are required")
    hidden = attr.get("hidden_size")
    if hidden is None:
        shape = r.checked_type.shape
        if not isinstance(shape[-1], int):
            raise ValueError(f"{mode}: hidden_size is not given and R's last dim is symbolic")
        hidden = shape[-1]
    direction = attr.get("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        raise get_error_class("ValueError")(f"{mode}: direction must be forward, reverse or bidirectional, got "
                                            f"'{direction}'")
    initial_c = inputs[6] if mode == "LSTM" else None
    peepholes = inputs[7] if mode == "LSTM" else None
    activations = list(attr.get("activations", ()))
    per_dir = {"RNN": 1, "GRU": 2, "LSTM": 3}[mode]
    dirs = 2 if direction == "bidirectional" else 1
    unknown = [a for a in activations if a.lower() not in _ACTIVATIONS]
    if unknown:
        raise ValueError(f"{mode}: unknown activation(s) {', '.join(unknown)} (known: {', '.join(_NAMES)})")
    if activations and len(activations) not in (per_dir, per_dir * dirs):
        raise ValueError(f"{mode}: {len(activations)} activations given, expected {per_dir * dirs}")
    clip = attr.get("clip")
    if clip is not None and not clip > 0:
        raise ValueError(f"{mode}: clip must be positive, got {clip}")
    call = _op.nn.rnn(x, w, r, inputs[3], inputs[4], inputs[5], initial_c, peepholes, mode=mode,
                      hidden_size=hidden, direction=direction, activations=activations,
                      activation_alpha=attr.get("activation_alpha", ()),
                      activation_beta=attr.get("activation_beta", ()), clip=clip,
                      linear_before_reset=attr.get("linear_before_reset", 0), input_forget=attr.get("input_forget", 0),
                      layout=layout)
    return [_expr.TupleGetItem(call, i) for i in range(3 if mode == "LSTM" else 2)]


def _family(mode):
    class Converter(OnnxOpConverter):
        @classmethod
        def _impl_v1(cls, inputs, attr, ctx):
            # opset 1's output_sequence only says whether Y is wanted; Y is computed either way.
            return _convert(mode, inputs, attr, ctx, 0)

        @classmethod
        def _impl_v14(cls, inputs, attr, ctx):
            layout = attr.get("layout", 0)
            if layout not in (0, 1):
                unsupported(f"{mode}: layout {layout}")
            return _convert(mode, inputs, attr, ctx, layout)

    Converter.__name__ = Converter.__qualname__ = mode
    return Converter


for _mode in ("RNN", "GRU", "LSTM"):
    register_converter(_mode)(_family(_mode))
