"""Relay: the graph IR (expressions, ops, passes) and the ONNX frontend's target."""
from ..ir import IRModule, TensorType, TupleType, FuncType, SizeVar, Any
from .expr import Var, Constant, Call, Tuple, TupleGetItem, Function, var, const
from .op import *  # noqa: F401,F403
from .op import nn
from . import transform
from .expr_functor import ExprVisitor, ExprMutator
from .build_module import build

__all__ = ["IRModule", "TensorType", "TupleType", "FuncType", "SizeVar", "Any", "Var", "Constant", "Call",
           "Tuple", "TupleGetItem", "Function", "var", "const", "nn", "transform", "build", "ExprVisitor", "ExprMutator"]
