"""Shape arithmetic over symbolic dims becomes static ops (DynamicToStatic with shape values, shape_value.h): the
exporters' Shape -> Gather -> Unsqueeze -> Concat -> Reshape makes a static reshape whose result keeps the input's
named dims; a dense's view back to (batch, seq, n) becomes reshape + reshape_like; a buffer sliced to a sequence
length becomes slice_like; a broadcast to a shape of the input's own dims a static broadcast_to. Each rewrite runs
the same as the dyn op at several shapes (debug executor and cpu build), and what cannot be proved stays dynamic.
"""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay import transform

B, S = ir.SizeVar("batch"), ir.SizeVar("seq")


def _dims(ty):
    return [d.name_hint if isinstance(d, ir.SizeVar) else int(d) for d in ty.shape]


def _ops(mod, op_names):
    return [n for n in op_names(mod) if n not in ("shape_of", "take", "expand_dims", "concatenate")]


def _dim(x, i):
    """shape_of(x)[i] as a 1-element tensor, as the exporters write it (Shape -> Gather -> Unsqueeze)."""
    return relay.expand_dims(relay.take(relay.shape_of(x), relay.const(np.int64(i))), 0)


def _concat(*parts):
    return relay.concatenate([relay.const(np.array(p, "int64")) if isinstance(p, list) else p for p in parts], 0)


def _optimised(body, params):
    mod = ir.IRModule.from_expr(relay.Function(params, body))
    return mod, transform.DynamicToStatic()(mod)


def _infer(expr, params):
    return transform.InferType()(ir.IRModule.from_expr(relay.Function(params, expr)))


def _same_results(before, after, inputs, run_relay):
    want, got = run_relay(before, inputs), run_relay(after, inputs)
    for w, g in zip(want, got):
        assert w.shape == g.shape and w.dtype == g.dtype
        np.testing.assert_array_equal(g, w)


def _cpu_results(mod, inputs):
    lib = tvmlite.build(mod, target="cpu")
    assert lib.fallbacks() == []
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    gm.set_input(**inputs)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


def test_split_heads_is_a_static_reshape_keeping_named_dims(op_names, run_relay, rng):
    x = relay.var("x", shape=(B, S, 48))
    mod, out = _optimised(relay.reshape(x, _concat(_dim(x, 0), _dim(x, 1), [4, 12])), [x])
    assert _ops(out, op_names) == ["reshape"]
    assert list(out["main"].body.attrs.newshape) == [0, 0, 4, 12]
    assert _dims(out["main"].body.checked_type) == ["batch", "seq", 4, 12]
    for shape in [(1, 5, 48), (3, 2, 48)]:
        xv = rng.standard_normal(shape).astype("float32")
        _same_results(mod, out, {"x": xv}, run_relay)
        np.testing.assert_array_equal(_cpu_results(mod, {"x": xv})[0], xv.reshape(shape[:2] + (4, 12)))


def test_static_entries_fold_to_constants(op_names):
    """The head size read from a shape (sqrt(shape_of(q)[-1])) is a constant: no shape_of is left."""
    q = relay.var("q", shape=(B, S, 64))
    head = relay.cast(relay.take(relay.shape_of(q), relay.const(np.int64(-1))), "float32")
    _, out = _optimised(relay.divide(q, relay.sqrt(head)), [q])
    assert "shape_of" not in op_names(out) and "take" not in op_names(out)


def test_merge_of_flattened_rows_is_reshape_like(op_names, run_relay, rng):
    """GPT-2's Conv1D: x.view(-1, n) @ w, then .view(x.size()[:-1] + (m,)): reshape + reshape_like with x's dims."""
    x = relay.var("x", shape=(B, S, 8))
    w = relay.const(rng.standard_normal((8, 6)).astype("float32"))
    flat = relay.nn.matmul(relay.reshape(x, [-1, 8]), w)
    mod, out = _optimised(relay.reshape(flat, _concat(_dim(x, 0), _dim(x, 1), [6])), [x])
    assert sorted(_ops(out, op_names)) == ["nn.matmul", "reshape", "reshape", "reshape_like"]
    assert _dims(out["main"].body.checked_type) == ["batch", "seq", 6]
    for shape in [(1, 3, 8), (2, 7, 8)]:
        xv = rng.standard_normal(shape).astype("float32")
        _same_results(mod, out, {"x": xv}, run_relay)
        np.testing.assert_allclose(_cpu_results(mod, {"x": xv})[0], run_relay(mod, {"x": xv})[0], rtol=1e-5)


