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
"""
from ...ir.module import IRModule
from ...ir.op import Op
from .. import op as _op
from ..expr import Call, Constant, Function, Var, var
from ..expr_functor import ExprMutator, children

__all__ = ["lift_branches"]


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


def _branch_inputs(branches, outer):
    """The outer values the branches read, in a fixed order: main's expressions (not constants) and main's free
    variables they use (a walk that stops at main's expressions: what is below them is main's business)."""
    inputs, seen, bound = [], set(), set()
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
