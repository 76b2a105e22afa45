"""ONNX math converters on small hand-built models: old opsets, run-time axes, symbolic dims and bad attributes.

Expected values are plain numpy computations written here.
"""
import numpy as np
import pytest

import onnx  # noqa: E402  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper  # noqa: E402

import tvmlite  # noqa: E402
from tvmlite.error import OpAttributeInvalid, OpNotImplemented  # noqa: E402


def _model(nodes, inputs, outputs, opset, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _run(model, **inputs):
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**inputs)
    gm.run()
    outs = [gm.get_output(i) for i in range(gm.get_num_outputs())]
    return mod, [o.numpy() if hasattr(o, "numpy") else o for o in outs]


def test_reduce_axes_attribute_in_old_opsets(rng):
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    for opset in (1, 11, 13):
        node = helper.make_node("ReduceMean", ["x"], ["y"], axes=[0, -1], keepdims=0)
        model = _model([node], [_vi("x", TensorProto.FLOAT, [2, 3, 4])], [_vi("y", TensorProto.FLOAT, None)], opset)
        _, (y,) = _run(model, x=x)
        np.testing.assert_allclose(y, x.mean(axis=(0, 2)), rtol=1e-5)


def test_reduce_axes_input_constant_runtime_and_noop(rng):
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    axes = np.array([1], "int64")
    node = helper.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=1)
    model = _model([node], [_vi("x", TensorProto.FLOAT, [2, 3, 4]), _vi("axes", TensorProto.INT64, [1])],
                   [_vi("y", TensorProto.FLOAT, None)], 18)
    mod, (y,) = _run(model, x=x, axes=axes)
    assert "dyn.max" in str(mod)
    np.testing.assert_allclose(y, x.max(axis=1, keepdims=True))
    # The same axes as an initializer: still a param (run-time value) unless frozen; results agree.
    model = _model([node], [_vi("x", TensorProto.FLOAT, [2, 3, 4])], [_vi("y", TensorProto.FLOAT, None)], 18,
                   [onnx.numpy_helper.from_array(axes, "axes")])
    _, (y2,) = _run(model, x=x)
    np.testing.assert_array_equal(y, y2)
    noop = helper.make_node("ReduceSumSquare", ["x"], ["y"], noop_with_empty_axes=1)
    model = _model([noop], [_vi("x", TensorProto.FLOAT, [2, 3, 4])], [_vi("y", TensorProto.FLOAT, None)], 18)
    _, (sq,) = _run(model, x=x)
    np.testing.assert_allclose(sq, x * x, rtol=1e-6)


def test_reduce_over_a_symbolic_dim_keeps_the_others():
    node = helper.make_node("ReduceSum", ["x"], ["y"], axes=[1], keepdims=0)
    model = _model([node], [_vi("x", TensorProto.FLOAT, ["batch", 5])], [_vi("y", TensorProto.FLOAT, None)], 11)
    mod, (y,) = _run(model, x=np.ones((3, 5), "float32"))
    assert "Tensor[(batch,), float32]" in str(mod)
    assert y.tolist() == [5, 5, 5]


def test_runtime_axes_of_unknown_length_without_keepdims_is_a_clear_error():
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)
    model = _model([node], [_vi("x", TensorProto.FLOAT, [2, 3]), _vi("axes", TensorProto.INT64, ["n"])],
                   [_vi("y", TensorProto.FLOAT, None)], 13)
    with pytest.raises(ValueError, match=r"ReduceSum.*static length"):
        tvmlite.frontend.from_onnx(model)


def test_topk_opset1_k_attribute_and_argmax_opset1():
    x = np.array([[1, 5, 3, 5]], "float32")
    nodes = [helper.make_node("TopK", ["x"], ["v", "i"], k=2),
             helper.make_node("ArgMax", ["x"], ["a"], axis=1, keepdims=0)]
    model = _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 4])],
                   [_vi("v", TensorProto.FLOAT, None), _vi("i", TensorProto.INT64, None),
                    _vi("a", TensorProto.INT64, None)], 9)
    _, (v, i, a) = _run(model, x=x)
    assert v.tolist() == [[5, 5]] and i.tolist() == [[1, 3]] and a.tolist() == [1]


