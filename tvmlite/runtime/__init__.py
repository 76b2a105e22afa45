"""Runtime: objects, containers, NDArray and devices."""
from .object import Object
from .container import Array, Map, ShapeTuple, String, convert
from .ndarray import NDArray, DataType, Device, cpu, device
from .serialization import (structural_equal, structural_hash, assert_structural_equal, save_json,
                            load_json)
from . import ndarray
from .graph_module import GraphModule
from .module import load_module
from .threading import set_num_threads, num_threads, set_flush_denormals, flush_denormals

__all__ = ["Object", "Array", "Map", "ShapeTuple", "String", "convert", "NDArray", "DataType", "Device", "cpu",
           "device", "structural_equal", "structural_hash", "assert_structural_equal", "save_json", "load_json",
           "ndarray", "GraphModule", "load_module", "set_num_threads", "num_threads", "set_flush_denormals",
           "flush_denormals", "register_kernel_factory"]


def __getattr__(name):
    # register_kernel_factory lives with the executor factory, which imports numpy: loaded when first asked for,
    # so that `import tvmlite` stays numpy-free.
    if name == "register_kernel_factory":
        from .executor_factory import register_kernel_factory

        return register_kernel_factory
    raise AttributeError(f"module 'tvmlite.runtime' has no attribute {name!r}")
