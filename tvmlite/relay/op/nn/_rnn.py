"""numpy reference of nn.rnn (ONNX RNN, GRU, LSTM).

Per direction d and step t (gates in ONNX order: LSTM i, o, f, c; GRU z, r, h):
  RNN:  H = f(X W^T + H R^T + Wb + Rb)
  GRU:  z = f(X Wz^T + H Rz^T + b_z), r = f(X Wr^T + H Rr^T + b_r),
        h~ = g(X Wh^T + (r * H) Rh^T + Rbh + Wbh)          (linear_before_reset = 0)
        h~ = g(X Wh^T + r * (H Rh^T + Rbh) + Wbh)          (linear_before_reset = 1)
        H = (1 - z) * h~ + z * H
  LSTM: i = f(.. + Pi * C), f = f(.. + Pf * C) (1 - i with input_forget), c~ = g(..), C = f * C + i * c~,
        o = f(.. + Po * C_new), H = o * h(C)
clip bounds every activation's input to [-clip, clip]. A batch entry with sequence_lens[b] = L runs L steps (the
reverse direction starts at step L - 1); Y is 0 past them and Y_h / Y_c hold the state after the last.
"""
import numpy as np

from ..op import register_reference

# name -> (number of alpha/beta values it takes, default alpha, default beta, fn(x, alpha, beta))
_ACTIVATIONS = {
    "relu": (0, None, None, lambda x, a, b: np.maximum(x, 0)),
    "tanh": (0, None, None, lambda x, a, b: np.tanh(x)),
    "sigmoid": (0, None, None, lambda x, a, b: 1 / (1 + np.exp(-x))),
    "affine": (2, 1.0, 0.0, lambda x, a, b: a * x + b),
    "leakyrelu": (1, 0.01, None, lambda x, a, b: np.where(x >= 0, x, a * x)),
    "thresholdedrelu": (1, 1.0, None, lambda x, a, b: np.where(x > a, x, 0)),
    "scaledtanh": (2, 1.0, 1.0, lambda x, a, b: a * np.tanh(b * x)),
    "hardsigmoid": (2, 0.2, 0.5, lambda x, a, b: np.clip(a * x + b, 0, 1)),
    "elu": (1, 1.0, None, lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1))),
    "softsign": (0, None, None, lambda x, a, b: x / (1 + np.abs(x))),
    "softplus": (0, None, None, lambda x, a, b: np.log1p(np.exp(x))),
}
_DEFAULTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _activation_fns(attrs, dirs):
    names = [n for n in attrs.activations.split(",") if n] or _DEFAULTS[attrs.mode] * dirs
    per_dir = len(_DEFAULTS[attrs.mode])
    if len(names) == per_dir and dirs == 2:
        names = names * 2
    if len(names) != per_dir * dirs:
        raise ValueError(f"{attrs.mode} takes {per_dir * dirs} activations, got {len(names)}")
    alphas, betas = list(attrs.activation_alpha), list(attrs.activation_beta)
    fns = []
    for name in names:
        entry = _ACTIVATIONS.get(name.lower())
        if entry is None:
            raise ValueError(f"unknown activation '{name}'")
        count, a, b, fn = entry
        if count >= 1 and alphas:
            a = alphas.pop(0)
        if count >= 2 and betas:
            b = betas.pop(0)
        fns.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    return [fns[d * per_dir:(d + 1) * per_dir] for d in range(dirs)]


