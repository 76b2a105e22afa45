"""numpy references of the normalization, softmax, activation, dropout, attention and loss ops (norm.py).

Each follows the ONNX operator's specification (the reference semantics TVM's ops share). Statistics of float16 /
bfloat16 inputs are computed in the stash type (float32 unless told otherwise) and results cast back, so a
reference returns exactly the dtype its relation promises.
"""
import math

import numpy as np

from ..op import register_reference
from ...backend.dtypes import to_numpy_dtype


def _compute_dtype(x, stash_type="float32"):
    """The dtype statistics of x are computed in: the stash type when x is narrower, else x's own."""
    if stash_type:
        stash = to_numpy_dtype(stash_type)
        if x.dtype.kind != "f" or x.dtype.itemsize < stash.itemsize:
            return stash
    return x.dtype if x.dtype.kind == "f" else np.dtype("float32")


def _axis(axis, ndim):
    return axis + ndim if axis < 0 else axis


# -- normalization ---------------------------------------------------------------------------------------------
@register_reference("nn.batch_norm")
def _batch_norm(attrs, x, gamma, beta, mean, var):
    axis = _axis(attrs.axis, x.ndim)
    bshape = [1] * x.ndim
    bshape[axis] = x.shape[axis]
    ct = _compute_dtype(x)
    xf = x.astype(ct)
    if attrs.training:
        reduce_axes = tuple(i for i in range(x.ndim) if i != axis)
        batch_mean = xf.mean(axis=reduce_axes)
        batch_var = xf.var(axis=reduce_axes)
        use_mean, use_var = batch_mean, batch_var
        m = attrs.momentum
        mean_out = (mean.astype(ct) * m + batch_mean * (1 - m)).astype(mean.dtype)
        var_out = (var.astype(ct) * m + batch_var * (1 - m)).astype(var.dtype)
    else:
        use_mean, use_var = mean.astype(ct), var.astype(ct)
        mean_out, var_out = mean.copy(), var.copy()
    y = (xf - use_mean.reshape(bshape)) / np.sqrt(use_var.reshape(bshape) + ct.type(attrs.epsilon))
    if attrs.scale:
        y = y * gamma.astype(ct).reshape(bshape)
    if attrs.center:
        y = y + beta.astype(ct).reshape(bshape)
    return y.astype(x.dtype), mean_out, var_out


@register_reference("nn.layer_norm")
def _layer_norm(attrs, x, gamma, beta):
    axis = _axis(attrs.axis, x.ndim)
    ct = _compute_dtype(x, attrs.stash_type)
    xf = x.astype(ct)
    axes = tuple(range(axis, x.ndim))
    mean = xf.mean(axis=axes, keepdims=True)
    diff = xf - mean
    var = (diff * diff).mean(axis=axes, keepdims=True)
    inv_std = 1 / np.sqrt(var + ct.type(attrs.epsilon))
    y = (diff * inv_std).astype(x.dtype) * gamma
    if not isinstance(beta, tuple):
        y = y + beta
    return y.astype(x.dtype), mean.astype(x.dtype), inv_std.astype(x.dtype)


@register_reference("nn.rms_norm")
def _rms_norm(attrs, x, gamma):
    axis = _axis(attrs.axis, x.ndim)
    ct = _compute_dtype(x, attrs.stash_type)
    xf = x.astype(ct)
    ms = (xf * xf).mean(axis=tuple(range(axis, x.ndim)), keepdims=True)
    y = (xf / np.sqrt(ms + ct.type(attrs.epsilon))).astype(x.dtype)
    return (y * gamma).astype(x.dtype)


def _channel_affine(y, gamma, beta):
    shape = [1] * y.ndim
    shape[1] = y.shape[1]
    return y * gamma.reshape(shape) + beta.reshape(shape)


