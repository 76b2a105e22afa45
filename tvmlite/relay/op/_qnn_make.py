"""The makers of the ``qnn.*`` ops (``relay.op.qnn._make.quantize``), bound once on first use."""
from ..._ffi.registry import _init_api

_init_api("relay.op.qnn._make", __name__)
