# cython: language_level=3, boundscheck=True, wraparound=True
# Bounds checks stay on: unchecked indexing of a Python list that user code can resize is a crash.
"""tvmlite's FFI core: one extension built from the .pxi files below (see each for its concept). It exports exactly
the primitives of tvmlite/_ffi/primitives.py; the cold logic over them is pure Python, shared with the ctypes core.

ABI constants, for pure-Python code (both backends export the same names and values; test_abi.py checks it):

* ``TYPE_INDEX_<KIND>``: the type index of each static kind of c_api.h, ``kTVMLite<Kind>`` -> ``TYPE_INDEX_<KIND>``
  (``TYPE_INDEX_INT``, ``TYPE_INDEX_STRING``, ``TYPE_INDEX_OBJECT``, ``TYPE_INDEX_NDARRAY``...). An index
  ``>= TYPE_INDEX_STATIC_OBJECT_BEGIN`` is an object; ``TYPE_INDEX_DYN_OBJECT_BEGIN`` is the first handed out at run
  time.
* ``DYN_FIELD_SELF``: the static type index of a field whose values are the type being defined.
* ``DEVICE_CPU``: DLPack's device type of the CPU (kDLCPU).
* ``MAX_NDIM``: the most dimensions an NDArray may have (kTVMLiteMaxNDim).

This core takes them from the C enums at compile time; the ctypes core reads them from TVMLiteGetABIConstants().
"""
include "base.pxi"
include "object.pxi"
include "packed_func.pxi"
include "ndarray.pxi"
include "container.pxi"

BACKEND = "cython"

TYPE_INDEX_NONE = kTVMLiteNone
TYPE_INDEX_INT = kTVMLiteInt
TYPE_INDEX_BOOL = kTVMLiteBool
TYPE_INDEX_FLOAT = kTVMLiteFloat
TYPE_INDEX_OPAQUE_PTR = kTVMLiteOpaquePtr
TYPE_INDEX_DATA_TYPE = kTVMLiteDataType
TYPE_INDEX_DEVICE = kTVMLiteDevice
TYPE_INDEX_DL_TENSOR_PTR = kTVMLiteDLTensorPtr
TYPE_INDEX_RAW_STR = kTVMLiteRawStr
TYPE_INDEX_BYTE_ARRAY_PTR = kTVMLiteByteArrayPtr
TYPE_INDEX_TENSOR_VIEW = kTVMLiteTensorView
TYPE_INDEX_STATIC_OBJECT_BEGIN = kTVMLiteStaticObjectBegin
TYPE_INDEX_OBJECT = kTVMLiteObject
TYPE_INDEX_STRING = kTVMLiteString
TYPE_INDEX_BYTES = kTVMLiteBytes
TYPE_INDEX_ERROR = kTVMLiteError
TYPE_INDEX_FUNCTION = kTVMLiteFunction
TYPE_INDEX_ARRAY = kTVMLiteArray
TYPE_INDEX_MAP = kTVMLiteMap
TYPE_INDEX_SHAPE = kTVMLiteShape
TYPE_INDEX_NDARRAY = kTVMLiteNDArray
TYPE_INDEX_MODULE = kTVMLiteModule
TYPE_INDEX_DYN_OBJECT_BEGIN = kTVMLiteDynObjectBegin
DEVICE_CPU = kDLCPU
MAX_NDIM = kTVMLiteMaxNDim
_CLASS_INDEX.update({ObjectBase: kTVMLiteObject, Function: kTVMLiteFunction, ArrayBase: kTVMLiteArray,
                     MapBase: kTVMLiteMap, ShapeTupleBase: kTVMLiteShape, NDArrayBase: kTVMLiteNDArray})
TVMLiteInstallInitByCtor(ObjectBase)
