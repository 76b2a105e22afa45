"""Values that follow from the inputs' shapes alone are computed once per input-shape signature ("per_shape" nodes:
csrc/backend/per_shape.h, graph_executor.cc "Per shape"): a causal mask and position ids made from `Shape`, as
exporters write them, against onnxruntime at shapes that repeat, change and come back, with new values each run;
shapes that depend on values (NonZero) are never cached; malformed per_shape marks in a graph file."""
import json
import warnings

import numpy as np
import pytest

import tvmlite
from tvmlite.runtime import GraphModule
from tvmlite.runtime.executor_factory import ExecutorFactoryModule

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402


def _model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _int64s(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def _causal_scores_model():
    """scores (batch, seq, seq) + a causal mask and position bias computed from Shape(scores), as HF exports do:
    Shape -> Gather -> Range -> Unsqueeze -> Less -> Where, and Cast(Range) as position ids."""
    nodes = [
        helper.make_node("Shape", ["scores"], ["shape"]),
        helper.make_node("Gather", ["shape", "two"], ["seq"], axis=0),
        helper.make_node("Range", ["zero", "seq", "one"], ["pos"]),
        helper.make_node("Unsqueeze", ["pos", "axis1"], ["pos_col"]),
        helper.make_node("Less", ["pos", "pos_col"], ["future"]),  # key > query
        helper.make_node("Where", ["future", "neg", "fzero"], ["mask"]),
        helper.make_node("Cast", ["pos"], ["posf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["posf", "slope"], ["bias"]),
        helper.make_node("Add", ["mask", "bias"], ["mask_bias"]),
        helper.make_node("Add", ["scores", "mask_bias"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["probs"], axis=-1),
    ]
    inits = [helper.make_tensor("two", TensorProto.INT64, [], [2]),
             helper.make_tensor("zero", TensorProto.INT64, [], [0]),
             helper.make_tensor("one", TensorProto.INT64, [], [1]), _int64s("axis1", [1]),
             helper.make_tensor("neg", TensorProto.FLOAT, [], [-1e9]),
             helper.make_tensor("fzero", TensorProto.FLOAT, [], [0.0]),
             helper.make_tensor("slope", TensorProto.FLOAT, [], [0.25])]
    return _model(nodes, [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", "seq", "seq"])],
                  [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", "seq", "seq"])], inits)


def _build(model):
    mod, params = tvmlite.frontend.from_onnx(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # all native: no FallbackWarning
        lib = tvmlite.build(mod, target="cpu", params=params)
    return lib, GraphModule(lib["default"]())


def _op_nodes(lib):
    return [n for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] != "null"]


def test_a_mask_from_shapes_is_computed_once_per_input_shape():
    model = _causal_scores_model()
    lib, gm = _build(model)
    nodes = _op_nodes(lib)
    per_shape = [n["name"] for n in nodes if n["attrs"].get("per_shape")]
    reads_scores = [n["name"] for n in nodes if n["attrs"]["func_name"] in ("topi.nn.softmax", "topi.elemwise")]
    assert per_shape and reads_scores and not set(per_shape) & set(reads_scores), (per_shape, reads_scores)
    assert len(per_shape) >= 3  # the shape read, the range, the mask arithmetic
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    ran = []
    # Repeat, change, come back; new values every run (the cached mask must not depend on them).
    for batch, seq in [(2, 5), (2, 5), (1, 3), (1, 3), (2, 5), (3, 1)]:
        scores = rng.standard_normal((batch, seq, seq)).astype("float32")
        gm.set_input(scores=scores)
        records = gm.profile(file=False)  # a run: lists the nodes it ran
        ran.append({r["name"] for r in records})
        (want,) = sess.run(None, {"scores": scores})
        np.testing.assert_allclose(gm.get_output(0).numpy(), want, rtol=1e-6, atol=1e-7)
        gm.run()  # the same shape again through run()
        np.testing.assert_allclose(gm.get_output(0).numpy(), want, rtol=1e-6, atol=1e-7)
    cached = set(per_shape)
    assert cached <= ran[0] and cached <= ran[2] and cached <= ran[4] and cached <= ran[5]  # a new shape
    assert not cached & ran[1] and not cached & ran[3]  # the last run's shape: skipped
    assert set(reads_scores) <= ran[1]


def test_shapes_that_values_decide_are_not_cached():
    """Range(0, count of nonzeros): the same input shape with other values gives another output shape."""
    nodes = [
        helper.make_node("NonZero", ["x"], ["nz"]),
        helper.make_node("Shape", ["nz"], ["nz_shape"]),
        helper.make_node("Gather", ["nz_shape", "one"], ["count"], axis=0),
        helper.make_node("Range", ["zero", "count", "one"], ["y"]),
    ]
    inits = [helper.make_tensor("zero", TensorProto.INT64, [], [0]),
             helper.make_tensor("one", TensorProto.INT64, [], [1])]
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                   [helper.make_tensor_value_info("y", TensorProto.INT64, None)], inits)
    lib, gm = _build(model)
    assert not [n for n in _op_nodes(lib) if n["attrs"].get("per_shape")]
    for x in ([0, 1, 2, 0], [1, 1, 1, 1], [0, 0, 0, 0], [3, 0, 0, 1]):
        gm.set_input(x=np.array(x, "float32"))
        gm.run()
        np.testing.assert_array_equal(gm.get_output(0).numpy(), np.arange(np.count_nonzero(x)))


def test_a_failed_run_leaves_no_stale_values():
    """Position ids sliced from a buffer of 8: a longer sequence gets 8 ids (Slice clamps) that do not broadcast
    with x, an error after the per-shape nodes ran. The runs after it are right at the old shape and others."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Slice", ["shape", "s1", "s2"], ["seq"]),
        helper.make_node("Slice", ["buffer", "zero1", "seq", "zero1"], ["ids"]),
        helper.make_node("Cast", ["ids"], ["idsf"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "idsf"], ["y"]),
    ]
    inits = [_int64s("s1", [1]), _int64s("s2", [2]), _int64s("zero1", [0]),
             helper.make_tensor("buffer", TensorProto.INT64, [8], list(range(8)))]
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq"])], inits)
    lib, gm = _build(model)
    assert [n for n in _op_nodes(lib) if n["attrs"].get("per_shape")]

    def check(seq):
        x = np.random.default_rng(seq).standard_normal((2, seq)).astype("float32")
        gm.set_input(x=x)
        gm.run()
        np.testing.assert_array_equal(gm.get_output(0).numpy(), x + np.arange(seq, dtype="float32"))

    check(5)
    for _ in range(2):
        gm.set_input(x=np.zeros((2, 9), "float32"))
        with pytest.raises(tvmlite.TVMLiteError, match="do not broadcast"):
            gm.run()
    check(5)
    check(8)
    check(5)


def _per_shape_graph():
    lib, _ = _build(_causal_scores_model())
    return json.loads(lib.get_graph_json()), lib.get_params()


@pytest.mark.parametrize("value", ["yes", 2, -1])
def test_per_shape_must_be_zero_or_one(value):
    graph, params = _per_shape_graph()
    next(n for n in graph["nodes"] if n["op"] != "null" and n["attrs"].get("per_shape"))["attrs"]["per_shape"] = value
    with pytest.raises(tvmlite.TVMLiteError, match="per_shape must be 0 or 1") as info:
        ExecutorFactoryModule(json.dumps(graph), params)
    assert isinstance(info.value, ValueError)


def test_a_select_cannot_be_per_shape():
    from tvmlite import relay
    x, c = relay.var("x", shape=(3, 4)), relay.var("c", shape=(), dtype="bool")
    y = relay.op.control.if_(c, relay.Function([], relay.exp(x)), relay.Function([], relay.tanh(x)))
    lib = tvmlite.build(relay.Function([x, c], relay.nn.relu(y)), target="cpu")
    graph = json.loads(lib.get_graph_json())
    select = next(n for n in graph["nodes"] if n["op"] != "null" and n["attrs"]["func_name"] == "__select")
    select["attrs"]["per_shape"] = 1
    with pytest.raises(tvmlite.TVMLiteError, match="cannot be per_shape"):
        ExecutorFactoryModule(json.dumps(graph), lib.get_params())


def test_per_shape_values_inside_a_branch():
    """A merged decoder's branches: position ids from Shape(x) in the then-branch are computed when the branch is
    taken with new shapes, and kept while the other branch runs at the same shapes."""
    from tvmlite import relay
    seq = tvmlite.ir.SizeVar("seq")
    x, c = relay.var("x", shape=(2, seq)), relay.var("c", shape=(), dtype="bool")
    ids = relay.cast(relay.arange(relay.take(relay.shape_of(x), relay.const(1, "int64")), dtype="int64"), "float32")
    y = relay.op.control.if_(c, relay.Function([], relay.add(x, ids)), relay.Function([], relay.negative(x)))
    lib = tvmlite.build(relay.Function([x, c], y), target="cpu")
    nodes = _op_nodes(lib)
    assert [n for n in nodes if n["attrs"].get("per_shape") and "guard" in n["attrs"]]
    gm = GraphModule(lib["default"]())
    rng = np.random.default_rng(0)
    for cond, length in [(True, 4), (False, 4), (True, 4), (False, 6), (True, 6), (True, 4), (False, 3), (True, 3)]:
        v = rng.standard_normal((2, length)).astype("float32")
        gm.set_input(x=v, c=np.array(cond))
        gm.run()
        want = v + np.arange(length, dtype="float32") if cond else -v
        np.testing.assert_array_equal(gm.get_output(0).numpy(), want)
