"""Convolution, pooling and matrix-product converters: Conv, ConvTranspose, MaxPool, AveragePool, LpPool,
Global{Average,Max,Lp}Pool, Gemm, MatMul, Einsum.

Static shape arithmetic happens here: auto_pad (SAME_UPPER / SAME_LOWER / VALID) and ConvTranspose's
output_shape become explicit pads from the input's static spatial dims (a symbolic one is a clear
OpNotImplemented for those modes), kernel_shape defaults to the weight's spatial dims. ONNX pads are
(begin..., end...), the relay ops' padding layout, so explicit pads pass through unchanged.

Opset differences handled: SAME_* pads use the undilated kernel before opset 11 and the dilated one from 11 on;
MaxPool has one output before 8, an Indices output (with storage_order) from 8, ceil_mode and dilations from 10;
AveragePool gains count_include_pad at 7, ceil_mode at 10, dilations at 19; LpPool's p is a float at 1, an int from
2, ceil_mode/dilations from 18; Gemm's C is required and `broadcast`-gated before 7, optional from 11.
"""
import numpy as np

from ....error import OpAttributeInvalid
from ... import expr as _expr
from ... import op as _op
from ...backend.dtypes import to_numpy_dtype
from .common import (OnnxOpConverter, choice_attr, dims_of, dtype_of, input_at, is_static, opset_versions,
                     register_converter, unsupported)

# The four values ONNX defines, spelled so (onnxruntime refuses any other too).
_AUTO_PADS = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")


def _static_spatial(x, what):
    dims = dims_of(x)[2:]
    if not is_static(dims):
        unsupported(f"{what} needs static spatial dims, got shape {tuple(dims_of(x))}")
    return dims


def _auto_pad(attr):
    return choice_attr(attr, "auto_pad", "NOTSET", _AUTO_PADS)


# The least value of each per-spatial-dim attribute (a stride or dilation of 0 would divide by zero).
_SPATIAL_MINIMUM = {"kernel_shape": 1, "strides": 1, "dilations": 1, "output_padding": 0}


def _spatial_attr(attr, name, rank, default):
    """One value per spatial dim (an empty list takes the default), each at least _SPATIAL_MINIMUM[name]."""
    value = list(attr.get(name, [default] * rank))
    if not value:
        value = [default] * rank
    if len(value) != rank:
        raise OpAttributeInvalid(f"attribute '{name}' has {len(value)} values for {rank} spatial dims")
    least = _SPATIAL_MINIMUM.get(name)
    if least is not None and any(v < least for v in value):
        raise OpAttributeInvalid(f"attribute '{name}' {value} has a value below {least}")
    return value


def _kernel(attr, weight, rank, what):
    """kernel_shape, or the weight's spatial dims when the node leaves it out (which must then be static)."""
    if "kernel_shape" in attr:
        return _spatial_attr(attr, "kernel_shape", rank, 1)
    kernel = dims_of(weight)[2:]
    if not is_static(kernel):
        unsupported(f"{what} with a symbolic kernel shape and no kernel_shape attribute")
    return kernel


def _pads(attr, rank, auto_pad="NOTSET"):
    """The explicit pads (begin..., end...): attribute 'pads' (checked), or zeros for auto_pad VALID."""
    if auto_pad == "VALID":
        return [0] * 2 * rank
    pads = list(attr.get("pads", [0] * 2 * rank)) or [0] * 2 * rank
    if len(pads) != 2 * rank:
        raise OpAttributeInvalid(f"attribute 'pads' has {len(pads)} values, expected {2 * rank} (begin..., end...)")
    if min(pads) < 0:
        raise OpAttributeInvalid(f"attribute 'pads' {pads} has a negative value")
    return pads


