"""Recurrent op builder: ``relay.nn.rnn`` (ONNX RNN / GRU / LSTM in one op; csrc/relay/op/nn/rnn.cc)."""
from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from ...expr import Tuple
from . import _make

__all__ = ["rnn"]


@register_object("relay.attrs.RNNAttrs")
class RNNAttrs(Attrs):
    __slots__ = ()


def rnn(data, weight, recurrence, bias=None, sequence_lens=None, initial_h=None, initial_c=None, peepholes=None,
        mode="LSTM", hidden_size=0, direction="forward", activations=(), activation_alpha=(), activation_beta=(),
        clip=None, linear_before_reset=False, input_forget=False, layout=0):
    """A whole-sequence RNN ("RNN"), GRU ("GRU") or LSTM ("LSTM") with ONNX semantics and tensor layouts.

    Returns a tuple-typed call: (Y, Y_h), plus Y_c for LSTM. Omitted inputs are None; activations are ONNX names
    (default: the mode's), clip None means no clipping."""
    def opt(x):
        return Tuple([]) if x is None else x

    if clip is not None and not clip > 0:
        raise ValueError(f"nn.rnn: clip must be positive, got {clip}")
    return _make.rnn(data, weight, recurrence, opt(bias), opt(sequence_lens), opt(initial_h), opt(initial_c),
                     opt(peepholes), mode, int(hidden_size), direction, ",".join(activations),
                     [float(a) for a in activation_alpha], [float(b) for b in activation_beta],
                     float(clip or 0.0), bool(linear_before_reset), bool(input_forget), int(layout))
