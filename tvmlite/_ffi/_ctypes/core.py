"""The ctypes FFI core: the same module-level names and behaviour as tvmlite._ffi._cython.core, exactly the
primitives of tvmlite/_ffi/primitives.py.

It keeps its own type-index -> class table, so it also works imported on its own next to the Cython core (objects
of types with no class registered here become ObjectBase, ArrayBase, Function... by their static type).

ABI constants, for pure-Python code (the same names and values as the Cython core; test_abi.py checks it):

* ``TYPE_INDEX_<KIND>``: the type index of each static kind of c_api.h, ``kTVMLite<Kind>`` -> ``TYPE_INDEX_<KIND>``
  (``TYPE_INDEX_INT``, ``TYPE_INDEX_STRING``, ``TYPE_INDEX_OBJECT``, ``TYPE_INDEX_NDARRAY``...). An index
  ``>= TYPE_INDEX_STATIC_OBJECT_BEGIN`` is an object; ``TYPE_INDEX_DYN_OBJECT_BEGIN`` is the first handed out at run
  time.
* ``DYN_FIELD_SELF``: the static type index of a field whose values are the type being defined.
* ``DEVICE_CPU``: DLPack's device type of the CPU (kDLCPU).
* ``MAX_NDIM``: the most dimensions an NDArray may have (kTVMLiteMaxNDim).

This core reads them, like every layout fact it uses, from the runtime's TVMLiteGetABIConstants() table (base.ABI).
"""
from . import base as _base
from .object import (ObjectBase, FieldDescriptor, DYN_FIELD_SELF, _type_key_to_index, _type_info,
                     _register_object_class, _define_object_type, _type_is_dynamic, _dyn_object_init,
                     _object_live_count, _install_constructor)
from .packed_func import (Function, get_global_func, register_global_func, remove_global_func,
                          list_global_func_names, convert_to_function, convert)
from .ndarray import DataType, Device, NDArrayBase, from_dlpack, ndarray_empty
from .container import ArrayBase, MapBase, ShapeTupleBase

BACKEND = "ctypes"

TYPE_INDEX_NONE = _base.kTVMLiteNone
TYPE_INDEX_INT = _base.kTVMLiteInt
TYPE_INDEX_BOOL = _base.kTVMLiteBool
TYPE_INDEX_FLOAT = _base.kTVMLiteFloat
TYPE_INDEX_OPAQUE_PTR = _base.kTVMLiteOpaquePtr
TYPE_INDEX_DATA_TYPE = _base.kTVMLiteDataType
TYPE_INDEX_DEVICE = _base.kTVMLiteDevice
TYPE_INDEX_DL_TENSOR_PTR = _base.kTVMLiteDLTensorPtr
TYPE_INDEX_RAW_STR = _base.kTVMLiteRawStr
TYPE_INDEX_BYTE_ARRAY_PTR = _base.kTVMLiteByteArrayPtr
TYPE_INDEX_TENSOR_VIEW = _base.kTVMLiteTensorView
TYPE_INDEX_STATIC_OBJECT_BEGIN = _base.kTVMLiteStaticObjectBegin
TYPE_INDEX_OBJECT = _base.kTVMLiteObject
TYPE_INDEX_STRING = _base.kTVMLiteString
TYPE_INDEX_BYTES = _base.kTVMLiteBytes
TYPE_INDEX_ERROR = _base.kTVMLiteError
TYPE_INDEX_FUNCTION = _base.kTVMLiteFunction
TYPE_INDEX_ARRAY = _base.kTVMLiteArray
TYPE_INDEX_MAP = _base.kTVMLiteMap
TYPE_INDEX_SHAPE = _base.kTVMLiteShape
TYPE_INDEX_NDARRAY = _base.kTVMLiteNDArray
TYPE_INDEX_MODULE = _base.kTVMLiteModule
TYPE_INDEX_DYN_OBJECT_BEGIN = _base.kTVMLiteDynObjectBegin
DEVICE_CPU = _base.kDLCPU
MAX_NDIM = _base.kTVMLiteMaxNDim
del _base

# Report the public classes as this module's, as the Cython core does (reprs, pickling of DataType/Device).
for _cls in (ObjectBase, FieldDescriptor, Function, DataType, Device, NDArrayBase, ArrayBase, MapBase,
             ShapeTupleBase):
    _cls.__module__ = __name__
del _cls
