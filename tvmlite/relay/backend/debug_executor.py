"""The debug executor: interprets a relay module with each op's numpy reference ("FReference").

It is the oracle the compiled executor is checked against, so it is simple rather than fast: one Python call per
op, values are numpy arrays (tuples for tuple types, lists for sequences, None for an empty optional, Python
callables for functions). It never hands the model to another runtime.

Plan (made once, at build): type the module, list each function's nodes in post-order (a nested Function is one
node, whose value is a closure over the enclosing values), and resolve every op's reference, reporting all ops
without one in one error. Run: evaluate the list; a result that disagrees with its inferred type (dtype, static
dims) is an InternalError naming the op, since it means a reference and a type relation disagree.

Control flow: an op taking a Function (if, loop, scan, sequence_map) gets a Python callable (with the Function's
FuncType as its ``type``); calling it evaluates
the body in a scope chained to the enclosing one, so the body may use outer values (computed on demand when the
enclosing plan has not reached them). Values by type: TensorType an ndarray, DynTensorType an ndarray of its dtype
(any rank), SequenceType a list, OptionalType None or a value, TupleType a tuple, an omitted input (the empty
tuple) ``()``. Inputs of main are checked the same way by set_input.
"""
import collections

import numpy as np

from ...error import InternalError, OpNotImplemented, get_error_class, with_context
from ...ir.op import Op
from ...ir.type import OptionalType, SequenceType, TensorType, TupleType
from .. import transform
from ..expr import Call, Constant, Function, Tuple, TupleGetItem, Var
from ..op.op import get_reference
from .dtypes import to_numpy_dtype

# The executor's errors are tvmlite's kinds (TVMLiteErrors that are also the builtin), as the compiled one raises.
KeyError_, ValueError_, TypeError_, IndexError_ = map(get_error_class, ("KeyError", "ValueError", "TypeError",
                                                                          "IndexError"))

__all__ = ["DebugExecutorFactory", "DebugExecutor"]


class _Plan:
    """The nodes of one function body in evaluation order (nested functions are single nodes)."""

    def __init__(self, body):
        self.order = []
        seen = set()
        stack = [(body, False)]
        while stack:
            node, expanded = stack.pop()
            key = node
            if expanded:
                self.order.append(node)
                continue
            if key in seen:
                continue
            seen.add(key)
            stack.append((node, True))
            for child in reversed(_children(node)):
                if child not in seen:
                    stack.append((child, False))


def _children(node):
    if isinstance(node, Call):
        return [node.op, *node.args] if not isinstance(node.op, Op) else list(node.args)
    if isinstance(node, Tuple):
        return list(node.fields)
    if isinstance(node, TupleGetItem):
        return [node.tuple_value]
    return []  # Var, Constant, Op, Function (evaluated as a closure)


def _ops_below(func):
    """Names of every op called in func, nested functions included."""
    names, seen, stack = set(), set(), [func.body]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, Call) and isinstance(node.op, Op):
            names.add(node.op.name)
        stack.extend(_children(node))
        if isinstance(node, Function):
            stack.append(node.body)
    return names


class _Interpreter:
    def __init__(self, mod):
        self.mod = mod
        self.plans = {}
        self.constants = {}
        missing = {}
        self.references = {}
        for name in self.mod.functions.keys():
            for op_name in _ops_below(self.mod[name]):
                ref = get_reference(op_name)
                if ref is None:
                    missing.setdefault(op_name, name)
                self.references[op_name] = ref
        if missing:
            raise OpNotImplemented("the debug executor has no reference implementation (FReference) for: " +
                                   ", ".join(sorted(missing)))

    def plan(self, func):
        key = func
        plan = self.plans.get(key)
        if plan is None:
            plan = self.plans[key] = _Plan(func.body)
        return plan

    def call_function(self, func, args, outer_env):
        if len(args) != len(func.params):
            raise TypeError_(f"function takes {len(func.params)} arguments, got {len(args)}")
        env = collections.ChainMap({}, outer_env)
        for p, a in zip(func.params, args):
            env[p] = a
        return self.evaluate(func.body, self.plan(func), env)

    def evaluate(self, body, plan, env):
        for node in plan.order:
            key = node
            if key in env:
                continue
            if isinstance(node, Var):
                raise ValueError_(f"input %{node.name_hint} is not set")
            env[key] = self.evaluate_node(node, env)
        return env[body]

    def evaluate_node(self, node, env):
        if isinstance(node, Constant):
            value = self.constants.get(node)
            if value is None:
                value = self.constants[node] = node.data.numpy()
            return value
        if isinstance(node, Call):
            args = [env[a] for a in node.args]
            if isinstance(node.op, Op):
                return self.call_op(node, args)
            callee = env[node.op]
            return callee(*args)
        if isinstance(node, Tuple):
            return tuple(env[f] for f in node.fields)
        if isinstance(node, TupleGetItem):
            return env[node.tuple_value][node.index]
        if isinstance(node, Function):
            return _Closure(self, node, env)
        raise TypeError_(f"the debug executor cannot evaluate a {type(node).__name__}")

    def call_op(self, call, args):
        name = call.op.name
        try:
            result = self.references[name](call.attrs, *args)
        except (InternalError, OpNotImplemented):
            raise
        except Exception as err:
            raise with_context(err, name)  # the class stays: a reference's MemoryError is still one
        return _check(result, call.checked_type, name)


