"""ONNX control flow, sequences/optionals, RNNs and quantization through from_onnx -> build(debug) -> run, for
cases onnx's node tests miss: loop-carried shapes that change, omitted M/cond, closures over outer values,
old opsets (Scan-8, LSTM-7, QuantizeLinear-10), sequence/optional graph inputs and bad attributes."""
import re

import numpy as np
import pytest

import onnx  # noqa: E402  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper  # noqa: E402

import tvmlite  # noqa: E402
from tvmlite.ir.type import OptionalType, SequenceType  # noqa: E402


def make_model(nodes, inputs, outputs, opset, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run(model, inputs):
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for k, v in inputs.items():
        gm.set_input(k, v)
    gm.run()
    return mod, [_np(gm.get_output(i)) for i in range(gm.get_num_outputs())]


def _np(v):
    if isinstance(v, list):
        return [_np(x) for x in v]
    return v.numpy() if hasattr(v, "numpy") else v


def scalar_info(name, elem):
    return helper.make_tensor_value_info(name, elem, [])


def _accumulating_loop_model(m_present, cond_present):
    """y_out = y_in + x (x from the outer graph: a closure); scan output y_out; cond_out = y_out < 5."""
    body = helper.make_graph(
        [helper.make_node("Add", ["y_in", "x"], ["y_out"]),
         helper.make_node("Less", ["y_out", "limit"], ["cond_out"]),
         helper.make_node("Identity", ["y_out"], ["scan_out"])],
        "body",
        [scalar_info("i", TensorProto.INT64), scalar_info("cond_in", TensorProto.BOOL),
         scalar_info("y_in", TensorProto.FLOAT)],
        [scalar_info("cond_out", TensorProto.BOOL), scalar_info("y_out", TensorProto.FLOAT),
         scalar_info("scan_out", TensorProto.FLOAT)])
    loop = helper.make_node("Loop", ["M" if m_present else "", "cond" if cond_present else "", "y0"],
                            ["y_final", "ys"], body=body)
    inits = [helper.make_tensor("limit", TensorProto.FLOAT, [], [5.0])]
    if m_present:
        inits.append(helper.make_tensor("M", TensorProto.INT64, [], [4]))
    if cond_present:
        inits.append(helper.make_tensor("cond", TensorProto.BOOL, [], [1]))
    return make_model([loop], [scalar_info("y0", TensorProto.FLOAT), scalar_info("x", TensorProto.FLOAT)],
                      [scalar_info("y_final", TensorProto.FLOAT),
                       helper.make_tensor_value_info("ys", TensorProto.FLOAT, [None])], 13, inits)


@pytest.mark.parametrize("m_present,cond_present,steps", [(True, True, 3), (True, False, 4), (False, True, 3)])
def test_loop_with_omitted_trip_count_or_cond(m_present, cond_present, steps):
    # x = 2: y = 2, 4, 6; the body's cond (y < 5) stops the loop after 3 steps unless cond is omitted
    model = _accumulating_loop_model(m_present, cond_present)
    _, (y_final, ys) = run(model, {"y0": np.array(0.0, "float32"), "x": np.array(2.0, "float32")})
    want = [2.0 * (k + 1) for k in range(steps)]
    np.testing.assert_allclose(ys, want)
    assert y_final == want[-1]


def test_loop_carried_tensor_that_grows():
    """y_out = concat(y_in, x): the carried shape changes each iteration, so the body's param type widens to ?."""
    body = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["y_in", "x"], ["s"]),
         helper.make_node("ConcatFromSequence", ["s"], ["y_out"], axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [scalar_info("i", TensorProto.INT64), scalar_info("cond_in", TensorProto.BOOL),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [1])],  # declared [1]: wrong after step 1
        [scalar_info("cond_out", TensorProto.BOOL), helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [2])])
    loop = helper.make_node("Loop", ["M", "", "y0"], ["y_final"], body=body)
    model = make_model([loop], [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [1]),
                                helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                       [helper.make_tensor_value_info("y_final", TensorProto.FLOAT, [None])], 13,
                       [helper.make_tensor("M", TensorProto.INT64, [], [3])])
    mod, (y_final,) = run(model, {"y0": np.array([1.0], "float32"), "x": np.array([7.0], "float32")})
    np.testing.assert_array_equal(y_final, [1, 7, 7, 7])
    assert str(mod["main"].body.checked_type) == "Tensor[(?,), float32]"  # the widened carried type


