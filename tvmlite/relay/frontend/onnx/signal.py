"""Signal ops: DFT (opsets 17, 20), STFT (17), HannWindow / HammingWindow / BlackmanWindow (17),
MelWeightMatrix (17). Scalar inputs that are constants become static sizes (a statically typed result)."""
from ...op import signal as _signal
from ....error import OpAttributeInvalid
from .common import OnnxOpConverter, axis_attr, dtype_attr, input_at, register_converter


def _const_int(ctx, expr):
    """expr's value as an int when it is a constant scalar, else None."""
    if expr is None:
        return None
    value = ctx.try_constant(expr)
    if value is None or value.size != 1:
        return None
    return int(value.reshape(-1)[0])


def _flag(attr, name, default):
    value = attr.get(name, default)
    if value not in (0, 1):
        raise OpAttributeInvalid(f"attribute {name}={value!r} must be 0 or 1")
    return bool(value)


def _dft(inputs, attr, ctx, axis):
    inputs = list(inputs) + [None] * (3 - len(inputs))
    length = inputs[1]
    static_length = _const_int(ctx, length)
    return _signal.dft(inputs[0], length if length is not None else None, axis=axis,
                       inverse=_flag(attr, "inverse", 0), onesided=_flag(attr, "onesided", 0),
                       static_dft_length=static_length)


@register_converter("DFT")
class DFT(OnnxOpConverter):
    @classmethod
    def _impl_v17(cls, inputs, attr, ctx):
        return _dft(inputs, attr, ctx, axis_attr(attr, "axis", 1, inputs[0]))

    @classmethod
    def _impl_v20(cls, inputs, attr, ctx):
        axis_expr = input_at(inputs, 2)
        if axis_expr is None:
            axis = -2
        else:
            axis = _const_int(ctx, axis_expr)
            axis = axis_expr if axis is None else axis
        return _dft(inputs[:2], attr, ctx, axis)


@register_converter("STFT")
class STFT(OnnxOpConverter):
    @classmethod
    def _impl_v17(cls, inputs, attr, ctx):
        inputs = list(inputs) + [None] * (4 - len(inputs))
        step = _const_int(ctx, inputs[1])
        length = _const_int(ctx, inputs[3])
        return _signal.stft(inputs[0], inputs[1] if step is None else step, window=inputs[2],
                            frame_length=inputs[3] if length is None else length,
                            onesided=_flag(attr, "onesided", 1))


def _window(kind):
    class Converter(OnnxOpConverter):
        @classmethod
        def _impl_v17(cls, inputs, attr, ctx):
            size = _const_int(ctx, inputs[0])
            return _signal.window(inputs[0] if size is None else size, kind=kind,
                                  periodic=_flag(attr, "periodic", 1),
                                  dtype=dtype_attr(attr, "output_datatype", 1))

    return Converter


for _name, _kind in [("HannWindow", "hann"), ("HammingWindow", "hamming"), ("BlackmanWindow", "blackman")]:
    register_converter(_name)(type(_name, (_window(_kind),), {}))


@register_converter("MelWeightMatrix")
class MelWeightMatrix(OnnxOpConverter):
    @classmethod
    def _impl_v17(cls, inputs, attr, ctx):
        bins, length = _const_int(ctx, inputs[0]), _const_int(ctx, inputs[1])
        return _signal.mel_weight_matrix(inputs[0] if bins is None else bins, inputs[1] if length is None else length,
                                         inputs[2], inputs[3], inputs[4],
                                         dtype=dtype_attr(attr, "output_datatype", 1))
