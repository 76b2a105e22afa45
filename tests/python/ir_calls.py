"""The calls of a relay expression and their op names, in the order relay.ExprVisitor meets them (producers first,
each shared call once, calls inside nested functions included).

    calls_of(mod["main"].body)   -> [Call, ...]
    op_names(mod)                -> ["nn.conv2d", "add", ...]   (a module means its main function)

Shared by the relay tests and conftest.py's op_names fixture.
"""
from tvmlite import ir, relay


def calls_of(expr):
    """Every Call below expr (expr included), producers first."""
    calls = []

    class Collect(relay.ExprVisitor):
        def visit_call(self, call):
            calls.append(call)

    Collect().visit(expr)
    return calls


def op_names(expr):
    """The op names of the calls of expr (an IRModule: of its main function) whose callee is an ir.Op."""
    if isinstance(expr, ir.IRModule):
        expr = expr["main"]
    return [c.op.name for c in calls_of(expr) if isinstance(c.op, ir.Op)]
