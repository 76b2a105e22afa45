"""from_onnx as a whole: inputs, params, outputs, the unsupported-op scan, clear errors on malformed models, and
constant folding. Converter families have their own test_onnx_<family>.py."""
import re

import numpy as np
import pytest

import onnx  # noqa: E402  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import tvmlite  # noqa: E402
from tvmlite import relay  # noqa: E402
from tvmlite.error import OpAttributeInvalid, OpAttributeRequired, OpNotImplemented  # noqa: E402
from tvmlite.relay.frontend.onnx import OnnxOpConverter, register_converter  # noqa: E402
from tvmlite.relay.frontend.onnx.common import registered_ops  # noqa: E402
from tvmlite.relay.frontend.onnx.fold import ConstantFolder, NotConstant, TypeOnly  # noqa: E402

from debug_run import run_relay  # noqa: E402

F = TensorProto.FLOAT
TEST_DOMAIN = "tvmlite.test"


@register_converter("Boom", domain=TEST_DOMAIN)
class Boom(OnnxOpConverter):
    """A converter that fails the way a buggy one does: reading an int attribute that is a float."""

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return relay.add(inputs[0], inputs[0]) if range(attr["count"]) else None


@register_converter("Probe", domain=TEST_DOMAIN)
class Probe(OnnxOpConverter):
    """Records what ctx.try_constant says about its input, and passes it on."""

    seen = []

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        cls.seen.append(ctx.try_constant(inputs[0]))
        return inputs[0]


@register_converter("Scribble", domain=TEST_DOMAIN)
class Scribble(OnnxOpConverter):
    """A careless converter: writes into the value try_constant gave it."""

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        value = ctx.try_constant(inputs[0])
        value[...] = 0
        return inputs[0]


@register_converter("Raising", domain=TEST_DOMAIN)
class Raising(OnnxOpConverter):
    """Raises what its 'kind' attribute says: errors whose class does not rebuild from one message."""

    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        from numpy._core._exceptions import _ArrayMemoryError

        raise {0: np.exceptions.AxisError(5, 2), 1: _ArrayMemoryError((1 << 60,), np.dtype("float32")),
               2: KeyError("k")}[attr["kind"]]


