"""DynamicToStatic: every dyn.* op whose shape-like inputs are constants becomes its static op with a static type,
and the debug executor gives the same result before and after; inputs that are not constant, or values the
static op rejects, leave the dyn op; the cpu build of an ONNX model whose shape inputs are params has no "?" dim.
"""
import json

import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay import transform

from ir_calls import op_names

I64_MAX = np.iinfo(np.int64).max


def _ops(mod):
    return sorted(op_names(mod))


def _static(ty):
    fields = ty.fields if hasattr(ty, "fields") else [ty]
    return all(isinstance(d, int) for f in fields for d in f.shape)


def _bound(build, x_shape, x_dtype, value):
    """main(x) = build(x, p) with the param p bound to the constant value."""
    x = relay.var("x", shape=x_shape, dtype=x_dtype)
    p = relay.var("p", shape=np.shape(value), dtype=str(np.asarray(value).dtype))
    func = relay.Function([x, p], build(x, p))
    return ir.IRModule.from_expr(transform.bind_params_by_name(func, {"p": np.asarray(value)}))


def _data(shape, dtype, rng):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


F32 = "float32"
_ONE = relay.const(np.float32(1.0))
_ZERO = relay.const(np.float32(0.0))

# (id, builder(x, p), x shape, x dtype, constant for p, the static op expected)
_UNPOOL_INDICES = relay.const(np.array([0, 3, 9, 14], "int64").reshape(1, 1, 2, 2))

