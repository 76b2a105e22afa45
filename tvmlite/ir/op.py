"""Op: primitive operators and their attributes (csrc/include/tvmlite/ir/op.h).

    >>> op = tvmlite.ir.Op.get("nn.relu")
    >>> op.get_attr("TOpPattern")
    0
    >>> @tvmlite.ir.register_op_attr("nn.relu", "FReference", level=20)   # overrides level 10
    ... def relu(attrs, x): ...
"""
from .._ffi.registry import register_object
from ..runtime.object import Object
from . import _ffi_api
from .expr import RelayExpr

__all__ = ["Op", "list_op_names", "register_op_attr", "OpPattern"]


class OpPattern:
    """TVM's fusion patterns (an op's "TOpPattern" attribute)."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


@register_object("ir.OpArgument")
class OpArgument(Object):
    """An input an op takes: name, type_info, description."""

    __slots__ = ()


@register_object("ir.Op")
class Op(RelayExpr):
    """A registered primitive operator; one object per name."""

    __slots__ = ()

    def __init__(self):
        raise TypeError("Op cannot be constructed; use tvmlite.ir.Op.get(name)")

    @staticmethod
    def get(name):
        """The op registered under name (ValueError when there is none)."""
        return _ffi_api.GetOp(name)

    def get_attr(self, key):
        """The attribute's value, or None when it is not set."""
        return _ffi_api.OpGetAttr(self, key)

    def get_attr_level(self, key):
        """The level the attribute was registered at, or None."""
        return _ffi_api.OpGetAttrLevel(self, key)

    def set_attr(self, key, value, level=10):
        """Set an attribute: a higher level replaces a lower one; the same level is a ValueError."""
        _ffi_api.OpSetAttr(self, key, value, level)

    def reset_attr(self, key):
        """Remove an attribute (any level)."""
        _ffi_api.OpResetAttr(self, key)


def list_op_names():
    """Names of every registered op."""
    return list(_ffi_api.ListOpNames())


def register_op_attr(op_name, key, value=None, level=10):
    """Register an op attribute; as a decorator (value omitted) it registers the decorated function.

    A higher ``level`` overrides a lower one (TVM's plevel); a lower one is ignored.
    """
    def register(v):
        Op.get(op_name).set_attr(key, v, level)
        return v

    return register(value) if value is not None else register
