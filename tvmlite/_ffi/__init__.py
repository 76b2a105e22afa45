"""The FFI: Python <-> tvmlite's C ABI.

Two backends implement the same low-level module, ``core``:

* ``tvmlite._ffi._cython.core`` (default): compiled, fast.
* ``tvmlite._ffi._ctypes.core``: pure ctypes, selected with ``TVMLITE_FFI=ctypes``. It exists to measure what
  Cython buys and to debug; it is never a silent fallback: a missing Cython core is an ImportError.

Both export the same primitives (listed in ``primitives.py``); the logic above them is pure Python, written once.
"""
import os
from typing import TYPE_CHECKING

_BACKEND = os.environ.get("TVMLITE_FFI", "cython")

if TYPE_CHECKING:  # both cores export the same primitives: _cython/core.pyi types them
    from ._cython import core
elif _BACKEND == "cython":
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

from .primitives import missing_primitives  # noqa: E402  (checks the core chosen above)

_MISSING = missing_primitives(core)
if _MISSING:  # a stale build, or a backend that fell behind the other: fail here, not at first use
    raise ImportError(f"tvmlite: the {_BACKEND} FFI core ({core.__file__}) lacks the primitives {_MISSING}; rebuild it "
                      "(`python setup.py build_ext --inplace`) or see tvmlite/_ffi/primitives.py")
del _MISSING

__all__ = ["core"]
