"""Control flow: If, Loop, Scan (subgraphs become relay Functions, see subgraph.py).

Loop-carried values may change shape across iterations, so a Loop body's parameter types are found by
widening: start from the initial values' types, type the body, join each parameter type with what the body
returns for it (JoinTypes: differing dims become ?, differing ranks a DynTensorType), and convert again until
nothing changes (a join only loses information, so this stops after a few rounds).
"""
import warnings

from .... import runtime as _runtime
from ....error import OpAttributeInvalid, get_error_class
from ....ir.type import TensorType, TupleType
from ... import expr as _expr
from ... import op as _op
from .common import OnnxOpConverter, choice_attr, normalize_axis, register_converter, unsupported

ValueError_ = get_error_class("ValueError")  # tvmlite.error.ValueError: a TVMLiteError and a ValueError

_MAX_WIDENING_ROUNDS = 8


@register_converter("If")
class If(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        n_then, n_else = len(attr["then_branch"].output), len(attr["else_branch"].output)
        if n_then != n_else:
            raise ValueError(f"the branches have {n_then} and {n_else} outputs")
        cond = ctx.try_constant(inputs[0])
        if cond is not None and cond.size == 1:
            # Known at import (exporters branch on static shapes: torch's interpolate and padding logic): only the
            # branch taken is converted, inline (a branch takes no inputs; its body refers to outer values).
            taken = ctx.convert_subgraph(attr["then_branch" if bool(cond.reshape(-1)[0]) else "else_branch"],
                                         as_tuple=n_then != 1)
            if n_then == 1:
                return taken.body
            return [_getitem(taken.body, i) for i in range(n_then)]
        then_fn, then_err = _try_branch(ctx, attr["then_branch"])
        else_fn, else_err = _try_branch(ctx, attr["else_branch"])
        if then_err is not None and else_err is not None:
            raise then_err
        if then_err is not None:
            then_fn = _raising_branch(ctx, "then_branch", then_err, else_fn)
        elif else_err is not None:
            else_fn = _raising_branch(ctx, "else_branch", else_err, then_fn)
        call = _op.if_(inputs[0], then_fn, else_fn)
        if n_then == 1:
            return call
        return [_getitem(call, i) for i in range(n_then)]


def _try_branch(ctx, graph):
    """(the branch as a Function, None), or (None, the error) when its types do not check at the shapes given: an
    op's type relation refused them (InferType's errors, csrc/relay/transforms/infer_type.cc). Any other error (an
    unsupported op, a malformed or unsafe model) fails the import as anywhere else."""
    try:
        return ctx.convert_subgraph(graph), None
    except (TypeError, ValueError) as err:
        if "InferType: " not in str(err):
            raise
        return None, err


def _raising_branch(ctx, which, err, other):
    """In place of a branch that cannot be typed at the shapes given (a merged decoder built with `shape=` for its
    cached step: the branch without the cache would concatenate mismatched lengths), one of the other branch's type
    that raises err when taken, as onnxruntime fails only then; said once at import as a warning."""
    from .importer import node_label

    message = f"{node_label(ctx.node)}: its {which} cannot run at the shapes the model was built for: {err}"
    ret = other.checked_type.ret_type
    fields = list(ret.fields) if isinstance(ret, TupleType) else [ret]
    if not all(isinstance(f, TensorType) for f in fields):
        raise err  # a branch of sequences or optionals: no stand-in value
    warnings.warn(message + " (it raises this error if taken)", stacklevel=2)
    values = [_op.raise_error(message, f) for f in fields]
    return ctx.infer_type(_expr.Function([], _expr.Tuple(values) if isinstance(ret, TupleType) else values[0]))


def _getitem(expr, i):
    return _expr.TupleGetItem(expr, i)


def _same(a, b):
    return len(a) == len(b) and all(_runtime.structural_equal(x, y) for x, y in zip(a, b))


@register_converter("Loop")
class Loop(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        body = attr["body"]
        inputs = list(inputs) + [None] * max(0, 2 - len(inputs))
        max_trip_count, cond, v_initial = inputs[0], inputs[1], inputs[2:]
        if any(v is None for v in v_initial):
            raise ValueError_("loop-carried initial values cannot be omitted")
        n = len(v_initial)
        if len(body.input) != n + 2:
            raise ValueError_(f"the body takes {len(body.input)} inputs, the node gives {n} loop-carried values "
                              f"(the body takes 2 + their count)")
        head = [TensorType((), "int64"), TensorType((), "bool")]
        carried = [v.checked_type for v in v_initial]
        for _ in range(_MAX_WIDENING_ROUNDS):
            fn = ctx.convert_subgraph(body, head + carried, as_tuple=True)
            ret = list(fn.checked_type.ret_type.fields)
            if len(ret) < n + 1:
                raise ValueError(f"the body returns {len(ret)} values, expected at least {n + 1}")
            widened = [_op.join_types(c, r) for c, r in zip(carried, ret[1:1 + n])]
            if _same(widened, carried):
                break
            carried = widened
        else:
            raise ValueError("the loop-carried types did not settle")
        call = _op.loop(max_trip_count, cond, v_initial, fn)
        count = len(body.output) - 1
        return [_getitem(call, i) for i in range(count)]


@register_converter("Scan")
class Scan(OnnxOpConverter):
    @classmethod
    def _impl_v8(cls, inputs, attr, ctx):
        body = attr["body"]
        if inputs and inputs[0] is not None:
            unsupported("Scan-8 with sequence_lens")
        rest = list(inputs[1:])
        m = _num_scan_inputs(attr, len(rest))
        n = len(rest) - m
        states, xs = rest[:n], rest[n:]
        directions = _per_scan_value(attr, "directions", m, (0, 1))
        _check_body_inputs(body, n, m)
        state_types = [_drop_dims(s.checked_type, [0]) for s in states]
        elem_types = [_drop_dims(x.checked_type, [0, 1]) for x in xs]
        fn = ctx.convert_subgraph(body, state_types + elem_types, as_tuple=True)
        call = _op.scan(states, xs, fn, scan_input_directions=directions, batched=True)
        return [_getitem(call, i) for i in range(len(body.output))]

    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        body = attr["body"]
        m = _num_scan_inputs(attr, len(inputs))
        n = len(inputs) - m
        states, xs = list(inputs[:n]), list(inputs[n:])
        _check_body_inputs(body, n, m)
        in_axes = _per_scan_value(attr, "scan_input_axes", m)
        elem_types = []
        for j, x in enumerate(xs):
            ty = _tensor_type(x.checked_type)
            axis = normalize_axis(in_axes[j], len(ty.shape), "scan_input_axes") if in_axes else 0
            elem_types.append(_drop_dims(ty, [axis]))
        k = len(body.output) - n  # scan outputs
        fn = ctx.convert_subgraph(body, [s.checked_type for s in states] + elem_types, as_tuple=True)
        call = _op.scan(states, xs, fn, scan_input_axes=in_axes,
                        scan_input_directions=_per_scan_value(attr, "scan_input_directions", m, (0, 1)),
                        scan_output_axes=_per_scan_value(attr, "scan_output_axes", k),
                        scan_output_directions=_per_scan_value(attr, "scan_output_directions", k, (0, 1)))
        return [_getitem(call, i) for i in range(len(body.output))]


def _num_scan_inputs(attr, count):
    """num_scan_inputs, which must leave no more than the node's inputs (count, sequence_lens aside)."""
    m = attr["num_scan_inputs"]
    if not 1 <= m <= count:
        raise OpAttributeInvalid(f"attribute 'num_scan_inputs' is {m}, must be 1 to the {count} inputs given")
    return m


def _check_body_inputs(body, n, m):
    if len(body.input) != n + m:
        raise ValueError_(f"the body takes {len(body.input)} inputs, the node gives {n} states and {m} scan inputs")


def _per_scan_value(attr, name, count, allowed=None):
    """An optional list attribute with one entry per scan input (or output): [] when absent."""
    values = list(attr.get(name, []))
    if values and len(values) != count:
        raise OpAttributeInvalid(f"attribute '{name}' has {len(values)} entries for {count} scan values")
    if allowed is not None:
        for v in values:
            choice_attr({name: v}, name, None, allowed)
    return values


def _tensor_type(ty):
    if not isinstance(ty, TensorType):
        raise TypeError(f"scan inputs and states must be tensors, got {ty}")
    return ty


def _drop_dims(ty, axes):
    ty = _tensor_type(ty)
    dims = [d for i, d in enumerate(ty.shape) if i not in axes]
    return TensorType(dims, ty.dtype)
