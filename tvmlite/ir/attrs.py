"""Attrs: the typed attributes of an op call (csrc/include/tvmlite/ir/attrs.h). Fields read as attributes."""
import threading

from .._ffi import core
from .._ffi.registry import register_object
from ..runtime.object import Object

__all__ = ["Attrs", "DictAttrs"]


@register_object("ir.Attrs")
class Attrs(Object):
    """Base of every attrs type; ``attrs.strides`` reads a field.

    An attrs type registered in C++ without a Python class of its own gets one on first field access (named
    after its type key), so every op's attrs read as attributes without a class per op in Python.
    """

    __slots__ = ()

    def __getattr__(self, name):
        if name.startswith("__") or type(self).__name__ == _class_name(self.type_key):
            raise AttributeError(f"{self.type_key} has no field '{name}'")
        cls = _class_for(self.type_key)
        return cls.__dict__[name].__get__(self, cls) if isinstance(cls.__dict__.get(name), _FIELD) else \
            _raise_no_field(self.type_key, name)


_FIELD = core.FieldDescriptor
_CLASSES = {}
_LOCK = threading.Lock()


def _class_name(type_key):
    return type_key.rsplit(".", 1)[-1]


def _class_for(type_key):
    """The Python class of an attrs type key, made (subclassing Attrs) and registered on first use."""
    with _LOCK:
        cls = _CLASSES.get(type_key)
        if cls is None:
            cls = type(_class_name(type_key), (Attrs,), {"__slots__": (), "__module__": __name__})
            cls = register_object(type_key)(cls)
            _CLASSES[type_key] = cls
        return cls


def _raise_no_field(type_key, name):
    raise AttributeError(f"{type_key} has no field '{name}'")


@register_object("ir.DictAttrs")
class DictAttrs(Attrs):
    """Attributes as a name -> value map."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self.dict[name]
        except KeyError:
            raise AttributeError(name) from None
