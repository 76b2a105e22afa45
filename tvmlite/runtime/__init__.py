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