def test_buffer_sliced_to_the_sequence_is_slice_like(op_names, run_relay, rng):
    """position_ids[:, :seq] of a (1, 16) buffer: slice_like(buffer, input_ids) of type (1, seq)."""
    ids = relay.var("ids", shape=(B, S), dtype="int64")
    buffer = relay.const(np.arange(16, dtype="int64").reshape(1, 16))
    sliced = relay.strided_slice(buffer, relay.const(np.array([0], "int64")), _dim(ids, 1),
                                 strides=relay.const(np.array([1], "int64")), axes=relay.const(np.array([1], "int64")))
    mod, out = _optimised(relay.add(sliced, ids), [ids])
    assert _ops(out, op_names) == ["slice_like", "add"]
    assert _dims(out["main"].body.checked_type) == ["batch", "seq"]
    for shape in [(1, 16), (3, 4)]:
        iv = rng.integers(0, 9, size=shape).astype("int64")
        _same_results(mod, out, {"ids": iv}, run_relay)
        np.testing.assert_array_equal(_cpu_results(mod, {"ids": iv})[0], iv + np.arange(shape[1]))


def test_slice_like_longer_than_its_data_is_a_clear_error(op_names):
    ids = relay.var("ids", shape=(B, S), dtype="int64")
    buffer = relay.const(np.arange(16, dtype="int64").reshape(1, 16))
    lib = tvmlite.build(relay.Function([ids], relay.slice_like(buffer, ids, axes=[1])), target="cpu")
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    gm.set_input(ids=np.zeros((1, 17), "int64"))
    with pytest.raises(ValueError, match=r"slice_like: shape_like \(1, 17\) exceeds data \(1, 16\) on axis 1"):
        gm.run()
    y = relay.var("y", shape=(1, 17))
    with pytest.raises(ValueError, match=r"slice_like: shape_like \(1, 17\) exceeds data \(1, 16\) on axis 1"):
        _infer(relay.slice_like(buffer, y, axes=[1]), [y])


def test_broadcast_to_own_dims_is_static(op_names, run_relay, rng):
    x = relay.var("x", shape=(B, 1))
    mod, out = _optimised(relay.broadcast_to(x, _concat(_dim(x, 0), [5])), [x])
    assert _ops(out, op_names) == ["broadcast_to"]
    assert list(out["main"].body.attrs.shape) == [1, 5]
    assert _dims(out["main"].body.checked_type) == ["batch", 5]
    _same_results(mod, out, {"x": rng.standard_normal((3, 1)).astype("float32")}, run_relay)


def test_what_cannot_be_proved_stays_dynamic(op_names):
    x = relay.var("x", shape=(B, S, 8))
    y = relay.var("y", shape=(S, B))
    # Two entries that are neither x's dims at their positions nor a run of one tensor's dims.
    _, out = _optimised(relay.reshape(x, _concat(_dim(y, 1), _dim(x, 1), _dim(y, 0), [-1])), [x, y])
    assert "dyn.reshape" in op_names(out)
    # batch * 2 is no dim the pass knows.
    doubled = relay.multiply(_dim(x, 0), relay.const(np.array([2], "int64")))
    _, out = _optimised(relay.reshape(x, _concat(doubled, [-1, 4])), [x])
    assert "dyn.reshape" in op_names(out)
    # A slice from a non-zero begin to a symbolic end.
    buffer = relay.const(np.zeros((1, 16), "float32"))
    sliced = relay.strided_slice(buffer, relay.const(np.array([1], "int64")), _dim(x, 1),
                                 strides=relay.const(np.array([1], "int64")), axes=relay.const(np.array([1], "int64")))
    _, out = _optimised(sliced, [x])
    assert "dyn.strided_slice" in op_names(out)


