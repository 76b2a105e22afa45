"""Reductions, scans and sorts, casts, low-precision dtypes and the math elementwise ops: types, errors, results.

Expected values are computed here with plain numpy (or written out), never with the op references.
"""
import ml_dtypes
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay


def _infer(expr):
    return relay.transform.InferType()(ir.IRModule.from_expr(expr))["main"].body


def _type(expr):
    return str(_infer(expr).checked_type)


def _fn(*params_and_body):
    *params, body = params_and_body
    return relay.Function(list(params), body)


# -- DataType names and ml_dtypes arrays ------------------------------------------------------------------------
@pytest.mark.parametrize("name, code, bits", [
    ("float8_e4m3fn", 10, 8), ("float8_e4m3", 8, 8), ("float8_e4m3fnuz", 11, 8), ("float8_e5m2", 12, 8),
    ("float8_e5m2fnuz", 13, 8), ("float8_e8m0fnu", 14, 8), ("float8_e3m4", 7, 8), ("float8_e4m3b11fnuz", 9, 8),
    ("float6_e2m3fn", 15, 6), ("float6_e3m2fn", 16, 6), ("float4_e2m1fn", 17, 4), ("bfloat16", 4, 16),
    ("int4", 0, 4), ("uint2", 1, 2)])
def test_data_type_names_round_trip_with_dlpack_codes(name, code, bits):
    t = tvmlite.runtime.DataType(name)
    assert (t.type_code, t.bits, t.lanes, str(t)) == (code, bits, 1, name)
    assert str(tvmlite.runtime.DataType(name + "x4")) == name + "x4"
    assert str(ir.TensorType((2, 3), name)) == f"Tensor[(2, 3), {name}]"


@pytest.mark.parametrize("bad", ["float8_e4m3fnx", "float8_e4m3fq", "float8_e4m3fnx0", "float8_", "float4_e2m1"])
def test_unknown_data_type_names_are_value_errors(bad):
    with pytest.raises(ValueError, match="unknown data type"):
        tvmlite.runtime.DataType(bad)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2,
                                   ml_dtypes.float8_e8m0fnu, ml_dtypes.float4_e2m1fn, ml_dtypes.int4,
                                   ml_dtypes.uint4])
def test_ml_dtypes_constants_keep_their_bytes(dtype):
    x = np.array([[1, 2], [0.5, 4]], np.float32).astype(dtype)
    c = relay.const(x)
    back = c.data.numpy()
    assert back.dtype == x.dtype and back.shape == (2, 2)
    np.testing.assert_array_equal(back.view(f"u{x.dtype.itemsize}"), x.view(f"u{x.dtype.itemsize}"))
    assert str(_infer(c).checked_type) == f"Tensor[(2, 2), {np.dtype(dtype).name}]"


def test_standard_numpy_arrays_are_unchanged_and_views_check_sizes():
    a = tvmlite.nd.array(np.arange(6, dtype="int16").reshape(2, 3))
    assert a.dtype == "int16" and a.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert tvmlite.nd.array([1.5]).dtype == "float32"
    view = tvmlite.get_global_func("runtime.NDArrayCreateView")
    assert np.from_dlpack(view(a, [3, 2], "uint16")).tolist() == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(ValueError, match="CreateView"):
        view(a, [4], "int16")
    with pytest.raises(ValueError):
        view(a, [-1, 3], "int16")
    b = tvmlite.nd.array(np.zeros(3, ml_dtypes.bfloat16))
    b.copyfrom(np.array([1, 2, 3], ml_dtypes.bfloat16))
    assert b.numpy().astype(np.float32).tolist() == [1, 2, 3]


# -- reductions ----------------------------------------------------------------------------------------------
def test_reduction_types():
    x = relay.var("x", shape=(2, 3, 4))
    assert _type(relay.sum(x, axis=1)) == "Tensor[(2, 4), float32]"
    assert _type(relay.mean(x, axis=[0, -1], keepdims=True)) == "Tensor[(1, 3, 1), float32]"
    assert _type(relay.max(x)) == "Tensor[(), float32]"
    assert _type(relay.prod(x, axis=[1], exclude=True)) == "Tensor[(3,), float32]"
    assert _type(relay.sum_square(x, axis=[])) == "Tensor[(2, 3, 4), float32]"
    assert _type(relay.argmax(x, axis=[1], keepdims=True)) == "Tensor[(2, 1, 4), int64]"
    n = ir.SizeVar("n")
    y = relay.var("y", shape=(n, 5), dtype="int32")
    assert _type(relay.min(y, axis=1)) == "Tensor[(n,), int32]"
    assert _type(relay.det(relay.var("m", shape=(n, 3, 3)))) == "Tensor[(n,), float32]"


