"""Normalization, softmax, activation, dropout, attention, rotary and loss ops: builders, type relations
(static and symbolic dims, errors naming the shapes) and debug-executor results against numpy written here."""
import math

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.ir import IRModule


def _free_vars(expr):
    seen, out, stack = set(), [], [expr]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, relay.Var):
            out.append(node)
        elif isinstance(node, relay.Call):
            stack.extend(reversed(list(node.args)))
        elif isinstance(node, relay.Tuple):
            stack.extend(reversed(list(node.fields)))
        elif isinstance(node, relay.TupleGetItem):
            stack.append(node.tuple_value)
    return out


def infer(expr):
    """The checked type of expr (a builder result or a TupleWrapper)."""
    expr = expr.astuple() if hasattr(expr, "astuple") else expr
    mod = relay.transform.InferType()(IRModule.from_expr(relay.Function(_free_vars(expr), expr)))
    return mod["main"].body.checked_type


def run(expr, **inputs):
    """Run expr on the debug executor with its free vars bound by name; a list of outputs."""
    expr = expr.astuple() if hasattr(expr, "astuple") else expr
    params = _free_vars(expr)
    lib = tvmlite.build(IRModule.from_expr(relay.Function(params, expr)), target="debug")
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for p in params:
        gm.set_input(p.name_hint, inputs[p.name_hint])
    gm.run()
    return [np.asarray(gm.get_output(i).numpy() if hasattr(gm.get_output(i), "numpy") else gm.get_output(i))
            for i in range(gm.get_num_outputs())]


def shape_of(ty):
    return tuple(d if isinstance(d, int) else str(d) for d in ty.shape)


rng = np.random.default_rng(0)


def rand(*shape, dtype="float32"):
    return rng.standard_normal(shape).astype(dtype)


# -- types ---------------------------------------------------------------------------------------------------------
def test_batch_norm_type_and_channel_error():
    n = relay.SizeVar("n")
    x = relay.var("x", shape=(n, 3, 5))
    p = [relay.var(name, shape=(3,)) for name in "gbmv"]
    ty = infer(relay.nn.batch_norm(x, *p))
    assert [shape_of(f) for f in ty.fields] == [("n", 3, 5), (3,), (3,)]
    bad = relay.var("bad", shape=(4,))
    with pytest.raises(ValueError, match=r"nn.batch_norm: gamma has shape \(4,\) but data \(n, 3, 5\) has 3 channels"):
        infer(relay.nn.batch_norm(x, bad, *p[1:]))
    with pytest.raises(IndexError, match="axis 3 is out of range for rank 3"):
        infer(relay.nn.batch_norm(x, *p, axis=3))


def test_layer_norm_stats_keep_symbolic_dims():
    n = relay.SizeVar("n")
    x = relay.var("x", shape=(n, 4, 6))
    ty = infer(relay.nn.layer_norm(x, relay.var("g", shape=(6,)), axis=-1, return_stats=True))
    assert [shape_of(f) for f in ty.fields] == [("n", 4, 6), ("n", 4, 1), ("n", 4, 1)]
    ty = infer(relay.nn.layer_norm(x, relay.var("g", shape=(4, 6)), relay.var("b", shape=(6,)), axis=1))
    assert shape_of(ty) == ("n", 4, 6)
    with pytest.raises(ValueError, match=r"gamma of shape \(5,\) does not broadcast to the normalized shape \(4, 6\)"):
        infer(relay.nn.layer_norm(x, relay.var("g", shape=(5,)), axis=1))


def test_group_norm_errors():
    x = relay.var("x", shape=(2, 6, 4))
    g = relay.var("g", shape=(6,))
    assert shape_of(infer(relay.nn.group_norm(x, g, g, num_groups=3))) == (2, 6, 4)
    with pytest.raises(ValueError, match=r"the 6 channels of data \(2, 6, 4\) do not split into 4 groups"):
        infer(relay.nn.group_norm(x, g, g, num_groups=4))
    with pytest.raises(ValueError, match="num_groups must be positive"):
        infer(relay.nn.group_norm(x, g, g, num_groups=0))


