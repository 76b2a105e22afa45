"""Constant folding for the importer: the value of an expression computable at import time, or None.

Shape-computing subgraphs (Shape -> Gather -> Concat -> Reshape, Resize scales, Slice starts) must be constants
for the converters that consume them, so the importer folds:

* an expression whose leaves are all Constants (a param is a run-time input: only its type is known);
* an op whose value depends only on its inputs' *types* (Shape, Size, EyeLike of a statically shaped tensor).
  Nothing marks such ops: a non-constant leaf of static type is handed to the references as a ``TypeOnly``
  stand-in that has ``shape``, ``dtype``, ``ndim`` and ``size`` and refuses every access to data (numpy
  conversion, ufuncs, array functions, indexing, arithmetic all raise). A reference that returns a result of the
  right type without touching data has shown that the value depends on the type alone.

Evaluation walks the expression children first (no recursion) and calls each op's numpy reference, the very
functions the debug executor runs (``tvmlite.relay.op.op.get_reference``), checking each result against the
call's inferred type as the executor does. Ops marked non-deterministic (random generators; an op attribute
``TNonDeterministic`` set to True, or a name containing "random", "multinomial" or "bernoulli": the compiler's
rule, asked through ``relay.OpDeterministic``) are never folded. Function values and calls of functions are left
alone (control flow folds when its branches are converted to plain expressions).

Values are cached per expression node (expressions are immutable, so a node's value never changes).
"""
import math

import numpy as np

from ... import _ffi_api as _relay_ffi_api
from ...backend.dtypes import to_numpy_dtype
from ...expr import Call, Constant, Function, Tuple, TupleGetItem, Var
from ...op.op import get_reference
from ....ir.op import Op
from ....ir.type import TensorType, TupleType

__all__ = ["ConstantFolder", "TypeOnly", "NotConstant", "is_deterministic"]


class NotConstant(Exception):
    """The expression's value is not known at import time."""


class TypeOnly:
    """A tensor whose type, not value, is known: any attempt to read its data raises NotConstant."""

    __slots__ = ("shape", "dtype")
    __array_ufunc__ = None  # ufuncs (np.add(t, 1), t + 1) raise TypeError instead of making object arrays

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    def __array__(self, *args, **kwargs):
        raise NotConstant("the value of a tensor known only by its type")

    def __array_function__(self, func, types, args, kwargs):
        raise NotConstant(f"np.{func.__name__} reads a tensor known only by its type")

    def _refuse(self, *args, **kwargs):
        raise NotConstant("the value of a tensor known only by its type")

    __getitem__ = __iter__ = __len__ = __bool__ = __float__ = __int__ = __index__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = _refuse

    def __repr__(self):
        return f"TypeOnly({self.shape}, {self.dtype})"


_DETERMINISTIC = {}  # op name -> bool (an op's attributes are fixed once registered)


def is_deterministic(op):
    """False for ops whose result is random (never folded): the compiler's rule, OpFacts::Deterministic."""
    name = op.name
    answer = _DETERMINISTIC.get(name)
    if answer is None:
        answer = bool(_relay_ffi_api.OpDeterministic(op))
        _DETERMINISTIC[name] = answer
    return answer


def _static_shape(ty):
    if not isinstance(ty, TensorType):
        return None
    dims = tuple(ty.shape)
    return dims if all(isinstance(d, int) for d in dims) else None


def _children(node):
    if isinstance(node, Call):
        return list(node.args)
    if isinstance(node, Tuple):
        return list(node.fields)
    if isinstance(node, TupleGetItem):
        return [node.tuple_value]
    return []


def _contains_type_only(value):
    if isinstance(value, TypeOnly):
        return True
    if isinstance(value, (tuple, list)):
        return any(_contains_type_only(v) for v in value)
    return False


