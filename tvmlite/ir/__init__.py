"""The IR's core: types, the expression base, ops and modules (csrc/ir)."""
from .type import Type, SizeVar, Any, TensorType, DynTensorType, TupleType, FuncType, SequenceType, OptionalType
from .expr import RelayExpr
from .attrs import Attrs, DictAttrs
from .op import Op, OpPattern, list_op_names, register_op_attr
from .module import IRModule
from . import _ffi_api  # noqa: F401  (tvmlite.ir._ffi_api: the ir.* globals)

__all__ = ["Type", "SizeVar", "Any", "TensorType", "DynTensorType", "TupleType", "FuncType", "SequenceType",
           "OptionalType",
           "RelayExpr", "Attrs", "DictAttrs", "Op", "OpPattern", "list_op_names", "register_op_attr", "IRModule"]
