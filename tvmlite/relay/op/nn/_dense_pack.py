"""numpy reference of nn.contrib_dense_pack (csrc/relay/op/nn/dense_pack.cc): nn.dense on the unpacked weight.

The packed weight (N / nb, K, nb) holds W[p * nb + j, k] at [p, k, j] ("NK{nb}n"), so unpacking is a transpose
to (N / nb, nb, K) and a reshape to (N, K); the product then follows nn.dense's reference (float64 accumulation,
cast to the result dtype). With units set, the first units columns: the last panel's zero padding is no output.
"""
import numpy as np

from ..op import register_reference
from ...backend.dtypes import to_numpy_dtype


def unpack_weight(weight):
    """(N / nb, K, nb) -> (N, K): the nn.dense weight a packed one came from."""
    panels, k, nb = weight.shape
    return weight.transpose(0, 2, 1).reshape(panels * nb, k)


@register_reference("nn.contrib_dense_pack")
def _dense_pack(attrs, data, weight):
    w = unpack_weight(weight)
    acc = np.int64 if data.dtype.kind in "iub" and w.dtype.kind in "iub" else np.float64
    out_dtype = to_numpy_dtype(attrs.out_dtype) if attrs.out_dtype is not None else data.dtype
    out = np.matmul(data.astype(acc), w.astype(acc).T).astype(out_dtype)
    # units < the panels' columns: the last panel is zero-padded (a width no panel divides), its pad not an output
    return out if attrs.units is None else np.ascontiguousarray(out[..., :int(attrs.units)])
