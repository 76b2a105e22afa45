"""The makers of ops without a namespace (``relay.op._make.add``), registered by TVMLITE_REGISTER_OP."""
from ..._ffi.registry import _init_api

_init_api("relay.op._make", __name__)
