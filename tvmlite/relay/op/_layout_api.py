"""The ``relay._layout.*`` globals (``ParseLayout``, ``TransformShape``), bound once on first use."""
from ..._ffi.registry import _init_api

_init_api("relay._layout", __name__)
