"""Builders of the normalization, softmax, activation, dropout, attention and loss ops (csrc/relay/op/nn/
{normalization,activation,attention,loss}.cc), with TVM's signatures where TVM has the op.

Optional tensor inputs may be None; they reach the op as the empty tuple ``()``. Multi-output ops return a
TupleWrapper: ``relay.nn.batch_norm(...)[0]`` is the normalised tensor, ``.astuple()`` the tuple-typed call.
"""
from ... import expr as _expr
from . import _make
from .. import _make as _make_top
from ..transform import TupleWrapper  # the multi-output ops' result, relay.nn.TupleWrapper too

__all__ = ["TupleWrapper", "batch_norm", "layer_norm", "rms_norm", "instance_norm", "group_norm", "lrn",
           "lp_normalize", "mean_variance_normalization", "softmax", "log_softmax", "hardmax", "leaky_relu", "elu",
           "celu", "selu", "hard_sigmoid", "hard_swish", "thresholded_relu", "shrink", "swish", "gelu", "softplus",
           "softsign", "mish", "prelu", "clip", "dropout", "dropout_raw", "attention", "rotary_embedding",
           "nll_loss"]


def _opt(x):
    return _expr.Tuple([]) if x is None else x


def _scalar(value, dtype):
    return value if isinstance(value, _expr.RelayExpr) else _expr.const(value, dtype=dtype)


# -- normalization ---------------------------------------------------------------------------------------------
def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1e-5, center=True, scale=True,
               momentum=0.9, training=False):
    """Batch normalization on the channel axis: TupleWrapper (out, mean_out, var_out). Inference returns the
    moving statistics unchanged; training normalises with the batch statistics and returns running ones
    updated as running * momentum + batch * (1 - momentum) (the batch variance is the biased one)."""
    call = _make.batch_norm(data, gamma, beta, moving_mean, moving_var, int(axis), float(epsilon), bool(center),
                            bool(scale), float(momentum), bool(training))
    return TupleWrapper(call, 3)


def layer_norm(data, gamma, beta=None, axis=-1, epsilon=1e-5, stash_type="float32", return_stats=False):
    """Layer normalization over the axes [axis, ndim); beta None = no offset. Returns the normalised tensor, or
    with return_stats a TupleWrapper (out, mean, inv_std_dev) whose statistics have shape data[:axis] + 1s."""
    call = _make.layer_norm(data, gamma, _opt(beta), int(axis), float(epsilon), stash_type or "")
    wrapper = TupleWrapper(call, 3)
    return wrapper if return_stats else wrapper[0]


def rms_norm(data, gamma, axis=-1, epsilon=1e-5, stash_type="float32"):
    """data / sqrt(mean(data ** 2 over [axis, ndim)) + epsilon) * gamma, statistics in stash_type."""
    return _make.rms_norm(data, gamma, int(axis), float(epsilon), stash_type or "")


def instance_norm(data, gamma, beta, epsilon=1e-5):
    """Instance normalization of data (N, C, ...) with per-channel gamma and beta."""
    return _make.instance_norm(data, gamma, beta, float(epsilon))


def group_norm(data, gamma, beta, num_groups, epsilon=1e-5, stash_type="float32"):
    """Group normalization of data (N, C, ...): C split into num_groups; gamma and beta are per channel (C,)."""
    return _make.group_norm(data, gamma, beta, int(num_groups), float(epsilon), stash_type or "")


def lrn(data, size=5, axis=1, bias=2.0, alpha=1e-4, beta=0.75):
    """Local response normalization across `size` neighbouring channels on axis."""
    return _make.lrn(data, int(size), int(axis), float(bias), float(alpha), float(beta))


def lp_normalize(data, axis=-1, p=2):
    """data / ||data||_p along axis, p in {1, 2} (ONNX LpNormalization)."""
    return _make.lp_normalize(data, int(axis), int(p))


def mean_variance_normalization(data, axes=(0, 2, 3), epsilon=1e-9):
    """(data - mean) / (sqrt(variance) + epsilon) over axes (ONNX MeanVarianceNormalization)."""
    return _make.mean_variance_normalization(data, [int(a) for a in axes], float(epsilon))


def softmax(data, axis=-1, flatten=False):
    """Softmax along axis; with flatten, jointly over the axes [axis, ndim) (ONNX before opset 13)."""
    return _make.softmax(data, int(axis), bool(flatten))


def log_softmax(data, axis=-1, flatten=False):
    """Log of the softmax along axis (flatten as in softmax)."""
    return _make.log_softmax(data, int(axis), bool(flatten))


def hardmax(data, axis=-1, flatten=False):
    """1 at the first maximum along axis, 0 elsewhere (flatten as in softmax)."""
    return _make.hardmax(data, int(axis), bool(flatten))


# -- activations -------------------------------------------------------------------------------------------------
def leaky_relu(data, alpha=0.01):
    """data if data >= 0 else alpha * data."""
    return _make.leaky_relu(data, float(alpha), 0.0)


def elu(data, alpha=1.0):
    """data if data > 0 else alpha * (exp(data) - 1)."""
    return _make.elu(data, float(alpha), 0.0)


