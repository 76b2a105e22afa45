"""The makers of the ``dyn.*`` ops (``relay.op.dyn._make.reshape``), registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.dyn._make", __name__)
