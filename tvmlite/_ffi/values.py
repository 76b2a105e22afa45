"""Conversion rules shared by both FFI backends, for the cold paths (the hot ones live in each core).

Names handed to C (function names, type keys, field names) must be UTF-8 without NUL bytes: C reads them up to the
first NUL, so ``"K\\x00a"`` and ``"K\\x00b"`` would silently become the same key. numpy scalars convert by dtype
kind, and only where the value survives the trip.
"""
import sys

__all__ = ["c_name", "numpy_scalar_value", "str_utf8_fallback", "dlpack_export_version", "shape_dims",
           "device_numbers", "dtype_name", "data_type_eq", "dyn_field_specs"]


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


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_int_pair(x):
    return isinstance(x, tuple) and len(x) == 2 and _is_int(x[0]) and _is_int(x[1])


def dlpack_export_version(device, stream, max_version, dl_device, copy):
    """Check ``NDArray.__dlpack__``'s keyword arguments (array API standard) for an array on ``device`` (a
    (device_type, device_id) tuple); True when the consumer takes DLPack 1.0 (the versioned capsule).

    A wrongly typed argument is a TypeError; a request tvmlite cannot meet (a copy, another device) a BufferError.
    """
    if stream is not None and not _is_int(stream):
        raise TypeError(f"NDArray.__dlpack__: stream must be None or an int, got {type(stream).__name__}")
    if max_version is not None and not _is_int_pair(max_version):
        raise TypeError(f"NDArray.__dlpack__: max_version must be None or a (major, minor) tuple of ints, "
                        f"got {max_version!r}")
    if dl_device is not None and not _is_int_pair(dl_device):
        raise TypeError(f"NDArray.__dlpack__: dl_device must be None or a (device_type, device_id) tuple of ints, "
                        f"got {dl_device!r}")
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"NDArray.__dlpack__: copy must be None or a bool, got {type(copy).__name__}")
    if copy:
        raise BufferError("NDArray.__dlpack__: copy=True is not supported; copy with numpy afterwards")
    if dl_device is not None and dl_device != device:
        raise BufferError(f"NDArray.__dlpack__: cannot export to device {dl_device}")
    return max_version is not None and max_version[0] >= 1


def shape_dims(shape, fname):
    """``shape`` as a tuple of ints for C: TypeError for a non-integer, ValueError for one outside [0, 2**63)."""
    import operator

    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"{fname}: shape must be a sequence of ints, got {type(shape).__name__}") from None
    out = []
    for d in dims:
        try:
            d = operator.index(d)
        except TypeError:
            raise TypeError(f"{fname}: shape must hold ints, got {type(d).__name__} in {dims}") from None
        if not 0 <= d < 1 << 63:
            raise ValueError(f"{fname}: dimension {d} of shape {dims} is out of range [0, 2**63)")
        out.append(d)
    return tuple(out)


def device_numbers(device_type, device_id):
    """``(device_type, device_id)`` as int64s for C, which checks that they name a device: TypeError for a
    non-integer (a float would silently truncate), ValueError for one no int64 holds."""
    import operator

    out = []
    for what, value in (("device_type", device_type), ("device_id", device_id)):
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(f"Device: {what} must be an int, got {type(value).__name__}") from None
        if not -(1 << 63) <= value < 1 << 63:
            raise ValueError(f"Device: {what} {value} is out of range")
        out.append(value)
    return tuple(out)


def dtype_name(dtype):
    """The name ``DataType(dtype)`` parses: a str itself, else its ``.name`` (numpy dtypes) or ``str()``."""
    return dtype if isinstance(dtype, str) else str(getattr(dtype, "name", dtype))


def data_type_eq(dtype, other, cls):
    """``dtype == other`` for a DataType of class ``cls``: the same code, bits and lanes as another DataType or as the
    dtype a str names (False for a str that names none); NotImplemented for anything else."""
    if isinstance(other, str):
        try:
            other = cls(other)
        except Exception:
            return False
    if not isinstance(other, cls):
        return NotImplemented
    return (dtype.type_code, dtype.bits, dtype.lanes) == (other.type_code, other.bits, other.lanes)


def dyn_field_specs(type_key, fields):
    """The fields of a type defined from Python, ``[(name, type_str, static_type_index, optional)]``, with name and
    type_str encoded as C names (the caller keeps this list alive while C reads them)."""
    if not isinstance(fields, list):
        raise TypeError(f"Argument 'fields' has incorrect type (expected list, got {type(fields).__name__})")
    out = []
    for name, type_str, static_index, optional in fields:
        out.append((c_name(name, f"register_object('{type_key}'): field name"),
                    c_name(type_str, f"register_object('{type_key}'): type of field {name!r}"), static_index,
                    bool(optional)))
    return out
