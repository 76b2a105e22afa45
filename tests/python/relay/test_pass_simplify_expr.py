"""SimplifyExpr: GELU written with Erf (x * 0.5 * (1 + erf(x / sqrt 2)), as BERT exports spell it, in any nesting
and operand order) becomes nn.gelu(x), with the debug executor's values; near misses stay as they are; cast_like
becomes cast; a transpose of the last two dims into a matmul folds into its transpose flag."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay.backend import cpu_pipeline

SQRT2 = np.sqrt(2.0)


def c(value, shape=(), dtype="float32"):
    return relay.const(np.full(shape, value, dtype))


def scaled(x, form):
    return relay.divide(x, c(SQRT2)) if form == "div" else relay.multiply(c(1 / SQRT2), x)


# Each builds the product from x and s = 1 + erf(x / sqrt 2).
PRODUCTS = {
    "bert": lambda x, s: relay.multiply(relay.multiply(x, s), c(0.5)),
    "half_first": lambda x, s: relay.multiply(c(0.5), relay.multiply(s, x)),
    "half_x": lambda x, s: relay.multiply(relay.multiply(x, c(0.5)), s),
    "s_half": lambda x, s: relay.multiply(x, relay.multiply(s, c(0.5))),
}


def gelu_module(shape, product="bert", form="div", one_first=False):
    x = relay.var("x", shape=shape)
    erf = relay.erf(scaled(x, form))
    s = relay.add(c(1.0), erf) if one_first else relay.add(erf, c(1.0))
    return ir.IRModule.from_expr(relay.Function([x], PRODUCTS[product](x, s)))


def check_rewritten(op_names, run_relay, rng, mod, shape):
    out = relay.transform.SimplifyExpr()(mod)
    assert op_names(out) == ["nn.gelu"]
    assert out["main"].body.attrs.approximate == "none"
    x = (rng.standard_normal(shape) * 3).astype("float32")
    np.testing.assert_allclose(run_relay(out, {"x": x})[0], run_relay(mod, {"x": x})[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("product", sorted(PRODUCTS))
@pytest.mark.parametrize("form", ["div", "mul"])
@pytest.mark.parametrize("one_first", [False, True])
def test_erf_gelu_becomes_nn_gelu(op_names, run_relay, rng, product, form, one_first):
    check_rewritten(op_names, run_relay, rng, gelu_module((4, 37), product, form, one_first), (4, 37))


def test_one_element_constants_of_rank_one(op_names, run_relay, rng):
    """ONNX initializers are often (1,): they broadcast to x's shape, so the product is still x's shape."""
    x = relay.var("x", shape=(2, 8))
    s = relay.add(relay.erf(relay.divide(x, c(SQRT2, (1,)))), c(1.0, (1,)))
    body = relay.multiply(relay.multiply(x, s), c(0.5, (1,)))
    check_rewritten(op_names, run_relay, rng, ir.IRModule.from_expr(relay.Function([x], body)), (2, 8))


def _unchanged(op_names, mod):
    out = relay.transform.SimplifyExpr()(mod)
    assert "nn.gelu" not in op_names(out) and "erf" in op_names(out)


def test_near_misses_stay(op_names):
    x = relay.var("x", shape=(3, 5))
    y = relay.var("y", shape=(3, 5))
    one_plus_erf = relay.add(relay.erf(relay.divide(x, c(SQRT2))), c(1.0))
    cases = [
        ([x], relay.multiply(relay.multiply(x, one_plus_erf), c(0.4))),                           # not 0.5
        ([x, y], relay.multiply(relay.multiply(y, one_plus_erf), c(0.5))),                         # another x
        ([x], relay.multiply(relay.multiply(x, relay.add(relay.erf(relay.divide(x, c(2.0))), c(1.0))), c(0.5))),
        ([x], relay.multiply(relay.multiply(x, relay.add(relay.erf(relay.divide(x, c(SQRT2))), c(2.0))), c(0.5))),
        ([x], relay.multiply(relay.multiply(x, relay.subtract(c(1.0), relay.erf(relay.divide(x, c(SQRT2))))),
                             c(0.5))),
        ([x], relay.multiply(x, one_plus_erf)),                                                     # no 0.5
    ]
    for params, body in cases:
        _unchanged(op_names, ir.IRModule.from_expr(relay.Function(params, body)))


def test_a_broadcasting_constant_that_widens_the_shape_stays(op_names):
    """0.5 of shape (1, 1, 1) makes the product rank 3 where x is rank 2: nn.gelu(x) would change the type."""
    x = relay.var("x", shape=(3, 5))
    s = relay.add(relay.erf(relay.divide(x, c(SQRT2))), c(1.0))
    body = relay.multiply(relay.multiply(x, s), c(0.5, (1, 1, 1)))
    _unchanged(op_names, ir.IRModule.from_expr(relay.Function([x], body)))


def test_float64_stays(op_names):
    x = relay.var("x", shape=(3, 5), dtype="float64")
    s = relay.add(relay.erf(relay.divide(x, c(SQRT2, dtype="float64"))), c(1.0, dtype="float64"))
    body = relay.multiply(relay.multiply(x, s), c(0.5, dtype="float64"))
    _unchanged(op_names, ir.IRModule.from_expr(relay.Function([x], body)))


def test_shared_intermediate_keeps_its_other_use(op_names, run_relay, rng):
    """The erf also feeds a second output: the GELU becomes nn.gelu, the erf stays for the other user."""
    x = relay.var("x", shape=(2, 6))
    erf = relay.erf(relay.divide(x, c(SQRT2)))
    gelu = relay.multiply(relay.multiply(x, relay.add(erf, c(1.0))), c(0.5))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.Tuple([gelu, relay.multiply(erf, c(3.0))])))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["divide", "erf", "multiply", "nn.gelu"]
    xv = rng.standard_normal((2, 6)).astype("float32")
    for got, want in zip(run_relay(out, {"x": xv}), run_relay(mod, {"x": xv})):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_cast_like_becomes_cast_to_the_like_dtype(run_relay, op_names):
    """cast_like has no kernel; the typed graph knows like's dtype, so it is cast (with saturate kept)."""
    x, like = relay.var("x", shape=(2, 3)), relay.var("like", shape=(4,), dtype="int32")
    mod = ir.IRModule.from_expr(relay.Function([x, like], relay.cast_like(relay.tanh(x), like, saturate=False)))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["cast", "tanh"]
    assert out["main"].body.attrs.dtype == "int32" and not out["main"].body.attrs.saturate
    xv = np.linspace(-3, 3, 6, dtype="float32").reshape(2, 3) * 4
    feeds = {"x": xv, "like": np.zeros(4, "int32")}
    np.testing.assert_array_equal(run_relay(out, feeds)[0], run_relay(mod, feeds)[0])


