"""topi.nn.instance_norm, topi.nn.group_norm and topi.nn.lrn against the relay ops' numpy references, on every ISA
path and with 1 and 2 threads: shape sweeps (spatial ranks 0-3, odd sizes, batch > 1), group counts, LRN windows
and powers, epilogues, NaN/inf, bad input that names the kernel, and graphs built for the cpu target running them."""
import json
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from lowering import lowering_attrs
from tvmlite import relay
from tvmlite.ir.op import Op
from tvmlite.relay.op.op import get_reference
from tvmlite.runtime import GraphModule

_get = tvmlite.get_global_func


def _nd(a, dtype=np.float32):
    return tvmlite.nd.array(np.array(a, dtype=dtype, order="C"))  # (ascontiguousarray makes a scalar 1-D)


def _run(name, attrs, *inputs, out_shape=None):
    out = tvmlite.nd.array(np.full(out_shape or inputs[0].shape, 12345.0, np.float32))
    _get(name)(attrs)(*[_nd(x) for x in inputs], out)
    return out.numpy()


def _data(rng, shape):
    return (rng.standard_normal(shape) * 3 + 1).astype(np.float32)


def _params(rng, channels):
    return rng.standard_normal(channels).astype(np.float32), rng.standard_normal(channels).astype(np.float32)


# ---------------------------------------------------------------------------------------------------------------
# instance norm and group norm

# (shape, group counts): channels 1, 3, 16, 33; spatial ranks 0-3; batch 1 and 3; planes from 1 value to several
# statistics chunks (1024 values), so both paths (whole groups per task, chunks of few groups) run on 1 and 2 threads.
NORM_CASES = [((1, 1, 7), [1]), ((3, 3), [1, 3]), ((1, 3, 1), [1, 3]), ((3, 3, 5), [1, 3]),
              ((1, 16, 9, 11), [1, 4, 16]), ((3, 16, 2, 3, 5), [1, 2, 16]), ((1, 33, 4, 5), [1, 3, 11, 33]),
              ((3, 33, 1, 3, 1), [1, 33]), ((1, 16, 37, 41), [1, 4, 16]), ((1, 3, 7, 5, 61), [1, 3]),
              ((3, 1, 2500), [1]), ((1, 2, 1, 1, 1), [1, 2])]


@pytest.mark.parametrize("shape,groups", NORM_CASES)
@pytest.mark.parametrize("epsilon", [1e-5, 1e-2])
def test_instance_norm_matches_reference(isa, threads, rng, shape, groups, epsilon):
    x = _data(rng, shape)
    gamma, beta = _params(rng, shape[1])
    want = get_reference("nn.instance_norm")(SimpleNamespace(epsilon=epsilon), x, gamma, beta)
    got = _run("topi.nn.instance_norm", {"epsilon": epsilon}, x, gamma, beta)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("shape,groups", NORM_CASES)
@pytest.mark.parametrize("stash_type", ["float32", "float64"])
def test_group_norm_matches_reference(isa, threads, rng, shape, groups, stash_type):
    x = _data(rng, shape)
    gamma, beta = _params(rng, shape[1])
    for g in groups:
        attrs = {"num_groups": g, "epsilon": 1e-5, "stash_type": stash_type}
        want = get_reference("nn.group_norm")(SimpleNamespace(**attrs), x, gamma, beta)
        got = _run("topi.nn.group_norm", attrs, x, gamma, beta)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5, err_msg=f"num_groups={g}")


@pytest.mark.parametrize("stash_type", ["", "float16", "bfloat16"])
def test_group_norm_narrow_stash_types_are_float32(rng, stash_type):
    """The reference computes float32 data's statistics in float32 whenever the stash type is not wider."""
    x = _data(rng, (2, 6, 5, 7))
    gamma, beta = _params(rng, 6)
    attrs = {"num_groups": 3, "epsilon": 1e-4, "stash_type": stash_type}
    want = get_reference("nn.group_norm")(SimpleNamespace(**attrs), x, gamma, beta)
    np.testing.assert_allclose(_run("topi.nn.group_norm", attrs, x, gamma, beta), want, rtol=1e-5, atol=2e-5)


def test_instance_norm_is_group_norm_with_one_channel_per_group(rng):
    x = _data(rng, (3, 5, 6, 7))
    gamma, beta = _params(rng, 5)
    a = _run("topi.nn.instance_norm", {"epsilon": 1e-3}, x, gamma, beta)
    b = _run("topi.nn.group_norm", {"num_groups": 5, "epsilon": 1e-3}, x, gamma, beta)
    np.testing.assert_array_equal(a, b)


