"""Structural equality and hashing, and JSON save/load of any tvmlite value (pickling uses these).

The work is done in C++ (``csrc/runtime/structural_equal.cc``, ``structural_hash.cc``, ``json.cc``) by reflection:
every registered object type, including those defined in Python with ``register_object``, takes part.
"""
from __future__ import annotations

from typing import Any

from . import _ffi_api

__all__ = ["structural_equal", "structural_hash", "assert_structural_equal", "save_json", "load_json"]


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> bool:
    """Whether two values are structurally equal: same kinds, same plain values, equal container contents, and
    for objects the same type with structurally equal reflected fields (shared sub-graphs are compared once).

    Parameters
    ----------
    lhs, rhs : object
        Any values tvmlite can pass (objects, numbers, str, lists, dicts, ...).
    map_free_vars : bool
        Whether variables that are not bound by a definition may be mapped to each other (one-to-one).

    Returns
    -------
    equal : bool

    Example
    -------
    >>> from tvmlite.testing import Pair
    >>> tvmlite.structural_equal(Pair(1, [2, 3]), Pair(1, [2, 3]))
    True
    """
    return _ffi_api.StructuralEqual(lhs, rhs, map_free_vars)


def structural_hash(value: Any, map_free_vars: bool = False) -> int:
    """A hash consistent with :func:`structural_equal` that is the same in every process (an int64).

    ``map_free_vars`` is accepted for TVM compatibility; the hash agrees with equality in both modes.

    Example
    -------
    >>> tvmlite.structural_hash([1, "a"]) == tvmlite.structural_hash([1, "a"])
    True
    """
    return _ffi_api.StructuralHash(value, map_free_vars)


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    """Raise ValueError naming the first difference (its path from the root) unless lhs and rhs are equal.

    Example
    -------
    >>> tvmlite.runtime.assert_structural_equal([1, 2], [1, 3])
    Traceback (most recent call last):
    ValueError: structural equality check failed at root[1]: 2 vs 3 ...
    """
    mismatch = _ffi_api.StructuralMismatch(lhs, rhs, map_free_vars)
    if mismatch is not None:
        raise ValueError(f"structural equality check failed at {mismatch}\n"
                         f"  lhs: {_short_repr(lhs)}\n  rhs: {_short_repr(rhs)}")


def _short_repr(value, limit=400):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def save_json(value: Any) -> str:
    """Save a value or object graph as JSON text; shared objects are saved once (the DAG survives a round trip).

    Raises TypeError for what cannot be saved (functions, modules, opaque pointers).

    Example
    -------
    >>> from tvmlite.testing import Pair
    >>> p = tvmlite.load_json(tvmlite.save_json(Pair(1, "a")))
    >>> (p.first, p.second)
    (1, 'a')
    """
    return _ffi_api.SaveJSON(value)


def load_json(json: str) -> Any:
    """Load what :func:`save_json` wrote. Raises ValueError on malformed text or an unknown type key (import the
    module that registers the type first)."""
    if not isinstance(json, str):
        raise TypeError(f"load_json expects a str, got {type(json).__name__}")
    return _ffi_api.LoadJSON(json)


def _object_from_json(cls, json):
    """Unpickle: ``cls`` is only named so that pickle imports the module that registers the object's type."""
    del cls
    return load_json(json)
