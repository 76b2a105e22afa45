"""Runtime: objects, containers, NDArray and devices."""
from .object import Object
from .container import Array, Map, ShapeTuple, String, convert
from .ndarray import NDArray, DataType, Device, cpu, device
from . import ndarray