def test_norm_results_do_not_depend_on_threads(rng):
    """Chunk statistics merge in one order whatever the path: 1 and 2 threads give the same bits."""
    set_threads = _get("runtime.set_num_threads")
    x = _data(rng, (1, 8, 61, 67))
    gamma, beta = _params(rng, 8)
    outs = []
    try:
        for n in (1, 2):
            set_threads(n)
            outs.append(_run("topi.nn.group_norm", {"num_groups": 2}, x, gamma, beta))
    finally:
        set_threads(0)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_norm_statistics_are_accurate_with_a_large_mean(threads, rng):
    """mean 1000x the deviation: the corrected two-pass statistics still match float64 to float32 rounding."""
    x = (rng.standard_normal((2, 4, 3000)) * 0.5 + 500).astype(np.float32)
    gamma, beta = np.ones(4, np.float32), np.zeros(4, np.float32)
    xd = x.astype(np.float64)
    want = (xd - xd.mean(axis=2, keepdims=True)) / np.sqrt(xd.var(axis=2, keepdims=True) + 1e-5)
    got = _run("topi.nn.group_norm", {"num_groups": 4, "stash_type": "float64"}, x, gamma, beta)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    got = _run("topi.nn.instance_norm", {}, x, gamma, beta)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)  # x - mean in float32: x's own rounding


def test_norm_constant_planes_and_zero_epsilon(rng):
    x = np.full((2, 3, 4, 5), 7.25, np.float32)
    gamma, beta = _params(rng, 3)
    got = _run("topi.nn.instance_norm", {}, x, gamma, beta)
    np.testing.assert_array_equal(got, np.broadcast_to(beta.reshape(1, 3, 1, 1), x.shape))
    # epsilon 0 on varied data is fine; on a constant plane it is 0 / 0, as the reference
    x = _data(rng, (2, 3, 4, 5))
    want = get_reference("nn.group_norm")(SimpleNamespace(num_groups=3, epsilon=0.0, stash_type="float32"), x,
                                          gamma, beta)
    np.testing.assert_allclose(_run("topi.nn.group_norm", {"num_groups": 3, "epsilon": 0.0}, x, gamma, beta), want,
                               rtol=1e-5, atol=2e-5)
    x[1, 2] = 3.0
    got = _run("topi.nn.instance_norm", {"epsilon": 0.0}, x, gamma, beta)
    assert np.isnan(got[1, 2]).all() and np.isfinite(np.delete(got.reshape(6, -1), 5, axis=0)).all()


@pytest.mark.parametrize("op", ["instance_norm", "group_norm"])
def test_norm_special_values(isa, threads, op):
    """A NaN or inf makes its whole group NaN (its variance is NaN), as the reference; other groups are untouched."""
    rng = np.random.default_rng(1)
    x = _data(rng, (2, 4, 3, 1500))
    x[0, 1, 2, 7] = np.nan
    x[1, 0, 0, 0] = np.inf
    x[1, 3, 1, 1400] = -np.inf
    gamma, beta = _params(rng, 4)
    attrs = {"num_groups": 2, "epsilon": 1e-5, "stash_type": "float32"} if op == "group_norm" else {"epsilon": 1e-5}
    with np.errstate(invalid="ignore"):
        want = get_reference(f"nn.{op}")(SimpleNamespace(**attrs), x, gamma, beta)
    got = _run(f"topi.nn.{op}", attrs, x, gamma, beta)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5, equal_nan=True)
    assert np.isnan(got).any() and np.isfinite(got).any()