def test_softmax_axis_and_dtype_errors():
    x = relay.var("x", shape=(2, 3))
    with pytest.raises(IndexError, match=r"nn.softmax: axis 2 is out of range for rank 2"):
        infer(relay.nn.softmax(x, axis=2))
    with pytest.raises(TypeError, match="data must have a floating dtype, got int32"):
        infer(relay.nn.log_softmax(relay.var("i", shape=(2, 3), dtype="int32")))


def test_prelu_clip_dropout_types():
    x = relay.var("x", shape=(2, 3, 4))
    assert shape_of(infer(relay.nn.prelu(x, relay.var("s", shape=(3, 1))))) == (2, 3, 4)
    with pytest.raises(ValueError, match=r"slope of shape \(3,\) does not broadcast to data \(2, 3, 4\)"):
        infer(relay.nn.prelu(x, relay.var("s", shape=(3,))))
    with pytest.raises(ValueError, match=r"min must be a scalar, got shape \(2,\)"):
        infer(relay.nn.clip(x, relay.var("lo", shape=(2,)), None))
    xi = relay.var("xi", shape=(4,), dtype="int8")
    assert str(infer(relay.nn.clip(xi, relay.const(np.int8(-1)), None)).dtype) == "int8"
    ty = infer(relay.nn.dropout_raw(x, 0.3, True).astuple())
    assert [str(f.dtype) for f in ty.fields] == ["float32", "bool"]
    ty = infer(relay.nn.dropout_raw(x, 0.3, mask_dtype="float32").astuple())
    assert str(ty.fields[1].dtype) == "float32"


def test_attention_types():
    # 3-D grouped-query attention with a cache: y (B, Sq, Hq * Dv), present (B, Hkv, P + Skv, D)
    q = relay.var("q", shape=(2, 5, 4 * 8))
    k = relay.var("k", shape=(2, 7, 2 * 8))
    v = relay.var("v", shape=(2, 7, 2 * 6))
    pk = relay.var("pk", shape=(2, 2, 3, 8))
    pv = relay.var("pv", shape=(2, 2, 3, 6))
    ty = infer(relay.nn.attention(q, k, v, past_key=pk, past_value=pv, q_num_heads=4, kv_num_heads=2))
    assert [shape_of(f) for f in ty.fields] == [(2, 5, 24), (2, 2, 10, 8), (2, 2, 10, 6), (2, 4, 5, 10)]
    s = relay.SizeVar("s")
    q4 = relay.var("q4", shape=(1, 4, s, 8))
    k4 = relay.var("k4", shape=(1, 2, s, 8))
    ty = infer(relay.nn.attention(q4, k4, k4))
    assert [shape_of(f) for f in ty.fields] == [(1, 4, "s", 8), (1, 2, "s", 8), (1, 2, "s", 8), (1, 4, "s", "s")]
    with pytest.raises(ValueError, match=r"q heads \(3\) must be a multiple of kv heads \(2\)"):
        infer(relay.nn.attention(relay.var("q3", shape=(1, 3, 4, 8)), relay.var("k2", shape=(1, 2, 4, 8)),
                                 relay.var("v2", shape=(1, 2, 4, 8))))
    with pytest.raises(ValueError, match=r"q \(2, 5, 32\): last dim 32 does not split into 5 heads"):
        infer(relay.nn.attention(q, k, v, q_num_heads=5, kv_num_heads=2))
    with pytest.raises(ValueError, match="past_key and past_value must be given together"):
        infer(relay.nn.attention(q, k, v, past_key=pk, q_num_heads=4, kv_num_heads=2))
    with pytest.raises(ValueError, match=r"attn_mask \(5, 11\) is longer than the 10 keys"):
        infer(relay.nn.attention(q, k, v, attn_mask=relay.var("m", shape=(5, 11)), past_key=pk, past_value=pv,
                                 q_num_heads=4, kv_num_heads=2))


