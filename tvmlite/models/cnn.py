"""Convolutional networks as ONNX models, laid out the way torchvision exports them (Conv without bias +
BatchNormalization + Relu/Clip, Gemm head), with seeded weights (no download).

    resnet(depth=50)            input "input" (batch, 3, S, S) -> "logits" (batch, num_classes)
    mobilenet_v2()              the same contract
    inception_v1()              the same contract (GoogLeNet without LRN and aux heads)
    unet()                      input "input" (batch, in_channels, S, S) -> "mask" (batch, num_classes, S, S)

``width`` scales every channel count (1.0 = the published network), so tests can run small variants with the same
topology. Shapes per stage are the published ones at image_size 224; any size works where the strides divide it
(ResNet, MobileNetV2: multiples of 32; U-Net: multiples of 2**levels).
"""
import numpy as np

from ._builder import Builder

__all__ = ["resnet", "mobilenet_v2", "inception_v1", "unet"]

_RESNET_BLOCKS = {18: ("basic", [2, 2, 2, 2]), 34: ("basic", [3, 4, 6, 3]), 50: ("bottleneck", [3, 4, 6, 3]),
                  101: ("bottleneck", [3, 4, 23, 3]), 152: ("bottleneck", [3, 8, 36, 3])}
# the last BatchNorm of a residual branch gets a smaller gamma: sums of many branches stay O(1) (see _builder.py)
_RESIDUAL_GAMMA = 0.3


def _scaled(channels, width):
    return max(1, int(round(channels * width)))


def resnet(depth=50, batch=1, image_size=224, num_classes=1000, width=1.0, seed=0, opset=17):
    """torchvision's ResNet-{18,34,50,101,152}: 7x7/2 stem conv + BN + relu + maxpool 3x3/2, four stages of basic
    (18, 34) or bottleneck (50+, expansion 4) blocks whose first block downsamples (stride 2 from stage 2, in the
    3x3 conv as torchvision v1.5 does) with a 1x1 conv + BN shortcut, global average pool, flatten, Gemm."""
    if depth not in _RESNET_BLOCKS:
        raise ValueError(f"resnet: depth must be one of {sorted(_RESNET_BLOCKS)}, got {depth}")
    kind, counts = _RESNET_BLOCKS[depth]
    expansion = 4 if kind == "bottleneck" else 1
    b = Builder(seed, opset)
    stem = _scaled(64, width)
    x = b.conv_bn("input", 3, stem, 7, stride=2)
    x = b.max_pool(x, 3, 2, pad=1)
    cin = stem
    for stage, count in enumerate(counts):
        planes = _scaled(64 * 2 ** stage, width)
        for i in range(count):
            stride = 2 if stage > 0 and i == 0 else 1
            cout = planes * expansion
            if kind == "basic":
                y = b.conv_bn(x, cin, planes, 3, stride)
                y = b.conv_bn(y, planes, cout, 3, 1, act=None, gamma=_RESIDUAL_GAMMA)
            else:
                y = b.conv_bn(x, cin, planes, 1)
                y = b.conv_bn(y, planes, planes, 3, stride)
                y = b.conv_bn(y, planes, cout, 1, act=None, gamma=_RESIDUAL_GAMMA)
            shortcut = x if stride == 1 and cin == cout else b.conv_bn(x, cin, cout, 1, stride, act=None)
            x = b.relu(b.node("Add", [y, shortcut], "add"))
            cin = cout
    b.classifier(x, cin, num_classes)
    return b.make_model([("input", (batch, 3, image_size, image_size))], [("logits", (batch, num_classes))],
                        f"resnet{depth}")


def _make_divisible(value, divisor=8):
    """torchvision's channel rounding for MobileNet: to a multiple of divisor, never more than 10% down."""
    new = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * value else new


# (expansion t, output channels c, repeats n, first stride s), as in the paper's Table 2
_MOBILENET_V2 = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                 (6, 320, 1, 1)]


def mobilenet_v2(batch=1, image_size=224, num_classes=1000, width=1.0, seed=0, opset=17):
    """torchvision's MobileNetV2: 3x3/2 stem (32), inverted residual blocks (1x1 expand + BN + ReLU6, depthwise
    3x3 + BN + ReLU6, 1x1 project + BN, identity shortcut when stride 1 and channels match), a 1x1 conv to 1280
    (+ BN + ReLU6), global average pool, flatten, Gemm. ReLU6 is Clip(0, 6) as exported."""
    b = Builder(seed, opset)
    cin = _make_divisible(32 * width)
    last = _make_divisible(1280 * max(1.0, width))
    x = b.conv_bn("input", 3, cin, 3, stride=2, act="relu6")
    for t, c, n, s in _MOBILENET_V2:
        cout = _make_divisible(c * width)
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x
            if t != 1:
                y = b.conv_bn(y, cin, hidden, 1, act="relu6")
            y = b.conv_bn(y, hidden, hidden, 3, stride, groups=hidden, act="relu6")
            residual = stride == 1 and cin == cout
            y = b.conv_bn(y, hidden, cout, 1, act=None, gamma=_RESIDUAL_GAMMA if residual else 1.0)
            x = b.node("Add", [x, y], "add") if residual else y
            cin = cout
    x = b.conv_bn(x, cin, last, 1, act="relu6")
    b.classifier(x, last, num_classes)
    return b.make_model([("input", (batch, 3, image_size, image_size))], [("logits", (batch, num_classes))],
                        "mobilenet_v2")