@pytest.mark.parametrize("shape,groups", [((3, 4, 5, 6), 2), ((1, 8, 50, 60), 2)])
def test_norm_epilogue(threads, rng, shape, groups):
    """The epilogue runs on the output (per group, or per chunk on the few-groups path) with broadcast inputs."""
    x = _data(rng, shape)
    gamma, beta = _params(rng, shape[1])
    bias = rng.standard_normal((shape[1], 1, 1)).astype(np.float32)
    res = rng.standard_normal(shape).astype(np.float32)
    ref_attrs = SimpleNamespace(num_groups=groups, epsilon=1e-5, stash_type="float32")
    norm = get_reference("nn.group_norm")(ref_attrs, x, gamma, beta)
    got = _run("topi.nn.group_norm", {"num_groups": groups, "epilogue": "relu r0 r0"}, x, gamma, beta)
    np.testing.assert_allclose(got, np.maximum(norm, 0), rtol=1e-5, atol=2e-5)
    got = _run("topi.nn.group_norm", {"num_groups": groups, "epilogue": "add r0 r0 in0; add r0 r0 in1; relu r0 r0"},
               x, gamma, beta, bias, res)
    np.testing.assert_allclose(got, np.maximum(norm + bias + res, 0), rtol=1e-5, atol=2e-5)
    inorm = get_reference("nn.instance_norm")(SimpleNamespace(epsilon=1e-5), x, gamma, beta)
    got = _run("topi.nn.instance_norm", {"epilogue": "mul r0 r0 in0; sigmoid r0 r0"}, x, gamma, beta, bias)
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-inorm * bias)), rtol=1e-5, atol=1e-6)


def test_norm_empty_tensors():
    for shape in [(0, 4, 3), (2, 4, 0), (2, 0, 5)]:
        x = np.zeros(shape, np.float32)
        for name, attrs in [("topi.nn.instance_norm", {}), ("topi.nn.group_norm", {"num_groups": 2})]:
            p = np.ones(shape[1], np.float32)
            assert _run(name, attrs, x, p, p).shape == shape


def test_norm_bad_inputs():
    x, p4, out = _nd(np.zeros((2, 4, 3))), _nd(np.ones(4)), _nd(np.zeros((2, 4, 3)))
    gn, inorm = _get("topi.nn.group_norm"), _get("topi.nn.instance_norm")
    with pytest.raises(ValueError, match=r"topi.nn.instance_norm: data must have rank >= 2 \(N, C, \.\.\.\), "
                                         r"got shape \(4,\)"):
        inorm({})(p4, p4, p4, p4)
    with pytest.raises(ValueError, match=r"topi.nn.group_norm: data must have rank >= 2 \(N, C, \.\.\.\), got "
                                         r"shape \(\)"):
        gn({})(_nd(np.zeros(())), p4, p4, _nd(np.zeros(())))
    with pytest.raises(ValueError, match=r"topi.nn.group_norm: gamma must have shape \(4,\), got \(3,\)"):
        gn({"num_groups": 2})(x, _nd(np.ones(3)), p4, out)
    with pytest.raises(ValueError, match=r"topi.nn.instance_norm: beta must have shape \(4,\), got \(1, 4\)"):
        inorm({})(x, p4, _nd(np.ones((1, 4))), out)
    with pytest.raises(ValueError, match=r"topi.nn.group_norm: the 4 channels of data \(2, 4, 3\) do not split "
                                         r"into 3 groups"):
        gn({"num_groups": 3})(x, p4, p4, out)
    with pytest.raises(ValueError, match=r"topi.nn.group_norm: out must have shape \(2, 4, 3\), got \(2, 4\)"):
        gn({})(x, p4, p4, _nd(np.zeros((2, 4))))
    for dtype in (np.float64, np.float16, np.int32):
        with pytest.raises(TypeError, match=r"topi.nn.instance_norm: data must be float32, got "):
            inorm({})(_nd(np.zeros((2, 4, 3)), dtype), p4, p4, out)
    with pytest.raises(TypeError, match=r"topi.nn.group_norm: gamma must be float32, got float64"):
        gn({})(x, _nd(np.ones(4), np.float64), p4, out)
    with pytest.raises(TypeError, match=r"topi.nn.group_norm: out must be float32, got float16"):
        gn({})(x, p4, p4, _nd(np.zeros((2, 4, 3)), np.float16))
    with pytest.raises(ValueError, match=r"topi.nn.group_norm: num_groups must be positive, got 0"):
        gn({"num_groups": 0})
    with pytest.raises(ValueError, match=r"topi.nn.instance_norm: epsilon must be >= 0, got -1"):
        inorm({"epsilon": -1.0})
    with pytest.raises(ValueError, match=r"topi.nn.group_norm: stash_type must be float16, bfloat16, float32, "
                                         r"float64 or empty, got 'int8'"):
        gn({"stash_type": "int8"})
    with pytest.raises(TypeError, match=r"topi.nn.group_norm: attribute 'num_groups' must be an int"):
        gn({"num_groups": 2.5})
    with pytest.raises(TypeError, match=r"topi.nn.instance_norm: expected at least 4 tensor arguments"):
        inorm({})(x, p4, out)
    with pytest.raises(TypeError, match=r"topi.nn.group_norm: expected 4 tensor arguments \(data, gamma, beta, 0 "
                                        r"epilogue inputs, out\), got 5"):
        gn({})(x, p4, p4, p4, out)
    with pytest.raises(ValueError, match=r"topi.nn.instance_norm: "):
        inorm({"epilogue": "add r0 r0 in0"})(x, p4, p4, _nd(np.zeros((3, 1, 1))), out)


