"""numpy references of the Winograd ops (csrc/relay/op/nn/conv2d_winograd.cc), with the kernel's own matrices
(topi.nn.winograd_matrices), in float64:

  weight transform   U[:, :, o, c] = G g[o, c] G^T
  conv               per m x m output tile: V = B^T d B over the alpha x alpha input tile, M = sum_c U[.., o, c]
                     V[.., c], Y = A^T M A; the input zero-padded (and past its end, up to whole tiles).
"""
import numpy as np

from ...._ffi.registry import get_global_func
from ..layout import parse_layout
from ..op import register_reference
from .._layout import transform_array


def winograd_matrices(tile_size):
    """(A^T, B^T, G) of F(tile_size x tile_size, 3 x 3) as float64 arrays."""
    return tuple(np.array([[float(v) for v in row] for row in mat])
                 for mat in get_global_func("topi.nn.winograd_matrices")(int(tile_size)))


def winograd_weight_transform(weight, tile_size):
    """weight (O, C, 3, 3) -> U (alpha, alpha, O, C), U[:, :, o, c] = G g[o, c] G^T (also bench/conv2d.py's)."""
    # U[a, b] = sum_kl G[a, k] G[b, l] g[k, l]: one GEMM of kron(G, G) (alpha^2 x 9) with the flattened filters,
    # which folds ResNet-50's at build in ms (an einsum takes seconds). In the weight's dtype: 9 terms per value,
    # within a few ulp of the float64 result, and the kernel computes in float32 anyway.
    _, _, g = winograd_matrices(tile_size)
    alpha = g.shape[0]
    o, c = weight.shape[:2]
    u = np.kron(g, g).astype(weight.dtype) @ weight.reshape(o * c, 9).T
    return u.reshape(alpha, alpha, o, c)


@register_reference("nn.contrib_conv2d_winograd_weight_transform")
def _weight_transform(attrs, weight):
    return winograd_weight_transform(weight, attrs.tile_size)


def _pad(attrs):
    pad = [int(p) for p in attrs.padding] or [0]
    if len(pad) == 1:
        pad = pad * 4
    elif len(pad) == 2:
        pad = [pad[0], pad[1], pad[0], pad[1]]
    return pad  # top, left, bottom, right


@register_reference("nn.contrib_conv2d_winograd_without_weight_transform")
def _conv2d_winograd(attrs, data, weight):
    m = int(attrs.tile_size)
    at, bt, _ = winograd_matrices(m)
    alpha = m + 2
    x = transform_array(data, attrs.data_layout, "NCHW").astype(np.float64)
    u = transform_array(weight, attrs.kernel_layout, "HWOI").astype(np.float64)  # (alpha, alpha, O, C)
    top, left, bottom, right = _pad(attrs)
    n, c, h, w = x.shape
    oh, ow = h + top + bottom - 2, w + left + right - 2
    th, tw = -(-oh // m), -(-ow // m)
    padded = np.zeros((n, c, th * m + 2, tw * m + 2))
    padded[:, :, top:top + h, left:left + w] = x
    # tiles (n, c, th, tw, alpha, alpha): rows ty * m .. ty * m + alpha
    rows = np.arange(th)[:, None] * m + np.arange(alpha)[None, :]
    cols = np.arange(tw)[:, None] * m + np.arange(alpha)[None, :]
    d = padded[:, :, rows[:, None, :, None], cols[None, :, None, :]]
    v = np.einsum("ik,nctukl,jl->nctuij", bt, d, bt)
    mm = np.einsum("ijoc,nctuij->notuij", u, v)
    y = np.einsum("ai,notuij,bj->notuab", at, mm, at)
    out = y.transpose(0, 1, 2, 4, 3, 5).reshape(n, -1, th * m, tw * m)[:, :, :oh, :ow]
    out_layout = attrs.out_layout or "NCHW%dc" % dict(parse_layout(attrs.kernel_layout))["o"]
    return transform_array(out.astype(data.dtype), "NCHW", out_layout)
