"""ONNX converters of the normalization, softmax, activation, dropout, attention and loss ops: the cases onnx's
node tests miss (old opsets, symbolic dims, per-group GroupNormalization-18 parameters, bad attributes)."""
import math

import numpy as np
import pytest

import onnx  # noqa: E402,F401  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import tvmlite  # noqa: E402
from tvmlite.error import OpAttributeInvalid, OpAttributeRequired, OpNotImplemented  # noqa: E402

F = TensorProto.FLOAT


def model(op, inputs, outputs, opset, initializers=(), name="n0", **attrs):
    """A one-node model: inputs/outputs are (name, elem_type, shape) triples."""
    node = helper.make_node(op, [i[0] for i in inputs] + [i.name for i in initializers][len(inputs):],
                            [o[0] for o in outputs], name=name, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs], initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run(m, *arrays):
    mod, params = tvmlite.frontend.from_onnx(m)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    names = [i.name for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}]
    for n, a in zip(names, arrays):
        gm.set_input(n, a)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


rng = np.random.default_rng(1)


def test_softmax_opset11_flattens_and_opset13_does_not():
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    io = dict(inputs=[("x", F, [2, 3, 4])], outputs=[("y", F, [2, 3, 4])])
    (y11,) = run(model("Softmax", opset=11, axis=1, **io), x)
    flat = np.exp(x.reshape(2, 12))
    np.testing.assert_allclose(y11, (flat / flat.sum(1, keepdims=True)).reshape(x.shape), rtol=1e-5)
    (y13,) = run(model("Softmax", opset=13, axis=1, **io), x)
    np.testing.assert_allclose(y13, np.exp(x) / np.exp(x).sum(1, keepdims=True), rtol=1e-5)
    (y1,) = run(model("Hardmax", opset=1, **io), x)  # default axis 1, flattened
    assert y1.reshape(2, 12).sum(1).tolist() == [1, 1]
    assert y1.reshape(2, 12).argmax(1).tolist() == x.reshape(2, 12).argmax(1).tolist()


def test_clip_attributes_before_11_and_missing_inputs_after():
    x = np.array([-3, -0.5, 0.5, 3], dtype="float32")
    io = dict(inputs=[("x", F, [4])], outputs=[("y", F, [4])])
    (y,) = run(model("Clip", opset=6, min=-1.0, **io), x)
    np.testing.assert_array_equal(y, [-1, -0.5, 0.5, 3])
    m = model("Clip", [("x", F, [4]), ("lo", F, [])], [("y", F, [4])], opset=13)
    (y,) = run(m, x, np.array(0.0, dtype="float32"))
    np.testing.assert_array_equal(y, [0, 0, 0.5, 3])


def test_dropout_old_opsets_mask_dtype_and_identity():
    x = rng.standard_normal((3, 2)).astype("float32")
    (y, mask) = run(model("Dropout", [("x", F, [3, 2])], [("y", F, [3, 2]), ("m", F, [3, 2])], opset=7,
                          ratio=0.3), x)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == np.float32 and (mask == 1).all()
    m = model("Dropout", [("x", F, [3, 2]), ("r", F, [])], [("y", F, [3, 2]), ("m", TensorProto.BOOL, [3, 2])],
              opset=13)
    y, mask = run(m, x, np.array(0.9, dtype="float32"))  # training_mode absent: inference
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == np.bool_ and mask.all()


