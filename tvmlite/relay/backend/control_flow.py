"""If as a construct of the cpu build: each branch optimised as its own graph, the executor runs the one taken.

The frontend gives an If whose condition is known only at run time (optimum's merged decoders branch on
``use_cache_branch``) as ``if(cond, fn() {A}, fn() {B})``: parameterless branches whose bodies read outer values
directly. The pass pipeline works on main's dataflow and leaves function bodies alone, and the lowering cannot give
each branch its own nodes that way, so the cpu build first rewrites every such call of main into

    if_call(cond, (v1, ..., vk), fn(a1, ..., ak) {A'}, fn(a1, ..., ak) {B'})

where v are the outer values the branches read (main's inputs, and main's expressions they use) and A', B' are the
branches with those replaced by parameters, each optimised by the whole pipeline as a module of its own (nested
Ifs lifted the same way, recursively). The lowering (csrc/backend/graph_codegen.cc) gives each branch's nodes a
guard on cond, and the executor skips the branch not taken; a select node picks the taken branch's outputs.

Loop and Scan bodies (``loop(M, cond, (v...), fn(i, cond, v...) {...})``, ``scan(...)``) are optimised the same way
by ``optimize_loop_bodies``: the outer values a body reads become extra parameters, the body is optimised as a
module of its own, and those parameters are replaced by the outer values again (the op's type relation wants the
body's own parameters only). The lowering makes each such call one "__loop" / "__scan" node whose body is a graph
of its own (graph_codegen.cc, LowerLoop); bodies over sequences or other non-tensor values are left as they are
(they stay on the numpy reference).
"""
from ...ir.module import IRModule
from ...ir.op import Op
from .. import op as _op
from ...ir.type import TensorType
from ..expr import Call, Constant, Function, Var, var
from ..expr_functor import ExprMutator, children

__all__ = ["lift_branches", "optimize_loop_bodies"]


def _is_if(expr):
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == "if"


def _outer_values(body):
    """main's expressions outside its functions (a branch may read them), and main's top-level if calls."""
    outer, ifs, stack = set(), [], [body]
    while stack:
        e = stack.pop()
        if e in outer or isinstance(e, Function):
            continue
        outer.add(e)
        if _is_if(e):
            ifs.append(e)
        stack.extend(c for c in children(e) if not isinstance(c, Function))
    return outer, ifs


def _branch_inputs(branches, outer, bound=()):
    """The outer values the branches read, in a fixed order: main's expressions (not constants) and main's free
    variables they use (a walk that stops at main's expressions: what is below them is main's business). bound: the
    variables that are not outer values (a loop body's own parameters)."""
    inputs, seen, bound = [], set(), set(bound)
    for fn in branches:
        stack = [fn.body]
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            if isinstance(e, Function):
                bound.update(e.params)  # a loop body's parameters inside a branch are not outer values
            if isinstance(e, Var) and e not in bound:
                inputs.append(e)
                continue
            if e in outer and not isinstance(e, (Constant, Var, Op)):
                inputs.append(e)
                continue
            stack.extend(reversed(children(e)))
    return inputs


class _Substitute(ExprMutator):
    def __init__(self, mapping):
        super().__init__()
        self.mapping = mapping

    def rewrite_var(self, v):
        return self.mapping.get(v)

    def rewrite_call(self, call, op, args):
        return self.mapping.get(call)

    def rewrite_tuple(self, tup, fields):
        return self.mapping.get(tup)

    def rewrite_tuple_getitem(self, item, tuple_value):
        return self.mapping.get(item)


class _ReplaceIfs(ExprMutator):
    def __init__(self, replacement):
        super().__init__()
        self.replacement = replacement

    def rewrite_call(self, call, op, args):
        return self.replacement.get(call)


def lift_branches(mod, optimize):
    """mod with each top-level run-time If of main made an if_call whose branches are ``optimize(branch_module)``
    (optimize: IRModule -> IRModule, typed; it is called on each branch, which lifts its own Ifs in turn). A module
    without such Ifs is returned as it is."""
    main = mod["main"]
    outer, ifs = _outer_values(main.body)
    if not ifs:
        return mod
    replacement = {}
    for call in ifs:
        cond, then_fn, else_fn = call.args
        inputs = _branch_inputs([then_fn, else_fn], outer)
        params = [var(f"a{i}", e.checked_type) for i, e in enumerate(inputs)]
        mapping = dict(zip(inputs, params))
        lifted = []
        for fn in (then_fn, else_fn):
            body = _Substitute(mapping).visit(fn.body)
            lifted.append(optimize(IRModule.from_expr(Function(params, body)))["main"])
        replacement[call] = _op.if_call(cond, inputs, lifted[0], lifted[1])
    body = _ReplaceIfs(replacement).visit(main.body)
    return IRModule.from_expr(Function(list(main.params), body))


_LOOP_OPS = ("loop", "scan")


def _loop_calls(body):
    """main's top-level loop and scan calls (outside its functions), in no particular order."""
    calls, seen, stack = [], set(), [body]
    while stack:
        e = stack.pop()
        if e in seen or isinstance(e, Function):
            continue
        seen.add(e)
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in _LOOP_OPS:
            calls.append(e)
        stack.extend(c for c in children(e) if not isinstance(c, Function))
    return calls


def _tensor_body(fn):
    """Whether a body takes and returns tensors only (what the executor's loop node feeds and stacks)."""
    ret = fn.checked_type.ret_type
    fields = list(ret.fields) if hasattr(ret, "fields") else [ret]
    return all(isinstance(t, TensorType) for t in [p.checked_type for p in fn.params] + fields)


class _ReplaceBody(ExprMutator):
    def __init__(self, bodies):
        super().__init__()
        self.bodies = bodies

    def rewrite_call(self, call, op, args):
        body = self.bodies.get(call)
        if body is None:
            return None
        return Call(call.op, list(call.args[:-1]) + [body], call.attrs)


def optimize_loop_bodies(mod, optimize):
    """mod with the body of each top-level loop / scan call of main replaced by ``optimize(body_module)``'s main
    (optimize: IRModule -> IRModule, typed), its outer values read as before. Bodies over non-tensor values are left
    alone. A module without such calls is returned as it is."""
    main = mod["main"]
    calls = [c for c in _loop_calls(main.body) if _tensor_body(c.args[-1])]
    if not calls:
        return mod
    outer, _ = _outer_values(main.body)
    bodies = {}
    for call in calls:
        fn = call.args[-1]
        inputs = _branch_inputs([fn], outer, fn.params)
        extra = [var(f"o{i}", e.checked_type) for i, e in enumerate(inputs)]
        lifted = Function(list(fn.params) + extra, _Substitute(dict(zip(inputs, extra))).visit(fn.body))
        opt = optimize(IRModule.from_expr(lifted))["main"]
        k = len(fn.params)
        back = dict(zip(opt.params[k:], inputs))
        bodies[call] = Function(list(opt.params[:k]), _Substitute(back).visit(opt.body))
    body = _ReplaceBody(bodies).visit(main.body)
    return IRModule.from_expr(Function(list(main.params), body))