def make_model(nodes, inputs, outputs, initializers=(), opset=17, extra_opsets=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    return helper.make_model(graph, opset_imports=imports)


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def run(mod, params, **inputs):
    return run_relay(mod, inputs, params)


def count_calls(mod):
    text = str(mod)
    return len(re.findall(r"\b(add|multiply|subtract|divide)\(", text))


# -- inputs, params, outputs ---------------------------------------------------------------------------------------
def test_inputs_params_and_output_order():
    w = np.arange(6, dtype="float32").reshape(2, 3)
    model = make_model([helper.make_node("Add", ["x", "w"], ["sum"]), helper.make_node("Mul", ["x", "w"], ["prod"])],
                       [vi("x", ["n", 3])], [vi("prod", None), vi("sum", None)],
                       [numpy_helper.from_array(w, "w")])
    mod, params = tvmlite.frontend.from_onnx(model, shape={"x": (2, 3)})
    main = mod["main"]
    assert [p.name_hint for p in main.params] == ["x", "w"]
    assert str(main.params[0].type_annotation) == "Tensor[(2, 3), float32]"  # the user's shape wins
    assert list(params) == ["w"] and np.array_equal(params["w"], w)
    x = np.ones((2, 3), "float32")
    prod, total = run(mod, params, x=x)
    np.testing.assert_allclose(prod, x * w)  # outputs in graph order
    np.testing.assert_allclose(total, x + w)


def test_symbolic_input_dims_are_shared_size_vars():
    model = make_model([helper.make_node("Add", ["a", "b"], ["c"])], [vi("a", ["n", 3]), vi("b", ["n", 3])],
                       [vi("c", None)])
    mod, _ = tvmlite.frontend.from_onnx(model)
    mod = relay.transform.InferType()(mod)
    assert "Tensor[(n, 3), float32]" in str(mod["main"].body.checked_type)


def test_freeze_params_makes_constants_and_folds():
    w = np.full((3,), 2.0, "float32")
    model = make_model([helper.make_node("Mul", ["w", "w"], ["w2"]), helper.make_node("Add", ["x", "w2"], ["y"])],
                       [vi("x", [3])], [vi("y", None)], [numpy_helper.from_array(w, "w")])
    mod, params = tvmlite.frontend.from_onnx(model, freeze_params=True)
    assert params == {}
    assert [p.name_hint for p in mod["main"].params] == ["x"]
    assert "multiply" not in str(mod)  # w * w is a constant now
    np.testing.assert_allclose(run(mod, params, x=np.ones(3, "float32"))[0], 1 + w * w)
    # unfrozen, the weight stays a param the user may replace: not folded
    mod, params = tvmlite.frontend.from_onnx(model)
    assert "multiply" in str(mod) and list(params) == ["w"]


def test_model_from_path_and_bytes(tmp_path):
    model = make_model([helper.make_node("Neg", ["x"], ["y"])], [vi("x", [2])], [vi("y", None)])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    for source in (str(path), path, model.SerializeToString()):
        mod, _ = tvmlite.frontend.from_onnx(source)
        np.testing.assert_allclose(run(mod, {}, x=np.array([1, -2], "float32"))[0], [-1, 2])


# -- the unsupported-op scan ---------------------------------------------------------------------------------------
def test_unsupported_ops_listed_once_with_domain_and_opset():
    then_graph = helper.make_graph([helper.make_node("FancyInner", ["x"], ["t"])], "then", [], [vi("t", [2])])
    else_graph = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [vi("e", [2])])
    nodes = [helper.make_node("Frobnicate", ["x"], ["a"]), helper.make_node("Frobnicate", ["a"], ["b"]),
             helper.make_node("Gizmo", ["b"], ["c"], domain="com.example"),
             helper.make_node("If", ["cond"], ["d"], then_branch=then_graph, else_branch=else_graph)]
    model = make_model(nodes, [vi("x", [2]), vi("cond", [], TensorProto.BOOL)], [vi("d", None)],
                       extra_opsets=[("com.example", 3)])
    with pytest.raises(OpNotImplemented) as info:
        tvmlite.frontend.from_onnx(model)
    msg = str(info.value)
    assert msg.startswith(f"{3 + ('If' not in registered_ops())} unsupported ONNX ops: ")
    assert "Frobnicate (ai.onnx opset 17: no converter, 2 nodes)" in msg
    assert "Gizmo (com.example opset 3: no converter)" in msg
    assert "FancyInner (ai.onnx opset 17: no converter)" in msg  # found inside the If's branch
    assert msg.count("Frobnicate") == 1 and "\n" not in msg
    assert ("Frobnicate", "ai.onnx", 17) in info.value.ops


def test_op_older_than_its_first_opset():
    model = make_model([helper.make_node("Sign", ["x"], ["y"])], [vi("x", [2])], [vi("y", None)], opset=8)
    with pytest.raises(OpNotImplemented, match=r"Sign \(ai.onnx opset 8: converters start at opset 9\)"):
        tvmlite.frontend.from_onnx(model)


# -- malformed models: one clear error naming the node ------------------------------------------------------------
def test_bad_bytes_and_paths(tmp_path):
    with pytest.raises(ValueError, match="not a serialized ONNX model"):
        tvmlite.frontend.from_onnx(b"\xff\xff\xff not protobuf")
    with pytest.raises(FileNotFoundError, match="no such file: '.*missing.onnx'"):
        tvmlite.frontend.from_onnx(str(tmp_path / "missing.onnx"))
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x0a\xff\xff\xff\xff")
    with pytest.raises(ValueError, match="garbage.onnx' is not an ONNX model"):
        tvmlite.frontend.from_onnx(garbage)
    with pytest.raises(TypeError, match="must be an onnx.ModelProto, a path or bytes, got int"):
        tvmlite.frontend.from_onnx(42)


