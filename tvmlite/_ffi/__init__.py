"""The FFI: Python <-> tvmlite's C ABI.

Two backends implement the same low-level module, ``core``:

* ``tvmlite._ffi._cython.core`` (default): compiled, fast.
* ``tvmlite._ffi._ctypes.core``: pure ctypes, selected with ``TVMLITE_FFI=ctypes``. It exists to measure what
  Cython buys and to debug; it is never a silent fallback: a missing Cython core is an ImportError.
"""
import os

_BACKEND = os.environ.get("TVMLITE_FFI", "cython")

if _BACKEND == "cython":
    try:
        from ._cython import core
    except ImportError as err:  # pragma: no cover - depends on the build
        raise ImportError(
            f"tvmlite: the Cython FFI core is not built or cannot load ({err}). Build it with `pip install .` "
            "(or `pip install -e .`); set TVMLITE_FFI=ctypes to use the slow ctypes backend on purpose."
        ) from err
elif _BACKEND == "ctypes":
    from ._ctypes import core
else:
    raise ImportError(f"tvmlite: TVMLITE_FFI must be 'cython' or 'ctypes', got {_BACKEND!r}")

__all__ = ["core"]
