"""Passes over modules: ``relay.transform.InferType()(mod)``.

A pass object is called on an IRModule and returns a new IRModule (modules are immutable).
"""
from . import _ffi_api

__all__ = ["InferType", "Pass"]


class Pass:
    """A module-to-module transformation."""

    def __init__(self, name, func):
        self.name = name
        self._func = func

    def __call__(self, mod):
        from ..ir.module import IRModule

        if not isinstance(mod, IRModule):
            raise TypeError(f"{self.name}: expected an IRModule, got {type(mod).__name__}")
        return self._func(mod)

    def __repr__(self):
        return f"Pass({self.name})"


def InferType():  # noqa: N802 - TVM's name
    """Type every expression (shapes and dtypes) with the ops' type relations."""
    return Pass("InferType", _ffi_api.__getattr__("_transform.InferType"))