def test_dangling_input_names_the_node():
    model = make_model([helper.make_node("Add", ["x", "nowhere"], ["y"], name="add1")], [vi("x", [2])],
                       [vi("y", None)])
    with pytest.raises(ValueError, match=r"^node 'add1' \(Add\): input 'nowhere' is produced by no earlier node, "
                                         r"initializer or graph input$"):
        tvmlite.frontend.from_onnx(model)


def test_attribute_of_the_wrong_type_names_the_node():
    node = helper.make_node("Add", ["x", "b"], ["y"], name="legacy_add", broadcast=1.0)  # INT in the schema
    model = make_model([node], [vi("x", [2, 3]), vi("b", [3])], [vi("y", None)], opset=6)
    with pytest.raises(OpAttributeInvalid, match=r"^node 'legacy_add' \(Add\): attribute 'broadcast' must be INT, "
                                                 r"got FLOAT$"):
        tvmlite.frontend.from_onnx(model)


def test_converter_failure_names_node_op_and_original_message():
    node = helper.make_node("Boom", ["x"], ["y"], name="b0", domain=TEST_DOMAIN, count=2.5)
    model = make_model([node], [vi("x", [2])], [vi("y", None)], extra_opsets=[(TEST_DOMAIN, 1)])
    with pytest.raises(TypeError, match=r"^node 'b0' \(Boom\): 'float' object cannot be interpreted as an integer$") \
            as info:
        tvmlite.frontend.from_onnx(model)
    cause = info.value.__cause__  # the converter's own error, with its traceback
    assert type(cause) is TypeError and str(cause) == "'float' object cannot be interpreted as an integer"


def test_rank_mismatch_is_prefixed_with_the_node():
    model = make_model([helper.make_node("Add", ["a", "b"], ["c"], name="bad_add")], [vi("a", [2, 3]), vi("b", [4, 5])],
                       [vi("c", None)])
    with pytest.raises(ValueError) as info:
        tvmlite.frontend.from_onnx(model)
    msg = str(info.value)
    assert msg.startswith("node 'bad_add' (Add): ") and "add" in msg[len("node 'bad_add' (Add): "):]
    assert "(2, 3)" in msg and "(4, 5)" in msg


def test_unnamed_node_is_named_by_its_outputs():
    model = make_model([helper.make_node("Add", ["a", "b"], ["c"])], [vi("a", [2, 3]), vi("b", [4, 5])],
                       [vi("c", None)])
    with pytest.raises(ValueError, match=r"^node \(Add\) producing 'c': "):
        tvmlite.frontend.from_onnx(model)


def test_duplicate_output_names():
    nodes = [helper.make_node("Neg", ["x"], ["y"], name="first"), helper.make_node("Abs", ["x"], ["y"], name="second")]
    model = make_model(nodes, [vi("x", [2])], [vi("y", None)])
    with pytest.raises(ValueError, match=r"^node 'second' \(Abs\): output 'y' is already produced by node 'first' "
                                         r"\(Neg\)$"):
        tvmlite.frontend.from_onnx(model)
    model = make_model([helper.make_node("Neg", ["x"], ["x"], name="self")], [vi("x", [2])], [vi("x", None)])
    with pytest.raises(ValueError, match="output 'x' is already produced by a graph input"):
        tvmlite.frontend.from_onnx(model)


def test_graph_output_never_produced():
    model = make_model([helper.make_node("Neg", ["x"], ["y"])], [vi("x", [2])], [vi("y", None), vi("ghost", None)])
    with pytest.raises(ValueError, match="^graph output 'ghost' is produced by no node, initializer or graph input$"):
        tvmlite.frontend.from_onnx(model)


