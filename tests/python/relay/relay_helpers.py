"""Helpers the relay op and pass tests share: the type of an expression, a run on the debug target, and the
epilogue-op registration the fusion tests need.

    typed(relay.nn.relu(x), x)                            -> the body's checked type
    run(lambda a, b: relay.add(a, b), {"a": a, "b": b})   -> its numpy output
"""
import contextlib

from tvmlite import ir, relay

from debug_run import run_relay


def typed(expr, *params):
    """expr's checked type, inferred in a function of params."""
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(list(params), expr)))
    return mod["main"].body.checked_type


def shape_of(ty):
    """A tensor type's shape as a tuple: ints, and the names of symbolic dims."""
    return tuple(d if isinstance(d, int) else d.name_hint for d in ty.shape)


def _vars(inputs):
    return [relay.var(name, shape=a.shape, dtype=a.dtype.name) for name, a in inputs.items()]


def run(expr, inputs):
    """Build expr (a function of the vars named in inputs, {name: numpy array}) for the debug target and run it."""
    params = _vars(inputs)
    return run_relay(relay.Function(params, expr(*params)), inputs)[0]


def run_tuple(expr, inputs, n):
    """Like run, for an expr whose call gives an n-tuple: its n outputs."""
    params = _vars(inputs)
    call = expr(*params)
    return run_relay(relay.Function(params, relay.Tuple([relay.TupleGetItem(call, i) for i in range(n)])), inputs)


@contextlib.contextmanager
def epilogue_ops(names):
    """The lowering registers "FTVMLiteEpilogue"; until it is present, register it for the ops named at a low level
    (a lowering registration, at a higher level, wins) and remove, on exit, only what this added."""
    added = []
    for name in names:
        op = ir.Op.get(name)
        if op.get_attr_level("FTVMLiteEpilogue") is None:
            op.set_attr("FTVMLiteEpilogue", lambda *args: None, 1)
            added.append(op)
    try:
        yield
    finally:
        for op in added:
            op.reset_attr("FTVMLiteEpilogue")