def test_rotary_and_loss_types():
    x = relay.var("x", shape=(2, 3, 5, 8))
    cos = relay.var("c", shape=(16, 2))
    pos = relay.var("p", shape=(2, 5), dtype="int64")
    assert shape_of(infer(relay.nn.rotary_embedding(x, cos, cos, pos, rotary_embedding_dim=4))) == (2, 3, 5, 8)
    with pytest.raises(ValueError, match="cos_cache last dim"):
        infer(relay.nn.rotary_embedding(x, cos, cos, pos))
    pred = relay.var("pred", shape=(3, 5, 2))
    tgt = relay.var("t", shape=(3, 2), dtype="int64")
    assert shape_of(infer(relay.nn.nll_loss(pred, tgt, reduction="none"))) == (3, 2)
    assert shape_of(infer(relay.nn.nll_loss(pred, tgt))) == ()
    with pytest.raises(ValueError, match="reduction must be 'none', 'sum' or 'mean', got 'avg'"):
        infer(relay.nn.nll_loss(pred, tgt, reduction="avg"))
    with pytest.raises(ValueError, match=r"targets \(3, 4\) do not match predictions \(3, 5, 2\)"):
        infer(relay.nn.nll_loss(pred, relay.var("t2", shape=(3, 4), dtype="int64")))


# -- values ----------------------------------------------------------------------------------------------------------
def test_batch_norm_inference_and_training():
    x = rand(4, 3, 5)
    g, b, m = rand(3), rand(3), rand(3)
    v = np.abs(rand(3)) + 0.5
    xs = relay.var("x", shape=x.shape)
    ps = [relay.var(n, shape=(3,)) for n in "gbmv"]
    feed = dict(x=x, g=g, b=b, m=m, v=v)
    y, mo, vo = run(relay.nn.batch_norm(xs, *ps, epsilon=1e-3), **feed)
    want = (x - m[:, None]) / np.sqrt(v[:, None] + 1e-3) * g[:, None] + b[:, None]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(mo, m)
    y, mo, vo = run(relay.nn.batch_norm(xs, *ps, epsilon=1e-3, momentum=0.8, training=True), **feed)
    bm = x.mean(axis=(0, 2))
    bv = ((x - bm[:, None]) ** 2).mean(axis=(0, 2))
    np.testing.assert_allclose(y, (x - bm[:, None]) / np.sqrt(bv[:, None] + 1e-3) * g[:, None] + b[:, None],
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mo, 0.8 * m + 0.2 * bm, rtol=1e-5)
    np.testing.assert_allclose(vo, 0.8 * v + 0.2 * bv, rtol=1e-5)


