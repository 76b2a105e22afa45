"""topi.nn.softmax / log_softmax, topi.nn.layer_norm and the reductions topi.sum / mean / max / min against the
relay ops' numpy references, on every ISA path and with 1 and 2 threads; special values (-inf rows, NaN), epilogues,
and bad input that names the kernel."""
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from lowering import lowering_attrs
from tvmlite.ir.op import Op
from tvmlite.relay.op.op import get_reference

_get = tvmlite.get_global_func


def _nd(a):
    return tvmlite.nd.array(np.ascontiguousarray(a, dtype=np.float32))


def _run(name, attrs, *inputs, out_shape):
    out = tvmlite.nd.array(np.full(out_shape, 12345.0, np.float32))
    _get(name)(attrs)(*[_nd(x) for x in inputs], out)
    return out.numpy()


# ---------------------------------------------------------------------------------------------------------------
# softmax


SOFTMAX_CASES = [((7,), -1, False), ((3, 1000), -1, False), ((2, 12, 197, 197), -1, False), ((4, 33), 0, False),
                 ((2, 5, 3, 17), 1, False), ((2, 3, 4, 5), 1, True), ((6, 1), -1, False), ((8, 17), 1, False)]


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,axis,flatten", SOFTMAX_CASES)
def test_softmax_matches_reference(isa, threads, rng, op, shape, axis, flatten):
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    attrs = SimpleNamespace(axis=axis, flatten=flatten)
    want = get_reference(f"nn.{op}")(attrs, x)
    got = _run(f"topi.nn.{op}", {"axis": axis, "flatten": flatten}, x, out_shape=shape)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6 if op == "log_softmax" else 1e-7)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_special_values(isa, op):
    """-inf entries get 0 (softmax) / -inf (log_softmax); a row of -inf is NaN, as the reference; NaN spreads."""
    ninf, inf, nan = -np.inf, np.inf, np.nan
    rows = [[0, ninf, 1, ninf] + [0.5] * 15, [ninf] * 19, [1, 2, inf] + [0] * 16, [1, nan] + [0] * 17,
            [-100, 0, -90, 50] + [-200] * 15, [88, 87, 80, -1e30] + [1e-30] * 15]
    x = np.array(rows, np.float32)
    want = get_reference(f"nn.{op}")(SimpleNamespace(axis=-1, flatten=False), x)
    got = _run(f"topi.nn.{op}", {"axis": -1}, x, out_shape=x.shape)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7, equal_nan=True)


def test_vector_exp_is_accurate(isa):
    """softmax of (x, 0 x 15) is exp(x) / (exp(x) + 15): its exp is within a couple of ulps of float64's."""
    xs = np.linspace(-87, 20, 4001, dtype=np.float32)
    x = np.zeros((xs.size, 16), np.float32)
    x[:, 0] = xs - 30  # max 0 each row (xs < 30): the kernel computes exp(x) directly
    got = _run("topi.nn.softmax", {"axis": -1}, x, out_shape=x.shape)
    e = np.exp(x[:, 0].astype(np.float64))
    want = e / (e + 15)
    np.testing.assert_allclose(got[:, 0], want, rtol=4e-7, atol=1e-37)


def test_softmax_epilogue(threads, rng):
    x = rng.standard_normal((3, 4, 50)).astype(np.float32)
    scale = rng.standard_normal((4, 1)).astype(np.float32)
    for axis in (-1, 1):
        want = get_reference("nn.softmax")(SimpleNamespace(axis=axis, flatten=False), x) * scale
        got = _run("topi.nn.softmax", {"axis": axis, "epilogue": "mul r0 r0 in0"}, x, scale, out_shape=x.shape)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_softmax_bad_inputs():
    with pytest.raises(ValueError, match=r"topi.nn.softmax: axis 2 is out of range for rank 2"):
        _get("topi.nn.softmax")({"axis": 2})(_nd(np.zeros((2, 3))), _nd(np.zeros((2, 3))))
    with pytest.raises(TypeError, match=r"topi.nn.log_softmax: data must be float32, got int32"):
        _get("topi.nn.log_softmax")({})(tvmlite.nd.array(np.zeros((2, 3), np.int32)), _nd(np.zeros((2, 3))))
    with pytest.raises(ValueError, match=r"topi.nn.softmax: out must have shape \(2, 3\)"):
        _get("topi.nn.softmax")({})(_nd(np.zeros((2, 3))), _nd(np.zeros((3, 2))))
    with pytest.raises(TypeError, match=r"topi.nn.softmax: attribute 'axis' must be an int"):
        _get("topi.nn.softmax")({"axis": "last"})


# ---------------------------------------------------------------------------------------------------------------
# layer norm


