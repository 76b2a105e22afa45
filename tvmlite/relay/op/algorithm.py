"""Scan and sort builders: cumsum, cumprod, topk, argsort, sort, unique (csrc/relay/op/tensor/sort.cc).

cumsum/cumprod's axis and topk's k may be relay expressions (run-time scalar tensors): the dyn.* variant is made.
"""
from ..._ffi.registry import register_object
from ...ir.attrs import Attrs
from ...runtime.ndarray import DataType
from ...ir.expr import RelayExpr
from . import _make
from .dyn import _make as _dyn_make

__all__ = ["cumsum", "cumprod", "topk", "argsort", "sort", "unique"]

_DYN = {name: getattr(_dyn_make, name) for name in ("cumsum", "cumprod", "topk")}


@register_object("relay.attrs.ScanopAttrs")
class ScanopAttrs(Attrs):
    """Attributes of cumsum / cumprod: axis, dtype, exclusive, reverse."""

    __slots__ = ()


@register_object("relay.attrs.TopKAttrs")
class TopKAttrs(Attrs):
    """Attributes of topk: k, axis, ret_type, is_ascend, dtype."""

    __slots__ = ()


@register_object("relay.attrs.ArgsortAttrs")
class ArgsortAttrs(Attrs):
    """Attributes of argsort / sort: axis, is_ascend, dtype."""

    __slots__ = ()


@register_object("relay.attrs.UniqueAttrs")
class UniqueAttrs(Attrs):
    """Attributes of unique: sorted, axis."""

    __slots__ = ()


def _scan(name, data, axis, dtype, exclusive, reverse):
    dtype = DataType("void" if dtype is None else str(dtype))
    if isinstance(axis, RelayExpr):
        return _DYN[name](data, axis, None, dtype, bool(exclusive), bool(reverse))
    return getattr(_make, name)(data, None if axis is None else int(axis), dtype, bool(exclusive), bool(reverse))


def cumsum(data, axis=None, dtype=None, exclusive=False, reverse=False):
    """Cumulative sum along axis (None: over the flattened data); exclusive starts from 0, reverse from the end."""
    return _scan("cumsum", data, axis, dtype, exclusive, reverse)


def cumprod(data, axis=None, dtype=None, exclusive=False, reverse=False):
    """Cumulative product along axis (None: over the flattened data); exclusive starts from 1."""
    return _scan("cumprod", data, axis, dtype, exclusive, reverse)


def topk(data, k=1, axis=-1, ret_type="both", is_ascend=False, dtype="int64"):
    """The k largest (is_ascend: smallest) along axis, sorted, ties by the lower index. ret_type "both" gives a
    tuple-typed call (values, indices); k may be a run-time scalar tensor."""
    if isinstance(k, RelayExpr):
        return _DYN["topk"](data, k, 1, int(axis), ret_type, bool(is_ascend), DataType(str(dtype)))
    return _make.topk(data, int(k), int(axis), ret_type, bool(is_ascend), DataType(str(dtype)))


def argsort(data, axis=-1, is_ascend=True, dtype="int64"):
    """Indices that sort data along axis (stable: equal elements keep their order)."""
    return _make.argsort(data, int(axis), bool(is_ascend), DataType(str(dtype)))


def sort(data, axis=-1, is_ascend=True):
    """data sorted along axis."""
    return _make.sort(data, int(axis), bool(is_ascend), DataType("int64"))


def unique(data, sorted=True, axis=None):  # noqa: A002 - ONNX's attribute name
    """Unique elements (or slices along axis): a tuple-typed call (Y, first-occurrence indices, inverse indices,
    counts), in ascending order or (sorted=False) in order of first occurrence."""
    return _make.unique(data, bool(sorted), None if axis is None else int(axis))
