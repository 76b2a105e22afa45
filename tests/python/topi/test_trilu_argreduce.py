"""topi.trilu and topi.argmax / topi.argmin against the relay ops' numpy references: every dtype they take, ties,
NaN, 0-sized dims, 1 and 2 threads; built from relay with symbolic dims they run natively (no fallbacks) at every
shape; bad input names the kernel."""
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.relay.op.op import get_reference
from tvmlite.runtime import GraphModule
from tvmlite.runtime.fallbacks import FallbackWarning

_get = tvmlite.get_global_func


def _call(name, attrs, *inputs, out):
    """Run kernel name (made from attrs) on numpy inputs into out (numpy, its shape and dtype); the result."""
    nd_out = tvmlite.nd.array(out)
    _get(name)(attrs)(*[tvmlite.nd.array(np.array(x, order="C")) for x in inputs], nd_out)  # 0-d stays 0-d
    return nd_out.numpy()


def _data(rng, shape, dtype):
    """Values with many ties (a few distinct ones), so first / last index matters."""
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(-2, 3, shape).astype(dtype)


# ---------------------------------------------------------------------------------------------------------------
# trilu


TRILU_SHAPES = [(3, 5), (5, 3), (1, 1), (2, 3, 4, 4), (0, 4), (4, 0), (2, 0, 3), (3, 200, 130)]


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "bool", "float64", "int8"])
@pytest.mark.parametrize("shape", TRILU_SHAPES)
@pytest.mark.parametrize("upper", [True, False])
def test_trilu_matches_reference(threads, rng, dtype, shape, upper):
    # mostly nonzero, so a zero in the output is trilu's
    x = rng.random(shape) < 0.8 if dtype == "bool" else (_data(rng, shape, dtype) + 5).astype(dtype)
    ref = get_reference("trilu")
    for k in (0, 1, -1, 2, -3, 1000, -1000, 2**62, -(2**62)):
        for k_dtype in ("int64", "int32"):
            if k_dtype == "int32" and abs(k) > 2**31:
                continue
            k_in = np.array(k, k_dtype)
            want = ref(SimpleNamespace(upper=upper), x, k_in)
            got = _call("topi.trilu", {"upper": int(upper), "epilogue": ""}, x, k_in, out=np.full(shape, 7, dtype))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"k={k}")


def test_trilu_k_of_one_element_and_default_upper():
    x = np.arange(12, dtype="float32").reshape(3, 4) + 1
    got = _call("topi.trilu", {}, x, np.array([1], "int64"), out=np.zeros((3, 4), "float32"))
    np.testing.assert_array_equal(got, np.triu(x, 1))


def test_trilu_bad_input_names_the_kernel():
    f = _get("topi.trilu")({"upper": 1})
    x, k = tvmlite.nd.array(np.ones((3, 4), "float32")), tvmlite.nd.array(np.array(0, "int64"))
    out = tvmlite.nd.array(np.zeros((3, 4), "float32"))
    with pytest.raises(ValueError, match=r"topi.trilu: data must have rank >= 2, got shape \(4,\)"):
        f(tvmlite.nd.array(np.ones(4, "float32")), k, tvmlite.nd.array(np.zeros(4, "float32")))
    with pytest.raises(TypeError, match="topi.trilu: a shape or bounds input must be int32 or int64"):
        f(x, tvmlite.nd.array(np.array(0.0, "float32")), out)
    with pytest.raises(ValueError, match="topi.trilu: k must hold one value, got 2"):
        f(x, tvmlite.nd.array(np.array([0, 1], "int64")), out)
    with pytest.raises(TypeError, match="topi.trilu: dtypes differ: float32 and int32"):
        f(x, k, tvmlite.nd.array(np.zeros((3, 4), "int32")))
    with pytest.raises(ValueError, match=r"topi.trilu: out must have shape \(3, 4\), got \(4, 3\)"):
        f(x, k, tvmlite.nd.array(np.zeros((4, 3), "float32")))
    with pytest.raises(TypeError, match="topi.trilu: expected at least 3 tensor arguments"):
        f(x, out)


# ---------------------------------------------------------------------------------------------------------------
# argmax / argmin


