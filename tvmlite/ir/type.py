"""The IR's types (csrc/include/tvmlite/ir/type.h): TensorType, TupleType, FuncType, SequenceType, OptionalType."""
from .._ffi.registry import register_object
from ..runtime.object import Object
from . import _ffi_api

__all__ = ["Type", "SizeVar", "TensorType", "DynTensorType", "TupleType", "FuncType", "SequenceType", "OptionalType",
           "Any"]


class _Printable:
    __slots__ = ()

    def astext(self):
        """The text form (TVM's)."""
        return _ffi_api.AsText(self)

    def __str__(self):
        return _ffi_api.AsText(self)

    def __repr__(self):
        return _ffi_api.AsText(self)


@register_object("ir.SizeVar")
class SizeVar(Object):
    """A symbolic dim: a named size ("batch"); ``Any()`` is one known only at run time (printed ``?``)."""

    __slots__ = ()

    def __repr__(self):
        return self.name_hint


def Any():  # noqa: N802 - TVM's name (relay.Any())
    """A dim known only at run time."""
    return SizeVar("?")


@register_object("ir.Type")
class Type(_Printable, Object):
    """Base of all types."""

    __slots__ = ()


@register_object("ir.TensorType")
class TensorType(Type):
    """A tensor's type: ``TensorType((1, 3, 224, 224), "float32")``; dims are ints or SizeVars."""

    __slots__ = ()

    def __init__(self, shape, dtype="float32"):
        self.__init_handle_by_constructor__(TensorType._tvmlite_ctor, list(shape), dtype)

    @property
    def concrete_shape(self):
        """The shape as a tuple of ints (ValueError when a dim is symbolic)."""
        dims = tuple(self.shape)
        if not all(isinstance(d, int) for d in dims):
            raise ValueError(f"{self} has symbolic dims")
        return dims



@register_object("ir.DynTensorType")
class DynTensorType(Type):
    """A tensor whose rank is known only at run time: ``DynTensorType("float32")`` (printed Tensor[..., float32])."""

    __slots__ = ()


@register_object("ir.TupleType")
class TupleType(Type):
    """The type of a tuple: ``TupleType([t1, t2])``."""

    __slots__ = ()

    def __init__(self, fields):
        self.__init_handle_by_constructor__(TupleType._tvmlite_ctor, list(fields))



@register_object("ir.FuncType")
class FuncType(Type):
    """A function's type: ``FuncType(arg_types, ret_type)``."""

    __slots__ = ()


@register_object("ir.SequenceType")
class SequenceType(Type):
    """A run-time list of values of one type (ONNX sequences)."""

    __slots__ = ()


@register_object("ir.OptionalType")
class OptionalType(Type):
    """A value of a type, or none (ONNX optionals)."""

    __slots__ = ()
