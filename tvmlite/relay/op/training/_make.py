"""The makers of the ``training.*`` ops, registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.training._make", __name__)
