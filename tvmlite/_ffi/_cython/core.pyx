# cython: language_level=3
"""tvmlite's FFI core: one extension built from the .pxi files below (see each for its concept)."""
include "base.pxi"
include "object.pxi"
include "packed_func.pxi"
include "ndarray.pxi"
include "container.pxi"

BACKEND = "cython"
TVMLiteInstallInitByCtor(ObjectBase)
