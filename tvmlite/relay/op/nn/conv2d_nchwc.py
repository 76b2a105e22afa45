"""Builders of the blocked convolutions (TVM's names): ``relay.nn.contrib_conv2d_nchwc``,
``relay.nn.contrib_depthwise_conv2d_nchwc`` and ``relay.nn.contrib_conv2d_winograd_per_shape`` (csrc/relay/op/nn/
conv2d_nchwc.cc).

Layouts: data NCHW{ic}c (N, C / ic, H, W, ic); weight OIHW{ic}i{oc}o (O / oc, C / groups / ic, KH, KW, ic, oc), or
OIHW1i{c}o (C / c, 1, KH, KW, 1, c) for depthwise (groups = C); output NCHW{oc}c. AlterOpLayout makes them from
nn.conv2d; building them by hand is for tests and for graphs already blocked.
"""
from . import _make
from .nn import _ints, _dtype

__all__ = ["contrib_conv2d_nchwc", "contrib_depthwise_conv2d_nchwc", "contrib_conv2d_winograd_per_shape"]


def contrib_conv2d_nchwc(data, kernel, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, channels=None,
                         kernel_size=None, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c",
                         out_dtype=""):
    """2-D convolution of blocked data (relay op 'nn.contrib_conv2d_NCHWc')."""
    return _make.contrib_conv2d_NCHWc(data, kernel, _ints(strides), _ints(padding), _ints(dilation), int(groups),
                                      channels, _ints(kernel_size), data_layout, kernel_layout, out_layout,
                                      _dtype(out_dtype))


def contrib_depthwise_conv2d_nchwc(data, kernel, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                                   channels=None, kernel_size=None, data_layout="NCHW8c", kernel_layout="OIHW1i8o",
                                   out_layout="NCHW8c", out_dtype=""):
    """Depthwise 2-D convolution of blocked data, groups = channels (relay op 'nn.contrib_depthwise_conv2d_NCHWc')."""
    return _make.contrib_depthwise_conv2d_NCHWc(data, kernel, _ints(strides), _ints(padding), _ints(dilation),
                                                int(groups), channels, _ints(kernel_size), data_layout,
                                                kernel_layout, out_layout, _dtype(out_dtype))


def contrib_conv2d_winograd_per_shape(data, kernel, transformed, strides=(1, 1), padding=(0, 0), dilation=(1, 1),
                                      groups=1, channels=None, kernel_size=None, data_layout="NCHW8c",
                                      kernel_layout="OIHW8i8o", out_layout="NCHW8c", out_dtype=""):
    """A blocked 3x3 conv (contrib_conv2d_nchwc's arguments) whose kernel picks Winograd or the direct conv per
    run-time shape (relay op 'nn.contrib_conv2d_winograd_per_shape'): ``transformed`` lists the filters transformed
    for one or two tile sizes, each (alpha, alpha, O / oc, C, oc) (HWOI{oc}o; 4C at stride 2). AlterOpLayout makes it
    from a 3x3 conv whose output plane is symbolic."""
    if not isinstance(transformed, (list, tuple)):
        raise TypeError("contrib_conv2d_winograd_per_shape: transformed must be a list of expressions, got "
                        + type(transformed).__name__)
    return _make.contrib_conv2d_winograd_per_shape([data, kernel, *transformed], _ints(strides), _ints(padding),
                                                   _ints(dilation), int(groups), channels, _ints(kernel_size),
                                                   data_layout, kernel_layout, out_layout, _dtype(out_dtype))
