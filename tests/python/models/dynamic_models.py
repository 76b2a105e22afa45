"""Exporter-shaped ONNX models with symbolic dims (dim_param), as torch.onnx.export and optimum emit them with their
default dynamic axes: shapes are computed in the graph (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range,
Slice with computed ends, Expand, Where), not written as constants. Seeded weights, small sizes, no network.

    bert()            input_ids, attention_mask (batch, sequence) int64 -> last_hidden_state (batch, sequence, 32)
    gpt2_with_past()  input_ids (batch, sequence), attention_mask (batch, past_sequence + sequence),
                      past_key_values.{i}.key/value (batch, 2, past_sequence, 16)
                      -> logits (batch, sequence, VOCAB), present.{i}.key/value (batch, 2, past_sequence + sequence, 16)
    gpt2_merged()     optimum's decoder_model_merged: the same, plus use_cache_branch (1,) bool choosing at run time
                      between the decoder with past (then) and the one without (else: past ignored, attention_mask
                      (batch, sequence)); attention_mask's length is "total_sequence"
    vit()             pixel_values (batch, 3, 32, 32) -> logits (batch, 10)
    swin()            pixel_values (batch, 3, 16, 16) -> logits (batch, 10): window partition / reverse, shifted
                      windows (Slice + Concat roll, masked windows), patch merging, AdaptiveAvgPool1d's
                      GlobalAveragePool
    resnet()          tvmlite.models.resnet(18) with batch "batch": input (batch, 3, 32, 32) -> logits (batch, 1000)
    wav2vec2()        input_values (batch, samples) float32 -> last_hidden_state (batch, frames, 32)

Every builder returns a ModelProto that passes onnx.checker.check_model(full_check=True) and strict shape
inference. ``example_inputs(model, dims, seed)`` makes the feeds for a concrete shape dict, e.g.
{"batch": 2, "sequence": 7}; a dim_param written "a + b" is the sum of both.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tvmlite.models import resnet as _resnet
from tvmlite.models._builder import Builder

__all__ = ["VOCAB", "bert", "gpt2_with_past", "gpt2_merged", "vit", "swin", "resnet", "wav2vec2", "example_inputs",
           "MODELS"]

VOCAB = 50
_MIN = float(np.finfo(np.float32).min)  # HF's mask value: torch.finfo(dtype).min


def _check(model):
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    return model


class _Graph:
    """Builder plus the exporter idioms: Constant nodes for shape constants, computed dims, heads split/merge."""

    def __init__(self, seed):
        self.b = Builder(seed, opset=17)

    def node(self, op, inputs, **attrs):
        return self.b.node(op, inputs, op.lower(), **attrs)

    def constant(self, value, dtype="int64"):
        """A Constant node, as torch.onnx.export writes the shape constants of a traced graph."""
        name = self.b.name("constant")
        tensor = numpy_helper.from_array(np.asarray(value, dtype), name + "_value")
        return self.b.node("Constant", [], outputs=[name], value=tensor)

    def dim(self, x, axis):
        """x.shape[axis] as a 0-d int64 tensor: Shape -> Gather."""
        return self.node("Gather", [self.node("Shape", [x]), self.constant(axis)], axis=0)

    def unsqueeze(self, x, axes):
        return self.node("Unsqueeze", [x, self.constant(axes)])

    def shape_of(self, *parts):
        """Concat of 0-d dims (Unsqueezed) and int constants into a 1-d shape."""
        pieces = [self.constant([p]) if isinstance(p, int) else self.unsqueeze(p, [0]) for p in parts]
        return self.node("Concat", pieces, axis=0)

    def reshape(self, x, *parts):
        return self.node("Reshape", [x, self.shape_of(*parts)])

    def transpose(self, x, perm):
        return self.node("Transpose", [x], perm=list(perm))

    def linear(self, x, din, dout, bias=True):
        if not bias:
            return self.node("MatMul", [x, self.b.weight("w", (din, dout), scale=din ** -0.5)])
        return self.b.linear(x, din, dout)

    def layer_norm(self, x, width, eps=1e-5):
        gamma = self.b.const("ln_g", self.b.rng.uniform(0.8, 1.2, width).astype("float32"))
        beta = self.b.weight("ln_b", (width,), scale=0.02)
        return self.node("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=eps)

    def gelu(self, x):
        """BERT's GELU as exported: x * 0.5 * (1 + erf(x / sqrt 2)) (Div, Erf, Add, Mul, Mul)."""
        erf = self.node("Erf", [self.node("Div", [x, self.constant(np.sqrt(2.0), "float32")])])
        inner = self.node("Add", [erf, self.constant(1.0, "float32")])
        return self.node("Mul", [self.node("Mul", [x, inner]), self.constant(0.5, "float32")])

    def gelu_tanh(self, x):
        """GPT-2's gelu_new: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."""
        cube = self.node("Pow", [x, self.constant(3.0, "float32")])
        inner = self.node("Add", [x, self.node("Mul", [cube, self.constant(0.044715, "float32")])])
        t = self.node("Tanh", [self.node("Mul", [inner, self.constant(np.sqrt(2 / np.pi), "float32")])])
        half = self.node("Mul", [x, self.constant(0.5, "float32")])
        return self.node("Mul", [half, self.node("Add", [t, self.constant(1.0, "float32")])])

    def split_heads(self, x, heads, head_dim, perm=(0, 2, 1, 3)):
        """(batch, seq, heads * head_dim) -> (batch, heads, seq, head_dim), the shape taken from x at run time."""
        y = self.reshape(x, self.dim(x, 0), self.dim(x, 1), heads, head_dim)
        return self.transpose(y, perm)

    def merge_heads(self, x, hidden):
        """(batch, heads, seq, head_dim) -> (batch, seq, hidden)."""
        y = self.transpose(x, (0, 2, 1, 3))
        return self.reshape(y, self.dim(y, 0), self.dim(y, 1), hidden)

    def extended_mask(self, mask):
        """HF's get_extended_attention_mask: (batch, keys) int64 -> (batch, 1, 1, keys) float32, 0 or finfo.min."""
        m = self.node("Cast", [self.unsqueeze(mask, [1, 2])], to=TensorProto.FLOAT)
        inverted = self.node("Sub", [self.constant(1.0, "float32"), m])
        return self.node("Mul", [inverted, self.constant(_MIN, "float32")])

    def finish(self, inputs, outputs, name):
        return _check(self.b.make_model(inputs, outputs, name))