def celu(data, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _make.celu(data, float(alpha), 0.0)


def selu(data, alpha=1.67326319217681884765625, gamma=1.05070102214813232421875):
    """gamma * (x if x > 0 else alpha * (exp(x) - 1)) (stored as alpha, beta = gamma)."""
    return _make.selu(data, float(alpha), float(gamma))


def hard_sigmoid(data, alpha=0.2, beta=0.5):
    """max(0, min(1, alpha * x + beta))."""
    return _make.hard_sigmoid(data, float(alpha), float(beta))


def hard_swish(data):
    """x * max(0, min(1, x / 6 + 1 / 2))."""
    return _make.hard_swish(data)


def thresholded_relu(data, alpha=1.0):
    """x if x > alpha else 0."""
    return _make.thresholded_relu(data, float(alpha), 0.0)


def shrink(data, lambd=0.5, bias=0.0):
    """x - bias if x > lambd, x + bias if x < -lambd, else 0 (stored as alpha = lambd, beta = bias)."""
    return _make.shrink(data, float(lambd), float(bias))


def swish(data, alpha=1.0):
    """x * sigmoid(alpha * x)."""
    return _make.swish(data, float(alpha), 0.0)


def gelu(data, approximate="none"):
    """x * Phi(x): approximate "none" uses erf, "tanh" the tanh approximation."""
    return _make.gelu(data, str(approximate))


def softplus(data):
    """log(1 + exp(x))."""
    return _make.softplus(data)


def softsign(data):
    """x / (1 + |x|)."""
    return _make.softsign(data)


def mish(data):
    """x * tanh(softplus(x))."""
    return _make.mish(data)


def prelu(data, slope):
    """x if x >= 0 else slope * x; slope broadcasts to data (ONNX's unidirectional broadcasting)."""
    return _make.prelu(data, slope)


def _dtype_of(expr):
    """expr's dtype from its checked type or, for an untyped Var, its annotation; float32 when unknown."""
    try:
        return str(expr.checked_type.dtype)
    except Exception:  # noqa: BLE001 - untyped: the type is not known yet
        ann = getattr(expr, "type_annotation", None)
        return str(ann.dtype) if ann is not None and hasattr(ann, "dtype") else "float32"


def clip(data, a_min=None, a_max=None, dtype=None):
    """min(max(data, a_min), a_max); bounds are numbers, scalar expressions or None (no bound). dtype is the
    bounds' dtype when they are numbers (default: data's, read from its type)."""
    if dtype is None and not all(b is None or isinstance(b, _expr.RelayExpr) for b in (a_min, a_max)):
        dtype = _dtype_of(data)
    bounds = [_opt(None) if b is None else _scalar(b, dtype) for b in (a_min, a_max)]
    return _make_top.clip(data, *bounds)


def dropout_raw(data, ratio=0.5, training_mode=False, seed=None, mask_dtype="bool"):
    """Dropout as the op is: TupleWrapper (out, mask); ratio and training_mode are numbers or scalar
    expressions (float and bool); seed makes training mode reproducible; mask_dtype is bool or data's dtype."""
    ratio = _scalar(ratio, "float32")
    training_mode = _scalar(bool(training_mode) if not isinstance(training_mode, _expr.RelayExpr)
                            else training_mode, "bool")
    return TupleWrapper(_make.dropout(data, ratio, training_mode, None if seed is None else int(seed),
                                      str(mask_dtype)), 2)


def dropout(data, rate=0.5):
    """Inference dropout (TVM's relay.nn.dropout): the identity, as the first field of dropout_raw."""
    return dropout_raw(data, rate, False)[0]


# -- attention, losses --------------------------------------------------------------------------------------------
def attention(q, k, v, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None, q_num_heads=0,
              kv_num_heads=0, is_causal=False, scale=None, softcap=0.0, softmax_precision="",
              qk_matmul_output_mode=0, left_window_size=-1, right_window_size=-1):
    """Scaled dot-product attention (ONNX Attention): TupleWrapper (y, present_key, present_value,
    qk_matmul_output). See csrc/relay/op/nn/attention.cc for the layouts."""
    call = _make.attention(q, k, v, _opt(attn_mask), _opt(past_key), _opt(past_value), _opt(nonpad_kv_seqlen),
                           int(q_num_heads), int(kv_num_heads), bool(is_causal),
                           None if scale is None else float(scale), float(softcap), softmax_precision or "",
                           int(qk_matmul_output_mode), int(left_window_size), int(right_window_size))
    return TupleWrapper(call, 4)


def rotary_embedding(data, cos_cache, sin_cache, position_ids=None, interleaved=False, num_heads=0,
                     rotary_embedding_dim=0):
    """Rotary position embedding (ONNX RotaryEmbedding)."""
    return _make.rotary_embedding(data, cos_cache, sin_cache, _opt(position_ids), bool(interleaved),
                                  int(num_heads), int(rotary_embedding_dim))


def nll_loss(predictions, targets, weights=None, reduction="mean", ignore_index=None):
    """Negative log-likelihood loss of log-probabilities (N, C, d...) at integer targets (N, d...)."""
    return _make.nll_loss(predictions, targets, _opt(weights), str(reduction),
                          None if ignore_index is None else int(ignore_index))
