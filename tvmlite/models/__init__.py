"""Real-sized networks as ONNX models built with onnx.helper and seeded weights (no download): what tvmlite is
measured and tested on.

    from tvmlite import models
    model = models.resnet(depth=50)                  # onnx.ModelProto, "input" (1, 3, 224, 224) -> "logits"
    feeds = models.example_input(model, seed=0)      # {"input": float32 array}
    mod, params = tvmlite.frontend.from_onnx(model)

Builders: resnet, mobilenet_v2, inception_v1, unet (cnn.py), transformer_encoder (transformer.py). ``get_model(name,
quick=False)`` builds one of ``MODELS`` by name at its benchmark size, or a small variant with the same topology
(quick=True) for smoke runs and tests.
"""
from ._builder import Builder, example_input, random_array
from .cnn import inception_v1, mobilenet_v2, resnet, unet
from .transformer import transformer_encoder

__all__ = ["Builder", "example_input", "random_array", "resnet", "mobilenet_v2", "inception_v1", "unet",
           "transformer_encoder", "MODELS", "get_model"]

# name -> (builder, benchmark kwargs, quick kwargs)
MODELS = {
    "resnet50": (resnet, dict(depth=50), dict(depth=50, image_size=64, width=0.25, num_classes=10)),
    "resnet18": (resnet, dict(depth=18), dict(depth=18, image_size=64, width=0.25, num_classes=10)),
    "mobilenet_v2": (mobilenet_v2, {}, dict(image_size=64, width=0.35, num_classes=10)),
    "inception_v1": (inception_v1, {}, dict(image_size=64, width=0.25, num_classes=10)),
    "transformer": (transformer_encoder, dict(layers=4, seq=128, hidden=768, heads=12, ffn=3072),
                    dict(layers=2, seq=16, hidden=64, heads=4, ffn=128)),
    "unet": (unet, dict(image_size=128, base=32, levels=4), dict(image_size=32, base=8, levels=2)),
}


def get_model(name, quick=False, **overrides):
    """Build MODELS[name] (an onnx.ModelProto) at benchmark size, or small with quick=True; overrides win."""
    if name not in MODELS:
        raise ValueError(f"get_model: unknown model {name!r} (known: {', '.join(MODELS)})")
    builder, full, small = MODELS[name]
    return builder(**{**(small if quick else full), **overrides})
