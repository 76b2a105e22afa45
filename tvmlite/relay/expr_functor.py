"""ExprVisitor and ExprMutator for Python: walk or rewrite a graph, children first, without recursion.

    class CountCalls(ExprVisitor):
        def __init__(self):
            super().__init__()
            self.count = 0

        def visit_call(self, call):
            self.count += 1

    class ReluToCopy(ExprMutator):
        def rewrite_call(self, call, op, args):
            if op.same_as(Op.get("nn.relu")):
                return relay.copy(args[0])
            return None  # keep the default (rebuild when a child changed)

Both use an explicit stack (graphs many thousands of nodes deep are fine) and visit each shared node once.
Children: a Call's op and args, a Tuple's fields, a TupleGetItem's tuple, a Function's body (params are leaves).
They mirror the C++ ExprVisitor/ExprMutator (csrc/include/tvmlite/ir/expr_functor.h).
"""
from ..ir.op import Op
from .expr import Call, Constant, Function, Tuple, TupleGetItem, Var

__all__ = ["ExprVisitor", "ExprMutator", "children"]


def children(expr):
    """The children of a node, in walk order."""
    if isinstance(expr, Call):
        return [expr.op, *expr.args]
    if isinstance(expr, Tuple):
        return list(expr.fields)
    if isinstance(expr, TupleGetItem):
        return [expr.tuple_value]
    if isinstance(expr, Function):
        return [expr.body]
    return []


def _post_order(root, seen, on_node):
    """on_node(node, kids) once per node not in seen, after all of its children."""
    if root in seen:
        return
    seen.add(root)
    stack = [(root, children(root), 0)]
    while stack:
        node, kids, i = stack[-1]
        if i < len(kids):
            stack[-1] = (node, kids, i + 1)
            child = kids[i]
            if child not in seen:
                seen.add(child)
                stack.append((child, children(child), 0))
            continue
        stack.pop()
        on_node(node, kids)


class ExprVisitor:
    """Override visit_var / visit_constant / visit_call / visit_tuple / visit_tuple_getitem / visit_function /
    visit_op; each runs once per node, after the node's children."""

    def __init__(self):
        self._seen = set()

    def visit(self, expr):
        _post_order(expr, self._seen, lambda node, _: self._dispatch(node))

    def _dispatch(self, node):
        if isinstance(node, Call):
            self.visit_call(node)
        elif isinstance(node, Var):
            self.visit_var(node)
        elif isinstance(node, Constant):
            self.visit_constant(node)
        elif isinstance(node, Tuple):
            self.visit_tuple(node)
        elif isinstance(node, TupleGetItem):
            self.visit_tuple_getitem(node)
        elif isinstance(node, Function):
            self.visit_function(node)
        elif isinstance(node, Op):
            self.visit_op(node)

    def visit_var(self, var):
        pass

    def visit_constant(self, const):
        pass

    def visit_call(self, call):
        pass

    def visit_tuple(self, tup):
        pass

    def visit_tuple_getitem(self, item):
        pass

    def visit_function(self, func):
        pass

    def visit_op(self, op):
        pass


class ExprMutator:
    """Rewrite a graph: override rewrite_call(call, op, args) / rewrite_var / rewrite_constant / rewrite_tuple(tup,
    fields) / rewrite_tuple_getitem(item, tuple_value) / rewrite_function(func, body); each gets the node and its
    rewritten children and returns a replacement, or None to keep the default (the node itself when no child
    changed, else a copy with the new children). Memoized: a shared node is rewritten once."""

    def __init__(self):
        self._seen = set()
        self.memo = {}

    def visit(self, expr):
        _post_order(expr, self._seen, self._rewrite)
        return self.memo[expr]

    def _rewrite(self, node, kids):
        new_kids = [self.memo[k] for k in kids]
        out = None
        if isinstance(node, Call):
            out = self.rewrite_call(node, new_kids[0], new_kids[1:])
        elif isinstance(node, Var):
            out = self.rewrite_var(node)
        elif isinstance(node, Constant):
            out = self.rewrite_constant(node)
        elif isinstance(node, Tuple):
            out = self.rewrite_tuple(node, new_kids)
        elif isinstance(node, TupleGetItem):
            out = self.rewrite_tuple_getitem(node, new_kids[0])
        elif isinstance(node, Function):
            out = self.rewrite_function(node, new_kids[0])
        if out is None:
            out = node if all(a.same_as(b) for a, b in zip(kids, new_kids)) else _rebuild(node, new_kids)
        self.memo[node] = out

    def rewrite_call(self, call, op, args):
        return None

    def rewrite_var(self, var):
        return None

    def rewrite_constant(self, const):
        return None

    def rewrite_tuple(self, tup, fields):
        return None

    def rewrite_tuple_getitem(self, item, tuple_value):
        return None

    def rewrite_function(self, func, body):
        return None


def _rebuild(node, kids):
    if isinstance(node, Call):
        return Call(kids[0], kids[1:], node.attrs)
    if isinstance(node, Tuple):
        return Tuple(kids)
    if isinstance(node, TupleGetItem):
        return TupleGetItem(kids[0], node.index)
    if isinstance(node, Function):
        return Function(node.params, kids[0], node.ret_type)
    return node
