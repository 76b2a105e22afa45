"""Elementwise ops: arithmetic, comparison, logic and unary math."""
from ... import op as _op  # noqa: E402
from .common import OnnxOpConverter, Renamer, register_converter


def _binary(relay_name, versions=(1, 7)):
    builder = getattr(_op, relay_name)

    class Converter(OnnxOpConverter):
        pass

    for v in versions:
        setattr(Converter, f"_impl_v{v}", classmethod(lambda cls, inputs, attr, ctx: builder(inputs[0], inputs[1])))
    return Converter


for _onnx_name, _relay_name in [("Add", "add"), ("Sub", "subtract"), ("Mul", "multiply"), ("Div", "divide"),
                                ("Equal", "equal"), ("Less", "less"), ("Greater", "greater"),
                                ("LessOrEqual", "less_equal"), ("GreaterOrEqual", "greater_equal"),
                                ("And", "logical_and"), ("Or", "logical_or"), ("Xor", "logical_xor"),
                                ("BitwiseAnd", "bitwise_and"), ("BitwiseOr", "bitwise_or"),
                                ("BitwiseXor", "bitwise_xor")]:
    register_converter(_onnx_name)(type(_onnx_name, (_binary(_relay_name),), {}))


def _unary(relay_builder):
    class Converter(OnnxOpConverter):
        @classmethod
        def _impl_v1(cls, inputs, attr, ctx):
            return Renamer(relay_builder)(inputs, attr, ctx)

    return Converter


for _onnx_name, _builder in [("Neg", _op.negative), ("Abs", _op.abs), ("Sign", _op.sign), ("Exp", _op.exp),
                             ("Log", _op.log), ("Sqrt", _op.sqrt), ("Reciprocal", _op.reciprocal),
                             ("Sigmoid", _op.sigmoid), ("Tanh", _op.tanh), ("Erf", _op.erf), ("Sin", _op.sin),
                             ("Cos", _op.cos), ("Tan", _op.tan), ("Asin", _op.asin), ("Acos", _op.acos),
                             ("Atan", _op.atan), ("Sinh", _op.sinh), ("Cosh", _op.cosh), ("Asinh", _op.asinh),
                             ("Acosh", _op.acosh), ("Atanh", _op.atanh), ("Floor", _op.floor), ("Ceil", _op.ceil),
                             ("Round", _op.round), ("BitwiseNot", _op.bitwise_not), ("Not", _op.logical_not),
                             ("IsNaN", _op.isnan), ("Relu", _op.nn.relu), ("Identity", _op.copy)]:
    register_converter(_onnx_name)(type(_onnx_name, (_unary(_builder),), {}))
