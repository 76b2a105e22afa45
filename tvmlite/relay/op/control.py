"""Control-flow, sequence and optional op builders (csrc/relay/op/control/).

Subgraphs are relay Functions passed as inputs; an omitted optional input is an empty Tuple (``absent()``):

    then_fn = relay.Function([], relay.add(x, one))      # branches take no parameters and may use outer values
    y = relay.if_(cond, then_fn, relay.Function([], x))
    out = relay.loop(max_trip_count, cond, [v0], body)   # body(i, cond, v) -> Tuple([cond, v, scan...])

``join_types(a, b)`` is the type holding both a and b (dims that differ become ``?``): frontends use it to widen
loop-carried parameter types until the body's results fit them.
"""
from ..._ffi.registry import register_object
from ...runtime import DataType
from ...ir.attrs import Attrs
from ...ir.type import DynTensorType, Type  # noqa: F401  (DynTensorType re-exported)
from ..expr import Tuple
from . import _control_ffi, _make

__all__ = ["absent", "if_", "if_call", "loop", "scan", "sequence_map", "sequence_construct", "sequence_empty",
           "sequence_insert", "sequence_erase", "sequence_at", "sequence_length", "split_to_sequence",
           "concat_from_sequence", "optional", "optional_empty", "optional_has_element", "optional_get_element",
           "join_types", "raise_error", "DynTensorType"]


for _key in ["ScanAttrs", "SequenceEmptyAttrs", "SplitToSequenceAttrs", "ConcatFromSequenceAttrs",
             "OptionalEmptyAttrs", "RaiseErrorAttrs"]:
    register_object("relay.attrs." + _key)(type(_key, (Attrs,), {"__slots__": ()}))


def absent():
    """The stand-in for an omitted optional input: an empty tuple."""
    return Tuple([])


def _opt(x):
    return absent() if x is None else x


def join_types(a, b):
    """The most specific type of values of type a or b (TypeError when none)."""
    return _control_ffi.JoinTypes(a, b)


def if_(cond, then_branch, else_branch):
    """then_branch() when cond (a bool scalar) is true, else else_branch(); branches are parameterless Functions."""
    return getattr(_make, "if")(cond, then_branch, else_branch)


def raise_error(message, ret_type):
    """A value of tensor type ret_type that is never made: evaluating it raises ValueError(message). The ONNX
    frontend makes an If branch that cannot be typed at the shapes given into one, so the error comes only when the
    branch is taken."""
    return _make.raise_error(str(message), ret_type)


def if_call(cond, args, then_branch, else_branch):
    """then_branch(*args) when cond (a bool scalar) is true, else else_branch(*args): the cpu build's form of an If,
    whose branches take the outer values they read as parameters (relay.backend.control_flow)."""
    return _make.if_call(cond, Tuple(list(args)), then_branch, else_branch)


def loop(max_trip_count, cond, v_initial, body):
    """ONNX Loop. max_trip_count (int64 scalar) and cond (bool scalar) may be None. Returns a tuple-typed call:
    the final loop-carried values, then each scan output stacked along a new axis 0."""
    return _make.loop(_opt(max_trip_count), _opt(cond), Tuple(list(v_initial)), body)


def scan(initial_states, scan_inputs, body, scan_input_axes=(), scan_input_directions=(), scan_output_axes=(),
         scan_output_directions=(), batched=False):
    """ONNX Scan: body(state..., x...) -> (state..., y...) over slices of scan_inputs."""
    return _make.scan(Tuple(list(initial_states)), Tuple(list(scan_inputs)), body, list(scan_input_axes),
                      list(scan_input_directions), list(scan_output_axes), list(scan_output_directions), batched)


def sequence_map(inputs, body):
    """ONNX SequenceMap: a tuple of sequences, body applied to each element (tensor inputs passed whole)."""
    return _make.sequence_map(Tuple(list(inputs)), body)


def sequence_construct(tensors):
    return _make.sequence_construct(Tuple(list(tensors)))


def sequence_empty(dtype="float32"):
    return _make.sequence_empty(DataType(str(dtype)))


def sequence_insert(seq, tensor, position=None):
    return _make.sequence_insert(seq, tensor, _opt(position))


def sequence_erase(seq, position=None):
    return _make.sequence_erase(seq, _opt(position))


def sequence_at(seq, position):
    return _make.sequence_at(seq, position)


def sequence_length(seq):
    return _make.sequence_length(seq)


def split_to_sequence(data, split=None, axis=0, keepdims=True):
    return _make.split_to_sequence(data, _opt(split), axis, bool(keepdims))


def concat_from_sequence(seq, axis, new_axis=False):
    return _make.concat_from_sequence(seq, axis, bool(new_axis))


def optional(value):
    return _make.optional(value)


def optional_empty(elem_type):
    return _make.optional_empty(elem_type)


def optional_has_element(value):
    return _make.optional_has_element(value)


def optional_get_element(value):
    return _make.optional_get_element(value)
