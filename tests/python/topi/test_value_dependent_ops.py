"""Ops whose output shape depends on input values, natively (csrc/topi/transform/nonzero.cc, csrc/topi/unique.cc,
topi.arange in dyn_shape.cc): the kernels make and return their outputs. Each ONNX graph is built once for the cpu
and run at inputs giving different output sizes (an empty one among them), against onnxruntime, with no node on
the numpy reference; the kernels alone against the relay ops' references, over dtypes and axes; bad input."""
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from tvmlite.ir import Op
from tvmlite.relay.op.op import get_reference

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402

_ONNX_DTYPE = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64, "bool": TensorProto.BOOL,
               "float64": TensorProto.DOUBLE, "int8": TensorProto.INT8}


def _model(nodes, inputs, outputs, opset=17, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _build(model):
    mod, params = tvmlite.frontend.from_onnx(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a FallbackWarning: the tests check lib.fallbacks() themselves
        lib = tvmlite.build(mod, target="cpu", params=params)
    return lib, tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))


def _check_runs(model, gm, feeds_list):
    """Run each feed through the one executor and onnxruntime; the output shapes seen, per feed."""
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    seen = []
    for feeds in feeds_list:
        want = sess.run(None, feeds)
        gm.set_input(**feeds)
        gm.run()
        got = [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
            np.testing.assert_array_equal(g, w)
        seen.append(tuple(w.shape for w in want))
    return seen


def _nd(x):
    return tvmlite.nd.array(np.require(x, requirements="C"))


def test_ops_name_their_kernels():
    for op, kernel in [("argwhere", "topi.argwhere"), ("unique", "topi.unique"), ("arange", "topi.arange")]:
        assert Op.get(op).get_attr("FTVMLiteKernel") == kernel
        assert Op.get(op).get_attr("TVMLiteReturnsOutputs") is True


# ---------------------------------------------------------------------------------------------- NonZero

@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_nonzero_one_build_many_counts(dtype):
    model = _model([helper.make_node("NonZero", ["x"], ["y"])],
                   [helper.make_tensor_value_info("x", _ONNX_DTYPE[dtype], ["a", "b"])],
                   [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
    lib, gm = _build(model)
    assert lib.fallbacks() == []
    feeds = [{"x": (np.arange(12).reshape(3, 4) % 3 == 0).astype(dtype)},
             {"x": np.zeros((2, 5), dtype)},                       # nothing: (2, 0)
             {"x": np.ones((4, 2), dtype)},
             {"x": (np.arange(7).reshape(1, 7) == 6).astype(dtype)}]
    assert _check_runs(model, gm, feeds) == [((2, 4),), ((2, 0),), ((2, 8),), ((2, 1),)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 0, 3), (2, 3, 1, 2)], ids=str)
def test_argwhere_kernel(dtype, shape):
    x = ((np.arange(int(np.prod(shape))) * 7) % 3 == 1).reshape(shape).astype(dtype)
    (out,) = tvmlite.get_global_func("topi.argwhere")({})(_nd(x))
    want = np.argwhere(x)
    ref = get_reference("argwhere")(None, x)  # a 0-d input's (1, 0) or (0, 0) too
    assert ref.dtype == np.int64 and ref.shape == want.shape
    np.testing.assert_array_equal(want, ref)
    assert out.dtype == "int64" and out.shape == want.shape
    np.testing.assert_array_equal(out.numpy(), want)


def test_argwhere_float_zero_is_the_value():
    """-0.0 is zero, NaN and the smallest subnormal are not (float16 too, by its bits)."""
    for dtype in ["float32", "float64", "float16"]:
        x = np.array([0.0, -0.0, np.nan, np.finfo(dtype).smallest_subnormal, 1.0, -2.0], dtype)
        (out,) = tvmlite.get_global_func("topi.argwhere")({})(_nd(x))
        np.testing.assert_array_equal(out.numpy(), [[2], [3], [4], [5]])


def test_argwhere_bad_input():
    kernel = tvmlite.get_global_func("topi.argwhere")({})
    with pytest.raises(TypeError, match=r"^topi.argwhere: expected 1 tensor arguments \(its inputs\), got 2\n"):
        kernel(_nd(np.ones(3, "float32")), _nd(np.ones(3, "float32")))
    with pytest.raises(TypeError, match=r"^topi.argwhere: dtype int4 is not supported \(1, 2, 4 or 8 byte scalars\)"):
        kernel(tvmlite.nd.empty((3,), "int4"))
    with pytest.raises(TypeError, match=r"^topi.argwhere: condition of dtype float8_e4m3fn is not supported\n"):
        kernel(tvmlite.nd.empty((3,), "float8_e4m3fn"))
    with pytest.raises(ValueError, match=r"^topi.argwhere: takes no epilogue\n"):
        tvmlite.get_global_func("topi.argwhere")({"epilogue": "relu"})


# ---------------------------------------------------------------------------------------------- Unique

def _unique_model(dtype, outputs, **attrs):
    types = [_ONNX_DTYPE[dtype]] + [TensorProto.INT64] * 3
    return _model([helper.make_node("Unique", ["x"], outputs, **attrs)],
                  [helper.make_tensor_value_info("x", _ONNX_DTYPE[dtype], ["a", 2])],
                  [helper.make_tensor_value_info(n, t, None) for n, t in zip(outputs, types) if n])


_UNIQUE_FEEDS = [np.array([[1, 2], [3, 1], [1, 2]]), np.array([[5, 5], [4, 4], [5, 5], [0, 1], [4, 4]]),
                 np.zeros((0, 2)), np.array([[7, 7]])]


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("attrs", [{"sorted": 1}, {"sorted": 0}, {"sorted": 1, "axis": 0}, {"sorted": 0, "axis": -2}],
                         ids=str)
def test_unique_values_one_build_native(dtype, attrs):
    """The usual use: only the unique values are read; the kernel makes all four, the node returns them."""
    model = _unique_model(dtype, ["y"], **attrs)
    lib, gm = _build(model)
    assert lib.fallbacks() == []
    seen = _check_runs(model, gm, [{"x": x.astype(dtype)} for x in _UNIQUE_FEEDS])
    assert len(set(seen)) == len(_UNIQUE_FEEDS)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int8"])
@pytest.mark.parametrize("attrs", [{"sorted": 1}, {"sorted": 0}, {"sorted": 1, "axis": 0}, {"sorted": 0, "axis": 1}],
                         ids=str)
def test_unique_four_outputs_one_build(dtype, attrs):
    model = _unique_model(dtype, ["y", "first", "inverse", "counts"], **attrs)
    lib, gm = _build(model)
    seen = _check_runs(model, gm, [{"x": x.astype(dtype)} for x in _UNIQUE_FEEDS])
    assert len(set(seen)) == len(_UNIQUE_FEEDS)


def test_unique_four_outputs_native():
    lib, _ = _build(_unique_model("float32", ["y", "first", "inverse", "counts"], sorted=1))
    assert lib.fallbacks() == []


def _unique_attrs(sorted_, axis):
    return SimpleNamespace(sorted=sorted_, axis=axis)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int32", "int64", "uint8", "uint64", "bool"])
@pytest.mark.parametrize("shape,axis", [((0,), None), ((9,), None), ((3, 4), None), ((6, 2), 0), ((2, 5), 1),
                                        ((2, 6, 2), 1), ((2, 3, 4), -1), ((4, 0), 0)], ids=str)
@pytest.mark.parametrize("sorted_", [1, 0])
def test_unique_kernel(dtype, shape, axis, sorted_):
    rng = np.random.default_rng(len(shape) * 10 + (axis or 0))
    x = rng.integers(0, 3, size=shape).astype(dtype)
    if axis is not None and shape[axis] > 2:  # a repeated slice, so that slices (not only elements) collapse
        np.moveaxis(x, axis, 0)[-1] = np.moveaxis(x, axis, 0)[0]
    attrs = {"sorted": sorted_} if axis is None else {"sorted": sorted_, "axis": axis}
    got = tvmlite.get_global_func("topi.unique")(attrs)(_nd(x))
    want = get_reference("unique")(_unique_attrs(sorted_, axis), x)
    assert len(got) == 4
    for g, w in zip(got, want):
        assert g.dtype == str(w.dtype) and g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w)


