"""RelayExpr: the base of expressions (csrc/include/tvmlite/ir/expr.h)."""
from .._ffi.registry import register_object
from ..runtime.object import Object
from . import _ffi_api
from .type import _Printable

__all__ = ["RelayExpr"]


@register_object("ir.RelayExpr")
class RelayExpr(_Printable, Object):
    """Base of every expression."""

    __slots__ = ()

    @property
    def checked_type(self):
        """The type InferType found (ValueError before it has run)."""
        return _ffi_api.ExprCheckedType(self)