ARG_CASES = [  # shape, axis (None: every axis), exclude
    ((2, 3, 4), [1], False), ((2, 3, 4), [-1], False), ((2, 3, 4), [0], False), ((2, 3, 4), None, False),
    ((2, 3, 4), [0, 2], False), ((2, 3, 4), [1, 2], False), ((2, 3, 4), [-1, 0], False), ((2, 3, 4), [1], True),
    ((2, 3, 4), [], False), ((7,), [0], False), ((), None, False), ((1, 7, 1), [1], False), ((1, 7, 1), [0], False),
    ((3, 1), [0], False), ((40, 700), [0], False), ((3000, 40), [1], False),
    ((5, 1200, 3), [0, 2], False), ((1, 3000), [0], False),
]


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "bool", "float64", "uint8", "int8", "int16"])
@pytest.mark.parametrize("shape,axis,exclude", ARG_CASES)
def test_arg_reduce_matches_reference(threads, rng, op, dtype, shape, axis, exclude):
    x = _data(rng, shape, dtype)
    for keepdims in (False, True):
        for last in (False, True):
            attrs = SimpleNamespace(axis=axis, keepdims=keepdims, exclude=exclude, select_last_index=last)
            want = get_reference(op)(attrs, x)
            kernel_attrs = {"keepdims": int(keepdims), "exclude": int(exclude), "select_last_index": int(last),
                            "epilogue": ""}
            if axis is not None:
                kernel_attrs["axis"] = axis
            got = _call(f"topi.{op}", kernel_attrs, x, out=np.full(want.shape, -7, "int64"))
            np.testing.assert_array_equal(got, want, err_msg=f"keepdims={keepdims} last={last}")


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [[1], [0]])
def test_arg_reduce_nan_is_the_extreme_first_or_last(op, axis):
    """numpy's argmax / argmin stop at the first NaN; with select_last_index the last NaN wins."""
    nan, inf = np.nan, np.inf
    x = np.array([[1, nan, 3, nan, 0], [nan, 5, 5, 1, nan], [2, 2, -inf, inf, 2], [0, 0, 0, 0, nan]], "float32")
    x = x if axis == [1] else x.T
    for last in (False, True):
        attrs = SimpleNamespace(axis=axis, keepdims=False, exclude=False, select_last_index=last)
        want = get_reference(op)(attrs, x)
        got = _call(f"topi.{op}", {"axis": axis, "select_last_index": int(last)}, x, out=np.zeros(4, "int64"))
        np.testing.assert_array_equal(got, want)
    assert get_reference(op)(SimpleNamespace(axis=[1], keepdims=False, exclude=False, select_last_index=True),
                             np.array([[1, nan, 3, nan, 0]], "float32")).tolist() == [3]


def test_arg_reduce_bad_input_names_the_kernel():
    f = _get("topi.argmax")({"axis": [1]})
    x = tvmlite.nd.array(np.ones((3, 4), "float32"))
    with pytest.raises(TypeError, match="topi.argmax: dtype float16 is not supported"):
        f(tvmlite.nd.array(np.ones((3, 4), "float16")), tvmlite.nd.array(np.zeros(3, "int64")))
    with pytest.raises(TypeError, match="topi.argmax: out must be int64, got int32"):
        f(x, tvmlite.nd.array(np.zeros(3, "int32")))
    with pytest.raises(ValueError, match=r"topi.argmax: out must have shape \(3,\), got \(4,\)"):
        f(x, tvmlite.nd.array(np.zeros(4, "int64")))
    with pytest.raises(ValueError, match="topi.argmax: axis 1 is out of range for rank 1"):
        f(tvmlite.nd.array(np.ones(4, "float32")), tvmlite.nd.array(np.zeros(4, "int64")))
    with pytest.raises(ValueError, match=r"topi.argmax: cannot take the arg-extreme of no elements \(input shape "
                                         r"\(3, 0\)\)"):
        f(tvmlite.nd.array(np.ones((3, 0), "float32")), tvmlite.nd.array(np.zeros(3, "int64")))
    with pytest.raises(ValueError, match="topi.argmin: takes no epilogue"):
        _get("topi.argmin")({"axis": [1], "epilogue": "r0 = relu r0"})


def test_arg_reduce_over_nonempty_axes_of_an_empty_tensor_is_empty():
    """numpy's argmax of (0, 3) over axis 1 is empty (the relay reference cannot reshape it: _reduce.py)."""
    x = np.zeros((0, 3), "float32")
    assert _call("topi.argmax", {"axis": [1]}, x, out=np.zeros(0, "int64")).shape == np.argmax(x, axis=1).shape
    got = _call("topi.argmin", {"axis": [-1], "keepdims": 1}, x, out=np.zeros((0, 1), "int64"))
    assert got.shape == np.argmin(x, axis=-1, keepdims=True).shape
    x = np.zeros((3, 0), "int64")
    assert _call("topi.argmax", {"axis": [0]}, x, out=np.zeros(0, "int64")).shape == np.argmax(x, axis=0).shape


# ---------------------------------------------------------------------------------------------------------------
# built from relay with symbolic dims: native at every shape