# The transpose fold: nn.matmul / nn.batch_matmul of transpose(x, swap of the last two dims) reads x as it is.
def _attention_scores(q_shape, k_shape, axes=(0, 1, 3, 2)):
    """q @ transpose(k, axes), as attention exports spell q @ K^T."""
    q, k = relay.var("q", shape=q_shape), relay.var("k", shape=k_shape)
    return ir.IRModule.from_expr(relay.Function([q, k], relay.nn.matmul(q, relay.transpose(k, axes))))


def test_transpose_of_the_last_two_dims_folds_into_transpose_b(op_names):
    out = relay.transform.SimplifyExpr()(_attention_scores((1, 6, 1, 64), (1, 6, 33, 64)))
    assert op_names(out) == ["nn.matmul"]
    body = out["main"].body
    assert body.attrs.transpose_b and not body.attrs.transpose_a
    assert body.args[1].name_hint == "k"
    assert tuple(int(d) for d in body.checked_type.shape) == (1, 6, 1, 33)


@pytest.mark.parametrize("axes", [(0, 1, -1, -2), None])
def test_negative_and_reversed_axes_fold(op_names, axes):
    """[0, 1, -1, -2] is the same swap; no axes reverses them, the swap at rank 2 only."""
    if axes is None:
        a, b = relay.var("a", shape=(5, 7)), relay.var("b", shape=(3, 7))
        mod = ir.IRModule.from_expr(relay.Function([a, b], relay.nn.matmul(a, relay.transpose(b))))
    else:
        mod = _attention_scores((2, 3, 5, 8), (2, 3, 9, 8), axes)
    out = relay.transform.SimplifyExpr()(mod)
    assert op_names(out) == ["nn.matmul"] and out["main"].body.attrs.transpose_b


