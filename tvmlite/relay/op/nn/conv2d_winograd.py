"""Builders of the Winograd convolution (TVM's names; csrc/relay/op/nn/conv2d_winograd.cc):
``relay.nn.contrib_conv2d_winograd_weight_transform`` and ``relay.nn.contrib_conv2d_winograd_without_weight_transform``.

AlterOpLayout makes them from a 3x3 stride-1 or stride-2 nn.conv2d when topi.nn.conv2d_winograd_tile picks a tile size;
building them by hand is for tests. The weight transform of a constant weight folds at build time.
"""
from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from . import _make
from . import _winograd  # noqa: F401  (registers the references)
from .nn import _ints, _dtype

__all__ = ["contrib_conv2d_winograd_weight_transform", "contrib_conv2d_winograd_without_weight_transform"]


@register_object("relay.attrs.ConvWinogradWeightTransformAttrs")
class ConvWinogradWeightTransformAttrs(Attrs):
    """Attributes of nn.contrib_conv2d_winograd_weight_transform: tile_size, stride."""

    __slots__ = ()


@register_object("relay.attrs.Conv2DWinogradAttrs")
class Conv2DWinogradAttrs(Attrs):
    """Attributes of nn.contrib_conv2d_winograd_without_weight_transform: tile_size and Conv2DAttrs' fields."""

    __slots__ = ()


def contrib_conv2d_winograd_weight_transform(weight, tile_size=4, stride=1):
    """weight (O, C, 3, 3) -> (tile_size + 2, tile_size + 2, O, C): G g G^T per filter. stride=2:
    (tile_size + 1, tile_size + 1, O, 4C), the filters of the input's four parity phases by F(m x m, 2 x 2)
    (tvmlite/topi/nn/winograd.h)."""
    return _make.contrib_conv2d_winograd_weight_transform(weight, int(tile_size), int(stride))


def contrib_conv2d_winograd_without_weight_transform(data, weight, tile_size=4, strides=(1, 1), padding=(1, 1),
                                                     dilation=(1, 1), groups=1, channels=None, kernel_size=(3, 3),
                                                     data_layout="NCHW16c", kernel_layout="HWOI16o",
                                                     out_layout="NCHW16c", out_dtype=""):
    """3x3 conv of blocked data with transformed filters (alpha, alpha, O / oc, C, oc) ("HWOI{oc}o"); strides (2, 2)
    take (tile_size + 1, tile_size + 1, O / oc, 4C, oc)."""
    return _make.contrib_conv2d_winograd_without_weight_transform(
        data, weight, int(tile_size), _ints(strides), _ints(padding), _ints(dilation), int(groups), channels,
        _ints(kernel_size), data_layout, kernel_layout, out_layout, _dtype(out_dtype))
