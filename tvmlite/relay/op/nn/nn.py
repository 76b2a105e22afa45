"""Neural-network op builders: ``relay.nn.conv2d(data, weight, ...)``, pooling, dense/matmul, einsum
(csrc/relay/op/nn/).

Layouts are channel-first: data (batch, channels, *spatial) NCW/NCHW/NCDHW; conv weights (out, in / groups,
*kernel) OIW/OIHW/OIDHW; transposed-conv weights (in, out / groups, *kernel) IOW/IOHW/IODHW.

Window arguments take TVM's forms: an int (every dim), one value per spatial dim, and for ``padding`` also
2 * rank values (begin..., end...). The C++ relations normalise and check them (one place,
csrc/relay/op/nn/window.h); the builders only turn ints into lists.
"""
import numpy as np

from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from ....ir.expr import RelayExpr
from ... import expr as _expr
from ...expr import Tuple
from ..dyn.nn import _make as _dyn_make
from . import _make
from .. import _make as _tensor_make  # 'einsum' is a top-level op (relay.op._make.einsum)

__all__ = ["relu",
           "conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose",
           "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_pool1d_with_argmax", "max_pool2d_with_argmax", "max_pool3d_with_argmax",
           "global_avg_pool", "global_max_pool", "global_lp_pool",
           "global_avg_pool1d", "global_avg_pool2d", "global_avg_pool3d",
           "global_max_pool1d", "global_max_pool2d", "global_max_pool3d",
           "deformable_conv2d", "modulated_deformable_conv2d",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "col2im",
           "conv1d_integer", "conv2d_integer", "conv3d_integer", "matmul_integer",
           "bias_add", "dense", "matmul", "batch_matmul", "einsum"]

_LAYOUT = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_KERNEL_LAYOUT = {1: "OIW", 2: "OIHW", 3: "OIDHW"}
_TRANSPOSE_KERNEL_LAYOUT = {1: "IOW", 2: "IOHW", 3: "IODHW"}


def _ints(value):
    """An int -> [int]; a sequence -> list of ints; None -> [] (the relation's default)."""
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    return [int(v) for v in value]


def _dtype(out_dtype):
    return None if out_dtype in (None, "") else str(out_dtype)


def relu(data):
    """Rectified linear unit: max(data, 0)."""
    return _make.relu(data)


def _conv_builder(rank):
    maker = getattr(_make, f"conv{rank}d")

    def conv(data, weight, strides=1, padding=0, dilation=1, groups=1, channels=None, kernel_size=None,
             data_layout=_LAYOUT[rank], kernel_layout=_KERNEL_LAYOUT[rank], out_layout="", out_dtype=""):
        return maker(data, weight, _ints(strides), _ints(padding), _ints(dilation), int(groups), channels,
                     _ints(kernel_size), data_layout, kernel_layout, out_layout, _dtype(out_dtype))

    conv.__name__ = conv.__qualname__ = f"conv{rank}d"
    conv.__doc__ = (f"{rank}-D convolution: data (B, C, *S) {_LAYOUT[rank]}, weight (O, C / groups, *K) "
                    f"{_KERNEL_LAYOUT[rank]} -> (B, O, *S_out); groups > 1 is grouped (depthwise: groups = C).")
    return conv


def deformable_conv2d(data, offset, weight, strides=1, padding=0, dilation=1, deformable_groups=1, groups=1,
                      channels=None, kernel_size=None, data_layout="NCHW", kernel_layout="OIHW", out_layout="",
                      out_dtype=""):
    """Deformable 2-D convolution: each kernel tap samples data bilinearly (zeros outside) at its position moved by
    offset (B, deformable_groups * 2 * KH * KW, OH, OW), (dy, dx) pairs tap by tap."""
    return _make.deformable_conv2d(data, offset, weight, _ints(strides), _ints(padding), _ints(dilation),
                                   int(deformable_groups), int(groups), channels, _ints(kernel_size), data_layout,
                                   kernel_layout, out_layout, _dtype(out_dtype))


