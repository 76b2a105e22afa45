"""The ``relay.op.control.*`` globals (``JoinTypes``), bound once on first use."""
from ..._ffi.registry import _init_api

_init_api("relay.op.control", __name__)
