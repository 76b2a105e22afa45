"""numpy references of the image ops (image.py), written from the ONNX specs of Resize, GridSample, AffineGrid.

Resize is separable: each resized axis is an (out_len x in_len) weight matrix applied with a tensordot, so
nearest, linear, cubic and their antialiased forms differ only in how one matrix row is built. A row takes the n
input positions nearest the original coordinate x (edge-clamped) with the mode's coefficients, as the spec's
reference does: with f = floor(x) and ratio = x - f (ratio 0 counts as 1 from the position below), linear uses
f, f+1; cubic f-1..f+2; antialiasing widens the filter by 1/scale when downsampling.
"""
import itertools
import math

import numpy as np

from ...._ffi.registry import get_global_func
from ..op import register_reference

#: The output-size arithmetic (ONNX Resize's, one place for every caller): csrc/topi/image/resize_geometry.cc.
_resize_output_shape = get_global_func("topi.image.resize_output_shape")
_resize_static_output_size = get_global_func("topi.image.resize_static_output_size")


def _values(v, dtype):
    """v (a sequence or an array) as a flat list of Python numbers of dtype; None stays None."""
    return None if v is None else np.asarray(v, dtype=dtype).reshape(-1).tolist()


def resize_output_shape(shape, axes, roi, scales, sizes, policy, coordinate_transformation_mode):
    """(output shape, resized axes, scale per resized axis) of ONNX Resize for a static input shape; also used by
    the frontend when scales/sizes are constants. sizes is used when given and not empty, else scales."""
    use_sizes = sizes is not None and len(sizes)
    out, scale = _resize_output_shape(
        [int(d) for d in shape], [int(a) for a in axes or ()], _values(roi, np.float64) or [],
        [] if use_sizes else _values(scales, np.float32) or [], _values(sizes, np.int64) if use_sizes else [],
        policy, coordinate_transformation_mode)
    rank = len(shape)
    axes = [a + rank if a < 0 else a for a in (axes or range(rank))]
    return [int(d) for d in out], axes, [float(scale[a]) for a in axes]


def static_output_size(shape, axes, roi, scales, sizes, policy, coordinate_transformation_mode):
    """Resize's output shape as its ``output_size`` attr (-1 for a dim known only at run time) when scales or sizes
    are known (numpy arrays; None when absent or not constant), else (). shape has None for symbolic dims. The
    frontend uses it when scales/sizes are constants at import, DynamicToStatic (in C++) once build has bound them."""
    out = _resize_static_output_size(
        [-1 if d is None else int(d) for d in shape], [int(a) for a in axes or ()], _values(roi, np.float64),
        _values(scales, np.float32), _values(sizes, np.int64), policy, coordinate_transformation_mode)
    return () if out is None else [int(d) for d in out]


def _original_coords(mode, in_len, out_len, scale, roi_start, roi_end):
    """The original coordinate of each output position. As in the spec's reference, `width` (the target
    length) is in_len * scale, fractional when it comes from a scale; out_len is its integer part."""
    x = np.arange(out_len, dtype=np.float64)
    width = in_len * scale
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adjustment = out_len / width if width else 1.0
        offset = in_len / 2 * (1 - adjustment)
        return offset + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if width > 1 else np.zeros_like(x)
    if mode == "align_corners":
        return x * (in_len - 1) / (width - 1) if width != 1 else np.zeros_like(x)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    # tf_crop_and_resize
    if width != 1:
        return roi_start * (in_len - 1) + x * (roi_end - roi_start) * (in_len - 1) / (width - 1)
    return np.full_like(x, 0.5 * (roi_start + roi_end) * (in_len - 1))


def _cubic(ratio, a):
    return np.array([
        ((a * (ratio + 1) - 5 * a) * (ratio + 1) + 8 * a) * (ratio + 1) - 4 * a,
        ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
        ((a + 2) * (1 - ratio) - (a + 3)) * (1 - ratio) * (1 - ratio) + 1,
        ((a * ((1 - ratio) + 1) - 5 * a) * ((1 - ratio) + 1) + 8 * a) * ((1 - ratio) + 1) - 4 * a,
    ])


