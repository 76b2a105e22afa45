"""ONNX image, detection and signal converters on small models the official node tests do not cover: old
opsets, constant scales/sizes (static output types), symbolic dims, omitted optional inputs, bad attributes."""
import numpy as np
import pytest

import onnx  # noqa: E402,F401  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper  # noqa: E402

import tvmlite  # noqa: E402
from tvmlite.error import OpAttributeInvalid  # noqa: E402

from debug_run import run_relay  # noqa: E402


def make_model(op, inputs, outputs, opset, initializers=(), **attrs):
    """A one-node model; inputs/outputs are (name, elem_type, shape) with "" names left out of the graph."""
    node = helper.make_node(op, [i[0] for i in inputs], [o[0] for o in outputs], name=f"my_{op.lower()}", **attrs)
    init_names = {t.name for t in initializers}
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs if n and n not in init_names],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def convert(model, freeze=True):
    return tvmlite.frontend.from_onnx(model, freeze_params=freeze)


def run(mod, params, **inputs):
    return run_relay(mod, inputs, params)[0]


def out_shape(mod):
    return [d if isinstance(d, int) else str(d) for d in mod["main"].body.checked_type.shape]


F = TensorProto.FLOAT
I64 = TensorProto.INT64


def test_resize_constant_scales_is_static():
    scales = helper.make_tensor("scales", F, [4], [1, 1, 2, 1.5])
    model = make_model("Resize", [("x", F, [1, 2, 4, 4]), ("", F, None), ("scales", F, [4])],
                       [("y", F, None)], 13, initializers=[scales], mode="linear")
    mod, params = convert(model)
    assert out_shape(mod) == [1, 2, 8, 6]
    x = np.random.RandomState(0).rand(1, 2, 4, 4).astype("float32")
    assert run(mod, params, x=x).shape == (1, 2, 8, 6)


def test_resize_symbolic_batch_with_constant_sizes():
    sizes = helper.make_tensor("sizes", I64, [2], [3, 5])
    model = make_model("Resize", [("x", F, ["n", 3, 6, 10]), ("", F, None), ("", F, None), ("sizes", I64, [2])],
                       [("y", F, None)], 18, initializers=[sizes], axes=[2, 3])
    mod, params = convert(model)
    assert out_shape(mod) == ["n", 3, 3, 5]
    assert run(mod, params, x=np.zeros((2, 3, 6, 10), "float32")).shape == (2, 3, 3, 5)


def test_resize_runtime_scales_symbolic():
    model = make_model("Resize", [("x", F, [1, 1, 2, 2]), ("", F, None), ("scales", F, [4])], [("y", F, None)], 13)
    mod, _ = convert(model)
    assert out_shape(mod) == ["?", "?", "?", "?"]  # without axes, every dim may be scaled


def test_resize_opset10_nearest_repeats():
    model = make_model("Resize", [("x", F, [1, 1, 2, 2]), ("scales", F, [4])], [("y", F, None)], 10)
    mod, params = convert(model)
    x = np.array([[[[1, 2], [3, 4]]]], "float32")
    out = run(mod, params, x=x, scales=np.array([1, 1, 3, 3], "float32"))
    np.testing.assert_array_equal(out, np.repeat(np.repeat(x, 3, axis=2), 3, axis=3))


def test_resize_opset11_sizes_with_empty_scales():
    roi = helper.make_tensor("roi", F, [0], [])
    scales = helper.make_tensor("scales", F, [0], [])
    sizes = helper.make_tensor("sizes", I64, [4], [1, 1, 1, 3])
    model = make_model("Resize", [("x", F, [1, 1, 1, 2]), ("roi", F, [0]), ("scales", F, [0]), ("sizes", I64, [4])],
                       [("y", F, None)], 11, initializers=[roi, scales, sizes], mode="linear",
                       coordinate_transformation_mode="align_corners")
    mod, params = convert(model)
    assert out_shape(mod) == [1, 1, 1, 3]
    np.testing.assert_allclose(run(mod, params, x=np.array([[[[0, 4]]]], "float32")), [[[[0, 2, 4]]]])


def test_upsample_opset7_attribute_scales():
    model = make_model("Upsample", [("x", F, [1, 1, 2, 2])], [("y", F, None)], 7, scales=[1.0, 1.0, 2.0, 2.0],
                       mode="linear")
    mod, params = convert(model)
    assert out_shape(mod) == [1, 1, 4, 4]
    out = run(mod, params, x=np.array([[[[0, 2], [4, 6]]]], "float32"))
    # asymmetric: x_orig = i / 2 -> 0, 0.5, 1, 1.5 (edge-clamped)
    np.testing.assert_allclose(out[0, 0, 0], [0, 1, 2, 2])


def test_resize_bad_mode_names_the_node():
    model = make_model("Resize", [("x", F, [1, 1, 2, 2]), ("", F, None), ("scales", F, [4])], [("y", F, None)], 13,
                       mode="area")
    with pytest.raises(OpAttributeInvalid, match="mode='area' is not one of nearest, linear, cubic"):
        convert(model)


def test_resize_scales_count_mismatch():
    scales = helper.make_tensor("scales", F, [2], [2, 2])
    model = make_model("Resize", [("x", F, [1, 1, 2, 2]), ("", F, None), ("scales", F, [2])], [("y", F, None)], 13,
                       initializers=[scales])
    with pytest.raises(OpAttributeInvalid, match="scales has 2 values for 4 resized axes"):
        convert(model)


