"""ABI facts come from the core: both backends export the same constants, taken from c_api.h (the Cython core at
compile time, the ctypes core from the runtime's TVMLiteGetABIConstants table), and the ctypes structures match the
C layouts the table reports."""
import ctypes
import os
import shutil
import subprocess

import pytest

from tvmlite._ffi._ctypes import base as ct_base
from tvmlite._ffi._ctypes import core as ct

cy = pytest.importorskip("tvmlite._ffi._cython.core")

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The contract: each Python-level name and the C constant it stands for.
EXPORTED = {
    "TYPE_INDEX_NONE": "kTVMLiteNone",
    "TYPE_INDEX_INT": "kTVMLiteInt",
    "TYPE_INDEX_BOOL": "kTVMLiteBool",
    "TYPE_INDEX_FLOAT": "kTVMLiteFloat",
    "TYPE_INDEX_OPAQUE_PTR": "kTVMLiteOpaquePtr",
    "TYPE_INDEX_DATA_TYPE": "kTVMLiteDataType",
    "TYPE_INDEX_DEVICE": "kTVMLiteDevice",
    "TYPE_INDEX_DL_TENSOR_PTR": "kTVMLiteDLTensorPtr",
    "TYPE_INDEX_RAW_STR": "kTVMLiteRawStr",
    "TYPE_INDEX_BYTE_ARRAY_PTR": "kTVMLiteByteArrayPtr",
    "TYPE_INDEX_TENSOR_VIEW": "kTVMLiteTensorView",
    "TYPE_INDEX_STATIC_OBJECT_BEGIN": "kTVMLiteStaticObjectBegin",
    "TYPE_INDEX_OBJECT": "kTVMLiteObject",
    "TYPE_INDEX_STRING": "kTVMLiteString",
    "TYPE_INDEX_BYTES": "kTVMLiteBytes",
    "TYPE_INDEX_ERROR": "kTVMLiteError",
    "TYPE_INDEX_FUNCTION": "kTVMLiteFunction",
    "TYPE_INDEX_ARRAY": "kTVMLiteArray",
    "TYPE_INDEX_MAP": "kTVMLiteMap",
    "TYPE_INDEX_SHAPE": "kTVMLiteShape",
    "TYPE_INDEX_NDARRAY": "kTVMLiteNDArray",
    "TYPE_INDEX_MODULE": "kTVMLiteModule",
    "TYPE_INDEX_DYN_OBJECT_BEGIN": "kTVMLiteDynObjectBegin",
    "DYN_FIELD_SELF": "kTVMLiteDynFieldSelf",
    "DEVICE_CPU": "kDLCPU",
    "MAX_NDIM": "kTVMLiteMaxNDim",
}


def _int_constants(module):
    return {name: value for name, value in vars(module).items() if name.isupper() and type(value) is int}


def test_both_backends_export_the_same_constants():
    assert _int_constants(cy) == _int_constants(ct)
    assert set(_int_constants(cy)) == set(EXPORTED)


def test_exported_constants_are_the_c_values():
    for name, c_name in EXPORTED.items():
        assert getattr(cy, name) == ct_base.ABI[c_name], name
    # Spot checks against the header's documented values: a renumbering is an ABI break.
    assert (cy.TYPE_INDEX_INT, cy.TYPE_INDEX_OBJECT, cy.TYPE_INDEX_STRING, cy.TYPE_INDEX_MODULE) == (1, 64, 65, 73)
    assert (cy.DEVICE_CPU, cy.MAX_NDIM, cy.DYN_FIELD_SELF) == (1, 32, -2)


def test_table_layout_facts():
    table, num = ctypes.POINTER(ct_base.TVMLiteABIConstant)(), ctypes.c_int32()
    assert ct_base.LIB.TVMLiteGetABIConstants(ctypes.byref(table), ctypes.byref(num)) == 0
    assert num.value == len(ct_base.ABI)  # names are unique
    abi = ct_base.ABI
    assert abi["sizeof(TVMLiteAny)"] == ct_base.ANY_SIZE == 16
    assert abi["sizeof(TVMLiteObject)"] == ct_base.HEADER_SIZE == 24
    assert abi["offsetof(TVMLiteNDArrayObject, tensor)"] == abi["sizeof(TVMLiteObject)"]  # cells follow the header
    assert ct_base.kTVMLiteInt == abi["kTVMLiteInt"] and ct_base.kDLFloat == abi["kDLFloat"]


@pytest.mark.parametrize("struct", ct_base.MIRRORED_STRUCTS, ids=lambda s: s.__name__)
def test_ctypes_structures_match_the_c_layouts(struct):
    assert f"sizeof({struct.__name__})" in ct_base.ABI
    assert ct_base.check_layout(struct) == []


def test_a_mismatched_structure_is_reported():
    class TVMLiteByteArray(ctypes.Structure):  # size before data: wrong
        _fields_ = [("size", ctypes.c_int64), ("data", ctypes.c_void_p)]

    class TVMLiteAny(ctypes.Structure):  # 12 bytes, value at 4
        _fields_ = [("type_index", ctypes.c_int32), ("v_int64", ctypes.c_int32), ("pad", ctypes.c_int32)]

    assert ct_base.check_layout(TVMLiteByteArray) == [
        "offsetof(TVMLiteByteArray, data) is 0 in C, 8 here", "offsetof(TVMLiteByteArray, size) is 8 in C, 0 here"]
    problems = ct_base.check_layout(TVMLiteAny)
    assert "sizeof(TVMLiteAny) is 16 in C, 12 here" in problems
    assert "offsetof(TVMLiteAny, reserved) is 4 in C, None here" in problems
    assert "offsetof(TVMLiteAny, v_int64) is 8 in C, 4 here" in problems


@pytest.mark.parametrize("compiler,flags", [("cc", ["-x", "c", "-std=c11"]), ("c++", ["-x", "c++", "-std=c++11"])])
def test_c_api_header_compiles_with_its_static_asserts(compiler, flags):
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    proc = subprocess.run([compiler, *flags, "-fsyntax-only", "-Wall", "-Werror", "-I", "csrc/include", "-"],
                          input='#include "tvmlite/c_api.h"\n', cwd=REPO_ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