LN_CASES = [((4, 768), -1, (768,)), ((2, 197, 768), -1, (768,)), ((3, 5, 6, 7), 2, (6, 7)), ((3, 5, 6, 7), 2, (7,)),
            ((3, 5, 6, 7), 2, (6, 1)), ((9, 3), 0, (9, 3)), ((5, 1), -1, (1,)), ((2, 7), -1, ())]


@pytest.mark.parametrize("shape,axis,pshape", LN_CASES)
@pytest.mark.parametrize("center", [True, False])
def test_layer_norm_matches_reference(isa, threads, rng, shape, axis, pshape, center):
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    gamma = rng.standard_normal(pshape).astype(np.float32)
    beta = rng.standard_normal(pshape).astype(np.float32)
    attrs = SimpleNamespace(axis=axis, epsilon=1e-5, stash_type="float32")
    want = get_reference("nn.layer_norm")(attrs, x, gamma, beta if center else ())[0]
    inputs = (x, gamma, beta) if center else (x, gamma)
    got = _run("topi.nn.layer_norm", {"axis": axis, "epsilon": 1e-5, "center": center}, *inputs, out_shape=shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    if not center:  # without the attr, the argument count says beta is absent (the lowering's `()`)
        again = _run("topi.nn.layer_norm", {"axis": axis, "epsilon": 1e-5}, *inputs, out_shape=shape)
        np.testing.assert_array_equal(again, got)


def test_layer_norm_without_scale_and_with_epilogue(rng):
    x = rng.standard_normal((6, 64)).astype(np.float32)
    beta = rng.standard_normal(64).astype(np.float32)
    res = rng.standard_normal((6, 64)).astype(np.float32)
    attrs = SimpleNamespace(axis=-1, epsilon=1e-3, stash_type="float32")
    want = get_reference("nn.layer_norm")(attrs, x, np.ones(64, np.float32), beta)[0] + res
    got = _run("topi.nn.layer_norm", {"epsilon": 1e-3, "scale": False, "epilogue": "add r0 r0 in0"}, x, beta, res,
               out_shape=x.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_layer_norm_constant_rows_are_finite():
    x = np.full((3, 16), 7.0, np.float32)
    got = _run("topi.nn.layer_norm", {}, x, np.ones(16), np.zeros(16), out_shape=x.shape)
    np.testing.assert_array_equal(got, np.zeros_like(x))


def test_layer_norm_bad_inputs():
    x, out = _nd(np.zeros((2, 8))), _nd(np.zeros((2, 8)))
    with pytest.raises(ValueError, match=r"topi.nn.layer_norm: gamma of shape \(3,\) does not broadcast to the "
                                         r"normalized shape \(8,\)"):
        _get("topi.nn.layer_norm")({})(x, _nd(np.ones(3)), _nd(np.zeros(8)), out)
    with pytest.raises(ValueError, match=r"topi.nn.layer_norm: axis -3 is out of range for rank 2"):
        _get("topi.nn.layer_norm")({"axis": -3})(x, _nd(np.ones(8)), _nd(np.zeros(8)), out)
    with pytest.raises(ValueError, match=r"topi.nn.layer_norm: epsilon must be >= 0"):
        _get("topi.nn.layer_norm")({"epsilon": -1.0})
    with pytest.raises(ValueError, match=r"topi.nn.layer_norm: stash_type must be float32"):
        _get("topi.nn.layer_norm")({"stash_type": "float16"})
    with pytest.raises(TypeError, match=r"topi.nn.layer_norm: expected at least 4 tensor arguments"):
        _get("topi.nn.layer_norm")({"center": True})(x, _nd(np.ones(8)), out)
    with pytest.raises(TypeError, match=r"topi.nn.layer_norm: expected 3 tensor arguments \(data, gamma, 0 epilogue "
                                        r"inputs, out\), got 4"):
        _get("topi.nn.layer_norm")({"center": False})(x, _nd(np.ones(8)), _nd(np.zeros(8)), out)
    with pytest.raises(TypeError, match=r"topi.nn.layer_norm: expected at least 3 tensor arguments"):
        _get("topi.nn.layer_norm")({})(x, out)


# ---------------------------------------------------------------------------------------------------------------
# reductions


REDUCE_CASES = [((2, 3, 4), [1], False, False), ((2, 3, 4), [1], True, False), ((2, 3, 4), None, False, False),
                ((2, 3, 4), None, True, False), ((2, 3, 4), [], False, False), ((5, 7, 9, 11), [0, 2], False, False),
                ((5, 7, 9, 11), [-1, 1], True, False), ((5, 7, 9, 11), [1, 2], False, True),
                ((197, 768), [-1], True, False), ((197, 768), [0], False, False), ((4000, 3), [0], False, False),
                ((3, 1, 5), [1], False, False), ((6, 5), [0, 1], False, True), ((2, 0, 3), [1], False, False),
                ((2, 0, 3), [0], True, False), ((1000, 1000), None, False, False)]


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("shape,axis,keepdims,exclude", REDUCE_CASES)
def test_reduce_matches_reference(threads, rng, op, shape, axis, keepdims, exclude):
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = SimpleNamespace(axis=axis, keepdims=keepdims, exclude=exclude)
    want = get_reference(op)(attrs, x)
    kattrs = {"keepdims": keepdims, "exclude": exclude}
    if axis is not None:
        kattrs["axis"] = axis
    got = _run(f"topi.{op}", kattrs, x, out_shape=want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 if x.size < 10 ** 5 else 1e-3, equal_nan=True)


@pytest.mark.parametrize("op", ["max", "min", "sum", "mean"])
def test_reduce_special_values(op):
    x = np.array([[1, np.nan, 3], [-np.inf, 2, np.inf], [5, 6, 7]] * 5, np.float32).reshape(5, 3, 3)
    for axis in ([0], [1], [2], None):
        want = get_reference(op)(SimpleNamespace(axis=axis, keepdims=False, exclude=False), x)
        got = _run(f"topi.{op}", {} if axis is None else {"axis": axis}, x, out_shape=want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)


def test_reduce_epilogue(rng):
    x = rng.standard_normal((4, 6, 8)).astype(np.float32)
    got = _run("topi.mean", {"axis": [2], "keepdims": True, "epilogue": "add r0 r0 1e-5; rsqrt r0 r0"},
               np.abs(x), out_shape=(4, 6, 1))
    np.testing.assert_allclose(got, 1 / np.sqrt(np.abs(x).mean(axis=2, keepdims=True) + 1e-5), rtol=1e-5)


def test_reduce_bad_inputs():
    x = _nd(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"topi.sum: axis 2 is out of range for rank 2"):
        _get("topi.sum")({"axis": [2]})(x, _nd(np.zeros(2)))
    with pytest.raises(ValueError, match=r"topi.max: out must have shape \(2,\), got \(3,\)"):
        _get("topi.max")({"axis": [1]})(x, _nd(np.zeros(3)))
    with pytest.raises(TypeError, match=r"topi.mean: attribute 'axis' must be a list of ints"):
        _get("topi.mean")({"axis": 1.5})
    with pytest.raises(TypeError, match=r"topi.min: data must be float32"):
        _get("topi.min")({})(tvmlite.nd.array(np.zeros(3, np.float64)), _nd(np.zeros(())))


def test_kernels_are_registered_for_their_ops():
    pairs = [("nn.softmax", "topi.nn.softmax"), ("nn.log_softmax", "topi.nn.log_softmax"),
             ("nn.layer_norm", "topi.nn.layer_norm"), ("sum", "topi.sum"), ("mean", "topi.mean"),
             ("max", "topi.max"), ("min", "topi.min")]
    for op, kernel in pairs:
        assert str(Op.get(op).get_attr("FTVMLiteKernel")) == kernel


def test_kernels_take_the_relay_attrs_as_lowered(rng):
    """attrs = the relay call's fields as csrc/backend/group_lowering.cc passes them; absent beta is no tensor."""
    from tvmlite import relay

    x = rng.standard_normal((3, 4, 20)).astype(np.float32)
    g = rng.standard_normal(20).astype(np.float32)
    xv, gv = relay.var("x", shape=x.shape), relay.var("g", shape=g.shape)
    cases = [(relay.nn.softmax(xv, axis=1), [x]), (relay.nn.log_softmax(xv), [x]),
             (relay.sum(xv, axis=[0, 2]), [x]), (relay.mean(xv, axis=[1], keepdims=True), [x]),
             (relay.max(xv), [x]), (relay.min(xv, axis=[1], exclude=True), [x])]
    for call, inputs in cases:
        want = get_reference(call.op.name)(call.attrs, *inputs)
        kernel = str(Op.get(call.op.name).get_attr("FTVMLiteKernel"))
        got = _run(kernel, lowering_attrs(call), *inputs, out_shape=want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for beta in (g * 0.5, None):
        call = relay.nn.layer_norm(xv, gv, relay.var("b", shape=g.shape) if beta is not None else relay.Tuple([]),
                                   epsilon=1e-3)
        call = call.tuple_value if hasattr(call, "tuple_value") else call
        ref_inputs = [x, g, beta if beta is not None else ()]
        want = get_reference("nn.layer_norm")(call.attrs, *ref_inputs)[0]
        inputs = [x, g] + ([beta] if beta is not None else [])
        got = _run("topi.nn.layer_norm", lowering_attrs(call), *inputs, out_shape=x.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
