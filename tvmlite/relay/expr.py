"""Relay expressions (csrc/include/tvmlite/ir/expr.h): Var, Constant, Call, Tuple, TupleGetItem, Function.

    >>> x = relay.var("x", shape=(1, 3), dtype="float32")
    >>> y = relay.nn.relu(relay.add(x, relay.const(1.0)))
    >>> f = relay.Function([x], y)
"""
import numpy as np

from .._ffi.registry import register_object
from ..ir.expr import RelayExpr
from ..ir.type import TensorType, Type
from .. import nd
from . import _ffi_api

__all__ = ["Var", "Constant", "Call", "Tuple", "TupleGetItem", "Function", "var", "const"]


@register_object("relay.Var")
class Var(RelayExpr):
    """A variable (a function parameter or graph input): ``Var(name_hint, type_annotation=None)``."""

    __slots__ = ()

    def __init__(self, name_hint, type_annotation=None):
        self.__init_handle_by_constructor__(Var._tvmlite_ctor, name_hint, type_annotation)



@register_object("relay.Constant")
class Constant(RelayExpr):
    """A constant tensor: ``Constant(tvmlite.nd.array(...))``."""

    __slots__ = ()


@register_object("relay.Call")
class Call(RelayExpr):
    """``op(args...)`` with attrs: ``Call(op, args, attrs=None)``."""

    __slots__ = ()

    def __init__(self, op, args, attrs=None):
        self.__init_handle_by_constructor__(Call._tvmlite_ctor, op, list(args), attrs)



@register_object("relay.Tuple")
class Tuple(RelayExpr):
    """A tuple of expressions: ``Tuple([a, b])``."""

    __slots__ = ()

    def __init__(self, fields):
        self.__init_handle_by_constructor__(Tuple._tvmlite_ctor, list(fields))

    def __getitem__(self, index):
        return self.fields[index]

    def __len__(self):
        return len(self.fields)



@register_object("relay.TupleGetItem")
class TupleGetItem(RelayExpr):
    """Field ``index`` of a tuple-typed expression."""

    __slots__ = ()


@register_object("relay.Function")
class Function(RelayExpr):
    """``Function(params, body, ret_type=None, attrs=None)``: params are Vars bound in body; attrs a dict of
    str to value (FuseOps marks its groups ``Primitive=1``)."""

    __slots__ = ()

    def __init__(self, params, body, ret_type=None, attrs=None):
        self.__init_handle_by_constructor__(Function._tvmlite_ctor, list(params), body, ret_type,
                                            {} if attrs is None else attrs)

    def with_attr(self, key, value):
        """A copy with ``attrs[key] = value``."""
        return _ffi_api.FunctionWithAttr(self, key, value)



def var(name_hint, type_annotation=None, shape=None, dtype="float32"):
    """A Var; its type is type_annotation, or a TensorType of shape and dtype when shape is given."""
    if type_annotation is None and shape is not None:
        type_annotation = TensorType(shape, dtype)
    elif isinstance(type_annotation, str):
        type_annotation = TensorType((), type_annotation)
    elif type_annotation is not None and not isinstance(type_annotation, Type):
        raise TypeError(f"relay.var: type_annotation must be a Type or a dtype str, got "
                        f"{type(type_annotation).__name__}")
    return Var(name_hint, type_annotation)


def const(value, dtype=None):
    """A Constant from a number, a nested list, a numpy array or an NDArray (ints default to int64,
    floats to float32, as TVM's). ml_dtypes arrays (bfloat16, float8_*, int4, ...) keep their dtype:
    ``const(x).data.numpy()`` gives back x."""
    if isinstance(value, nd.NDArray):
        if dtype is not None and str(value.dtype) != dtype:
            value = nd.array(value.numpy().astype(nd.numpy_dtype(dtype)))
        return Constant(value)
    if not isinstance(value, np.ndarray) or dtype is not None:
        array = np.asarray(value, dtype=None if dtype is None else nd.numpy_dtype(dtype))
        if dtype is None and array.dtype == np.float64 and not isinstance(value, np.ndarray):
            array = array.astype("float32")
        value = array
    return Constant(nd.array(value))  # nd.array copies (np.ascontiguousarray would make a 0-d array 1-d)