def test_left_operand_and_existing_flags_flip(op_names, rng):
    """transpose(a) folds into transpose_a; a transpose into an operand already flagged cancels the flag."""
    a, b = relay.var("a", shape=(4, 8, 5)), relay.var("b", shape=(4, 8, 6))
    body = relay.nn.matmul(relay.transpose(a, (0, 2, 1)), relay.transpose(b, (0, 2, 1)), transpose_b=True)
    mod = ir.IRModule.from_expr(relay.Function([a, b], body))
    out = relay.transform.SimplifyExpr()(mod)
    assert op_names(out) == ["nn.matmul"]
    assert out["main"].body.attrs.transpose_a and not out["main"].body.attrs.transpose_b
    av, bv = rng.standard_normal((4, 8, 5)).astype("float32"), rng.standard_normal((4, 8, 6)).astype("float32")
    want = np.swapaxes(av, -1, -2).astype(np.float64) @ bv.astype(np.float64)
    np.testing.assert_allclose(_run_cpu(mod, {"a": av, "b": bv}), want, rtol=1e-4, atol=1e-4)


def test_transposed_a_against_a_constant_b_stays(op_names, rng):
    """matmul(transpose(x), W) with W constant becomes a packed dense, which has no transpose_a: the transpose stays
    (the layout pass packs W once instead of nn.matmul packing it every call)."""
    x = relay.var("x", shape=(2, 16, 5))
    w = relay.const(rng.standard_normal((16, 24)).astype("float32"))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.nn.matmul(relay.transpose(x, (0, 2, 1)), w)))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["nn.matmul", "transpose"] and not out["main"].body.attrs.transpose_a


def test_batch_matmul_folds(op_names):
    """nn.batch_matmul defaults to transpose_b: a y transposed into (B, K, N) folds back to it."""
    x, y = relay.var("x", shape=(3, 5, 8)), relay.var("y", shape=(3, 6, 8))
    body = relay.nn.batch_matmul(x, relay.transpose(y, (0, 2, 1)), transpose_b=False)
    out = relay.transform.SimplifyExpr()(ir.IRModule.from_expr(relay.Function([x, y], body)))
    assert op_names(out) == ["nn.batch_matmul"] and out["main"].body.attrs.transpose_b