def modulated_deformable_conv2d(data, offset, weight, mask, strides=1, padding=0, dilation=1, deformable_groups=1,
                                groups=1, channels=None, kernel_size=None, data_layout="NCHW", kernel_layout="OIHW",
                                out_layout="", out_dtype=""):
    """deformable_conv2d with each tap's sample scaled by mask (B, deformable_groups * KH * KW, OH, OW) (DCNv2,
    ONNX DeformConv)."""
    return _make.modulated_deformable_conv2d(data, offset, weight, mask, _ints(strides), _ints(padding),
                                             _ints(dilation), int(deformable_groups), int(groups), channels,
                                             _ints(kernel_size), data_layout, kernel_layout, out_layout,
                                             _dtype(out_dtype))


def _conv_integer_builder(rank):
    maker = getattr(_make, f"conv{rank}d_integer")

    def conv_integer(data, weight, data_zero_point, weight_zero_point, strides=1, padding=0, dilation=1, groups=1,
                     channels=None, kernel_size=None):
        return maker(data, weight, data_zero_point, weight_zero_point, _ints(strides), _ints(padding),
                     _ints(dilation), int(groups), channels, _ints(kernel_size))

    conv_integer.__name__ = conv_integer.__qualname__ = f"conv{rank}d_integer"
    conv_integer.__doc__ = (f"{rank}-D conv of (data - data_zero_point) and (weight - weight_zero_point) in int32 "
                            "(ONNX ConvInteger); weight_zero_point is a scalar or one per output channel.")
    return conv_integer


def _conv_transpose_builder(rank):
    maker = getattr(_make, f"conv{rank}d_transpose")

    def conv_transpose(data, weight, strides=1, padding=0, dilation=1, groups=1, channels=None, kernel_size=None,
                       data_layout=_LAYOUT[rank], kernel_layout=_TRANSPOSE_KERNEL_LAYOUT[rank], out_layout="",
                       output_padding=0, out_dtype=""):
        return maker(data, weight, _ints(strides), _ints(padding), _ints(dilation), _ints(output_padding),
                     int(groups), channels, _ints(kernel_size), data_layout, kernel_layout, out_layout,
                     _dtype(out_dtype))

    conv_transpose.__name__ = conv_transpose.__qualname__ = f"conv{rank}d_transpose"
    conv_transpose.__doc__ = (f"{rank}-D transposed convolution: data (B, C, *S), weight (C, O / groups, *K) "
                              f"{_TRANSPOSE_KERNEL_LAYOUT[rank]} -> (B, O, (S - 1) * strides - pads + "
                              "dilation * (K - 1) + 1 + output_padding).")
    return conv_transpose


def _pool_builder(kind, rank):
    name = f"{kind}_pool{rank}d"
    maker = getattr(_make, name)

    if kind == "max":
        def pool(data, pool_size=1, strides=1, dilation=1, padding=0, layout=_LAYOUT[rank], out_layout="",
                 ceil_mode=False):
            return maker(data, _ints(pool_size), _ints(strides), _ints(dilation), _ints(padding), layout,
                         out_layout, bool(ceil_mode))
    elif kind == "avg":
        def pool(data, pool_size=1, strides=1, dilation=1, padding=0, layout=_LAYOUT[rank], out_layout="",
                 ceil_mode=False, count_include_pad=False):
            return maker(data, _ints(pool_size), _ints(strides), _ints(dilation), _ints(padding), layout,
                         out_layout, bool(ceil_mode), bool(count_include_pad))
    else:
        def pool(data, pool_size=1, strides=1, dilation=1, padding=0, layout=_LAYOUT[rank], out_layout="",
                 ceil_mode=False, count_include_pad=False, p=2.0):
            return maker(data, _ints(pool_size), _ints(strides), _ints(dilation), _ints(padding), layout,
                         out_layout, bool(ceil_mode), bool(count_include_pad), float(p))

    pool.__name__ = pool.__qualname__ = name
    pool.__doc__ = f"{rank}-D {kind} pooling over {_LAYOUT[rank]} data (relay op 'nn.{name}')."
    return pool


