"""numpy references of the layout ops: layout_transform and the blocked convolutions nn.contrib_conv2d_NCHWc,
nn.contrib_depthwise_conv2d_NCHWc, nn.contrib_conv2d_winograd_per_shape (the direct conv's) and the 3-D forms
nn.contrib_conv3d_NCDHWc, nn.contrib_depthwise_conv3d_NCDHWc.

They are oracles, so they are the simplest correct thing: layout_transform is a transpose that groups each primal
axis with its sub-axis, a reshape to the logical (unblocked) tensor, a reshape that splits it by the destination's
factors and a transpose into the destination's order; the blocked convolutions unpack data and weight to
NCHW / OIHW (NCDHW / OIDHW), run nn.conv2d's (nn.conv3d's) reference, and pack the result.
"""
import numpy as np

from .layout import parse_layout, transform_shape
from .nn._nn import _conv
from .op import register_reference


def transform_array(x, src_layout, dst_layout):
    """x (in src_layout) in dst_layout; ValueError as the relation's when the shape does not fit."""
    x = np.asarray(x)
    transform_shape(x.shape, src_layout, dst_layout)  # validates rank, sub-axis dims and divisibility
    src = parse_layout(src_layout)
    dst = dict(parse_layout(dst_layout))
    names = [name for name, _ in src]
    primals = [name for name, factor in src if factor == 0]
    order, logical = [], []
    for p in primals:
        order.append(names.index(p))
        extent = x.shape[names.index(p)]
        if p.lower() in names:
            order.append(names.index(p.lower()))
            extent *= x.shape[names.index(p.lower())]
        logical.append(extent)
    y = x.transpose(order).reshape(logical)
    split, split_names = [], []
    for p, extent in zip(primals, logical):
        factor = dst.get(p.lower(), 0)
        if factor:
            split += [extent // factor, factor]
            split_names += [p, p.lower()]
        else:
            split.append(extent)
            split_names.append(p)
    y = y.reshape(split)
    return np.ascontiguousarray(y.transpose([split_names.index(name) for name, _ in parse_layout(dst_layout)]))


def _out_layout(attrs, plain):
    if attrs.out_layout:
        return attrs.out_layout
    return plain + "%dc" % dict(parse_layout(attrs.kernel_layout))["o"]


@register_reference("layout_transform")
def _layout_transform(attrs, data):
    return transform_array(data, attrs.src_layout, attrs.dst_layout)


@register_reference("nn.contrib_conv2d_NCHWc")
def _conv2d_nchwc(attrs, data, weight):
    plain, kernel = ("NCHW", "OIHW") if np.ndim(data) == 5 else ("NCDHW", "OIDHW")
    x = transform_array(data, attrs.data_layout, plain)
    w = transform_array(weight, attrs.kernel_layout, kernel)
    return transform_array(_conv(attrs, x, w), plain, _out_layout(attrs, plain))


register_reference("nn.contrib_depthwise_conv2d_NCHWc", _conv2d_nchwc)


@register_reference("nn.contrib_conv2d_winograd_per_shape")
def _conv2d_winograd_per_shape(attrs, data, weight, *transformed):
    # the same conv whichever kernel its shape takes: the direct one's reference (the transformed filters are U of
    # weight, checked by the type relation)
    return _conv2d_nchwc(attrs, data, weight)


register_reference("nn.contrib_conv3d_NCDHWc", _conv2d_nchwc)
register_reference("nn.contrib_depthwise_conv3d_NCDHWc", _conv2d_nchwc)