def test_no_opset_import():
    model = make_model([helper.make_node("Neg", ["x"], ["y"])], [vi("x", [2])], [vi("y", None)])
    del model.opset_import[:]
    with pytest.raises(ValueError, match=r"^node \(Neg\) producing 'y': the model has no opset_import for the default "
                                         r"ONNX domain \(ai.onnx\)"):
        tvmlite.frontend.from_onnx(model)
    mod, _ = tvmlite.frontend.from_onnx(model, opset=13)  # the caller may say which
    assert "negative" in str(mod)


def test_node_domain_without_opset_import():
    node = helper.make_node("Gizmo", ["x"], ["y"], name="gz", domain="com.example")
    model = make_model([node], [vi("x", [2])], [vi("y", None)])
    with pytest.raises(ValueError, match=r"^node 'gz' \(Gizmo\): its domain 'com.example' has no opset_import"):
        tvmlite.frontend.from_onnx(model)


def test_shape_for_an_unknown_input():
    model = make_model([helper.make_node("Neg", ["x"], ["y"])], [vi("x", [2])], [vi("y", None)])
    with pytest.raises(ValueError, match="shape names no graph input: z"):
        tvmlite.frontend.from_onnx(model, shape={"z": (1,)})


def test_non_tensor_input_is_not_implemented_clearly():
    m = helper.make_value_info("m", helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(F, [])))
    model = make_model([helper.make_node("Identity", ["m"], ["y"])], [m], [vi("y", None)])
    with pytest.raises(OpNotImplemented, match=r"^graph input 'm': .*map_type.* not supported"):
        tvmlite.frontend.from_onnx(model)


# -- constant folding -----------------------------------------------------------------------------------------------
def test_constant_chains_fold_at_import():
    c1 = helper.make_node("Constant", [], ["c1"], value=numpy_helper.from_array(np.array([1, 2, 3], "int64")))
    c2 = helper.make_node("Constant", [], ["c2"], value_ints=[10, 20, 30])
    nodes = [c1, c2, helper.make_node("Add", ["c1", "c2"], ["s"]), helper.make_node("Mul", ["s", "s"], ["sq"]),
             helper.make_node("Probe", ["sq"], ["p"], domain=TEST_DOMAIN), helper.make_node("Add", ["x", "p"], ["y"])]
    model = make_model(nodes, [vi("x", [3], TensorProto.INT64)], [vi("y", None, TensorProto.INT64)],
                       extra_opsets=[(TEST_DOMAIN, 1)])
    Probe.seen.clear()
    mod, _ = tvmlite.frontend.from_onnx(model)
    assert np.array_equal(Probe.seen[0], [121, 484, 1089])
    assert count_calls(mod) == 1  # only x + constant remains
    np.testing.assert_array_equal(run(mod, {}, x=np.zeros(3, "int64"))[0], [121, 484, 1089])


def test_params_are_run_time_inputs_for_folding():
    w = np.array([2.0, 3.0], "float32")
    nodes = [helper.make_node("Mul", ["w", "w"], ["w2"]), helper.make_node("Probe", ["w2"], ["p"], domain=TEST_DOMAIN),
             helper.make_node("Probe", ["x"], ["q"], domain=TEST_DOMAIN), helper.make_node("Add", ["p", "q"], ["y"])]
    model = make_model(nodes, [vi("x", [2])], [vi("y", None)], [numpy_helper.from_array(w, "w")],
                       extra_opsets=[(TEST_DOMAIN, 1)])
    Probe.seen.clear()
    mod, params = tvmlite.frontend.from_onnx(model)
    assert Probe.seen == [None, None]  # the user may replace the weight: its value is not known at import
    assert "multiply" in str(mod)
    Probe.seen.clear()
    mod, params = tvmlite.frontend.from_onnx(model, freeze_params=True)
    np.testing.assert_allclose(Probe.seen[0], w * w)  # frozen, it is a constant
    assert Probe.seen[1] is None and "multiply" not in str(mod)


