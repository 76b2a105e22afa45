"""InferType: shapes and dtypes for every node, broadcasting, symbolic dims, and errors that say where."""
import numpy as np
import pytest

from tvmlite import ir, relay


def _infer(expr):
    return relay.transform.InferType()(ir.IRModule.from_expr(expr))["main"].body


def test_broadcasting_follows_numpy():
    a = relay.var("a", shape=(4, 1, 3))
    b = relay.var("b", shape=(2, 1))
    assert str(_infer(relay.add(a, b)).checked_type) == "Tensor[(4, 2, 3), float32]"
    assert str(_infer(relay.less(a, b)).checked_type) == "Tensor[(4, 2, 3), bool]"
    s = relay.var("s", shape=())
    assert str(_infer(relay.multiply(s, a)).checked_type) == "Tensor[(4, 1, 3), float32]"


def test_symbolic_dims_stay_symbolic():
    n = ir.SizeVar("n")
    a = relay.var("a", shape=(n, 3))
    b = relay.var("b", shape=(n, 1))
    assert str(_infer(relay.add(a, b)).checked_type) == "Tensor[(n, 3), float32]"
    c = relay.var("c", shape=(ir.Any(), 1))
    assert str(_infer(relay.add(c, relay.var("d", shape=(1, 5)))).checked_type) == "Tensor[(?, 5), float32]"


def test_tuples_and_projections():
    a = relay.var("a", shape=(2,), dtype="int32")
    t = relay.Tuple([a, relay.exp(relay.var("f", shape=(3,)))])
    assert str(_infer(relay.TupleGetItem(t, 1)).checked_type) == "Tensor[(3,), float32]"
    with pytest.raises(IndexError, match=r"TupleGetItem \.2 of a tuple of 2 fields"):
        _infer(relay.TupleGetItem(t, 2))
    with pytest.raises(TypeError, match="TupleGetItem .0 of a non-tuple value"):
        _infer(relay.TupleGetItem(a, 0))


def test_errors_name_the_op_the_call_and_the_shapes():
    a = relay.var("a", shape=(2, 3))
    b = relay.var("b", shape=(4,))
    with pytest.raises(ValueError) as info:
        _infer(relay.add(a, b))
    msg = str(info.value)
    assert "InferType: add: shapes (2, 3) and (4,) do not broadcast (dim 1: 3 vs 4)" in msg
    assert "in call add(lhs: Tensor[(2, 3), float32], rhs: Tensor[(4,), float32])" in msg
    with pytest.raises(TypeError, match="InferType: subtract: dtypes differ: float32 vs int64"):
        _infer(relay.subtract(a, relay.const(np.int64(1))))
    with pytest.raises(TypeError, match="variable %u has no type annotation"):
        _infer(relay.exp(relay.var("u")))


def test_calling_a_function_checks_its_arguments():
    p = relay.var("p", shape=(3,))
    inner = relay.Function([p], relay.exp(p))
    x = relay.var("x", shape=(3,))
    assert str(_infer(relay.Call(inner, [x])).checked_type) == "Tensor[(3,), float32]"
    with pytest.raises(TypeError, match=r"argument 0 has type Tensor\[\(4,\), float32\], the function expects"):
        _infer(relay.Call(inner, [relay.var("y", shape=(4,))]))
    with pytest.raises(TypeError, match="declared to return"):
        _infer(relay.Function([p], relay.exp(p), ir.TensorType((2,), "float32")))


def test_inferring_twice_keeps_the_nodes():
    x = relay.var("x", shape=(3,))
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.exp(x))))
    again = relay.transform.InferType()(mod)
    assert again["main"].same_as(mod["main"])
    with pytest.raises(TypeError, match="expected an IRModule"):
        relay.transform.InferType()(x)