# GoogLeNet's inception modules: (1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection); None = a max pool
_INCEPTION_V1 = [(64, 96, 128, 16, 32, 32), (128, 128, 192, 32, 96, 64), None,
                 (192, 96, 208, 16, 48, 64), (160, 112, 224, 24, 64, 64), (128, 128, 256, 24, 64, 64),
                 (112, 144, 288, 32, 64, 64), (256, 160, 320, 32, 128, 128), "pool2",
                 (256, 160, 320, 32, 128, 128), (384, 192, 384, 48, 128, 128)]


def inception_v1(batch=1, image_size=224, num_classes=1000, width=1.0, seed=0, opset=17):
    """GoogLeNet (Inception v1) as torchvision builds it, without LRN and the auxiliary heads: 7x7/2 stem conv,
    ceil-mode max pools, 1x1 and 3x3 convs, nine inception modules (branches 1x1 | 1x1 -> 3x3 | 1x1 -> 5x5 |
    maxpool 3x3/1 -> 1x1, concatenated on channels), global average pool, flatten, Gemm. Every conv is
    Conv + BatchNormalization + Relu."""
    def w(c):
        return _scaled(c, width)

    b = Builder(seed, opset)
    x = b.conv_bn("input", 3, w(64), 7, stride=2)
    x = b.max_pool(x, 3, 2, ceil_mode=True)
    x = b.conv_bn(x, w(64), w(64), 1)
    x = b.conv_bn(x, w(64), w(192), 3)
    x = b.max_pool(x, 3, 2, ceil_mode=True)
    cin = w(192)
    for spec in _INCEPTION_V1:
        if spec is None:
            x = b.max_pool(x, 3, 2, ceil_mode=True)
            continue
        if spec == "pool2":
            x = b.max_pool(x, 2, 2, ceil_mode=True)
            continue
        c1, r3, c3, r5, c5, pp = (w(c) for c in spec)
        branches = [b.conv_bn(x, cin, c1, 1),
                    b.conv_bn(b.conv_bn(x, cin, r3, 1), r3, c3, 3),
                    b.conv_bn(b.conv_bn(x, cin, r5, 1), r5, c5, 5),
                    b.conv_bn(b.max_pool(x, 3, 1, pad=1, ceil_mode=True), cin, pp, 1)]
        x = b.node("Concat", branches, "concat", axis=1)
        cin = c1 + c3 + c5 + pp
    b.classifier(x, cin, num_classes)
    return b.make_model([("input", (batch, 3, image_size, image_size))], [("logits", (batch, num_classes))],
                        "inception_v1")


def unet(batch=1, image_size=128, in_channels=3, num_classes=2, base=32, levels=4, up="transpose", seed=0,
         opset=17):
    """A U-Net: per level a block of two (3x3 Conv + BN + Relu), MaxPool 2x2 down; a bottleneck block; up by
    ConvTranspose 2x2/2 (``up="transpose"``) or Resize nearest x2 + 1x1 conv (``up="resize"``), concatenated with
    the encoder's skip on channels, then a block; a final 1x1 conv (with bias) to num_classes."""
    if up not in ("transpose", "resize"):
        raise ValueError(f"unet: up must be 'transpose' or 'resize', got {up!r}")
    if image_size % (2 ** levels):
        raise ValueError(f"unet: image_size ({image_size}) must be a multiple of 2**levels ({2 ** levels})")
    b = Builder(seed, opset)

    def block(x, cin, cout):
        return b.conv_bn(b.conv_bn(x, cin, cout, 3), cout, cout, 3)

    x, cin, skips = "input", in_channels, []
    for level in range(levels):
        c = base * 2 ** level
        x = block(x, cin, c)
        skips.append((x, c))
        x = b.max_pool(x, 2, 2)
        cin = c
    x = block(x, cin, base * 2 ** levels)
    cin = base * 2 ** levels
    for skip, c in reversed(skips):
        if up == "transpose":
            weight = b.weight("up_w", (cin, c, 2, 2), scale=np.sqrt(2.0 / cin))
            x = b.node("ConvTranspose", [x, weight, b.weight("up_b", (c,), scale=0.02)], "up", kernel_shape=[2, 2],
                       strides=[2, 2])
        else:
            scales = b.const("up_scales", np.array([1, 1, 2, 2], "float32"))
            x = b.node("Resize", [x, "", scales], "up", mode="nearest")
            x = b.conv_bn(x, cin, c, 1)
        x = block(b.node("Concat", [x, skip], "concat", axis=1), 2 * c, c)
        cin = c
    b.node("Conv", [x, b.weight("head_w", (num_classes, cin, 1, 1)), b.weight("head_b", (num_classes,), scale=0.02)],
           outputs=["mask"], kernel_shape=[1, 1])
    return b.make_model([("input", (batch, in_channels, image_size, image_size))],
                        [("mask", (batch, num_classes, image_size, image_size))], "unet")