CASES = [
    ("col2im", lambda x, p: relay.nn.col2im(x, p, relay.const(np.array([1, 2], "int64"))), (1, 6, 8), F32,
     np.array([4, 3], "int64"), "nn.col2im"),
    ("max_unpool", lambda x, p: relay.nn.max_unpool2d(x, _UNPOOL_INDICES, pool_size=2, strides=2, output_shape=p),
     (1, 1, 2, 2), F32, np.array([1, 1, 5, 5], "int64"), "nn.max_unpool2d"),
    ("reshape", lambda x, p: relay.reshape(x, p), (2, 3, 4), F32, np.array([0, -1], "int64"), "reshape"),
    ("reshape_int32", lambda x, p: relay.reshape(x, p), (2, 3, 4), F32, np.array([4, 0, -1], "int32"), "reshape"),
    ("reshape_allowzero", lambda x, p: relay.reshape(x, p, allowzero=True), (2, 0, 3), F32,
     np.array([0, 5], "int64"), "reshape"),
    ("squeeze", lambda x, p: relay.squeeze(x, p), (2, 1, 3, 1), F32, np.array([-1, 1], "int64"), "squeeze"),
    ("squeeze_none", lambda x, p: relay.squeeze(x, p), (2, 1), F32, np.zeros(0, "int64"), "squeeze"),
    ("expand_dims", lambda x, p: relay.expand_dims(x, p), (2, 3), F32, np.array([0, -1], "int64"), "expand_dims"),
    ("expand_dims_unsorted", lambda x, p: relay.expand_dims(x, p), (2, 3), F32, np.array([3, 1], "int64"),
     "expand_dims"),
    ("broadcast_to", lambda x, p: relay.broadcast_to(x, p), (3, 1), F32, np.array([2, 1, 4], "int64"),
     "broadcast_to"),
    ("broadcast_to_lower_rank", lambda x, p: relay.broadcast_to(x, p), (2, 3, 1), F32, np.array([5], "int64"),
     "broadcast_to"),
    ("tile", lambda x, p: relay.tile(x, p), (2, 3), F32, np.array([2, 1, 2], "int64"), "tile"),
    ("strided_slice", lambda x, p: relay.strided_slice(x, p, relay.const(np.array([I64_MAX, -7], "int64")),
                                                        strides=relay.const(np.array([2, -2], "int64")),
                                                        axes=relay.const(np.array([0, -1], "int64"))),
     (5, 4, 6), F32, np.array([1, 5], "int64"), "strided_slice"),
    ("strided_slice_negative", lambda x, p: relay.strided_slice(x, p, relay.const(np.array([-1], "int64")),
                                                                 strides=relay.const(np.array([1], "int64")),
                                                                 axes=relay.const(np.array([1], "int64"))),
     (3, 7), F32, np.array([-5], "int64"), "strided_slice"),
    ("one_hot", lambda x, p: relay.one_hot(x, _ONE, _ZERO, p, axis=0), (2, 3), "int64", np.array([4], "int64"),
     "one_hot"),
    ("one_hot_float_depth", lambda x, p: relay.one_hot(x, _ONE, _ZERO, p), (5,), "int64", np.float32(3.7),
     "one_hot"),
    ("topk", lambda x, p: relay.topk(x, p, axis=1), (3, 6), F32, np.int64(2), "topk"),
    ("topk_values_ascend", lambda x, p: relay.topk(x, p, axis=0, ret_type="values", is_ascend=True),
     (4, 2), F32, np.array([3], "int64"), "topk"),
    ("cumsum", lambda x, p: relay.cumsum(x, p, exclusive=True), (3, 4), F32, np.int64(-1), "cumsum"),
    ("cumprod", lambda x, p: relay.cumprod(x, p, reverse=True), (3, 4), "int32", np.int32(0), "cumprod"),
    ("pad", lambda x, p: relay.nn.pad(x, p, relay.const(np.float32(1.5)),
                                      axes=relay.const(np.array([0, -1], "int64"))),
     (2, 3, 4), F32, np.array([1, 0, 2, 1], "int64"), "nn.pad"),
    ("pad_reflect_crop", lambda x, p: relay.nn.pad(x, p, _ZERO, "reflect",
                                                   axes=relay.const(np.array([1, 0], "int64"))),
     (3, 5), F32, np.array([2, -1, -1, 1], "int64"), "nn.pad"),
    ("full", lambda x, p: relay.add(x, relay.full(relay.const(np.float32(2.5)), p)), (2, 3), F32,
     np.array([2, 3], "int64"), "full"),
]
for _name in ["sum", "mean", "max", "min", "prod", "logsumexp", "log_sum", "l1_norm", "l2_norm", "sum_square"]:
    _fn = getattr(relay, _name)
    CASES += [
        (_name, lambda x, p, f=_fn: f(x, p), (2, 3, 4), F32, np.array([-1, 0], "int64"), _name),
        (_name + "_keepdims", lambda x, p, f=_fn: f(x, p, keepdims=True), (2, 3, 4), F32, np.array([1], "int64"),
         _name),
        (_name + "_empty_all", lambda x, p, f=_fn: f(x, p), (2, 3), F32, np.zeros(0, "int64"), _name),
        (_name + "_empty_noop", lambda x, p, f=_fn: f(x, p, noop_with_empty_axes=True), (2, 3), F32,
         np.zeros(0, "int64"), _name),
    ]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_dyn_op_becomes_static(case, run_relay, rng):
    _, build, x_shape, x_dtype, value, static_op = case
    mod = _bound(build, x_shape, x_dtype, value)
    before = transform.InferType()(mod)
    assert [n for n in _ops(before) if n.startswith("dyn.")] == ["dyn." + static_op]
    out = transform.DynamicToStatic()(mod)
    names = _ops(out)
    assert not any(n.startswith("dyn.") for n in names), names
    assert static_op in names
    assert _static(out["main"].body.checked_type), out["main"].body.checked_type
    xv = _data(x_shape, x_dtype, rng)
    if x_dtype == "int64" and static_op == "one_hot":
        xv = rng.integers(-3, 3, size=x_shape).astype("int64")
    if "log_sum" in case[0]:
        xv = np.abs(xv) + 0.5
    want = run_relay(before, {"x": xv})
    got = run_relay(out, {"x": xv})
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert w.shape == g.shape and w.dtype == g.dtype
        np.testing.assert_array_equal(g, w)


def test_static_attrs_match_the_frontend_forms():
    """The attrs are the ones the frontend builds from constants: ONNX Unsqueeze at output positions is a chain of
    expand_dims in ascending order, Pad's [begins..., ends...] on axes is pad_width per axis."""
    mod = _bound(lambda x, p: relay.expand_dims(x, p), (2, 3), F32, np.array([-1, 0], "int64"))
    out = transform.DynamicToStatic()(mod)
    outer = out["main"].body
    assert outer.op.name == "expand_dims" and outer.attrs.axis == 3
    assert outer.args[0].attrs.axis == 0
    assert list(outer.checked_type.shape) == [1, 2, 3, 1]

    mod = _bound(lambda x, p: relay.nn.pad(x, p, _ZERO, axes=relay.const(np.array([2, 0], "int64"))),
                 (2, 3, 4), F32, np.array([1, 2, 3, 4], "int64"))
    body = transform.DynamicToStatic()(mod)["main"].body
    assert list(body.attrs.pad_width) == [2, 4, 0, 0, 1, 3]

    mod = _bound(lambda x, p: relay.reshape(x, p, allowzero=True), (2, 3), F32, np.array([3, 2], "int64"))
    body = transform.DynamicToStatic()(mod)["main"].body
    assert list(body.attrs.newshape) == [3, 2] and body.attrs.allowzero

    mod = _bound(lambda x, p: relay.sum(x, p, keepdims=True), (2, 3), F32, np.zeros(0, "int64"))
    assert transform.DynamicToStatic()(mod)["main"].body.attrs.axis is None  # ONNX: empty axes reduce all
    mod = _bound(lambda x, p: relay.sum(x, p, noop_with_empty_axes=True), (2, 3), F32, np.zeros(0, "int64"))
    assert list(transform.DynamicToStatic()(mod)["main"].body.attrs.axis) == []


