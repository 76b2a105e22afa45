"""The primitives: what each FFI backend's ``core`` module exports, the one list both must match.

tvmlite has two backends for ``core``, Cython (``_cython/*.pxi`` -> ``core.pyx``) and ctypes (``_ctypes/*.py``).
Each implements only what touches C memory or sits on a hot path: calls and argument/return conversion, handles and
their class table, reflected field access, container element access, NDArray and DLPack. Everything above that is
pure Python and lives once, over these names:

* ``tvmlite/_ffi/registry.py``: ``register_object`` (type checks, dataclass-style ``__init__`` for types defined in
  Python), ``register_func``, ``_init_api``.
* ``tvmlite/runtime/container.py``: the Sequence/Mapping protocols of Array, Map and ShapeTuple.
* ``tvmlite/runtime/ndarray.py``: ``NDArray.numpy()``, ``array``, ``empty``, devices by name.
* ``tvmlite/_ffi/error.py``: which exception a C++ error becomes, and how a Python one is described to C++.
* ``tvmlite/_ffi/values.py``: conversion rules of the cold paths (C names, numpy scalars, DLPack arguments, shapes,
  device numbers, dtype names and equality, field specs of types defined in Python).

A name here is in both backends with the same meaning and signature; a name in neither list is private to a backend
(tests/python/test_ffi_primitives.py checks all of it). ``tvmlite._ffi`` refuses to import a core that lacks one.
"""

__all__ = ["FUNCTIONS", "CLASSES", "CONSTANTS", "PRIMITIVES", "missing_primitives"]

#: Module-level functions: name -> what it does.
FUNCTIONS = {
    "get_global_func": "(name, allow_missing=False): the global Function, None or ValueError when missing",
    "register_global_func": "(name, func, override=False): register a callable or Function globally",
    "remove_global_func": "(name): remove a global function (no error when absent)",
    "list_global_func_names": "(): names of every global function",
    "convert": "(value): a Python value in its tvmlite form (list -> Array, dict -> Map, callable -> Function)",
    "convert_to_function": "(pyfunc, name=None): a Python callable as a Function C++ can call",
    "from_dlpack": "(obj): an NDArray sharing the memory of a DLPack producer or Python buffer",
    "ndarray_empty": "(shape, dtype, device=None): an uninitialised compact NDArray",
    "_type_key_to_index": "(type_key, allow_missing=False): a type key's index; None or KeyError when unknown",
    "_type_info": "(tindex): (type_key, ancestors, ((name, type_str, static_type_index, writable), ...))",
    "_type_is_dynamic": "(tindex): whether the type was defined at run time (from Python)",
    "_define_object_type": "(type_key, parent_index, fields): define a type from Python; returns its index",
    "_register_object_class": "(tindex, cls): objects of tindex become cls; cls gets a descriptor per field",
    "_dyn_object_init": "(self, tindex, values): construct a Python-defined object in place from its field values",
    "_install_constructor": "(cls, ctor): cls(*args) makes its object with the C++ constructor ctor(*args)",
    "_object_live_count": "(): live C++ objects in the process (leak tests)",
}

#: Classes: name -> the members that make the primitive (public names and the protocol methods both define).
CLASSES = {
    "ObjectBase": ("handle", "type_key", "type_index", "same_as", "__init_handle_by_constructor__", "__eq__",
                   "__hash__", "__repr__", "__dir__"),
    "Function": ("__call__", "_name"),
    "FieldDescriptor": ("name", "type_str", "__get__", "__set__", "__delete__"),
    "ArrayBase": ("__len__", "__getitem__"),
    "MapBase": ("__len__", "__getitem__", "items"),
    "ShapeTupleBase": ("__len__", "__getitem__"),
    "NDArrayBase": ("shape", "ndim", "dtype", "device", "strides", "read_only", "data_ptr", "__dlpack__",
                    "__dlpack_device__"),
    "DataType": ("type_code", "bits", "lanes", "__str__", "__eq__", "__hash__", "__reduce__"),
    "Device": ("device_type", "device_id", "__eq__", "__hash__", "__reduce__", "__repr__"),
}

#: ABI constants from c_api.h (test_abi.py checks their values) and the backend's name.
CONSTANTS = (
    "BACKEND", "DEVICE_CPU", "MAX_NDIM", "DYN_FIELD_SELF",
    "TYPE_INDEX_NONE", "TYPE_INDEX_INT", "TYPE_INDEX_BOOL", "TYPE_INDEX_FLOAT", "TYPE_INDEX_OPAQUE_PTR",
    "TYPE_INDEX_DATA_TYPE", "TYPE_INDEX_DEVICE", "TYPE_INDEX_DL_TENSOR_PTR", "TYPE_INDEX_RAW_STR",
    "TYPE_INDEX_BYTE_ARRAY_PTR", "TYPE_INDEX_TENSOR_VIEW", "TYPE_INDEX_STATIC_OBJECT_BEGIN", "TYPE_INDEX_OBJECT",
    "TYPE_INDEX_STRING", "TYPE_INDEX_BYTES", "TYPE_INDEX_ERROR", "TYPE_INDEX_FUNCTION", "TYPE_INDEX_ARRAY",
    "TYPE_INDEX_MAP", "TYPE_INDEX_SHAPE", "TYPE_INDEX_NDARRAY", "TYPE_INDEX_MODULE", "TYPE_INDEX_DYN_OBJECT_BEGIN",
)

#: Every name a core exports, and only those.
PRIMITIVES = tuple(FUNCTIONS) + tuple(CLASSES) + CONSTANTS


def missing_primitives(core):
    """The primitives ``core`` lacks, as "name" or "Class.member" strings (empty when it has them all)."""
    out = [name for name in PRIMITIVES if not hasattr(core, name)]
    for cls_name, members in CLASSES.items():
        cls = getattr(core, cls_name, None)
        if cls is not None:
            out += [f"{cls_name}.{m}" for m in members if not hasattr(cls, m)]
    return out