class _Closure:
    """A Function value: calling it runs the body in a scope chained to the enclosing one. ``type`` is the
    Function's FuncType, for references that need the body's result types without calling it (a loop that runs
    zero times still has empty scan outputs of known element shape)."""

    __slots__ = ("_interp", "_func", "_env")

    def __init__(self, interp, func, env):
        self._interp, self._func, self._env = interp, func, env

    @property
    def type(self):
        return self._func.checked_type

    def __call__(self, *args):
        return self._interp.call_function(self._func, list(args), self._env)


def _check(value, ty, op_name):
    """value as the type says (numpy scalars become 0-d arrays); InternalError when it cannot be.

    Tensors: dtype and static dims; tuples field-wise; sequences: a list whose elements fit the element type;
    optionals: None or a value of the element type; a DynTensorType: an array of its dtype (any rank)."""
    if isinstance(ty, TensorType):
        if not isinstance(value, np.ndarray):
            if isinstance(value, (list, tuple)) or value is None:
                raise InternalError(f"{op_name}: the reference returned {type(value).__name__}, the type relation "
                                    f"says {ty}")
            value = np.asarray(value)
        want = to_numpy_dtype(ty.dtype)
        if value.dtype != want:
            raise InternalError(f"{op_name}: the reference returned {value.dtype}, the type relation says {want}")
        if value.ndim != len(ty.shape) or any(isinstance(d, int) and d != n for d, n in zip(ty.shape, value.shape)):
            raise InternalError(f"{op_name}: the reference returned shape {value.shape}, the type relation says "
                                f"{ty}")
        return value
    if isinstance(ty, TupleType):
        if not isinstance(value, (tuple, list)) or len(value) != len(ty.fields):
            raise InternalError(f"{op_name}: the reference returned {type(value).__name__}, the type relation says "
                                f"{ty}")
        return tuple(_check(v, t, op_name) for v, t in zip(value, ty.fields))
    if isinstance(ty, SequenceType):
        if not isinstance(value, list):
            raise InternalError(f"{op_name}: the reference returned {type(value).__name__}, the type relation says "
                                f"{ty} (a list)")
        return [_check(v, ty.elem_type, op_name) for v in value]
    if isinstance(ty, OptionalType):
        return None if value is None else _check(value, ty.elem_type, op_name)
    dyn_dtype = _dyn_tensor_dtype(ty)
    if dyn_dtype is not None:
        if not isinstance(value, np.ndarray):
            if isinstance(value, (list, tuple)) or value is None:
                raise InternalError(f"{op_name}: the reference returned {type(value).__name__}, the type relation "
                                    f"says a tensor of {dyn_dtype}")
            value = np.asarray(value)
        if value.dtype != to_numpy_dtype(dyn_dtype):
            raise InternalError(f"{op_name}: the reference returned {value.dtype}, the type relation says "
                                f"{dyn_dtype}")
        return value
    return value


def _dyn_tensor_dtype(ty):
    """The dtype of a DynTensorType (a tensor of any rank), else None."""
    from ...ir.type import DynTensorType

    return ty.dtype if isinstance(ty, DynTensorType) else None