def test_chained_dyn_ops_all_convert(run_relay, rng):
    """A dyn op fed by a converted one is typed against the new static type, so the whole chain converts."""
    x = relay.var("x", shape=(2, 3, 4))
    s1 = relay.const(np.array([6, -1], "int64"))
    s2 = relay.const(np.array([0, 2, 2], "int64"))
    body = relay.sum(relay.reshape(relay.reshape(x, s1), s2), relay.const(np.array([2], "int64")))
    mod = ir.IRModule.from_expr(relay.Function([x], body))
    out = transform.DynamicToStatic()(mod)
    assert _ops(out) == ["reshape", "reshape", "sum"]
    assert list(out["main"].body.checked_type.shape) == [6, 2]
    xv = rng.standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_array_equal(run_relay(out, {"x": xv})[0], run_relay(mod, {"x": xv})[0])


def test_non_constant_inputs_stay_dynamic():
    x = relay.var("x", shape=(2, 3, 4))
    s = relay.var("s", shape=(2,), dtype="int64")
    begin = relay.var("b", shape=(1,), dtype="int64")
    body = relay.Tuple([relay.reshape(x, s),
                        relay.strided_slice(x, begin, relay.const(np.array([2], "int64")),
                                            strides=relay.const(np.array([1], "int64")),
                                            axes=relay.const(np.array([0], "int64")))])
    mod = ir.IRModule.from_expr(relay.Function([x, s, begin], body))
    out = transform.DynamicToStatic()(mod)
    assert _ops(out) == ["dyn.reshape", "dyn.strided_slice"]


@pytest.mark.parametrize("build, x_shape, value", [
    (lambda x, p: relay.reshape(x, p), (2, 3, 4), np.array([5, 5], "int64")),          # sizes differ
    (lambda x, p: relay.squeeze(x, p), (2, 1), np.array([0], "int64")),                # dim 0 is not 1
    (lambda x, p: relay.expand_dims(x, p), (2, 3), np.array([1, 1], "int64")),         # repeated position
    (lambda x, p: relay.expand_dims(x, p), (2, 3), np.array([4], "int64")),            # out of range
    (lambda x, p: relay.sum(x, p), (2, 3), np.array([2], "int64")),                    # axis out of range
    (lambda x, p: relay.topk(x, p), (2, 3), np.int64(4)),                   # k > dim
    (lambda x, p: relay.cumsum(x, p), (2, 3), np.int64(2)),                           # axis out of range
    (lambda x, p: relay.nn.pad(x, p, _ZERO, axes=relay.const(np.array([0, 0], "int64"))), (2, 3),
     np.array([1, 1, 1, 1], "int64")),                                                 # repeated axis
], ids=["reshape", "squeeze", "expand_dims_repeat", "expand_dims_range", "sum", "topk", "cumsum", "pad"])
def test_values_the_static_op_rejects_keep_the_dyn_op(build, x_shape, value):
    """The pass never turns a graph that builds into one that does not: the run-time error stays at run time."""
    mod = _bound(build, x_shape, F32, value)
    out = transform.DynamicToStatic()(mod)
    assert any(n.startswith("dyn.") for n in _ops(out))


def test_idempotent_and_untouched_graphs_kept():
    mod = _bound(lambda x, p: relay.reshape(x, p), (2, 3, 4), F32, np.array([4, 6], "int64"))
    once = transform.DynamicToStatic()(mod)
    twice = transform.DynamicToStatic()(once)
    assert tvmlite.structural_equal(once, twice)
    x = relay.var("x", shape=(2,))
    plain = transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.exp(x))))
    assert tvmlite.structural_equal(transform.DynamicToStatic()(plain), plain)


def test_runs_at_opt_level_3_only():
    mod = _bound(lambda x, p: relay.reshape(x, p), (2, 3, 4), F32, np.array([4, 6], "int64"))
    seq = transform.Sequential([transform.DynamicToStatic()])
    with tvmlite.transform.PassContext(opt_level=2):
        assert _ops(seq(mod)) == ["dyn.reshape"]
    with tvmlite.transform.PassContext(opt_level=3):
        assert _ops(seq(mod)) == ["reshape"]
    with tvmlite.transform.PassContext(opt_level=3, disabled_pass=["DynamicToStatic"]):
        assert _ops(seq(mod)) == ["dyn.reshape"]


