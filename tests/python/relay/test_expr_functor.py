"""ExprVisitor / ExprMutator from Python: each node once, children first, deep graphs without recursion."""

from tvmlite import ir, relay


def test_visitor_sees_each_shared_node_once_in_post_order():
    x = relay.var("x", shape=(2,))
    a = relay.exp(x)
    b = relay.add(a, a)
    order = []

    class Record(relay.ExprVisitor):
        def visit_call(self, call):
            order.append(call.op.name)

        def visit_var(self, var):
            order.append(var.name_hint)

    Record().visit(relay.Tuple([b, a]))
    assert order == ["x", "exp", "add"]


def test_mutator_rewrites_and_keeps_unchanged_nodes():
    x = relay.var("x", shape=(2,))
    keep = relay.exp(x)
    y = relay.add(relay.nn.relu(keep), keep)

    class ReluToAbs(relay.ExprMutator):
        def rewrite_call(self, call, op, args):
            if op.same_as(ir.Op.get("nn.relu")):
                return relay.abs(args[0])
            return None

    out = ReluToAbs().visit(y)
    assert out.op.name == "add" and out.args[0].op.name == "abs"
    assert out.args[1].same_as(keep)  # untouched subgraph: the same object
    assert ReluToAbs().visit(keep).same_as(keep)


def test_deep_chain():
    x = relay.var("x", shape=(1,))
    y = x
    for _ in range(30000):
        y = relay.negative(y)

    class Count(relay.ExprVisitor):
        n = 0

        def visit_call(self, call):
            Count.n += 1

    Count().visit(y)
    assert Count.n == 30000
    out = relay.ExprMutator().visit(y)
    assert out.same_as(y)
