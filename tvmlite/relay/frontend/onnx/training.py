"""ai.onnx.preview.training: the optimizer steps Adagrad, Adam and Momentum (one op each, over n tensors)."""
from ....error import get_error_class
from ...expr import TupleGetItem
from ...op import training as _training
from .common import OnnxOpConverter, choice_attr, register_converter, required_attr

_DOMAIN = "ai.onnx.preview.training"


def _split(inputs, k):
    tensors = inputs[2:]
    if len(inputs) < 2 or not tensors or len(tensors) % k:
        raise get_error_class("ValueError")(f"takes R, T and {k} tensors per optimized tensor (2 + {k} * n inputs), "
                                            f"got {len(inputs)} inputs")
    n = len(tensors) // k
    return [tensors[i * n:(i + 1) * n] for i in range(k)], n


def _outputs(call, count):
    return [TupleGetItem(call, i) for i in range(count)]


@register_converter("Adagrad", domain=_DOMAIN)
class Adagrad(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        (xs, gs, hs), n = _split(inputs, 3)
        call = _training.adagrad(inputs[0], inputs[1], xs, gs, hs, attr.get("norm_coefficient", 0.0),
                                 attr.get("epsilon", 1e-6), attr.get("decay_factor", 0.0))
        return _outputs(call, 2 * n)


@register_converter("Adam", domain=_DOMAIN)
class Adam(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        (xs, gs, vs, hs), n = _split(inputs, 4)
        call = _training.adam(inputs[0], inputs[1], xs, gs, vs, hs, attr.get("norm_coefficient", 0.0),
                              attr.get("norm_coefficient_post", 0.0), attr.get("alpha", 0.9),
                              attr.get("beta", 0.999), attr.get("epsilon", 1e-6))
        return _outputs(call, 3 * n)


@register_converter("Momentum", domain=_DOMAIN)
class Momentum(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        required_attr(attr, "alpha", "beta", "mode", "norm_coefficient")
        (xs, gs, vs), n = _split(inputs, 3)
        call = _training.momentum(inputs[0], inputs[1], xs, gs, vs, attr["norm_coefficient"], attr["alpha"],
                                  attr["beta"], choice_attr(attr, "mode", None, ("standard", "nesterov")))
        return _outputs(call, 2 * n)


@register_converter("Gradient", domain=_DOMAIN)
class Gradient(OnnxOpConverter):
    """dy/dx for each x in xs, by reverse-mode differentiation of the graph between them (relay.gradient)."""

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        from ...gradient import gradient

        required_attr(attr, "xs", "y")
        symbols = ctx.scope  # the values converted so far, by name
        missing = [n for n in list(attr["xs"]) + [attr["y"]] if n not in symbols]
        if missing:
            raise ValueError(f"Gradient: no tensor named {', '.join(map(repr, missing))} precedes the node")
        return gradient(symbols[attr["y"]], [symbols[n] for n in attr["xs"]])