def test_cast_opset1_takes_a_type_name():
    node = helper.make_node("Cast", ["x"], ["y"], to="INT32")
    model = _model([node], [_vi("x", TensorProto.FLOAT, [3])], [_vi("y", TensorProto.INT32, None)], 1)
    _, (y,) = _run(model, x=np.array([1.7, -2.7, 3], "float32"))
    assert y.dtype == np.int32 and y.tolist() == [1, -2, 3]
    bad = _model([helper.make_node("Cast", ["x"], ["y"], to="FLOATY")], [_vi("x", TensorProto.FLOAT, [3])],
                 [_vi("y", TensorProto.FLOAT, None)], 1)
    with pytest.raises(OpAttributeInvalid, match="FLOATY"):
        tvmlite.frontend.from_onnx(bad)


def test_cast_to_string_is_not_supported_yet():
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.STRING)
    model = _model([node], [_vi("x", TensorProto.FLOAT, [3])], [_vi("y", TensorProto.STRING, None)], 13)
    with pytest.raises(OpNotImplemented, match="string"):
        tvmlite.frontend.from_onnx(model)


def test_mod_integer_floor_semantics_and_fmod():
    a, b = np.array([-7, 7, -7], "int64"), np.array([3, -3, -3], "int64")
    for fmod, expect in [(0, [2, -2, -1]), (1, [-1, 1, -1])]:
        node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)
        model = _model([node], [_vi("a", TensorProto.INT64, [3]), _vi("b", TensorProto.INT64, [3])],
                       [_vi("y", TensorProto.INT64, None)], 13)
        _, (y,) = _run(model, a=a, b=b)
        assert y.tolist() == expect


def test_bitshift_needs_a_valid_direction():
    node = helper.make_node("BitShift", ["a", "b"], ["y"], direction="UP", name="shift0")
    model = _model([node], [_vi("a", TensorProto.UINT8, [2]), _vi("b", TensorProto.UINT8, [2])],
                   [_vi("y", TensorProto.UINT8, None)], 11)
    with pytest.raises(OpAttributeInvalid, match="LEFT or RIGHT"):
        tvmlite.frontend.from_onnx(model)


def test_variadic_max_and_mean_broadcast():
    nodes = [helper.make_node("Max", ["a", "b", "c"], ["m"]), helper.make_node("Mean", ["a", "b", "c"], ["n"])]
    model = _model(nodes, [_vi("a", TensorProto.FLOAT, [2, 1]), _vi("b", TensorProto.FLOAT, [3]),
                           _vi("c", TensorProto.FLOAT, [1])],
                   [_vi("m", TensorProto.FLOAT, None), _vi("n", TensorProto.FLOAT, None)], 8)
    a, b, c = np.array([[0], [5]], "float32"), np.array([1, 2, 3], "float32"), np.array([2.5], "float32")
    _, (m, n) = _run(model, a=a, b=b, c=c)
    np.testing.assert_array_equal(m, np.maximum(np.maximum(a, b), c))
    np.testing.assert_allclose(n, (a + b + c) / 3, rtol=1e-6)


def test_isinf_detects_one_sign():
    node = helper.make_node("IsInf", ["x"], ["y"], detect_positive=0)
    model = _model([node], [_vi("x", TensorProto.FLOAT, [3])], [_vi("y", TensorProto.BOOL, None)], 10)
    _, (y,) = _run(model, x=np.array([np.inf, -np.inf, 1], "float32"))
    assert y.tolist() == [False, True, False]


def test_pow_opset1_legacy_broadcast_axis():
    exp = onnx.numpy_helper.from_array(np.array([1, 2], "float32"), "e")
    node = helper.make_node("Pow", ["x", "e"], ["y"], broadcast=1, axis=0)
    model = _model([node], [_vi("x", TensorProto.FLOAT, [2, 3])], [_vi("y", TensorProto.FLOAT, None)], 1, [exp])
    mod, params = tvmlite.frontend.from_onnx(model, freeze_params=True)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    x = np.arange(6, dtype="float32").reshape(2, 3)
    gm.set_input("x", x)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0).numpy(), x ** np.array([[1], [2]], "float32"))
