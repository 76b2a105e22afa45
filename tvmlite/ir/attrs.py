"""Attrs: the typed attributes of an op call (csrc/include/tvmlite/ir/attrs.h). Fields read as attributes."""
from .._ffi.registry import register_object
from ..runtime.object import Object

__all__ = ["Attrs", "DictAttrs"]


@register_object("ir.Attrs")
class Attrs(Object):
    """Base of every attrs type; ``attrs.strides`` reads a field."""

    __slots__ = ()


@register_object("ir.DictAttrs")
class DictAttrs(Attrs):
    """Attributes as a name -> value map."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self.dict[name]
        except KeyError:
            raise AttributeError(name) from None
