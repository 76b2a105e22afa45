"""relay.gradient: reverse-mode differentiation over the IR, checked against hand-derived derivatives."""
import numpy as np
import pytest

import tvmlite
from tvmlite import relay


def test_products_sums_and_broadcasting(run_relay):
    a, b = relay.var("a", shape=()), relay.var("b", shape=(3,))
    d = relay.multiply(relay.add(a, b), a)  # d_i = (a + b_i) * a
    da, db = relay.gradient(d, [a, b])
    av, bv = np.float32(2), np.array([1, 2, 3], "float32")
    d_out, da_out, db_out = run_relay(relay.Function([a, b], relay.Tuple([d, da, db])), [av, bv])
    np.testing.assert_allclose(d_out, (av + bv) * av)
    np.testing.assert_allclose(da_out, np.sum(2 * av + bv))  # the gradient of sum(d)
    np.testing.assert_allclose(db_out, np.full(3, av))


def test_unary_chain_and_unused_inputs(run_relay):
    x, z = relay.var("x", shape=(2,)), relay.var("z", shape=(2,))
    y = relay.tanh(relay.exp(x))
    dx, dz = relay.gradient(y, [x, z])
    xv = np.array([0.1, -0.3], "float32")
    dx_out, dz_out = run_relay(relay.Function([x, z], relay.Tuple([dx, dz])), [xv, xv])
    np.testing.assert_allclose(dx_out, (1 - np.tanh(np.exp(xv)) ** 2) * np.exp(xv), rtol=1e-5)
    np.testing.assert_array_equal(dz_out, np.zeros(2, "float32"))


def test_ops_without_a_rule_are_named():
    x = relay.var("x", shape=(2,))
    with pytest.raises(tvmlite.error.OpNotImplemented, match="op floor has no gradient rule"):
        relay.gradient(relay.floor(x), [x])


def test_seeds_and_zero_gradients_stay_finite_at_infinity(run_relay):
    x, z = relay.var("x", shape=(2,)), relay.var("z", shape=(2,))
    dx, dz = relay.gradient(relay.negative(x), [x, z])
    inf = np.array([np.inf, 1], "float32")
    dx_out, dz_out = run_relay(relay.Function([x, z], relay.Tuple([dx, dz])), [inf, inf])
    assert dx_out.tolist() == [-1, -1] and dz_out.tolist() == [0, 0]  # not inf - inf or inf * 0
