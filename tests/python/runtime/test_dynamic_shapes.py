"""One build, every shape: native kernels on symbolic dims (csrc/backend/graph_executor.cc, "Symbolic shapes"; the
shape functions of csrc/backend/shape_func.h), the reasons reference nodes carry (lib.fallbacks(), FallbackWarning,
the profile's marks), and graphs whose shape functions are malformed."""
import json
import warnings

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.frontend import from_onnx
from tvmlite.models import cnn
from tvmlite.runtime import GraphModule
from tvmlite.runtime.executor_factory import ExecutorFactoryModule
from tvmlite.runtime.fallbacks import FallbackWarning

REFERENCE = "relay.backend.reference"


def _kernels(lib):
    return [n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] != "null"]


def _run(gm, **inputs):
    for k, v in inputs.items():
        gm.set_input(k, v)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


@pytest.fixture(scope="module")
def resnet():
    """A small ResNet-18 with a symbolic batch, built once; its static twin built per batch by _static."""
    mod, params = from_onnx(cnn.resnet(18, batch="N", image_size=32, width=0.25))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)  # an all-native build warns nothing
        return tvmlite.build(mod, target="cpu", params=params)


def _static(batch):
    mod, params = from_onnx(cnn.resnet(18, batch=batch, image_size=32, width=0.25))
    return tvmlite.build(mod, target="cpu", params=params)


def test_symbolic_batch_runs_every_node_natively(resnet):
    kernels = _kernels(resnet)
    assert REFERENCE not in kernels and len(kernels) > 20
    assert resnet.fallbacks() == []
    graph = json.loads(resnet.get_graph_json())
    dynamic = [n for n in graph["nodes"] if n["op"] != "null" and "shape_func" in n["attrs"]]
    assert len(dynamic) == len(kernels)  # every node's output has the batch dim


def test_one_build_serves_every_batch_as_the_static_build(resnet):
    gm = GraphModule(resnet["default"]())
    rng = np.random.default_rng(0)
    # New shapes, a repeat, smaller after larger (storages grown once stay; views are re-made per shape).
    for batch in (2, 1, 3, 2, 1):
        x = rng.standard_normal((batch, 3, 32, 32)).astype("float32")
        (got,) = _run(gm, input=x)
        st = GraphModule(_static(batch)["default"]())
        (want,) = _run(st, input=x)
        assert got.shape == (batch, 1000)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_shape_no_relation_accepts_is_a_clear_error_and_the_executor_goes_on(resnet):
    """Batch 0: Flatten's reshape (0, -1) cannot infer its -1 (numpy's rule; onnxruntime gives (0, 128)): the shape
    function says so, naming the op, and the next run works."""
    gm = GraphModule(resnet["default"]())
    with pytest.raises(tvmlite.TVMLiteError, match=r"reshape: cannot infer the -1 dim of \(0, -1\)"):
        _run(gm, input=np.zeros((0, 3, 32, 32), "float32"))
    (got,) = _run(gm, input=np.ones((2, 3, 32, 32), "float32"))
    assert got.shape == (2, 1000) and np.isfinite(got).all()


