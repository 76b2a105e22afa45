"""Control flow (if, loop, scan, sequence_map), sequences, optionals, nn.rnn and qnn ops: builders, InferType
(incl. symbolic dims and errors) and debug-executor results against numpy computed here."""
import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.ir import IRModule
from tvmlite.ir.type import OptionalType, SequenceType, TensorType


def infer(expr):
    return relay.transform.InferType()(IRModule.from_expr(relay.Function([], expr) if not isinstance(
        expr, relay.Function) else expr))["main"]


def run(params, body, inputs):
    mod = IRModule.from_expr(relay.Function(params, body))
    lib = tvmlite.build(mod, target="debug")
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for k, v in inputs.items():
        gm.set_input(k, v)
    gm.run()
    outs = [gm.get_output(i) for i in range(gm.get_num_outputs())]
    return [_np(o) for o in outs]


def _np(v):
    if isinstance(v, list):
        return [_np(x) for x in v]
    return v.numpy() if hasattr(v, "numpy") else v


def ttype(f):
    return f.body.checked_type


# -- if ---------------------------------------------------------------------------------------------------------
def test_if_joins_branch_shapes_and_runs_the_chosen_branch():
    x = relay.var("x", shape=(2, 3))
    c = relay.var("c", shape=(), dtype="bool")
    k = relay.const(np.ones((2, 4), "float32"))
    y = relay.if_(c, relay.Function([], relay.add(x, x)), relay.Function([], relay.exp(k)))
    f = relay.transform.InferType()(IRModule.from_expr(relay.Function([x, c], y)))["main"]
    ty = f.body.checked_type
    assert ty.shape[0] == 2 and str(ty.shape[1]) == "?" and str(ty.dtype) == "float32"
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    (out,) = run([x, c], y, {"x": xv, "c": np.array(True)})
    np.testing.assert_allclose(out, xv * 2)
    (out,) = run([x, c], y, {"x": xv, "c": np.array(False)})
    np.testing.assert_allclose(out, np.full((2, 4), np.e, "float32"), rtol=1e-6)


def test_if_errors():
    x = relay.var("x", shape=(2,))
    i = relay.var("i", shape=(2,), dtype="int32")
    c = relay.var("c", shape=(), dtype="bool")
    with pytest.raises(tvmlite.TVMLiteError, match=r"if: the branches' results disagree.*float32.*int32"):
        infer(relay.Function([x, i, c], relay.if_(c, relay.Function([], x), relay.Function([], i))))
    with pytest.raises(tvmlite.TVMLiteError, match="the condition must be bool"):
        infer(relay.Function([x], relay.if_(relay.const(1.0), relay.Function([], x), relay.Function([], x))))
    with pytest.raises(tvmlite.TVMLiteError, match="must be a function"):
        infer(relay.Function([x, c], relay.if_(c, x, x)))


def test_raise_error_is_typed_by_its_attr_and_raises_only_when_its_branch_runs():
    """raise_error(message, T) has type T and is never evaluated at build (FoldConstant leaves it though it reads
    nothing); in a branch the condition does not take it costs nothing; taken, it raises ValueError(message), on
    the reference (debug) and natively (cpu, no reference node)."""
    x = relay.var("x", shape=(2, 3))
    c = relay.var("c", shape=(), dtype="bool")
    failing = relay.raise_error("the else branch cannot run here", TensorType((2, 3), "float32"))
    assert str(infer(failing).body.checked_type) == "Tensor[(2, 3), float32]"
    mod = relay.transform.FoldConstant()(IRModule.from_expr(relay.Function([], failing)))
    assert mod["main"].body.op.name == "raise_error"
    y = relay.if_(c, relay.Function([], relay.add(x, x)), relay.Function([], failing))
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    for target in ("debug", "cpu"):
        lib = tvmlite.build(IRModule.from_expr(relay.Function([x, c], y)), target=target)
        if target == "cpu":
            assert lib.fallbacks() == []
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        gm.set_input("x", xv)
        gm.set_input("c", np.array(True))
        gm.run()
        np.testing.assert_allclose(gm.get_output(0).numpy(), xv * 2)
        gm.set_input("c", np.array(False))
        with pytest.raises(ValueError, match="the else branch cannot run here"):
            gm.run()