@register_reference("nn.instance_norm")
def _instance_norm(attrs, x, gamma, beta):
    ct = _compute_dtype(x)
    xf = x.astype(ct)
    axes = tuple(range(2, x.ndim))
    mean = xf.mean(axis=axes, keepdims=True)
    var = xf.var(axis=axes, keepdims=True)
    y = (xf - mean) / np.sqrt(var + ct.type(attrs.epsilon))
    return _channel_affine(y, gamma.astype(ct), beta.astype(ct)).astype(x.dtype)


@register_reference("nn.group_norm")
def _group_norm(attrs, x, gamma, beta):
    ct = _compute_dtype(x, attrs.stash_type)
    n, c = x.shape[:2]
    g = attrs.num_groups
    grouped = x.astype(ct).reshape((n, g, -1))
    mean = grouped.mean(axis=2, keepdims=True)
    var = grouped.var(axis=2, keepdims=True)
    y = ((grouped - mean) / np.sqrt(var + ct.type(attrs.epsilon))).reshape(x.shape).astype(x.dtype)
    return _channel_affine(y, gamma, beta).astype(x.dtype)


@register_reference("nn.lrn")
def _lrn(attrs, x):
    axis = _axis(attrs.axis, x.ndim)
    ct = _compute_dtype(x)
    sq = np.moveaxis(x.astype(ct) ** 2, axis, 0)
    c = sq.shape[0]
    lo, hi = (attrs.size - 1) // 2, -(-(attrs.size - 1) // 2)
    total = np.zeros_like(sq)
    for i in range(c):
        total[i] = sq[max(0, i - lo):min(c, i + hi + 1)].sum(axis=0)
    total = np.moveaxis(total, 0, axis)
    y = x.astype(ct) / (ct.type(attrs.bias) + ct.type(attrs.alpha / attrs.size) * total) ** ct.type(attrs.beta)
    return y.astype(x.dtype)


