"""FuseOps: which ops group together (anchor + epilogue ops along post-dominator paths, elementwise DAGs, one
output per group, at most 32 ops), what never joins, fuse_opt_level 0, and that fused modules compute the same
values in the debug executor (which runs calls of Primitive functions like any function call)."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay.expr_functor import children

import relay_helpers
from ir_calls import op_names

_EPILOGUE_OPS = ["add", "subtract", "multiply", "nn.relu", "sigmoid", "exp", "tanh"]


@pytest.fixture(autouse=True)
def epilogue_ops():
    with relay_helpers.epilogue_ops(_EPILOGUE_OPS):
        yield


def _conv(x, rng, out_c, in_c, k=3):
    w = relay.const(rng.standard_normal((out_c, in_c, k, k)).astype("float32"))
    return relay.nn.conv2d(x, w, padding=(k // 2, k // 2))


def _bias(rng, c):
    return relay.const(rng.standard_normal((c, 1, 1)).astype("float32"))


def _calls_in_order(expr):
    """Calls of main's body in evaluation order, each once (nested functions, Primitive groups among them, not
    entered: relay.ExprVisitor would enter them). The test graphs are shallow enough to recurse."""
    order, seen = [], set()

    def visit(node):
        if node in seen or isinstance(node, relay.Function):
            return
        seen.add(node)
        for kid in children(node):
            visit(kid)
        if isinstance(node, relay.Call):
            order.append(node)

    visit(expr)
    return order


def _structure(mod):
    """main as a list: a group is the list of its op names (topological), a bare op call its name."""
    out = []
    for call in _calls_in_order(mod["main"].body):
        if isinstance(call.op, relay.Function) and "Primitive" in call.op.attrs:
            assert int(call.op.attrs["Primitive"]) == 1
            out.append(op_names(call.op))
        elif isinstance(call.op, relay.Function):
            out.append("fn")
        else:
            out.append(call.op.name)
    return out


def _check_same_values(run_relay, mod, fused, rng, **inputs):
    values = {k: rng.standard_normal(v).astype("float32") for k, v in inputs.items()}
    want = run_relay(mod, values)
    got = run_relay(fused, values)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _fuse(body, *params, level=2):
    mod = ir.IRModule.from_expr(relay.Function(list(params), body))
    return mod, relay.transform.FuseOps(level)(mod)


def test_conv_bias_relu_is_one_group(run_relay, rng):
    x = relay.var("x", shape=(1, 3, 8, 8))
    mod, fused = _fuse(relay.nn.relu(relay.add(_conv(x, rng, 4, 3), _bias(rng, 4))), x)
    assert _structure(fused) == [["nn.conv2d", "add", "nn.relu"]]
    group = fused["main"].body.op
    assert [str(p.type_annotation) for p in group.params] == [
        "Tensor[(1, 3, 8, 8), float32]", "Tensor[(4, 3, 3, 3), float32]", "Tensor[(4, 1, 1), float32]"]
    assert isinstance(fused["main"].body.args[1], relay.Constant)  # constants are arguments, not members
    _check_same_values(run_relay, mod, fused, rng, x=(1, 3, 8, 8))


def test_residual_add_joins_one_conv(run_relay, rng):
    x = relay.var("x", shape=(1, 4, 6, 6))
    mod, fused = _fuse(relay.nn.relu(relay.add(_conv(x, rng, 4, 4), x)), x)
    assert _structure(fused) == [["nn.conv2d", "add", "nn.relu"]]
    _check_same_values(run_relay, mod, fused, rng, x=(1, 4, 6, 6))
    a = _conv(x, rng, 4, 4)
    b = _conv(x, rng, 4, 4, k=1)
    mod, fused = _fuse(relay.nn.relu(relay.add(a, b)), x)
    groups = sorted(_structure(fused))
    assert groups == [["nn.conv2d"], ["nn.conv2d", "add", "nn.relu"]]
    _check_same_values(run_relay, mod, fused, rng, x=(1, 4, 6, 6))


def test_silu_pattern(run_relay, rng):
    x = relay.var("x", shape=(2, 3, 5, 5))
    c = _conv(x, rng, 6, 3)
    mod, fused = _fuse(relay.multiply(c, relay.sigmoid(c)), x)
    assert _structure(fused) == [["nn.conv2d", "sigmoid", "multiply"]]
    _check_same_values(run_relay, mod, fused, rng, x=(2, 3, 5, 5))


def test_diamond_of_epilogue_ops(run_relay, rng):
    x = relay.var("x", shape=(1, 3, 6, 6))
    c = _conv(x, rng, 4, 3)
    mod, fused = _fuse(relay.add(relay.nn.relu(c), relay.tanh(relay.sigmoid(c))), x)
    (group,) = _structure(fused)
    assert group[0] == "nn.conv2d" and sorted(group[1:]) == ["add", "nn.relu", "sigmoid", "tanh"]
    _check_same_values(run_relay, mod, fused, rng, x=(1, 3, 6, 6))


def test_diamond_through_an_anchor_does_not_fuse_the_first_conv(run_relay, rng):
    x = relay.var("x", shape=(1, 4, 6, 6))
    c = _conv(x, rng, 4, 4)
    mod, fused = _fuse(relay.add(relay.nn.relu(c), _conv(c, rng, 4, 4)), x)
    structure = _structure(fused)
    assert structure[0] == ["nn.conv2d"]  # its paths to the add pass through the second conv
    assert sorted(map(tuple, structure[1:])) in ([("nn.conv2d",), ("nn.relu", "add")],
                                                 [("nn.conv2d", "add"), ("nn.relu",)])
    _check_same_values(run_relay, mod, fused, rng, x=(1, 4, 6, 6))


def test_elementwise_chain_without_anchor(run_relay, rng):
    x = relay.var("x", shape=(3, 7))
    y = relay.var("y", shape=(7,))
    body = relay.multiply(relay.sigmoid(relay.nn.relu(relay.add(x, y))), relay.exp(y))
    mod, fused = _fuse(body, x, y)
    structure = _structure(fused)
    # exp(y) does not depend on the add: it is a group of its own, the chain after the add is one DAG.
    assert sorted(map(tuple, structure)) == [("add", "nn.relu", "sigmoid", "multiply"), ("exp",)]
    _check_same_values(run_relay, mod, fused, rng, x=(3, 7), y=(7,))


def test_outputs_used_twice_outside_are_not_fused(run_relay, rng):
    x = relay.var("x", shape=(1, 4, 6, 6))
    c = _conv(x, rng, 4, 4)
    body = relay.add(_conv(c, rng, 4, 4), _conv(c, rng, 4, 4, k=1))
    mod, fused = _fuse(body, x)
    structure = _structure(fused)
    assert structure[0] == ["nn.conv2d"] and len(structure) == 3
    _check_same_values(run_relay, mod, fused, rng, x=(1, 4, 6, 6))
    # The conv is also an output of main: the relu after it cannot take it into its group.
    r = relay.nn.relu(c)
    mod, fused = _fuse(relay.Tuple([r, c]), x)
    assert _structure(fused) == [["nn.conv2d"], ["nn.relu"]]
    _check_same_values(run_relay, mod, fused, rng, x=(1, 4, 6, 6))


def test_opt_level_zero_leaves_the_module_unfused(rng):
    x = relay.var("x", shape=(1, 3, 8, 8))
    mod, fused = _fuse(relay.nn.relu(_conv(x, rng, 4, 3)), x, level=0)
    assert _structure(fused) == ["nn.conv2d", "nn.relu"]
    with tvmlite.transform.PassContext(opt_level=0):
        assert _structure(relay.transform.FuseOps()(mod)) == ["nn.conv2d", "nn.relu"]
    with tvmlite.transform.PassContext(opt_level=3):
        assert _structure(relay.transform.FuseOps()(mod)) == [["nn.conv2d", "nn.relu"]]


def test_what_never_joins_a_group(run_relay, rng):
    # an op without an epilogue (opaque nn.softmax: a bare call; injective reshape) never joins a conv
    x = relay.var("x", shape=(1, 3, 4, 4))
    c = _conv(x, rng, 4, 3)
    body = relay.nn.relu(relay.reshape(relay.nn.softmax(c, axis=1), (1, 64)))
    mod, fused = _fuse(body, x)
    assert _structure(fused) == [["nn.conv2d"], "nn.softmax", ["reshape", "nn.relu"]]
    _check_same_values(run_relay, mod, fused, rng, x=(1, 3, 4, 4))
    # a float64 elementwise op is no epilogue: it is an anchor of its own
    d = relay.var("d", shape=(2, 3), dtype="float64")
    body = relay.nn.relu(relay.add(relay.sigmoid(d), d))
    _, fused = _fuse(body, d)
    assert _structure(fused) == [["sigmoid"], ["add"], ["nn.relu"]]


def test_opaque_ops_stay_bare_calls(rng):
    opaque = [n for n in ("nn.layer_norm",) if ir.Op.get(n).get_attr("TOpPattern") == ir.OpPattern.OPAQUE]
    if not opaque:
        pytest.skip("nn.layer_norm is not opaque any more")
    x = relay.var("x", shape=(2, 8))
    body = relay.nn.relu(relay.nn.layer_norm(relay.exp(x), relay.const(np.ones(8, "float32"))))
    _, fused = _fuse(body, x)
    assert _structure(fused) == [["exp"], "nn.layer_norm", ["nn.relu"]]


def test_groups_hold_at_most_32_ops(run_relay, rng):
    x = relay.var("x", shape=(1, 2, 4, 4))
    y = _conv(x, rng, 2, 2)
    for i in range(40):
        y = relay.nn.relu(y) if i % 2 else relay.multiply(y, relay.const(np.float32(0.9)))
    mod, fused = _fuse(y, x)
    sizes = [len(g) for g in _structure(fused)]
    assert sizes == [32, 9]
    _check_same_values(run_relay, mod, fused, rng, x=(1, 2, 4, 4))
    with tvmlite.transform.PassContext(config={"relay.FuseOps.max_depth": 5}):
        assert [len(g) for g in _structure(relay.transform.FuseOps(2)(mod))] == [5] * 8 + [1]
    with tvmlite.transform.PassContext(config={"relay.FuseOps.max_depth": 0}):
        with pytest.raises(ValueError, match="FuseOps: relay.FuseOps.max_depth must be an int >= 1, got 0"):
            relay.transform.FuseOps(2)(mod)


def test_values_captured_by_nested_functions_are_group_outputs(run_relay, rng):
    x = relay.var("x", shape=(1, 3, 4, 4))
    r = relay.nn.relu(_conv(x, rng, 3, 3))
    p = relay.var("p", shape=(1, 3, 4, 4))
    inner = relay.Function([p], relay.multiply(p, relay.exp(r)))  # the body refers to r of the outer graph
    body = relay.add(relay.Call(inner, [x]), r)
    mod, fused = _fuse(body, x)
    structure = _structure(fused)
    assert sorted(map(str, structure)) == sorted(map(str, [["nn.conv2d", "nn.relu"], "fn", ["add"]]))
    # the nested function uses the group's result, not a copy of the conv
    new_inner = [c for c in _calls_in_order(fused["main"].body) if isinstance(c.op, relay.Function)
                 and "Primitive" not in c.op.attrs]
    (inner_call,) = new_inner
    used = inner_call.op.body.args[1].args[0]  # exp's input inside the nested function
    assert isinstance(used.op, relay.Function) and "Primitive" in used.op.attrs
    assert used.same_as(fused["main"].body.args[1])  # the very call main uses: computed once
    _check_same_values(run_relay, mod, fused, rng, x=(1, 3, 4, 4))


def test_the_fused_module_types_and_is_stable(rng):
    x = relay.var("x", shape=(1, 3, 8, 8))
    _, fused = _fuse(relay.nn.relu(_conv(x, rng, 4, 3)), x)
    assert str(fused["main"].body.checked_type) == "Tensor[(1, 4, 8, 8), float32]"
    assert str(relay.transform.FuseOps(0)(fused)) == str(fused)
    # fusing again finds only calls of functions, never grouped
    assert tvmlite.structural_equal(relay.transform.FuseOps(2)(fused), fused)


def _random_graph(rng, n_ops):
    """A random DAG over (1, 4, 5, 5) tensors: convs, epilogue ops, an op without epilogue (clip), injective
    round trips (reshape), an opaque op (softmax); operands drawn from all earlier values, outputs a tuple of
    the last value and a random earlier one."""
    x = relay.var("x", shape=(1, 4, 5, 5))
    values = [x]  # clip has no epilogue in this test unless the lowering registered one
    for _ in range(n_ops):
        a = values[rng.integers(len(values))]
        b = values[rng.integers(len(values))]
        kind = rng.integers(8)
        if kind == 0:
            v = _conv(a, rng, 4, 4, k=int(rng.choice([1, 3])))
        elif kind == 1:
            v = relay.add(a, b)
        elif kind == 2:
            v = relay.multiply(a, relay.sigmoid(b))
        elif kind == 3:
            v = relay.nn.relu(a)
        elif kind == 4:
            v = relay.clip(a, -1.0, 1.0)
        elif kind == 5:
            v = relay.reshape(relay.reshape(a, (1, 100)), (1, 4, 5, 5))
        elif kind == 6:
            v = relay.nn.softmax(a, axis=1)
        else:
            v = relay.subtract(a, _bias(rng, 4))
        values.append(v)
    out = relay.Tuple([values[-1], values[1 + rng.integers(len(values) - 1)]])
    return ir.IRModule.from_expr(relay.Function([x], out))


def _count_ops(func):
    return len(op_names(func))


@pytest.mark.parametrize("seed", range(25))
def test_random_graphs_keep_the_group_invariants(run_relay, seed):
    rng = np.random.default_rng(seed)
    mod = _random_graph(rng, int(rng.integers(4, 30)))
    fused = relay.transform.FuseOps(2)(mod)
    n_ops = 0
    for call in _calls_in_order(fused["main"].body):
        if not isinstance(call.op, relay.Function):
            n_ops += 1
            assert ir.Op.get(call.op.name).get_attr("TOpPattern") == ir.OpPattern.OPAQUE, call.op.name
            continue
        members = _calls_in_order(call.op.body)
        n_ops += len(members)
        assert 1 <= len(members) <= 32
        inside = set(members)
        for m in members[1:]:  # everything after the root is an epilogue op fed by the group
            assert m.op.get_attr_level("FTVMLiteEpilogue") is not None, [c.op.name for c in members]
            assert m.op.get_attr("TOpPattern") <= ir.OpPattern.BROADCAST
            assert any(a in inside for a in m.args)
        assert all(isinstance(a, relay.Var) for m in members for a in m.args if a not in inside)
    assert n_ops == _count_ops(mod["main"])  # nothing computed twice, nothing lost
    _check_same_values(run_relay, mod, fused, rng, x=(1, 4, 5, 5))