# ---------------------------------------------------------------------------------------------------------------
# LRN

LRN_SHAPES = [(1, 1, 5), (3, 3, 4, 5), (1, 16, 7, 9), (3, 33, 3, 2, 5), (2, 33), (1, 96, 11, 13), (1, 64, 300)]


@pytest.mark.parametrize("shape", LRN_SHAPES)
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 16, 17, 33, 100])
def test_lrn_matches_reference(isa, threads, rng, shape, size):
    x = _data(rng, shape)
    attrs = {"size": size, "axis": 1, "bias": 1.0, "alpha": 0.5, "beta": 0.75}
    want = get_reference("nn.lrn")(SimpleNamespace(**attrs), x)
    got = _run("topi.nn.lrn", attrs, x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("beta", [0.75, 0.5, 0.25, 1.0, 0.0, 0.6, 2.0, -0.5, 1.7])
@pytest.mark.parametrize("bias,alpha", [(2.0, 1e-4), (1.0, 0.3), (0.5, 2.0), (0.0, 1.0)])
@pytest.mark.parametrize("size", [5, 40])
def test_lrn_powers_and_constants(isa, threads, rng, beta, bias, alpha, size):
    x = _data(rng, (2, 45, 3, 17))
    x[0, :, 1, 2] = 0  # a zero window: bias 0 gives a zero base
    attrs = {"size": size, "axis": 1, "bias": bias, "alpha": alpha, "beta": beta}
    with np.errstate(all="ignore"):
        want = get_reference("nn.lrn")(SimpleNamespace(**attrs), x)
    got = _run("topi.nn.lrn", attrs, x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7, equal_nan=True)


@pytest.mark.parametrize("beta", [2.0, 3.0, 0.75, 0.5])
def test_lrn_negative_bases(isa, rng, beta):
    """A negative bias: integral powers of negative bases are real (pow's), fractional ones NaN."""
    x = _data(rng, (1, 8, 21))
    attrs = {"size": 3, "axis": 1, "bias": -2.0, "alpha": 0.1, "beta": beta}
    with np.errstate(all="ignore"):
        want = get_reference("nn.lrn")(SimpleNamespace(**attrs), x)
    got = _run("topi.nn.lrn", attrs, x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7, equal_nan=True)


@pytest.mark.parametrize("shape,axis", [((4, 7, 5), 0), ((4, 7, 5), 2), ((4, 7, 5), -1), ((3, 2, 9, 6), 2),
                                        ((3, 2, 9, 6), -1), ((23,), 0), ((5, 300, 2), 1)])
@pytest.mark.parametrize("size", [3, 4, 29])
def test_lrn_any_axis(isa, threads, rng, shape, axis, size):
    x = _data(rng, shape)
    attrs = {"size": size, "axis": axis, "bias": 1.5, "alpha": 0.2, "beta": 0.75}
    want = get_reference("nn.lrn")(SimpleNamespace(**attrs), x)
    np.testing.assert_allclose(_run("topi.nn.lrn", attrs, x), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("size", [5, 40])
def test_lrn_special_values(isa, threads, size):
    """inf and NaN reach exactly the windows that hold them (no running sum drags them further)."""
    rng = np.random.default_rng(2)
    x = _data(rng, (2, 50, 4, 3))
    x[0, 10, 1, 1] = np.inf
    x[0, 30, 1, 1] = -np.inf
    x[1, 3, 2, 0] = np.nan
    x[1, 40, 0, 2] = 3e20  # its square overflows float32
    attrs = {"size": size, "axis": 1, "bias": 1.0, "alpha": 0.5, "beta": 0.75}
    with np.errstate(all="ignore"):
        want = get_reference("nn.lrn")(SimpleNamespace(**attrs), x)
    got = _run("topi.nn.lrn", attrs, x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7, equal_nan=True)
    assert np.isnan(got).any() and np.isfinite(got[0, :, 0]).all()


def test_lrn_epilogue(threads, rng):
    x = _data(rng, (2, 16, 9, 10))
    bias = rng.standard_normal((16, 1, 1)).astype(np.float32)
    for size in (5, 20):
        attrs = {"size": size, "bias": 1.0, "alpha": 0.4, "beta": 0.75}
        want = get_reference("nn.lrn")(SimpleNamespace(axis=1, **attrs), x)
        got = _run("topi.nn.lrn", dict(attrs, epilogue="relu r0 r0"), x)
        np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-5, atol=1e-7)
        got = _run("topi.nn.lrn", dict(attrs, epilogue="add r0 r0 in0; relu r0 r0"), x, bias)
        np.testing.assert_allclose(got, np.maximum(want + bias, 0), rtol=1e-5, atol=1e-6)


def test_lrn_defaults_and_huge_size(rng):
    """Defaults are relay's (size 5, axis 1, bias 2, alpha 1e-4, beta 0.75); a size far beyond the channels sums
    them all without sizing anything by it."""
    x = _data(rng, (2, 7, 3))
    want = get_reference("nn.lrn")(SimpleNamespace(size=5, axis=1, bias=2.0, alpha=1e-4, beta=0.75), x)
    np.testing.assert_allclose(_run("topi.nn.lrn", {}, x), want, rtol=1e-6)
    big = 2 ** 62
    xs = x.astype(np.float64) ** 2
    total = xs.sum(axis=1, keepdims=True)
    want = x / (1.0 + (0.5 / big) * total) ** 0.75
    np.testing.assert_allclose(_run("topi.nn.lrn", {"size": big, "alpha": 0.5, "bias": 1.0}, x), want, rtol=1e-6)


def test_lrn_empty_tensors():
    for shape, axis in [((0, 4, 3), 1), ((2, 0, 3), 1), ((2, 4, 0), 1), ((0,), 0)]:
        assert _run("topi.nn.lrn", {"axis": axis}, np.zeros(shape, np.float32)).shape == shape


def test_lrn_bad_inputs():
    lrn = _get("topi.nn.lrn")
    x, out = _nd(np.zeros((2, 4, 3))), _nd(np.zeros((2, 4, 3)))
    with pytest.raises(ValueError, match=r"topi.nn.lrn: data must have rank >= 1, got a scalar"):
        lrn({})(_nd(np.zeros(())), _nd(np.zeros(())))
    with pytest.raises(ValueError, match=r"topi.nn.lrn: axis 3 is out of range for rank 3"):
        lrn({"axis": 3})(x, out)
    with pytest.raises(ValueError, match=r"topi.nn.lrn: axis -4 is out of range for rank 3"):
        lrn({"axis": -4})(x, out)
    with pytest.raises(ValueError, match=r"topi.nn.lrn: size must be positive, got 0"):
        lrn({"size": 0})
    with pytest.raises(ValueError, match=r"topi.nn.lrn: out must have shape \(2, 4, 3\), got \(2, 3, 4\)"):
        lrn({})(x, _nd(np.zeros((2, 3, 4))))
    for dtype in (np.float64, np.float16, np.int8):
        with pytest.raises(TypeError, match=r"topi.nn.lrn: data must be float32, got "):
            lrn({})(_nd(np.zeros((2, 4, 3)), dtype), out)
    with pytest.raises(TypeError, match=r"topi.nn.lrn: attribute 'beta' must be a float"):
        lrn({"beta": "high"})
    with pytest.raises(TypeError, match=r"topi.nn.lrn: expected 2 tensor arguments \(data, 0 epilogue inputs, "
                                        r"out\), got 3"):
        lrn({})(x, x, out)
    with pytest.raises(TypeError, match=r"topi.nn.lrn: expected at least 2 tensor arguments"):
        lrn({})(x)


# ---------------------------------------------------------------------------------------------------------------
# registration, lowered attrs, builds


def test_kernels_are_registered_for_their_ops():
    for op, kernel in [("nn.instance_norm", "topi.nn.instance_norm"), ("nn.group_norm", "topi.nn.group_norm"),
                       ("nn.lrn", "topi.nn.lrn")]:
        assert str(Op.get(op).get_attr("FTVMLiteKernel")) == kernel


def _graphs(rng):
    """(relay function, inputs, kernel) for each op: data, then gamma and beta as inputs."""
    shape = (2, 6, 9, 7)
    xv, gv, bv = relay.var("x", shape=shape), relay.var("g", shape=(6,)), relay.var("b", shape=(6,))
    x = _data(rng, shape)
    gamma, beta = _params(rng, 6)
    norm_inputs = {"x": x, "g": gamma, "b": beta}
    return [
        (relay.Function([xv, gv, bv], relay.nn.instance_norm(xv, gv, bv, epsilon=1e-3)), norm_inputs,
         "topi.nn.instance_norm"),
        (relay.Function([xv, gv, bv], relay.nn.group_norm(xv, gv, bv, num_groups=3, epsilon=1e-4)), norm_inputs,
         "topi.nn.group_norm"),
        (relay.Function([xv, gv, bv], relay.nn.group_norm(xv, gv, bv, num_groups=2, stash_type="float64")),
         norm_inputs, "topi.nn.group_norm"),
        (relay.Function([xv], relay.nn.lrn(xv, size=3, bias=1.0, alpha=0.3, beta=0.75)), {"x": x}, "topi.nn.lrn"),
        (relay.Function([xv], relay.nn.lrn(xv, size=4, axis=3, bias=2.0, alpha=1e-2, beta=0.6)), {"x": x},
         "topi.nn.lrn"),
    ]


def test_kernels_take_the_relay_attrs_as_lowered(rng):
    for func, inputs, kernel in _graphs(rng):
        call = func.body
        args = list(inputs.values())
        want = get_reference(call.op.name)(call.attrs, *args)
        np.testing.assert_allclose(_run(kernel, lowering_attrs(call), *args), want, rtol=1e-5, atol=2e-5)


def _build_run(func, inputs, target):
    lib = tvmlite.build(func, target=target)
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**inputs)
    gm.run()
    return lib, gm.get_output(0).numpy()