def _cubic_kernel(x, a):
    x = np.abs(x)
    return np.where(x <= 1, (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1,
                    np.where(x < 2, a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a, 0.0))


def _row(x, attrs, scale, in_len):
    """(input positions, coefficients) of one output position at original coordinate x."""
    f = math.floor(x)
    ratio = x - f
    if ratio == 0:
        f, ratio = f - 1, 1.0
    mode = attrs.mode
    if mode == "nearest":
        nm = attrs.nearest_mode
        if ratio == 1.0:
            up = True
        elif nm == "round_prefer_floor":
            up = ratio > 0.5
        elif nm == "round_prefer_ceil":
            up = ratio >= 0.5
        else:
            up = nm == "ceil"
        return np.array([f + 1 if up else f]), np.ones(1)
    s = min(scale, 1.0) if attrs.antialias else 1.0
    if mode == "linear":
        if s < 1.0:
            start = int(math.floor(-1 / s) + 1)
            offsets = np.arange(start, 2 - start)
            coeffs = np.clip(1 - np.abs((offsets - ratio) * s), 0, 1)
            coeffs = coeffs / coeffs.sum()
        else:
            offsets, coeffs = np.array([0, 1]), np.array([1 - ratio, ratio])
    else:
        if s < 1.0:
            start = int(math.floor(-2 / s) + 1)
            offsets = np.arange(start, 2 - start)
            coeffs = _cubic_kernel((offsets - ratio) * s, attrs.cubic_coeff_a)
            coeffs = coeffs / coeffs.sum()
        else:
            offsets, coeffs = np.arange(-1, 3), _cubic(ratio, attrs.cubic_coeff_a)
    idx = f + offsets
    if attrs.exclude_outside:
        coeffs = np.where((idx < 0) | (idx >= in_len), 0.0, coeffs)
        total = coeffs.sum()
        coeffs = coeffs / total if total != 0 else coeffs
    return idx, coeffs


def _resize_axis(data, axis, out_len, scale, attrs, roi_start, roi_end):
    in_len = data.shape[axis]
    ctm = attrs.coordinate_transformation_mode
    coords = _original_coords(ctm, in_len, out_len, scale, roi_start, roi_end)
    weights = np.zeros((out_len, in_len), dtype=np.float64)
    outside = np.zeros(out_len, dtype=bool)
    for o, x in enumerate(coords):
        if ctm == "tf_crop_and_resize" and (x < 0 or x > in_len - 1):
            outside[o] = True
            continue
        idx, coeffs = _row(float(x), attrs, scale, in_len)
        np.add.at(weights[o], np.clip(idx, 0, in_len - 1), coeffs)
    moved = np.moveaxis(data.astype(np.float64), axis, 0)
    out = np.tensordot(weights, moved, axes=(1, 0))
    out[outside] = attrs.extrapolation_value
    return np.moveaxis(out, 0, axis)


def _resize(attrs, data, roi, scales, sizes):
    if data.ndim == 0:
        raise ValueError("data must have rank >= 1")
    ctm = attrs.coordinate_transformation_mode
    use_sizes = sizes.size > 0
    if not use_sizes and scales.size == 0:
        raise ValueError("one of scales and sizes must be given")
    out_shape, axes, scale = resize_output_shape(
        data.shape, list(attrs.axes), roi, None if use_sizes else scales, sizes if use_sizes else None,
        attrs.keep_aspect_ratio_policy, ctm)
    n = len(axes)
    roi = np.asarray(roi, dtype=np.float64).reshape(-1)
    if ctm == "tf_crop_and_resize" and roi.size != 2 * n:
        raise ValueError(f"roi has {roi.size} values, expected {2 * n} for tf_crop_and_resize")
    if any(d == 0 for d in data.shape) and any(out_shape[a] for a in axes):
        raise ValueError(f"cannot resize an empty input of shape {data.shape}")
    out = data
    for i, (a, s) in enumerate(zip(axes, scale)):
        if out_shape[a] == data.shape[a] and s == 1.0 and ctm != "tf_crop_and_resize":
            continue  # the identity on this axis (every mode's coordinates map position i to i)
        start, end = (roi[i], roi[n + i]) if roi.size == 2 * n else (0.0, 1.0)
        out = _resize_axis(out, a, out_shape[a], s, attrs, start, end)
    return np.asarray(out).astype(data.dtype)


register_reference("image.resize", _resize)


# -- grid_sample / affine_grid -------------------------------------------------------------------------------------
def _reflect(x, lo, hi):
    """Reflect x by the nearer border until it lies in [lo, hi] (the spec's reference, elementwise)."""
    rng = hi - lo
    out = np.array(x, dtype=np.float64)
    if rng <= 0:
        return np.full_like(out, lo)
    below, above = out < lo, out > hi
    for mask, base, other, sign in ((below, lo, hi, 1), (above, hi, lo, -1)):
        dx = np.abs(out[mask] - base)
        k = np.floor(dx / rng)
        r = dx - k * rng
        out[mask] = np.where(k % 2 == 0, base + sign * r, other - sign * r)
    return out


def _grid_sample(attrs, data, grid):
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(attrs.mode, attrs.mode)
    padding, align = attrs.padding_mode, bool(attrs.align_corners)
    n, c = data.shape[:2]
    dims = data.shape[2:]
    r = len(dims)
    out_spatial = grid.shape[1:-1]
    if grid.shape[-1] != r or grid.shape[0] != n:
        raise ValueError(f"grid {grid.shape} does not fit data {data.shape}")
    result = np.zeros((n, c) + tuple(out_spatial), dtype=np.float64)
    if result.size == 0:
        return result.astype(data.dtype)
    # Per spatial axis d: the coordinate of each output point in input pixels.
    coords = []
    for d in range(r):
        g = grid[..., r - 1 - d].astype(np.float64)  # grid holds x (last axis) first
        length = dims[d]
        x = (g + 1) / 2 * (length - 1) if align else ((g + 1) * length - 1) / 2
        lo, hi = (0.0, length - 1.0) if align else (-0.5, length - 0.5)
        if mode == "nearest":
            x = np.rint(x)
        outside = (x < lo) | (x > hi)
        if padding == "border":
            x = np.where(outside, np.clip(x, 0, length - 1), x)
        elif padding == "reflection":
            x = np.where(outside, _reflect(x, lo, hi), x)
        coords.append((x, lo, hi))

    def fetch_index(i, d):
        """(clamped index, valid mask) of integer positions i on axis d under the padding mode."""
        length = dims[d]
        lo, hi = coords[d][1], coords[d][2]
        if padding == "zeros":
            valid = (i >= 0) & (i < length)
            return np.clip(i, 0, max(length - 1, 0)), valid
        if padding == "border":
            return np.clip(i, 0, length - 1), np.ones(i.shape, dtype=bool)
        return np.clip(_reflect(i, lo, hi).astype(np.int64), 0, length - 1), np.ones(i.shape, dtype=bool)

    taps = []  # per axis: list of (index, valid, weight) arrays, each shaped (N, O1..Or)
    for d in range(r):
        x = coords[d][0]
        if mode == "nearest":
            i = x.astype(np.int64)
            idx, valid = fetch_index(i, d)
            taps.append([(idx, valid, np.ones_like(x))])
            continue
        f = np.floor(x)
        t = x - f
        f = f.astype(np.int64)
        if mode == "linear":
            ws = [(0, 1 - t), (1, t)]
        else:
            a = -0.75
            ws = [(-1, ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a),
                  (0, ((a + 2) * t - (a + 3)) * t * t + 1),
                  (1, ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1),
                  (2, ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a)]
        axis_taps = []
        for off, w in ws:
            idx, valid = fetch_index(f + off, d)
            axis_taps.append((idx, valid, w))
        taps.append(axis_taps)
    batch = np.broadcast_to(np.arange(n).reshape((n,) + (1,) * r), (n,) + tuple(out_spatial))
    channels_last = np.moveaxis(data, 1, -1)
    for combo in itertools.product(*taps):
        weight = np.ones((n,) + tuple(out_spatial))
        valid = np.ones((n,) + tuple(out_spatial), dtype=bool)
        for _, ok, w in combo:
            weight = weight * w
            valid &= ok
        vals = channels_last[(batch,) + tuple(idx for idx, _, _ in combo)]  # (N, O1..Or, C)
        vals = np.where(valid[..., None], vals, 0).astype(np.float64)
        result += np.moveaxis(vals * weight[..., None], -1, 1)
    return result.astype(data.dtype)


register_reference("image.grid_sample", _grid_sample)


def _affine_grid(attrs, theta, size):
    size = [int(s) for s in np.asarray(size).reshape(-1)]
    n, r = theta.shape[0], theta.shape[1]
    if len(size) != r + 2 or size[0] != n or any(s < 0 for s in size):
        raise ValueError(f"size {size} does not fit theta of shape {theta.shape}")
    spatial = size[2:]
    axes = []
    for length in spatial:
        if attrs.align_corners:
            axes.append(np.linspace(-1.0, 1.0, length) if length > 1 else np.zeros(length))  # 1 point: centre
        else:
            axes.append((2 * np.arange(length, dtype=np.float64) + 1) / length - 1)
    mesh = np.meshgrid(*axes, indexing="ij")  # D1..Dr, each along its own axis
    # Homogeneous base coordinates, x (the last spatial axis) first: (D1..Dr, r + 1).
    base = np.stack([mesh[r - 1 - i] for i in range(r)] + [np.ones(tuple(spatial))], axis=-1)
    grid = np.einsum("...k,njk->n...j", base, theta.astype(np.float64))
    return grid.astype(theta.dtype)


register_reference("image.affine_grid", _affine_grid)
