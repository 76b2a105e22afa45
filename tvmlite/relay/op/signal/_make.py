"""The makers of the ``signal.*`` ops (``relay.op.signal._make.*``), registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.signal._make", __name__)
