"""The ``runtime.*`` global functions (csrc/runtime), bound once on first use: ``_ffi_api.SaveJSON(value)``."""
from .._ffi.registry import _init_api

_init_api("runtime", __name__)