@register_reference("nn.lp_normalize")
def _lp_normalize(attrs, x):
    axis = _axis(attrs.axis, x.ndim)
    ct = _compute_dtype(x)
    xf = x.astype(ct)
    if attrs.p == 1:
        norm = np.abs(xf).sum(axis=axis, keepdims=True)
    else:
        norm = np.sqrt((xf * xf).sum(axis=axis, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(norm == 0, ct.type(0), xf / norm)
    return y.astype(x.dtype)


@register_reference("nn.mean_variance_normalization")
def _mvn(attrs, x):
    axes = tuple(sorted({_axis(a, x.ndim) for a in attrs.axes}))
    ct = _compute_dtype(x)
    xf = x.astype(ct)
    mean = xf.mean(axis=axes, keepdims=True)
    diff = xf - mean
    var = (diff * diff).mean(axis=axes, keepdims=True)  # ONNX's E[x^2] - E[x]^2, without its cancellation
    y = diff / (np.sqrt(var) + ct.type(attrs.epsilon))
    return y.astype(x.dtype)


def _flat(attrs, x):
    """x as the op sees it: (x viewed 2-D at axis, -1) with flatten, else (x, axis); and the way back."""
    axis = _axis(attrs.axis, x.ndim)
    if attrs.flatten:
        rows = int(np.prod(x.shape[:axis], dtype=np.int64))
        return x.reshape((rows, -1)), 1, (lambda y: y.reshape(x.shape))
    return x, axis, (lambda y: y)


def _log_softmax_along(xf, axis):
    m = np.max(xf, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    shifted = xf - m
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@register_reference("nn.softmax")
def _softmax(attrs, x):
    if x.size == 0:
        return x.copy()
    v, axis, back = _flat(attrs, x)
    ct = _compute_dtype(x)
    vf = v.astype(ct)
    m = np.max(vf, axis=axis, keepdims=True)
    e = np.exp(vf - np.where(np.isfinite(m), m, 0))
    return back((e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype))


@register_reference("nn.log_softmax")
def _log_softmax(attrs, x):
    if x.size == 0:
        return x.copy()
    v, axis, back = _flat(attrs, x)
    return back(_log_softmax_along(v.astype(_compute_dtype(x)), axis).astype(x.dtype))


@register_reference("nn.hardmax")
def _hardmax(attrs, x):
    if x.size == 0:
        return x.copy()
    v, axis, back = _flat(attrs, x)
    first = np.expand_dims(np.argmax(v, axis=axis), axis)
    y = np.zeros_like(v)
    np.put_along_axis(y, first, 1, axis=axis)
    return back(y)


# -- activations -------------------------------------------------------------------------------------------------
def _activation(name):
    def register(f):
        def ref(attrs, x):
            ct = _compute_dtype(x)
            with np.errstate(over="ignore"):
                return np.asarray(f(attrs, x.astype(ct), ct)).astype(x.dtype)

        register_reference(name, ref)
        return f

    return register


_erf = np.vectorize(math.erf, otypes=[np.float64])


@_activation("nn.leaky_relu")
def _leaky_relu(attrs, x, ct):
    return np.where(x >= 0, x, x * ct.type(attrs.alpha))


@_activation("nn.elu")
def _elu(attrs, x, ct):
    return np.where(x > 0, x, ct.type(attrs.alpha) * np.expm1(np.minimum(x, 0)))


@_activation("nn.celu")
def _celu(attrs, x, ct):
    alpha = ct.type(attrs.alpha)
    return np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(np.minimum(x, 0) / alpha))


@_activation("nn.selu")
def _selu(attrs, x, ct):
    return ct.type(attrs.beta) * np.where(x > 0, x, ct.type(attrs.alpha) * np.expm1(np.minimum(x, 0)))


@_activation("nn.hard_sigmoid")
def _hard_sigmoid(attrs, x, ct):
    return np.clip(ct.type(attrs.alpha) * x + ct.type(attrs.beta), 0, 1)


@_activation("nn.hard_swish")
def _hard_swish(attrs, x, ct):
    return x * np.clip(x * ct.type(1 / 6) + ct.type(0.5), 0, 1)


@_activation("nn.thresholded_relu")
def _thresholded_relu(attrs, x, ct):
    return np.where(x > ct.type(attrs.alpha), x, ct.type(0))


@_activation("nn.shrink")
def _shrink(attrs, x, ct):
    lambd, bias = ct.type(attrs.alpha), ct.type(attrs.beta)
    return np.where(x > lambd, x - bias, np.where(x < -lambd, x + bias, ct.type(0)))


def _sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x))))


@_activation("nn.swish")
def _swish(attrs, x, ct):
    return x * _sigmoid(ct.type(attrs.alpha) * x)


@_activation("nn.gelu")
def _gelu(attrs, x, ct):
    if attrs.approximate == "tanh":
        inner = ct.type(math.sqrt(2 / math.pi)) * (x + ct.type(0.044715) * x ** 3)
        return ct.type(0.5) * x * (1 + np.tanh(inner))
    return ct.type(0.5) * x * (1 + _erf(x / math.sqrt(2)).astype(ct))


def _softplus_values(x):
    return np.logaddexp(np.zeros((), x.dtype), x)


@_activation("nn.softplus")
def _softplus(attrs, x, ct):
    return _softplus_values(x)


@_activation("nn.softsign")
def _softsign(attrs, x, ct):
    return x / (1 + np.abs(x))


@_activation("nn.mish")
def _mish(attrs, x, ct):
    return x * np.tanh(_softplus_values(x))


@register_reference("nn.prelu")
def _prelu(attrs, x, slope):
    return np.where(x < 0, x * slope, x).astype(x.dtype)


@register_reference("clip")
def _clip(attrs, x, lo, hi):
    y = x
    if not isinstance(lo, tuple):
        y = np.maximum(y, lo.reshape(()))
    if not isinstance(hi, tuple):
        y = np.minimum(y, hi.reshape(()))
    return np.array(y, dtype=x.dtype, copy=True)