class DebugExecutor:
    """Runs "main" of a typed module; inputs are its parameters."""

    def __init__(self, interpreter, params):
        self._interp = interpreter
        self._main = interpreter.mod["main"]
        self._inputs = {p.name_hint: p for p in self._main.params}
        self._values = {}
        self._outputs = None
        for name, value in (params or {}).items():
            self.set_input(name, value)

    def set_input(self, name, value):
        var = self._inputs.get(name)
        if var is None:
            raise KeyError_(f"set_input: the model has no input '{name}' (inputs: {', '.join(self._inputs)})")
        ty = var.type_annotation
        if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
            value = value.numpy()
        value = _input_value(value, ty, name)
        self._values[name] = value

    def get_input(self, name):
        if name not in self._inputs:
            raise KeyError_(f"get_input: the model has no input '{name}'")
        return self._values.get(name)

    def get_input_names(self):
        return list(self._inputs)

    def run(self):
        missing = [n for n in self._inputs if n not in self._values]
        if missing:
            raise ValueError_("run: inputs not set: " + ", ".join(missing))
        env = {self._inputs[n]: v for n, v in self._values.items()}
        result = self._interp.evaluate(self._main.body, self._interp.plan(self._main), env)
        body_type = self._main.body.checked_type
        self._outputs = list(result) if isinstance(body_type, TupleType) else [result]

    def get_num_outputs(self):
        body_type = self._main.body.checked_type
        return len(body_type.fields) if isinstance(body_type, TupleType) else 1

    def get_output(self, index):
        if self._outputs is None:
            raise ValueError_("get_output: run() has not been called")
        if not 0 <= index < len(self._outputs):
            raise IndexError_(f"get_output: index {index} out of range for {len(self._outputs)} outputs")
        return _to_ndarray(self._outputs[index])


def _input_value(value, ty, name):
    """An input value as its type says: arrays checked for dtype and static dims, lists for sequences, None or a
    value for optionals (NDArrays become numpy arrays)."""
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    if isinstance(ty, SequenceType):
        if not isinstance(value, (list, tuple)):
            raise TypeError_(f"set_input: input '{name}' is {ty}, got {type(value).__name__} (expected a list)")
        return [_input_value(v, ty.elem_type, name) for v in value]
    if isinstance(ty, OptionalType):
        return None if value is None else _input_value(value, ty.elem_type, name)
    if value is None or isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        raise TypeError_(f"set_input: input '{name}' is {ty}, got {type(value).__name__}")
    if isinstance(ty, TensorType):
        want = to_numpy_dtype(ty.dtype)
        value = np.asarray(value)
        if value.dtype != want:
            raise TypeError_(f"set_input: input '{name}' is {ty}, got dtype {value.dtype}")
        if value.ndim != len(ty.shape) or any(isinstance(d, int) and d != n for d, n in zip(ty.shape, value.shape)):
            raise ValueError_(f"set_input: input '{name}' is {ty}, got shape {value.shape}")
        return value
    dyn_dtype = _dyn_tensor_dtype(ty)
    if dyn_dtype is not None:
        value = np.asarray(value)
        if value.dtype != to_numpy_dtype(dyn_dtype):
            raise TypeError_(f"set_input: input '{name}' is a tensor of {dyn_dtype}, got dtype {value.dtype}")
    return value


def _to_ndarray(value):
    from ... import nd

    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.dtype.isnative:
        return nd.array(value)
    if isinstance(value, list):
        return [_to_ndarray(v) for v in value]
    return value  # a dtype NDArray cannot hold (string, ml_dtypes), a sequence or an optional


class DebugExecutorFactory:
    """What ``tvmlite.build(..., target="debug")`` returns: ``lib["default"](device)`` makes an executor."""

    def __init__(self, mod, params):
        self.mod = transform.InferType()(mod)
        self.params = dict(params or {})
        self._interp = _Interpreter(self.mod)
        main = self.mod["main"]
        names = {p.name_hint for p in main.params}
        unknown = [n for n in self.params if n not in names]
        if unknown:
            raise KeyError_("build: params name no input of main: " + ", ".join(unknown))

    def __getitem__(self, key):
        if key != "default":
            raise KeyError_(f"the library has no function '{key}' (it has: default)")
        return self._create

    def _create(self, device=None):
        return DebugExecutor(self._interp, self.params)