def _check(value, ty, what):
    """value as its type says (numpy scalars -> 0-d arrays); NotConstant when it does not fit the type."""
    if isinstance(ty, TensorType):
        if isinstance(value, TypeOnly):
            raise NotConstant(f"{what} passed a type-only tensor through")
        if not isinstance(value, np.ndarray):
            if isinstance(value, (list, tuple)) or value is None:
                raise NotConstant(f"{what} returned {type(value).__name__} for a tensor type")
            value = np.asarray(value)
        if value.dtype == object or value.dtype != to_numpy_dtype(ty.dtype):
            raise NotConstant(f"{what} returned dtype {value.dtype} for {ty}")
        dims = tuple(ty.shape)
        if value.ndim != len(dims) or any(isinstance(d, int) and d != n for d, n in zip(dims, value.shape)):
            raise NotConstant(f"{what} returned shape {value.shape} for {ty}")
        return value
    if isinstance(ty, TupleType):
        if not isinstance(value, (tuple, list)) or len(value) != len(ty.fields):
            raise NotConstant(f"{what} returned {type(value).__name__} for {ty}")
        return tuple(_check_field(v, t, what) for v, t in zip(value, ty.fields))
    raise NotConstant(f"{what} has a {type(ty).__name__}, not folded")


def _check_field(value, ty, what):
    # A tuple's field may stay type-only (Split of a type-only tensor): only its consumers decide.
    if isinstance(value, TypeOnly) and isinstance(ty, TensorType) and _static_shape(ty) == value.shape:
        return value
    return _check(value, ty, what)


class ConstantFolder:
    """Values of expressions known at import time.

    ``leaf_value(var)`` gives a Var's value or None (by default every Var is an input known only by its type);
    ``infer_type(expr)`` types an expression.
    """

    def __init__(self, infer_type, leaf_value=None):
        self._infer_type = infer_type
        self._leaf_value = leaf_value or (lambda var: None)
        self._cache = {}  # expr -> value, or NotConstant instance

    def value(self, expr, limit=None):
        """expr's numpy value, or None. ``limit`` bounds the element count of the result (bigger: None)."""
        try:
            ty = expr.checked_type
        except Exception:  # noqa: BLE001 - untyped: type it first
            try:
                expr = self._infer_type(expr)
                ty = expr.checked_type
            except Exception:  # noqa: BLE001 - an expression that does not type has no value
                return None
        shape = _static_shape(ty)
        if shape is None or (limit is not None and math.prod(shape) > limit):
            return None
        try:
            value = self._evaluate(expr)
        except NotConstant:
            return None
        return value if isinstance(value, np.ndarray) and value.dtype != object else None

    def _evaluate(self, root):
        cache = self._cache
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if node in cache:
                continue
            if not expanded:
                if isinstance(node, (Call, Tuple, TupleGetItem)):
                    stack.append((node, True))
                    stack.extend((c, False) for c in _children(node) if c not in cache)
                    continue
            cache[node] = self._node_value(node)
        value = cache[root]
        if isinstance(value, NotConstant):
            raise value
        if _contains_type_only(value):
            raise NotConstant("the value depends on data known only by type")
        return value

    def _node_value(self, node):
        try:
            return self._compute(node)
        except NotConstant as err:
            return err
        except Exception as err:  # noqa: BLE001 - a reference that cannot run here means "not foldable"
            return NotConstant(f"{type(err).__name__}: {err}")

    def _arg(self, node):
        value = self._cache[node]
        if isinstance(value, NotConstant):
            raise value
        return value

    def _compute(self, node):
        if isinstance(node, Constant):
            return node.data.numpy()
        if isinstance(node, Var):
            value = self._leaf_value(node)
            if value is not None:
                return value
            shape = _static_shape(node.type_annotation)
            if shape is not None:
                return TypeOnly(shape, to_numpy_dtype(node.type_annotation.dtype))
            raise NotConstant(f"%{node.name_hint} is an input")
        if isinstance(node, Call):
            if not isinstance(node.op, Op):
                raise NotConstant("a call of a function")
            if not is_deterministic(node.op):
                raise NotConstant(f"{node.op.name} is not deterministic")
            args = [self._arg(a) for a in node.args]
            ref = get_reference(node.op.name)
            if ref is None:
                raise NotConstant(f"{node.op.name} has no reference")
            return _check(ref(node.attrs, *args), node.checked_type, node.op.name)
        if isinstance(node, Tuple):
            return tuple(self._arg(f) for f in node.fields)
        if isinstance(node, TupleGetItem):
            value = self._arg(node.tuple_value)
            if not isinstance(value, (tuple, list)):
                raise NotConstant("TupleGetItem of a non-tuple")
            return value[node.index]
        if isinstance(node, Function):
            raise NotConstant("a function")
        raise NotConstant(f"a {type(node).__name__}")
