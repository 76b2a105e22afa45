"""Optimizer steps (csrc/relay/op/training/optimizer.cc): ``relay.training.adam(R, T, xs, gs, vs, hs)``.

Each returns a Tuple: the new values of the optimized tensors, then their new states, in ONNX's output order.
"""
from . import _make
from . import _training  # noqa: F401  (registers the references)

__all__ = ["adagrad", "adam", "momentum"]


def _inputs(r, t, *groups):
    sizes = {len(g) for g in groups}
    if len(sizes) != 1:
        raise ValueError(f"every group of tensors must have the same length, got {[len(g) for g in groups]}")
    return [r, t] + [x for g in groups for x in g]


def adagrad(r, t, xs, gs, hs, norm_coefficient=0.0, epsilon=1e-6, decay_factor=0.0):
    """One Adagrad step: (X'..., H'...)."""
    return _make.adagrad(_inputs(r, t, xs, gs, hs), norm_coefficient, 0.0, 0.9, 0.999, epsilon, decay_factor)


def adam(r, t, xs, gs, vs, hs, norm_coefficient=0.0, norm_coefficient_post=0.0, alpha=0.9, beta=0.999,
         epsilon=1e-6):
    """One Adam step: (X'..., V'..., H'...)."""
    return _make.adam(_inputs(r, t, xs, gs, vs, hs), norm_coefficient, norm_coefficient_post, alpha, beta, epsilon)


def momentum(r, t, xs, gs, vs, norm_coefficient=0.0, alpha=0.9, beta=1.0, mode="standard"):
    """One SGD-with-momentum step, standard or Nesterov: (X'..., V'...)."""
    return _make.momentum(_inputs(r, t, xs, gs, vs), norm_coefficient, 0.0, alpha, beta, 1e-6, 0.0, mode)