# -- a. BERT-style encoder ---------------------------------------------------------------------------------------------
def bert(layers=2, hidden=32, heads=2, ffn=64, max_positions=64, seed=0):
    g = _Graph(seed)
    b = g.b
    head_dim = hidden // heads
    ids, mask = "input_ids", "attention_mask"
    seq = g.dim(ids, 1)
    # word + position (Shape -> Gather -> Range) + token type (a zeros buffer sliced to seq, Expanded to the batch)
    words = g.node("Gather", [b.weight("word_emb", (VOCAB, hidden), scale=1.0), ids])
    positions = g.unsqueeze(g.node("Range", [g.constant(0), seq, g.constant(1)]), [0])
    pos = g.node("Gather", [b.weight("pos_emb", (max_positions, hidden), scale=0.5), positions])
    buffer = b.const("token_type_ids", np.zeros((1, max_positions), "int64"))
    types = g.node("Slice", [buffer, g.constant([0]), g.unsqueeze(seq, [0]), g.constant([1])])
    types = g.node("Expand", [types, g.shape_of(g.dim(ids, 0), seq)])
    types = g.node("Gather", [b.weight("type_emb", (2, hidden), scale=0.5), types])
    x = g.layer_norm(g.node("Add", [g.node("Add", [words, types]), pos]), hidden, eps=1e-12)
    bias = g.extended_mask(mask)
    for _ in range(layers):
        q = g.split_heads(g.linear(x, hidden, hidden), heads, head_dim)
        k = g.split_heads(g.linear(x, hidden, hidden), heads, head_dim, perm=(0, 2, 3, 1))
        v = g.split_heads(g.linear(x, hidden, hidden), heads, head_dim)
        scores = g.node("Div", [g.node("MatMul", [q, k]), g.constant(np.sqrt(head_dim), "float32")])
        probs = g.node("Softmax", [g.node("Add", [scores, bias])], axis=-1)
        ctx = g.merge_heads(g.node("MatMul", [probs, v]), hidden)
        x = g.layer_norm(g.node("Add", [g.linear(ctx, hidden, hidden), x]), hidden, eps=1e-12)
        inner = g.gelu(g.linear(x, hidden, ffn))
        x = g.layer_norm(g.node("Add", [g.linear(inner, ffn, hidden), x]), hidden, eps=1e-12)
    b.node("Identity", [x], outputs=["last_hidden_state"])
    return g.finish([(ids, ("batch", "sequence"), "int64"), (mask, ("batch", "sequence"), "int64")],
                    [("last_hidden_state", ("batch", "sequence", hidden))], "bert")


