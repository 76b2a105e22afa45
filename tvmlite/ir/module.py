"""IRModule: the named functions of a program (csrc/include/tvmlite/ir/module.h)."""
from .._ffi.registry import register_object
from ..runtime.object import Object
from . import _ffi_api
from .type import _Printable

__all__ = ["IRModule"]


@register_object("ir.IRModule")
class IRModule(_Printable, Object):
    """A program: functions by name, ``"main"`` the entry point.

    ``IRModule({"main": func})``, ``IRModule.from_expr(expr)``, ``mod["main"]``.
    """

    __slots__ = ()

    def __init__(self, functions=None):
        self.__init_handle_by_constructor__(_ffi_api.IRModule, dict(functions or {}))

    @staticmethod
    def from_expr(expr):
        """A module whose "main" is expr (a function, or an expression over its free variables)."""
        return _ffi_api.IRModule_FromExpr(expr)

    def __getitem__(self, name):
        return _ffi_api.IRModule_Lookup(self, name)

    def __contains__(self, name):
        return name in self.functions

    def get_global_vars(self):
        """Names of the module's functions, in order."""
        return list(self.functions.keys())