# ---------------------------------------------------------------------------------------------- end to end

# onnx and onnxruntime (the oracle) are optional: without them these tests skip, not the module.

def _graph_shapes(lib):
    return json.loads(lib.get_graph_json())["attrs"]["shape"][1]


def _ort(model, feeds):
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _run(lib, feeds):
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**feeds)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


def test_transformer_encoder_cpu_build_is_static():
    """A BERT-like encoder imported with its initializers as params: its Reshapes are dyn.reshape after import and
    reshape after the cpu pipeline, every graph node has a static shape, and it runs as onnxruntime does."""
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from tvmlite import models
    from tvmlite.relay.backend import cpu_pipeline

    from onnx import TensorProto, helper

    model = models.transformer_encoder(layers=1, seq=8, hidden=32, heads=2, ffn=64)
    # Integer initializers are constants unless listed as graph inputs (then a user may replace them): listed.
    for init in model.graph.initializer:
        if init.data_type == TensorProto.INT64:
            model.graph.input.append(helper.make_tensor_value_info(init.name, init.data_type, list(init.dims)))
    mod, params = tvmlite.frontend.from_onnx(model)
    assert "dyn.reshape" in _ops(mod)
    optimized = cpu_pipeline.optimize(cpu_pipeline.bind_params(transform.InferType()(mod), params))
    assert not any(n.startswith("dyn.") for n in _ops(optimized))
    lib = tvmlite.build(mod, target="cpu", params=params)
    shapes = _graph_shapes(lib)
    assert all(isinstance(d, int) and d >= 0 for s in shapes for d in s), shapes
    feeds = models.example_input(model, seed=1)
    np.testing.assert_allclose(_run(lib, feeds)[0], _ort(model, feeds)[0], rtol=1e-3, atol=1e-4)