def test_batch_norm_versions():
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    params = [numpy_helper.from_array(a, n) for n, a in
              zip("sbmv", [np.ones(3, "float32"), np.zeros(3, "float32"), np.zeros(3, "float32"),
                           np.ones(3, "float32")])]

    def bn(opset, outputs, **attrs):
        node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], [o[0] for o in outputs],
                                name="bn", **attrs)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, [2, 3, 4])],
                                  [helper.make_tensor_value_info(*o) for o in outputs], initializer=params)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

    (y,) = run(bn(9, [("y", F, [2, 3, 4])], epsilon=0.0), x)
    np.testing.assert_allclose(y, x, rtol=1e-6)
    y, rm, rv = run(bn(15, [("y", F, [2, 3, 4]), ("rm", F, [3]), ("rv", F, [3])], training_mode=1, momentum=0.5), x)
    np.testing.assert_allclose(rm, 0.5 * x.mean((0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv, 0.5 + 0.5 * x.var((0, 2)), rtol=1e-5)
    with pytest.raises(OpNotImplemented, match=r"^node 'bn' \(BatchNormalization\): spatial=0 \(per-activation "
                                               r"statistics\)$"):
        tvmlite.frontend.from_onnx(bn(7, [("y", F, [2, 3, 4])], spatial=0))
    five = [("y", F, [2, 3, 4])] + [(n, F, [3]) for n in ("a", "c", "d", "e")]
    with pytest.raises(OpNotImplemented, match="saved_mean / saved_var"):
        tvmlite.frontend.from_onnx(bn(9, five))


def test_group_norm_opset18_per_group_parameters():
    x = rng.standard_normal((1, 4, 3)).astype("float32")
    scale = np.array([2.0, 3.0], dtype="float32")
    bias = np.array([0.5, -0.5], dtype="float32")
    inits = [numpy_helper.from_array(scale, "s"), numpy_helper.from_array(bias, "b")]
    node = helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2, epsilon=1e-5)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, [1, 4, 3])],
                              [helper.make_tensor_value_info("y", F, [1, 4, 3])], initializer=inits)
    (y,) = run(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), x)
    g = x.reshape(1, 2, 6)
    norm = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(1, 2, 2, 3)
    want = norm * scale[None, :, None, None] + bias[None, :, None, None]
    np.testing.assert_allclose(y, want.reshape(x.shape), rtol=1e-5, atol=1e-5)


