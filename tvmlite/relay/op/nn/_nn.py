"""numpy references of the nn ops (nn.py): convolution, transposed convolution, pooling, matrix products, einsum.

Algorithms (clear rather than fast; the debug executor is the oracle):
  conv:            zero-pad, then for every kernel offset take the strided slice of the padded input it meets
                   (shape (B, G, C/G, *S_out)) and contract it with that offset's filter taps (np.einsum);
  conv transpose:  the adjoint: scatter-add each offset's contribution into a full-size output, then crop the
                   padding (begin) and append zeros for output_padding;
  pooling:         pad (max: the dtype's lowest value; avg/lp: 0) far enough for every window incl. ceil_mode's
                   partial last one, gather all windows at once (one strided slice per offset), reduce. avg
                   divides by the count of window positions inside the input (count_include_pad=0) or inside the
                   input plus its explicit padding (count_include_pad=1): a ceil_mode overhang never counts.
                   Blocked data (layout NCHW{c}c: max / avg pool2d, the global pools) is unpacked to NCHW,
                   pooled and packed again (_blocked).
Products accumulate in float64 / int64 and are cast to the result dtype at the end.
"""
import itertools

import numpy as np

from ..op import register_reference
from ...backend.dtypes import to_numpy_dtype


def _per_dim(values, n, fill):
    values = list(values)
    if not values:
        return [fill] * n
    return values * n if len(values) == 1 else values


def _window(attrs, n):
    """(strides, dilation, pad_begin, pad_end) as the relation normalises them (window.h)."""
    strides = _per_dim(attrs.strides, n, 1)
    dilation = _per_dim(attrs.dilation, n, 1)
    padding = list(attrs.padding)
    if len(padding) == 2 * n:
        begin, end = padding[:n], padding[n:]
    else:
        begin = end = _per_dim(padding, n, 0)
    return strides, dilation, begin, end


def _acc_dtype(*dtypes):
    """float64 for float inputs (incl. ml_dtypes' bfloat16/float8), int64 for integer and bool ones."""
    if all(np.dtype(d).kind in "iub" for d in dtypes):
        return np.int64
    return np.float64


def _result_dtype(attrs, data):
    out = getattr(attrs, "out_dtype", None)
    return to_numpy_dtype(out) if out is not None else data.dtype


def _offset_slices(offsets, dilation, strides, out_sizes):
    """The strided slices a kernel offset reads from the padded input, one per spatial dim."""
    return tuple(slice(o * d, o * d + (s_out - 1) * st + 1, st)
                 for o, d, st, s_out in zip(offsets, dilation, strides, out_sizes))


