"""DeadCodeElimination: TupleGetItem of a Tuple forwards the field; functions main cannot reach go."""
import numpy as np

from tvmlite import ir, relay


def test_tuple_projections_are_forwarded(run_relay, rng):
    x = relay.var("x", shape=(2, 3))
    y = relay.exp(x)
    t = relay.Tuple([y, relay.nn.relu(x)])
    nested = relay.TupleGetItem(relay.Tuple([relay.TupleGetItem(t, 0), x]), 0)
    mod = ir.IRModule.from_expr(relay.Function([x], relay.add(nested, relay.TupleGetItem(t, 1))))
    out = relay.transform.DeadCodeElimination()(mod)
    body = out["main"].body
    assert body.args[0].op.name == "exp" and body.args[1].op.name == "nn.relu"
    xv = rng.standard_normal((2, 3)).astype("float32")
    np.testing.assert_allclose(run_relay(out, {"x": xv})[0], np.exp(xv) + np.maximum(xv, 0), rtol=1e-6)


def test_unreached_functions_go_and_params_stay():
    x = relay.var("x", shape=(2,))
    unused = relay.var("unused", shape=(3,))
    helper_x = relay.var("h", shape=(2,))
    helper = relay.Function([helper_x], relay.exp(helper_x))
    dead_x = relay.var("d", shape=(2,))
    dead = relay.Function([dead_x], dead_x)
    main = relay.Function([x, unused], relay.Call(helper, [x]))
    mod = ir.IRModule({"main": main, "helper": helper, "dead": dead})
    out = relay.transform.DeadCodeElimination()(mod)
    assert out.get_global_vars() == ["main", "helper"]
    assert [p.name_hint for p in out["main"].params] == ["x", "unused"]