@pytest.mark.parametrize("axes,rest", [((0, 2, 3, 1), [0, 2, 1, 3]), ((1, 0, 3, 2), [1, 0, 2, 3])])
def test_a_swap_after_a_row_copy_folds_leaving_the_copy(op_names, rng, axes, rest):
    """BERT's K^T is one transpose of (B, S, H, D) by [0, 2, 3, 1]: the swap of the last two dims folds into
    transpose_b, [0, 2, 1, 3] (a copy of whole D rows) stays; likewise a batch-dim swap with it."""
    k_shape = tuple((2, 3, 8, 5)[i] for i in np.argsort(axes))  # k transposed by axes is (2, 3, 8, 5)
    mod = _attention_scores((2, 3, 4, 8), k_shape, axes)
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["nn.matmul", "transpose"]
    body = out["main"].body
    assert body.attrs.transpose_b and [int(a) for a in body.args[1].attrs.axes] == rest
    feeds = {"q": rng.standard_normal((2, 3, 4, 8)).astype("float32"),
             "k": rng.standard_normal(k_shape).astype("float32")}
    want = feeds["q"].astype(np.float64) @ np.transpose(feeds["k"], axes).astype(np.float64)
    np.testing.assert_allclose(_run_cpu(mod, feeds), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axes", [(0, 2, 1, 3), (0, 1, 2, 3), (0, 3, 2, 1)])
def test_other_permutations_stay(op_names, axes):
    """A transpose whose last step is not the swap, or whose rest would still move the innermost dim, stays."""
    k_shape = tuple((1, 6, 8, 8)[i] for i in np.argsort(axes))  # k transposed by axes is (1, 6, 8, 8)
    out = relay.transform.SimplifyExpr()(_attention_scores((1, 6, 3, 8), k_shape, axes))
    assert sorted(op_names(out)) == ["nn.matmul", "transpose"]
    assert not out["main"].body.attrs.transpose_b


def test_transpose_with_another_consumer_stays(op_names):
    """K^T also feeds a second output: it is computed anyway, and the product keeps reading it."""
    q, k = relay.var("q", shape=(2, 1, 8)), relay.var("k", shape=(2, 5, 8))
    kt = relay.transpose(k, (0, 2, 1))
    mod = ir.IRModule.from_expr(relay.Function([q, k], relay.Tuple([relay.nn.matmul(q, kt), kt])))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["nn.matmul", "transpose"]
    assert not out["main"].body.fields[0].attrs.transpose_b


def _scaled_scores(scale, q_shape=(1, 6, 3, 8), k_shape=(1, 6, 5, 8)):
    """q @ (transpose(k) * scale), as optimum's Whisper export spells it (scale 1)."""
    q, k = relay.var("q", shape=q_shape), relay.var("k", shape=k_shape)
    kt = relay.multiply(relay.transpose(k, (0, 1, 3, 2)), scale)
    return ir.IRModule.from_expr(relay.Function([q, k], relay.nn.matmul(q, kt)))


def test_scaled_transpose_folds_the_scale_onto_the_product(op_names, rng):
    """K^T times 1 reads K as it is; times 0.35 too, the 0.35 multiplying the product instead."""
    out = relay.transform.SimplifyExpr()(_scaled_scores(c(1.0)))
    assert op_names(out) == ["nn.matmul"] and out["main"].body.attrs.transpose_b
    mod = _scaled_scores(c(0.35, (1,)))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["multiply", "nn.matmul"]
    assert out["main"].body.args[0].attrs.transpose_b
    feeds = {"q": rng.standard_normal((1, 6, 3, 8)).astype("float32"),
             "k": rng.standard_normal((1, 6, 5, 8)).astype("float32")}
    want = feeds["q"].astype(np.float64) @ (np.swapaxes(feeds["k"], -1, -2).astype(np.float64) * np.float32(0.35))
    np.testing.assert_allclose(_run_cpu(mod, feeds), want, rtol=1e-5, atol=1e-5)


def test_scale_computed_at_run_time_folds_onto_the_product(op_names, rng):
    """A one-element scale that is not a constant yet (BERT's comes from Shape ops until DynamicToStatic) moves too."""
    q, k, s = relay.var("q", shape=(2, 4, 8)), relay.var("k", shape=(2, 5, 8)), relay.var("s", shape=(1,))
    body = relay.nn.matmul(q, relay.multiply(relay.sqrt(s), relay.transpose(k, (0, 2, 1))))
    mod = ir.IRModule.from_expr(relay.Function([q, k, s], body))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["multiply", "nn.matmul", "sqrt"]
    feeds = {"q": rng.standard_normal((2, 4, 8)).astype("float32"),
             "k": rng.standard_normal((2, 5, 8)).astype("float32"), "s": np.array([0.125], "float32")}
    want = feeds["q"].astype(np.float64) @ np.swapaxes(feeds["k"], -1, -2).astype(np.float64) * np.sqrt(0.125)
    np.testing.assert_allclose(_run_cpu(mod, feeds), want, rtol=1e-5, atol=1e-5)


def test_scales_that_do_not_fold_stay(op_names):
    """A scale that is not one element, that widens the product's rank, or that is not finite keeps the transpose."""
    for scale in [c(0.5, (1, 6, 8, 1)), c(0.5, (1, 1, 1, 1, 1)), c(np.inf)]:
        out = relay.transform.SimplifyExpr()(_scaled_scores(scale))
        assert sorted(op_names(out)) == ["multiply", "nn.matmul", "transpose"]


def test_scaled_transpose_with_another_consumer_stays(op_names):
    q, k = relay.var("q", shape=(2, 1, 8)), relay.var("k", shape=(2, 5, 8))
    kt = relay.multiply(relay.transpose(k, (0, 2, 1)), c(1.0))
    mod = ir.IRModule.from_expr(relay.Function([q, k], relay.Tuple([relay.nn.matmul(q, kt), kt])))
    out = relay.transform.SimplifyExpr()(mod)
    assert sorted(op_names(out)) == ["multiply", "nn.matmul", "transpose"]


def test_symbolic_dims_fold(op_names):
    """The axes decide, not the dims: batch and past length symbolic, the result keeps them."""
    b, p = ir.SizeVar("batch"), ir.SizeVar("past")
    out = relay.transform.SimplifyExpr()(_attention_scores((b, 6, 1, 64), (b, 6, p, 64)))
    assert op_names(out) == ["nn.matmul"] and out["main"].body.attrs.transpose_b
    shape = out["main"].body.checked_type.shape
    assert [d.name_hint if isinstance(d, ir.SizeVar) else int(d) for d in shape] == ["batch", 6, 1, "past"]


@pytest.mark.parametrize("q_shape,k_shape", [
    ((1, 6, 1, 64), (1, 6, 33, 64)),      # a decode step: one row per head
    ((2, 12, 16, 64), (2, 12, 16, 64)),   # BERT-like scores
    ((1, 4, 7, 24), (1, 4, 130, 24)),     # N past the in-place width, K and M not multiples of a vector
    ((3, 1, 5, 8), (1, 2, 9, 8)),         # batch dims broadcast both ways
])
def test_folded_scores_build_and_match_numpy(op_names, rng, q_shape, k_shape):
    """The cpu build of q @ transpose(k) has no transpose left and computes numpy's q @ k^T (a NaN stays in its
    row)."""
    mod = _attention_scores(q_shape, k_shape)
    assert "transpose" not in op_names(cpu_pipeline.optimize(relay.transform.InferType()(mod)))
    q = rng.standard_normal(q_shape).astype("float32")
    k = rng.standard_normal(k_shape).astype("float32")
    q[0, 0, 0, 0] = np.nan
    got = _run_cpu(mod, {"q": q, "k": k})
    want = q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert np.isnan(got[0, 0, 0]).all() and not np.isnan(got[..., 1:, :]).any()


def test_folded_scores_with_symbolic_dims_run_every_shape(op_names, rng):
    """One build with batch and past length symbolic serves a decode step at several past lengths and a prompt."""
    b, s, p = ir.SizeVar("batch"), ir.SizeVar("seq"), ir.SizeVar("past")
    mod = _attention_scores((b, 6, s, 64), (b, 6, p, 64))
    assert "transpose" not in op_names(cpu_pipeline.optimize(relay.transform.InferType()(mod)))
    lib = tvmlite.build(mod, target="cpu")
    assert lib.fallbacks() == []
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for bs, sl, pl in [(1, 1, 1), (1, 1, 32), (2, 1, 100), (1, 16, 16), (2, 5, 300)]:
        q = rng.standard_normal((bs, 6, sl, 64)).astype("float32")
        k = rng.standard_normal((bs, 6, pl, 64)).astype("float32")
        gm.set_input(q=q, k=k)
        gm.run()
        want = q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64)
        np.testing.assert_allclose(gm.get_output(0).numpy(), want, rtol=1e-4, atol=1e-4)


def _run_cpu(mod, feeds):
    lib = tvmlite.build(mod, target="cpu")
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**feeds)
    gm.run()
    return gm.get_output(0).numpy()
