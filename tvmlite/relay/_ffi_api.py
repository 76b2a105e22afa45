"""The ``relay.*`` global functions, bound once."""
from .._ffi.registry import _init_api

_init_api("relay", __name__)
