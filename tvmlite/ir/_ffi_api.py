"""The ``ir.*`` global functions (csrc/ir), bound once: ``_ffi_api.AsText(node)``."""
from .._ffi.registry import _init_api

_init_api("ir", __name__)
