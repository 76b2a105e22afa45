"""The makers of the ``nn.*`` ops (``relay.op.nn._make.conv2d``), registered by TVMLITE_REGISTER_OP."""
from ...._ffi.registry import _init_api

_init_api("relay.op.nn._make", __name__)
