"""tvmlite's pure-ctypes FFI backend (``TVMLITE_FFI=ctypes``): the same ``core`` module as the Cython one.

It is the baseline that shows what Cython buys, and a debugging aid. The submodules mirror the Cython core's .pxi
files and import each other in a cycle (as one Cython module they share a namespace), so ``core`` is imported here
first: it fixes the import order whichever submodule is asked for.
"""
from . import core  # noqa: F401