def _conv(attrs, data, weight):
    n = data.ndim - 2
    strides, dilation, begin, end = _window(attrs, n)
    groups = attrs.groups
    acc = _acc_dtype(data.dtype, weight.dtype)
    x = np.pad(data.astype(acc), [(0, 0), (0, 0)] + list(zip(begin, end)))
    batch, channels = x.shape[:2]
    out_channels, kernel = weight.shape[0], weight.shape[2:]
    out_sizes = [(x.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(n)]
    xg = x.reshape(batch, groups, channels // groups, *x.shape[2:])
    wg = weight.astype(acc).reshape(groups, out_channels // groups, channels // groups, *kernel)
    y = np.zeros((batch, groups, out_channels // groups, *out_sizes), acc)
    for off in itertools.product(*(range(k) for k in kernel)):
        patch = xg[(slice(None),) * 3 + _offset_slices(off, dilation, strides, out_sizes)]
        y += np.einsum("bgc...,goc->bgo...", patch, wg[(slice(None),) * 3 + off])
    return y.reshape(batch, out_channels, *out_sizes).astype(_result_dtype(attrs, data))


def _conv_integer(attrs, data, weight, data_zero_point, weight_zero_point):
    x = data.astype(np.int64) - data_zero_point.astype(np.int64).reshape(())
    wz = weight_zero_point.astype(np.int64)
    w = weight.astype(np.int64) - (wz.reshape((-1,) + (1,) * (weight.ndim - 1)) if wz.ndim == 1 else wz)
    return _conv(attrs, x, w).astype(np.int32)


def _matmul_integer(attrs, a, b, a_zero_point, b_zero_point):
    za = a_zero_point.astype(np.int64)
    if za.ndim == 1 and a.ndim >= 2:
        za = za.reshape(-1, 1)  # one per row of a
    a = a.astype(np.int64) - za
    b = b.astype(np.int64) - b_zero_point.astype(np.int64)  # one per column of b: the last axis
    return np.asarray(np.matmul(a, b)).astype(np.int32)


def _bilinear(x, y, xx):
    """Bilinear samples of x (B, C, H, W) at real positions y, xx (B, C, *rest): zero outside the image
    (GridSample with align_corners=1 and zeros padding, as ONNX DeformConv)."""
    batch, channels, height, width = x.shape
    y0, x0 = np.floor(y), np.floor(xx)
    b_idx = np.arange(batch).reshape((batch,) + (1,) * (y.ndim - 1))
    c_idx = np.arange(channels).reshape((1, channels) + (1,) * (y.ndim - 2))
    out = np.zeros(y.shape)
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yk, xk = y0 + dy, x0 + dx
        weight = (1 - np.abs(y - yk)) * (1 - np.abs(xx - xk))
        inside = (yk >= 0) & (yk < height) & (xk >= 0) & (xk < width)
        yi = np.clip(yk, 0, height - 1).astype(np.int64)
        xi = np.clip(xk, 0, width - 1).astype(np.int64)
        out += np.where(inside, x[b_idx, c_idx, yi, xi] * weight, 0.0)
    return out


def _deformable_conv2d(attrs, data, offset, weight, mask=None):
    strides, dilation, begin, _end = _window(attrs, 2)
    batch, channels = data.shape[:2]
    out_channels, _, kh, kw = weight.shape
    oh, ow = offset.shape[2:]
    dg, groups = attrs.deformable_groups, attrs.groups
    off = offset.astype(np.float64).reshape(batch, dg, kh, kw, 2, oh, ow)
    base_y = (np.arange(kh)[:, None, None, None] * dilation[0] + np.arange(oh)[None, None, :, None] * strides[0]
              - begin[0])
    base_x = (np.arange(kw)[None, :, None, None] * dilation[1] + np.arange(ow)[None, None, None, :] * strides[1]
              - begin[1])
    per = channels // dg
    y = np.repeat(base_y[None, None] + off[:, :, :, :, 0], per, axis=1)  # (B, C, kh, kw, oh, ow)
    x = np.repeat(base_x[None, None] + off[:, :, :, :, 1], per, axis=1)
    samples = _bilinear(data.astype(np.float64), y, x)
    if mask is not None:
        samples = samples * np.repeat(mask.astype(np.float64).reshape(batch, dg, kh, kw, oh, ow), per, axis=1)
    sg = samples.reshape(batch, groups, channels // groups, kh, kw, oh, ow)
    wg = weight.astype(np.float64).reshape(groups, out_channels // groups, channels // groups, kh, kw)
    out = np.einsum("bgcuvij,gocuv->bgoij", sg, wg).reshape(batch, out_channels, oh, ow)
    return out.astype(_result_dtype(attrs, data))


def _conv_transpose(attrs, data, weight):
    n = data.ndim - 2
    plain = ("IOW", "IOHW", "IODHW")[n - 1]
    if attrs.kernel_layout and attrs.kernel_layout != plain:  # packed per group (IOHW{k}i): back to plain
        from .._layout import transform_array

        weight = transform_array(weight, attrs.kernel_layout, plain)
    strides, dilation, begin, end = _window(attrs, n)
    out_pad = _per_dim(attrs.output_padding, n, 0)
    groups = attrs.groups
    acc = _acc_dtype(data.dtype, weight.dtype)
    batch, channels, sizes = data.shape[0], data.shape[1], data.shape[2:]
    per_group, kernel = weight.shape[1], weight.shape[2:]
    full = [(sizes[i] - 1) * strides[i] + dilation[i] * (kernel[i] - 1) + 1 for i in range(n)]
    out_sizes = [full[i] - begin[i] - end[i] + out_pad[i] for i in range(n)]
    length = [max(full[i], begin[i] + out_sizes[i]) for i in range(n)]
    xg = data.astype(acc).reshape(batch, groups, channels // groups, *sizes)
    wg = weight.astype(acc).reshape(groups, channels // groups, per_group, *kernel)
    y = np.zeros((batch, groups, per_group, *length), acc)
    for off in itertools.product(*(range(k) for k in kernel)):
        target = (slice(None),) * 3 + _offset_slices(off, dilation, strides, sizes)
        y[target] += np.einsum("bgc...,gco->bgo...", xg, wg[(slice(None),) * 3 + off])
    y = y[(slice(None),) * 3 + tuple(slice(b, b + o) for b, o in zip(begin, out_sizes))]
    return y.reshape(batch, groups * per_group, *out_sizes).astype(_result_dtype(attrs, data))


def _pool_geometry(attrs, data):
    """(kernel, strides, dilation, begin, end, out_sizes) with ceil_mode's rule (window.h: WindowOut)."""
    n = data.ndim - 2
    kernel = _per_dim(attrs.pool_size, n, 1)
    strides, dilation, begin, end = _window(attrs, n)
    out_sizes = []
    for i in range(n):
        span = data.shape[2 + i] + begin[i] + end[i] - dilation[i] * (kernel[i] - 1) - 1
        out = (-(-span // strides[i]) if attrs.ceil_mode else span // strides[i]) + 1
        if attrs.ceil_mode and (out - 1) * strides[i] >= data.shape[2 + i] + begin[i]:
            out -= 1
        out_sizes.append(out)
    return kernel, strides, dilation, begin, end, out_sizes


def _windows(x, kernel, strides, dilation, begin, out_sizes, fill):
    """Every window of x (padded by `begin` in front and as far as needed behind, with fill):
    shape (prod(kernel), B, C, *out_sizes), offsets in row-major order."""
    n = x.ndim - 2
    need = [(out_sizes[i] - 1) * strides[i] + dilation[i] * (kernel[i] - 1) + 1 for i in range(n)]
    pads = [(0, 0), (0, 0)] + [(begin[i], max(0, need[i] - begin[i] - x.shape[2 + i])) for i in range(n)]
    xp = np.pad(x, pads, constant_values=fill)
    offsets = list(itertools.product(*(range(k) for k in kernel)))
    return np.stack([xp[(slice(None),) * 2 + _offset_slices(off, dilation, strides, out_sizes)] for off in offsets])


def _lowest(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    if dtype.kind == "b":
        return False
    return -np.inf


def _max_pool(attrs, data):
    kernel, strides, dilation, begin, _end, out_sizes = _pool_geometry(attrs, data)
    windows = _windows(data, kernel, strides, dilation, begin, out_sizes, _lowest(data.dtype))
    return windows.max(axis=0).astype(data.dtype)


def _positions(kernel, strides, dilation, begin, out_sizes, dim):
    """Input coordinate of (kernel offset, output index) along one spatial dim: shape (k, out)."""
    return (np.arange(kernel[dim])[:, None] * dilation[dim] + np.arange(out_sizes[dim])[None, :] * strides[dim]
            - begin[dim])


def _max_pool_with_argmax(attrs, data):
    kernel, strides, dilation, begin, _end, out_sizes = _pool_geometry(attrs, data)
    n = data.ndim - 2
    windows = _windows(data, kernel, strides, dilation, begin, out_sizes, _lowest(data.dtype))
    # Per offset and output position: whether the window position is inside the input, and its flat index.
    valid = np.ones([len(windows)] + out_sizes, bool)
    flat = np.zeros([len(windows)] + out_sizes, np.int64)
    sizes = data.shape[2:]
    order = range(n) if attrs.storage_order == 0 else range(n - 1, -1, -1)
    step = 1
    steps = [0] * n
    for i in reversed(list(order)):  # the last dim of `order` varies fastest
        steps[i] = step
        step *= sizes[i]
    offsets = np.array(list(itertools.product(*(range(k) for k in kernel))), np.int64).reshape(-1, n)
    for i in range(n):
        pos = _positions(kernel, strides, dilation, begin, out_sizes, i)[offsets[:, i]]  # (windows, out_i)
        shape = [len(windows)] + [1] * n
        shape[1 + i] = out_sizes[i]
        pos = pos.reshape(shape)
        valid = valid & (pos >= 0) & (pos < sizes[i])
        flat = flat + pos * steps[i]
    valid = np.broadcast_to(valid[:, None, None], windows.shape)
    values = np.where(valid, windows, _lowest(data.dtype))
    best = values.max(axis=0)
    hit = valid & (values == best[None])
    first = np.argmax(hit, axis=0)  # the first valid maximum in scan order, as ONNX's loop
    local = np.take_along_axis(np.broadcast_to(flat[:, None, None], windows.shape), first[None], axis=0)[0]
    batch, channels = data.shape[:2]
    plane = int(np.prod(sizes))
    base = (np.arange(batch)[:, None] * channels + np.arange(channels)[None, :]) * plane
    indices = local + base.reshape(batch, channels, *([1] * n))
    return best.astype(data.dtype), indices.astype(np.int64)


def _window_counts(data, kernel, strides, dilation, begin, end, out_sizes, include_pad):
    """How many positions of each window lie inside the input (or the input plus its explicit padding)."""
    n = data.ndim - 2
    count = np.ones(out_sizes, np.int64)
    for i in range(n):
        pos = _positions(kernel, strides, dilation, begin, out_sizes, i)
        lo, hi = (-begin[i], data.shape[2 + i] + end[i]) if include_pad else (0, data.shape[2 + i])
        per_dim = ((pos >= lo) & (pos < hi)).sum(axis=0)
        shape = [1] * n
        shape[i] = out_sizes[i]
        count = count * per_dim.reshape(shape)
    return count


def _avg_pool(attrs, data):
    kernel, strides, dilation, begin, end, out_sizes = _pool_geometry(attrs, data)
    windows = _windows(data.astype(np.float64), kernel, strides, dilation, begin, out_sizes, 0.0)
    count = _window_counts(data, kernel, strides, dilation, begin, end, out_sizes, attrs.count_include_pad)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (windows.sum(axis=0) / count).astype(data.dtype)


def _lp_pool(attrs, data):
    kernel, strides, dilation, begin, _end, out_sizes = _pool_geometry(attrs, data)
    p = attrs.p
    windows = _windows(np.abs(data.astype(np.float64)), kernel, strides, dilation, begin, out_sizes, 0.0)
    return (np.power(windows, p).sum(axis=0) ** (1.0 / p)).astype(data.dtype)


def _max_unpool(attrs, data, indices, output_shape=None):
    """output_shape: dyn.nn.max_unpool's tensor (batch, channels, spatial...); else attrs.output_size."""
    n = data.ndim - 2
    kernel = _per_dim(attrs.pool_size, n, 1)
    strides = _per_dim(attrs.strides, n, 1)
    padding = list(attrs.padding)
    begin, end = (padding[:n], padding[n:]) if len(padding) == 2 * n else (_per_dim(padding, n, 0),) * 2
    inferred = [(data.shape[2 + i] - 1) * strides[i] - begin[i] - end[i] + kernel[i] for i in range(n)]
    flat = np.zeros(data.shape[0] * data.shape[1] * int(np.prod(inferred)), data.dtype)
    idx = indices.astype(np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= flat.size):
        raise ValueError(f"max_unpool: an index is outside [0, {flat.size})")
    flat[idx] = data.ravel()
    y = flat.reshape(data.shape[:2] + tuple(inferred))
    size = [int(v) for v in np.asarray(output_shape).ravel()[2:]] if output_shape is not None else \
        (list(attrs.output_size) or inferred)
    if output_shape is not None and (len(size) != n or any(s < i for s, i in zip(size, inferred))):
        raise ValueError(f"max_unpool: output_shape {np.asarray(output_shape).tolist()} must be (batch, channels, "
                         f"spatial...) with spatial dims at least {inferred}")
    out = np.zeros(data.shape[:2] + tuple(size), data.dtype)
    out[(slice(None),) * 2 + tuple(slice(0, s) for s in inferred)] = y
    return out


def _col2im(attrs, data, image_shape=None, block_shape=None):
    """image_shape, block_shape: dyn.nn.col2im's tensors; else the attrs."""
    image = [int(v) for v in np.asarray(image_shape).ravel()] if image_shape is not None else list(attrs.image_shape)
    block = [int(v) for v in np.asarray(block_shape).ravel()] if block_shape is not None else list(attrs.block_shape)
    if min(image + block, default=1) < 1 or data.shape[1] % int(np.prod(block)):
        raise ValueError(f"col2im: image_shape {image} and block_shape {block} (positive) must divide data's "
                         f"{data.shape[1]} channels")
    n = len(image)
    strides, dilation, begin, end = _window(attrs, n)
    blocks = [(image[i] + begin[i] + end[i] - dilation[i] * (block[i] - 1) - 1) // strides[i] + 1 for i in range(n)]
    if int(np.prod(blocks)) != data.shape[2] or min(blocks) < 1:
        raise ValueError(f"col2im: image_shape {image} and block_shape {block} give {blocks} sliding blocks, data has "
                         f"{data.shape[2]}")
    batch, channels = data.shape[0], data.shape[1] // int(np.prod(block))
    cols = data.astype(_acc_dtype(data.dtype)).reshape(batch, channels, *block, *blocks)
    padded = np.zeros((batch, channels, *[image[i] + begin[i] + end[i] for i in range(n)]), cols.dtype)
    for off in itertools.product(*(range(b) for b in block)):
        padded[(slice(None),) * 2 + _offset_slices(off, dilation, strides, blocks)] += cols[(slice(None),) * 2 + off]
    crop = tuple(slice(begin[i], begin[i] + image[i]) for i in range(n))
    return padded[(slice(None),) * 2 + crop].astype(data.dtype)


def _spatial_axes(data):
    return tuple(range(2, data.ndim))


def _global_avg_pool(attrs, data):
    return data.astype(np.float64).mean(axis=_spatial_axes(data), keepdims=True).astype(data.dtype)


def _global_max_pool(attrs, data):
    return data.max(axis=_spatial_axes(data), keepdims=True)


def _global_lp_pool(attrs, data):
    p = attrs.p
    x = np.abs(data.astype(np.float64))
    return (np.power(x, p).sum(axis=_spatial_axes(data), keepdims=True) ** (1.0 / p)).astype(data.dtype)


def _blocked(pool):
    """pool, also over blocked data (layout "NCHW{c}c", (B, C / c, H, W, c)): unpacked to NCHW, pooled, packed
    again (the cpu target's layouts, AlterOpLayout)."""
    def run(attrs, data):
        layout = getattr(attrs, "layout", "")
        if not (layout.startswith("NCHW") and layout.endswith("c") and data.ndim == 5):
            return pool(attrs, data)
        b, cb, h, w, c = data.shape
        y = pool(attrs, np.ascontiguousarray(np.moveaxis(data, 4, 2)).reshape(b, cb * c, h, w))
        return np.ascontiguousarray(np.moveaxis(y.reshape(b, cb, c, *y.shape[2:]), 2, 4))

    run.__name__ = pool.__name__
    return run


def _swap_last(x, flag):
    return np.swapaxes(x, -1, -2) if flag and x.ndim >= 2 else x


def _dense(attrs, data, weight):
    acc = _acc_dtype(data.dtype, weight.dtype)
    return np.matmul(data.astype(acc), weight.astype(acc).T).astype(_result_dtype(attrs, data))


def _matmul(attrs, a, b):
    out_dtype = _result_dtype(attrs, a)
    acc = _acc_dtype(a.dtype, b.dtype)
    a = _swap_last(a.astype(acc), attrs.transpose_a)
    b = _swap_last(b.astype(acc), attrs.transpose_b)
    return np.asarray(np.matmul(a, b)).astype(out_dtype)


def _bias_add(attrs, data, bias):
    axis = attrs.axis % data.ndim
    return (data + bias.reshape((-1,) + (1,) * (data.ndim - 1 - axis))).astype(data.dtype)


def _einsum(attrs, tensors):
    if not tensors:
        raise ValueError("einsum needs at least one operand")
    acc = _acc_dtype(*[t.dtype for t in tensors])
    out = np.einsum(attrs.equation, *[t.astype(acc) for t in tensors])
    return np.asarray(out).astype(tensors[0].dtype)


for _rank in (1, 2, 3):
    register_reference(f"nn.conv{_rank}d", _conv)
    register_reference(f"nn.conv{_rank}d_transpose", _conv_transpose)
    register_reference(f"nn.conv{_rank}d_integer", _conv_integer)
    register_reference(f"nn.max_pool{_rank}d", _blocked(_max_pool) if _rank == 2 else _max_pool)
    register_reference(f"nn.max_pool{_rank}d_with_argmax", _max_pool_with_argmax)
    register_reference(f"nn.avg_pool{_rank}d", _blocked(_avg_pool) if _rank == 2 else _avg_pool)
    register_reference(f"nn.lp_pool{_rank}d", _lp_pool)
    register_reference(f"nn.max_unpool{_rank}d", _max_unpool)
    register_reference(f"dyn.nn.max_unpool{_rank}d", _max_unpool)
del _rank
register_reference("nn.global_avg_pool", _blocked(_global_avg_pool))
register_reference("nn.global_max_pool", _blocked(_global_max_pool))
register_reference("nn.global_lp_pool", _blocked(_global_lp_pool))
register_reference("nn.dense", _dense)
register_reference("nn.bias_add", _bias_add)
register_reference("nn.deformable_conv2d", _deformable_conv2d)
register_reference("nn.modulated_deformable_conv2d", _deformable_conv2d)
register_reference("nn.col2im", _col2im)
register_reference("dyn.nn.col2im", _col2im)
register_reference("nn.matmul", _matmul)
register_reference("nn.matmul_integer", _matmul_integer)
register_reference("nn.batch_matmul", _matmul)
register_reference("einsum", _einsum)
