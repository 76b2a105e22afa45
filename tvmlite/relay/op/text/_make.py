"""The makers of the ``text.*`` ops (``relay.op.text._make.*``), registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.text._make", __name__)
