"""Sequences and optionals: SequenceConstruct/Empty/Insert/Erase/At/Length, SplitToSequence, ConcatFromSequence,
SequenceMap (a subgraph per element), Optional, OptionalHasElement, OptionalGetElement."""
import numpy as np

from ....error import get_error_class
from ....ir.type import SequenceType
from ... import expr as _expr
from ... import op as _op
from .common import (OnnxOpConverter, axis_attr, dtype_attr, input_at, normalize_axis, rank_of, register_converter,
                     register_renamed, required_attr)


@register_converter("SequenceConstruct")
class SequenceConstruct(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return _op.sequence_construct(inputs)


@register_converter("SequenceEmpty")
class SequenceEmpty(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        return _op.sequence_empty(dtype_attr(attr, "dtype", 1))


register_renamed("SequenceInsert", 11, _op.sequence_insert)
register_renamed("SequenceErase", 11, _op.sequence_erase)
register_renamed("SequenceAt", 11, _op.sequence_at)
register_renamed("SequenceLength", 11, _op.sequence_length)


@register_converter("SplitToSequence")
class SplitToSequence(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        split = input_at(inputs, 1)
        keepdims = bool(attr.get("keepdims", 1)) if split is None else True
        return _op.split_to_sequence(inputs[0], split, axis=axis_attr(attr, "axis", 0, inputs[0]), keepdims=keepdims)


@register_converter("ConcatFromSequence")
class ConcatFromSequence(OnnxOpConverter):
    @classmethod
    def _impl_v11(cls, inputs, attr, ctx):
        axis = required_attr(attr, "axis")
        new_axis = bool(attr.get("new_axis", 0))
        ty = inputs[0].checked_type
        rank = rank_of(ty.elem_type) if isinstance(ty, SequenceType) else None
        if rank is not None:  # an axis of the elements, or with new_axis of the result (one rank more)
            normalize_axis(axis, rank + new_axis, "axis")
        return _op.concat_from_sequence(inputs[0], axis, new_axis)


@register_converter("SequenceMap")
class SequenceMap(OnnxOpConverter):
    @classmethod
    def _impl_v17(cls, inputs, attr, ctx):
        types = []
        for x in inputs:
            t = x.checked_type
            types.append(t.elem_type if isinstance(t, SequenceType) else t)
        body = attr["body"]
        if len(body.input) != len(inputs):
            raise get_error_class("ValueError")(f"the body takes {len(body.input)} inputs, the node gives "
                                                f"{len(inputs)}")
        fn = ctx.convert_subgraph(body, types, as_tuple=True)
        call = _op.sequence_map(inputs, fn)
        return [_expr.TupleGetItem(call, i) for i in range(len(body.output))]


@register_converter("Optional")
class Optional(OnnxOpConverter):
    @classmethod
    def _impl_v15(cls, inputs, attr, ctx):
        if inputs and inputs[0] is not None:
            return _op.optional(inputs[0])
        if "type" not in attr:
            raise ValueError("Optional without an input needs the 'type' attribute")
        return _op.optional_empty(ctx.type_proto_type(attr["type"], "Optional"))


@register_converter("OptionalHasElement")
class OptionalHasElement(OnnxOpConverter):
    @classmethod
    def _impl_v15(cls, inputs, attr, ctx):
        if not inputs or inputs[0] is None:  # opset 18: an omitted input is an empty optional
            return _expr.const(np.array(False))
        return _op.optional_has_element(inputs[0])


register_renamed("OptionalGetElement", 15, _op.optional_get_element)