@register_reference("nn.rnn")
def _rnn(attrs, x, w, r, b, seq_lens, h0, c0, p):
    absent = lambda v: isinstance(v, tuple) and len(v) == 0  # noqa: E731
    mode, hidden = attrs.mode, attrs.hidden_size
    dirs = 2 if attrs.direction == "bidirectional" else 1
    gates = _GATES[mode]
    dtype = x.dtype
    if attrs.layout:
        x = np.swapaxes(x, 0, 1)
        h0 = h0 if absent(h0) else np.swapaxes(h0, 0, 1)
        c0 = c0 if absent(c0) else np.swapaxes(c0, 0, 1)
    seq, batch, _ = x.shape
    b = np.zeros((dirs, 2 * gates * hidden), dtype) if absent(b) else b
    h0 = np.zeros((dirs, batch, hidden), dtype) if absent(h0) else h0
    c0 = np.zeros((dirs, batch, hidden), dtype) if absent(c0) else c0
    p = np.zeros((dirs, 3 * hidden), dtype) if absent(p) else p
    lens = np.full(batch, seq, np.int64) if absent(seq_lens) else np.asarray(seq_lens, np.int64)
    if lens.shape != (batch,) or (lens < 0).any() or (lens > seq).any():
        raise ValueError(f"sequence_lens {lens.tolist()} must be {batch} values in [0, {seq}]")
    clip = attrs.clip if attrs.clip > 0 else None
    acts = _activation_fns(attrs, dirs)
    y = np.zeros((seq, dirs, batch, hidden), dtype)
    y_h = np.zeros((dirs, batch, hidden), dtype)
    y_c = np.zeros((dirs, batch, hidden), dtype)
    for d in range(dirs):
        reverse = attrs.direction == "reverse" or d == 1
        fns = [lambda v, f=f: f(np.clip(v, -clip, clip) if clip else v) for f in acts[d]]
        wb, rb = b[d, :gates * hidden], b[d, gates * hidden:]
        h, c = h0[d].copy(), c0[d].copy()
        for t in range(seq):
            active = t < lens  # per batch entry: this step is inside its sequence
            if not active.any():
                break
            idx = np.where(reverse, lens - 1 - t, t).clip(0, seq - 1)
            xt = x[idx, np.arange(batch)]
            h_new, c_new = _cell(mode, fns, xt, h, c, w[d], r[d], wb, rb, p[d], hidden, attrs)
            h = np.where(active[:, None], h_new, h).astype(dtype)
            c = np.where(active[:, None], c_new, c).astype(dtype)
            for bi in np.nonzero(active)[0]:
                y[idx[bi], d, bi] = h[bi]
        y_h[d], y_c[d] = h, c
    outs = [y, y_h] + ([y_c] if mode == "LSTM" else [])
    if attrs.layout:
        outs = [np.ascontiguousarray(np.transpose(outs[0], (2, 0, 1, 3)))] + \
               [np.ascontiguousarray(np.swapaxes(o, 0, 1)) for o in outs[1:]]
    return tuple(o.astype(dtype) for o in outs)


def _cell(mode, fns, xt, h, c, w, r, wb, rb, p, hidden, attrs):
    gx = xt @ w.T + wb
    if mode == "RNN":
        return fns[0](gx + h @ r.T + rb), c
    if mode == "GRU":
        f, g = fns
        gh = h @ r.T  # (batch, 3 hidden): z, r, h parts
        z = f(gx[:, :hidden] + gh[:, :hidden] + rb[:hidden])
        rr = f(gx[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden] + rb[hidden:2 * hidden])
        rh = r[2 * hidden:]
        if attrs.linear_before_reset:
            hh = g(gx[:, 2 * hidden:] + rr * (h @ rh.T + rb[2 * hidden:]))
        else:
            hh = g(gx[:, 2 * hidden:] + (rr * h) @ rh.T + rb[2 * hidden:])
        return (1 - z) * hh + z * h, c
    f, g, hf = fns
    pre = gx + h @ r.T + rb
    pi, po, pf = p[:hidden], p[hidden:2 * hidden], p[2 * hidden:]
    i = f(pre[:, :hidden] + pi * c)
    fg = 1 - i if attrs.input_forget else f(pre[:, 2 * hidden:3 * hidden] + pf * c)
    cc = g(pre[:, 3 * hidden:])
    c_new = fg * c + i * cc
    o = f(pre[:, hidden:2 * hidden] + po * c_new)
    return o * hf(c_new), c_new