def _split_pads(totals, auto_pad):
    """Pads (begin..., end...) from each spatial dim's total padding, halved; an odd one goes at the end for
    SAME_UPPER and at the beginning otherwise (ONNX's rule for Conv and pooling, and for ConvTranspose's
    output_shape whatever auto_pad is)."""
    halves = [(t // 2, t - t // 2) for t in totals]
    if auto_pad == "SAME_UPPER":
        return [small for small, _ in halves] + [large for _, large in halves]
    return [large for _, large in halves] + [small for small, _ in halves]


def _window_pads(x, attr, kernel, strides, dilations, opset, what):
    """Explicit (begin..., end...) pads from auto_pad / pads. SAME_*: output ceil(in / stride)."""
    rank = len(kernel)
    auto_pad = _auto_pad(attr)
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        return _pads(attr, rank, auto_pad)
    sizes = _static_spatial(x, f"{what} with auto_pad {auto_pad}")
    same_dilations = dilations if opset >= 11 else [1] * rank
    totals = []
    for n, k, s, d in zip(sizes, kernel, strides, same_dilations):
        out = -(-n // s)  # ceil(n / s)
        totals.append(max(0, (out - 1) * s + (k - 1) * d + 1 - n))
    return _split_pads(totals, auto_pad)


def _rank_of(x, what, ranks=(1, 2, 3)):
    rank = len(dims_of(x)) - 2
    if rank not in ranks:
        unsupported(f"{what} on a rank-{rank + 2} input (supported spatial ranks: {', '.join(map(str, ranks))})")
    return rank


def _bias(y, bias):
    return y if bias is None else _op.nn.bias_add(y, bias, axis=1)


def _group(attr):
    group = attr.get("group", 1)
    if group < 1:
        raise OpAttributeInvalid(f"attribute 'group' is {group}, must be >= 1")
    return group


def _conv_common(inputs, attr, what):
    """(data, weight, rank, kernel, strides, dilations) of a Conv, ConvInteger or ConvTranspose node."""
    data, weight = inputs[0], inputs[1]
    rank = _rank_of(data, what)
    if len(dims_of(weight)) != rank + 2:
        raise ValueError(f"weight shape {tuple(dims_of(weight))} does not match the input's rank {rank + 2}")
    kernel = _kernel(attr, weight, rank, what)
    return (data, weight, rank, kernel, _spatial_attr(attr, "strides", rank, 1),
            _spatial_attr(attr, "dilations", rank, 1))


@register_converter("Conv")
@opset_versions(1, 11)
class Conv(OnnxOpConverter):
    """X (N, C, *S), W (M, C / group, *K), optional B (M,) -> nn.conv{1,2,3}d (+ nn.bias_add)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data, weight, rank, kernel, strides, dilations = _conv_common(inputs, attr, "Conv")
        pads = _window_pads(data, attr, kernel, strides, dilations, ctx.opset, "Conv")
        y = getattr(_op.nn, f"conv{rank}d")(data, weight, strides=strides, padding=pads, dilation=dilations,
                                            groups=_group(attr), kernel_size=kernel)
        return _bias(y, input_at(inputs, 2))


@register_converter("ConvTranspose")
@opset_versions(1, 11)
class ConvTranspose(OnnxOpConverter):
    """X (N, C, *S), W (C, M / group, *K), optional B -> nn.conv{1,2,3}d_transpose (+ nn.bias_add).

    output_shape (when given) wins over pads: total_padding = stride * (in - 1) + output_padding
    + (K - 1) * dilation + 1 - output_shape, split as auto_pad says (SAME_UPPER: the odd one at the end; otherwise
    at the beginning). A negative end padding becomes extra output_padding (zeros appended)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data, weight, rank, kernel, strides, dilations = _conv_common(inputs, attr, "ConvTranspose")
        out_pad = _spatial_attr(attr, "output_padding", rank, 0)
        auto_pad = _auto_pad(attr)
        output_shape = attr.get("output_shape")
        if output_shape is not None and len(output_shape) == rank + 2:
            output_shape = output_shape[2:]  # some exporters give the full shape
        if output_shape is None and auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            output_shape = [s * st for s, st in zip(_static_spatial(data, f"ConvTranspose with auto_pad {auto_pad}"),
                                                    strides)]
        if output_shape is None:
            pads = _pads(attr, rank, auto_pad)
        else:
            if len(output_shape) != rank:
                raise OpAttributeInvalid(f"attribute 'output_shape' {list(output_shape)} does not have {rank} "
                                         "spatial dims")
            sizes = _static_spatial(data, "ConvTranspose with output_shape")
            totals = [st * (n - 1) + extra + (k - 1) * d + 1 - o
                      for n, st, extra, k, d, o in zip(sizes, strides, out_pad, kernel, dilations, output_shape)]
            pads = _split_pads(totals, auto_pad)
            if min(pads[:rank]) < 0:
                unsupported(f"ConvTranspose output_shape {list(output_shape)} needs a negative begin padding")
            for i in range(rank):  # a negative end padding: as many zeros appended instead
                out_pad[i] += max(0, -pads[rank + i])
                pads[rank + i] = max(0, pads[rank + i])
        y = getattr(_op.nn, f"conv{rank}d_transpose")(data, weight, strides=strides, padding=pads,
                                                      dilation=dilations, groups=_group(attr), kernel_size=kernel,
                                                      output_padding=out_pad)
        return _bias(y, input_at(inputs, 2))


def _pool_common(data, attr, ctx, what, dilations_since, ceil_since):
    """(rank, kernel, strides, dilations, pads, ceil_mode) of an ONNX pooling node."""
    rank = _rank_of(data, what)
    if "kernel_shape" not in attr:
        raise OpAttributeInvalid("attribute 'kernel_shape' is required")
    kernel = _spatial_attr(attr, "kernel_shape", rank, 1)
    strides = _spatial_attr(attr, "strides", rank, 1)
    for name, since in (("dilations", dilations_since), ("ceil_mode", ceil_since)):
        if name in attr and (since is None or ctx.opset < since):
            raise OpAttributeInvalid(f"attribute '{name}' does not exist in {what} of opset {ctx.opset}")
    dilations = _spatial_attr(attr, "dilations", rank, 1)
    pads = _window_pads(data, attr, kernel, strides, dilations, ctx.opset, what)
    return rank, kernel, strides, dilations, pads, bool(attr.get("ceil_mode", 0))


@register_converter("MaxPool")
@opset_versions(1, 8, 10, 11, 12)
class MaxPool(OnnxOpConverter):
    """-> nn.max_pool{1,2,3}d, or nn.max_pool{1,2,3}d_with_argmax when the node asks for Indices (opset >= 8)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data = inputs[0]
        rank, kernel, strides, dilations, pads, ceil_mode = _pool_common(data, attr, ctx, "MaxPool", 10, 10)
        storage_order = attr.get("storage_order", 0)
        if storage_order not in (0, 1):
            raise OpAttributeInvalid(f"attribute 'storage_order' is {storage_order}, must be 0 or 1")
        outputs = list(ctx.node.output) if ctx.node is not None else []
        if len(outputs) > 1 and outputs[1]:
            if ctx.opset < 8:
                raise OpAttributeInvalid(f"MaxPool of opset {ctx.opset} has one output, the node asks for two")
            call = getattr(_op.nn, f"max_pool{rank}d_with_argmax")(
                data, pool_size=kernel, strides=strides, dilation=dilations, padding=pads, ceil_mode=ceil_mode,
                storage_order=storage_order)
            return [_expr.TupleGetItem(call, 0), _expr.TupleGetItem(call, 1)]
        return getattr(_op.nn, f"max_pool{rank}d")(data, pool_size=kernel, strides=strides, dilation=dilations,
                                                   padding=pads, ceil_mode=ceil_mode)


@register_converter("AveragePool")
@opset_versions(1, 7, 10, 11, 19)
class AveragePool(OnnxOpConverter):
    """-> nn.avg_pool{1,2,3}d (count_include_pad from opset 7, ceil_mode from 10, dilations from 19)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        if "count_include_pad" in attr and ctx.opset < 7:
            raise OpAttributeInvalid(f"attribute 'count_include_pad' does not exist in AveragePool of opset "
                                     f"{ctx.opset}")
        rank, kernel, strides, dilations, pads, ceil_mode = _pool_common(inputs[0], attr, ctx, "AveragePool",
                                                                         19, 10)
        return getattr(_op.nn, f"avg_pool{rank}d")(inputs[0], pool_size=kernel, strides=strides,
                                                   dilation=dilations, padding=pads, ceil_mode=ceil_mode,
                                                   count_include_pad=bool(attr.get("count_include_pad", 0)))


@register_converter("LpPool")
@opset_versions(1, 2, 11, 18)
class LpPool(OnnxOpConverter):
    """-> nn.lp_pool{1,2,3}d (p a float at opset 1, an int from 2; ceil_mode and dilations from 18)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        rank, kernel, strides, dilations, pads, ceil_mode = _pool_common(inputs[0], attr, ctx, "LpPool", 18, 18)
        p = attr.get("p", 2)
        if not p > 0:
            raise OpAttributeInvalid(f"attribute 'p' is {p}, must be positive")
        return getattr(_op.nn, f"lp_pool{rank}d")(inputs[0], pool_size=kernel, strides=strides,
                                                  dilation=dilations, padding=pads, ceil_mode=ceil_mode, p=p)


def _global(builder):
    class Converter(OnnxOpConverter):
        @classmethod
        def _impl_v1(cls, inputs, attr, ctx):
            return builder(inputs[0], attr)

    return Converter


def _global_lp(data, attr):
    p = attr.get("p", 2)
    if not p > 0:
        raise OpAttributeInvalid(f"attribute 'p' is {p}, must be positive")
    return _op.nn.global_lp_pool(data, p=p)


register_converter("GlobalAveragePool")(type("GlobalAveragePool", (_global(
    lambda data, attr: _op.nn.global_avg_pool(data)),), {}))
register_converter("GlobalMaxPool")(type("GlobalMaxPool", (_global(
    lambda data, attr: _op.nn.global_max_pool(data)),), {}))
register_converter("GlobalLpPool")(type("GlobalLpPool", (_global(_global_lp),), {"_impl_v2": classmethod(
    lambda cls, inputs, attr, ctx: _global_lp(inputs[0], attr))}))


def _scalar(value, like):
    return _expr.const(np.asarray(value, dtype=to_numpy_dtype(dtype_of(like))))


@register_converter("Gemm")
@opset_versions(1, 6, 7, 9, 11, 13)
class Gemm(OnnxOpConverter):
    """Y = alpha * A' @ B' + beta * C -> nn.matmul(transpose_a, transpose_b), then multiply / add.

    Before opset 7, C broadcasts only with broadcast=1 (else it must be (M, N)); it is required before 11."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        a, b = inputs[0], inputs[1]
        c = input_at(inputs, 2)
        for name, x in (("A", a), ("B", b)):
            if len(dims_of(x)) != 2:
                raise ValueError(f"input {name} must be 2-D, got shape {tuple(dims_of(x))}")
        if c is None and ctx.opset < 11:
            raise ValueError(f"Gemm of opset {ctx.opset} requires input C")
        alpha, beta = float(attr.get("alpha", 1.0)), float(attr.get("beta", 1.0))
        y = _op.nn.matmul(a, b, transpose_a=bool(attr.get("transA", 0)), transpose_b=bool(attr.get("transB", 0)))
        integer = np.dtype(to_numpy_dtype(dtype_of(a))).kind in "iu"
        if integer and (alpha != 1.0 or (c is not None and beta != 1.0)):
            unsupported("Gemm on integer inputs with alpha or beta other than 1")
        if alpha != 1.0:
            y = _op.multiply(y, _scalar(alpha, a))
        if c is None:
            return y
        if ctx.opset < 7 and not attr.get("broadcast", 0):
            y_shape = ctx.infer_type(y).checked_type.shape
            if len(dims_of(c)) != 2 or any(isinstance(p, int) and isinstance(q, int) and p != q
                                          for p, q in zip(dims_of(c), y_shape)):
                raise ValueError(f"C of shape {tuple(dims_of(c))} must match the product's shape {tuple(y_shape)} "
                                 "without broadcast=1")
        if beta != 1.0:
            c = _op.multiply(c, _scalar(beta, c))
        return _op.add(y, c)


@register_converter("MatMul")
@opset_versions(1, 9, 13)
class MatMul(OnnxOpConverter):
    """numpy.matmul -> nn.matmul."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        return _op.nn.matmul(inputs[0], inputs[1])


@register_converter("Einsum")
@opset_versions(12)
class Einsum(OnnxOpConverter):
    """-> einsum(Tuple(inputs), equation)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        if "equation" not in attr:
            raise OpAttributeInvalid("attribute 'equation' is required")
        return _op.nn.einsum(list(inputs), attr["equation"])


def _zero_point(inputs, i, like):
    """The optional zero point input i, or a scalar 0 of like's dtype."""
    if len(inputs) > i and inputs[i] is not None:
        return inputs[i]
    return _scalar(0, like)


@register_converter("MatMulInteger")
@opset_versions(10)
class MatMulInteger(OnnxOpConverter):
    """-> nn.matmul_integer(A, B, a_zero_point or 0, b_zero_point or 0) (int32)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        a, b = inputs[0], inputs[1]
        return _op.nn.matmul_integer(a, b, _zero_point(inputs, 2, a), _zero_point(inputs, 3, b))


@register_converter("ConvInteger")
@opset_versions(10)
class ConvInteger(OnnxOpConverter):
    """-> nn.conv{1,2,3}d_integer(x, w, x_zero_point or 0, w_zero_point or 0) (int32); pads as Conv's."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data, weight, rank, kernel, strides, dilations = _conv_common(inputs, attr, "ConvInteger")
        pads = _window_pads(data, attr, kernel, strides, dilations, ctx.opset, "ConvInteger")
        return getattr(_op.nn, f"conv{rank}d_integer")(
            data, weight, _zero_point(inputs, 2, data), _zero_point(inputs, 3, weight), strides=strides,
            padding=pads, dilation=dilations, groups=_group(attr), kernel_size=kernel)


@register_converter("MaxUnpool")
@opset_versions(9, 11)
class MaxUnpool(OnnxOpConverter):
    """X, I (MaxPool's Indices), optional output_shape (full shape) -> nn.max_unpool{1,2,3}d (dyn.nn.max_unpool{1,2,3}d
    when output_shape is computed in the graph)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data, indices = inputs[0], inputs[1]
        rank = _rank_of(data, "MaxUnpool")
        if "kernel_shape" not in attr:
            raise OpAttributeInvalid("attribute 'kernel_shape' is required")
        kernel = _spatial_attr(attr, "kernel_shape", rank, 1)
        strides = _spatial_attr(attr, "strides", rank, 1)
        pads = _pads(attr, rank)
        output_size = output_shape = None
        if len(inputs) > 2 and inputs[2] is not None:
            value = ctx.try_constant(inputs[2])
            if value is None:
                output_shape = inputs[2]  # computed in the graph: dyn.nn.max_unpool, read at run time
            else:
                shape = [int(v) for v in np.asarray(value).ravel()]
                if len(shape) != rank + 2:
                    raise ValueError(f"output_shape {shape} must have {rank + 2} values")
                output_size = shape[2:]
        return getattr(_op.nn, f"max_unpool{rank}d")(data, indices, pool_size=kernel, strides=strides, padding=pads,
                                                     output_size=output_size, output_shape=output_shape)


@register_converter("Col2Im")
@opset_versions(18)
class Col2Im(OnnxOpConverter):
    """input (N, C * prod(block_shape), L), image_shape and block_shape -> nn.col2im (dyn.nn.col2im when they are
    computed in the graph)."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        # Constants make nn.col2im; values computed in the graph dyn.nn.col2im, read at run time.
        image, block = (inputs[i] if (v := ctx.try_constant(inputs[i])) is None else
                        [int(x) for x in np.asarray(v).ravel()] for i in (1, 2))
        rank = len(image) if isinstance(image, list) else dims_of(image)[0]
        if not isinstance(rank, int):
            unsupported("Col2Im's image_shape must have a length known at import")
        return _op.nn.col2im(inputs[0], image, block, strides=_spatial_attr(attr, "strides", rank, 1),
                             dilation=_spatial_attr(attr, "dilations", rank, 1), padding=_pads(attr, rank))


@register_converter("DeformConv")
@opset_versions(19)
class DeformConv(OnnxOpConverter):
    """X, W, offset, optional B, optional mask -> nn.(modulated_)deformable_conv2d (+ nn.bias_add); 2-D only."""

    @classmethod
    def _convert(cls, inputs, attr, ctx, version):
        data, weight, offset = inputs[0], inputs[1], inputs[2]
        bias = input_at(inputs, 3)
        mask = input_at(inputs, 4)
        rank = _rank_of(data, "DeformConv", ranks=(2,))
        kernel = _kernel(attr, weight, rank, "DeformConv")
        strides = _spatial_attr(attr, "strides", rank, 1)
        dilations = _spatial_attr(attr, "dilations", rank, 1)
        common = dict(strides=strides, padding=_pads(attr, rank), dilation=dilations,
                      deformable_groups=attr.get("offset_group", 1), groups=_group(attr), kernel_size=kernel)
        if mask is None:
            y = _op.nn.deformable_conv2d(data, offset, weight, **common)
        else:
            y = _op.nn.modulated_deformable_conv2d(data, offset, weight, mask, **common)
        return _bias(y, bias)
