"""SimplifyInference: inference batch_norm becomes multiply/add along its axis (center and scale honoured),
inference dropout its input; values match the debug executor's before and after."""
import numpy as np
import pytest

from tvmlite import ir, relay


def _bn_model(rng, shape, axis, center=True, scale=True):
    c = shape[axis]
    x = relay.var("x", shape=shape)
    params = [relay.const(rng.standard_normal(c).astype("float32")),
              relay.const(rng.standard_normal(c).astype("float32")),
              relay.const(rng.standard_normal(c).astype("float32")),
              relay.const(rng.uniform(0.5, 2.0, c).astype("float32"))]
    y = relay.nn.batch_norm(x, *params, axis=axis, epsilon=1e-3, center=center, scale=scale)[0]
    return ir.IRModule.from_expr(relay.Function([x], relay.nn.relu(y)))


@pytest.mark.parametrize("shape,axis", [((2, 5, 3, 4), 1), ((3, 7), 1), ((2, 3, 6), -1), ((1, 4, 2, 3, 3), 1)])
@pytest.mark.parametrize("center,scale", [(True, True), (False, True), (True, False), (False, False)])
def test_batch_norm_becomes_multiply_add(op_names, run_relay, rng, shape, axis, center, scale):
    mod = _bn_model(rng, shape, axis, center, scale)
    out = relay.transform.SimplifyInference()(mod)
    ops = op_names(out)
    assert "nn.batch_norm" not in ops and "multiply" in ops and "add" in ops
    x = rng.standard_normal(shape).astype("float32")
    (want,) = run_relay(mod, {"x": x})
    (got,) = run_relay(out, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_statistics_outputs_are_the_moving_ones(op_names, run_relay, rng):
    x = relay.var("x", shape=(2, 3, 4))
    mean = rng.standard_normal(3).astype("float32")
    var = rng.uniform(1, 2, 3).astype("float32")
    bn = relay.nn.batch_norm(x, relay.const(np.ones(3, "float32")), relay.const(np.zeros(3, "float32")),
                             relay.const(mean), relay.const(var))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.Tuple([bn[0], bn[1], bn[2]])))
    out = relay.transform.SimplifyInference()(mod)
    assert "nn.batch_norm" not in op_names(out)
    xv = rng.standard_normal((2, 3, 4)).astype("float32")
    got = run_relay(out, {"x": xv})
    np.testing.assert_array_equal(got[1], mean)
    np.testing.assert_array_equal(got[2], var)
    np.testing.assert_allclose(got[0], run_relay(mod, {"x": xv})[0], rtol=1e-5, atol=1e-6)


def test_training_batch_norm_is_kept(op_names, rng):
    x = relay.var("x", shape=(2, 3))
    p = [relay.const(np.ones(3, "float32")) for _ in range(4)]
    mod = ir.IRModule.from_expr(relay.Function([x], relay.nn.batch_norm(x, *p, training=True)[0]))
    assert "nn.batch_norm" in op_names(relay.transform.SimplifyInference()(mod))


def test_inference_dropout_becomes_its_input(op_names, run_relay, rng):
    x = relay.var("x", shape=(3, 4))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.exp(relay.nn.dropout(x, 0.3))))
    out = relay.transform.SimplifyInference()(mod)
    assert op_names(out) == ["exp"]
    xv = rng.standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(run_relay(out, {"x": xv})[0], np.exp(xv), rtol=1e-6)


def test_training_dropout_is_kept(op_names):
    x = relay.var("x", shape=(3, 4))
    t = relay.var("t", shape=(), dtype="bool")
    mod = ir.IRModule.from_expr(relay.Function([x, t], relay.nn.dropout_raw(x, 0.5, t)[0]))
    assert "nn.dropout" in op_names(relay.transform.SimplifyInference()(mod))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.nn.dropout_raw(x, 0.5, True)[0]))
    assert "nn.dropout" in op_names(relay.transform.SimplifyInference()(mod))


def test_other_ops_are_untouched():
    x = relay.var("x", shape=(2, 2))
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.nn.softmax(x))))
    out = relay.transform.SimplifyInference()(mod)
    assert out["main"].same_as(mod["main"])


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float16", 2e-3)])
def test_other_float_dtypes(op_names, run_relay, rng, dtype, tol):
    x = relay.var("x", shape=(2, 3, 4), dtype=dtype)
    params = [relay.const((rng.random(3) + 0.5).astype(dtype)) for _ in range(4)]
    mod = ir.IRModule.from_expr(relay.Function([x], relay.nn.batch_norm(x, *params)[0]))
    out = relay.transform.FoldConstant()(relay.transform.SimplifyInference()(mod))
    assert "nn.batch_norm" not in op_names(out)
    xv = rng.random((2, 3, 4)).astype(dtype)
    got = run_relay(out, {"x": xv})[0]
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got.astype("float64"), run_relay(mod, {"x": xv})[0].astype("float64"), atol=tol)
