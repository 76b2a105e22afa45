"""The makers of the ``ml.*`` ops, registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.ml._make", __name__)