def test_dyn_reduction_types():
    x = relay.var("x", shape=(2, 1, 4))
    axes = relay.var("axes", shape=(2,), dtype="int64")
    assert _type(relay.sum(x, axis=axes, keepdims=True)) == "Tensor[(?, 1, ?), float32]"
    assert _type(relay.sum(x, axis=axes)) == "Tensor[(?,), float32]"
    unknown = relay.var("u", shape=(ir.Any(),), dtype="int64")
    with pytest.raises(ValueError, match="static length"):
        _infer(relay.sum(x, axis=unknown))


@pytest.mark.parametrize("build, err, msg", [
    (lambda x: relay.sum(x, axis=3), IndexError, r"sum: axis 3 is out of range for rank 3 \(valid: \[-3, 2\]\)"),
    (lambda x: relay.max(x, axis=[1, -2]), ValueError, "axis -2 is listed twice"),
    (lambda x: relay.argmin(x, axis=-4), IndexError, "out of range for rank 3"),
    (lambda x: relay.det(x), ValueError, r"square matrices, got shape \(2, 3, 4\)"),
    (lambda x: relay.topk(x, k=5, axis=1), ValueError, r"k = 5 is larger than axis 1 of shape \(2, 3, 4\)"),
    (lambda x: relay.cumsum(x, axis=7), IndexError, "axis 7 is out of range for rank 3"),
    (lambda x: relay.reinterpret(x, "int16"), TypeError, "same width"),
    (lambda x: relay.power(x, relay.const(np.array([True]))), TypeError, "numeric operands"),
])
def test_relation_errors_name_the_problem(build, err, msg):
    x = relay.var("x", shape=(2, 3, 4))
    with pytest.raises(err, match=msg):
        _infer(build(x))


