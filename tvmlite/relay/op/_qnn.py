"""numpy references of the quantization ops (qnn.py), ONNX semantics:

quantize:   integer targets: clip(round_half_even(x / scale) + zero_point) to the type's range; float8: x / scale
            cast with round-to-nearest-even, clamped to the finite range when saturate; float4: x / scale cast.
dequantize: (x - zero_point) * scale, computed in float32, cast to out_dtype.
Scales broadcast per tensor (one value), per axis (1-D along axis) or per block (repeated block_size times along
axis, the last block cropped).
"""
import numpy as np

from ..backend.dtypes import to_numpy_dtype
from .op import register_reference

_INT_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
               "uint4": (0, 15), "int4": (-8, 7), "uint2": (0, 3), "int2": (-2, 1), "int32": (-2**31, 2**31 - 1)}


def _absent(x):
    return isinstance(x, tuple) and len(x) == 0


def _broadcast_param(value, shape, axis, block_size):
    value = np.asarray(value)
    if value.size == 1 and block_size <= 0:
        return value.reshape(())
    axis = axis + len(shape) if axis < 0 else axis
    if block_size <= 0:
        if value.ndim != 1 or value.shape[0] != shape[axis]:
            raise ValueError(f"per-axis parameter of shape {value.shape} does not match dim {axis} of {shape}")
        dims = [1] * len(shape)
        dims[axis] = value.size
        return value.reshape(dims)
    value = np.repeat(value, block_size, axis=axis)
    value = value.take(range(shape[axis]), axis=axis)
    if value.shape != tuple(shape):
        raise ValueError(f"blocked parameter does not fit input shape {tuple(shape)}")
    return value


@register_reference("qnn.quantize")
def _quantize(attrs, x, scale, zero_point):
    out = str(attrs.out_dtype)
    scale = _broadcast_param(scale, x.shape, attrs.axis, attrs.block_size)
    zp = None if _absent(zero_point) else _broadcast_param(zero_point, x.shape, attrs.axis, attrs.block_size)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = x / scale
    if out in _INT_RANGES:
        lo, hi = _INT_RANGES[out]
        yi = np.rint(y.astype(np.float64))
        if zp is not None:
            yi = yi + zp.astype(np.float64)
        return np.clip(yi, lo, hi).astype(to_numpy_dtype(out))
    target = to_numpy_dtype(out)
    y = y.astype(np.float32)
    if out.startswith("float8"):
        if attrs.saturate:
            import ml_dtypes

            fmax = float(ml_dtypes.finfo(target).max)
            y = np.clip(y, -fmax, fmax)  # NaN stays NaN
        return y.astype(target)
    if zp is not None:
        y = y + zp.astype(np.float32)
    return y.astype(target)


@register_reference("qnn.dequantize")
def _dequantize(attrs, x, scale, zero_point):
    scale = _broadcast_param(scale, x.shape, attrs.axis, attrs.block_size)
    dx = x.astype(np.float32)
    if not _absent(zero_point):
        dx = dx - _broadcast_param(zero_point, x.shape, attrs.axis, attrs.block_size).astype(np.float32)
    return (dx * scale).astype(to_numpy_dtype(attrs.out_dtype))


@register_reference("qnn.dynamic_quantize")
def _dynamic_quantize(attrs, x):
    x_min = np.minimum(np.float32(0), x.min()) if x.size else np.float32(0)
    x_max = np.maximum(np.float32(0), x.max()) if x.size else np.float32(0)
    scale = np.float32((x_max - x_min) / np.float32(255))
    if scale == 0:
        return np.zeros(x.shape, np.uint8), np.array(scale, np.float32), np.array(0, np.uint8)
    zp = np.uint8(np.clip(np.rint(np.float32(0) - x_min / scale), 0, 255))
    y = np.clip(np.rint(x / scale) + zp, 0, 255).astype(np.uint8)
    return y, np.array(scale, np.float32), np.array(zp, np.uint8)


def _requantize(acc, scale, y_zero_point):
    dtype = y_zero_point.dtype
    d = acc * scale + y_zero_point
    lo, hi = _INT_RANGES[dtype.name]
    return np.clip(np.rint(d), lo, hi).astype(dtype)


@register_reference("qnn.qlinear_matmul")
def _qlinear_matmul(attrs, a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp):
    # int32 accumulation of zero-point-shifted operands, rescaled by a_scale * b_scale / y_scale (per row of a /
    # column of b for 1-D parameters).
    A = a.astype(np.int32) - _rows(a_zp, a.ndim, -2).astype(np.int32)
    B = b.astype(np.int32) - _rows(b_zp, b.ndim, -1).astype(np.int32)
    acc = np.matmul(A, B)
    scale = _rows(a_scale, acc.ndim, -2) * _rows(b_scale, acc.ndim, -1) / y_scale
    return _requantize(acc, scale, y_zp)


def _rows(p, ndim, axis):
    """A scalar or 1-D quantization parameter shaped to broadcast along axis (-2 rows, -1 columns)."""
    p = np.asarray(p)
    if p.size == 1:
        return p.reshape(())
    dims = [1] * max(ndim, 2)
    dims[axis] = p.size
    return p.reshape(dims)


def _conv_int(x, w, strides, pads, dilations, groups):
    """Direct N-d convolution in int64: x (N, C, *S), w (O, C/groups, *K)."""
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    nsp = x.ndim - 2
    pad_width = [(0, 0), (0, 0)] + [(pads[i], pads[nsp + i]) for i in range(nsp)]
    xp = np.pad(x, pad_width)
    kernel = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1 for i in range(nsp)]
    out = np.zeros((n, o) + tuple(out_sp), np.int64)
    og = o // groups
    for g in range(groups):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * og:(g + 1) * og]
        for k in np.ndindex(*kernel):
            sl = tuple(slice(k[i] * dilations[i], k[i] * dilations[i] + (out_sp[i] - 1) * strides[i] + 1, strides[i])
                       for i in range(nsp))
            patch = xg[(slice(None), slice(None)) + sl]  # (N, cg, *out)
            wk = wg[(slice(None), slice(None)) + tuple(k)]  # (og, cg)
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch, wk)
    return out


@register_reference("qnn.qlinear_conv")
def _qlinear_conv(attrs, x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias):
    nsp = x.ndim - 2
    X = x.astype(np.int64) - np.asarray(x_zp).astype(np.int64).reshape(())
    w_zp = np.asarray(w_zp).astype(np.int64)
    W = w.astype(np.int64) - (w_zp.reshape((-1,) + (1,) * (w.ndim - 1)) if w_zp.size > 1 else w_zp.reshape(()))
    if x.shape[1] != w.shape[1] * attrs.groups or w.shape[0] % attrs.groups:
        raise ValueError(f"channels of x {x.shape} and w {w.shape} do not fit groups={attrs.groups}")
    acc = _conv_int(X, W, list(attrs.strides), list(attrs.padding), list(attrs.dilation), attrs.groups)
    if not _absent(bias):
        acc = acc + bias.astype(np.int64).reshape((1, -1) + (1,) * nsp)
    acc = acc.astype(np.int32)
    w_scale = np.asarray(w_scale)
    if w_scale.size > 1:
        w_scale = w_scale.reshape((1, -1) + (1,) * nsp)
    scale = x_scale * w_scale / y_scale
    if _absent(y_zp):
        y_zp = np.zeros((), x.dtype)
    return _requantize(acc, scale, np.asarray(y_zp).reshape(()) if np.asarray(y_zp).size == 1 else y_zp)