@pytest.mark.parametrize("build, message", [
    (lambda x, y: relay.reshape_like(x, y, lhs_begin=0, lhs_end=1, rhs_begin=0, rhs_end=2), None),
    (lambda x, y: relay.reshape_like(x, y, lhs_begin=2, lhs_end=1), "reshape_like: lhs range \\[2, 1\\) is not"),
    (lambda x, y: relay.reshape_like(x, y, rhs_begin=0, rhs_end=5), "reshape_like: rhs range \\[0, 5\\) is not"),
    (lambda x, y: relay.reshape_like(x, y, rhs_begin=1), "reshape_like: cannot reshape \\(6, 4\\) into \\(3, 4\\)"),
])
def test_reshape_like_types_and_errors(build, message, run_relay, rng):
    x, y = relay.var("x", shape=(6, 4)), relay.var("y", shape=(2, 3, 4))
    if message is None:
        xv = rng.standard_normal((6, 4)).astype("float32")
        got = run_relay(relay.Function([x, y], build(x, y)), {"x": xv, "y": np.zeros((2, 3, 4), "float32")})[0]
        np.testing.assert_array_equal(got, xv.reshape(2, 3, 4))
        return
    with pytest.raises(ValueError, match=message):
        _infer(build(x, y), [x, y])


def test_reshape_like_run_time_sizes_must_agree():
    """Symbolic at build, the sizes are checked at run time."""
    x, y = relay.var("x", shape=(ir.SizeVar("n"), 4)), relay.var("y", shape=(B, S, 4))
    lib = tvmlite.build(relay.Function([x, y], relay.reshape_like(x, y, lhs_end=1, rhs_end=2)), target="cpu")
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    gm.set_input(x=np.zeros((6, 4), "float32"), y=np.zeros((2, 3, 4), "float32"))
    gm.run()
    assert gm.get_output(0).numpy().shape == (2, 3, 4)
    gm.set_input(x=np.zeros((5, 4), "float32"), y=np.zeros((2, 3, 4), "float32"))
    with pytest.raises(ValueError):
        gm.run()


def test_expand_target_written_with_where_is_static(op_names, run_relay, rng):
    """torch's expand(-1, 5) exports as Expand(x, Where(Equal(shape, -1), 1, shape)): a dim is never -1."""
    x = relay.var("x", shape=(B, 1))
    shape = _concat(_dim(x, 0), [5])
    target = relay.where(relay.equal(shape, relay.const(np.int64(-1))), relay.const(np.int64(1)), shape)
    mod, out = _optimised(relay.broadcast_to(x, target), [x])
    assert _ops(out, op_names) == ["broadcast_to"]
    assert _dims(out["main"].body.checked_type) == ["batch", 5]
    _same_results(mod, out, {"x": rng.standard_normal((2, 1)).astype("float32")}, run_relay)


def test_mask_expanded_to_seq_by_seq_is_broadcast_to_like(op_names, run_relay, rng):
    """BERT's mask: (batch, 1, 1, seq) expanded to (batch, 1, seq, seq) read from input_ids and the mask: a static
    broadcast_to and broadcast_to_like(.., ids) for the dim the mask lacks, typed with the named dims."""
    ids = relay.var("ids", shape=(B, S), dtype="int64")
    mask = relay.var("mask", shape=(B, S), dtype="int64")
    m4 = relay.expand_dims(relay.expand_dims(mask, 1), 2)
    target = _concat(_dim(mask, 0), [1], _dim(ids, 1), _dim(mask, 1))
    mod, out = _optimised(relay.broadcast_to(m4, target), [ids, mask])
    assert sorted(_ops(out, op_names)) == ["broadcast_to", "broadcast_to_like"]
    assert _dims(out["main"].body.checked_type) == ["batch", 1, "seq", "seq"]
    for b, s in [(1, 4), (3, 2)]:
        feeds = {"ids": rng.integers(0, 9, (b, s)).astype("int64"), "mask": rng.integers(0, 2, (b, s)).astype("int64")}
        _same_results(mod, out, feeds, run_relay)
        np.testing.assert_array_equal(_cpu_results(mod, feeds)[0], run_relay(mod, feeds)[0])


@pytest.mark.parametrize("axes, like_axes, data_shape, want", [
    (None, None, (1, 3), (2, 3)),
    ([1], [0], (4, 1), (4, 2)),
    ([0, 2], [1, 0], (1, 5, 1), (3, 5, 2)),
])
def test_broadcast_to_like(axes, like_axes, data_shape, want, run_relay, rng):
    x, like = relay.var("x", shape=data_shape), relay.var("like", shape=(2, 3))
    xv = rng.standard_normal(data_shape).astype("float32")
    got = run_relay(relay.Function([x, like], relay.broadcast_to_like(x, like, axes, like_axes)),
                    {"x": xv, "like": np.zeros((2, 3), "float32")})[0]
    np.testing.assert_array_equal(got, np.broadcast_to(xv, want))