def test_unique_kernel_floats():
    """NaN sorts last and every NaN is one value (numpy's equal_nan); -0.0 equals 0.0, the first one is kept."""
    x = np.array([np.nan, 1.0, -0.0, np.nan, 0.0, -np.inf, 1.0], "float32")
    for sorted_ in (1, 0):
        got = [a.numpy() for a in tvmlite.get_global_func("topi.unique")({"sorted": sorted_})(_nd(x))]
        want = get_reference("unique")(_unique_attrs(sorted_, None), x)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        assert np.signbit(got[0][~np.isnan(got[0]) & (got[0] == 0)]).all()  # -0.0 came first


@pytest.mark.parametrize("attrs,x,error,message", [
    ({"axis": 2}, np.zeros((2, 3), "float32"), ValueError, r"^topi.unique: axis 2 is out of range"),
    ({"axis": 0}, np.zeros((), "float32"), ValueError, r"^topi.unique: data is 0-d but an axis is given\n"),
    ({}, np.zeros(3, "float16"), TypeError, r"^topi.unique: data of dtype float16 is not supported\n"),
], ids=["axis", "0-d", "float16"])
def test_unique_bad_input(attrs, x, error, message):
    with pytest.raises(error, match=message):
        tvmlite.get_global_func("topi.unique")(attrs)(_nd(x))


