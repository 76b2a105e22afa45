"""tvmlite.models: every builder makes a valid ONNX model of the published topology, with activations of order
one, and tvmlite runs the small variants as onnxruntime does (the oracle here; never a run path of tvmlite).

The "cpu" cases need the native target (tvmlite.build(target="cpu")); the "debug" cases run the ops' numpy
references.
"""
import json

import numpy as np
import onnx
import pytest

import tvmlite
from tvmlite import models

ort = pytest.importorskip("onnxruntime")

RTOL, ATOL = 1e-3, 1e-4

# small variants with the full topology: (id, builder, kwargs)
SMALL = [
    ("resnet18", models.resnet, dict(depth=18, image_size=32, width=0.125, num_classes=10)),
    ("resnet50", models.resnet, dict(depth=50, image_size=64, width=0.125, num_classes=10)),
    ("resnet18_batch2", models.resnet, dict(depth=18, batch=2, image_size=40, width=0.125, num_classes=7)),
    ("mobilenet_v2", models.mobilenet_v2, dict(image_size=32, width=0.25, num_classes=10)),
    ("mobilenet_v2_w1", models.mobilenet_v2, dict(image_size=32, width=1.0, num_classes=10)),
    ("inception_v1", models.inception_v1, dict(image_size=64, width=0.125, num_classes=10)),
    ("inception_v1_odd", models.inception_v1, dict(image_size=45, width=0.125, num_classes=10)),
    ("transformer", models.transformer_encoder, dict(layers=2, seq=16, hidden=64, heads=4, ffn=128)),
    ("transformer_relu_b2", models.transformer_encoder, dict(layers=1, seq=7, hidden=48, heads=3, ffn=96, batch=2,
                                                             activation="relu")),
    ("unet_transpose", models.unet, dict(image_size=32, base=8, levels=2)),
    ("unet_resize", models.unet, dict(image_size=32, base=8, levels=3, up="resize", in_channels=1,
                                      num_classes=3)),
]
SMALL_IDS = [s[0] for s in SMALL]


def _ort_run(model, feeds):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _tvmlite_run(model, feeds, target):
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target=target, params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**feeds)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


@pytest.mark.parametrize("case", SMALL, ids=SMALL_IDS)
def test_small_variant_is_valid_onnx(case):
    _, builder, kwargs = case
    model = builder(**kwargs)
    onnx.checker.check_model(model, full_check=True)  # also runs shape inference against the declared output
    feeds = models.example_input(model, seed=1)
    (out,) = _ort_run(model, feeds)
    declared = [d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim]
    assert list(out.shape) == declared
    assert np.isfinite(out).all() and 0.05 < float(out.std()) < 30


@pytest.mark.parametrize("target", ["debug", "cpu"])
@pytest.mark.parametrize("case", SMALL, ids=SMALL_IDS)
def test_small_variant_matches_onnxruntime(case, target):
    _, builder, kwargs = case
    model = builder(seed=3, **kwargs)
    feeds = models.example_input(model, seed=2)
    expected = _ort_run(model, feeds)
    got = _tvmlite_run(model, feeds, target)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL)


def test_transformer_gelu_runs_as_one_gelu_after_its_dense():
    """The Erf-form GELU (Div, Erf, Add, Mul, Mul) is rewritten into nn.gelu (SimplifyExpr) and fused into the FFN's
    first dense: no erf kernel or epilogue op is left in the compiled graph."""
    model = models.transformer_encoder(layers=2, seq=16, hidden=64, heads=4, ffn=128)
    mod, params = tvmlite.frontend.from_onnx(model)
    graph = json.loads(tvmlite.build(mod, target="cpu", params=params).get_graph_json())
    names = [n["name"] for n in graph["nodes"] if n["op"] == "tvm_op"]
    assert sum("dense_pack_add_nn_gelu" in n for n in names) == 2
    assert not any("erf" in n for n in names)


# torchvision's parameter counts (weights and BatchNorm gamma/beta; running statistics are not parameters)
@pytest.mark.parametrize("name, builder, kwargs, params", [
    ("resnet18", models.resnet, dict(depth=18), 11_689_512),
    ("resnet50", models.resnet, dict(depth=50), 25_557_032),
    ("mobilenet_v2", models.mobilenet_v2, {}, 3_504_872),
    # torchvision's GoogLeNet (6,624,904 without aux heads) has 3x3 where the paper's "5x5" branch is: + 380,928
    ("inception_v1", models.inception_v1, {}, 6_624_904 + 380_928),
])
def test_full_size_matches_torchvision(name, builder, kwargs, params):
    model = builder(**kwargs)
    onnx.checker.check_model(model)
    stats = {n.input[3] for n in model.graph.node if n.op_type == "BatchNormalization"} | \
        {n.input[4] for n in model.graph.node if n.op_type == "BatchNormalization"}
    count = sum(int(np.prod(i.dims)) for i in model.graph.initializer
                if i.name not in stats and i.data_type == onnx.TensorProto.FLOAT and len(i.dims) > 0)
    assert count == params
    feeds = models.example_input(model)
    (logits,) = _ort_run(model, feeds)
    assert logits.shape == (1, 1000)
    assert np.isfinite(logits).all() and 0.3 < float(logits.std()) < 30  # O(1) through the whole depth