def test_if_branches_of_different_shapes_and_outer_values():
    then_g = helper.make_graph([helper.make_node("Add", ["a", "a"], ["out"])], "then", [],
                               [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2])])
    else_g = helper.make_graph([helper.make_node("Neg", ["b"], ["out2"])], "else", [],
                               [helper.make_tensor_value_info("out2", TensorProto.FLOAT, [3])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    model = make_model([node], [scalar_info("c", TensorProto.BOOL),
                                helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
                                helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])], 11)
    a, b = np.array([1.0, 2.0], "float32"), np.array([1.0, 2.0, 3.0], "float32")
    mod, (y,) = run(model, {"c": np.array(True), "a": a, "b": b})
    np.testing.assert_array_equal(y, a * 2)
    assert "Tensor[(?,), float32]" in str(mod)
    _, (y,) = run(model, {"c": np.array(False), "a": a, "b": b})
    np.testing.assert_array_equal(y, -b)


def _if_adding_mismatched_lengths(else_op):
    """y = If(c) then a + b (lengths 2 and 3: no type) else else_op(a)."""
    then_g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])])
    else_nodes = [helper.make_node(else_op, ["a", "b"] if else_op == "Sub" else ["a"], ["e"])]
    else_g = helper.make_graph(else_nodes, "else", [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
    node = helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then_g, else_branch=else_g)
    return make_model([node], [scalar_info("c", TensorProto.BOOL),
                               helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
                               helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], 13)


@pytest.mark.parametrize("target", ["debug", "cpu"])
def test_if_branch_that_cannot_be_typed_raises_when_taken(target):
    """A run-time If whose then branch the type relations refuse at these shapes: import warns once naming the If,
    the branch and the error; the else branch runs; taking the then branch raises that error (onnxruntime's
    behaviour: a branch is checked when it runs)."""
    expected = ("node 'choose' (If): its then_branch cannot run at the shapes the model was built for: node (Add) "
                "producing 't': InferType: add: ")
    with pytest.warns(UserWarning) as record:
        mod, params = tvmlite.frontend.from_onnx(_if_adding_mismatched_lengths("Neg"))
    assert [str(w.message)[:len(expected)] for w in record] == [expected]
    gm = tvmlite.runtime.GraphModule(tvmlite.build(mod, target=target, params=params)["default"](tvmlite.cpu(0)))
    a, b = np.array([1.0, 2.0], "float32"), np.array([1.0, 2.0, 3.0], "float32")
    for k, v in {"a": a, "b": b, "c": np.array(False)}.items():
        gm.set_input(k, v)
    gm.run()
    np.testing.assert_array_equal(gm.get_output(0).numpy(), -a)
    gm.set_input("c", np.array(True))
    with pytest.raises(ValueError, match=re.escape(expected)):
        gm.run()


def test_if_whose_branches_both_cannot_be_typed_fails_the_import():
    with pytest.raises(ValueError, match=r"node 'choose' \(If\): node \(Add\) producing 't': InferType: add: "):
        tvmlite.frontend.from_onnx(_if_adding_mismatched_lengths("Sub"))


@pytest.mark.parametrize("width", [4, 3])
def test_if_on_a_static_shape_converts_only_the_branch_taken(width):
    """torch exports branch on static shapes (SAM2's position-embedding interpolation): Size(x) > 9 is known at
    import, so only the branch taken is converted, inline, and main has no If. The other branch reshapes to a shape
    of a length known only at run time, which the IR cannot type: converting it would fail."""
    def branch(name, ok):
        if ok:
            nodes, out = [helper.make_node("Neg", ["x"], [f"{name}_out"])], f"{name}_out"
        else:
            nodes = [helper.make_node("NonZero", ["x"], [f"{name}_nz"]),
                     helper.make_node("Reshape", [f"{name}_nz", "flat"], [f"{name}_dims"]),
                     helper.make_node("Reshape", ["x", f"{name}_dims"], [f"{name}_out"])]
            out = f"{name}_out"
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)])

    big = width * 3 > 9
    nodes = [helper.make_node("Size", ["x"], ["n"]),
             helper.make_node("Greater", ["n", "nine"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=branch("then", big), else_branch=branch("else", not big))]
    inits = [onnx.numpy_helper.from_array(np.array(9, "int64"), "nine"),
             onnx.numpy_helper.from_array(np.array([-1], "int64"), "flat")]
    model = make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, width])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], 13, inits)
    x = np.arange(3 * width, dtype="float32").reshape(3, width)
    mod, (y,) = run(model, {"x": x})
    np.testing.assert_array_equal(y, -x)
    assert " if" not in str(mod["main"]) and "if(" not in str(mod["main"])


