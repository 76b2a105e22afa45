"""ONNX Loop and Scan as executor constructs (csrc/backend/graph_codegen.cc, LowerLoop; graph_executor.cc, "Loop
and Scan"): one "__loop" / "__scan" node whose body is a native graph of its own, run by a child executor, checked
against onnxruntime at several shapes through one build; the errors the numpy reference gives; the reference kept
for what the node cannot carry (sequences); export and load."""
import json
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import tvmlite
from tvmlite.frontend import from_onnx
from tvmlite.runtime import GraphModule, load_module
from tvmlite.runtime.fallbacks import FallbackWarning

REFERENCE = "relay.backend.reference"


def loop_model(opset=16, n="N"):
    """y = x; for i < M while cond: y = y * 2 + i; cond = sum(y) < limit; scan out y. Outputs final y, stacked ys."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["y_in", "two"], ["y2"]),
         helper.make_node("Add", ["y2", "i_f"], ["y_out"]),
         helper.make_node("ReduceSum", ["y_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["cond_out"]),
         helper.make_node("Identity", ["y_out"], ["scan_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [n])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [n]),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, [n])],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "cond", "x"], ["y", "ys"], body=body)],
        "loop",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [n]),
         helper.make_tensor_value_info("limit", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [None, n])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def growing_loop_model(opset=16, scan_out=False):
    """acc = concat(acc, x * i) each iteration: the carried value grows (with scan_out, also a scan output)."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["x", "i_f"], ["xi"]),
         helper.make_node("Concat", ["acc_in", "xi"], ["acc_out"], axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])] +
        ([helper.make_node("Identity", ["acc_out"], ["acc_scan"])] if scan_out else []),
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [None, 3])] +
        ([helper.make_tensor_value_info("acc_scan", TensorProto.FLOAT, [None, 3])] if scan_out else []))
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "acc0"], ["acc"] + (["accs"] if scan_out else []), body=body)],
        "grow",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("acc0", TensorProto.FLOAT, ["K", 3]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["R", 3])],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, [None, 3])] +
        ([helper.make_tensor_value_info("accs", TensorProto.FLOAT, [None, None, 3])] if scan_out else []))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def scan_model():
    """Scan-9: cumulative sum of x (axis 1, reversed) and of w (axis 0, forward); outputs on axes 0 and 1."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
         helper.make_node("Mul", ["s_out", "w_t"], ["y_t"]),
         helper.make_node("Identity", ["s_out"], ["z_t"])],
        "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, ["C"]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, ["C"]),
         helper.make_tensor_value_info("w_t", TensorProto.FLOAT, ["C"])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, ["C"]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, ["C"]),
         helper.make_tensor_value_info("z_t", TensorProto.FLOAT, ["C"])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["s0", "x", "w"], ["s", "y", "z"], body=body, num_scan_inputs=2,
                          scan_input_axes=[1, 0], scan_input_directions=[1, 0],
                          scan_output_axes=[0, 1], scan_output_directions=[0, 1])],
        "scan",
        [helper.make_tensor_value_info("s0", TensorProto.FLOAT, ["C"]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["C", "T"]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, ["T", "C"])],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, ["C"]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["T", "C"]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, ["C", "T"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])


def bfloat16_loop_model():
    """y = y * y + y rounded to bfloat16 (a cast with no native kernel: on the reference)."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["y_in"], ["s"], to=TensorProto.BFLOAT16),
         helper.make_node("Cast", ["s"], ["s_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["y_in", "y_in"], ["yy"]),
         helper.make_node("Add", ["yy", "s_f"], ["y_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, ["A", "B"])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, ["A", "B"])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "y0"], ["y"], body=body)],
        "bfloat16_loop",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("y0", TensorProto.FLOAT, ["A", "B"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["A", "B"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def sequence_loop_model():
    """A sequence carried by the loop (x * (i + 1) appended each iteration); its last element and its length."""
    body = helper.make_graph(
        [helper.make_node("Add", ["i", "one"], ["i1"]),
         helper.make_node("Cast", ["i1"], ["i_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["x", "i_f"], ["xi"]),
         helper.make_node("SequenceInsert", ["seq_in", "xi"], ["seq_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_in", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_out", TensorProto.FLOAT, None)],
        [helper.make_tensor("one", TensorProto.INT64, [], [1])])
    graph = helper.make_graph(
        [helper.make_node("SequenceEmpty", [], ["seq0"], dtype=TensorProto.FLOAT),
         helper.make_node("Loop", ["M", "", "seq0"], ["seq"], body=body),
         helper.make_node("SequenceAt", ["seq", "last"], ["y"]),
         helper.make_node("SequenceLength", ["seq"], ["n"])],
        "sequence_loop",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("n", TensorProto.INT64, [])],
        [helper.make_tensor("last", TensorProto.INT64, [], [-1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def passthrough_loop_model():
    """loop(M, a = x * 2) with a body returning its carried value as it is, then b = x + 1 (which may take a's
    storage once the loop has read a)."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["y_in"], ["y_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [4, 8])])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["a"]),
         helper.make_node("Loop", ["M", "", "a"], ["y"], body=body),
         helper.make_node("Add", ["x", "one"], ["b"]),
         helper.make_node("Exp", ["b"], ["c"])],
        "passthrough",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8]),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
         helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def nested_loop_model():
    """for i < M: y = inner(y), where inner: for j < K: y = y * 0.5 + x (x an outer value of both bodies)."""
    inner = helper.make_graph(
        [helper.make_node("Mul", ["z_in", "half"], ["zh"]),
         helper.make_node("Add", ["zh", "x"], ["z_out"]),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "inner",
        [helper.make_tensor_value_info("j", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("z_in", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("z_out", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])])
    outer = helper.make_graph(
        [helper.make_node("Loop", ["K", "", "y_in"], ["y_out"], body=inner),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "outer",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, ["N"])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "y0"], ["y"], body=outer)],
        "nested",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("K", TensorProto.INT64, []),
         helper.make_tensor_value_info("y0", TensorProto.FLOAT, ["N"]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def loop_in_if_model():
    """if flag: y = loop(M, x) (y = y * 2 + i each iteration) else y = x - 1."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["y_in", "two"], ["y2"]),
         helper.make_node("Add", ["y2", "i_f"], ["y_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])
    then = helper.make_graph([helper.make_node("Loop", ["M", "", "x"], ["yt"], body=body)], "then", [],
                             [helper.make_tensor_value_info("yt", TensorProto.FLOAT, ["N"])])
    other = helper.make_graph([helper.make_node("Sub", ["x", "one"], ["ye"])], "else", [],
                              [helper.make_tensor_value_info("ye", TensorProto.FLOAT, ["N"])],
                              [helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], then_branch=then, else_branch=other)],
        "loop_in_if",
        [helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
         helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def scan8_model(sb="B", xb="B", c=2):
    """Scan-8 (a batch axis first): a reversed cumulative sum per batch row."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]), helper.make_node("Identity", ["s_out"], ["y_t"])],
        "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [c]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [c])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [c]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [c])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["", "s0", "x"], ["s", "y"], body=body, num_scan_inputs=1, directions=[1])],
        "scan8",
        [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [sb, c]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [xb, "T", c])],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [sb, c]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [xb, "T", c])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])


def weighted_loop_model():
    """y = tanh(y @ W + b) M times, W and b initializers of the body (params of the built graph the node reads)."""
    rng = np.random.default_rng(10)
    w = rng.standard_normal((4, 4)).astype("float32") / 2
    b = rng.standard_normal(4).astype("float32")
    body = helper.make_graph(
        [helper.make_node("MatMul", ["y_in", "W"], ["yw"]),
         helper.make_node("Add", ["yw", "b"], ["ywb"]),
         helper.make_node("Tanh", ["ywb"], ["y_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, ["R", 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, ["R", 4])],
        [helper.make_tensor("W", TensorProto.FLOAT, [4, 4], w.ravel()),
         helper.make_tensor("b", TensorProto.FLOAT, [4], b)])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "y0"], ["y"], body=body)],
        "weighted_loop",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("y0", TensorProto.FLOAT, ["R", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["R", 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def _build(model, target="cpu"):
    onnx.checker.check_model(model)
    mod, params = from_onnx(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)  # an all-native build warns nothing
        return tvmlite.build(mod, target=target, params=params)


def _run(lib, feeds):
    gm = GraphModule(lib["default"]())
    for k, v in feeds.items():
        gm.set_input(k, v)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


def _check(model, lib, feeds):
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    got = _run(lib, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _loop_nodes(lib):
    """The graph's loop and scan nodes; each must run natively, its body with no reference node."""
    nodes = [n for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] != "null"]
    loops = [n for n in nodes if n["attrs"]["func_name"] in ("__loop", "__scan")]
    for n in loops:
        body = [b["attrs"]["func_name"] for b in n["attrs"]["body"]["nodes"] if b["op"] != "null"]
        assert REFERENCE not in body
    assert lib.fallbacks() == []
    return loops


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


def test_loop_with_trip_count_cond_and_scan_output_at_several_shapes():
    model = loop_model()
    lib = _build(model)
    [node] = _loop_nodes(lib)
    assert node["attrs"]["func_name"] == "__loop" and node["attrs"]["returns"] == "outputs"
    rng = np.random.default_rng(0)
    big = np.array(1e9, "float32")
    _check(model, lib, dict(M=np.array(5), cond=np.array(True), x=_f32(rng, 3), limit=big))
    _check(model, lib, dict(M=np.array(9), cond=np.array(True), x=np.abs(_f32(rng, 4)),
                            limit=np.array(20, "float32")))  # cond stops it before M
    _check(model, lib, dict(M=np.array(2), cond=np.array(True), x=_f32(rng, 7), limit=big))


def test_loop_whose_carried_value_grows():
    model = growing_loop_model()
    lib = _build(model)
    [node] = _loop_nodes(lib)
    assert node["attrs"]["func_name"] == "__loop"
    rng = np.random.default_rng(1)
    _check(model, lib, dict(M=np.array(3), acc0=_f32(rng, 2, 3), x=_f32(rng, 1, 3)))
    _check(model, lib, dict(M=np.array(4), acc0=_f32(rng, 0, 3), x=_f32(rng, 2, 3)))


def test_loop_of_zero_iterations():
    model = loop_model(n=2)  # static elements: the empty stack has a known shape
    lib = _build(model)
    _loop_nodes(lib)
    rng = np.random.default_rng(2)
    big = np.array(1e9, "float32")
    _check(model, lib, dict(M=np.array(0), cond=np.array(True), x=_f32(rng, 2), limit=big))
    _check(model, lib, dict(M=np.array(4), cond=np.array(False), x=_f32(rng, 2), limit=big))
    _check(model, lib, dict(M=np.array(3), cond=np.array(True), x=_f32(rng, 2), limit=big))


@pytest.mark.parametrize("target", ["debug", "cpu"])
def test_zero_iterations_with_symbolic_elements_is_the_references_error(target):
    lib = _build(loop_model(), target)
    feeds = dict(M=np.array(0), cond=np.array(True), x=np.ones(3, "float32"), limit=np.array(1.0, "float32"))
    with pytest.raises(ValueError, match=r"^loop: no iteration ran, and the stacked output's element type "
                                         r"Tensor\[\(N,\), float32\] has symbolic dims"):
        _run(lib, feeds)


@pytest.mark.parametrize("target", ["debug", "cpu"])
def test_scan_outputs_changing_shape_is_the_references_error(target):
    lib = _build(growing_loop_model(scan_out=True), target)
    feeds = dict(M=np.array(3), acc0=np.ones((1, 3), "float32"), x=np.ones((1, 3), "float32"))
    with pytest.raises(ValueError, match=r"^loop: loop scan outputs changed shape across iterations: "
                                         r"\(2, 3\), \(3, 3\), \(4, 3\)"):
        _run(lib, feeds)


def test_a_value_passed_through_is_the_loops_own():
    """The body returns what it was given: the node's output must not be the storage main reuses after it."""
    model = passthrough_loop_model()
    lib = _build(model)
    _loop_nodes(lib)
    x = np.random.default_rng(5).standard_normal((4, 8)).astype("float32")
    for m in (0, 3):
        _check(model, lib, dict(M=np.array(m), x=x))


def test_a_loop_in_a_loop_body_is_a_loop_node_of_the_body():
    model = nested_loop_model()
    lib = _build(model)
    [node] = _loop_nodes(lib)
    assert [b["attrs"]["func_name"] for b in node["attrs"]["body"]["nodes"] if b["op"] != "null"] == ["__loop"]
    rng = np.random.default_rng(6)
    for n in (3, 5):
        _check(model, lib, dict(M=np.array(3), K=np.array(4), y0=_f32(rng, n), x=_f32(rng, n)))


def test_a_loop_in_an_if_branch_runs_when_its_branch_is_taken():
    model = loop_in_if_model()
    lib = _build(model)
    [node] = _loop_nodes(lib)
    assert node["attrs"]["guard"] == [[0, 0, 1]]  # the If's condition (input 0) must be true
    rng = np.random.default_rng(7)
    for flag, n in ((True, 3), (False, 4), (True, 5)):
        _check(model, lib, dict(flag=np.array(flag), M=np.array(3), x=_f32(rng, n)))


def test_scan_with_axes_and_directions_at_several_shapes():
    model = scan_model()
    lib = _build(model)
    [node] = _loop_nodes(lib)
    assert node["attrs"]["func_name"] == "__scan"
    rng = np.random.default_rng(3)
    _check(model, lib, dict(s0=_f32(rng, 3), x=_f32(rng, 3, 4), w=_f32(rng, 4, 3)))
    _check(model, lib, dict(s0=_f32(rng, 2), x=_f32(rng, 2, 6), w=_f32(rng, 6, 2)))


def test_batched_scan_of_opset_8():
    model = scan8_model()
    lib = _build(model)
    [node] = _loop_nodes(lib)
    assert node["attrs"]["kernel_attrs"]["batched"] == 1
    rng = np.random.default_rng(8)
    _check(model, lib, dict(s0=_f32(rng, 2, 2), x=_f32(rng, 2, 3, 2)))
    s0 = _f32(rng, 3, 2)  # sequences of length 0 (onnxruntime's final states are then uninitialised memory)
    s, y = _run(lib, dict(s0=s0, x=_f32(rng, 3, 0, 2)))
    np.testing.assert_array_equal(s, s0)
    assert y.shape == (3, 0, 2)


@pytest.mark.parametrize("target", ["debug", "cpu"])
def test_scan_errors_are_the_references(target):
    rng = np.random.default_rng(9)
    lib = _build(scan8_model("B1", "B2"), target)  # states with fewer batch rows than the scan input
    with pytest.raises(IndexError, match=r"^scan: index 1 is out of bounds for axis 0 with size 1"):
        _run(lib, dict(s0=_f32(rng, 1, 2), x=_f32(rng, 3, 2, 2)))
    lib = _build(scan_model(), target)
    with pytest.raises(ValueError, match=r"^scan: no iteration ran, and the stacked output's element type "
                                         r"Tensor\[\(C,\), float32\] has symbolic dims"):
        _run(lib, dict(s0=_f32(rng, 3), x=_f32(rng, 3, 0), w=_f32(rng, 0, 3)))


def test_profile_shows_the_loop_as_one_native_node():
    lib = _build(growing_loop_model())
    gm = GraphModule(lib["default"]())
    gm.set_input("M", np.array(2))
    gm.set_input("acc0", np.ones((1, 3), "float32"))
    gm.set_input("x", np.ones((1, 3), "float32"))
    records = gm.profile(file=False)
    assert [r["func_name"] for r in records] == ["__loop"]
    assert records[0]["shape"] == (3, 3)


def test_a_body_reference_node_is_listed_under_the_loop():
    mod, params = from_onnx(bfloat16_loop_model())
    with pytest.warns(FallbackWarning):
        lib = tvmlite.build(mod, target="cpu", params=params)
    names = [f["name"] for f in lib.fallbacks()]
    assert names and all(n.startswith("tvmlite_loop_0/") for n in names)
    assert all("bfloat16" in f["reason"] for f in lib.fallbacks())
    _check(bfloat16_loop_model(), lib, dict(M=np.array(3), y0=np.full((2, 5), 0.5, "float32")))


def test_sequence_carried_values_stay_on_the_reference():
    model = sequence_loop_model()
    mod, params = from_onnx(model)
    with pytest.warns(FallbackWarning):
        lib = tvmlite.build(mod, target="cpu", params=params)
    [f] = [f for f in lib.fallbacks() if "loop" in f["name"]]  # the sequence ops around it are references too
    assert f["name"] == "tvmlite_loop_0"
    assert f["reason"].startswith("loop: its body takes a value of type Sequence[")
    assert f["reason"].endswith("(the loop node carries tensors only)")
    x = np.arange(6, dtype="float32").reshape(2, 3)
    _check(model, lib, dict(M=np.array(3), x=x))


def _invariant_softmax_loop_model():
    """acc = acc + softmax(x) each iteration: softmax(x) reads no loop variable (and is a group of its own)."""
    body = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["sm"], axis=0),
         helper.make_node("Add", ["acc_in", "sm"], ["acc_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["N"])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "x"], ["acc"], body=body)], "softmax_loop",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, ["N"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def test_loop_invariant_values_are_computed_once_unless_random():
    """A body's loop-invariant work runs once, in the main graph; an op that draws random numbers (op attribute
    TNonDeterministic, here set on nn.softmax for the test) stays in the body, drawing anew every iteration."""
    model = _invariant_softmax_loop_model()

    def body_names():
        [node] = _loop_nodes(_build(model))
        return [b["name"] for b in node["attrs"]["body"]["nodes"] if b["op"] != "null"]

    assert body_names() == ["tvmlite_add_0"]  # softmax hoisted into main
    op = tvmlite.ir.Op.get("nn.softmax")
    assert op.get_attr_level("TNonDeterministic") is None
    op.set_attr("TNonDeterministic", True, 1)
    try:
        assert any("softmax" in name for name in body_names())
    finally:
        op.reset_attr("TNonDeterministic")
    _check(model, _build(model), dict(M=np.array(3), x=np.arange(4, dtype="float32")))


def test_a_bodys_constants_are_params_of_the_graph():
    model = weighted_loop_model()
    lib = _build(model)
    [node] = _loop_nodes(lib)
    body_params = node["attrs"]["kernel_attrs"]["body_params"]
    assert body_params and len(lib.get_params()) >= len(body_params)
    rng = np.random.default_rng(11)
    for rows in (1, 3):
        _check(model, lib, dict(M=np.array(5), y0=_f32(rng, rows, 4)))


def test_export_and_load_a_model_with_a_loop(tmp_path):
    rng = np.random.default_rng(4)
    for model, feeds in ((loop_model(), lambda n: dict(M=np.array(4), cond=np.array(True), x=_f32(rng, n),
                                                        limit=np.array(1e9, "float32"))),
                         (weighted_loop_model(), lambda n: dict(M=np.array(3), y0=_f32(rng, n, 4)))):
        lib = _build(model)
        path = str(tmp_path / "loop.tvmlite")
        lib.export_library(path)
        loaded = load_module(path)
        assert loaded.fallbacks() == []
        assert [n["attrs"]["func_name"] for n in json.loads(loaded.get_graph_json())["nodes"] if n["op"] != "null"] \
            == ["__loop"]
        for n in (3, 5):
            _check(model, loaded, feeds(n))


def _with_loop_node(lib, edit):
    """lib's graph JSON with edit(loop_node) applied, and its params."""
    graph = json.loads(lib.get_graph_json())
    edit(next(n for n in graph["nodes"] if n["op"] != "null" and n["attrs"]["func_name"] == "__loop"))
    return json.dumps(graph), lib.get_params()


@pytest.mark.parametrize("edit, message", [
    (lambda n: n["attrs"].pop("body"), "graph executor: the graph has no 'body'"),
    (lambda n: n["attrs"].pop("returns"),
     'graph executor: tvmlite_loop_0 must say "returns": "outputs" and not be per_shape'),
    (lambda n: n["attrs"]["kernel_attrs"].update(num_carried=2),
     "graph executor: tvmlite_loop_0 reads 3 entries, its kernel_attrs say 4"),
    (lambda n: (n["attrs"]["kernel_attrs"].update(body_params=["p9"]), n["inputs"].append([0, 0, 0])),
     "graph executor: tvmlite_loop_0's body param p9 is not a param of the graph"),
    (lambda n: n["attrs"]["body"]["nodes"].pop(),
     "graph executor: node_row_ptr does not match the nodes"),
])
def test_a_malformed_loop_node_is_a_value_error(edit, message):
    from tvmlite.runtime.executor_factory import ExecutorFactoryModule

    graph_json, params = _with_loop_node(_build(growing_loop_model()), edit)
    with pytest.raises(ValueError) as info:
        ExecutorFactoryModule(graph_json, params)
    assert str(info.value).splitlines()[0] == message