def test_shape_of_static_tensor_is_a_constant():
    if "Shape" not in registered_ops():
        pytest.skip("the Shape converter comes with the shape family")
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Shape", ["r"], ["s"]),
             helper.make_node("Probe", ["s"], ["p"], domain=TEST_DOMAIN)]
    model = make_model(nodes, [vi("x", [2, 5, 7])], [vi("p", None, TensorProto.INT64)], extra_opsets=[(TEST_DOMAIN, 1)])
    Probe.seen.clear()
    mod, _ = tvmlite.frontend.from_onnx(model)
    assert np.array_equal(Probe.seen[0], [2, 5, 7])
    assert isinstance(mod["main"].body, relay.Constant)


def test_type_only_refuses_data():
    t = TypeOnly((2, 3), "float32")
    assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6 and t.dtype == np.float32
    for touch in (lambda: np.asarray(t), lambda: t + 1, lambda: np.add(t, 1), lambda: np.exp(t), lambda: t[0],
                  lambda: np.copy(t), lambda: np.zeros_like(t), lambda: float(t), lambda: t.reshape(6)):
        with pytest.raises((NotConstant, TypeError, AttributeError)):
            touch()


def test_folder_evaluates_only_constant_leaves():
    folder = ConstantFolder(lambda e: relay.transform.InferType()(tvmlite.ir.IRModule.from_expr(e))["main"].body)
    x = relay.var("x", shape=(2,))
    c = relay.const(np.array([1.0, 2.0], "float32"))
    assert np.array_equal(folder.value(relay.multiply(relay.add(c, c), c)), [2.0, 8.0])
    assert folder.value(relay.add(x, c)) is None
    assert folder.value(relay.add(c, c), limit=1) is None  # too big to fold


# -- basic converters -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("attrs, expected", [
    ({"value_float": 1.5}, np.array(1.5, "float32")),
    ({"value_floats": [1.0, 2.0]}, np.array([1.0, 2.0], "float32")),
    ({"value_int": 7}, np.array(7, "int64")),
    ({"value_ints": [1, 2, 3]}, np.array([1, 2, 3], "int64")),
    ({"value": numpy_helper.from_array(np.array([[1, 2]], "int32"))}, np.array([[1, 2]], "int32")),
])
def test_constant_values(attrs, expected):
    elem = helper.np_dtype_to_tensor_dtype(expected.dtype)
    model = make_model([helper.make_node("Constant", [], ["y"], **attrs)], [], [vi("y", None, elem)])
    mod, _ = tvmlite.frontend.from_onnx(model)
    (out,) = run(mod, {})
    assert out.dtype == expected.dtype and out.shape == expected.shape and np.array_equal(out, expected)


def test_constant_errors():
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.0], "float32")),
                                       numpy_helper.from_array(np.array([0], "int64")), [3])
    cases = [({"sparse_value": sparse}, OpNotImplemented, "sparse_value .* not supported"),
             ({"value_string": "hi"}, OpNotImplemented, "value_string .* the IR has no string dtype"),
             ({"value_int": 1, "value_float": 2.0}, OpAttributeInvalid, "exactly one value attribute"),
             ({}, OpAttributeRequired, "needs one of the attributes")]
    for attrs, err, pattern in cases:
        model = make_model([helper.make_node("Constant", [], ["y"], name="k", **attrs)], [], [vi("y", None)])
        with pytest.raises(err, match=r"^node 'k' \(Constant\): .*" + pattern):
            tvmlite.frontend.from_onnx(model)


def test_identity_is_its_input():
    model = make_model([helper.make_node("Identity", ["x"], ["y"])], [vi("x", [2])], [vi("y", None)])
    mod, _ = tvmlite.frontend.from_onnx(model)
    main = mod["main"]
    assert main.body.same_as(main.params[0])