# -- b, c. GPT-2-style decoders ----------------------------------------------------------------------------------------
class _Gpt2Weights:
    """The decoder's weights, made once: the merged decoder's two branches share them (outer-scope initializers)."""

    def __init__(self, g, layers, hidden, ffn, max_positions, triangle):
        b = g.b
        self.wte = b.weight("wte", (VOCAB, hidden), scale=1.0)
        self.wpe = b.weight("wpe", (max_positions, hidden), scale=0.5)
        if triangle:  # HF GPT-2's causal buffer, sliced per step
            tril = np.tril(np.ones((max_positions, max_positions), bool))
            self.triangle = b.const("causal_bias", tril[None, None])
        self.layers = []
        for _ in range(layers):
            self.layers.append(dict(
                ln1=(b.const("ln_g", b.rng.uniform(0.8, 1.2, hidden).astype("float32")),
                     b.weight("ln_b", (hidden,), scale=0.02)),
                c_attn=(b.weight("c_attn_w", (hidden, 3 * hidden), scale=hidden ** -0.5),
                        b.weight("c_attn_b", (3 * hidden,), scale=0.02)),
                c_proj=(b.weight("c_proj_w", (hidden, hidden), scale=hidden ** -0.5),
                        b.weight("c_proj_b", (hidden,), scale=0.02)),
                ln2=(b.const("ln_g", b.rng.uniform(0.8, 1.2, hidden).astype("float32")),
                     b.weight("ln_b", (hidden,), scale=0.02)),
                fc=(b.weight("fc_w", (hidden, ffn), scale=hidden ** -0.5), b.weight("fc_b", (ffn,), scale=0.02)),
                proj=(b.weight("mlp_proj_w", (ffn, hidden), scale=ffn ** -0.5),
                      b.weight("mlp_proj_b", (hidden,), scale=0.02))))
        self.ln_f = (b.const("ln_g", b.rng.uniform(0.8, 1.2, hidden).astype("float32")),
                     b.weight("ln_b", (hidden,), scale=0.02))
        self.lm_head = b.weight("lm_head", (hidden, VOCAB), scale=hidden ** -0.5)


def _gpt2_body(g, w, heads, hidden, use_past, causal):
    """Append one decoder pass to g.b.nodes; returns the names of logits and present key/values (in order).

    use_past: past_key_values.{i}.* are concatenated before the new keys/values and positions start at past_sequence;
    otherwise they are not read. causal: "triangle" slices HF's constant lower-triangle buffer
    (bias[:, :, kl - ql : kl, :kl]) and Wheres; "range" compares key and query positions made with Range (Less).
    """
    head_dim = hidden // heads
    ids = "input_ids"
    seq = g.dim(ids, 1)
    past = g.dim("past_key_values.0.key", 2) if use_past else g.constant(0)
    total = g.node("Add", [past, seq])
    positions = g.unsqueeze(g.node("Range", [past, total, g.constant(1)]), [0])
    x = g.node("Add", [g.node("Gather", [w.wte, ids]), g.node("Gather", [w.wpe, positions])])
    mask_bias = g.extended_mask("attention_mask")

    def ln(x, params):
        return g.node("LayerNormalization", [x, *params], axis=-1, epsilon=1e-5)

    def dense(x, params):
        return g.node("Add", [g.node("MatMul", [x, params[0]]), params[1]])

    if causal == "range":
        query_pos = g.unsqueeze(g.node("Range", [past, total, g.constant(1)]), [1])  # (seq, 1)
        key_pos = g.unsqueeze(g.node("Range", [g.constant(0), total, g.constant(1)]), [0])  # (1, total)
        future = g.node("Less", [query_pos, key_pos])
    presents = []
    for i, layer in enumerate(w.layers):
        h = ln(x, layer["ln1"])
        q, k, v = (g.b.name("qkv") for _ in range(3))
        g.b.node("Split", [dense(h, layer["c_attn"]), g.constant([hidden] * 3)], outputs=[q, k, v], axis=2)
        q, k, v = (g.split_heads(t, heads, head_dim) for t in (q, k, v))
        if use_past:
            k = g.node("Concat", [f"past_key_values.{i}.key", k], axis=2)
            v = g.node("Concat", [f"past_key_values.{i}.value", v], axis=2)
        presents += [k, v]
        scores = g.node("MatMul", [q, g.transpose(k, (0, 1, 3, 2))])
        scores = g.node("Div", [scores, g.constant(np.sqrt(head_dim), "float32")])
        if causal == "triangle":
            kl, ql = g.dim(k, 2), g.dim(q, 2)
            rows = g.node("Slice", [w.triangle, g.unsqueeze(g.node("Sub", [kl, ql]), [0]), g.unsqueeze(kl, [0]),
                                    g.constant([2])])
            visible = g.node("Slice", [rows, g.constant([0]), g.unsqueeze(kl, [0]), g.constant([3])])
            scores = g.node("Where", [visible, scores, g.constant(_MIN, "float32")])
        else:
            scores = g.node("Where", [future, g.constant(_MIN, "float32"), scores])
        probs = g.node("Softmax", [g.node("Add", [scores, mask_bias])], axis=-1)
        attn = g.merge_heads(g.node("MatMul", [probs, v]), hidden)
        x = g.node("Add", [x, dense(attn, layer["c_proj"])])
        mlp = dense(g.gelu_tanh(dense(ln(x, layer["ln2"]), layer["fc"])), layer["proj"])
        x = g.node("Add", [x, mlp])
    logits = g.node("MatMul", [ln(x, w.ln_f), w.lm_head])
    return [logits] + presents


