# cython: language_level=3, boundscheck=True, wraparound=True
# Bounds checks stay on: unchecked indexing of a Python list that user code can resize is a crash.
"""tvmlite's FFI core: one extension built from the .pxi files below (see each for its concept)."""
include "base.pxi"
include "object.pxi"
include "packed_func.pxi"
include "ndarray.pxi"
include "container.pxi"

BACKEND = "cython"
_CLASS_INDEX.update({ObjectBase: kTVMLiteObject, Function: kTVMLiteFunction, ArrayBase: kTVMLiteArray,
                     MapBase: kTVMLiteMap, ShapeTupleBase: kTVMLiteShape, NDArrayBase: kTVMLiteNDArray})
TVMLiteInstallInitByCtor(ObjectBase)
