"""FoldConstant: chains of constant calls become one Constant, non-constant parts stay, tuples and projections of
constants fold, random ops and huge broadcasts stay lazy, and the pass is idempotent."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay

from ir_calls import op_names


def _ops(mod):
    return sorted(op_names(mod))


def _fold(func):
    return relay.transform.FoldConstant()(ir.IRModule.from_expr(func))


def test_constant_chain_folds_and_the_rest_stays(run_relay, rng):
    a = rng.standard_normal((3, 4)).astype("float32")
    b = rng.standard_normal((4,)).astype("float32")
    x = relay.var("x", shape=(3, 4))
    c = relay.exp(relay.add(relay.const(a), relay.multiply(relay.const(b), relay.const(np.float32(2)))))
    body = relay.nn.relu(relay.subtract(x, relay.reshape(c, (3, 4))))
    mod = ir.IRModule.from_expr(relay.Function([x], body))
    out = relay.transform.FoldConstant()(mod)
    assert _ops(out) == ["nn.relu", "subtract"]
    folded = out["main"].body.args[0].args[1]
    assert isinstance(folded, relay.Constant)
    np.testing.assert_allclose(folded.data.numpy(), np.exp(a + b * 2), rtol=1e-6)
    xv = rng.standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(run_relay(out, {"x": xv})[0], run_relay(mod, {"x": xv})[0], rtol=1e-6)
    assert out["main"].body.checked_type is not None  # typed


def test_idempotent():
    x = relay.var("x", shape=(2,))
    one = relay.const(np.ones(2, "float32"))
    mod = _fold(relay.Function([x], relay.add(x, relay.sqrt(relay.add(one, one)))))
    again = relay.transform.FoldConstant()(mod)
    assert tvmlite.structural_equal(mod, again)
    assert again["main"].same_as(mod["main"])


def test_tuples_and_projections_of_constants_fold():
    x = relay.var("x", shape=(2, 3))
    a = relay.const(np.arange(6, dtype="float32").reshape(2, 3))
    parts = relay.split(relay.concatenate([a, a], axis=0), 2, axis=0)  # a tuple-typed op of constants
    body = relay.add(x, relay.TupleGetItem(parts.astuple(), 1))
    out = _fold(relay.Function([x], body))
    assert _ops(out) == ["add"]
    np.testing.assert_array_equal(out["main"].body.args[1].data.numpy(), a.data.numpy())
    t = relay.TupleGetItem(relay.Tuple([relay.const(np.float32(1)), x]), 0)
    out = _fold(relay.Function([x], relay.add(x, t)))
    assert isinstance(out["main"].body.args[1], relay.Constant)


def test_non_constant_inputs_and_random_ops_stay():
    x = relay.var("x", shape=(2,))
    out = _fold(relay.Function([x], relay.exp(relay.add(x, relay.const(np.ones(2, "float32"))))))
    assert _ops(out) == ["add", "exp"]


def test_nondeterministic_attribute_stops_folding():
    op = ir.Op.get("negative")
    had = op.get_attr_level("TNonDeterministic")
    if had is None:
        op.set_attr("TNonDeterministic", True, 1)
    try:
        x = relay.var("x", shape=(2,))
        out = _fold(relay.Function([x], relay.add(x, relay.negative(relay.const(np.ones(2, "float32"))))))
        assert _ops(out) == ["add", "negative"]
    finally:
        if had is None:
            op.reset_attr("TNonDeterministic")


def test_huge_results_of_small_inputs_stay_lazy():
    x = relay.var("x", shape=(1,))
    big = relay.broadcast_to(relay.const(np.float32(1)), (4096, 4097))  # 16.8M elements from one
    out = _fold(relay.Function([x], relay.add(x, relay.sum(big))))
    assert "broadcast_to" in _ops(out)
    small = relay.broadcast_to(relay.const(np.float32(1)), (64, 64))
    out = _fold(relay.Function([x], relay.add(x, relay.sum(small))))
    assert _ops(out) == ["add"]


def test_folding_inside_nested_functions(run_relay):
    x = relay.var("x", shape=(2,))
    p = relay.var("p", shape=(2,))
    inner = relay.Function([p], relay.add(p, relay.nn.relu(relay.const(np.array([-1, 2], "float32")))))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.Call(inner, [x])))
    out = relay.transform.FoldConstant()(mod)
    new_inner = out["main"].body.op
    assert new_inner.body.op.name == "add" and isinstance(new_inner.body.args[1], relay.Constant)
    np.testing.assert_array_equal(run_relay(out, {"x": np.zeros(2, "float32")})[0], [0, 2])


def test_a_reference_that_fails_is_reported_with_the_op():
    x = relay.var("x", shape=())
    bad = relay.take(relay.const(np.arange(3, dtype="float32")), relay.const(np.int64(7)))
    with pytest.raises(IndexError, match="FoldConstant: evaluating take: .*index 7 is out of range"):
        _fold(relay.Function([x], relay.add(x, bad)))


def test_ops_without_a_reference_stay(monkeypatch):
    from tvmlite.relay.backend import const_eval

    x = relay.var("x", shape=())
    func = relay.Function([x], relay.add(x, relay.exp(relay.const(np.float32(0)))))
    assert _ops(_fold(func)) == ["add"]
    monkeypatch.setattr(const_eval, "get_reference", lambda name: None)
    assert _ops(_fold(func)) == ["add", "exp"]


@pytest.mark.parametrize("dtype", ["float32", "int8", "float64"])
@pytest.mark.parametrize("src,dst,shape", [("OIHW", "OIHW16i16o", (32, 48, 3, 3)), ("NCHW", "NCHW8c", (2, 24, 5, 7)),
                                           ("NCHW16c", "NCHW", (1, 2, 3, 5, 16)), ("OIHW", "OIHW3i8o", (16, 9, 1, 1))])
def test_layout_transform_folds_natively_to_the_reference_bit(dtype, src, dst, shape, monkeypatch, rng):
    """A layout_transform of a constant folds through its native kernel (const_eval's data-movement ops), and the
    folded value is the numpy reference's to the bit; without the native path the fold gives the same array."""
    from tvmlite.relay.backend import const_eval
    from tvmlite.relay.op._layout import transform_array  # layout_transform's numpy reference

    value = (rng.standard_normal(shape) * 50).astype(dtype)
    func = relay.Function([], relay.layout_transform(relay.const(value), src, dst))
    moved = []
    real = const_eval._move_natively
    monkeypatch.setattr(const_eval, "_move_natively", lambda call: moved.append(real(call)) or moved[-1])
    native = _fold(func)["main"].body
    assert len(moved) == 1 and moved[0] is not None  # the kernel ran
    assert isinstance(native, relay.Constant)
    want = transform_array(value, src, dst)
    assert native.data.numpy().dtype == want.dtype
    np.testing.assert_array_equal(native.data.numpy(), want)
    monkeypatch.setattr(const_eval, "_MOVE_KERNELS", {})
    assert np.array_equal(_fold(func)["main"].body.data.numpy(), want)


@pytest.mark.parametrize("make", [lambda c: relay.cast(relay.exp(c), "float32"),
                                  lambda c: relay.transpose(relay.exp(c)),
                                  lambda c: relay.broadcast_to(c, ())])
def test_scalars_fold_to_scalars(make):
    """A 0-d result stays 0-d through folding (CLIP's logit_scale.exp() then cast: numpy's ascontiguousarray made the
    folded exp 1-d, and the cast after it no longer matched its type)."""
    out = _fold(relay.Function([], make(relay.const(np.float32(2.5)))))["main"]
    assert isinstance(out.body, relay.Constant) and out.body.data.shape == ()