# -- elementwise opset semantics ------------------------------------------------------------------------------------
@pytest.mark.parametrize("op, fn", [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply), ("Div", np.divide)])
def test_legacy_broadcast_with_axis(op, fn):
    a = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype("float32")
    b = np.arange(1, 13, dtype="float32").reshape(3, 4)
    node = helper.make_node(op, ["a", "b"], ["c"], broadcast=1, axis=1)
    model = make_model([node], [vi("a", [2, 3, 4, 5])], [vi("c", None)], [numpy_helper.from_array(b, "b")], opset=6)
    mod, params = tvmlite.frontend.from_onnx(model)
    np.testing.assert_allclose(run(mod, params, a=a)[0], fn(a, b.reshape(3, 4, 1)), rtol=1e-6)
    # a computed B (not an initializer) broadcast along axis 0 of a rank-2 A: B (2,) -> (2, 1)
    node = helper.make_node(op, ["a", "b"], ["c"], broadcast=1, axis=0)
    model = make_model([node], [vi("a", [2, 3]), vi("b", [2])], [vi("c", None)], opset=1)
    a2, b2 = np.ones((2, 3), "float32"), np.array([2.0, 4.0], "float32")
    try:
        mod, params = tvmlite.frontend.from_onnx(model)
    except OpNotImplemented as err:
        assert "needs reshape" in str(err)  # until the shape family brings reshape
    else:
        np.testing.assert_allclose(run(mod, params, a=a2, b=b2)[0], fn(a2, b2[:, None]))


def test_legacy_broadcast_suffix_and_strict_default():
    a = np.ones((2, 3), "float32")
    model = make_model([helper.make_node("Add", ["a", "b"], ["c"], broadcast=1)], [vi("a", [2, 3]), vi("b", [3])],
                       [vi("c", None)], opset=6)
    mod, params = tvmlite.frontend.from_onnx(model)
    np.testing.assert_allclose(run(mod, params, a=a, b=np.arange(3, dtype="float32"))[0], a + np.arange(3))
    model = make_model([helper.make_node("Add", ["a", "b"], ["c"], name="strict")], [vi("a", [2, 3]), vi("b", [3])],
                       [vi("c", None)], opset=6)
    with pytest.raises(OpAttributeInvalid, match=r"^node 'strict' \(Add\): B's shape \(3,\) differs from A's "
                                                 r"\(2, 3\) and the node does not set broadcast=1"):
        tvmlite.frontend.from_onnx(model)
    # opset 7 broadcasts numpy-style without being asked
    model = make_model([helper.make_node("Add", ["a", "b"], ["c"])], [vi("a", [2, 3]), vi("b", [3])],
                       [vi("c", None)], opset=7)
    mod, params = tvmlite.frontend.from_onnx(model)
    np.testing.assert_allclose(run(mod, params, a=a, b=np.ones(3, "float32"))[0], a + 1)


def test_legacy_consumed_inputs_is_ignored():
    node = helper.make_node("Neg", ["x"], ["y"], consumed_inputs=[0])
    model = make_model([node], [vi("x", [2])], [vi("y", None)], opset=1)
    mod, _ = tvmlite.frontend.from_onnx(model)
    np.testing.assert_allclose(run(mod, {}, x=np.array([1, 2], "float32"))[0], [-1, -2])


def test_dtype_mismatch_names_the_node():
    model = make_model([helper.make_node("Add", ["a", "b"], ["c"], name="mixed")],
                       [vi("a", [2]), vi("b", [2], TensorProto.INT32)], [vi("c", None)])
    with pytest.raises(TypeError, match=r"^node 'mixed' \(Add\): .*float32.*int32"):
        tvmlite.frontend.from_onnx(model)


def test_results_that_read_input_data_are_not_folded():
    """Integer and bool results are tried with type-only inputs; any that reads the data stays a call."""
    nodes = [helper.make_node("Equal", ["x", "x"], ["e"]), helper.make_node("IsNaN", ["x"], ["n"]),
             helper.make_node("Add", ["i", "i"], ["s"])]
    model = make_model(nodes, [vi("x", [3]), vi("i", [2], TensorProto.INT64)],
                       [vi("e", None, TensorProto.BOOL), vi("n", None, TensorProto.BOOL),
                        vi("s", None, TensorProto.INT64)])
    mod, _ = tvmlite.frontend.from_onnx(model)
    text = str(mod)
    assert "equal(%x, %x)" in text and "isnan(%x)" in text and "add(%i, %i)" in text
    x = np.array([1.0, np.nan, 3.0], "float32")
    e, n, s = run(mod, {}, x=x, i=np.array([4, 5], "int64"))
    assert e.tolist() == [True, False, True] and n.tolist() == [False, True, False] and s.tolist() == [8, 10]