def test_reduction_results(run_relay, rng):
    xv = rng.standard_normal((2, 3, 4)).astype("float32")
    x = relay.var("x", shape=(2, 3, 4))
    body = relay.Tuple([relay.sum(x, axis=[0, 2]), relay.l2_norm(x, axis=1, keepdims=True),
                        relay.logsumexp(x, axis=-1), relay.sum_square(x, axis=[]), relay.l1_norm(x, axis=[1],
                                                                                                 exclude=True)])
    s, l2, lse, sq, l1 = run_relay(_fn(x, body), [xv])
    np.testing.assert_allclose(s, xv.sum(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(l2, np.sqrt((xv * xv).sum(axis=1, keepdims=True)), rtol=1e-5)
    np.testing.assert_allclose(lse, np.log(np.exp(xv).sum(axis=-1)), rtol=1e-5)
    np.testing.assert_allclose(sq, xv * xv, rtol=1e-6)
    np.testing.assert_allclose(l1, np.abs(xv).sum(axis=(0, 2)), rtol=1e-5)


def test_logsumexp_is_stable_and_empty_sets_give_identities(run_relay):
    x = relay.var("x", shape=(2,))
    (big,) = run_relay(_fn(x, relay.logsumexp(x)), [np.array([1000, 1000], "float32")])
    np.testing.assert_allclose(big, 1000 + np.log(2), rtol=1e-6)
    e = relay.var("e", shape=(2, 0))
    outs = run_relay(_fn(e, relay.Tuple([relay.max(e, axis=1), relay.min(e, axis=1), relay.sum(e, axis=1),
                                         relay.prod(e, axis=1), relay.log_sum(e, axis=1)])),
                     [np.zeros((2, 0), "float32")])
    assert [o.tolist() for o in outs] == [[-np.inf] * 2, [np.inf] * 2, [0, 0], [1, 1], [-np.inf] * 2]
    b = relay.var("b", shape=(0,), dtype="int8")
    (m,) = run_relay(_fn(b, relay.max(b)), [np.zeros(0, "int8")])
    assert m == -128


def test_argmax_ties_and_several_axes(run_relay):
    x = relay.var("x", shape=(2, 4), dtype="int32")
    xv = np.array([[3, 7, 7, 1], [5, 5, 2, 5]], "int32")
    first, last, flat = run_relay(_fn(x, relay.Tuple([relay.argmax(x, axis=1), relay.argmax(x, axis=1,
                                                                                      select_last_index=True),
                                                      relay.argmin(x, axis=[0, 1])])), [xv])
    assert first.tolist() == [1, 0] and last.tolist() == [2, 3] and flat == 3 and flat.dtype == np.int64


def test_dyn_reduction_runs_with_axes_from_an_input(run_relay, rng):
    xv = rng.standard_normal((2, 3, 4)).astype("float32")
    x, axes = relay.var("x", shape=(2, 3, 4)), relay.var("axes", shape=(2,), dtype="int64")
    (out,) = run_relay(_fn(x, axes, relay.mean(x, axis=axes)), [xv, np.array([0, -1])])
    np.testing.assert_allclose(out, xv.mean(axis=(0, 2)), rtol=1e-5)


def test_det(run_relay):
    m = relay.var("m", shape=(2, 2, 2))
    mv = np.array([[[1, 2], [3, 4]], [[2, 0], [0, 3]]], "float32")
    (out,) = run_relay(_fn(m, relay.det(m)), [mv])
    np.testing.assert_allclose(out, [-2, 6], rtol=1e-5)


# -- scans and sorts ------------------------------------------------------------------------------------------
def test_cumsum_cumprod(run_relay):
    x = relay.var("x", shape=(2, 3), dtype="int32")
    xv = np.array([[1, 2, 3], [4, 5, 6]], "int32")
    plain, excl, rev, prod, flat = run_relay(_fn(x, relay.Tuple([
        relay.cumsum(x, axis=1), relay.cumsum(x, axis=1, exclusive=True),
        relay.cumsum(x, axis=0, exclusive=True, reverse=True), relay.cumprod(x, axis=1), relay.cumsum(x)])), [xv])
    assert plain.tolist() == [[1, 3, 6], [4, 9, 15]] and plain.dtype == np.int32
    assert excl.tolist() == [[0, 1, 3], [0, 4, 9]]
    assert rev.tolist() == [[4, 5, 6], [0, 0, 0]]
    assert prod.tolist() == [[1, 2, 6], [4, 20, 120]]
    assert flat.tolist() == [1, 3, 6, 10, 15, 21]
    a = relay.var("a", shape=(), dtype="int64")
    assert _type(relay.cumsum(x, axis=a)) == "Tensor[(2, 3), int32]"
    (dyn,) = run_relay(_fn(x, a, relay.cumsum(x, axis=a, reverse=True)), [xv, np.array(0)])
    assert dyn.tolist() == [[5, 7, 9], [4, 5, 6]]


def test_topk_orders_ties_by_lower_index(run_relay):
    x = relay.var("x", shape=(1, 5), dtype="uint64")
    xv = np.array([[2, 9, 2, 9, 1]], "uint64")
    big, small = run_relay(_fn(x, relay.Tuple([relay.topk(x, k=3), relay.topk(x, k=3, is_ascend=True)])), [xv])
    assert big[0].tolist() == [[9, 9, 2]] and big[1].tolist() == [[1, 3, 0]]
    assert small[0].tolist() == [[1, 2, 2]] and small[1].tolist() == [[4, 0, 2]]
    k = relay.var("k", shape=(1,), dtype="int64")
    assert _type(relay.topk(x, k=k)) == "(Tensor[(1, ?), uint64], Tensor[(1, ?), int64])"


def test_unique_sorted_and_first_occurrence(run_relay):
    x = relay.var("x", shape=(6,))
    xv = np.array([2, 1, 1, 3, 4, 3], "float32")
    (srt, occ) = run_relay(_fn(x, relay.Tuple([relay.unique(x), relay.unique(x, sorted=False)])), [xv])
    assert [a.tolist() for a in srt] == [[1, 2, 3, 4], [1, 0, 3, 4], [1, 0, 0, 2, 3, 2], [2, 1, 2, 1]]
    assert [a.tolist() for a in occ] == [[2, 1, 3, 4], [0, 1, 3, 4], [0, 1, 1, 2, 3, 2], [1, 2, 2, 1]]
    m = relay.var("m", shape=(3, 2), dtype="int32")
    (y, idx, inv, cnt) = run_relay(_fn(m, relay.unique(m, axis=0)), [np.array([[1, 0], [1, 0], [0, 5]], "int32")])
    assert y.tolist() == [[0, 5], [1, 0]] and inv.tolist() == [1, 1, 0] and cnt.tolist() == [1, 2]


# -- elementwise and casts --------------------------------------------------------------------------------------
def test_power_takes_the_base_dtype(run_relay):
    a, b = relay.var("a", shape=(3,), dtype="int32"), relay.var("b", shape=(3,), dtype="float32")
    assert _type(relay.power(a, b)) == "Tensor[(3,), int32]"
    (out,) = run_relay(_fn(a, b, relay.power(a, b)), [np.array([2, 3, 4], "int32"), np.array([2, 0.5, -1],
                                                                                              "float32")])
    assert out.dtype == np.int32 and out.tolist() == [4, 1, 0]


def test_mod_floor_and_fmod_and_isinf(run_relay):
    a, b = relay.var("a", shape=(4,), dtype="int32"), relay.var("b", shape=(4,), dtype="int32")
    av, bv = np.array([-7, 7, -7, 7], "int32"), np.array([3, -3, -3, 3], "int32")
    floor, trunc = run_relay(_fn(a, b, relay.Tuple([relay.floor_mod(a, b), relay.mod(a, b)])), [av, bv])
    assert floor.tolist() == [2, -2, -1, 1] and trunc.tolist() == [-1, 1, -1, 1]
    f = relay.var("f", shape=(4,))
    (inf,) = run_relay(_fn(f, relay.isinf(f)), [np.array([np.inf, -np.inf, np.nan, 1], "float32")])
    assert inf.tolist() == [True, True, False, False]


def test_cast_to_float8_saturates_or_not(run_relay):
    x = relay.var("x", shape=(4,))
    xv = np.array([1e5, -np.inf, np.nan, 0.3], "float32")
    sat, nosat, e5 = run_relay(_fn(x, relay.Tuple([relay.cast(x, "float8_e4m3fn"),
                                                    relay.cast(x, "float8_e4m3fn", saturate=False),
                                                    relay.cast(x, "float8_e5m2", saturate=False)])), [xv])
    assert sat.dtype == ml_dtypes.float8_e4m3fn
    assert sat.astype(np.float32)[:2].tolist() == [448, -448] and np.isnan(float(sat[2]))
    assert np.isnan(nosat.astype(np.float32)[:3]).all()
    assert e5.astype(np.float32)[:2].tolist() == [np.inf, -np.inf]
    assert float(sat[3]) == 0.3125  # 0.3 rounds to the nearest e4m3 value


def test_cast_to_e8m0_rounds_the_exponent(run_relay):
    x = relay.var("x", shape=(3,))
    xv = np.array([3.0, 1.5, 4.0], "float32")
    up, down, near = run_relay(_fn(x, relay.Tuple([relay.cast(x, "float8_e8m0fnu"),
                                                   relay.cast(x, "float8_e8m0fnu", round_mode="down"),
                                                   relay.cast(x, "float8_e8m0fnu", round_mode="nearest")])), [xv])
    assert up.astype(np.float32).tolist() == [4, 2, 4]
    assert down.astype(np.float32).tolist() == [2, 1, 4]
    assert near.astype(np.float32).tolist() == [4, 2, 4]
    with pytest.raises(ValueError, match="round_mode must be up, down or nearest"):
        _infer(relay.cast(x, "float8_e8m0fnu", round_mode="sideways"))


def test_cast_int4_wraps_and_cast_like_and_reinterpret(run_relay):
    x = relay.var("x", shape=(4,))
    like = relay.var("like", shape=(1,), dtype="int8")
    xv = np.array([7, 8, -9, 2.7], "float32")
    i4, i8 = run_relay(_fn(x, like, relay.Tuple([relay.cast(x, "int4"), relay.cast_like(x, like)])),
                       [xv, np.zeros(1, "int8")])
    assert i4.dtype == ml_dtypes.int4 and i4.astype(np.int32).tolist() == [7, -8, 7, 2]
    assert i8.dtype == np.int8 and i8.tolist() == [7, 8, -9, 2]
    (bits,) = run_relay(_fn(x, relay.reinterpret(x, "int32")), [xv])
    assert bits.tolist() == xv.view("int32").tolist()
    with pytest.raises(TypeError, match="scalar tensor dtype"):
        _infer(relay.cast(x, "handle"))


@pytest.mark.parametrize("op", [relay.argmax, relay.argmin])
def test_arg_reduce_with_a_kept_dim_of_zero(op, run_relay):
    """(0, 3) over axis 1 is numpy's (0,): the reference reshaped to (0, -1), which numpy cannot resolve."""
    x = relay.var("x", shape=(0, 3))
    got = run_relay(relay.Function([x], op(x, axis=[1])), {"x": np.zeros((0, 3), "float32")})[0]
    assert got.shape == (0,) and got.dtype == np.int64
