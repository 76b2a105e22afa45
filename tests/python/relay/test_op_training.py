"""Optimizer steps (training.adagrad / adam / momentum): types, errors and one step against the formulas."""
import numpy as np
import pytest

from tvmlite import ir, relay


def _scalars():
    return relay.var("r", shape=(), dtype="float32"), relay.var("t", shape=(), dtype="int64")


def test_types_follow_the_tensors_and_errors_name_the_input():
    r, t = _scalars()
    x, g, v = (relay.var(n, shape=(2, 3)) for n in "xgv")
    call = relay.training.momentum(r, t, [x], [g], [v])
    typed = relay.transform.InferType()(ir.IRModule.from_expr(call))["main"].body
    assert str(typed.checked_type) == "(Tensor[(2, 3), float32], Tensor[(2, 3), float32])"
    bad = relay.training.momentum(r, t, [x], [relay.var("g2", shape=(3, 2))], [v])
    with pytest.raises(TypeError, match=r"input 3 has type Tensor\[\(3, 2\), float32\], X1 is"):
        relay.transform.InferType()(ir.IRModule.from_expr(bad))
    with pytest.raises(TypeError, match="T must be an int64 scalar"):
        relay.transform.InferType()(ir.IRModule.from_expr(relay.training.momentum(r, r, [x], [g], [v])))


def test_one_adam_step(run_relay):
    r, t = _scalars()
    x, g, v, h = (relay.var(n, shape=(2,)) for n in "xgvh")
    out = relay.training.adam(r, t, [x], [g], [v], [h], alpha=0.5, beta=0.75, epsilon=0.0)
    xv, gv = np.array([1.0, 2.0], "float32"), np.array([0.5, -1.0], "float32")
    zeros = np.zeros(2, "float32")
    x1, v1, h1 = run_relay(relay.Function([r, t, x, g, v, h], out),
                           [np.float32(0.1), np.int64(1), xv, gv, zeros, zeros])
    v_new, h_new = 0.5 * gv, 0.25 * gv * gv
    rate = 0.1 * np.sqrt(1 - 0.75) / (1 - 0.5)
    np.testing.assert_allclose(v1, v_new)
    np.testing.assert_allclose(h1, h_new)
    np.testing.assert_allclose(x1, xv - rate * v_new / np.sqrt(h_new), rtol=1e-6)
