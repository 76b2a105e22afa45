"""numpy references of the control-flow, sequence and optional ops (control.py).

Values: a sequence is a Python list of arrays, an empty optional is None, a Function input is a Python callable,
an omitted input (empty tuple) arrives as ().
"""
import numpy as np

from .op import register_reference


def _absent(x):
    return isinstance(x, tuple) and len(x) == 0


def _scalar(x, what):
    a = np.asarray(x)
    if a.size != 1:
        raise ValueError(f"{what} must hold one value, got shape {a.shape}")
    return a.reshape(())[()]


def _as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) and not isinstance(value, np.ndarray) else (value,)


@register_reference("raise_error")
def _raise_error(attrs):
    raise ValueError(str(attrs.message))


@register_reference("if")
def _if(attrs, cond, then_branch, else_branch):
    return then_branch() if bool(_scalar(cond, "the condition")) else else_branch()


@register_reference("if_call")
def _if_call(attrs, cond, args, then_branch, else_branch):
    return (then_branch if bool(_scalar(cond, "the condition")) else else_branch)(*args)


def _body_result_types(body):
    """The field types of a Function input's result (the executor's callables carry their FuncType)."""
    ty = getattr(body, "type", None)
    if ty is None:
        raise ValueError("the body's result types are needed (no iteration ran) but the callable has no type")
    return list(ty.ret_type.fields)


def _empty_stack(ty, what):
    """An empty stack (length 0 along a new axis 0) of values of tensor type ty."""
    from ..backend.dtypes import to_numpy_dtype

    dims = list(getattr(ty, "shape", None) or [])
    if not hasattr(ty, "shape") or not all(isinstance(d, int) for d in dims):
        raise ValueError(f"{what}: no iteration ran, and the stacked output's element type {ty} has symbolic dims")
    return np.zeros([0] + dims, dtype=to_numpy_dtype(ty.dtype))


@register_reference("loop")
def _loop(attrs, max_trip_count, cond, v_initial, body):
    limit = None if _absent(max_trip_count) else int(_scalar(max_trip_count, "max_trip_count"))
    use_cond = not _absent(cond)
    keep_going = bool(_scalar(cond, "cond")) if use_cond else True
    values = list(v_initial)
    scans = None
    i = 0
    while (limit is None or i < limit) and keep_going:
        out = _as_tuple(body(np.array(i, dtype=np.int64), np.array(keep_going), *values))
        n = len(values)
        values = list(out[1:1 + n])
        if scans is None:
            scans = [[] for _ in out[1 + n:]]
        for acc, s in zip(scans, out[1 + n:]):
            acc.append(np.asarray(s))
        if use_cond:
            keep_going = bool(_scalar(out[0], "the body's cond"))
        i += 1
    if scans is None:  # no iteration ran: each scan output is empty along its new axis 0
        ret = _body_result_types(body)
        return tuple(values) + tuple(_empty_stack(t, "loop") for t in ret[1 + len(values):])
    stacked = []
    for acc in scans:
        if len({a.shape for a in acc}) > 1:
            raise ValueError("loop scan outputs changed shape across iterations: "
                             + ", ".join(str(a.shape) for a in acc))
        stacked.append(np.stack(acc))
    return tuple(values) + tuple(stacked)


@register_reference("scan")
def _scan(attrs, initial_states, scan_inputs, body):
    if attrs.batched:
        batch = scan_inputs[0].shape[0]
        per = [_scan_one(attrs, [s[b] for s in initial_states], [x[b] for x in scan_inputs], body, 0)
               for b in range(batch)]
        return tuple(np.stack([p[k] for p in per]) for k in range(len(per[0]))) if per else tuple()
    return _scan_one(attrs, list(initial_states), list(scan_inputs), body, 0)