def _present_names(layers):
    return [f"present.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]


def _past_inputs(layers, heads, head_dim):
    return [(f"past_key_values.{i}.{kv}", ("batch", heads, "past_sequence", head_dim))
            for i in range(layers) for kv in ("key", "value")]


def gpt2_with_past(layers=2, hidden=32, heads=2, ffn=128, max_positions=64, seed=0):
    g = _Graph(seed)
    w = _Gpt2Weights(g, layers, hidden, ffn, max_positions, triangle=True)
    outs = _gpt2_body(g, w, heads, hidden, use_past=True, causal="triangle")
    names = ["logits"] + _present_names(layers)
    for out, name in zip(outs, names):
        g.b.node("Identity", [out], outputs=[name])
    total = "past_sequence + sequence"
    inputs = [("input_ids", ("batch", "sequence"), "int64"), ("attention_mask", ("batch", total), "int64")]
    outputs = [("logits", ("batch", "sequence", VOCAB))] + \
        [(n, ("batch", heads, total, hidden // heads)) for n in names[1:]]
    return g.finish(inputs + _past_inputs(layers, heads, hidden // heads), outputs, "gpt2_with_past")


def gpt2_merged(layers=2, hidden=32, heads=2, ffn=128, max_positions=64, seed=0):
    """An If on use_cache_branch: then the decoder with past, else the decoder without (past inputs unread, as
    optimum's merged model feeds them dummies of past_sequence 1). Both branches read the same outer initializers."""
    g = _Graph(seed)
    w = _Gpt2Weights(g, layers, hidden, ffn, max_positions, triangle=False)
    outer = g.b.nodes
    names = ["logits"] + _present_names(layers)
    branches = {}
    for branch, use_past in (("then", True), ("else", False)):
        g.b.nodes = []
        outs = _gpt2_body(g, w, heads, hidden, use_past=use_past, causal="range")
        finals = [g.b.node("Identity", [o], outputs=[f"{branch}_{n}"]) for o, n in zip(outs, names)]
        branches[branch] = helper.make_graph(
            g.b.nodes, f"{branch}_branch", [],
            [helper.make_tensor_value_info(f, TensorProto.FLOAT, None) for f in finals])
    g.b.nodes = outer
    cond = g.node("Squeeze", ["use_cache_branch", g.constant([0])])
    g.b.nodes.append(helper.make_node("If", [cond], names, name="optimum::if", then_branch=branches["then"],
                                      else_branch=branches["else"]))
    inputs = [("input_ids", ("batch", "sequence"), "int64"), ("attention_mask", ("batch", "total_sequence"), "int64")]
    inputs += _past_inputs(layers, heads, hidden // heads) + [("use_cache_branch", (1,), "bool")]
    outputs = [("logits", ("batch", "sequence", VOCAB))] + \
        [(n, ("batch", heads, "total_sequence", hidden // heads)) for n in names[1:]]
    return g.finish(inputs, outputs, "gpt2_merged")


# -- d. vision transformers --------------------------------------------------------------------------------------------
def _attention_block(g, x, hidden, heads, ffn, bias=None):
    """Pre-norm transformer block over (n, tokens, hidden); bias (added to the scores) is (.., tokens, tokens)."""
    head_dim = hidden // heads
    h = g.layer_norm(x, hidden)
    q = g.split_heads(g.linear(h, hidden, hidden), heads, head_dim)
    k = g.split_heads(g.linear(h, hidden, hidden), heads, head_dim, perm=(0, 2, 3, 1))
    v = g.split_heads(g.linear(h, hidden, hidden), heads, head_dim)
    scores = g.node("Mul", [g.node("MatMul", [q, k]), g.constant(head_dim ** -0.5, "float32")])
    if bias is not None:
        scores = bias(scores)
    probs = g.node("Softmax", [scores], axis=-1)
    x = g.node("Add", [x, g.linear(g.merge_heads(g.node("MatMul", [probs, v]), hidden), hidden, hidden)])
    mlp = g.linear(g.gelu(g.linear(g.layer_norm(x, hidden), hidden, ffn)), ffn, hidden)
    return g.node("Add", [x, mlp])


def _classifier(g, pooled, hidden, classes):
    w = g.b.weight("head_w", (classes, hidden), scale=hidden ** -0.5)
    return g.b.node("Gemm", [pooled, w, g.b.weight("head_b", (classes,), scale=0.02)], outputs=["logits"], transB=1)


def _patch_embed(g, image, cin, hidden, patch):
    """Conv stride=patch, then torch's flatten(2).transpose(1, 2): Reshape to Shape[:2] ++ [-1], Transpose."""
    y = g.b.conv(image, cin, hidden, patch, stride=patch, pad=0, bias=True)
    head = g.node("Slice", [g.node("Shape", [y]), g.constant([0]), g.constant([2])])
    y = g.node("Reshape", [y, g.node("Concat", [head, g.constant([-1])], axis=0)])
    return g.transpose(y, (0, 2, 1))


def vit(layers=2, image_size=32, patch=8, hidden=32, heads=2, ffn=64, classes=10, seed=0):
    g = _Graph(seed)
    b = g.b
    tokens = (image_size // patch) ** 2
    x = _patch_embed(g, "pixel_values", 3, hidden, patch)
    cls = g.node("Expand", [b.weight("cls_token", (1, 1, hidden), scale=0.5), g.shape_of(g.dim(x, 0), 1, 1)])
    x = g.node("Add", [g.node("Concat", [cls, x], axis=1), b.weight("pos_emb", (1, tokens + 1, hidden), scale=0.5)])
    for _ in range(layers):
        x = _attention_block(g, x, hidden, heads, ffn)
    pooled = g.node("ReduceMean", [g.layer_norm(x, hidden)], axes=[1], keepdims=0)
    _classifier(g, pooled, hidden, classes)
    return g.finish([("pixel_values", ("batch", 3, image_size, image_size))], [("logits", ("batch", classes))], "vit")


def _relative_position_index(window):
    """Swin's relative_position_index: (window^2, window^2) indices into a (2 window - 1)^2 table."""
    coords = np.stack(np.meshgrid(np.arange(window), np.arange(window), indexing="ij")).reshape(2, -1)
    rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0) + (window - 1)
    return (rel[..., 0] * (2 * window - 1) + rel[..., 1]).astype("int64")


def _shift_mask(size, window, shift):
    """Swin's attention mask for shifted windows: (windows, window^2, window^2), -100 across regions."""
    img = np.zeros((size, size))
    cuts = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
    for label, (h, w) in enumerate((h, w) for h in cuts for w in cuts):
        img[h, w] = label
    windows = img.reshape(size // window, window, size // window, window).transpose(0, 2, 1, 3)
    windows = windows.reshape(-1, window * window)
    return np.where(windows[:, None, :] != windows[:, :, None], -100.0, 0.0).astype("float32")


def _roll(g, x, shift, axes):
    """torch.roll(x, shift, axes) as exported: per axis Slice the tail and the head, Concat them."""
    for axis in axes:
        cut = -shift  # roll by s = Concat(x[-s:], x[:-s]); Slice takes the negative start
        tail = g.node("Slice", [x, g.constant([cut]), g.constant([np.iinfo(np.int64).max]), g.constant([axis])])
        head = g.node("Slice", [x, g.constant([0]), g.constant([cut]), g.constant([axis])])
        x = g.node("Concat", [tail, head], axis=axis)
    return x


def _swin_block(g, x, size, hidden, heads, window, shift, ffn):
    """HF SwinLayer over (batch, size * size, hidden): window attention with relative position bias, shifted windows
    (roll + mask) when shift > 0; window partition / reverse as Reshape/Transpose with shapes computed in the graph."""
    b = g.b
    n = window * window
    batch = g.dim(x, 0)
    h = g.reshape(g.layer_norm(x, hidden), batch, size, size, hidden)
    if shift:
        h = _roll(g, h, -shift, (1, 2))
    per_side = g.node("Div", [g.dim(h, 1), g.constant(window)])  # height // window_size
    h = g.reshape(h, batch, per_side, window, per_side, window, hidden)
    h = g.reshape(g.transpose(h, (0, 1, 3, 2, 4, 5)), -1, n, hidden)  # (batch * windows, n, hidden)
    table = b.weight("rel_table", ((2 * window - 1) ** 2, heads), scale=0.5)
    rel = g.node("Gather", [table, b.const("rel_index", _relative_position_index(window).reshape(-1))])
    rel = g.unsqueeze(g.transpose(g.reshape(rel, n, n, -1), (2, 0, 1)), [0])
    windows = (size // window) ** 2

    def bias(scores):
        scores = g.node("Add", [scores, rel])
        if not shift:
            return scores
        # attn.view(batch, windows, heads, n, n) + mask.unsqueeze(1).unsqueeze(0), then back to (-1, heads, n, n)
        per_batch = g.node("Div", [g.dim(scores, 0), g.constant(windows)])
        scores = g.reshape(scores, per_batch, windows, heads, n, n)
        mask = g.unsqueeze(b.const("shift_mask", _shift_mask(size, window, shift)), [0, 2])
        return g.reshape(g.node("Add", [scores, mask]), -1, heads, n, n)

    head_dim = hidden // heads
    q = g.split_heads(g.linear(h, hidden, hidden), heads, head_dim)
    k = g.split_heads(g.linear(h, hidden, hidden), heads, head_dim, perm=(0, 2, 3, 1))
    v = g.split_heads(g.linear(h, hidden, hidden), heads, head_dim)
    scores = bias(g.node("Mul", [g.node("MatMul", [q, k]), g.constant(head_dim ** -0.5, "float32")]))
    attn = g.linear(g.merge_heads(g.node("MatMul", [g.node("Softmax", [scores], axis=-1), v]), hidden),
                    hidden, hidden)
    # window_reverse: view(-1, H // ws, W // ws, ws, ws, C).permute(0, 1, 3, 2, 4, 5).view(-1, H, W, C)
    attn = g.reshape(attn, -1, size // window, size // window, window, window, hidden)
    attn = g.reshape(g.transpose(attn, (0, 1, 3, 2, 4, 5)), -1, size, size, hidden)
    if shift:
        attn = _roll(g, attn, shift, (1, 2))
    x = g.node("Add", [x, g.reshape(attn, batch, size * size, hidden)])
    mlp = g.linear(g.gelu(g.linear(g.layer_norm(x, hidden), hidden, ffn)), ffn, hidden)
    return g.node("Add", [x, mlp])


def _patch_merging(g, x, size, hidden):
    """HF SwinPatchMerging: the four strided Slices of (batch, H, W, C), Concat, LayerNorm, Linear 4C -> 2C."""
    batch = g.dim(x, 0)
    x = g.reshape(x, batch, size, size, hidden)
    parts = [g.node("Slice", [x, g.constant([r, c]), g.constant([size, size]), g.constant([1, 2]), g.constant([2, 2])])
             for r, c in ((0, 0), (1, 0), (0, 1), (1, 1))]
    x = g.reshape(g.node("Concat", parts, axis=-1), batch, -1, 4 * hidden)
    return g.linear(g.layer_norm(x, 4 * hidden), 4 * hidden, 2 * hidden, bias=False)


def swin(image_size=16, patch=2, hidden=16, heads=2, window=4, classes=10, seed=0):
    g = _Graph(seed)
    size = image_size // patch
    x = g.layer_norm(_patch_embed(g, "pixel_values", 3, hidden, patch), hidden)
    x = _swin_block(g, x, size, hidden, heads, window, 0, 2 * hidden)
    x = _swin_block(g, x, size, hidden, heads, window, window // 2, 2 * hidden)
    x = _patch_merging(g, x, size, hidden)
    x = _swin_block(g, x, size // 2, 2 * hidden, heads, window, 0, 4 * hidden)
    # AdaptiveAvgPool1d(1) over (batch, C, L) exports as GlobalAveragePool on a rank-3 tensor
    pooled = g.node("GlobalAveragePool", [g.transpose(g.layer_norm(x, 2 * hidden), (0, 2, 1))])
    _classifier(g, g.node("Flatten", [pooled], axis=1), 2 * hidden, classes)
    return g.finish([("pixel_values", ("batch", 3, image_size, image_size))], [("logits", ("batch", classes))],
                    "swin")


# -- e. ResNet ---------------------------------------------------------------------------------------------------------
def resnet(seed=0):
    return _check(_resnet(18, batch="batch", image_size=32, width=0.25, seed=seed))


# -- f. wav2vec2-style feature extractor -------------------------------------------------------------------------------
def wav2vec2(channels=16, hidden=32, seed=0):
    """HF Wav2Vec2FeatureEncoder ("group" norm: GroupNorm on the first conv only, exported by torch as Reshape
    [0, groups, -1] -> InstanceNormalization -> Reshape to the input's Shape -> Mul/Add), then a conv whose LayerNorm
    runs over channels (Transpose, LayerNorm, Transpose: the "layer" variant), and the feature projection."""
    g = _Graph(seed)
    b = g.b

    def conv1d(x, cin, kernel, stride):
        w = b.weight("conv_w", (channels, cin, kernel))
        return g.node("Conv", [x, w], kernel_shape=[kernel], strides=[stride])

    x = conv1d(g.unsqueeze("input_values", [1]), 1, 10, 5)
    grouped = g.node("Reshape", [x, g.constant([0, channels, -1])])
    normed = g.node("InstanceNormalization", [grouped, b.const("ones", np.ones(channels, "float32")),
                                              b.const("zeros", np.zeros(channels, "float32"))], epsilon=1e-5)
    x = g.node("Reshape", [normed, g.node("Shape", [x])])
    x = g.node("Add", [g.node("Mul", [x, b.const("gn_g", b.rng.uniform(0.8, 1.2, (channels, 1)).astype("float32"))]),
                       b.weight("gn_b", (channels, 1), scale=0.02)])
    x = conv1d(g.gelu(x), channels, 3, 2)
    x = conv1d(g.gelu(x), channels, 3, 2)
    x = g.gelu(g.transpose(g.layer_norm(g.transpose(x, (0, 2, 1)), channels), (0, 2, 1)))
    x = g.linear(g.layer_norm(g.transpose(x, (0, 2, 1)), channels), channels, hidden)
    b.node("Identity", [x], outputs=["last_hidden_state"])
    return g.finish([("input_values", ("batch", "samples"))], [("last_hidden_state", ("batch", "frames", hidden))],
                    "wav2vec2")


MODELS = {"bert": bert, "gpt2_with_past": gpt2_with_past, "gpt2_merged": gpt2_merged, "vit": vit, "swin": swin,
          "resnet": resnet, "wav2vec2": wav2vec2}


# -- inputs ------------------------------------------------------------------------------------------------------------
def _resolve(dim, dims):
    if dim.HasField("dim_value"):
        return dim.dim_value
    return sum(int(dims[part.strip()]) for part in dim.dim_param.split("+"))


def example_inputs(model, dims, seed=0):
    """{name: array} for a concrete shape: dims maps each dim_param (and a bool input's name) to its value.

    Floats are N(0, 1); input_ids in [0, VOCAB); attention_mask is ones except positions 1..r of row r (padding
    that always leaves key 0 visible, so no row is fully masked); bool inputs take dims[name]."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for vi in model.graph.input:
        t = vi.type.tensor_type
        shape = [_resolve(d, dims) for d in t.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        if dtype == np.bool_:
            feeds[vi.name] = np.full(shape, bool(dims[vi.name]))
        elif vi.name == "attention_mask":
            mask = np.ones(shape, "int64")
            for r in range(shape[0]):
                mask[r, 1:1 + r] = 0
            feeds[vi.name] = mask
        elif dtype.kind == "i":
            feeds[vi.name] = rng.integers(0, VOCAB, size=shape).astype(dtype)
        else:
            feeds[vi.name] = rng.standard_normal(shape).astype(dtype)
    return feeds