def test_layer_rms_instance_group_norm_values():
    x = rand(2, 4, 6)
    g6, b6, g4 = rand(6), rand(6), rand(4)
    xs = relay.var("x", shape=x.shape)
    y, mean, inv = run(relay.nn.layer_norm(xs, relay.var("g", shape=(6,)), relay.var("b", shape=(6,)),
                                           return_stats=True), x=x, g=g6, b=b6)
    mu = x.mean(-1, keepdims=True)
    sd = np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, (x - mu) / sd * g6 + b6, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(inv, 1 / sd, rtol=1e-5)
    (y,) = run(relay.nn.rms_norm(xs, relay.var("g", shape=(6,)), epsilon=1e-6), x=x, g=g6)
    np.testing.assert_allclose(y, x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * g6, rtol=1e-5, atol=1e-6)
    (y,) = run(relay.nn.instance_norm(xs, relay.var("g", shape=(4,)), relay.var("b", shape=(4,))), x=x, g=g4,
               b=g4)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g4[:, None] + g4[:, None]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    (y,) = run(relay.nn.group_norm(xs, relay.var("g", shape=(4,)), relay.var("b", shape=(4,)), num_groups=2),
               x=x, g=g4, b=g4)
    grouped = x.reshape(2, 2, 12)
    norm = ((grouped - grouped.mean(-1, keepdims=True)) / np.sqrt(grouped.var(-1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(y, norm.reshape(x.shape) * g4[:, None] + g4[:, None], rtol=1e-5, atol=1e-5)


def test_lrn_lp_mvn_values():
    x = rand(1, 5, 2)
    xs = relay.var("x", shape=x.shape)
    (y,) = run(relay.nn.lrn(xs, size=3, bias=1.0, alpha=0.3, beta=0.5), x=x)
    want = np.empty_like(x)
    for c in range(5):
        sq = sum(x[:, j] ** 2 for j in range(max(0, c - 1), min(5, c + 2)))
        want[:, c] = x[:, c] / (1.0 + 0.3 / 3 * sq) ** 0.5
    np.testing.assert_allclose(y, want, rtol=1e-5)
    (y,) = run(relay.nn.lp_normalize(xs, axis=1, p=1), x=x)
    np.testing.assert_allclose(y, x / np.abs(x).sum(1, keepdims=True), rtol=1e-5)
    (y,) = run(relay.nn.mean_variance_normalization(xs, axes=(0, 2)), x=x)
    mu = x.mean((0, 2), keepdims=True)
    np.testing.assert_allclose(y, (x - mu) / (np.sqrt(((x - mu) ** 2).mean((0, 2), keepdims=True)) + 1e-9),
                               rtol=1e-4, atol=1e-5)


def test_softmax_family_values():
    x = rand(2, 3, 4)
    xs = relay.var("x", shape=x.shape)
    (y,) = run(relay.nn.softmax(xs, axis=1), x=x)
    np.testing.assert_allclose(y, np.exp(x) / np.exp(x).sum(1, keepdims=True), rtol=1e-5)
    (y,) = run(relay.nn.log_softmax(xs, axis=1, flatten=True), x=x)  # jointly over axes 1 and 2
    flat = x.reshape(2, 12)
    np.testing.assert_allclose(y, (flat - np.log(np.exp(flat).sum(1, keepdims=True))).reshape(x.shape), rtol=1e-5,
                               atol=1e-6)
    ties = np.array([[1, 3, 3], [2, 0, 2]], dtype="float32")
    (y,) = run(relay.nn.hardmax(relay.var("t", shape=(2, 3))), t=ties)
    np.testing.assert_array_equal(y, [[0, 1, 0], [1, 0, 0]])
    big = np.array([[1000.0, 0.0, -np.inf]], dtype="float32")
    (y,) = run(relay.nn.softmax(relay.var("b", shape=(1, 3))), b=big)
    np.testing.assert_array_equal(y, [[1, 0, 0]])


@pytest.mark.parametrize("builder,kwargs,fn", [
    (relay.nn.leaky_relu, {"alpha": 0.1}, lambda x: np.where(x >= 0, x, 0.1 * x)),
    (relay.nn.elu, {"alpha": 2.0}, lambda x: np.where(x > 0, x, 2.0 * (np.exp(x) - 1))),
    (relay.nn.celu, {"alpha": 0.5}, lambda x: np.maximum(0, x) + np.minimum(0, 0.5 * (np.exp(x / 0.5) - 1))),
    (relay.nn.selu, {"alpha": 2.0, "gamma": 3.0}, lambda x: 3.0 * np.where(x > 0, x, 2.0 * (np.exp(x) - 1))),
    (relay.nn.hard_sigmoid, {"alpha": 0.3, "beta": 0.4}, lambda x: np.clip(0.3 * x + 0.4, 0, 1)),
    (relay.nn.hard_swish, {}, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    (relay.nn.thresholded_relu, {"alpha": 0.5}, lambda x: np.where(x > 0.5, x, 0)),
    (relay.nn.shrink, {"lambd": 0.7, "bias": 0.2},
     lambda x: np.where(x > 0.7, x - 0.2, np.where(x < -0.7, x + 0.2, 0))),
    (relay.nn.swish, {"alpha": 1.5}, lambda x: x / (1 + np.exp(-1.5 * x))),
    (relay.nn.gelu, {}, lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
    (relay.nn.gelu, {"approximate": "tanh"},
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    (relay.nn.softplus, {}, lambda x: np.log1p(np.exp(x))),
    (relay.nn.softsign, {}, lambda x: x / (1 + np.abs(x))),
    (relay.nn.mish, {}, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
])
def test_activation_values(builder, kwargs, fn):
    x = (rand(3, 7) * 2).astype("float32")
    (y,) = run(builder(relay.var("x", shape=x.shape), **kwargs), x=x)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, fn(x.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_activation_float16_keeps_dtype():
    x = rand(5, dtype="float16")
    (y,) = run(relay.nn.gelu(relay.var("x", shape=(5,), dtype="float16")), x=x)
    assert y.dtype == np.float16


def test_prelu_clip_values():
    x = rand(2, 3, 2)
    s = np.array([[0.1], [0.2], [0.3]], dtype="float32")
    (y,) = run(relay.nn.prelu(relay.var("x", shape=x.shape), relay.var("s", shape=s.shape)), x=x, s=s)
    np.testing.assert_allclose(y, np.where(x < 0, x * s, x))
    xi = np.array([-5, 0, 7, 100], dtype="int8")
    (y,) = run(relay.nn.clip(relay.var("x", shape=(4,), dtype="int8"), relay.const(np.int8(-2)),
                             relay.const(np.int8(10))), x=xi)
    np.testing.assert_array_equal(y, [-2, 0, 7, 10])
    (y,) = run(relay.nn.clip(relay.var("x", shape=(4,), dtype="int8"), None, relay.const(np.int8(3))), x=xi)
    np.testing.assert_array_equal(y, [-5, 0, 3, 3])
    (y,) = run(relay.nn.clip(relay.var("x", shape=(4,), dtype="int8"), 1, None), x=xi)  # bound in data's dtype
    assert y.dtype == np.int8
    np.testing.assert_array_equal(y, [1, 1, 7, 100])


def test_dropout_values():
    x = rand(4, 5)
    xs = relay.var("x", shape=x.shape)
    y, mask = run(relay.nn.dropout_raw(xs, 0.5, False), x=x)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == np.bool_ and mask.all()
    y1, m1 = run(relay.nn.dropout_raw(xs, 0.4, True, seed=7), x=x)
    y2, _ = run(relay.nn.dropout_raw(xs, 0.4, True, seed=7), x=x)
    np.testing.assert_array_equal(y1, y2)
    assert 0 < m1.sum() < m1.size
    np.testing.assert_allclose(y1, np.where(m1, x / 0.6, 0), rtol=1e-6)


def _attention_numpy(q, k, v, causal=False, mask=None, scale=None):
    """Plain per-head loops: q (B, Hq, S, D), k/v (B, Hkv, T, D)."""
    b, hq, s, d = q.shape
    hkv, t = k.shape[1], k.shape[2]
    scale = 1 / math.sqrt(d) if scale is None else scale
    out = np.zeros((b, hq, s, v.shape[3]))
    for bi in range(b):
        for h in range(hq):
            kh = h // (hq // hkv)
            scores = q[bi, h] @ k[bi, kh].T * scale
            if mask is not None:
                scores = scores + mask
            if causal:
                scores = np.where(np.arange(t)[None, :] <= np.arange(s)[:, None] + (t - s), scores, -np.inf)
            p = np.exp(scores - scores.max(-1, keepdims=True))
            out[bi, h] = (p / p.sum(-1, keepdims=True)) @ v[bi, kh]
    return out


def test_attention_values_gqa_causal_and_cache():
    q, k, v = rand(2, 4, 3, 8), rand(2, 2, 3, 8), rand(2, 2, 3, 8)
    pk, pv = rand(2, 2, 2, 8), rand(2, 2, 2, 8)
    names = dict(q=q, k=k, v=v, pk=pk, pv=pv)
    qs, ks, vs, pks, pvs = (relay.var(n, shape=a.shape) for n, a in names.items())
    y, present_k, present_v, _ = run(relay.nn.attention(qs, ks, vs, past_key=pks, past_value=pvs, is_causal=True),
                                     **names)
    full_k, full_v = np.concatenate([pk, k], 2), np.concatenate([pv, v], 2)
    np.testing.assert_array_equal(present_k, full_k)
    np.testing.assert_allclose(y, _attention_numpy(q, full_k, full_v, causal=True), rtol=1e-4, atol=1e-5)
    # 3-D inputs, a boolean mask broadcast over batch and heads, an explicit scale
    q3, k3 = q.transpose(0, 2, 1, 3).reshape(2, 3, 32), k.transpose(0, 2, 1, 3).reshape(2, 3, 16)
    mask = np.array([[True, False, True], [True, True, True], [False, True, True]])
    y, *_ = run(relay.nn.attention(relay.var("q3", shape=q3.shape), relay.var("k3", shape=k3.shape),
                                   relay.var("v3", shape=k3.shape), attn_mask=relay.var("m", shape=(3, 3),
                                                                                        dtype="bool"),
                                   q_num_heads=4, kv_num_heads=2, scale=0.5), q3=q3, k3=k3, v3=k3, m=mask)
    want = _attention_numpy(q, k, k, mask=np.where(mask, 0, -np.inf), scale=0.5)
    np.testing.assert_allclose(y, want.transpose(0, 2, 1, 3).reshape(2, 3, 32), rtol=1e-4, atol=1e-5)


def test_rotary_embedding_values():
    x = rand(1, 2, 3, 4)  # (B, H, S, D), rotating the first 2 dims as one pair
    theta = rng.standard_normal((3, 1)).astype("float32")
    cos, sin = np.cos(theta)[None], np.sin(theta)[None]  # (B, S, 1)
    (y,) = run(relay.nn.rotary_embedding(relay.var("x", shape=x.shape), relay.var("c", shape=cos.shape),
                                         relay.var("s", shape=sin.shape), rotary_embedding_dim=2), x=x, c=cos, s=sin)
    c, s = np.cos(theta)[None, None, :, :], np.sin(theta)[None, None, :, :]
    want = x.copy()
    want[..., 0:1] = c * x[..., 0:1] - s * x[..., 1:2]
    want[..., 1:2] = s * x[..., 0:1] + c * x[..., 1:2]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_nll_loss_values():
    pred = rand(3, 4)
    tgt = np.array([1, -1, 3], dtype="int64")
    w = np.array([1.0, 2.0, 3.0, 4.0], dtype="float32")
    ps, ts, ws = relay.var("p", shape=(3, 4)), relay.var("t", shape=(3,), dtype="int64"), relay.var("w", shape=(4,))
    (y,) = run(relay.nn.nll_loss(ps, ts, ws, reduction="mean", ignore_index=-1), p=pred, t=tgt, w=w)
    np.testing.assert_allclose(y, -(pred[0, 1] * 2 + pred[2, 3] * 4) / 6, rtol=1e-5)
    (y,) = run(relay.nn.nll_loss(ps, ts, reduction="none", ignore_index=-1), p=pred, t=tgt)
    np.testing.assert_allclose(y, [-pred[0, 1], 0, -pred[2, 3]], rtol=1e-6)
    with pytest.raises(IndexError, match="target -1 is out of range for 4 classes"):
        run(relay.nn.nll_loss(ps, ts, reduction="sum"), p=pred, t=tgt)