def test_scan_opset8_batched_and_opset9_reverse():
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_in"], ["s_out"]), helper.make_node("Identity", ["s_out"], ["y"])],
        "body", [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [2]),
                 helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    scan8 = helper.make_node("Scan", ["", "s0", "xs"], ["s", "ys"], body=body, num_scan_inputs=1)
    model8 = make_model([scan8], [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [2, 2]),
                                  helper.make_tensor_value_info("xs", TensorProto.FLOAT, [2, 3, 2])],
                        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2, 2]),
                         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [2, 3, 2])], 8)
    xs = np.arange(12, dtype="float32").reshape(2, 3, 2)
    _, (s, ys) = run(model8, {"s0": np.zeros((2, 2), "float32"), "xs": xs})
    np.testing.assert_allclose(ys, np.cumsum(xs, axis=1))
    np.testing.assert_allclose(s, xs.sum(1))
    scan9 = helper.make_node("Scan", ["s0", "xs"], ["s", "ys"], body=body, num_scan_inputs=1,
                             scan_input_directions=[1], scan_output_directions=[1])
    model9 = make_model([scan9], [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [2]),
                                  helper.make_tensor_value_info("xs", TensorProto.FLOAT, [3, 2])],
                        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2]),
                         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [3, 2])], 11)
    x9 = xs[0]
    _, (s, ys) = run(model9, {"s0": np.zeros(2, "float32"), "xs": x9})
    np.testing.assert_allclose(ys, np.cumsum(x9[::-1], axis=0)[::-1])  # reversed in and out


def test_sequence_and_optional_graph_inputs():
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    opt_t = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    nodes = [helper.make_node("SequenceInsert", ["s", "t"], ["s2"]),
             helper.make_node("SequenceLength", ["s2"], ["n"]),
             helper.make_node("OptionalHasElement", ["o"], ["has"])]
    model = make_model(nodes, [helper.make_value_info("s", seq_t), helper.make_value_info("o", opt_t),
                               helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])],
                       [helper.make_value_info("s2", seq_t), scalar_info("n", TensorProto.INT64),
                        scalar_info("has", TensorProto.BOOL)], 18)
    mod, _ = tvmlite.frontend.from_onnx(model)
    s_var = mod["main"].params[0]
    assert isinstance(s_var.type_annotation, SequenceType)
    assert isinstance(mod["main"].params[1].type_annotation, OptionalType)
    t = np.array([1.0, 2.0], "float32")
    _, (s2, n, has) = run(model, {"s": [np.zeros((1, 1), "float32")], "o": None, "t": t})
    assert n == 2 and not has and s2[0].shape == (1, 1)
    np.testing.assert_array_equal(s2[1], t)
    _, (_, _, has) = run(model, {"s": [], "o": t, "t": t})
    assert has


def _lstm_model(opset, direction="forward", **attrs):
    hid, inp = 3, 2
    dirs = 2 if direction == "bidirectional" else 1
    rng = np.random.default_rng(3)
    w = rng.standard_normal((dirs, 4 * hid, inp)).astype("float32")
    r = rng.standard_normal((dirs, 4 * hid, hid)).astype("float32")
    node = helper.make_node("LSTM", ["x", "w", "r"], ["y", "y_h"], hidden_size=hid, direction=direction, **attrs)
    return make_model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 1, inp])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                       helper.make_tensor_value_info("y_h", TensorProto.FLOAT, None)], opset,
                      [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel()),
                       helper.make_tensor("r", TensorProto.FLOAT, r.shape, r.ravel())])