def test_broadcast_to_like_errors():
    x, like = relay.var("x", shape=(4, 2)), relay.var("like", shape=(2, 3))
    with pytest.raises(ValueError, match=r"broadcast_to_like: data \(4, 2\) does not broadcast to shape_like "
                                         r"\(2, 3\)'s dim 1 on axis 1"):
        _infer(relay.broadcast_to_like(x, like, [1], [1]), [x, like])
    with pytest.raises(ValueError, match="broadcast_to_like: 1 axes but 2 like_axes"):
        _infer(relay.broadcast_to_like(x, like, [1], [0, 1]), [x, like])
    with pytest.raises(ValueError, match="give both axes and like_axes, or neither"):
        relay.broadcast_to_like(x, like, [1])
    # Symbolic at build: the run time's dims decide, a clear error when they do not broadcast.
    y = relay.var("y", shape=(ir.SizeVar("n"), 1))
    lib = tvmlite.build(relay.Function([y, like], relay.broadcast_to_like(y, like, [0, 1], [0, 1])), target="cpu")
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    gm.set_input(y=np.zeros((3, 1), "float32"), like=np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match="broadcast_to_like"):
        gm.run()


P = ir.SizeVar("past")


def _relative_bias(keys, x, past):
    """T5's decoder bias over past + new keys: arange(past, past + seq)[:, None] against arange(0, key_len)[None],
    its distance clipped by minimum(d, full(0, shape_of(d))), sliced to the last seq rows (bias[:, :, -seq:])."""
    key_len = relay.take(relay.shape_of(keys), relay.const(np.int64(2)))
    p = relay.take(relay.shape_of(past), relay.const(np.int64(2)))
    seq = relay.take(relay.shape_of(x), relay.const(np.int64(1)))
    one = relay.const(np.int64(1))
    memory = relay.expand_dims(relay.arange(relay.const(np.int64(0)), key_len, one), 0)
    context = relay.expand_dims(relay.arange(p, relay.add(p, seq), one), 1)
    d = relay.subtract(memory, context)
    d = relay.minimum(d, relay.full(relay.const(np.int64(0)), relay.shape_of(d)))
    bias = relay.expand_dims(relay.cast(d, "float32"), 0, 2)  # (1, 1, seq, key_len)
    neg = relay.expand_dims(relay.negative(seq), 0)
    bias = relay.strided_slice(bias, neg, relay.const(np.array([2**63 - 1], "int64")),
                               relay.const(np.array([1], "int64")), relay.const(np.array([2], "int64")))
    return bias


def test_relative_position_bias_keeps_named_dims(op_names, run_relay, rng):
    # The keys' length past + seq is a "?" of the concatenation; the aranges' lengths are proved from sums of dims
    # (past + seq - past = seq), so the bias is (1, 1, seq, ?) with the keys' own "?" and adds to the scores by type.
    past = relay.var("past", shape=(B, 2, P, 4))
    x = relay.var("x", shape=(B, S, 8))
    new = relay.reshape(x, (0, 0, 2, 4))
    keys = relay.concatenate([past, relay.transpose(new, (0, 2, 1, 3))], 2)
    q = relay.transpose(new, (0, 2, 1, 3))
    scores = relay.nn.matmul(q, keys, transpose_b=True)
    body = relay.add(scores, _relative_bias(keys, x, past))
    before, after = _optimised(body, [past, x])
    assert not [n for n in op_names(after) if n.startswith("dyn.")]
    ty = after["main"].body.checked_type
    assert _dims(ty)[:3] == ["batch", 2, "seq"]  # the add broadcast by type: nothing fresh before the keys' dim
    for b, s, p in [(1, 1, 5), (2, 3, 4), (1, 4, 0)]:
        inputs = {"past": rng.standard_normal((b, 2, p, 4)).astype("float32"),
                  "x": rng.standard_normal((b, s, 8)).astype("float32")}
        _same_results(before, after, inputs, run_relay)
        np.testing.assert_allclose(_cpu_results(after, inputs)[0], run_relay(before, inputs)[0], rtol=1e-5, atol=1e-5)
