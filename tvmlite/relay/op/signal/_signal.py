"""numpy references of the signal ops (signal.py), written from the ONNX specs of DFT, STFT, the windows and
MelWeightMatrix. Transforms run in the input's precision (complex64 for float32 and narrower, complex128 for
float64) and return the input's dtype."""
import numpy as np

from ..op import register_reference


def _scalar_int(value, what):
    value = np.asarray(value).reshape(-1)
    if value.size != 1:
        raise ValueError(f"{what} must be a scalar, got {value.size} values")
    return int(value[0])


def _as_complex(data):
    ctype = np.complex128 if data.dtype == np.float64 else np.complex64
    if data.shape[-1] == 2:
        z = np.empty(data.shape[:-1], dtype=ctype)
        z.real, z.imag = data[..., 0], data[..., 1]
        return z
    if data.shape[-1] == 1:
        return data[..., 0].astype(ctype)
    raise ValueError(f"the last dim must be 1 (real) or 2 (complex), got shape {data.shape}")


def _as_pairs(z, dtype):
    return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def _dft(attrs, data, dft_length, axis):
    r = data.ndim
    ax = attrs.axis if attrs.axis is not None else _scalar_int(axis, "axis")
    if not (-r <= ax <= -2 or 0 <= ax <= r - 2):
        raise ValueError(f"axis {ax} is out of range for shape {data.shape}")
    ax = ax + r if ax < 0 else ax
    x = _as_complex(data)
    irfft = attrs.inverse and attrs.onesided
    if np.size(dft_length):
        n = _scalar_int(dft_length, "dft_length")
    elif attrs.dft_length is not None:
        n = int(attrs.dft_length)
    else:
        n = 2 * (x.shape[ax] - 1) if irfft else x.shape[ax]
    if n < 1:
        raise ValueError(f"dft_length {n} must be >= 1")
    if irfft:
        return np.fft.irfft(x, n=n, axis=ax)[..., None].astype(data.dtype)
    if attrs.inverse:
        return _as_pairs(np.fft.ifft(x, n=n, axis=ax), data.dtype)
    y = np.fft.fft(x, n=n, axis=ax)
    if attrs.onesided:
        y = np.take(y, np.arange(n // 2 + 1), axis=ax)
    return _as_pairs(y, data.dtype)


register_reference("signal.dft", _dft)


def _stft(attrs, signal, frame_step, window, frame_length):
    x = _as_complex(signal)  # (B, L)
    length = x.shape[1]
    step = _scalar_int(frame_step, "frame_step")
    if np.size(frame_length):
        fl = _scalar_int(frame_length, "frame_length")
    else:
        fl = window.shape[0] if window.size else length
    if window.size and window.shape[0] != fl:
        raise ValueError(f"window length {window.shape[0]} differs from frame_length {fl}")
    if step < 1 or fl < 1 or fl > length:
        raise ValueError(f"frame_step {step} and frame_length {fl} do not fit a signal of {length}")
    w = window.astype(x.real.dtype) if window.size else np.ones(fl, dtype=x.real.dtype)
    frames = (length - fl) // step + 1
    starts = np.arange(frames) * step
    segments = x[:, starts[:, None] + np.arange(fl)[None, :]] * w  # (B, frames, fl)
    y = np.fft.fft(segments, n=fl, axis=-1)
    if attrs.onesided:
        y = y[..., : fl // 2 + 1]
    return _as_pairs(y, signal.dtype)


register_reference("signal.stft", _stft)


_WINDOW_TERMS = {  # w[k] = sum_i a_i cos(2 pi i k / N)
    "hann": (0.5, -0.5),
    "hamming": (25 / 46, -21 / 46),
    "blackman": (0.42, -0.5, 0.08),
}


def _window(attrs, size):
    n = _scalar_int(size, "size")
    if n < 0:
        raise ValueError(f"size {n} must be >= 0")
    denominator = n if attrs.periodic else n - 1
    k = np.arange(n, dtype=np.float64)
    if denominator <= 0:
        w = np.ones(n)
    else:
        w = sum(a * np.cos(2 * np.pi * i * k / denominator) for i, a in enumerate(_WINDOW_TERMS[attrs.kind]))
    return w.astype(str(attrs.dtype))


register_reference("signal.window", _window)


def _mel_weight_matrix(attrs, num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz):
    bins = _scalar_int(num_mel_bins, "num_mel_bins")
    n = _scalar_int(dft_length, "dft_length")
    rate = _scalar_int(sample_rate, "sample_rate")
    lo = float(np.asarray(lower_edge_hertz).reshape(-1)[0])
    hi = float(np.asarray(upper_edge_hertz).reshape(-1)[0])
    if bins < 1 or n < 1 or rate < 1:
        raise ValueError(f"num_mel_bins {bins}, dft_length {n} and sample_rate {rate} "
                         f"must be >= 1")
    spectrogram_bins = n // 2 + 1

    def mel(f):
        return 2595 * np.log10(1 + f / 700)

    # num_mel_bins + 2 edges equally spaced in mel, mapped to DFT bins (the reference's spacing: the mel range
    # divided by the edge count).
    lo_mel, hi_mel = mel(lo), mel(hi)
    edges = np.arange(bins + 2) * ((hi_mel - lo_mel) / (bins + 2)) + lo_mel
    hz = 700 * (np.power(10, edges / 2595) - 1)
    edges = (((n + 1) * hz) // rate).astype(np.int64)
    out = np.zeros((spectrogram_bins, bins))
    for i in range(bins):
        left, center, right = edges[i], edges[i + 1], edges[i + 2]
        if center == left:
            if 0 <= center < spectrogram_bins:
                out[center, i] = 1
        else:
            for j in range(max(left, 0), min(center + 1, spectrogram_bins)):
                out[j, i] = (j - left) / (center - left)
        if right > center:
            for j in range(max(center, 0), min(right, spectrogram_bins)):
                out[j, i] = (right - j) / (right - center)
    return out.astype(str(attrs.dtype))


register_reference("signal.mel_weight_matrix", _mel_weight_matrix)
