"""The makers of the ``vision.*`` ops (``relay.op.vision._make.*``), registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.vision._make", __name__)
