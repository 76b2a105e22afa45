"""The ctypes FFI core: the same module-level names and behaviour as tvmlite._ffi._cython.core.

It keeps its own type-index -> class table, so it also works imported on its own next to the Cython core (objects
of types with no class registered here become ObjectBase, ArrayBase, Function... by their static type).
"""
from .base import _get_error_class
from .object import (ObjectBase, FieldDescriptor, DYN_FIELD_SELF, _type_key_to_index, _type_info,
                     _register_object_class, _define_object_type, _type_is_dynamic, _dyn_object_init,
                     _object_live_count)
from .packed_func import (Function, get_global_func, register_global_func, remove_global_func,
                          list_global_func_names, convert_to_function, convert)
from .ndarray import DataType, Device, NDArrayBase, from_dlpack, ndarray_empty, _DEVICE_NAMES
from .container import ArrayBase, MapBase, ShapeTupleBase

BACKEND = "ctypes"

# Report the public classes as this module's, as the Cython core does (reprs, pickling of DataType/Device).
for _cls in (ObjectBase, FieldDescriptor, Function, DataType, Device, NDArrayBase, ArrayBase, MapBase,
             ShapeTupleBase):
    _cls.__module__ = __name__
del _cls
