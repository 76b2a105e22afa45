"""Conversion rules shared by both FFI backends, for the cold paths (the hot ones live in each core).

Names handed to C (function names, type keys, field names) must be UTF-8 without NUL bytes: C reads them up to the
first NUL, so ``"K\\x00a"`` and ``"K\\x00b"`` would silently become the same key. numpy scalars convert by dtype
kind, and only where the value survives the trip.
"""
import sys

__all__ = ["c_name", "numpy_scalar_value", "str_utf8_fallback"]


def c_name(name, what):
    """``name`` (a str) encoded for a C string; TypeError or ValueError naming ``what`` when it cannot be one."""
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__}")
    try:
        data = name.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"{what} {name!r} cannot be encoded as UTF-8 ({err.reason} at position {err.start})") \
            from None
    if b"\0" in data:
        raise ValueError(f"{what} {name!r} contains a NUL byte")
    return data


def numpy_scalar_value(arg, fname, index):
    """The plain Python value of a numpy scalar, or None when arg is not one.

    bool, integer and float kinds up to 64 bits map exactly onto tvmlite's bool, int and float; anything else
    (long double, complex, datetime, structured) has no lossless mapping and is a TypeError.
    """
    numpy = sys.modules.get("numpy")  # a numpy scalar can only exist once numpy is imported
    if numpy is None or not isinstance(arg, numpy.generic):
        return None
    dtype = arg.dtype
    if dtype.kind == "b":
        return bool(arg)
    if dtype.kind in "iu":
        return int(arg)
    if dtype.kind == "f" and dtype.itemsize <= 8:
        return float(arg)
    raise TypeError(f"{fname}: argument #{index} is a numpy {dtype.name} scalar, which has no lossless "
                    f"tvmlite value (convert it to int, float or a 0-d array first)")


def str_utf8_fallback(arg, fname, index):
    """The UTF-8 bytes of a str that strict UTF-8 rejects: surrogate escapes (undecodable bytes that came back
    from C++ as str, see ``surrogateescape``) round-trip to their bytes; a lone surrogate is a ValueError."""
    try:
        return arg.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as err:
        raise ValueError(f"{fname}: argument #{index} is a str with a lone surrogate at position {err.start}, "
                         f"which UTF-8 cannot encode") from None
