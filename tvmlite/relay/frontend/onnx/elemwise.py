"""Elementwise ops: arithmetic, comparison, logic and unary math.

Opset history that matters here:

* Binary ops before opset 7 (Add/Sub/Mul/Div v1 and v6, Pow/Equal/Less/Greater/And/Or/Xor v1) do not broadcast
  numpy-style: ``broadcast=0`` (the default) requires B to have A's shape; ``broadcast=1`` lets B's shape be a
  contiguous run of A's dims starting at ``axis`` (suffix matching when ``axis`` is absent), or a single element.
  Here B is reshaped to put its dims at ``axis`` and numpy broadcasting does the rest. v1's
  ``consumed_inputs`` is a memory hint with no semantics. From opset 7 on, numpy broadcasting.
* Later versions (v13, v14, v22 ...) only widen the type constraints (bfloat16, small ints): the relay ops and
  their type relations take every dtype, so one implementation covers them; a dtype mismatch between A and B is
  an error from the type relation, named against the node.
* Each op is registered from the opset it first appeared in (Sign from 9, Sin from 7, BitwiseAnd from 18 ...),
  so a model of an older opset gets a clear "converters start at opset N".

Pow (incl. mixed types; its v1 has the same legacy broadcasting: ``legacy_broadcast`` is exported for it), Mod,
BitShift, Max/Min/Sum/Mean, Clip and Cast belong to the math family (math.py).
"""
from ....error import OpAttributeInvalid
from ... import op as _op
from ...expr import Constant
from ....ir.type import TensorType
from .common import OnnxOpConverter, is_static, register_converter, register_renamed, unsupported

__all__ = ["legacy_broadcast"]


def legacy_broadcast(a, b, attr, ctx):
    """B arranged against A by the pre-opset-7 rules (``broadcast``, ``axis``), ready for numpy broadcasting."""
    a_type, b_type = a.checked_type, b.checked_type
    if not isinstance(a_type, TensorType) or not isinstance(b_type, TensorType):
        return b
    a_shape, b_shape = list(a_type.shape), list(b_type.shape)
    if not attr.get("broadcast", 0):
        if is_static(a_shape) and is_static(b_shape) and a_shape != b_shape:
            raise OpAttributeInvalid(f"B's shape {tuple(b_shape)} differs from A's {tuple(a_shape)} and the node "
                                     f"does not set broadcast=1 (opset {ctx.opset} broadcasts only when asked)")
        return b
    rank_a, rank_b = len(a_shape), len(b_shape)
    if rank_b > rank_a:
        raise OpAttributeInvalid(f"broadcast=1: B has rank {rank_b}, more than A's {rank_a}")
    axis = attr.get("axis")
    if axis is None:
        return b  # suffix matching is numpy broadcasting
    if axis < 0:
        axis += rank_a
    if not 0 <= axis <= rank_a - rank_b:
        raise OpAttributeInvalid(f"broadcast axis {attr['axis']} does not fit B of rank {rank_b} against A of rank "
                                 f"{rank_a}")
    trailing = rank_a - axis - rank_b
    if trailing == 0:
        return b
    new_shape = b_shape + [1] * trailing
    if isinstance(b, Constant):
        from ...expr import const

        return const(b.data.numpy().reshape([int(d) for d in new_shape]))
    # Not a Constant: computed at run time, or too large for the importer to fold (FOLD_LIMIT). A reshape, which
    # the importer folds in turn when it may; never a constant made here.
    if not is_static(b_shape):
        unsupported(f"broadcast along axis {axis} of a computed B of shape {tuple(b_shape)} (needs reshape)")
    return _op.reshape(b, new_shape)


def _binary(relay_name, first, legacy):
    """A converter class for a binary op: legacy broadcasting below opset 7 when ``legacy``."""
    builder = getattr(_op, relay_name)
    body = {}

    def modern(cls, inputs, attr, ctx):
        return builder(inputs[0], inputs[1])

    if legacy:
        def old(cls, inputs, attr, ctx):
            return builder(inputs[0], legacy_broadcast(inputs[0], inputs[1], attr, ctx))

        body[f"_impl_v{first}"] = classmethod(old)
        body["_impl_v7"] = classmethod(modern)
    else:
        body[f"_impl_v{first}"] = classmethod(modern)
    return body


#            ONNX name       relay op         first opset  legacy broadcast before 7
_BINARY = [("Add", "add", 1, True), ("Sub", "subtract", 1, True), ("Mul", "multiply", 1, True),
           ("Div", "divide", 1, True), ("Equal", "equal", 1, True),
           ("Less", "less", 1, True), ("Greater", "greater", 1, True), ("And", "logical_and", 1, True),
           ("Or", "logical_or", 1, True), ("Xor", "logical_xor", 1, True),
           ("LessOrEqual", "less_equal", 12, False), ("GreaterOrEqual", "greater_equal", 12, False),
           ("BitwiseAnd", "bitwise_and", 18, False), ("BitwiseOr", "bitwise_or", 18, False),
           ("BitwiseXor", "bitwise_xor", 18, False)]

for _onnx_name, _relay_name, _first, _legacy in _BINARY:
    register_converter(_onnx_name)(type(_onnx_name, (OnnxOpConverter,), _binary(_relay_name, _first, _legacy)))


#  ONNX name, relay builder, first opset
_UNARY = [("Neg", _op.negative, 1), ("Abs", _op.abs, 1), ("Sign", _op.sign, 9), ("Exp", _op.exp, 1),
          ("Log", _op.log, 1), ("Sqrt", _op.sqrt, 1), ("Reciprocal", _op.reciprocal, 1),
          ("Sigmoid", _op.sigmoid, 1), ("Tanh", _op.tanh, 1), ("Erf", _op.erf, 9), ("Sin", _op.sin, 7),
          ("Cos", _op.cos, 7), ("Tan", _op.tan, 7), ("Asin", _op.asin, 7), ("Acos", _op.acos, 7),
          ("Atan", _op.atan, 7), ("Sinh", _op.sinh, 9), ("Cosh", _op.cosh, 9), ("Asinh", _op.asinh, 9),
          ("Acosh", _op.acosh, 9), ("Atanh", _op.atanh, 9), ("Floor", _op.floor, 1), ("Ceil", _op.ceil, 1),
          ("Round", _op.round, 11), ("BitwiseNot", _op.bitwise_not, 18), ("Not", _op.logical_not, 1),
          ("IsNaN", _op.isnan, 9), ("Relu", _op.nn.relu, 1)]

for _onnx_name, _builder, _first in _UNARY:  # v1's consumed_inputs is a memory hint, ignored
    register_renamed(_onnx_name, _first, _builder)

del _onnx_name, _relay_name, _first, _legacy, _builder
