"""Errors raised by tvmlite. Every class derives from :class:`TVMLiteError`; kinds named after builtins also
derive from the builtin (a C++ ValueError is ``tvmlite.error.ValueError``, caught by ``except ValueError``)."""
from ._ffi.error import TVMLiteError, InternalError, register_error, get_error_class

__all__ = ["TVMLiteError", "InternalError", "OpError", "OpNotImplemented", "OpAttributeInvalid",
           "OpAttributeRequired", "register_error", "get_error_class"]


@register_error
class OpError(TVMLiteError):
    """An error about an operator (frontends raise its subclasses)."""


@register_error
class OpNotImplemented(OpError, NotImplementedError):
    """An operator is not supported."""


@register_error
class OpAttributeInvalid(OpError, AttributeError):
    """An operator attribute has an invalid value."""


@register_error
class OpAttributeRequired(OpError, AttributeError):
    """A required operator attribute is missing."""
