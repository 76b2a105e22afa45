"""Small ONNX models built with onnx.helper and seeded weights (no download): the demo's ResNet and the
frontend benchmark's transformer encoder. Both use the shared builder of tvmlite.models (real-sized networks live
there).

    model = resnet_model(seed=0)                 # onnx.ModelProto, input "input" (1, 3, 32, 32) -> "logits" (1, 10)
    x = example_input(model, seed=0)             # {"input": float32 array}
    model = transformer_encoder_model(layers=12) # input "tokens" (1, 16, 64) -> "hidden" (1, 16, 64)

ResNet: stem Conv 3x3 + BatchNormalization + Relu + MaxPool 3x3/2, a residual block (two Conv+BN, identity
shortcut, Add, Relu), a downsampling residual block (stride-2 Conv+BN path, 1x1 stride-2 Conv+BN shortcut),
GlobalAveragePool, Flatten, Gemm.

Transformer encoder layer: tvmlite.models.transformer_encoder with a Relu feed-forward block, at small sizes.
"""
from ....models import Builder, example_input, transformer_encoder

__all__ = ["resnet_model", "transformer_encoder_model", "example_input"]


def _residual_block(b, x, cin, cout, stride):
    y = b.conv_bn(x, cin, cout, 3, stride)
    y = b.conv_bn(y, cout, cout, 3, 1, act=None)
    shortcut = x if stride == 1 and cin == cout else b.conv_bn(x, cin, cout, 1, stride, act=None)
    return b.relu(b.node("Add", [y, shortcut], "add"))


def resnet_model(seed=0, batch=1, image_size=32, width=16, num_classes=10, opset=17):
    """A ResNet-style classifier as an onnx.ModelProto (input "input", output "logits")."""
    b = Builder(seed, opset)
    x = b.conv_bn("input", 3, width, 3, 1)
    x = b.max_pool(x, 3, 2, pad=1)
    x = _residual_block(b, x, width, width, 1)
    x = _residual_block(b, x, width, 2 * width, 2)
    b.classifier(x, 2 * width, num_classes)
    return b.make_model([("input", (batch, 3, image_size, image_size))], [("logits", (batch, num_classes))],
                        "resnet_demo", producer="tvmlite.demo", check=False)


def transformer_encoder_model(layers=12, seq=16, hidden=64, heads=4, ffn=128, seed=0, opset=17):
    """A BERT-style encoder stack as an onnx.ModelProto (input "tokens" (1, seq, hidden), output "hidden")."""
    return transformer_encoder(layers=layers, seq=seq, hidden=hidden, heads=heads, ffn=ffn, activation="relu",
                               seed=seed, opset=opset)
