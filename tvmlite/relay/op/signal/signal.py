"""Signal op builders: ``relay.signal.dft``, ``stft``, ``window``, ``mel_weight_matrix`` (csrc/relay/op/signal/).

Complex tensors are real tensors with a trailing dim of 2 (real, imaginary); real signals have a trailing 1.
Scalar arguments may be expressions (known at run time: the sizes they set are symbolic) or ints (made constants
and also passed as the static sizes in the attrs).
"""
import numpy as np

from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from ....runtime import DataType
from ....ir.expr import RelayExpr as Expr
from ...expr import const
from . import _make

__all__ = ["dft", "stft", "window", "mel_weight_matrix"]


def _omitted():
    return const(np.zeros((0,), dtype="int64"))


def _scalar(value, dtype):
    """(expression, static int or None) of a scalar argument."""
    if value is None:
        return _omitted(), None
    if isinstance(value, Expr):
        return value, None
    return const(np.asarray(value, dtype=dtype)), int(value)


def dft(data, dft_length=None, axis=1, inverse=False, onesided=False, static_dft_length=None):
    """DFT of data (..., 1|2) along axis (an int, or a scalar expression known at run time).

    onesided forward: the first dft_length // 2 + 1 bins of a real signal; onesided inverse: the real signal of a
    onesided spectrum (default length 2 * (n - 1)). dft_length pads or truncates the signal.
    """
    length, static_length = _scalar(dft_length, "int64")
    if static_dft_length is not None:
        static_length = int(static_dft_length)
    if isinstance(axis, Expr):
        axis_expr, static_axis = axis, None
    else:
        axis_expr, static_axis = _omitted(), int(axis)
    return _make.dft(data, length, axis_expr, bool(inverse), bool(onesided), static_axis, static_length)


def stft(signal, frame_step, window=None, frame_length=None, onesided=True):
    """Short-time Fourier transform of signal (batch, length, 1|2): (batch, frames, bins, 2)."""
    step, static_step = _scalar(frame_step, "int64")
    length, static_length = _scalar(frame_length, "int64")
    if window is None:
        window = const(np.zeros((0,), dtype="float32"))
    return _make.stft(signal, step, window, length, bool(onesided), static_step, static_length)


def window(size, kind="hann", periodic=True, dtype="float32"):
    """A "hann", "hamming" or "blackman" window of `size` points (periodic: of size + 1 points, the last dropped)."""
    size_expr, static_size = _scalar(size, "int64")
    return _make.window(size_expr, kind, bool(periodic), DataType(dtype), static_size)


def mel_weight_matrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype="float32"):
    """The (dft_length // 2 + 1, num_mel_bins) matrix of triangular mel filters."""
    bins, static_bins = _scalar(num_mel_bins, "int64")
    length, static_length = _scalar(dft_length, "int64")
    rate, _ = _scalar(sample_rate, "int64")
    lo = lower_edge_hertz if isinstance(lower_edge_hertz, Expr) else const(np.float32(lower_edge_hertz))
    hi = upper_edge_hertz if isinstance(upper_edge_hertz, Expr) else const(np.float32(upper_edge_hertz))
    return _make.mel_weight_matrix(bins, length, rate, lo, hi, DataType(dtype), static_bins, static_length)


@register_object("relay.attrs.DFTAttrs")
class DFTAttrs(Attrs):
    """Attributes of signal.dft."""


@register_object("relay.attrs.STFTAttrs")
class STFTAttrs(Attrs):
    """Attributes of signal.stft."""


@register_object("relay.attrs.WindowAttrs")
class WindowAttrs(Attrs):
    """Attributes of signal.window."""


@register_object("relay.attrs.MelWeightMatrixAttrs")
class MelWeightMatrixAttrs(Attrs):
    """Attributes of signal.mel_weight_matrix."""