def _build(func):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)  # an all-native build warns nothing
        lib = tvmlite.build(func, target="cpu")
    assert lib.fallbacks() == []
    return GraphModule(lib["default"]())


def _outputs(gm, **inputs):
    for name, value in inputs.items():
        gm.set_input(name, value)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_trilu_on_symbolic_dims_is_native(rng, dtype):
    """A causal mask's trilu over (batch, seq, seq), k a graph input; float32 with a fused epilogue."""
    b, s = tvmlite.ir.SizeVar("batch"), tvmlite.ir.SizeVar("seq")
    x, k = relay.var("x", shape=(b, s, s), dtype=dtype), relay.var("k", shape=(), dtype="int64")
    outs = [relay.trilu(x, k, upper=True), relay.trilu(x, relay.const(-1, "int64"), upper=False)]
    if dtype == "float32":
        outs.append(relay.nn.relu(relay.trilu(x, k)))
    gm = _build(relay.Function([x, k], relay.Tuple(outs)))
    for shape, kv in (((1, 5, 5), 0), ((2, 3, 3), 1), ((3, 1, 1), -1), ((2, 0, 0), 0), ((1, 17, 17), 2)):
        xv = _data(rng, shape, dtype)
        got = _outputs(gm, x=xv, k=np.array(kv, "int64"))
        np.testing.assert_array_equal(got[0], np.triu(xv, kv))
        np.testing.assert_array_equal(got[1], np.tril(xv, -1))
        if dtype == "float32":
            np.testing.assert_array_equal(got[2], np.maximum(np.triu(xv, kv), 0))


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_arg_reduce_on_symbolic_dims_is_native(rng, dtype):
    """CLIP's argmax over input_ids (batch, seq) int64; argmin keeping dims, and over every axis."""
    b, s = tvmlite.ir.SizeVar("batch"), tvmlite.ir.SizeVar("seq")
    x = relay.var("x", shape=(b, s, 3), dtype=dtype)
    outs = [relay.argmax(x, axis=-2), relay.argmin(x, axis=[1, 2], keepdims=True, select_last_index=True),
            relay.argmax(x, select_last_index=True), relay.argmax(x, axis=0, keepdims=True)]
    gm = _build(relay.Function([x], relay.Tuple(outs)))
    ref = get_reference("argmax"), get_reference("argmin")
    for shape in ((1, 7, 3), (2, 1, 3), (3, 16, 3)):
        xv = _data(rng, shape, dtype)
        got = _outputs(gm, x=xv)
        attrs = [SimpleNamespace(axis=[-2], keepdims=False, exclude=False, select_last_index=False),
                 SimpleNamespace(axis=[1, 2], keepdims=True, exclude=False, select_last_index=True),
                 SimpleNamespace(axis=None, keepdims=False, exclude=False, select_last_index=True),
                 SimpleNamespace(axis=[0], keepdims=True, exclude=False, select_last_index=False)]
        for i, (g, a) in enumerate(zip(got, attrs)):
            np.testing.assert_array_equal(g, ref[i == 1](a, xv), err_msg=f"output {i}, shape {shape}")


def test_arg_reduce_over_an_empty_dim_at_run_time_is_a_clear_error():
    """An empty kept dim gives an empty output; an empty reduced dim is numpy's error, and the next run works."""
    b, s = tvmlite.ir.SizeVar("batch"), tvmlite.ir.SizeVar("seq")
    x = relay.var("x", shape=(b, s), dtype="int64")
    gm = _build(relay.Function([x], relay.argmax(x, axis=1)))
    (got,) = _outputs(gm, x=np.zeros((0, 4), "int64"))
    assert got.shape == (0,)
    # the node's shape function (the op's type relation on the concrete shapes) stops it before the kernel
    with pytest.raises(ValueError, match=r"cannot take the arg-extreme over axis 1 of size 0 \(shape \(2, 0\)\)"):
        _outputs(gm, x=np.zeros((2, 0), "int64"))
    (got,) = _outputs(gm, x=np.array([[1, 3, 3], [4, 0, 4]], "int64"))
    assert got.tolist() == [1, 0]


def test_a_dtype_the_kernel_does_not_take_falls_back_with_its_reason():
    x = relay.var("x", shape=(2, 3), dtype="float16")
    with pytest.warns(FallbackWarning, match="1 x topi.argmax refused: topi.argmax: dtype float16 is not supported"):
        lib = tvmlite.build(relay.Function([x], relay.argmax(x, axis=1)), target="cpu")
    assert [f["reason"] for f in lib.fallbacks()] == [
        "topi.argmax refused: topi.argmax: dtype float16 is not supported"]
