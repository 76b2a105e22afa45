"""tvmlite: a compact, fast re-imagining of Apache TVM's core."""
from typing import TYPE_CHECKING

from ._ffi import core as _core  # noqa: F401  (loads libtvmlite.so first)
from ._ffi.registry import (register_object, register_func, get_global_func, list_global_func_names,
                            remove_global_func)
from .error import TVMLiteError
from .runtime import Object, DataType, Device, cpu, device
from .runtime.serialization import structural_equal, structural_hash, save_json, load_json
from . import runtime, nd, error

if TYPE_CHECKING:  # what __getattr__ below loads on first use, for type checkers
    from . import frontend, ir, relay, testing  # noqa: F401
    from .ir import transform  # noqa: F401
    from .relay.build_module import build  # noqa: F401

__version__ = "0.1.0"

__all__ = ["register_object", "register_func", "get_global_func", "list_global_func_names", "remove_global_func",
           "TVMLiteError", "Object", "DataType", "Device", "cpu", "device", "runtime", "nd", "error",
           "structural_equal", "structural_hash", "save_json", "load_json"]


def __getattr__(name):
    # Submodules that are heavier or rarely needed load on first use, keeping `import tvmlite` fast.
    if name in ("ir", "relay", "frontend"):
        import importlib

        return importlib.import_module("." + name, __name__)
    if name == "transform":  # TVM's tvm.transform: Pass, Sequential, PassContext
        import importlib

        return importlib.import_module(".ir.transform", __name__)
    if name == "build":
        from .relay.build_module import build

        return build
    if name == "testing":
        import importlib  # `from . import testing` would ask this __getattr__ again, forever

        return importlib.import_module(".testing", __name__)
    raise AttributeError(f"module 'tvmlite' has no attribute '{name}'")
