"""A BERT-style transformer encoder as an ONNX model, spelled with the ops a PyTorch export of BERT uses
(seeded weights, no download).

    transformer_encoder(layers=4, seq=128, hidden=768, heads=12, ffn=3072)
        input "tokens" (batch, seq, hidden) float32 -> "hidden" (batch, seq, hidden)

One layer (post-norm, as BERT):
    q, k, v = MatMul + Add (three Linear layers)
    heads:   Reshape (batch, seq, heads, head_dim), Transpose (0, 2, 1, 3) ((0, 2, 3, 1) for k)
    scores:  MatMul(q, k) / sqrt(head_dim), Softmax(axis=-1), MatMul(., v)
    merge:   Transpose (0, 2, 1, 3), Reshape (batch, seq, hidden), Linear
    x = LayerNormalization(x + attention)
    x = LayerNormalization(x + Linear(GELU(Linear(x))))      GELU as x * 0.5 * (1 + Erf(x / sqrt 2))

The input is the embedding output (embedding lookup is a gather, not what an encoder benchmark measures).
LayerNormalization needs opset >= 17.
"""
import numpy as np

from ._builder import Builder

__all__ = ["transformer_encoder"]


def transformer_encoder(layers=4, seq=128, hidden=768, heads=12, ffn=3072, batch=1, activation="gelu", seed=0,
                        opset=17):
    """BERT-base-like encoder layers (defaults: BERT-base's sizes, 4 of its 12 layers); activation "gelu"
    (Erf form) or "relu"."""
    if hidden % heads:
        raise ValueError(f"transformer_encoder: hidden ({hidden}) must be a multiple of heads ({heads})")
    if activation not in ("gelu", "relu"):
        raise ValueError(f"transformer_encoder: activation must be 'gelu' or 'relu', got {activation!r}")
    if opset < 17:
        raise ValueError(f"transformer_encoder: LayerNormalization needs opset >= 17, got {opset}")
    b = Builder(seed, opset)
    head_dim = hidden // heads
    split_shape = b.const("split_shape", np.array([batch, seq, heads, head_dim], "int64"))
    merge_shape = b.const("merge_shape", np.array([batch, seq, hidden], "int64"))
    sqrt_d = b.const("sqrt_head_dim", np.array(np.sqrt(head_dim), "float32"))
    sqrt2 = b.const("sqrt2", np.array(np.sqrt(2.0), "float32"))
    one = b.const("one", np.array(1.0, "float32"))
    half = b.const("half", np.array(0.5, "float32"))

    def heads_of(x, perm):
        return b.node("Transpose", [b.node("Reshape", [x, split_shape], "reshape")], "transpose", perm=perm)

    def layer_norm(x):
        gamma = b.const("ln_g", b.rng.uniform(0.8, 1.2, hidden).astype("float32"))
        return b.node("LayerNormalization", [x, gamma, b.weight("ln_b", (hidden,), scale=0.02)], "layernorm",
                      axis=-1, epsilon=1e-12)

    def gelu(x):
        erf = b.node("Erf", [b.node("Div", [x, sqrt2], "div")], "erf")
        return b.node("Mul", [b.node("Mul", [x, b.node("Add", [erf, one], "add")], "mul"), half], "gelu")

    x = "tokens"
    for _ in range(layers):
        q = heads_of(b.linear(x, hidden, hidden), [0, 2, 1, 3])  # (batch, heads, seq, head_dim)
        k = heads_of(b.linear(x, hidden, hidden), [0, 2, 3, 1])  # (batch, heads, head_dim, seq)
        v = heads_of(b.linear(x, hidden, hidden), [0, 2, 1, 3])
        scores = b.node("Div", [b.node("MatMul", [q, k], "matmul"), sqrt_d], "div")
        attn = b.node("MatMul", [b.node("Softmax", [scores], "softmax", axis=-1), v], "matmul")
        attn = b.node("Reshape", [b.node("Transpose", [attn], "transpose", perm=[0, 2, 1, 3]), merge_shape],
                      "reshape")
        x = layer_norm(b.node("Add", [x, b.linear(attn, hidden, hidden)], "add"))
        inner = b.linear(x, hidden, ffn)
        inner = gelu(inner) if activation == "gelu" else b.relu(inner)
        x = layer_norm(b.node("Add", [x, b.linear(inner, ffn, hidden)], "add"))
    b.node("Identity", [x], outputs=["hidden"])
    return b.make_model([("tokens", (batch, seq, hidden))], [("hidden", (batch, seq, hidden))],
                        "transformer_encoder")