def _kernels(lib):
    return [n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]


@pytest.mark.parametrize("opt_level", [0, 3])
def test_cpu_build_runs_the_native_kernels(rng, opt_level):
    with tvmlite.transform.PassContext(opt_level=opt_level):
        for func, inputs, kernel in _graphs(rng):
            lib, got = _build_run(func, inputs, "cpu")
            _, want = _build_run(func, inputs, "debug")
            assert kernel in _kernels(lib)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)


def test_cpu_build_after_a_conv(rng):
    """conv2d -> instance_norm -> relu -> conv2d -> lrn at opt_level 3: AlterOpLayout blocks the convs, the norms get
    NCHW data and still run natively."""
    x = relay.var("x", shape=(1, 8, 12, 12))
    w1 = relay.const(rng.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2)
    w2 = relay.const(rng.standard_normal((16, 16, 1, 1)).astype(np.float32) * 0.2)
    gamma, beta = (relay.const(p) for p in _params(rng, 16))
    y = relay.nn.conv2d(x, w1, padding=(1, 1))
    y = relay.nn.relu(relay.nn.group_norm(y, gamma, beta, num_groups=4))
    y = relay.nn.instance_norm(relay.nn.conv2d(y, w2), gamma, beta)
    y = relay.nn.lrn(y, size=5, bias=1.0, alpha=0.1, beta=0.75)
    func = relay.Function([x], y)
    inputs = {"x": _data(rng, (1, 8, 12, 12))}
    with tvmlite.transform.PassContext(opt_level=3):
        lib, got = _build_run(func, inputs, "cpu")
    _, want = _build_run(func, inputs, "debug")
    names = _kernels(lib)
    assert {"topi.nn.group_norm", "topi.nn.instance_norm", "topi.nn.lrn"} <= set(names), names
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_cpu_build_other_dtypes_run_the_reference(rng):
    """float64 data: the kernels declare no .accepts (float32 only), so the group runs its reference."""
    shape = (2, 4, 5)
    xv, gv, bv = (relay.var(n, shape=s, dtype="float64") for n, s in [("x", shape), ("g", (4,)), ("b", (4,))])
    x = rng.standard_normal(shape)
    gamma, beta = rng.standard_normal(4), rng.standard_normal(4)
    for body, inputs in [(relay.nn.instance_norm(xv, gv, bv), {"x": x, "g": gamma, "b": beta}),
                         (relay.nn.group_norm(xv, gv, bv, num_groups=2), {"x": x, "g": gamma, "b": beta}),
                         (relay.nn.lrn(xv, size=3), {"x": x})]:
        params = [v for v in (xv, gv, bv) if v.name_hint in inputs]
        func = relay.Function(params, body)
        lib, got = _build_run(func, inputs, "cpu")
        _, want = _build_run(func, inputs, "debug")
        assert _kernels(lib) == ["relay.backend.reference"]
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12)