def test_raise_error_errors():
    with pytest.raises(tvmlite.TVMLiteError, match="raise_error: ret_type must be a tensor type, got"):
        infer(relay.raise_error("m", relay.TupleType([])))
    with pytest.raises(ValueError, match="topi.raise_error: message is required"):
        tvmlite.get_global_func("topi.raise_error")({})
    kernel = tvmlite.get_global_func("topi.raise_error")({"message": "no"})
    with pytest.raises(TypeError, match="topi.raise_error: expected 0 tensor arguments"):
        kernel(tvmlite.nd.array(np.zeros(1, "float32")))
    with pytest.raises(ValueError, match="^no$"):
        kernel()


def test_join_types():
    j = relay.join_types(TensorType((2, 3)), TensorType((2, 3)))
    assert tuple(j.shape) == (2, 3)
    j = relay.join_types(TensorType((1,)), TensorType((2, 2)))
    assert isinstance(j, relay.DynTensorType) and str(j.dtype) == "float32"
    j = relay.join_types(SequenceType(TensorType((1,))), SequenceType(TensorType((5,))))
    assert str(j.elem_type.shape[0]) == "?"
    with pytest.raises(tvmlite.TVMLiteError, match="disagree"):
        relay.join_types(TensorType((1,)), TensorType((1,), "int64"))


# -- loop -------------------------------------------------------------------------------------------------------
def _sum_loop(max_trip, cond_value, y_type=TensorType((), "float32")):
    """y += 1 each iteration while y < 3 (when cond is used); scan output: y after each step."""
    i = relay.var("i", shape=(), dtype="int64")
    cin = relay.var("cin", shape=(), dtype="bool")
    y = relay.var("y", y_type)
    y2 = relay.add(y, relay.const(1.0))
    body = relay.Function([i, cin, y], relay.Tuple([relay.less(y2, relay.const(3.0)), y2, y2]))
    y0 = relay.var("y0", shape=(), dtype="float32")
    return y0, relay.loop(max_trip, cond_value, [y0], body)


def test_loop_trip_count_cond_and_scan_outputs():
    y0, call = _sum_loop(relay.const(np.array(10, "int64")), relay.const(np.array(True)))
    f = infer(relay.Function([y0], call))
    t = f.body.checked_type
    assert len(t.fields) == 2 and str(t.fields[1].shape[0]) == "?"
    final, scans = run([y0], call, {"y0": np.array(0.0, "float32")})
    assert final == 3.0  # stops when y reaches 3
    np.testing.assert_array_equal(scans, [1.0, 2.0, 3.0])
    # the body's condition is ignored when the loop's cond is omitted
    y0, call = _sum_loop(relay.const(np.array(5, "int64")), None)
    final, scans = run([y0], call, {"y0": np.array(0.0, "float32")})
    assert final == 5.0 and scans.shape == (5,)
    # no trip count: runs while cond
    y0, call = _sum_loop(None, relay.const(np.array(True)))
    final, _ = run([y0], call, {"y0": np.array(-2.0, "float32")})
    assert final == 3.0


def test_loop_carried_type_must_fit_the_body_param():
    i = relay.var("i", shape=(), dtype="int64")
    cin = relay.var("cin", shape=(), dtype="bool")
    y = relay.var("y", shape=(2,))
    body = relay.Function([i, cin, y], relay.Tuple([cin, relay.const(np.zeros(3, "float32"))]))
    y0 = relay.var("y0", shape=(2,))
    with pytest.raises(tvmlite.TVMLiteError, match=r"loop: loop-carried value 0: the body returns Tensor\[\(3,\)"):
        infer(relay.Function([y0], relay.loop(relay.const(np.array(2, "int64")), None, [y0], body)))
    with pytest.raises(tvmlite.TVMLiteError, match="the body must take"):
        infer(relay.Function([y0], relay.loop(None, None, [y0, y0], body)))


