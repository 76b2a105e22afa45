"""The decoding ops (nn.causal_conv_with_state, nn.linear_attention, tensor_scatter): types, errors, values."""
import numpy as np
import pytest

from tvmlite import ir, relay


def _type(expr):
    return relay.transform.InferType()(ir.IRModule.from_expr(expr))["main"].body.checked_type


def test_causal_conv_types_and_errors():
    x = relay.var("x", shape=(ir.SizeVar("b"), 4, 7))
    w = relay.var("w", shape=(4, 1, 3))
    assert str(_type(relay.nn.causal_conv_with_state(x, w))) == \
        "(Tensor[(b, 4, 7), float32], Tensor[(b, 4, 2), float32])"
    with pytest.raises(ValueError, match="weight channels vs input channels: 5 vs 4"):
        _type(relay.nn.causal_conv_with_state(x, relay.var("w5", shape=(5, 1, 3))))
    with pytest.raises(ValueError, match="activation must be none, silu or swish, got 'relu'"):
        _type(relay.nn.causal_conv_with_state(x, w, activation="relu"))


def test_causal_conv_values(run_relay, rng):
    xv = rng.standard_normal((2, 3, 5)).astype("float32")
    wv = rng.standard_normal((3, 1, 2)).astype("float32")
    pv = rng.standard_normal((2, 3, 1)).astype("float32")
    x, w, p = relay.var("x", shape=xv.shape), relay.var("w", shape=wv.shape), relay.var("p", shape=pv.shape)
    out = relay.nn.causal_conv_with_state(x, w, past_state=p)
    y, present = run_relay(relay.Function([x, w, p], out), [xv, wv, pv])
    seq = np.concatenate([pv, xv], axis=2)  # (2, 3, 6): y[t] = w0 * seq[t] + w1 * seq[t + 1]
    expect = wv[None, :, 0, 0, None] * seq[:, :, :-1] + wv[None, :, 0, 1, None] * seq[:, :, 1:]
    np.testing.assert_allclose(y, expect, rtol=1e-5)
    np.testing.assert_array_equal(present, xv[:, :, -1:])


def test_linear_attention_linear_rule_is_causal_kv_accumulation(run_relay, rng):
    b, t, d = 1, 4, 2
    qv, kv, vv = (rng.standard_normal((b, t, d)).astype("float32") for _ in range(3))
    q, k, v = (relay.var(n, shape=(b, t, d)) for n in "qkv")
    out = relay.nn.linear_attention(q, k, v, update_rule="linear", scale=1.0)
    assert str(_type(out)) == "(Tensor[(1, 4, 2), float32], Tensor[(1, 1, 2, 2), float32])"
    y, state = run_relay(relay.Function([q, k, v], out), [qv, kv, vv])
    # o_t = q_t^T sum_{s<=t} k_s v_s^T: causal linear attention without normalisation.
    expect = np.stack([qv[0, i] @ sum(np.outer(kv[0, s], vv[0, s]) for s in range(i + 1)) for i in range(t)])
    np.testing.assert_allclose(y[0], expect, rtol=1e-5)
    np.testing.assert_allclose(state[0, 0], sum(np.outer(kv[0, s], vv[0, s]) for s in range(t)), rtol=1e-5)


def test_linear_attention_checks_heads_and_rule_inputs():
    q = relay.var("q", shape=(1, 2, 6))
    with pytest.raises(ValueError, match="q_num_heads \\(3\\) must be a positive multiple of kv_num_heads \\(2\\)"):
        _type(relay.nn.linear_attention(q, q, q, q_num_heads=3, kv_num_heads=2, update_rule="linear"))
    with pytest.raises(ValueError, match="'gated_delta' needs the decay input"):
        _type(relay.nn.linear_attention(q, q, q))
    with pytest.raises(ValueError, match="'linear' takes no beta input"):
        _type(relay.nn.linear_attention(q, q, q, beta=relay.var("b", shape=(1, 2, 1)), update_rule="linear"))


def test_tensor_scatter_linear_and_circular(run_relay):
    past = np.zeros((2, 4, 1), "float32")
    upd = np.array([[[1], [2]], [[3], [4]]], "float32")
    p, u, w = relay.var("p", shape=(2, 4, 1)), relay.var("u", shape=(2, 2, 1)), relay.var("w", shape=(2,),
                                                                                           dtype="int64")
    (lin,) = run_relay(relay.Function([p, u, w], relay.tensor_scatter(p, u, w, axis=1)),
                       [past, upd, np.array([1, 2])])
    assert lin[:, :, 0].tolist() == [[0, 1, 2, 0], [0, 0, 3, 4]]
    (circ,) = run_relay(relay.Function([p, u, w], relay.tensor_scatter(p, u, w, mode="circular", axis=1)),
                        [past, upd, np.array([3, 0])])
    assert circ[:, :, 0].tolist() == [[2, 0, 0, 1], [3, 4, 0, 0]]
    with pytest.raises(ValueError, match="axis cannot be the batch axis 0"):
        _type(relay.tensor_scatter(p, u, axis=0))