def test_unique_bad_call():
    kernel = tvmlite.get_global_func("topi.unique")({})
    with pytest.raises(TypeError, match=r"^topi.unique: expected 1 tensor argument \(data\), got 0\n"):
        kernel()
    with pytest.raises(TypeError, match=r"^topi.unique: attribute 'sorted' must be an int\n"):
        tvmlite.get_global_func("topi.unique")({"sorted": "yes"})


# ---------------------------------------------------------------------------------------------- Range

def test_range_one_build_many_lengths():
    model = _model([helper.make_node("Range", ["s", "l", "d"], ["y"])],
                   [helper.make_tensor_value_info(n, TensorProto.INT64, []) for n in "sld"],
                   [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
    lib, gm = _build(model)
    assert lib.fallbacks() == []
    feeds = [{"s": np.array(s), "l": np.array(e), "d": np.array(d)} for s, e, d in [(0, 5, 1), (10, 1, -3), (4, 4, 1)]]
    assert _check_runs(model, gm, feeds) == [((5,),), ((3,),), ((0,),)]


def test_arange_kernel_takes_one_element_bounds():
    """The form of the expanded AffineGrid node tests: 0-d start and step, a 1-element stop sliced from a shape."""
    kernel = tvmlite.get_global_func("topi.arange")({"dtype": "int64"})
    for stop in (3, 0, 6):
        (out,) = kernel(_nd(np.array(0)), _nd(np.array([stop])), _nd(np.array(1)))
        np.testing.assert_array_equal(out.numpy(), np.arange(stop))
    with pytest.raises(ValueError, match=r"^topi.arange: stop must hold one value, got 2\n"):
        kernel(_nd(np.array(0)), _nd(np.array([3, 4])), _nd(np.array(1)))


def test_range_one_element_stop_one_build():
    initializers = [helper.make_tensor("zero", TensorProto.INT64, [], [0]),
                    helper.make_tensor("one", TensorProto.INT64, [], [1]),
                    helper.make_tensor("st", TensorProto.INT64, [1], [2]),
                    helper.make_tensor("en", TensorProto.INT64, [1], [3])]
    model = _model([helper.make_node("Slice", ["size", "st", "en"], ["W"]),
                    helper.make_node("Range", ["zero", "W", "one"], ["y"])],
                   [helper.make_tensor_value_info("size", TensorProto.INT64, [4])],
                   [helper.make_tensor_value_info("y", TensorProto.INT64, None)], initializers=initializers)
    lib, gm = _build(model)
    assert lib.fallbacks() == []
    feeds = [{"size": np.array([1, 1, h, 4])} for h in (3, 0, 6)]
    assert _check_runs(model, gm, feeds) == [((3,),), ((0,),), ((6,),)]
