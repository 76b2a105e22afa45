"""Reading ONNX tensors (initializers, tensor attributes) with their external data confined to one folder.

A TensorProto may keep its bytes in another file (``data_location=EXTERNAL``, ``external_data`` entries location /
offset / length). Where that file may be is a security question, since a model is untrusted input:

- a model read from a path reads them from the model's folder (or ``base_dir`` when the caller names one);
- a model given as bytes or as a ModelProto has no folder: its external data is refused, with an error saying so,
  unless the caller names ``base_dir`` (never the process's working directory, which is what onnx's
  ``numpy_helper.to_array(t)`` would use);
- a location is resolved under that folder and may not leave it: no absolute path, no '..' component, no symlink
  whose target lies outside. onnx (1.23) checks the same when it opens the file; this check does not depend on the
  installed onnx version, and its errors name the tensor.
"""
import os

from ....error import get_error_class

__all__ = ["read_tensor", "uses_external_data"]

ValueError_ = get_error_class("ValueError")


_VALUE_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


def uses_external_data(tensor):
    return tensor.HasField("data_location") and tensor.data_location == tensor.EXTERNAL


def _location(tensor):
    for entry in tensor.external_data:
        if entry.key == "location":
            return entry.value
    return None


def _confined_path(base_dir, location, what):
    """The real path of location under base_dir; ValueError when it is absolute or resolves outside."""
    if not location:
        raise ValueError_(f"{what}: its external data names no file (no 'location' entry)")
    if "\0" in location:
        raise ValueError_(f"{what}: external data location {location!r} holds a NUL byte")
    parts = location.replace("\\", "/").split("/")
    drive = len(parts[0]) == 2 and parts[0][1] == ":"  # C:/... on Windows
    if os.path.isabs(location) or not parts[0] or drive or ".." in parts:
        raise ValueError_(f"{what}: external data location {location!r} must be a relative path inside the "
                          f"model's folder")
    root = os.path.realpath(base_dir)
    path = os.path.realpath(os.path.join(root, location))
    if os.path.commonpath([root, path]) != root:
        raise ValueError_(f"{what}: external data location {location!r} resolves outside the model's folder "
                          f"({base_dir!r})")
    if not os.path.isfile(path):
        raise ValueError_(f"{what}: external data file {location!r} does not exist in {base_dir!r}")
    return path


def read_tensor(tensor, base_dir, what):
    """tensor's value as a numpy array; external data only from inside base_dir (None: refused).

    what names the tensor in errors (``initializer 'w'``, ``node 'c' (Constant): attribute 'value'``)."""
    from onnx import numpy_helper

    fields = [f for f in _VALUE_FIELDS if len(getattr(tensor, f))] + ["raw_data"] * tensor.HasField("raw_data")
    if uses_external_data(tensor):
        fields.append("external data")
    if len(fields) > 1:  # as onnx's checker: which one holds the values would be a guess (onnxruntime refuses it)
        raise ValueError_(f"{what}: its values are in more than one field ({', '.join(fields)})")
    if uses_external_data(tensor):
        location = _location(tensor)
        if base_dir is None:
            raise ValueError_(f"{what}: its data is in an external file ({location!r}), and a model given as bytes "
                              f"or a ModelProto has no folder to read it from: pass base_dir= to from_onnx (the "
                              f"folder the model's files are in), or load the model from its path")
        _confined_path(base_dir, location, what)
    try:
        return numpy_helper.to_array(tensor, base_dir=base_dir or "")
    except Exception as err:  # noqa: BLE001 - a malformed TensorProto or external data entry
        raise ValueError_(f"{what} cannot be read: {err}") from None
