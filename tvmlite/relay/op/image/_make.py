"""The makers of the ``image.*`` ops (``relay.op.image._make.*``), registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.image._make", __name__)