# -- scan -------------------------------------------------------------------------------------------------------
def test_scan_cumulative_sum_with_axes_and_directions():
    s = relay.var("s", shape=(2,))
    xe = relay.var("xe", shape=(2,))
    acc = relay.add(s, xe)
    body = relay.Function([s, xe], relay.Tuple([acc, acc]))
    s0 = relay.var("s0", shape=(2,))
    x = relay.var("x", shape=(2, 4))  # scanned along axis 1
    call = relay.scan([s0], [x], body, scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])
    t = infer(relay.Function([s0, x], call)).body.checked_type
    assert tuple(t.fields[1].shape) == (2, 4)
    xv = np.arange(8, dtype="float32").reshape(2, 4)
    final, ys = run([s0, x], call, {"s0": np.zeros(2, "float32"), "x": xv})
    np.testing.assert_allclose(final, xv.sum(1))
    np.testing.assert_allclose(ys, np.cumsum(xv[:, ::-1], axis=1))  # reverse input: sums from the end
    with pytest.raises(tvmlite.TVMLiteError, match="scan input 0: its slices"):
        infer(relay.Function([s0, x], relay.scan([s0], [x], body)))  # axis 0 slices are (4,), not (2,)


# -- sequences and optionals ------------------------------------------------------------------------------------
def test_sequence_ops_types_and_values():
    a = relay.var("a", shape=(2, 3))
    b = relay.var("b", shape=(1, 3))
    seq = relay.sequence_construct([a, b])
    seq = relay.sequence_insert(seq, a, relay.const(np.array(0, "int64")))
    n = relay.sequence_length(seq)
    at = relay.sequence_at(seq, relay.const(np.array(-1, "int64")))
    erased = relay.sequence_erase(seq)
    cat = relay.concat_from_sequence(seq, axis=0)
    body = relay.Tuple([n, at, cat, erased])
    t = infer(relay.Function([a, b], body)).body.checked_type
    assert str(t.fields[1].shape[0]) == "?" and t.fields[1].shape[1] == 3
    assert isinstance(t.fields[3], SequenceType)
    av, bv = np.ones((2, 3), "float32"), np.zeros((1, 3), "float32")
    n_v, at_v, cat_v, erased_v = run([a, b], body, {"a": av, "b": bv})
    assert n_v == 3
    np.testing.assert_array_equal(at_v, bv)
    np.testing.assert_array_equal(cat_v, np.concatenate([av, av, bv]))
    assert len(erased_v) == 2 and erased_v[1].shape == (2, 3)


def test_split_to_sequence_and_stack():
    x = relay.var("x", shape=(5, 2))
    parts = relay.split_to_sequence(x, relay.const(np.array(2, "int64")), axis=0)
    ones = relay.split_to_sequence(x, None, axis=1, keepdims=False)
    stacked = relay.concat_from_sequence(ones, axis=1, new_axis=True)
    body = relay.Tuple([parts, stacked])
    t = infer(relay.Function([x], body)).body.checked_type
    assert tuple(t.fields[1].shape)[0] == 5
    xv = np.arange(10, dtype="float32").reshape(5, 2)
    parts_v, stacked_v = run([x], body, {"x": xv})
    assert [p.shape[0] for p in parts_v] == [2, 2, 1]
    np.testing.assert_array_equal(stacked_v, xv)


def test_sequence_errors():
    x = relay.var("x", shape=(2,))
    with pytest.raises(tvmlite.TVMLiteError, match="must be a sequence"):
        infer(relay.Function([x], relay.sequence_length(x)))
    with pytest.raises(tvmlite.TVMLiteError, match="position must be an int32/int64"):
        infer(relay.Function([x], relay.sequence_at(relay.sequence_construct([x]), relay.const(1.0))))
    with pytest.raises(tvmlite.TVMLiteError, match="disagree"):
        infer(relay.Function([x], relay.sequence_construct([x, relay.const(np.zeros(2, "int32"))])))