def test_full_size_topology():
    def ops(model):
        counts = {}
        for n in model.graph.node:
            counts[n.op_type] = counts.get(n.op_type, 0) + 1
        return counts

    r50 = ops(models.resnet(depth=50, image_size=64))
    assert r50["Conv"] == 53 and r50["BatchNormalization"] == 53 and r50["Add"] == 16 and r50["Gemm"] == 1
    assert ops(models.resnet(depth=18, image_size=64))["Conv"] == 20
    mb = ops(models.mobilenet_v2(image_size=64))
    assert mb["Conv"] == 52 and mb["Clip"] == 35 and mb["Add"] == 10
    inc = ops(models.inception_v1(image_size=64))
    assert inc["Conv"] == 57 and inc["Concat"] == 9 and inc["MaxPool"] == 13
    depthwise = [n for n in models.mobilenet_v2(image_size=64).graph.node if n.op_type == "Conv" and
                 any(a.name == "group" and a.i > 1 for a in n.attribute)]
    assert len(depthwise) == 17
    mobilenet = models.mobilenet_v2(image_size=64)
    bounds = {i.name: list(i.dims) for i in mobilenet.graph.initializer}
    clips = [n for n in mobilenet.graph.node if n.op_type == "Clip"]
    assert all(bounds[n.input[1]] == [] and bounds[n.input[2]] == [] for n in clips)  # scalars, as the spec says


def test_transformer_encoder_is_bert_like():
    model = models.transformer_encoder(layers=2, seq=128, hidden=768, heads=12, ffn=3072)
    onnx.checker.check_model(model, full_check=True)
    counts = {}
    for n in model.graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    assert counts["MatMul"] == 2 * 8 and counts["LayerNormalization"] == 4 and counts["Softmax"] == 2
    assert counts["Erf"] == 2
    weights = {tuple(i.dims) for i in model.graph.initializer}
    assert {(768, 768), (768, 3072), (3072, 768)} <= weights
    feeds = models.example_input(model)
    (hidden,) = _ort_run(model, feeds)
    assert hidden.shape == (1, 128, 768)
    np.testing.assert_allclose(hidden.mean(-1), 0, atol=0.1)  # layer-normed: O(1), centred


def test_seeded():
    a = models.mobilenet_v2(image_size=32, width=0.25, seed=5)
    assert a.SerializeToString() == models.mobilenet_v2(image_size=32, width=0.25, seed=5).SerializeToString()
    assert a.SerializeToString() != models.mobilenet_v2(image_size=32, width=0.25, seed=6).SerializeToString()
    x = models.example_input(a, seed=1)["input"]
    assert x.dtype == np.float32 and x.shape == (1, 3, 32, 32)
    np.testing.assert_array_equal(x, models.example_input(a, seed=1)["input"])


def test_get_model():
    quick = models.get_model("resnet18", quick=True)
    assert [d.dim_value for d in quick.graph.input[0].type.tensor_type.shape.dim] == [1, 3, 64, 64]
    assert [d.dim_value for d in models.get_model("resnet18", quick=True, batch=2).graph.input[0].type.tensor_type
            .shape.dim][0] == 2
    with pytest.raises(ValueError, match="unknown model 'vgg'"):
        models.get_model("vgg")


@pytest.mark.parametrize("call, message", [
    (lambda: models.resnet(depth=20), "resnet: depth must be one of"),
    (lambda: models.transformer_encoder(hidden=100, heads=12), r"hidden \(100\) must be a multiple of heads"),
    (lambda: models.transformer_encoder(activation="tanh"), "activation must be 'gelu' or 'relu'"),
    (lambda: models.transformer_encoder(opset=13), "LayerNormalization needs opset >= 17"),
    (lambda: models.unet(image_size=36, levels=3), r"image_size \(36\) must be a multiple of 2\*\*levels"),
    (lambda: models.unet(up="bilinear"), "up must be 'transpose' or 'resize'"),
    (lambda: models.Builder().conv_bn("x", 3, 4, 3, act="gelu"), "unknown activation 'gelu'"),
])
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_random_array_dtypes(rng):
    assert models.random_array((2, 3), "int64", rng).dtype == np.int64
    assert models.random_array((4,), "bool", rng).dtype == np.bool_
    with pytest.raises(TypeError, match="cannot make random values of dtype"):
        models.random_array((1,), "complex64", rng)


def test_export_round_trip_cpu(tmp_path):
    """Compiled, exported and loaded back, a model gives the same result (needs the cpu target)."""
    model = models.resnet(depth=18, image_size=32, width=0.125, num_classes=10)
    feeds = models.example_input(model)
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target="cpu", params=params)
    path = str(tmp_path / "resnet18.so")
    lib.export_library(path)
    loaded = tvmlite.runtime.load_module(path)
    gm = tvmlite.runtime.GraphModule(loaded["default"](tvmlite.cpu(0)))
    gm.set_input(**feeds)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0).numpy(), _ort_run(model, feeds)[0], rtol=RTOL, atol=ATOL)