def _symbolic_pair():
    """tanh(x + y) over a symbolic batch n: both inputs must agree at run time."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Tanh", ["s"], ["out"])], "pair",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["n", 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, params = from_onnx(model)
    return tvmlite.build(mod, target="cpu", params=params)


def test_inputs_disagreeing_on_a_symbolic_dim_are_a_clear_error():
    lib = _symbolic_pair()
    assert REFERENCE not in _kernels(lib)
    gm = GraphModule(lib["default"]())
    a, b = np.ones((2, 4), "float32"), np.ones((3, 4), "float32")
    with pytest.raises(tvmlite.TVMLiteError, match=r"\(2, 4\).*\(3, 4\)|\(3, 4\).*\(2, 4\)|broadcast"):
        _run(gm, x=a, y=b)
    (got,) = _run(gm, x=a, y=a)  # the executor still works
    np.testing.assert_allclose(got, np.tanh(a + a), rtol=1e-6)


def _top_k_of_positives(x):
    """transpose(topk(x, k, axis=1)) with k the number of positives in x's first row: a value-dependent shape
    through dyn.topk, an op with no native kernel (the others here have one)."""
    positive = relay.cast(relay.greater(relay.strided_slice(x, [0], [1]), relay.const(np.float32(0))), "float32")
    return relay.transpose(relay.topk(x, relay.cast(relay.sum(positive), "int64"), axis=1, ret_type="values"))


def test_reference_nodes_say_why_and_the_build_warns_once():
    x = relay.var("x", shape=(16, 24))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib = tvmlite.build(relay.Function([x], relay.Tuple([_top_k_of_positives(x), relay.tanh(x)])), target="cpu")
    mine = [w for w in caught if issubclass(w.category, FallbackWarning)]
    assert len(mine) == 1
    assert "1 of 8 graph nodes run on the numpy reference" in str(mine[0].message)
    assert lib.fallbacks() == [{"name": "tvmlite_dyn_topk_0", "reason": "op dyn.topk has no native kernel"}]
    # The transpose of dyn.topk's value-dependent shape runs natively, on its shape at each run.
    assert "topi.transpose" in _kernels(lib)
    gm = GraphModule(lib["default"]())
    gm.set_input("x", np.linspace(-1, 1, 16 * 24, dtype="float32").reshape(16, 24))
    records = gm.profile(file=False)
    table = tvmlite.runtime.graph_module.format_profile(records)
    assert table.count("(numpy fallback)") == 1
    assert "on the numpy reference   1 nodes" in table


# -- malformed shape functions: the graph is input (load_module) ----------------------------------------------------

@pytest.fixture(scope="module")
def pair_graph():
    lib = _symbolic_pair()
    return json.loads(lib.get_graph_json()), lib.get_params()


def _tampered(pair_graph, change):
    graph, params = pair_graph
    graph = json.loads(json.dumps(graph))
    node = next(n for n in graph["nodes"] if n["op"] != "null" and "shape_func" in n["attrs"])
    change(node["attrs"])
    return json.dumps(graph), params


@pytest.mark.parametrize("change,message", [
    (lambda a: a.update(shape_func="{not json"), "shape_func"),
    (lambda a: a.update(shape_func=json.dumps({"root": 1, "nodes": [{"type_key": "relay.Op"}]})), "shape_func"),
    (lambda a: a.update(shape_func=5), "shape_func"),
    (lambda a: a.pop("shape_args"), "both shape_func"),
    (lambda a: a.update(shape_args=[[[99, 0, 0]]]), "shape_args"),
    (lambda a: a.update(shape_args=[]), "one entry list per shape_func param"),
    (lambda a: a.update(shape_args=[[[0, 0, 0]], "x"]), "shape_args are malformed"),
    (lambda a: (a.pop("shape_func"), a.pop("shape_args")), "symbolic shape and no shape_func"),
], ids=["text", "not-a-function", "not-a-string", "no-args", "later-entry", "count", "malformed", "none"])
def test_malformed_shape_functions_are_value_errors(pair_graph, change, message):
    text, params = _tampered(pair_graph, change)
    with pytest.raises(tvmlite.TVMLiteError, match=message) as info:
        ExecutorFactoryModule(text, params)
    assert isinstance(info.value, ValueError)


def test_a_shape_function_of_another_node_fails_at_run_time_not_silently(pair_graph):
    """A shape function that computes a shape other than the kernel's: the kernel's own check stops the run."""
    graph, params = pair_graph
    n = tvmlite.ir.SizeVar("n")
    func = relay.Function([relay.var("s0", shape=(n, 4)), relay.var("s1", shape=(n, 4))],
                          relay.var("a", shape=(2, 5)))
    text, params = _tampered(pair_graph, lambda a: a.update(shape_func=tvmlite.runtime.save_json(func)))
    gm = GraphModule(ExecutorFactoryModule(text, params)["default"]())
    x = np.ones((2, 4), "float32")
    with pytest.raises(tvmlite.TVMLiteError):
        _run(gm, x=x, y=x)


def _returning_graph():
    """reshape(x, shape_of(x)[::-1]) over symbolic dims: a dyn.reshape node whose kernel returns a view."""
    n, m = tvmlite.ir.SizeVar("n"), tvmlite.ir.SizeVar("m")
    x = relay.var("x", shape=(n, m))
    shape = relay.shape_of(x)
    flipped = relay.concatenate([relay.strided_slice(shape, [1], [2]), relay.strided_slice(shape, [0], [1])], 0)
    lib = tvmlite.build(relay.Function([x], relay.nn.relu(relay.reshape(x, flipped))), target="cpu")
    return json.loads(lib.get_graph_json()), lib.get_params()


def test_a_view_returning_kernel_runs_natively_and_its_input_stays_alive():
    graph, params = _returning_graph()
    kinds = {n["attrs"]["func_name"]: n["attrs"].get("returns") for n in graph["nodes"] if n["op"] != "null"}
    assert kinds["topi.dyn.reshape"] == "view" and REFERENCE not in kinds
    gm = GraphModule(ExecutorFactoryModule(json.dumps(graph), params)["default"]())
    for shape in ((2, 6), (3, 1), (4, 5)):
        x = np.arange(np.prod(shape), dtype="float32").reshape(shape) - 3
        (got,) = _run(gm, x=x)
        np.testing.assert_array_equal(got, np.maximum(x.reshape(shape[::-1]), 0))


@pytest.mark.parametrize("func_name,returns,message", [
    ("topi.dyn.reshape", None, "has an output without storage"),
    ("topi.transpose", "outputs", "writes its outputs: the node must not say"),
])
def test_returns_must_match_the_kernel(func_name, returns, message):
    """A file cannot have a kernel that returns its outputs called as one that writes them, or the reverse (the
    kernel would take an input for its output)."""
    graph, params = _returning_graph()
    node = next(n for n in graph["nodes"] if n["op"] != "null" and n["attrs"]["func_name"] == "topi.dyn.reshape")
    node["attrs"]["func_name"] = func_name
    node["attrs"].pop("returns")
    if returns:
        node["attrs"]["returns"] = returns
    with pytest.raises(tvmlite.TVMLiteError, match=message) as info:
        ExecutorFactoryModule(json.dumps(graph), params)["default"]()
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("returns", ["both", 1])
def test_returns_takes_outputs_or_view(returns):
    graph, params = _returning_graph()
    node = next(n for n in graph["nodes"] if n["op"] != "null" and n["attrs"].get("returns"))
    node["attrs"]["returns"] = returns
    with pytest.raises(tvmlite.TVMLiteError, match="'returns' must be"):
        ExecutorFactoryModule(json.dumps(graph), params)


def _if_graph():
    x, c = relay.var("x", shape=(3, 4)), relay.var("c", shape=(), dtype="bool")
    y = relay.op.control.if_(c, relay.Function([], relay.exp(x)), relay.Function([], relay.tanh(x)))
    lib = tvmlite.build(relay.Function([x, c], relay.nn.relu(y)), target="cpu")
    return json.loads(lib.get_graph_json()), lib.get_params()


def test_if_runs_the_branch_taken_only():
    graph, params = _if_graph()
    gm = GraphModule(ExecutorFactoryModule(json.dumps(graph), params)["default"]())
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
    for cond, want in ((True, np.exp(x)), (False, np.maximum(np.tanh(x), 0))):
        (got,) = _run(gm, x=x, c=np.array(cond))
        np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-6)
        ran = [r["name"] for r in gm.profile(file=False)]
        assert len(ran) == 3  # one branch's node, the select, relu: the other branch never runs


@pytest.mark.parametrize("change,message", [
    (lambda n: n["attrs"].update(guard=[[99, 0, 1]]), "guard must name entries computed before it"),
    (lambda n: n["attrs"].update(guard=[[0, 0, 2]]), "each with 0 or 1"),
    (lambda n: n["attrs"].update(guard="c"), "guard is malformed"),
], ids=["later", "value", "malformed"])
def test_malformed_guards_are_value_errors(change, message):
    graph, params = _if_graph()
    change(next(n for n in graph["nodes"] if n["op"] != "null" and "guard" in n["attrs"]))
    with pytest.raises(tvmlite.TVMLiteError, match=message):
        ExecutorFactoryModule(json.dumps(graph), params)


def test_a_select_must_read_a_condition_and_both_branches():
    graph, params = _if_graph()
    select = next(n for n in graph["nodes"] if n["op"] != "null" and n["attrs"]["func_name"] == "__select")
    select["inputs"] = select["inputs"][:2]
    select["attrs"]["num_inputs"] = "2"
    with pytest.raises(tvmlite.TVMLiteError, match="must read a condition and two values per output"):
        ExecutorFactoryModule(json.dumps(graph), params)


def test_split_at_indices_over_a_symbolic_axis_runs_as_slices():
    """GPT-2's q, k, v: split at indices along an axis whose length is symbolic becomes open-ended strided slices
    (Legalize), native, clamping as numpy's split does when the axis is shorter than the indices."""
    n = tvmlite.ir.SizeVar("n")
    x = relay.var("x", shape=(2, n))
    parts = relay.split(x, [3, 5], axis=1)
    lib = tvmlite.build(relay.Function([x], relay.Tuple([parts[0], parts[1], parts[2]])), target="cpu")
    assert set(_kernels(lib)) == {"topi.strided_slice"}
    gm = GraphModule(lib["default"]())
    for length in (9, 4, 1):
        v = np.arange(2 * length, dtype="float32").reshape(2, length)
        got = _run(gm, x=v)
        for g, w in zip(got, np.split(v, [3, 5], axis=1)):
            np.testing.assert_array_equal(g, w)


def test_a_batch_one_operand_broadcast_over_a_symbolic_batch():
    """DistilBERT's and CLIP's embeddings: word embeddings (batch, seq, C) plus position embeddings gathered with
    position ids of other symbolic dims, 1 x seq at run time. Two different symbolic dims broadcast to a fresh one
    (either may be 1), so the position gather does not take the add as its epilogue and the sum broadcasts."""
    b, s, p, q = (tvmlite.ir.SizeVar(v) for v in ("batch", "seq", "p", "q"))
    words, ids = relay.var("words", shape=(b, s, 8)), relay.var("ids", shape=(p, q), dtype="int64")
    table = np.random.default_rng(0).standard_normal((16, 8)).astype("float32")
    lib = tvmlite.build(relay.Function([words, ids], relay.add(words, relay.take(relay.const(table), ids, axis=0))),
                        target="cpu")
    assert lib.fallbacks() == []
    gm = GraphModule(lib["default"]())
    w = np.random.default_rng(1).standard_normal((4, 5, 8)).astype("float32")
    i = np.arange(5, dtype="int64").reshape(1, 5)
    (got,) = _run(gm, words=w, ids=i)
    np.testing.assert_allclose(got, w + table[i], rtol=1e-6)
