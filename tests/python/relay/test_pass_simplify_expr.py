"""SimplifyExpr: GELU written with Erf (x * 0.5 * (1 + erf(x / sqrt 2)), as BERT exports spell it, in any nesting
and operand order) becomes nn.gelu(x), with the debug executor's values; near misses stay as they are; cast_like
becomes cast."""
import numpy as np
import pytest

from tvmlite import ir, relay

SQRT2 = np.sqrt(2.0)


def c(value, shape=(), dtype="float32"):
    return relay.const(np.full(shape, value, dtype))


def scaled(x, form):
    return relay.divide(x, c(SQRT2)) if form == "div" else relay.multiply(c(1 / SQRT2), x)


# Each builds the product from x and s = 1 + erf(x / sqrt 2).
PRODUCTS = {
    "bert": lambda x, s: relay.multiply(relay.multiply(x, s), c(0.5)),
    "half_first": lambda x, s: relay.multiply(c(0.5), relay.multiply(s, x)),
    "half_x": lambda x, s: relay.multiply(relay.multiply(x, c(0.5)), s),
    "s_half": lambda x, s: relay.multiply(x, relay.multiply(s, c(0.5))),
}


def gelu_module(shape, product="bert", form="div", one_first=False):
    x = relay.var("x", shape=shape)
    erf = relay.erf(scaled(x, form))
    s = relay.add(c(1.0), erf) if one_first else relay.add(erf, c(1.0))
    return ir.IRModule.from_expr(relay.Function([x], PRODUCTS[product](x, s)))


def check_rewritten(op_names, run_relay, rng, mod, shape):
    out = relay.transform.SimplifyExpr()(mod)
    assert op_names(out) == ["nn.gelu"]
    assert out["main"].body.attrs.approximate == "none"
    x = (rng.standard_normal(shape) * 3).astype("float32")
    np.testing.assert_allclose(run_relay(out, {"x": x})[0], run_relay(mod, {"x": x})[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("product", sorted(PRODUCTS))
@pytest.mark.parametrize("form", ["div", "mul"])
@pytest.mark.parametrize("one_first", [False, True])
def test_erf_gelu_becomes_nn_gelu(op_names, run_relay, rng, product, form, one_first):
    check_rewritten(op_names, run_relay, rng, gelu_module((4, 37), product, form, one_first), (4, 37))


def test_one_element_constants_of_rank_one(op_names, run_relay, rng):
    """ONNX initializers are often (1,): they broadcast to x's shape, so the product is still x's shape."""
    x = relay.var("x", shape=(2, 8))
    s = relay.add(relay.erf(relay.divide(x, c(SQRT2, (1,)))), c(1.0, (1,)))
    body = relay.multiply(relay.multiply(x, s), c(0.5, (1,)))
    check_rewritten(op_names, run_relay, rng, ir.IRModule.from_expr(relay.Function([x], body)), (2, 8))


def _unchanged(op_names, mod):
    out = relay.transform.SimplifyExpr()(mod)
    assert "nn.gelu" not in op_names(out) and "erf" in op_names(out)


def test_near_misses_stay(op_names):
    x = relay.var("x", shape=(3, 5))
    y = relay.var("y", shape=(3, 5))
    one_plus_erf = relay.add(relay.erf(relay.divide(x, c(SQRT2))), c(1.0))
    cases = [
        ([x], relay.multiply(relay.multiply(x, one_plus_erf), c(0.4))),                           # not 0.5
        ([x, y], relay.multiply(relay.multiply(y, one_plus_erf), c(0.5))),                         # another x
        ([x], relay.multiply(relay.multiply(x, relay.add(relay.erf(relay.divide(x, c(2.0))), c(1.0))), c(0.5))),
        ([x], relay.multiply(relay.multiply(x, relay.add(relay.erf(relay.divide(x, c(SQRT2))), c(2.0))), c(0.5))),
        ([x], relay.multiply(relay.multiply(x, relay.subtract(c(1.0), relay.erf(relay.divide(x, c(SQRT2))))),
                             c(0.5))),
        ([x], relay.multiply(x, one_plus_erf)),                                                     # no 0.5
    ]
    for params, body in cases:
        _unchanged(op_names, ir.IRModule.from_expr(relay.Function(params, body)))


def test_a_broadcasting_constant_that_widens_the_shape_stays(op_names):
    """0.5 of shape (1, 1, 1) makes the product rank 3 where x is rank 2: nn.gelu(x) would change the type."""
    x = relay.var("x", shape=(3, 5))
    s = relay.add(relay.erf(relay.divide(x, c(SQRT2))), c(1.0))
    body = relay.multiply(relay.multiply(x, s), c(0.5, (1, 1, 1)))
    _unchanged(op_names, ir.IRModule.from_expr(relay.Function([x], body)))


def test_float64_stays(op_names):
    x = relay.var("x", shape=(3, 5), dtype="float64")
    s = relay.add(relay.erf(relay.divide(x, c(SQRT2, dtype="float64"))), c(1.0, dtype="float64"))
    body = relay.multiply(relay.multiply(x, s), c(0.5, dtype="float64"))
    _unchanged(op_names, ir.IRModule.from_expr(relay.Function([x], body)))


def test_shared_intermediate_keeps_its_other_use(op_names, run_relay, rng):
    """The erf also feeds a second output: the GELU becomes nn.gelu, the erf stays for the other user."""
    x = relay.var("x", shape=(2, 6))
    erf = relay.erf(relay.divide(x, c(SQRT2)))
    gelu = relay.multiply(relay.multiply(x, relay.add(erf, c(1.0))), c(0.5))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.Tuple([gelu, relay.multiply(erf, c(3.0))])))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["divide", "erf", "multiply", "nn.gelu"]
    xv = rng.standard_normal((2, 6)).astype("float32")
    for got, want in zip(run_relay(out, {"x": xv}), run_relay(mod, {"x": xv})):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_cast_like_becomes_cast_to_the_like_dtype(run_relay, op_names):
    """cast_like has no kernel; the typed graph knows like's dtype, so it is cast (with saturate kept)."""
    x, like = relay.var("x", shape=(2, 3)), relay.var("like", shape=(4,), dtype="int32")
    mod = ir.IRModule.from_expr(relay.Function([x, like], relay.cast_like(relay.tanh(x), like, saturate=False)))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["cast", "tanh"]
    assert out["main"].body.attrs.dtype == "int32" and not out["main"].body.attrs.saturate
    xv = np.linspace(-3, 3, 6, dtype="float32").reshape(2, 3) * 4
    feeds = {"x": xv, "like": np.zeros(4, "int32")}
    np.testing.assert_array_equal(run_relay(out, feeds)[0], run_relay(mod, feeds)[0])
