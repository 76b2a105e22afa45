"""The debug executor: tvmlite.build(target="debug") + GraphModule, and its errors."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay


def _gm(func, params=None):
    lib = tvmlite.build(ir.IRModule.from_expr(func), target="debug", params=params)
    return tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))


def test_runs_a_graph_with_params_and_tuple_outputs():
    x = relay.var("x", shape=(1, 3))
    w = relay.var("w", shape=(2, 1))
    y = relay.multiply(relay.nn.relu(relay.add(x, relay.const(np.ones(3, "float32")))), w)
    gm = _gm(relay.Function([x, w], relay.Tuple([y, relay.exp(y)])), params={"w": np.full((2, 1), 2, "float32")})
    xv = np.array([[-3, 0, 1]], "float32")
    gm.set_input("x", xv)
    gm.run()
    expect = np.maximum(xv + 1, 0) * 2 * np.ones((2, 1), "float32")
    assert gm.get_num_outputs() == 2
    np.testing.assert_allclose(gm.get_output(0).numpy(), expect)
    np.testing.assert_allclose(gm.get_output(1).numpy(), np.exp(expect), rtol=1e-6)
    np.testing.assert_array_equal(gm.get_input("x"), xv)
    assert gm.get_input_names() == ["x", "w"]


def test_the_shared_fixture_runs_functions(run_relay, rng):
    x = relay.var("x", shape=(3,))
    xv = rng.standard_normal(3).astype("float32")
    (out,) = run_relay(relay.Function([x], relay.abs(x)), [xv])
    np.testing.assert_array_equal(out, np.abs(xv))


def test_set_input_keywords_and_run_inputs():
    a, b = relay.var("a", shape=(2,), dtype="int64"), relay.var("b", shape=(2,), dtype="int64")
    gm = _gm(relay.Function([a, b], relay.subtract(a, b)))
    gm.set_input(a=np.array([5, 6]), b=np.array([1, 2]))
    gm.run()
    assert gm.get_output(0).numpy().tolist() == [4, 4]
    gm.run(a=np.array([0, 0]))
    assert gm.get_output(0).numpy().tolist() == [-1, -2]


def test_integer_division_and_mod_follow_c_semantics():
    a, b = relay.var("a", shape=(4,), dtype="int32"), relay.var("b", shape=(4,), dtype="int32")
    gm = _gm(relay.Function([a, b], relay.Tuple([relay.divide(a, b), relay.mod(a, b)])))
    gm.set_input(a=np.array([7, -7, 7, -7], "int32"), b=np.array([2, 2, -2, -2], "int32"))
    gm.run()
    assert gm.get_output(0).numpy().tolist() == [3, -3, -3, 3]
    assert gm.get_output(1).numpy().tolist() == [1, -1, 1, -1]


def test_calls_of_nested_functions():
    p = relay.var("p", shape=(2,))
    x = relay.var("x", shape=(2,))
    scale = relay.exp(x)  # an outer value the inner function closes over
    inner = relay.Function([p], relay.multiply(p, scale))
    gm = _gm(relay.Function([x], relay.Call(inner, [relay.add(x, x)])))
    gm.set_input("x", np.array([0.0, 1.0], "float32"))
    gm.run()
    np.testing.assert_allclose(gm.get_output(0).numpy(), [0.0, 2 * np.e], rtol=1e-6)


def test_bad_use_is_a_clear_error():
    x = relay.var("x", shape=(2,))
    gm = _gm(relay.Function([x], relay.exp(x)))
    with pytest.raises(ValueError, match="inputs not set: x"):
        gm.run()
    with pytest.raises(KeyError, match="no input 'y' \\(inputs: x\\)"):
        gm.set_input("y", np.zeros(2, "float32"))
    with pytest.raises(ValueError, match="got shape \\(3,\\)"):
        gm.set_input("x", np.zeros(3, "float32"))
    with pytest.raises(TypeError, match="got dtype float64"):
        gm.set_input("x", np.zeros(2))
    with pytest.raises(ValueError, match="run\\(\\) has not been called"):
        gm.get_output(0)
    gm.set_input("x", np.zeros(2, "float32"))
    gm.run()
    with pytest.raises(IndexError, match="index 1 out of range for 1 outputs"):
        gm.get_output(1)
    with pytest.raises(ValueError, match="unknown target 'gpu'"):
        tvmlite.build(ir.IRModule.from_expr(relay.Function([x], x)), target="gpu")
    with pytest.raises(TypeError, match="mod must be an IRModule"):
        tvmlite.build(x)
    with pytest.raises(KeyError, match="params name no input of main: nope"):
        tvmlite.build(relay.Function([x], x), params={"nope": np.zeros(1)})
    with pytest.raises(TypeError, match="is not an executor module"):
        tvmlite.runtime.GraphModule(object())


def test_a_reference_that_disagrees_with_its_relation_is_an_internal_error():
    from tvmlite.relay.op import get_reference, register_reference

    original = get_reference("atan")
    register_reference("atan", lambda attrs, a: a.astype("float64"), level=40)
    try:
        x = relay.var("x", shape=(2,))
        gm = _gm(relay.Function([x], relay.atan(x)))
        gm.set_input("x", np.zeros(2, "float32"))
        with pytest.raises(tvmlite.error.InternalError, match="atan: the reference returned float64"):
            gm.run()
    finally:
        ir.Op.get("atan").reset_attr("FReference")
        register_reference("atan", original, level=10)