def _scan_one(attrs, states, xs, body, _):
    m = len(xs)
    in_axes = list(attrs.scan_input_axes) or [0] * m
    in_dirs = list(attrs.scan_input_directions) or [0] * m
    in_axes = [a + x.ndim if a < 0 else a for a, x in zip(in_axes, xs)]
    seq_len = xs[0].shape[in_axes[0]]
    for x, a in zip(xs, in_axes):
        if x.shape[a] != seq_len:
            raise ValueError(f"scan inputs differ in sequence length: {x.shape[a]} vs {seq_len}")
    outs = None
    n = len(states)
    for t in range(seq_len):
        elems = [np.take(x, seq_len - 1 - t if d else t, axis=a) for x, a, d in zip(xs, in_axes, in_dirs)]
        res = _as_tuple(body(*states, *elems))
        states = list(res[:n])
        if outs is None:
            outs = [[] for _ in res[n:]]
        for acc, y in zip(outs, res[n:]):
            acc.append(np.asarray(y))
    if outs is None:  # a zero-length scan: empty outputs of the body's element shapes
        ret = _body_result_types(body)[n:]
        out_axes = list(attrs.scan_output_axes) or [0] * len(ret)
        result = []
        for t, a in zip(ret, out_axes):
            empty = _empty_stack(t, "scan")
            result.append(np.moveaxis(empty, 0, a + empty.ndim if a < 0 else a))
        return tuple(states) + tuple(result)
    k = len(outs)
    out_axes = list(attrs.scan_output_axes) or [0] * k
    out_dirs = list(attrs.scan_output_directions) or [0] * k
    result = []
    for acc, a, d in zip(outs, out_axes, out_dirs):
        if d:
            acc = acc[::-1]
        rank = acc[0].ndim + 1
        result.append(np.stack(acc, axis=a + rank if a < 0 else a))
    return tuple(states) + tuple(result)


@register_reference("sequence_map")
def _sequence_map(attrs, inputs, body):
    seq_lens = {len(x) for x in inputs if isinstance(x, list)}
    if len(seq_lens) > 1:
        raise ValueError(f"sequence_map: input sequences differ in length: {sorted(seq_lens)}")
    count = seq_lens.pop()
    outs = None
    for i in range(count):
        res = _as_tuple(body(*[x[i] if isinstance(x, list) else x for x in inputs]))
        if outs is None:
            outs = [[] for _ in res]
        for acc, y in zip(outs, res):
            acc.append(y)
    if outs is None:  # empty sequences: one empty sequence per body output
        outs = [[] for _ in _body_result_types(body)]
    return tuple(outs)


def _position(pos, n, inclusive):
    p = int(_scalar(pos, "the position"))
    hi = n if inclusive else n - 1
    if not -n <= p <= hi:
        raise IndexError(f"position {p} out of range for a sequence of {n}")
    return p + n if p < 0 else p


@register_reference("sequence_construct")
def _sequence_construct(attrs, tensors):
    return list(tensors)


@register_reference("sequence_empty")
def _sequence_empty(attrs):
    return []


@register_reference("sequence_insert")
def _sequence_insert(attrs, seq, tensor, position):
    out = list(seq)
    p = len(out) if _absent(position) else _position(position, len(out), True)
    out.insert(p, tensor)
    return out


@register_reference("sequence_erase")
def _sequence_erase(attrs, seq, position):
    out = list(seq)
    if not out:
        raise IndexError("sequence_erase of an empty sequence")
    p = len(out) - 1 if _absent(position) else _position(position, len(out), False)
    del out[p]
    return out


@register_reference("sequence_at")
def _sequence_at(attrs, seq, position):
    return seq[_position(position, len(seq), False)]


@register_reference("sequence_length")
def _sequence_length(attrs, seq):
    return np.array(len(seq), dtype=np.int64)


@register_reference("split_to_sequence")
def _split_to_sequence(attrs, data, split):
    axis = attrs.axis + data.ndim if attrs.axis < 0 else attrs.axis
    n = data.shape[axis]
    if _absent(split):
        parts = np.split(data, n, axis=axis) if n else []
        return [p if attrs.keepdims else np.squeeze(p, axis=axis) for p in parts]
    split = np.asarray(split)
    if split.ndim == 0:
        size = int(split)
        if size <= 0:
            raise ValueError(f"split must be positive, got {size}")
        bounds = list(range(size, n, size))
    else:
        if split.sum() != n or (split < 0).any():
            raise ValueError(f"split {split.tolist()} does not add up to dim {axis} of size {n}")
        bounds = np.cumsum(split)[:-1].tolist()
    return np.split(data, bounds, axis=axis)


@register_reference("concat_from_sequence")
def _concat_from_sequence(attrs, seq):
    if not seq:
        raise ValueError("concat_from_sequence of an empty sequence")
    if attrs.new_axis:
        return np.stack(seq, axis=attrs.axis)
    return np.concatenate(seq, axis=attrs.axis)


@register_reference("optional")
def _optional(attrs, value):
    return value


@register_reference("optional_empty")
def _optional_empty(attrs):
    return None


@register_reference("optional_has_element")
def _optional_has_element(attrs, value):
    return np.array(value is not None)


@register_reference("optional_get_element")
def _optional_get_element(attrs, value):
    if value is None:
        raise ValueError("optional_get_element of an empty optional")
    return value
