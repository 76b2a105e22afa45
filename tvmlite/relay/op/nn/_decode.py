"""numpy references of the decoding ops (decode.py). State recurrences accumulate in float32, as the ONNX spec's
reference does, and return in the inputs' dtypes."""
import numpy as np

from ..op import register_reference


@register_reference("nn.causal_conv_with_state")
def _causal_conv_with_state(attrs, data, weight, *optional):
    rest = list(optional)
    bias = rest.pop(0) if attrs.has_bias else None
    past = rest.pop(0) if attrs.has_past_state else None
    b, c, length = data.shape
    k = weight.shape[2]
    if past is None:
        past = np.zeros((b, c, k - 1), data.dtype)
    padded = np.concatenate([past, data], axis=2)
    acc = np.zeros((b, c, length), np.float64 if data.dtype == np.float64 else np.float32)
    w = weight[:, 0, :].astype(acc.dtype)
    for j in range(k):  # output t sees padded[t .. t+k-1]
        acc += w[None, :, j, None] * padded[:, :, j:j + length].astype(acc.dtype)
    if bias is not None:
        acc += bias.astype(acc.dtype)[None, :, None]
    out = acc.astype(data.dtype)
    if attrs.activation in ("silu", "swish"):
        y = out.astype(np.float32)
        out = (y / (1.0 + np.exp(-y))).astype(data.dtype)
    present = padded[:, :, padded.shape[2] - (k - 1):]
    return out, np.ascontiguousarray(present)


def _heads(x, n):
    """(B, T, H*D) -> (B, H, T, D) in float32."""
    b, t, hd = x.shape
    return x.reshape(b, t, n, hd // n).transpose(0, 2, 1, 3).astype(np.float32)


@register_reference("nn.linear_attention")
def _linear_attention(attrs, query, key, value, *optional):
    rest = list(optional)
    past = rest.pop(0) if attrs.has_past_state else None
    decay = rest.pop(0) if attrs.has_decay else None
    beta = rest.pop(0) if attrs.has_beta else None
    hq, hkv = attrs.q_num_heads, attrs.kv_num_heads
    b, t, _ = query.shape
    q, k, v = _heads(query, hq), _heads(key, hkv), _heads(value, hkv)
    dk, dv = q.shape[-1], v.shape[-1]
    if decay is not None:  # per head (B, T, Hkv) or per key dim (B, T, Hkv*dk) -> (B, Hkv, T, 1 | dk)
        decay = _heads(decay, hkv)
    if beta is not None:  # (B, T, Hkv | 1) -> (B, Hkv | 1, T, 1)
        beta = beta.reshape(b, t, beta.shape[-1], 1).transpose(0, 2, 1, 3).astype(np.float32)
    state = past.astype(np.float32) if past is not None else np.zeros((b, hkv, dk, dv), np.float32)
    scale = attrs.scale if attrs.scale != 0.0 else 1.0 / np.sqrt(dk)
    group = hq // hkv
    out = np.zeros((b, hq, t, dv), np.float32)
    for i in range(t):
        k_t, v_t = k[:, :, i, :], v[:, :, i, :]
        if decay is not None:
            state = state * np.exp(decay[:, :, i, :])[..., None]
        if beta is not None:
            v_t = beta[:, :, i, :] * (v_t - np.einsum("bhkv,bhk->bhv", state, k_t))
        state = state + k_t[..., :, None] * v_t[..., None, :]
        read = np.repeat(state, group, axis=1) if group > 1 else state  # query head h reads kv head h // group
        out[:, :, i, :] = scale * np.einsum("bhk,bhkv->bhv", q[:, :, i, :], read)
    output = out.transpose(0, 2, 1, 3).reshape(b, t, hq * dv).astype(query.dtype)
    return output, state.astype(past.dtype if past is not None else query.dtype)


@register_reference("tensor_scatter")
def _tensor_scatter(attrs, past, update, *optional):
    axis = attrs.axis % past.ndim
    length, capacity = update.shape[axis], past.shape[axis]
    write = optional[0] if attrs.has_write_indices else np.zeros(past.shape[0], np.int64)
    out = past.copy()
    for batch in range(past.shape[0]):
        pos = write[batch] + np.arange(length)
        if attrs.mode == "circular":
            pos = pos % capacity
        elif length and (write[batch] < 0 or pos[-1] >= capacity):
            raise IndexError(f"tensor_scatter: batch {batch} writes positions {write[batch]}..{pos[-1]} of a "
                             f"cache of {capacity} (mode linear)")
        dst = np.moveaxis(out[batch], axis - 1, 0)  # a view: writing it writes out
        src = np.moveaxis(update[batch], axis - 1, 0)
        for j, p in enumerate(pos):  # in order, so a wrapped-around position keeps the last write
            dst[p] = src[j]
    return out