def _argmax_pool_builder(rank):
    maker = getattr(_make, f"max_pool{rank}d_with_argmax")

    def pool(data, pool_size=1, strides=1, dilation=1, padding=0, layout=_LAYOUT[rank], out_layout="",
             ceil_mode=False, storage_order=0):
        return maker(data, _ints(pool_size), _ints(strides), _ints(dilation), _ints(padding), layout, out_layout,
                     bool(ceil_mode), int(storage_order))

    pool.__name__ = pool.__qualname__ = f"max_pool{rank}d_with_argmax"
    pool.__doc__ = (f"{rank}-D max pooling returning (values, int64 indices); an index is flat over the input's "
                    "(B, C, *S), its spatial part row-major (storage_order 0) or column-major (1).")
    return pool


for _rank in (1, 2, 3):
    globals()[f"conv{_rank}d"] = _conv_builder(_rank)
    globals()[f"conv{_rank}d_transpose"] = _conv_transpose_builder(_rank)
    globals()[f"conv{_rank}d_integer"] = _conv_integer_builder(_rank)
    globals()[f"max_pool{_rank}d_with_argmax"] = _argmax_pool_builder(_rank)
    for _kind in ("max", "avg", "lp"):
        globals()[f"{_kind}_pool{_rank}d"] = _pool_builder(_kind, _rank)


def _max_unpool_builder(rank):
    maker = getattr(_make, f"max_unpool{rank}d")

    def max_unpool(data, indices, pool_size=1, strides=1, padding=0, output_size=None, output_shape=None):
        if output_shape is not None:  # a 1-D integer expression (batch, channels, spatial...): dyn.nn.max_unpool
            dyn = getattr(_dyn_make, f"max_unpool{rank}d")
            return dyn(data, indices, output_shape, _ints(pool_size), _ints(strides), _ints(padding), [])
        return maker(data, indices, _ints(pool_size), _ints(strides), _ints(padding), _ints(output_size))

    max_unpool.__name__ = max_unpool.__qualname__ = f"max_unpool{rank}d"
    max_unpool.__doc__ = (f"{rank}-D max unpooling: data's values written at their flat indices (MaxPool's Indices) "
                          "of a zero tensor (B, C, (S - 1) * strides - pads + pool_size), placed in the corner of "
                          "output_size when given (or of output_shape[2:], output_shape an expression: "
                          "dyn.nn.max_unpool).")
    return max_unpool


for _rank in (1, 2, 3):
    globals()[f"max_unpool{_rank}d"] = _max_unpool_builder(_rank)


def col2im(data, image_shape, block_shape, strides=1, dilation=1, padding=0):
    """Sliding-block columns (B, C * prod(block_shape), L) -> image (B, C, *image_shape), overlaps summed.
    image_shape and block_shape as expressions (1-D integer tensors) make dyn.nn.col2im."""
    if isinstance(image_shape, RelayExpr) or isinstance(block_shape, RelayExpr):
        image_shape, block_shape = (v if isinstance(v, RelayExpr) else _expr.const(np.array(_ints(v), "int64"))
                                    for v in (image_shape, block_shape))
        return _dyn_make.col2im(data, image_shape, block_shape, [], [], _ints(strides), _ints(dilation),
                                _ints(padding))
    return _make.col2im(data, _ints(image_shape), _ints(block_shape), _ints(strides), _ints(dilation),
                        _ints(padding))


def global_avg_pool(data, layout=""):
    """Mean over every spatial dim: (B, C, *S) -> (B, C, 1, ...)."""
    return _make.global_avg_pool(data, layout, 2.0)


