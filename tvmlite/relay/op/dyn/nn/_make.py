"""The makers of the ``dyn.nn.*`` ops (``relay.op.dyn.nn._make.pad``), registered by TVMLITE_REGISTER_OP."""
from ....._ffi.registry import _init_api

_init_api("relay.op.dyn.nn._make", __name__)