@register_reference("nn.dropout")
def _dropout(attrs, x, ratio, training_mode):
    ratio = float(ratio)
    mask_dtype = to_numpy_dtype(attrs.mask_dtype)
    if not bool(training_mode) or ratio == 0:
        return x.copy(), np.ones(x.shape, dtype=mask_dtype)
    if not 0 <= ratio < 1:
        raise ValueError(f"ratio must be in [0, 1) in training mode, got {ratio}")
    rng = np.random.RandomState(attrs.seed)  # seed None: fresh entropy on every run
    mask = rng.uniform(0.0, 1.0, x.shape) >= ratio
    return (mask * x * (1 / (1 - ratio))).astype(x.dtype), mask.astype(mask_dtype)


# -- attention, losses --------------------------------------------------------------------------------------------
def _to_heads(t, heads):
    """(B, S, H * D) -> (B, H, S, D); 4-D inputs are already there."""
    if t.ndim == 4:
        return t
    b, s, hidden = t.shape
    return t.reshape(b, s, heads, hidden // heads).transpose(0, 2, 1, 3)


def _window_bias(q_len, kv_len, offset, is_causal, left, right, dtype):
    """The additive causal / sliding-window bias (q_len, kv_len), or (B, 1, q_len, kv_len) for per-batch offsets:
    query i (absolute position i + offset) may see key j when j <= i + offset (causal) and within the window."""
    i = np.arange(q_len).reshape(q_len, 1)
    j = np.arange(kv_len).reshape(1, kv_len)
    off = np.asarray(offset).reshape(-1, 1, 1) if np.ndim(offset) > 0 else int(offset)
    diff = (i + off) - j  # query position minus key position
    allowed = np.ones(np.shape(diff), dtype=bool)
    if is_causal:
        allowed &= diff >= 0
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    bias = np.where(allowed, dtype.type(0), dtype.type(-np.inf))
    return bias[:, None] if np.ndim(offset) > 0 else bias


@register_reference("nn.attention")
def _attention(attrs, q, k, v, mask, past_k, past_v, nonpad):
    dt = q.dtype
    q4 = _to_heads(q, attrs.q_num_heads)
    k4 = _to_heads(k, attrs.kv_num_heads)
    v4 = _to_heads(v, attrs.kv_num_heads)
    if not isinstance(past_k, tuple):
        k4 = np.concatenate([past_k, k4], axis=2)
        v4 = np.concatenate([past_v, v4], axis=2)
    present_k, present_v = k4, v4
    q_len, kv_len = q4.shape[2], k4.shape[2]
    scale = attrs.scale if attrs.scale is not None else 1 / math.sqrt(q4.shape[3])
    root = dt.type(math.sqrt(scale))  # applied to q and k separately, as the ONNX function body does

    # The additive bias: attn_mask (bool -> 0 / -inf; padded to the keys as masked), then causal/window, padding.
    bias = np.zeros((q_len, kv_len), dtype=dt)
    if not isinstance(mask, tuple):
        pad = kv_len - mask.shape[-1]
        if mask.dtype == np.bool_:
            mask = np.where(mask, dt.type(0), dt.type(-np.inf))
        if pad > 0:
            mask = np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, pad)], constant_values=-np.inf)
        bias = bias + mask
    if attrs.is_causal or attrs.left_window_size >= 0 or attrs.right_window_size >= 0:
        if not isinstance(past_k, tuple):
            offset = past_k.shape[2]
        elif not isinstance(nonpad, tuple):
            offset = nonpad.reshape(-1) - q_len
        else:
            offset = 0
        bias = bias + _window_bias(q_len, kv_len, offset, attrs.is_causal, attrs.left_window_size,
                                   attrs.right_window_size, dt)
    if not isinstance(nonpad, tuple):
        keep = np.arange(kv_len) < nonpad.reshape(-1, 1)
        bias = bias + np.where(keep, dt.type(0), dt.type(-np.inf)).reshape(q4.shape[0], 1, 1, kv_len)

    reps = q4.shape[1] // k4.shape[1]
    if reps > 1:  # grouped-query attention: kv head h serves q heads h * reps ... (h + 1) * reps - 1
        k4 = np.repeat(k4, reps, axis=1)
        v4 = np.repeat(v4, reps, axis=1)
    # numpy promotes some narrow dtypes (bfloat16) in matmul: the products are rounded to dt, as MatMul's are.
    qk = np.matmul(q4 * root, np.swapaxes(k4 * root, 2, 3)).astype(dt)
    if attrs.softcap > 0:
        cap = dt.type(attrs.softcap)
        qk = np.tanh(qk / cap) * cap
    scores = qk + bias
    mode = attrs.qk_matmul_output_mode
    qk_out = scores if mode == 2 else qk
    st = to_numpy_dtype(attrs.softmax_precision) if attrs.softmax_precision else dt
    s = scores.astype(st)
    row_max = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isneginf(row_max), st.type(0), row_max))
    total = np.sum(e, axis=-1, keepdims=True)
    probs = e / np.where(total == 0, st.type(1), total)
    # A query whose bias masks every key attends to nothing: its probabilities (and output) are 0.
    dead = np.isneginf(np.max(np.broadcast_to(bias, scores.shape), axis=-1, keepdims=True))
    probs = np.where(dead, st.type(0), probs)
    if mode == 3:
        qk_out = probs
    y = np.matmul(probs.astype(dt), v4).astype(dt)
    if q.ndim == 3:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    qk_out = np.broadcast_to(qk_out, (q4.shape[0], q4.shape[1], q_len, kv_len)).astype(dt)
    return y.astype(dt), present_k, present_v, qk_out