def test_lstm_opset7_clip_and_bidirectional_agree_with_single_directions():
    x = np.random.default_rng(4).standard_normal((4, 1, 2)).astype("float32")
    _, (y_bi, yh_bi) = run(_lstm_model(7, "bidirectional", clip=0.5), {"x": x})
    assert y_bi.shape == (4, 2, 1, 3) and yh_bi.shape == (2, 1, 3)
    _, (y_fw, _) = run(_lstm_model(7), {"x": x})
    _, (y_rev, _) = run(_lstm_model(7, "reverse"), {"x": x})
    assert np.abs(y_fw).max() > 1e-2
    # clipping bounds every activation's input: with a tiny clip each gate input is ~0, so the candidate cell
    # tanh(~0) ~ 0 keeps c ~ 0 and h = sigmoid(0) * tanh(c) ~ 0
    _, (y_tiny, _) = run(_lstm_model(7, clip=1e-6), {"x": x})
    assert np.abs(y_tiny).max() < 1e-5
    # the bidirectional weights' first direction is the forward model's (same rng draws only for dirs=1,
    # so compare shapes and that the reverse direction ends at step 0)
    np.testing.assert_allclose(yh_bi[1], y_bi[0, 1], rtol=1e-6)
    assert y_rev.shape == y_fw.shape


def test_rnn_bad_direction_names_the_node():
    node = helper.make_node("RNN", ["x", "w", "r"], ["y"], hidden_size=1, direction="sideways", name="rnn0")
    model = make_model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1, 1])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], 14,
                       [helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 1], [1.0]),
                        helper.make_tensor("r", TensorProto.FLOAT, [1, 1, 1], [1.0])])
    with pytest.raises(ValueError, match=r"node 'rnn0' \(RNN\): RNN: direction must be"):
        tvmlite.frontend.from_onnx(model)


def test_lstm_unknown_activation_is_a_conversion_error():
    model = _lstm_model(14, activations=["Sigmoid", "Tanh", "Swish"])
    with pytest.raises(ValueError, match=r"LSTM: unknown activation\(s\) Swish"):
        tvmlite.frontend.from_onnx(model)


def test_gru_affine_activation_alpha_beta():
    """activation_alpha/beta are consumed in order by the activations that take them (Affine: alpha * x + beta)."""
    hid = 2
    rng = np.random.default_rng(6)
    w = rng.standard_normal((1, 3 * hid, 1)).astype("float32")
    r = np.zeros((1, 3 * hid, hid), "float32")
    node = helper.make_node("GRU", ["x", "w", "r"], ["y"], hidden_size=hid, activations=["Sigmoid", "Affine"],
                            activation_alpha=[2.0], activation_beta=[0.5])
    model = make_model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 1])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], 7,
                       [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel()),
                        helper.make_tensor("r", TensorProto.FLOAT, r.shape, r.ravel())])
    x = np.array([[[0.7]]], "float32")
    _, (y,) = run(model, {"x": x})
    z = 1 / (1 + np.exp(-(w[0, :hid, 0] * 0.7)))
    h_cand = 2.0 * (w[0, 2 * hid:, 0] * 0.7) + 0.5  # h0 = 0, R = 0
    np.testing.assert_allclose(y[0, 0, 0], (1 - z) * h_cand, rtol=1e-5)


def test_quantize_opset10_rejects_per_axis_scale_and_v13_accepts_it():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"], axis=0)]
    inits = [helper.make_tensor("s", TensorProto.FLOAT, [2], [1.0, 0.5]),
             helper.make_tensor("zp", TensorProto.UINT8, [2], [0, 128])]
    io = ([helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
          [helper.make_tensor_value_info("y", TensorProto.UINT8, [2, 2])])
    with pytest.raises(AttributeError, match=r"QuantizeLinear \(opset 10\) has no attribute 'axis'"):
        tvmlite.frontend.from_onnx(make_model(nodes, *io, 10, inits))  # as onnxruntime: axis came in opset 13
    no_axis = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])]
    with pytest.raises(ValueError, match="QuantizeLinear-10 takes a scalar scale"):
        tvmlite.frontend.from_onnx(make_model(no_axis, *io, 10, inits))
    _, (y,) = run(make_model(nodes, *io, 13, inits), {"x": np.array([[1.4, -3.0], [2.25, 100.0]], "float32")})
    np.testing.assert_array_equal(y, [[1, 0], [132, 255]])


