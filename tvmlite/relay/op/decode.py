"""tensor_scatter: the KV-cache write of autoregressive decoding (csrc/relay/op/nn/decode.cc)."""
from . import _make

__all__ = ["tensor_scatter"]


def tensor_scatter(past_cache, update, write_indices=None, mode="linear", axis=-2):
    """past_cache with update written along axis at each batch's write index (zeros when omitted);
    mode "circular" wraps the positions."""
    inputs = [past_cache, update] + ([write_indices] if write_indices is not None else [])
    return _make.tensor_scatter(inputs, mode, axis, write_indices is not None)
