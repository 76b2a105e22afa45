"""TVM's layout strings and ``relay.layout_transform``.

A layout names a tensor's axes: primal axes are uppercase letters (N, C, H, W, O, I, ...), a sub-axis
``<factor><lowercase>`` is the inner part of its primal axis split by factor. ``NCHW16c`` is (N, C / 16, H, W, 16);
``OIHW16i16o`` is (O / 16, I / 16, KH, KW, 16, 16). Parsing and the shape arithmetic live in C++
(csrc/relay/layout.cc, one definition shared by the relation, the kernel and the reference); this module is the
Python face of it.
"""
from . import _layout_api, _make

__all__ = ["layout_transform", "parse_layout", "transform_shape"]


def layout_transform(data, src_layout, dst_layout):
    """data (in src_layout) as the same tensor in dst_layout, e.g. NCHW -> NCHW16c (TVM's relay.layout_transform)."""
    return _make.layout_transform(data, str(src_layout), str(dst_layout))


def parse_layout(layout):
    """The axes of a layout as (name, factor) pairs, factor 0 for a primal axis: "NCHW16c" -> [("N", 0), ...,
    ("c", 16)]. ValueError when the string is malformed (unknown character, sub-axis without its primal axis,
    duplicate axis, factor <= 0)."""
    return [(str(name), int(factor)) for name, factor in _layout_api.ParseLayout(str(layout))]


def transform_shape(shape, src_layout, dst_layout):
    """The shape in dst_layout of a tensor of shape in src_layout; ValueError when a factor does not divide."""
    dims = [int(d) for d in shape]
    return tuple(int(d) for d in _layout_api.TransformShape(str(src_layout), str(dst_layout), dims))

