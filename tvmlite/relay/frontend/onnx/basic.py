"""Trivial ops that belong to no other family: Constant and Identity.

Constant (v1 ``value``; v11 ``sparse_value``; v12 ``value_float(s)``, ``value_int(s)``, ``value_string(s)``;
later versions only widen the types): exactly one value attribute, which becomes a relay Constant. Sparse
values and strings are valid ONNX that tvmlite does not represent yet (clear OpNotImplemented).

Identity (v1 tensors, v14 sequences, v16 optionals): the output *is* the input expression, whatever its type;
no copy op is emitted (values are immutable in the IR).
"""
import numpy as np

from ....error import OpAttributeInvalid, OpAttributeRequired
from ...expr import const
from .common import OnnxOpConverter, register_converter, unsupported

_VALUE_ATTRS = ("value", "sparse_value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                "value_strings")


@register_converter("Constant")
class Constant(OnnxOpConverter):
    """The node's one value attribute as a Constant."""

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        if inputs:
            raise OpAttributeInvalid(f"Constant takes no inputs, got {len(inputs)}")
        given = [name for name in _VALUE_ATTRS if name in attr]
        if not given:
            raise OpAttributeRequired("Constant needs one of the attributes " + ", ".join(_VALUE_ATTRS))
        if len(given) > 1:
            raise OpAttributeInvalid(f"Constant takes exactly one value attribute, got {', '.join(given)}")
        name = given[0]
        value = attr[name]
        if name == "sparse_value":
            unsupported("Constant: sparse_value (a SparseTensorProto) is not supported: tvmlite has no sparse "
                        "tensors")
        if name in ("value_string", "value_strings"):
            unsupported(f"Constant: {name} (a string tensor) is not supported: the IR has no string dtype")
        if name == "value":
            array = np.asarray(value)
            if array.dtype == object:
                unsupported("Constant: a string tensor value is not supported: the IR has no string dtype")
            return const(array)
        if name == "value_float":
            return const(np.array(value, dtype=np.float32))
        if name == "value_floats":
            return const(np.array(value, dtype=np.float32).reshape(len(value)))
        if name == "value_int":
            return const(np.array(value, dtype=np.int64))
        return const(np.array(value, dtype=np.int64).reshape(len(value)))  # value_ints


@register_converter("Identity")
class Identity(OnnxOpConverter):
    """The input itself (tensor, sequence or optional)."""

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        if len(inputs) != 1 or inputs[0] is None:
            raise OpAttributeInvalid(f"Identity takes one input, got {len(inputs)}")
        return inputs[0]
