"""BindParams / bind_params_by_name: named parameters become Constants; unknown names and arrays that do not fit
their parameter are ValueErrors."""
import numpy as np
import pytest

from tvmlite import ir, nd, relay
from tvmlite.relay.transform import bind_params_by_name


def _func():
    x = relay.var("x", shape=(2, 3))
    w = relay.var("w", shape=(3, 3))
    b = relay.var("b", shape=(3,))
    return relay.Function([x, w, b], relay.add(relay.nn.dense(x, w), b))


def test_bound_params_become_constants_and_leave_the_signature(run_relay, rng):
    w = rng.standard_normal((3, 3)).astype("float32")
    b = rng.standard_normal(3).astype("float32")
    bound = bind_params_by_name(_func(), {"w": w, "b": nd.array(b)})
    assert [p.name_hint for p in bound.params] == ["x"]
    consts = [a for a in bound.body.args if isinstance(a, relay.Constant)]
    np.testing.assert_array_equal(consts[0].data.numpy(), b)
    np.testing.assert_array_equal(bound.body.args[0].args[1].data.numpy(), w)
    x = rng.standard_normal((2, 3)).astype("float32")
    (out,) = run_relay(bound, {"x": x})
    np.testing.assert_allclose(out, x @ w.T + b, rtol=1e-5, atol=1e-6)


def test_binding_nothing_returns_the_function():
    f = _func()
    assert bind_params_by_name(f, {}).same_as(f)


def test_module_pass_binds_main(rng):
    mod = ir.IRModule.from_expr(_func())
    out = relay.transform.BindParams({"b": np.zeros(3, "float32")})(mod)
    assert [p.name_hint for p in out["main"].params] == ["x", "w"]


def test_unknown_names_are_listed():
    with pytest.raises(ValueError, match=r"no parameter of the function is named 'nope', 'zz' \(parameters: x, w, b\)"):
        bind_params_by_name(_func(), {"nope": np.zeros(1, "float32"), "w": np.zeros((3, 3), "float32"),
                                      "zz": np.zeros(1, "float32")})


def test_shape_and_dtype_mismatches():
    with pytest.raises(ValueError, match=r"parameter %w is Tensor\[\(3, 3\), float32\], the array bound to it is "
                                         r"\(3, 4\) float32"):
        bind_params_by_name(_func(), {"w": np.zeros((3, 4), "float32")})
    with pytest.raises(ValueError, match=r"parameter %b is .*, the array bound to it is \(3,\) int32"):
        bind_params_by_name(_func(), {"b": np.zeros(3, "int32")})


def test_duplicate_names_are_ambiguous():
    a, b = relay.var("a", shape=(1,)), relay.var("a", shape=(1,))
    with pytest.raises(ValueError, match="2 parameters are named 'a'"):
        bind_params_by_name(relay.Function([a, b], relay.add(a, b)), {"a": np.zeros(1, "float32")})


def test_bad_arguments():
    with pytest.raises(TypeError, match="func must be a relay Function"):
        bind_params_by_name(ir.IRModule.from_expr(_func()), {})
    with pytest.raises(TypeError, match="params must be a dict"):
        bind_params_by_name(_func(), [("w", 1)])