def test_qlinearconv_auto_pad_same_upper_equals_explicit_pads():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 255, (1, 1, 5, 5), dtype=np.uint8)
    w = rng.integers(0, 255, (2, 1, 3, 3), dtype=np.uint8)
    consts = [helper.make_tensor("xs", TensorProto.FLOAT, [], [0.05]),
              helper.make_tensor("xz", TensorProto.UINT8, [], [128]),
              helper.make_tensor("w", TensorProto.UINT8, w.shape, w.ravel()),
              helper.make_tensor("ws", TensorProto.FLOAT, [2], [0.01, 0.02]),
              helper.make_tensor("wz", TensorProto.UINT8, [], [120]),
              helper.make_tensor("ys", TensorProto.FLOAT, [], [0.3]),
              helper.make_tensor("yz", TensorProto.UINT8, [], [100])]
    ins = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"]
    io = ([helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 5, 5])],
          [helper.make_tensor_value_info("y", TensorProto.UINT8, None)])
    same = make_model([helper.make_node("QLinearConv", ins, ["y"], auto_pad="SAME_UPPER", strides=[2, 2])], *io,
                      10, consts)
    explicit = make_model([helper.make_node("QLinearConv", ins, ["y"], pads=[1, 1, 1, 1], strides=[2, 2])], *io,
                          10, consts)
    _, (a,) = run(same, {"x": x})
    _, (b,) = run(explicit, {"x": x})
    assert a.shape == (1, 2, 3, 3)
    np.testing.assert_array_equal(a, b)


def test_loop_carrying_an_optional_sequence_with_if_inside():
    """As onnx's loop16_seq_none, without Slice: an optional sequence input, None on the first iteration."""
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    opt_t = helper.make_optional_type_proto(seq_t)
    then_g = helper.make_graph([helper.make_node("SequenceConstruct", ["zero"], ["init_seq"])], "then", [],
                               [helper.make_value_info("init_seq", seq_t)])
    else_g = helper.make_graph([helper.make_node("OptionalGetElement", ["opt_in"], ["seq_in"])], "else", [],
                               [helper.make_value_info("seq_in", seq_t)])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("OptionalHasElement", ["opt_in"], ["has"]),
         helper.make_node("Not", ["has"], ["is_none"]),
         helper.make_node("If", ["is_none"], ["seq"], then_branch=then_g, else_branch=else_g),
         helper.make_node("SequenceInsert", ["seq", "x"], ["seq_out"])],
        "body", [scalar_info("i", TensorProto.INT64), scalar_info("cond_in", TensorProto.BOOL),
                 helper.make_value_info("opt_in", opt_t)],
        [scalar_info("cond_out", TensorProto.BOOL), helper.make_value_info("seq_out", seq_t)])
    loop = helper.make_node("Loop", ["M", "cond", "opt"], ["res"], body=body)
    model = make_model([loop], [helper.make_value_info("opt", opt_t),
                                helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                       [helper.make_value_info("res", seq_t)], 16,
                       [helper.make_tensor("M", TensorProto.INT64, [], [3]),
                        helper.make_tensor("cond", TensorProto.BOOL, [], [1]),
                        helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])])
    x = np.array([1.0, 2.0], "float32")
    _, (res,) = run(model, {"opt": None, "x": x})
    assert len(res) == 4 and res[0].shape == () and res[0] == 0
    for r in res[1:]:
        np.testing.assert_array_equal(r, x)
    _, (res,) = run(model, {"opt": [np.ones((2, 2), "float32")], "x": x})
    assert len(res) == 4 and res[0].shape == (2, 2)
