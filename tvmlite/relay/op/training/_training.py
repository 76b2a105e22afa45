"""numpy references of the optimizer steps, the ONNX spec's pseudo code per tensor (computed in float64, returned
in each tensor's dtype)."""
import numpy as np

from ..op import register_reference


def _groups(inputs, k):
    n = len(inputs) // k
    return [inputs[i * n:(i + 1) * n] for i in range(k)]


@register_reference("training.adagrad")
def _adagrad(attrs, r, t, *tensors):
    xs, gs, hs = _groups(tensors, 3)
    rate = float(r) / (1 + int(t) * attrs.decay_factor)
    new_x, new_h = [], []
    for x, g, h in zip(xs, gs, hs):
        g_reg = attrs.norm_coefficient * x.astype(np.float64) + g
        h_new = h + g_reg * g_reg
        new_x.append((x - rate * g_reg / (np.sqrt(h_new) + attrs.epsilon)).astype(x.dtype))
        new_h.append(h_new.astype(h.dtype))
    return tuple(new_x + new_h)


@register_reference("training.adam")
def _adam(attrs, r, t, *tensors):
    xs, gs, vs, hs = _groups(tensors, 4)
    a, b, step = attrs.alpha, attrs.beta, int(t)
    rate = float(r) * np.sqrt(1 - b ** step) / (1 - a ** step) if step > 0 else float(r)
    new_x, new_v, new_h = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs):
        g_reg = attrs.norm_coefficient * x.astype(np.float64) + g
        v_new = a * v + (1 - a) * g_reg
        h_new = b * h + (1 - b) * g_reg * g_reg
        x_new = x - rate * v_new / (np.sqrt(h_new) + attrs.epsilon)
        new_x.append(((1 - attrs.norm_coefficient_post) * x_new).astype(x.dtype))
        new_v.append(v_new.astype(v.dtype))
        new_h.append(h_new.astype(h.dtype))
    return tuple(new_x + new_v + new_h)


@register_reference("training.momentum")
def _momentum(attrs, r, t, *tensors):
    xs, gs, vs = _groups(tensors, 3)
    beta = attrs.beta if int(t) > 0 else 1.0
    new_x, new_v = [], []
    for x, g, v in zip(xs, gs, vs):
        g_reg = attrs.norm_coefficient * x.astype(np.float64) + g
        v_new = attrs.alpha * v + beta * g_reg
        step = g_reg + attrs.alpha * v_new if attrs.mode == "nesterov" else v_new
        new_x.append((x - float(r) * step).astype(x.dtype))
        new_v.append(v_new.astype(v.dtype))
    return tuple(new_x + new_v)
