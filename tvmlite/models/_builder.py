"""The one helper every model builder shares: nodes and initializers collected in order, weights from one seeded
generator, and the layer idioms real exporters emit (Conv + BatchNormalization, Gemm with transB, MatMul + Add).

Weight scales keep activations O(1) through any depth, so a numerical comparison at rtol 1e-3 stays meaningful on
a 50-layer model: convs use He initialisation (std sqrt(2 / fan_in), fan_in = Cin/groups * KH * KW), BatchNorm
has running mean ~ 0 and running variance ~ 1 with a gamma near 1, except where a residual branch ends (gamma near
``residual_gamma``: the sum of many branches grows slowly, as with a trained network's small last-BN scales).
"""
import numpy as np

__all__ = ["Builder", "example_input"]


class Builder:
    """Collects nodes and initializers; ``make_model`` wraps them in a checked onnx.ModelProto.

        b = Builder(seed=0)
        y = b.conv_bn_relu("input", cin=3, cout=16, kernel=3, stride=2)
        model = b.make_model([("input", (1, 3, 32, 32))], [(y, (1, 16, 16, 16))], "net")
    """

    def __init__(self, seed=0, opset=17):
        self.rng = np.random.default_rng(seed)
        self.opset = opset
        self.nodes = []
        self.inits = []
        self.count = 0

    # -- names, weights and nodes -------------------------------------------------------------------------------
    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def _init(self, prefix, value):
        from onnx import numpy_helper

        name = self.name(prefix)
        value = np.asarray(value)
        self.inits.append(numpy_helper.from_array(value if value.flags.c_contiguous else value.copy(), name))
        return name

    def weight(self, prefix, shape, scale=None, positive=False, dtype="float32"):
        """A seeded weight: N(0, scale^2) (scale defaults to He's sqrt(2 / fan_in)), or U(0.5, 1.5) if positive."""
        if positive:
            value = self.rng.uniform(0.5, 1.5, size=shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
            std = scale if scale is not None else np.sqrt(2.0 / max(fan_in, 1))
            value = self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)
        return self._init(prefix, np.asarray(value, dtype=dtype))

    def const(self, prefix, value):
        """An initializer holding exactly value (shapes for Reshape, Clip bounds, scalars)."""
        return self._init(prefix, np.asarray(value))

    def node(self, op, inputs, prefix=None, outputs=None, **attrs):
        """Append one node; returns its (first) output's name. ``outputs`` names them explicitly."""
        from onnx import helper

        outs = list(outputs) if outputs else [self.name(prefix or op.lower())]
        self.nodes.append(helper.make_node(op, inputs, outs, name=outs[0], **attrs))
        return outs[0]

    # -- layers ---------------------------------------------------------------------------------------------------
    def conv(self, x, cin, cout, kernel, stride=1, pad=None, groups=1, bias=False, dilation=1, scale=None):
        """Conv (OIHW weight, He init), symmetric padding kernel // 2 by default."""
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        ph, pw = (kh // 2 * dilation, kw // 2 * dilation) if pad is None else \
            ((pad, pad) if isinstance(pad, int) else pad)
        inputs = [x, self.weight("conv_w", (cout, cin // groups, kh, kw), scale=scale)]
        if bias:
            inputs.append(self.weight("conv_b", (cout,), scale=0.02))
        attrs = dict(kernel_shape=[kh, kw], strides=[stride, stride], pads=[ph, pw, ph, pw])
        if groups != 1:
            attrs["group"] = groups
        if dilation != 1:
            attrs["dilations"] = [dilation, dilation]
        return self.node("Conv", inputs, "conv", **attrs)

    def batch_norm(self, x, channels, gamma=1.0):
        """Inference BatchNormalization with plausible running statistics; the optimiser folds it into the conv."""
        scale = self._init("bn_scale", (gamma * self.rng.uniform(0.8, 1.2, channels)).astype("float32"))
        bias = self._init("bn_bias", (0.05 * self.rng.standard_normal(channels)).astype("float32"))
        mean = self._init("bn_mean", (0.05 * self.rng.standard_normal(channels)).astype("float32"))
        var = self._init("bn_var", self.rng.uniform(0.8, 1.2, channels).astype("float32"))
        return self.node("BatchNormalization", [x, scale, bias, mean, var], "bn", epsilon=1e-5)

    def relu(self, x):
        return self.node("Relu", [x], "relu")

    def relu6(self, x):
        """ReLU6 as exporters write it from opset 11: Clip with min/max inputs."""
        lo = self.const("clip_min", np.array(0.0, "float32"))
        hi = self.const("clip_max", np.array(6.0, "float32"))
        return self.node("Clip", [x, lo, hi], "relu6")

    def conv_bn(self, x, cin, cout, kernel, stride=1, groups=1, act="relu", gamma=1.0, pad=None):
        """Conv (no bias) + BatchNormalization + activation ("relu", "relu6" or None)."""
        y = self.batch_norm(self.conv(x, cin, cout, kernel, stride, pad=pad, groups=groups), cout, gamma=gamma)
        if act == "relu":
            return self.relu(y)
        if act == "relu6":
            return self.relu6(y)
        if act is None:
            return y
        raise ValueError(f"conv_bn: unknown activation {act!r}")

    def max_pool(self, x, kernel, stride, pad=0, ceil_mode=False):
        attrs = dict(kernel_shape=[kernel, kernel], strides=[stride, stride], pads=[pad] * 4)
        if ceil_mode:
            attrs["ceil_mode"] = 1
        return self.node("MaxPool", [x], "maxpool", **attrs)

    def classifier(self, x, features, num_classes, output="logits"):
        """GlobalAveragePool, Flatten, Gemm (weight (classes, features), transB=1), as torchvision exports it."""
        x = self.node("Flatten", [self.node("GlobalAveragePool", [x], "gap")], "flatten", axis=1)
        w = self.weight("fc_w", (num_classes, features), scale=features ** -0.5)
        bias = self.weight("fc_b", (num_classes,), scale=0.02)
        return self.node("Gemm", [x, w, bias], outputs=[output], transB=1)

    def linear(self, x, din, dout):
        """MatMul by a (din, dout) weight + Add a bias: how transformer exports spell a Linear layer."""
        w = self.weight("w", (din, dout), scale=din ** -0.5)
        return self.node("Add", [self.node("MatMul", [x, w], "matmul"), self.weight("b", (dout,), scale=0.02)],
                         "add")

    # -- the model ------------------------------------------------------------------------------------------------
    def make_model(self, inputs, outputs, graph_name, producer="tvmlite.models", check=True):
        """inputs/outputs: lists of (name, shape) or (name, shape, numpy dtype); float32 by default."""
        from onnx import checker, helper

        def info(spec):
            name, shape = spec[0], spec[1]
            dtype = np.dtype(spec[2] if len(spec) > 2 else "float32")
            return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(dtype),
                                                 None if shape is None else list(shape))

        graph = helper.make_graph(self.nodes, graph_name, [info(s) for s in inputs], [info(s) for s in outputs],
                                  initializer=self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                  producer_name=producer)
        if check:
            checker.check_model(model)
        return model


def example_input(model, seed=0):
    """{name: array} for every graph input that is not an initializer: standard normal floats, integers in
    [0, 100), booleans; seeded. Dimensions without a value are 1."""
    from onnx import helper

    rng = np.random.default_rng(seed)
    inits = {i.name for i in model.graph.initializer}
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        feeds[vi.name] = random_array(shape, helper.tensor_dtype_to_np_dtype(t.elem_type), rng)
    return feeds


def random_array(shape, dtype, rng):
    """A seeded random array of dtype: N(0, 1) floats, integers in [0, 100), booleans."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 100, size=shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    raise TypeError(f"random_array: cannot make random values of dtype {dtype}")