def test_layer_norm_symbolic_batch_and_stats():
    m = model("LayerNormalization", [("x", F, ["N", 5]), ("s", F, [5])],
              [("y", F, ["N", 5]), ("mean", F, ["N", 1]), ("inv", F, ["N", 1])], opset=17)
    mod, _ = tvmlite.frontend.from_onnx(m)
    fields = tvmlite.relay.transform.InferType()(mod)["main"].body.checked_type.fields
    assert [str(f.shape[0]) for f in fields] == ["N", "N", "N"]
    x = rng.standard_normal((3, 5)).astype("float32")
    y, mean, inv = run(m, x, np.ones(5, "float32"))
    np.testing.assert_allclose(mean[:, 0], x.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(inv[:, 0], 1 / np.sqrt(x.var(1) + 1e-5), rtol=1e-5)


def test_softmax_cross_entropy_with_weights_and_ignore_index():
    scores = rng.standard_normal((3, 4)).astype("float32")
    labels = np.array([0, 2, 1], dtype="int64")
    w = np.array([1.0, 0.5, 2.0, 1.0], dtype="float32")
    m = model("SoftmaxCrossEntropyLoss", [("x", F, [3, 4]), ("t", TensorProto.INT64, [3]), ("w", F, [4])],
              [("loss", F, []), ("logp", F, [3, 4])], opset=13, ignore_index=1)
    loss, logp = run(m, scores, labels, w)
    ref_logp = scores - np.log(np.exp(scores).sum(1, keepdims=True))
    np.testing.assert_allclose(logp, ref_logp, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss, -(ref_logp[0, 0] * 1.0 + ref_logp[1, 2] * 2.0) / 3.0, rtol=1e-5)


def test_swish_and_swiglu():
    a = rng.standard_normal((2, 3)).astype("float32")
    b = rng.standard_normal((2, 3)).astype("float32")
    (y,) = run(model("Swish", [("a", F, [2, 3])], [("y", F, [2, 3])], opset=24, alpha=2.0), a)
    np.testing.assert_allclose(y, a / (1 + np.exp(-2 * a)), rtol=1e-5)
    (y,) = run(model("SwiGLU", [("a", F, [2, 3]), ("b", F, [2, 3])], [("y", F, [2, 3])], opset=28), a, b)
    np.testing.assert_allclose(y, a / (1 + np.exp(-a)) * b, rtol=1e-5)
    with pytest.raises(ValueError, match=r"SwiGLU: gate A \(2, 3\) and value B \(1, 3\) must have the same shape"):
        tvmlite.frontend.from_onnx(model("SwiGLU", [("a", F, [2, 3]), ("b", F, [1, 3])], [("y", F, [2, 3])],
                                         opset=28))


def test_attention_3d_gqa_from_onnx():
    q = rng.standard_normal((1, 2, 8)).astype("float32")  # 4 heads of 2
    k = rng.standard_normal((1, 3, 4)).astype("float32")  # 2 kv heads of 2
    m = model("Attention", [("q", F, [1, 2, 8]), ("k", F, [1, 3, 4]), ("v", F, [1, 3, 4])], [("y", F, [1, 2, 8])],
              opset=23, q_num_heads=4, kv_num_heads=2, softcap=2.0)
    (y,) = run(m, q, k, k)
    qh, kh = q.reshape(1, 2, 4, 2).transpose(0, 2, 1, 3), k.reshape(1, 3, 2, 2).transpose(0, 2, 1, 3)
    want = np.zeros((1, 4, 2, 2), dtype="float64")
    for h in range(4):
        s = qh[0, h] @ kh[0, h // 2].T / math.sqrt(2)
        s = np.tanh(s / 2.0) * 2.0
        p = np.exp(s - s.max(-1, keepdims=True))
        want[0, h] = (p / p.sum(-1, keepdims=True)) @ kh[0, h // 2]
    np.testing.assert_allclose(y, want.transpose(0, 2, 1, 3).reshape(1, 2, 8), rtol=1e-4, atol=1e-5)


def test_bad_attributes_name_the_node():
    """Each message names the node once, in front (the importer's label); the converter's own text does not."""
    io3 = [("q", F, [1, 2, 8]), ("k", F, [1, 3, 4]), ("v", F, [1, 3, 4])]
    with pytest.raises(OpAttributeRequired, match=r"^node 'n0' \(Attention\): attribute 'q_num_heads' is required "
                                                  r"for 3-D inputs$"):
        tvmlite.frontend.from_onnx(model("Attention", io3, [("y", F, [1, 2, 8])], opset=23))
    with pytest.raises(OpAttributeRequired, match=r"^node 'n0' \(LRN\): required attribute 'size' of LRN \(opset 13\) "
                                            r"not given$"):
        tvmlite.frontend.from_onnx(model("LRN", [("x", F, [1, 3, 4])], [("y", F, [1, 3, 4])], opset=13))
    with pytest.raises(OpAttributeInvalid, match=r"^node 'n0' \(NegativeLogLikelihoodLoss\): attribute "
                                                 r"reduction='avg' is not one of none, sum, mean$"):
        tvmlite.frontend.from_onnx(model("NegativeLogLikelihoodLoss", [("x", F, [2, 3]),
                                                                       ("t", TensorProto.INT64, [2])],
                                         [("y", F, [])], opset=13, reduction="avg"))
    with pytest.raises(ValueError, match=r"node 'n0' \(PRelu\).*slope of shape \(3,\) does not broadcast to "
                                         r"data \(1, 3, 4\)"):
        tvmlite.frontend.from_onnx(model("PRelu", [("x", F, [1, 3, 4]), ("s", F, [3])], [("y", F, [1, 3, 4])],
                                         opset=16))
    with pytest.raises(ValueError, match=r"node 'n0' \(Gelu\).*approximate must be 'none' or 'tanh', got 'fast'"):
        tvmlite.frontend.from_onnx(model("Gelu", [("x", F, [2])], [("y", F, [2])], opset=20, approximate="fast"))