def test_gridsample_opset16_bilinear_name():
    model = make_model("GridSample", [("x", F, [1, 1, 2, 2]), ("g", F, [1, 1, 1, 2])], [("y", F, None)], 16,
                       mode="bilinear", align_corners=1)
    mod, params = convert(model)
    out = run(mod, params, x=np.array([[[[0, 1], [2, 3]]]], "float32"), g=np.zeros((1, 1, 1, 2), "float32"))
    np.testing.assert_allclose(out.reshape(-1), [1.5])  # the centre: the mean of the four pixels


def test_gridsample_cubic_needs_4d():
    model = make_model("GridSample", [("x", F, [1, 1, 2, 2, 2]), ("g", F, [1, 1, 1, 1, 3])], [("y", F, None)], 20,
                       mode="cubic")
    with pytest.raises(OpAttributeInvalid, match="mode 'cubic' needs a 4-D input, got rank 5"):
        convert(model)


def test_roialign_opset10_has_no_half_pixel_shift():
    data = np.tile(np.arange(8, dtype="float32"), (1, 1, 8, 1))
    rois = np.array([[2, 2, 6, 6]], "float32")
    results = {}
    for opset in (10, 16):
        model = make_model("RoiAlign", [("x", F, [1, 1, 8, 8]), ("rois", F, [1, 4]), ("idx", I64, [1])],
                           [("y", F, None)], opset, output_height=1, output_width=1, sampling_ratio=2)
        mod, params = convert(model)
        results[opset] = run(mod, params, x=data, rois=rois, idx=np.array([0])).item()
    assert results[10] == pytest.approx(4.0) and results[16] == pytest.approx(3.5)


def test_nms_omitted_inputs_select_nothing():
    model = make_model("NonMaxSuppression", [("b", F, [1, 2, 4]), ("s", F, [1, 1, 2])], [("y", I64, None)], 11)
    mod, params = convert(model)
    assert out_shape(mod) == ["?", 3]
    out = run(mod, params, b=np.zeros((1, 2, 4), "float32"), s=np.ones((1, 1, 2), "float32"))
    assert out.shape == (0, 3) and out.dtype == np.int64


def test_dft_opset20_constant_axis_is_static():
    axis = helper.make_tensor("axis", I64, [], [1])
    model = make_model("DFT", [("x", F, [2, 8, 1]), ("", I64, None), ("axis", I64, [])], [("y", F, None)], 20,
                       initializers=[axis], onesided=1)
    mod, params = convert(model)
    assert out_shape(mod) == [2, 5, 2]
    x = np.random.RandomState(1).rand(2, 8, 1).astype("float32")
    out = run(mod, params, x=x)
    np.testing.assert_allclose(out[..., 0] + 1j * out[..., 1], np.fft.rfft(x[..., 0], axis=1), rtol=1e-5, atol=1e-5)


def test_dft_opset17_default_axis_and_length():
    length = helper.make_tensor("n", I64, [], [4])
    model = make_model("DFT", [("x", F, [1, 6, 2]), ("n", I64, [])], [("y", F, None)], 17, initializers=[length])
    mod, params = convert(model)
    assert out_shape(mod) == [1, 4, 2]  # axis 1 by default, truncated to dft_length
    x = np.random.RandomState(2).rand(1, 6, 2).astype("float32")
    out = run(mod, params, x=x)
    ref = np.fft.fft(x[..., 0] + 1j * x[..., 1], n=4, axis=1)
    np.testing.assert_allclose(out[..., 0] + 1j * out[..., 1], ref, rtol=1e-5, atol=1e-5)


def test_window_output_datatype_and_constant_size():
    size = helper.make_tensor("size", I64, [], [5])
    model = make_model("HannWindow", [("size", I64, [])], [("y", TensorProto.DOUBLE, None)], 17,
                       initializers=[size], periodic=0, output_datatype=TensorProto.DOUBLE)
    mod, params = convert(model)
    assert out_shape(mod) == [5] and str(mod["main"].body.checked_type.dtype) == "float64"
    np.testing.assert_allclose(run(mod, params), np.hanning(5), atol=1e-12)


def test_stft_runtime_step_is_symbolic():
    model = make_model("STFT", [("x", F, [1, 32, 1]), ("step", I64, []), ("", F, None), ("fl", I64, [])],
                       [("y", F, None)], 17)
    mod, _ = convert(model)
    assert out_shape(mod) == [1, "?", "?", 2]


def test_dft_bad_flag():
    model = make_model("DFT", [("x", F, [1, 6, 2])], [("y", F, None)], 17, inverse=2)
    with pytest.raises(OpAttributeInvalid, match=r"attribute 'inverse' is a flag \(0 or 1\), got 2$"):
        convert(model)


def test_tfidf_vectorizer_tfidf_mode_1d():
    model = make_model("TfIdfVectorizer", [("x", TensorProto.INT64, [6])], [("y", F, None)], 9, mode="TFIDF",
                       min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0],
                       ngram_indexes=[1, 0], pool_int64s=[3, 4], weights=[0.5, 2.0])
    mod, params = convert(model)
    assert out_shape(mod) == [2]
    out = run(mod, params, x=np.array([3, 3, 4, 1, 3, 9]))
    np.testing.assert_allclose(out, [2.0 * 1, 0.5 * 3])  # [4] -> column 0, [3] -> column 1


def test_tfidf_vectorizer_strings_not_supported():
    model = make_model("TfIdfVectorizer", [("x", TensorProto.INT64, [6])], [("y", F, None)], 9, mode="TF",
                       min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0],
                       ngram_indexes=[0], pool_strings=["a"])
    with pytest.raises(tvmlite.error.OpNotImplemented, match="pool_strings"):
        convert(model)