def test_sequence_map_and_optionals():
    s = relay.var("s", SequenceType(TensorType((relay.SizeVar("n"),))))
    e = relay.var("e", shape=(relay.SizeVar("n"),))
    k = relay.var("k", shape=())
    call = relay.sequence_map([s, k], relay.Function([e, k], relay.Tuple([relay.multiply(e, k)])))
    out = relay.TupleGetItem(call, 0)
    opt = relay.optional(out)
    body = relay.Tuple([relay.optional_has_element(opt), relay.optional_get_element(opt),
                        relay.optional_has_element(relay.optional_empty(TensorType((2,))))])
    t = infer(relay.Function([s, k], body)).body.checked_type
    assert isinstance(t.fields[1], SequenceType)
    seqv = [np.ones(2, "float32"), np.arange(3, dtype="float32")]
    has, got, empty_has = run([s, k], body, {"s": seqv, "k": np.array(2.0, "float32")})
    assert has and not empty_has
    np.testing.assert_array_equal(got[1], [0, 2, 4])
    o = relay.var("o", OptionalType(TensorType((2,))))
    (has,) = run([o], relay.optional_has_element(o), {"o": None})
    assert not has


# -- nn.rnn -----------------------------------------------------------------------------------------------------
def _sig(v):
    return 1 / (1 + np.exp(-v))


