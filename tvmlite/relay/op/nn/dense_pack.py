"""Builder of nn.contrib_dense_pack: nn.dense over a weight packed into panels for the GEMM kernel."""
from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from . import _make
from . import _dense_pack  # noqa: F401  (registers the reference)

__all__ = ["contrib_dense_pack"]


@register_object("relay.attrs.DensePackAttrs")
class DensePackAttrs(Attrs):
    """Attributes of nn.contrib_dense_pack (relay.attrs.DensePackAttrs): units, out_dtype, weight_layout."""

    __slots__ = ()


def contrib_dense_pack(data, weight, units=None, weight_layout="NK16n", out_dtype=""):
    """data (..., K) times the packed weight (N / nb, K, nb) -> (..., N): nn.dense(data, W) where
    weight[p, k, j] = W[p * nb + j, k] (layout_transform(W, "NK", weight_layout)); weight_layout is "NK{nb}n"."""
    return _make.contrib_dense_pack(data, weight, units, str(out_dtype) if out_dtype else None, str(weight_layout))