def test_onnx_shape_ops_with_initializer_inputs_build_static(rng):
    """Slice, Pad, Expand, Tile, Unsqueeze, Squeeze, ReduceSum, TopK, CumSum and ConstantOfShape, whose shape
    inputs are initializers listed as graph inputs (params, not frozen): all static after build, and equal to
    onnxruntime."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    inits = {
        "starts": np.array([1, 0], "int64"), "ends": np.array([3, -1], "int64"), "axes": np.array([0, 2], "int64"),
        "steps": np.array([1, 2], "int64"), "pads": np.array([0, 1, 0, 1], "int64"),
        "pad_axes": np.array([0, 2], "int64"), "expand": np.array([2, 1, 1, 1], "int64"),
        "reps": np.array([1, 1, 1, 2], "int64"), "unsq": np.array([0], "int64"), "sq": np.array([0], "int64"),
        "raxes": np.array([-1], "int64"), "k": np.array([2], "int64"), "cax": np.array(1, "int64"),
        "cshape": np.array([2, 3], "int64"),
    }
    nodes = [
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["s"]),            # (2, 3, 2)
        helper.make_node("Pad", ["s", "pads", "", "pad_axes"], ["p"]),                          # (3, 3, 3)
        helper.make_node("Unsqueeze", ["p", "unsq"], ["u"]),                                    # (1, 3, 3, 3)
        helper.make_node("Expand", ["u", "expand"], ["e"]),                                     # (2, 3, 3, 3)
        helper.make_node("Tile", ["e", "reps"], ["t"]),                                         # (2, 3, 3, 6)
        helper.make_node("ReduceSum", ["t", "raxes"], ["r"], keepdims=0),                       # (2, 3, 3)
        helper.make_node("TopK", ["r", "k"], ["tv", "ti"], axis=1),                             # (2, 2, 3)
        helper.make_node("CumSum", ["tv", "cax"], ["c"]),                                       # (2, 2, 3)
        helper.make_node("ConstantOfShape", ["cshape"], ["z"],
                         value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.5])),       # (2, 3)
        helper.make_node("Unsqueeze", ["z", "unsq"], ["z1"]),                                   # (1, 2, 3)
        helper.make_node("Squeeze", ["z1", "sq"], ["z2"]),                                      # (2, 3)
        helper.make_node("Add", ["c", "z2"], ["y"]),                                            # (2, 2, 3)
    ]
    # listed as graph inputs too, so that they are params (integer initializers that are not are constants)
    graph = helper.make_graph(
        nodes, "shape_ops", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3, 5])] +
        [helper.make_tensor_value_info(k, TensorProto.INT64, list(v.shape)) for k, v in inits.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, 3]),
         helper.make_tensor_value_info("ti", TensorProto.INT64, [2, 2, 3])],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model, full_check=True)
    mod, params = tvmlite.frontend.from_onnx(model)
    dyn = {n for n in _ops(mod) if n.startswith("dyn.")}
    assert {"dyn.strided_slice", "dyn.nn.pad", "dyn.broadcast_to", "dyn.tile", "dyn.sum", "dyn.topk",
            "dyn.cumsum", "dyn.full", "dyn.expand_dims", "dyn.squeeze"} <= dyn
    lib = tvmlite.build(mod, target="cpu", params=params)
    shapes = _graph_shapes(lib)
    assert all(isinstance(d, int) and d >= 0 for s in shapes for d in s), shapes
    feeds = {"x": rng.standard_normal((4, 3, 5)).astype("float32")}
    for got, want in zip(_run(lib, feeds), _ort(model, feeds)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_resize_with_bound_scales_becomes_static():
    """Resize's scales are an initializer, so a param at import (dims "?"); once build binds it, DynamicToStatic
    sets output_size by the frontend's rule and the native kernel runs it."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 7])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1.0, 1.0, 2.0, 1.5])
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear")
    model = helper.make_model(helper.make_graph([node], "resize", [x], [y], [scales]),
                              opset_imports=[helper.make_opsetid("", 13)])
    mod, params = tvmlite.frontend.from_onnx(model)
    assert "?" in str(mod)
    data = np.random.default_rng(0).standard_normal((1, 3, 5, 7)).astype("float32")
    outs = []
    for target in ("cpu", "debug"):
        lib = tvmlite.build(mod, target=target, params=params)
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        gm.set_input("x", data)
        gm.run()
        outs.append(gm.get_output(0).numpy())
        if target == "cpu":
            graph = json.loads(lib.get_graph_json())
            assert [n["attrs"]["func_name"] for n in graph["nodes"] if n["op"] != "null"] == ["topi.image.resize2d"]
            assert [1, 3, 10, 10] in graph["attrs"]["shape"][1]
    assert outs[0].shape == (1, 3, 10, 10)
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("image, block, message", [
    ([4, 4], [1, 2], r"col2im: image_shape \[4, 4\] and block_shape \[1, 2\] give \[4, 3\] sliding blocks, data has 8"),
    ([4, 3], [1, 4], r"col2im: image_shape \[4, 3\] and block_shape \[1, 4\] \(positive\) must divide data's 6"),
])
def test_col2im_shapes_read_at_run_time_are_checked(image, block, message):
    """ONNX Col2Im with image_shape / block_shape computed in the graph: one cpu build, values checked per run."""
    x = relay.var("x", shape=(1, 6, 8))
    img, blk = relay.var("img", shape=(2,), dtype="int64"), relay.var("blk", shape=(2,), dtype="int64")
    lib = tvmlite.build(relay.Function([x, img, blk], relay.nn.col2im(x, img, blk)), target="cpu")
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    gm.set_input(x=np.ones((1, 6, 8), "float32"), img=np.array([4, 3]), blk=np.array([1, 2]))
    gm.run()
    assert gm.get_output(0).numpy().shape == (1, 3, 4, 3)
    gm.set_input(img=np.array(image), blk=np.array(block))
    with pytest.raises(ValueError, match=message):
        gm.run()


def test_max_unpool_output_shape_read_at_run_time_is_checked():
    """ONNX MaxUnpool with output_shape computed in the graph: one cpu build; a shape smaller than the unpooled
    size is a clear error."""
    x = relay.var("x", shape=(1, 1, 2, 2))
    shape = relay.var("shape", shape=(4,), dtype="int64")
    body = relay.nn.max_unpool2d(x, _UNPOOL_INDICES, pool_size=2, strides=2, output_shape=shape)
    lib = tvmlite.build(relay.Function([x, shape], body), target="cpu")
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    gm.set_input(x=np.arange(1, 5, dtype="float32").reshape(1, 1, 2, 2), shape=np.array([1, 1, 5, 5]))
    gm.run()
    got = gm.get_output(0).numpy()
    assert got.shape == (1, 1, 5, 5) and sorted(got[got != 0].tolist()) == [1.0, 2.0, 3.0, 4.0]
    gm.set_input(shape=np.array([1, 1, 3, 3]))
    with pytest.raises(ValueError, match=r"max_unpool: output_shape \[1, 1, 3, 3\] must be \(batch, channels, "
                                         r"spatial\.\.\.\) with spatial dims at least \[4, 4\]"):
        gm.run()