def test_lstm_matches_a_direct_computation():
    rng = np.random.default_rng(0)
    seq, batch, inp, hid = 3, 2, 4, 5
    xv = rng.standard_normal((seq, batch, inp)).astype("float32")
    wv = rng.standard_normal((1, 4 * hid, inp)).astype("float32") * 0.3
    rv = rng.standard_normal((1, 4 * hid, hid)).astype("float32") * 0.3
    bv = rng.standard_normal((1, 8 * hid)).astype("float32") * 0.1
    x, w, r, b = (relay.var(n, shape=v.shape) for n, v in zip("xwrb", (xv, wv, rv, bv)))
    call = relay.nn.rnn(x, w, r, b, mode="LSTM", hidden_size=hid)
    t = infer(relay.Function([x, w, r, b], call)).body.checked_type
    assert [tuple(f.shape) for f in t.fields] == [(seq, 1, batch, hid), (1, batch, hid), (1, batch, hid)]
    y, yh, yc = run([x, w, r, b], call, {"x": xv, "w": wv, "r": rv, "b": bv})
    h = np.zeros((batch, hid), "float32")
    c = np.zeros((batch, hid), "float32")
    for step in range(seq):
        g = xv[step] @ wv[0].T + h @ rv[0].T + bv[0, :4 * hid] + bv[0, 4 * hid:]
        i_, o_, f_, c_ = np.split(g, 4, axis=1)
        c = _sig(f_) * c + _sig(i_) * np.tanh(c_)
        h = _sig(o_) * np.tanh(c)
        np.testing.assert_allclose(y[step, 0], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(yh[0], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(yc[0], c, rtol=1e-5, atol=1e-6)


def test_rnn_sequence_lens_and_layout():
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((4, 2, 3)).astype("float32")
    wv = rng.standard_normal((2, 3 * 2, 3)).astype("float32")
    rv = rng.standard_normal((2, 3 * 2, 2)).astype("float32")
    lens = np.array([4, 2], "int32")
    x, w, r = relay.var("x", shape=xv.shape), relay.var("w", shape=wv.shape), relay.var("r", shape=rv.shape)
    sl = relay.var("sl", shape=(2,), dtype="int32")
    gru = relay.nn.rnn(x, w, r, None, sl, mode="GRU", hidden_size=2, direction="bidirectional",
                       linear_before_reset=True)
    y, yh = run([x, w, r, sl], gru, {"x": xv, "w": wv, "r": rv, "sl": lens})
    assert np.all(y[2:, :, 1] == 0)  # batch entry 1 stops after 2 steps
    np.testing.assert_allclose(yh[0, 1], y[1, 0, 1])  # forward: last valid step
    np.testing.assert_allclose(yh[1, 1], y[0, 1, 1])  # reverse: ends at step 0
    xb = relay.var("xb", shape=(2, 4, 3))
    gru_b = relay.nn.rnn(xb, w, r, None, sl, mode="GRU", hidden_size=2, direction="bidirectional",
                         linear_before_reset=True, layout=1)
    yb, yhb = run([xb, w, r, sl], gru_b, {"xb": xv.transpose(1, 0, 2).copy(), "w": wv, "r": rv, "sl": lens})
    np.testing.assert_allclose(yb, y.transpose(2, 0, 1, 3), rtol=1e-6)
    np.testing.assert_allclose(yhb, yh.transpose(1, 0, 2), rtol=1e-6)


def test_rnn_type_errors():
    x = relay.var("x", shape=(3, 2, 4))
    w = relay.var("w", shape=(1, 8, 4))
    r = relay.var("r", shape=(1, 8, 2))
    with pytest.raises(tvmlite.TVMLiteError, match=r"nn.rnn: W must be \(1, 20, 4\)"):
        infer(relay.Function([x, w, r], relay.nn.rnn(x, w, r, mode="LSTM", hidden_size=5)))
    with pytest.raises(tvmlite.TVMLiteError, match="mode must be RNN, GRU or LSTM"):
        infer(relay.Function([x, w, r], relay.nn.rnn(x, w, r, mode="XYZ", hidden_size=2)))
    with pytest.raises(tvmlite.TVMLiteError, match="initial_c and P are LSTM inputs"):
        r8 = relay.var("r8", shape=(1, 8, 8))
        infer(relay.Function([x, w, r8], relay.nn.rnn(x, w, r8, initial_c=x, mode="RNN", hidden_size=8)))


# -- qnn --------------------------------------------------------------------------------------------------------
def test_quantize_dequantize_per_axis_and_blocked():
    xv = np.array([[-3.0, 0.5, 2.5, 300.0], [1.5, -1.5, 0.0, 7.0]], "float32")
    scale = np.array([1.0, 0.5], "float32")
    zp = np.array([0, 10], "int8")
    x = relay.var("x", shape=xv.shape)
    q = relay.qnn.quantize(x, relay.const(scale), relay.const(zp), axis=0, out_dtype="int8")
    (qv,) = run([x], q, {"x": xv})
    want = np.clip(np.rint(xv / scale[:, None]) + zp[:, None], -128, 127).astype("int8")
    np.testing.assert_array_equal(qv, want)
    assert qv[0, 1] == 0 and qv[0, 2] == 2  # half to even
    dq = relay.qnn.dequantize(q, relay.const(scale), relay.const(zp), axis=0)
    (dv,) = run([x], dq, {"x": xv})
    np.testing.assert_allclose(dv, (want.astype("float32") - zp[:, None]) * scale[:, None])
    bscale = np.array([[1.0, 2.0], [0.5, 4.0]], "float32")  # blocks of 3 along axis 1 (last block cropped)
    qb = relay.qnn.quantize(x, relay.const(bscale), None, axis=1, block_size=3, out_dtype="uint8")
    (qbv,) = run([x], qb, {"x": xv})
    full = np.repeat(bscale, 3, axis=1)[:, :4]
    np.testing.assert_array_equal(qbv, np.clip(np.rint(xv / full), 0, 255).astype("uint8"))


def test_qnn_type_errors():
    x = relay.var("x", shape=(2, 4))
    with pytest.raises(tvmlite.TVMLiteError, match=r"per-axis scale Tensor\[\(3,\), float32\] does not match"):
        infer(relay.Function([x], relay.qnn.quantize(x, relay.const(np.ones(3, "float32")), axis=1)))
    with pytest.raises(tvmlite.TVMLiteError, match="blocked quantization"):
        infer(relay.Function([x], relay.qnn.quantize(x, relay.const(np.ones((2, 3), "float32")), axis=1,
                                                     block_size=2)))
    with pytest.raises(tvmlite.TVMLiteError, match="zero point is int8 but out_dtype is uint8"):
        infer(relay.Function([x], relay.qnn.quantize(x, relay.const(np.float32(1)),
                                                     relay.const(np.int8(0)))))


def test_qlinear_matmul_and_conv():
    rng = np.random.default_rng(2)
    av = rng.integers(0, 255, (2, 3), dtype=np.uint8)
    bv = rng.integers(0, 255, (3, 4), dtype=np.uint8)
    a, b = relay.var("a", shape=(2, 3), dtype="uint8"), relay.var("b", shape=(3, 4), dtype="uint8")
    c = lambda v, d: relay.const(np.array(v, d))  # noqa: E731
    mm = relay.qnn.qlinear_matmul(a, c(0.02, "float32"), c(100, "uint8"), b, c(0.01, "float32"), c(120, "uint8"),
                                  c(0.05, "float32"), c(5, "uint8"))
    (out,) = run([a, b], mm, {"a": av, "b": bv})
    acc = (av.astype(np.int64) - 100) @ (bv.astype(np.int64) - 120)
    want = np.clip(np.rint(acc * np.float32(0.02) * np.float32(0.01) / np.float32(0.05)) + 5, 0, 255)
    assert np.abs(out.astype(int) - want).max() <= 1  # float scale rounding may differ by one step
    xv = rng.integers(-128, 127, (1, 2, 4, 4), dtype=np.int8)
    wv = rng.integers(-128, 127, (3, 2, 1, 1), dtype=np.int8)
    x, w = relay.var("x", shape=xv.shape, dtype="int8"), relay.var("w", shape=wv.shape, dtype="int8")
    conv = relay.qnn.qlinear_conv(x, c(0.1, "float32"), c(1, "int8"), w, c(0.2, "float32"), c(0, "int8"),
                                  c(0.5, "float32"), c(-3, "int8"), strides=(2, 2))
    t = infer(relay.Function([x, w], conv)).body.checked_type
    assert tuple(t.shape) == (1, 3, 2, 2) and str(t.dtype) == "int8"
    (out,) = run([x, w], conv, {"x": xv, "w": wv})
    acc = np.einsum("nchw,oc->nohw", xv[:, :, ::2, ::2].astype(np.int64) - 1, wv[:, :, 0, 0].astype(np.int64))
    want = np.clip(np.rint(acc * np.float32(0.1 * 0.2 / 0.5)) - 3, -128, 127)
    assert np.abs(out.astype(int) - want).max() <= 1


def test_zero_iterations_give_empty_stacked_outputs():
    y0, call = _sum_loop(relay.const(np.array(0, "int64")), None)
    final, scans = run([y0], call, {"y0": np.array(1.5, "float32")})
    assert final == 1.5 and scans.shape == (0,) and scans.dtype == np.float32
    s = relay.var("s", shape=(2,))
    xe = relay.var("xe", shape=(2,))
    body = relay.Function([s, xe], relay.Tuple([s, relay.add(s, xe)]))
    s0, x = relay.var("s0", shape=(2,)), relay.var("x", shape=(0, 2))
    call = relay.scan([s0], [x], body, scan_output_axes=[-1])
    final, ys = run([s0, x], call, {"s0": np.ones(2, "float32"), "x": np.zeros((0, 2), "float32")})
    assert ys.shape == (2, 0)
    np.testing.assert_array_equal(final, [1, 1])
    seq = relay.var("seq", SequenceType(TensorType((2,))))
    e = relay.var("e", shape=(2,))
    (out,) = run([seq], relay.TupleGetItem(relay.sequence_map([seq], relay.Function([e], relay.Tuple([e]))), 0),
                 {"seq": []})
    assert out == []
