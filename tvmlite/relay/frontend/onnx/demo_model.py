"""Small ONNX models built with onnx.helper and seeded weights (no download): the demo's ResNet and the
benchmark's transformer encoder.

    model = resnet_model(seed=0)                 # onnx.ModelProto, input "input" (1, 3, 32, 32) -> "logits" (1, 10)
    x = example_input(model, seed=0)             # {"input": float32 array}
    model = transformer_encoder_model(layers=12) # input "tokens" (1, 16, 64) -> "hidden" (1, 16, 64)

ResNet: stem Conv 3x3 + BatchNormalization + Relu + MaxPool 3x3/2, a residual block (two Conv+BN, identity
shortcut, Add, Relu), a downsampling residual block (stride-2 Conv+BN path, 1x1 stride-2 Conv+BN shortcut),
GlobalAveragePool, Flatten, Gemm.

Transformer encoder layer (post-norm, as BERT): multi-head self-attention from MatMul/Add/Reshape/Transpose/
Softmax, residual Add + LayerNormalization, a feed-forward block (MatMul, Add, Relu, MatMul, Add), residual Add +
LayerNormalization.
"""
import numpy as np

__all__ = ["resnet_model", "transformer_encoder_model", "example_input"]


class _Builder:
    """Collects nodes and initializers; weights come from one seeded generator."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, prefix, shape, scale=None, positive=False, dtype="float32"):
        from onnx import numpy_helper

        name = self.name(prefix)
        if positive:
            value = self.rng.uniform(0.5, 1.5, size=shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
            value = self.rng.standard_normal(shape) * (scale if scale is not None else np.sqrt(2.0 / max(fan_in, 1)))
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def const(self, prefix, value):
        from onnx import numpy_helper

        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op, inputs, prefix=None, **attrs):
        from onnx import helper

        out = self.name(prefix or op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out


def _conv_bn(b, x, cin, cout, kernel, stride, relu):
    w = b.weight("conv_w", (cout, cin, kernel, kernel))
    pad = kernel // 2
    y = b.node("Conv", [x, w], "conv", kernel_shape=[kernel, kernel], strides=[stride, stride],
               pads=[pad, pad, pad, pad])
    scale = b.weight("bn_scale", (cout,), positive=True)
    bias = b.weight("bn_bias", (cout,), scale=0.1)
    mean = b.weight("bn_mean", (cout,), scale=0.1)
    var = b.weight("bn_var", (cout,), positive=True)
    y = b.node("BatchNormalization", [y, scale, bias, mean, var], "bn", epsilon=1e-5)
    return b.node("Relu", [y], "relu") if relu else y


def _residual_block(b, x, cin, cout, stride):
    y = _conv_bn(b, x, cin, cout, 3, stride, relu=True)
    y = _conv_bn(b, y, cout, cout, 3, 1, relu=False)
    shortcut = x if stride == 1 and cin == cout else _conv_bn(b, x, cin, cout, 1, stride, relu=False)
    return b.node("Relu", [b.node("Add", [y, shortcut], "add")], "relu")


def resnet_model(seed=0, batch=1, image_size=32, width=16, num_classes=10, opset=17):
    """A ResNet-style classifier as an onnx.ModelProto (input "input", output "logits")."""
    from onnx import TensorProto, helper

    b = _Builder(seed)
    x = _conv_bn(b, "input", 3, width, 3, 1, relu=True)
    x = b.node("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    x = _residual_block(b, x, width, width, 1)
    x = _residual_block(b, x, width, 2 * width, 2)
    x = b.node("GlobalAveragePool", [x], "gap")
    x = b.node("Flatten", [x], "flatten", axis=1)
    w = b.weight("fc_w", (num_classes, 2 * width))
    bias = b.weight("fc_b", (num_classes,), scale=0.1)
    b.nodes.append(helper.make_node("Gemm", [x, w, bias], ["logits"], name="fc", transB=1))
    graph = helper.make_graph(
        b.nodes, "resnet_demo",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [batch, 3, image_size, image_size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, num_classes])], initializer=b.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tvmlite.demo")


def transformer_encoder_model(layers=12, seq=16, hidden=64, heads=4, ffn=128, seed=0, opset=17):
    """A BERT-style encoder stack as an onnx.ModelProto (input "tokens" (1, seq, hidden), output "hidden")."""
    from onnx import TensorProto, helper

    if hidden % heads:
        raise ValueError(f"hidden ({hidden}) must be a multiple of heads ({heads})")
    b = _Builder(seed)
    head_dim = hidden // heads
    split_shape = b.const("split_shape", np.array([1, seq, heads, head_dim], "int64"))
    merge_shape = b.const("merge_shape", np.array([1, seq, hidden], "int64"))
    scale = b.const("scale", np.array(1.0 / np.sqrt(head_dim), "float32"))

    def linear(x, din, dout):
        return b.node("Add", [b.node("MatMul", [x, b.weight("w", (din, dout), scale=din ** -0.5)], "matmul"),
                              b.weight("b", (dout,), scale=0.02)], "add")

    def heads_of(x, perm):
        return b.node("Transpose", [b.node("Reshape", [x, split_shape], "reshape")], "transpose", perm=perm)

    def layer_norm(x):
        return b.node("LayerNormalization", [x, b.weight("ln_g", (hidden,), positive=True),
                                             b.weight("ln_b", (hidden,), scale=0.02)], "layernorm", axis=-1,
                      epsilon=1e-5)

    x = "tokens"
    for _ in range(layers):
        q = heads_of(linear(x, hidden, hidden), [0, 2, 1, 3])  # (1, heads, seq, head_dim)
        k = heads_of(linear(x, hidden, hidden), [0, 2, 3, 1])  # (1, heads, head_dim, seq)
        v = heads_of(linear(x, hidden, hidden), [0, 2, 1, 3])
        scores = b.node("Mul", [b.node("MatMul", [q, k], "matmul"), scale], "mul")
        attn = b.node("MatMul", [b.node("Softmax", [scores], "softmax", axis=-1), v], "matmul")
        attn = b.node("Reshape", [b.node("Transpose", [attn], "transpose", perm=[0, 2, 1, 3]), merge_shape],
                      "reshape")
        x = layer_norm(b.node("Add", [x, linear(attn, hidden, hidden)], "add"))
        ff = linear(b.node("Relu", [linear(x, hidden, ffn)], "relu"), ffn, hidden)
        x = layer_norm(b.node("Add", [x, ff], "add"))
    b.nodes.append(helper.make_node("Identity", [x], ["hidden"], name="out"))
    graph = helper.make_graph(
        b.nodes, "transformer_encoder",
        [helper.make_tensor_value_info("tokens", TensorProto.FLOAT, [1, seq, hidden])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [1, seq, hidden])], initializer=b.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tvmlite.bench")


def example_input(model, seed=0):
    """{name: array} for every graph input that is not an initializer (standard normal, seeded)."""
    from onnx import helper

    rng = np.random.default_rng(seed)
    inits = {i.name for i in model.graph.initializer}
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        feeds[vi.name] = rng.standard_normal(shape).astype(dtype)
    return feeds