def global_max_pool(data, layout=""):
    """Max over every spatial dim: (B, C, *S) -> (B, C, 1, ...)."""
    return _make.global_max_pool(data, layout, 2.0)


def global_lp_pool(data, p=2.0, layout=""):
    """(sum |x|^p)^(1/p) over every spatial dim: (B, C, *S) -> (B, C, 1, ...)."""
    return _make.global_lp_pool(data, layout, float(p))


def _global_builder(kind, rank):
    generic = {"avg": global_avg_pool, "max": global_max_pool}[kind]

    def pool(data, layout=_LAYOUT[rank], out_layout=""):
        if out_layout not in ("", layout):
            raise ValueError(f"global_{kind}_pool{rank}d: out_layout {out_layout!r} differs from layout {layout!r}")
        return generic(data, layout)

    pool.__name__ = pool.__qualname__ = f"global_{kind}_pool{rank}d"
    pool.__doc__ = f"Global {kind} pooling of {_LAYOUT[rank]} data (relay op 'nn.global_{kind}_pool')."
    return pool


for _rank in (1, 2, 3):
    for _kind in ("avg", "max"):
        globals()[f"global_{_kind}_pool{_rank}d"] = _global_builder(_kind, _rank)
del _rank, _kind


def bias_add(data, bias, axis=1):
    """data plus the 1-D bias broadcast along axis (default 1: the channels of NC... data)."""
    return _make.bias_add(data, bias, int(axis))


def dense(data, weight, units=None, out_dtype=""):
    """data (..., K) times weight (units, K) transposed -> (..., units)."""
    return _make.dense(data, weight, units, _dtype(out_dtype))


def matmul(tensor_a, tensor_b, out_dtype="", transpose_a=False, transpose_b=False):
    """numpy.matmul of tensor_a and tensor_b (batch dims broadcast, 1-D operands are vectors), after swapping the
    last two dims of an operand whose transpose_* is set."""
    return _make.matmul(tensor_a, tensor_b, _dtype(out_dtype), bool(transpose_a), bool(transpose_b))


def matmul_integer(a, b, a_zero_point, b_zero_point):
    """numpy.matmul of (a - a_zero_point) and (b - b_zero_point) in int32 (ONNX MatMulInteger); a_zero_point is a
    scalar or one per row of a, b_zero_point a scalar or one per column of b."""
    return _make.matmul_integer(a, b, a_zero_point, b_zero_point)


def batch_matmul(tensor_a, tensor_b, out_dtype="", transpose_a=False, transpose_b=True):
    """Batched product of rank-3 tensors: a (B, M, K) and b (B, N, K) (transpose_b, the default) -> (B, M, N)."""
    return _make.batch_matmul(tensor_a, tensor_b, _dtype(out_dtype), bool(transpose_a), bool(transpose_b))


def einsum(data, equation):
    """numpy.einsum(equation, *data) over a list (or Tuple) of tensors (relay op 'einsum')."""
    if isinstance(data, (list, tuple)):
        data = Tuple(list(data))
    return _tensor_make.einsum(data, str(equation))


def _register_attrs():
    keys = ["DeformableConv2DAttrs", "Col2ImAttrs", "BiasAddAttrs", "DenseAttrs", "MatmulAttrs", "BatchMatmulAttrs",
            "EinsumAttrs", "GlobalPoolAttrs"]
    for r in (1, 2, 3):
        keys += [f"Conv{r}DAttrs", f"Conv{r}DTransposeAttrs", f"MaxPool{r}DAttrs", f"MaxPool{r}DArgmaxAttrs",
                 f"AvgPool{r}DAttrs", f"LPPool{r}DAttrs", f"MaxUnpool{r}DAttrs"]
    classes = {}
    for key in keys:
        cls = type(key, (Attrs,), {"__slots__": (), "__doc__": f"Attributes of nn ops (relay.attrs.{key})."})
        classes[key] = register_object(f"relay.attrs.{key}")(cls)
    return classes


_ATTRS = _register_attrs()