def test_model_of_another_domain_only_needs_no_default_opset():
    node = helper.make_node("Gizmo", ["x"], ["y"], domain="com.example")
    graph = helper.make_graph([node], "other", [vi("x", [2])], [vi("y", None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("com.example", 3)])
    with pytest.raises(OpNotImplemented, match=r"^1 unsupported ONNX op: Gizmo \(com.example opset 3: no converter\)$"):
        tvmlite.frontend.from_onnx(model)


def test_try_constant_values_are_the_callers_to_edit():
    w = np.array([2.0, 3.0], "float32")
    nodes = [helper.make_node("Neg", ["w"], ["nw"]), helper.make_node("Scribble", ["w"], ["a"], domain=TEST_DOMAIN),
             helper.make_node("Scribble", ["nw"], ["b"], domain=TEST_DOMAIN),
             helper.make_node("Probe", ["w"], ["c"], domain=TEST_DOMAIN),
             helper.make_node("Probe", ["nw"], ["d"], domain=TEST_DOMAIN)]
    model = make_model(nodes, [], [vi("a", None), vi("b", None), vi("c", None), vi("d", None)],
                       [numpy_helper.from_array(w, "w")], extra_opsets=[(TEST_DOMAIN, 1)])
    Probe.seen.clear()
    mod, params = tvmlite.frontend.from_onnx(model, freeze_params=True)
    assert Probe.seen[0].tolist() == [2.0, 3.0] and Probe.seen[1].tolist() == [-2.0, -3.0]
    assert run(mod, params)[0].tolist() == [2.0, 3.0]


def test_string_initializer_is_not_implemented_clearly():
    words = numpy_helper.from_array(np.array(["a", "b"], dtype=object), "words")
    model = make_model([helper.make_node("Identity", ["words"], ["y"])], [], [vi("y", None)], [words])
    for freeze in (False, True):
        with pytest.raises(OpNotImplemented, match="^initializer 'words': string tensors are not supported"):
            tvmlite.frontend.from_onnx(model, freeze_params=freeze)


def test_convert_map_is_cached_per_domain_and_opset_and_picks_versions():
    from tvmlite.relay.frontend.onnx import common

    table = common._get_convert_map(13)
    assert table is common.get_convert_map(13)  # built once per (domain, opset), not per node
    conv = common.registered_ops()["Conv"]
    assert table["Conv"] == conv.get_converter(13) == conv._impl_v11
    assert common.get_convert_map(10)["Conv"] == conv._impl_v1
    with pytest.raises(tvmlite.error.OpNotImplemented, match="opset 0 is older than every implemented version"):
        conv.get_converter(0)


@pytest.mark.parametrize("kind,cls,message", [
    (0, np.exceptions.AxisError, "axis 5 is out of bounds for array of dimension 2"),
    (1, MemoryError, "Unable to allocate 4.00 EiB for an array with shape (1152921504606846976,) and data type "
                     "float32"),
    (2, KeyError, "k"),
])
def test_converter_error_keeps_its_class(kind, cls, message):
    """A converter's error comes out as its own class (a MemoryError stays one) with the node in front."""
    node = helper.make_node("Raising", ["x"], ["y"], name="r0", domain=TEST_DOMAIN, kind=kind)
    model = make_model([node], [vi("x", [2])], [vi("y", None)], extra_opsets=[(TEST_DOMAIN, 1)])
    with pytest.raises(cls) as info:
        tvmlite.frontend.from_onnx(model)
    assert isinstance(info.value, tvmlite.TVMLiteError)
    assert str(info.value) == f"node 'r0' (Raising): {message}"