@register_reference("nn.rotary_embedding")
def _rotary_embedding(attrs, x, cos, sin, position_ids):
    if x.ndim == 4:  # (B, H, S, D) -> (B, S, H, D)
        xs = x.transpose(0, 2, 1, 3)
    else:
        b, s, hidden = x.shape
        xs = x.reshape(b, s, attrs.num_heads, hidden // attrs.num_heads)
    rot = attrs.rotary_embedding_dim or xs.shape[3]
    if not isinstance(position_ids, tuple):
        cos, sin = cos[position_ids], sin[position_ids]  # (B, S, rot / 2)
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]
    head, rest = xs[..., :rot], xs[..., rot:]
    if attrs.interleaved:
        x1, x2 = head[..., 0::2], head[..., 1::2]
    else:
        x1, x2 = head[..., :rot // 2], head[..., rot // 2:]
    real = cos * x1 - sin * x2
    imag = sin * x1 + cos * x2
    if attrs.interleaved:
        rotated = np.stack([real, imag], axis=-1).reshape(head.shape)
    else:
        rotated = np.concatenate([real, imag], axis=-1)
    out = np.concatenate([rotated, rest], axis=-1).astype(x.dtype)
    return out.transpose(0, 2, 1, 3) if x.ndim == 4 else out.reshape(x.shape)


@register_reference("nn.nll_loss")
def _nll_loss(attrs, pred, target, weights):
    c = pred.shape[1]
    target = target.astype(np.int64)
    ignored = (target == attrs.ignore_index) if attrs.ignore_index is not None else np.zeros(target.shape, bool)
    safe = np.where(ignored, 0, target)
    if np.any((safe < 0) | (safe >= c)):
        bad = target[(~ignored) & ((target < 0) | (target >= c))]
        raise IndexError(f"target {int(bad.flat[0])} is out of range for {c} classes")
    picked = np.take_along_axis(pred, np.expand_dims(safe, 1), axis=1).squeeze(1)
    w = np.ones(c, dtype=pred.dtype) if isinstance(weights, tuple) else weights
    wt = np.where(ignored, pred.dtype.type(0), w[safe])
    loss = -picked * wt
    if attrs.reduction == "none":
        return loss.astype(pred.dtype)
    if attrs.reduction == "sum":
        return np.asarray(loss.sum(), dtype=pred.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(loss.sum() / wt.sum(), dtype=pred.dtype)
