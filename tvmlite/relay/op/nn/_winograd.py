"""numpy references of the Winograd ops (csrc/relay/op/nn/conv2d_winograd.cc), with the kernel's own matrices
(topi.nn.winograd_matrices), in float64:

  weight transform   U[:, :, o, c] = G g[o, c] G^T; stride 2: per parity phase (p, q) of the input, its 2x2 filter
                     g[2a + p, 2b + q] (zero past the 3x3) by F(m x m, 2 x 2)'s G, each element (i, j) keeping the
                     phases it has in the order ee, eo, oe, oo along 4C (tvmlite/topi/nn/winograd.h)
  conv               per m x m output tile: V = B^T d B over the alpha x alpha input tile, M = sum_c U[.., o, c]
                     V[.., c], Y = A^T M A; the input zero-padded (and past its end, up to whole tiles). Stride 2:
                     d is each phase's (m + 1)^2 tile, V the phases' elements stacked as U's channels.
"""
import numpy as np

from ...._ffi.registry import get_global_func
from ..layout import parse_layout
from ..op import register_reference
from .._layout import transform_array


def winograd_matrices(tile_size, stride=1):
    """(A^T, B^T, G) of F(tile_size x tile_size, 3 x 3) (stride 2: F(tile_size x tile_size, 2 x 2)) as float64
    arrays."""
    return tuple(np.array([[float(v) for v in row] for row in mat])
                 for mat in get_global_func("topi.nn.winograd_matrices")(int(tile_size), int(stride)))


def phases_of_element(i, j, alpha):
    """Stride 2: the parity phases (0 ee, 1 eo, 2 oe, 3 oo; row parity ph >> 1) transform element (i, j) of an
    alpha x alpha transform has (an odd phase's 1-tap filter is zero at the last, infinite, point)."""
    return [ph for ph in range(4) if (ph >> 1 == 0 or i < alpha - 1) and (ph & 1 == 0 or j < alpha - 1)]


def winograd_weight_transform(weight, tile_size, stride=1):
    """weight (O, C, 3, 3) -> U (alpha, alpha, O, C), U[:, :, o, c] = G g[o, c] G^T; stride 2: (alpha, alpha, O, 4C),
    alpha = tile_size + 1 (also bench/conv2d.py's)."""
    # U[a, b] = sum_kl G[a, k] G[b, l] g[k, l]: one GEMM of kron(G, G) (alpha^2 x taps) with the flattened filters,
    # which folds ResNet-50's at build in ms (an einsum takes seconds). In the weight's dtype: 9 terms per value,
    # within a few ulp of the float64 result, and the kernel computes in float32 anyway.
    _, _, g = winograd_matrices(tile_size, stride)
    alpha = g.shape[0]
    o, c = weight.shape[:2]
    kron = np.kron(g, g).astype(weight.dtype)
    if stride == 1:
        return (kron @ weight.reshape(o * c, 9).T).reshape(alpha, alpha, o, c)
    padded = np.zeros((o, c, 4, 4), weight.dtype)
    padded[:, :, :3, :3] = weight
    u = np.zeros((alpha, alpha, o, 4 * c), weight.dtype)
    for ph in range(4):
        taps = padded[:, :, ph >> 1::2, ph & 1::2]  # the phase's 2x2 filter, zero past the 3x3
        up = (kron @ taps.reshape(o * c, 4).T).reshape(alpha, alpha, o, c)
        for i in range(alpha):
            for j in range(alpha):
                present = phases_of_element(i, j, alpha)
                if ph in present:
                    slot = present.index(ph)
                    u[i, j, :, slot * c:(slot + 1) * c] = up[i, j]
    return u


@register_reference("nn.contrib_conv2d_winograd_weight_transform")
def _weight_transform(attrs, weight):
    return winograd_weight_transform(weight, attrs.tile_size, attrs.stride)


def _pad(attrs):
    pad = [int(p) for p in attrs.padding] or [0]
    if len(pad) == 1:
        pad = pad * 4
    elif len(pad) == 2:
        pad = [pad[0], pad[1], pad[0], pad[1]]
    return pad  # top, left, bottom, right


def _tiles(padded, count_h, count_w, step, alpha):
    """(n, c, count_h, count_w, alpha, alpha): the alpha x alpha tiles of padded every step rows and columns."""
    rows = np.arange(count_h)[:, None] * step + np.arange(alpha)[None, :]
    cols = np.arange(count_w)[:, None] * step + np.arange(alpha)[None, :]
    return padded[:, :, rows[:, None, :, None], cols[None, :, None, :]]


@register_reference("nn.contrib_conv2d_winograd_without_weight_transform")
def _conv2d_winograd(attrs, data, weight):
    m = int(attrs.tile_size)
    stride = int(attrs.strides[0]) if len(attrs.strides) else 1
    at, bt, _ = winograd_matrices(m, stride)
    alpha = bt.shape[0]
    x = transform_array(data, attrs.data_layout, "NCHW").astype(np.float64)
    u = transform_array(weight, attrs.kernel_layout, "HWOI").astype(np.float64)  # (alpha, alpha, O, C or 4C)
    top, left, bottom, right = _pad(attrs)
    n, c, h, w = x.shape
    oh, ow = (h + top + bottom - 3) // stride + 1, (w + left + right - 3) // stride + 1
    th, tw = -(-oh // m), -(-ow // m)
    if stride == 1:
        padded = np.zeros((n, c, th * m + 2, tw * m + 2))
        padded[:, :, top:top + h, left:left + w] = x
        v = np.einsum("ik,nctukl,jl->nctuij", bt, _tiles(padded, th, tw, m, alpha), bt)
    else:
        # the parity phases of the padded input, each tiled alpha x alpha every m of its rows (2m of the input's)
        padded = np.zeros((n, c, max(2 * m * th + 2, top + h), max(2 * m * tw + 2, left + w)))
        padded[:, :, top:top + h, left:left + w] = x
        phase = [np.einsum("ik,nctukl,jl->nctuij", bt,
                           _tiles(padded[:, :, ph >> 1::2, ph & 1::2], th, tw, m, alpha), bt)
                 for ph in range(4)]
        v = np.zeros((n, 4 * c, th, tw, alpha, alpha))
        for i in range(alpha):
            for j in range(alpha):
                for slot, ph in enumerate(phases_of_element(i, j, alpha)):
                    v[:, slot * c:(slot + 1) * c, :, :, i, j] = phase[ph][..., i, j]
    mm = np.einsum("ijoc,nctuij->notuij", u, v)
    y = np.einsum("ai,notuij,bj->notuab", at, mm, at)
    out = y.transpose(0, 1, 2, 4, 3, 5).reshape(n, -1, th * m, tw * m)[:, :, :oh, :ow]
    out_layout = attrs.out_layout or "NCHW%dc" % dict(parse_layout(attrs.kernel_layout))["o"]
    return transform_array(out.astype(data.dtype), "NCHW", out_layout)
