"""tvmlite.build(target="cpu"): every graph the debug target runs gives the same outputs, through native kernels
(topi.elemwise, anchors with epilogues), views and reference nodes (csrc/backend/group_lowering.cc)."""
import itertools
import json

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.ir import register_op_attr
from tvmlite.runtime import GraphModule, register_kernel_factory


@pytest.fixture(autouse=True)
def _unfused():
    """These tests check how each op lowers, so they build unfused (opt_level 0) unless they say otherwise;
    fusion's own cases build at opt_level 3."""
    with tvmlite.transform.PassContext(opt_level=0):
        yield


def _run(func, inputs, target, params=None):
    lib = tvmlite.build(func, target=target, params=params)
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**inputs)
    gm.run()
    outs = [gm.get_output(i) for i in range(gm.get_num_outputs())]
    return lib, [o.numpy() if hasattr(o, "numpy") else o for o in outs]


def check(func, inputs, params=None, rtol=1e-5, atol=1e-6):
    """Build for cpu and debug, compare the outputs, return the cpu library."""
    lib, got = _run(func, inputs, "cpu", params)
    _, want = _run(func, inputs, "debug", params)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, list):
            assert len(g) == len(w)
            for a, b in zip(g, w):
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=atol)
        else:
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return lib


def kernels(lib):
    return [n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]


def tvm_nodes(lib):
    return [n for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]


def no_kernel(x):
    """An op with no native kernel (it runs on its reference): sort along the last axis."""
    return relay.sort(x, axis=-1)


def f32(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


def test_elementwise_chain_is_native(rng):
    x, y = relay.var("x", shape=(2, 3, 5)), relay.var("y", shape=(3, 1))
    z = relay.nn.relu(relay.multiply(relay.add(x, y), relay.const(np.float32(0.5))))
    func, inputs = relay.Function([x, y], relay.sigmoid(z)), {"x": f32(rng, 2, 3, 5), "y": f32(rng, 3, 1)}
    lib = check(func, inputs)  # unfused: one node per op
    assert kernels(lib) == ["topi.elemwise"] * 4
    progs = [n["attrs"]["kernel_attrs"]["epilogue"] for n in tvm_nodes(lib)]
    assert progs == ["add r0 in0 in1", "mul r0 in0 0.5", "relu r0 in0", "sigmoid r0 in0"]
    with tvmlite.transform.PassContext(opt_level=3):  # fused: one node, one program
        lib = check(func, inputs)
    assert kernels(lib) == ["topi.elemwise"]
    assert tvm_nodes(lib)[0]["attrs"]["kernel_attrs"]["epilogue"].count(";") == 3


UNARY = [
    ("nn.relu", relay.nn.relu, None), ("sigmoid", relay.sigmoid, None), ("tanh", relay.tanh, None),
    ("exp", relay.exp, None), ("log", relay.log, "pos"), ("sqrt", relay.sqrt, "pos"), ("rsqrt", relay.rsqrt, "pos"),
    ("negative", relay.negative, None), ("abs", relay.abs, None), ("erf", relay.erf, None),
    ("floor", relay.floor, None), ("ceil", relay.ceil, None), ("round", relay.round, None),
    ("reciprocal", relay.reciprocal, "pos"), ("sign", relay.sign, None),
    ("nn.softplus", relay.nn.softplus, None), ("nn.mish", relay.nn.mish, None),
    ("nn.hard_swish", relay.nn.hard_swish, None),
    ("nn.leaky_relu", lambda x: relay.nn.leaky_relu(x, alpha=0.13), None),
    ("nn.elu", lambda x: relay.nn.elu(x, alpha=0.7), None),
    ("nn.selu", relay.nn.selu, None),
    ("nn.hard_sigmoid", lambda x: relay.nn.hard_sigmoid(x, alpha=0.3, beta=0.4), None),
    ("nn.gelu", relay.nn.gelu, None),
    ("nn.gelu tanh", lambda x: relay.nn.gelu(x, approximate="tanh"), None),
    ("nn.swish", relay.nn.swish, None),
    ("nn.swish alpha", lambda x: relay.nn.swish(x, alpha=1.7), None),
]


@pytest.mark.parametrize("name,make,domain", UNARY, ids=[u[0] for u in UNARY])
def test_epilogue_rule_unary(rng, name, make, domain):
    x = relay.var("x", shape=(3, 37))
    data = f32(rng, 3, 37) * 3
    if domain == "pos":
        data = np.abs(data) + np.float32(0.1)
    lib = check(relay.Function([x], make(x)), {"x": data}, rtol=2e-5, atol=2e-6)
    assert kernels(lib) == ["topi.elemwise"]


def test_round_is_half_to_even():
    x = relay.var("x", shape=(6,))
    data = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.2], "float32")
    lib, (got,) = _run(relay.Function([x], relay.round(x)), {"x": data}, "cpu")
    assert kernels(lib) == ["topi.elemwise"]
    np.testing.assert_array_equal(got, [0, 2, 2, -0, -2, 3])


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power"])
def test_epilogue_rule_binary(rng, op):
    x, y = relay.var("x", shape=(4, 1, 6)), relay.var("y", shape=(5, 6))
    xv, yv = np.abs(f32(rng, 4, 1, 6)) + 0.5, f32(rng, 5, 6)
    lib = check(relay.Function([x, y], getattr(relay, op)(x, y)), {"x": xv, "y": yv}, rtol=2e-5)
    assert kernels(lib) == ["topi.elemwise"]


def test_prelu_and_scalar_on_the_left(rng):
    x, s = relay.var("x", shape=(2, 3, 4)), relay.var("s", shape=(4,))
    out = relay.subtract(relay.const(np.float32(1.0)), relay.nn.prelu(x, s))
    lib = check(relay.Function([x, s], out), {"x": f32(rng, 2, 3, 4), "s": f32(rng, 4)})
    assert [n["attrs"]["kernel_attrs"]["epilogue"] for n in tvm_nodes(lib)] == ["prelu r0 in0 in1", "sub r0 1 in0"]


@pytest.mark.parametrize("lo,hi", [(0.0, 6.0), (None, 0.5), (-0.5, None)])
def test_clip(rng, lo, hi):
    x = relay.var("x", shape=(3, 8))
    bound = lambda v: relay.const(np.float32(v)) if v is not None else relay.Tuple([])  # noqa: E731
    out = relay.Call(tvmlite.ir.Op.get("clip"), [x, bound(lo), bound(hi)])
    lib = check(relay.Function([x], out), {"x": f32(rng, 3, 8) * 4})
    assert kernels(lib) == ["topi.elemwise"]


def test_no_native_kernel_is_a_reference_node(rng):
    x = relay.var("x", shape=(2, 7))
    lib = check(relay.Function([x], no_kernel(relay.exp(x))), {"x": f32(rng, 2, 7)})
    assert kernels(lib) == ["topi.elemwise", "relay.backend.reference"]


def test_integer_arithmetic_runs_its_own_kernel(rng):
    """int32 add has no epilogue instruction: the binary kernel (topi/binary.cc) runs it, not the reference."""
    x, y = relay.var("x", shape=(3, 4), dtype="int32"), relay.var("y", shape=(3, 4), dtype="int32")
    lib = check(relay.Function([x, y], relay.add(x, y)),
                {"x": rng.integers(-9, 9, (3, 4), dtype="int32"), "y": rng.integers(-9, 9, (3, 4), dtype="int32")})
    assert kernels(lib) == ["topi.add"]


def test_dtypes_no_kernel_takes_run_the_reference(rng):
    """int8 add: topi.add.accepts refuses it at build, the node runs on the reference with why."""
    x, y = relay.var("x", shape=(3, 4), dtype="int8"), relay.var("y", shape=(3, 4), dtype="int8")
    lib = check(relay.Function([x, y], relay.add(x, y)),
                {"x": rng.integers(-9, 9, (3, 4), dtype="int8"), "y": rng.integers(-9, 9, (3, 4), dtype="int8")})
    assert kernels(lib) == ["relay.backend.reference"]
    assert lib.fallbacks()[0]["reason"].startswith("topi.add refused: topi.add: dtype int8 is not supported")


def test_tuple_and_multiple_outputs(rng):
    x = relay.var("x", shape=(4, 6))
    parts = relay.split(x, 2, axis=0)  # a tuple-valued op: one reference node, two outputs
    a = relay.nn.relu(parts[0])
    b = relay.add(parts[1], a)
    lib = check(relay.Function([x], relay.Tuple([a, b, x])), {"x": f32(rng, 4, 6)})
    nodes = tvm_nodes(lib)
    assert nodes[0]["attrs"]["func_name"] == "relay.backend.reference" and nodes[0]["attrs"]["num_outputs"] == "2"
    assert kernels(lib)[1:] == ["topi.elemwise", "topi.elemwise"]


@pytest.mark.parametrize("shape, split, axis", [
    ((4, 6), 2, 0),                        # equal sections
    ((2, 3, 8), [1, 4], -1),               # at indices
    ((2, 3, 8), [5, 3], 2),                # out of order: an empty piece, numpy's
    ((5, 4), [2, 9], 0),                   # a point past the end: clamped, an empty last piece
])
def test_split_runs_as_strided_slices(rng, shape, split, axis):
    """split has no kernel: Legalize (opt_level >= 1) makes one strided_slice per piece, each fused with what
    follows it."""
    x = relay.var("x", shape=shape)
    parts = relay.split(x, split, axis=axis)
    n = split if isinstance(split, int) else len(split) + 1
    outs = [relay.nn.relu(parts[i]) if i % 2 else parts[i] for i in range(n)]
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x], relay.Tuple(outs)), {"x": f32(rng, *shape)})
    assert "relay.backend.reference" not in kernels(lib)
    assert kernels(lib).count("topi.strided_slice") == n


@pytest.mark.parametrize("view", ["reshape", "squeeze", "expand_dims"])
def test_views_of_group_inputs_feed_the_epilogue(rng, view):
    """LeViT's and PoolFormer's reshape(x) * scale + bias: a group whose first op reshapes a group input runs as
    one elementwise kernel reading that input through a view, not as a reference node."""
    make = {"reshape": lambda v: relay.reshape(v, (1, 16, 5, 5)), "squeeze": lambda v: relay.squeeze(v, axis=[0]),
            "expand_dims": lambda v: relay.expand_dims(v, 0)}[view]
    shape = {"reshape": (16, 25), "squeeze": (1, 1, 16, 5, 5), "expand_dims": (16, 5, 5)}[view]
    x = relay.var("x", shape=shape)
    scale, bias = relay.const(f32(rng, 16, 1, 1)), relay.const(f32(rng, 1, 16, 5, 5))
    y = relay.nn.relu(relay.add(relay.multiply(make(x), scale), bias))
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x], y), {"x": f32(rng, *shape)})
    assert kernels(lib) == ["__nop", "topi.elemwise"]
    assert tvm_nodes(lib)[1]["name"].startswith(f"tvmlite_fused_{view}_multiply_add")


def test_broadcast_to_is_a_copy(rng):
    x = relay.var("x", shape=(1, 16, 5, 5))
    b = relay.var("b", shape=(16, 1, 1))
    y = relay.divide(relay.nn.relu(x), relay.broadcast_to(b, (1, 16, 5, 5)))
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x, b], y), {"x": f32(rng, 1, 16, 5, 5), "b": np.abs(f32(rng, 16, 1, 1)) + 1})
    assert kernels(lib) == ["topi.elemwise", "topi.elemwise"]


@pytest.mark.parametrize("name", ["l2_norm", "l1_norm", "sum_square"])
@pytest.mark.parametrize("axis, keepdims, exclude", [([1], True, False), (None, False, False), ([0, 2], False, True)])
def test_norms_run_as_native_sums(rng, name, axis, keepdims, exclude):
    """ReduceL2 / ReduceL1 / ReduceSumSquare (F.normalize's norm): Legalize makes them a native map and sum."""
    x = relay.var("x", shape=(2, 6, 5))
    y = getattr(relay, name)(x, axis=axis, keepdims=keepdims, exclude=exclude)
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x], y), {"x": f32(rng, 2, 6, 5)}, rtol=1e-5, atol=1e-5)
    assert "relay.backend.reference" not in kernels(lib) and "topi.sum" in kernels(lib)


@pytest.mark.parametrize("c, m, k, stride", [(16, 2, 7, 2), (8, 3, 3, 1), (24, 4, 5, 1)])
def test_depthwise_channel_multiplier_runs_the_depthwise_kernel(rng, c, m, k, stride):
    """groups == C with O = m * C (FastViT): Legalize repeats the input channels (take) so the depthwise kernel runs
    it as a plain depthwise conv, bias and activation fused."""
    x = relay.var("x", shape=(1, c, 12, 12))
    w = relay.const(f32(rng, c * m, 1, k, k))
    y = relay.nn.conv2d(x, w, strides=stride, padding=k // 2, groups=c)
    y = relay.nn.relu(relay.nn.bias_add(y, relay.const(f32(rng, c * m))))
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x], y), {"x": f32(rng, 1, c, 12, 12)}, rtol=1e-4, atol=1e-5)
    assert "topi.take" in kernels(lib) and "topi.nn.depthwise_conv2d_nchwc" in kernels(lib)
    assert "topi.nn.conv2d_nchwc" not in kernels(lib)


@pytest.mark.parametrize("shape, reps, native", [
    ((1, 1, 4, 5), (1, 64, 1, 1), True),      # GCViT: an unsqueezed dim tiled
    ((3, 1, 5), (2, 1, 3, 1), True),          # reps longer than the rank: leading 1s, a broadcast
    ((1, 5), (4,), False),                    # repeats a dim of 5: no broadcast, its reference
    ((2, 3), (1, 1), True),                   # all ones: a copy
])
def test_tile_of_size_one_dims_is_a_broadcast(rng, shape, reps, native):
    x = relay.var("x", shape=shape)
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x], relay.nn.relu(relay.tile(x, reps))), {"x": f32(rng, *shape)})
    assert ("relay.backend.reference" not in kernels(lib)) == native


def test_sequence_valued_op(rng):
    x = relay.var("x", shape=(6, 2))
    seq = relay.op.control.split_to_sequence(x, axis=0)
    out = relay.Tuple([seq, relay.op.control.concat_from_sequence(seq, axis=1)])
    check(relay.Function([x], out), {"x": f32(rng, 6, 2)})


def test_reshape_views_alias_storage(rng):
    x = relay.var("x", shape=(2, 3, 4))
    r = relay.reshape(relay.nn.relu(x), (6, 4))
    e = relay.expand_dims(relay.reshape(x, (24,)), 0)
    out = relay.Tuple([relay.sigmoid(r), relay.nn.batch_flatten(r), e])
    lib = check(relay.Function([x], out), {"x": f32(rng, 2, 3, 4)})
    graph = json.loads(lib.get_graph_json())
    sids, row = graph["attrs"]["storage_id"][1], graph["node_row_ptr"]
    nops = [i for i, n in enumerate(graph["nodes"]) if n["op"] == "tvm_op" and n["attrs"]["func_name"] == "__nop"]
    assert len(nops) == 4
    for i in nops:  # a view has its input's storage id
        src = graph["nodes"][i]["inputs"][0]
        assert sids[row[i]] == sids[row[src[0]] + src[1]]


def test_constants_become_params(rng):
    x = relay.var("x", shape=(3, 4))
    w = f32(rng, 3, 4)
    lib = check(relay.Function([x], relay.multiply(x, relay.const(w))), {"x": f32(rng, 3, 4)})
    params = lib.get_params()
    assert list(params) == ["p0"]
    np.testing.assert_array_equal(params["p0"].numpy(), w)


def test_build_params_are_bound(rng):
    x, w = relay.var("x", shape=(3, 4)), relay.var("w", shape=(3, 4))
    wv = f32(rng, 3, 4)
    lib = check(relay.Function([x, w], relay.add(x, w)), {"x": f32(rng, 3, 4)}, params={"w": wv})
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    assert gm.get_input_names() == ["x"]
    np.testing.assert_array_equal(lib.get_params()["p0"].numpy(), wv)
    with pytest.raises(ValueError, match="no parameter of the function is named 'nope'"):
        tvmlite.build(relay.Function([x, w], relay.add(x, w)), target="cpu", params={"nope": wv})
    with pytest.raises(ValueError, match="parameter %w is .*, the array bound to it is \\(4, 3\\) float32"):
        tvmlite.build(relay.Function([x, w], relay.add(x, w)), target="cpu", params={"w": wv.reshape(4, 3)})
    with pytest.raises(ValueError, match="parameter %w is .*, the array bound to it is \\(3, 4\\) float64"):
        tvmlite.build(relay.Function([x, w], relay.add(x, w)), target="cpu", params={"w": wv.astype("float64")})


def test_llvm_is_an_alias_and_bad_target():
    x = relay.var("x", shape=(2,))
    assert kernels(tvmlite.build(relay.Function([x], relay.exp(x)), target="llvm")) == ["topi.elemwise"]
    with pytest.raises(ValueError, match="unknown target 'gpu'"):
        tvmlite.build(relay.Function([x], relay.exp(x)), target="gpu")


# -- fused groups (FuseOps' output, made by hand) --------------------------------------------------------------
def _test_softsign_factory(attrs):
    """A test anchor kernel: softsign in numpy, then the epilogue through topi.elemwise (in<k> -> in<k+1>)."""
    import re

    program = str(attrs.get("epilogue", ""))
    epi = None
    if program:
        shifted = re.sub(r"in(\d+)", lambda m: f"in{int(m.group(1)) + 1}", program)
        epi = tvmlite.get_global_func("topi.elemwise")({"epilogue": "copy r0 in0; " + shifted})

    def run(x, *rest):
        *extra, out = rest
        y = x.numpy()
        y = (y / (1 + np.abs(y))).astype("float32")
        if epi is None:
            out.copyfrom(y) if hasattr(out, "copyfrom") else np.from_dlpack(out).__setitem__(..., y)
        else:
            epi(tvmlite.nd.array(y), *extra, out)

    return run


@pytest.fixture(scope="module")
def softsign_kernel():
    register_kernel_factory("topi.test_softsign", _test_softsign_factory, override=True)
    # Level 1: a real kernel registered for nn.softsign (level 10) wins; the results are the same.
    register_op_attr("nn.softsign", "FTVMLiteKernel", "topi.test_softsign", level=1)
    yield "topi.test_softsign"


def _primitive(params, body):
    return relay.Function(params, body).with_attr("Primitive", 1)


def test_fused_group_anchor_and_epilogue(rng, softsign_kernel):
    x, bias, res = relay.var("x", shape=(2, 4, 3)), relay.var("bias", shape=(4, 1)), relay.var("res", shape=(2, 4, 3))
    p0, p1, p2 = relay.var("p0", shape=(2, 4, 3)), relay.var("p1", shape=(4, 1)), relay.var("p2", shape=(2, 4, 3))
    anchor = relay.nn.softsign(p0)
    t = relay.add(anchor, p1)
    body = relay.nn.relu(relay.add(relay.multiply(t, relay.const(np.float32(2))), relay.multiply(t, p2)))
    group = _primitive([p0, p1, p2], body)
    main = relay.Function([x, bias, res], relay.Call(group, [x, bias, res]))
    lib = check(main, {"x": f32(rng, 2, 4, 3), "bias": f32(rng, 4, 1), "res": f32(rng, 2, 4, 3)})
    (node,) = tvm_nodes(lib)
    kernel = node["attrs"]["func_name"]
    assert kernel.startswith("topi.")
    if kernel == softsign_kernel:
        assert node["attrs"]["kernel_attrs"]["epilogue"] == (
            "add r1 r0 in0; mul r2 r1 2; mul r1 r1 in1; add r1 r2 r1; relu r0 r1")
        assert [i[0] for i in node["inputs"]] == [0, 1, 2]


def test_fused_group_without_kernel_is_a_reference(rng):
    x = relay.var("x", shape=(3, 5))
    p = relay.var("p", shape=(3, 5))
    group = _primitive([p], relay.nn.relu(no_kernel(p)))
    lib = check(relay.Function([x], relay.Call(group, [x])), {"x": f32(rng, 3, 5)})
    assert kernels(lib) == ["relay.backend.reference"]


def test_fused_elementwise_group(rng):
    x, y = relay.var("x", shape=(4, 5)), relay.var("y", shape=(5,))
    p, q = relay.var("p", shape=(4, 5)), relay.var("q", shape=(5,))
    a = relay.exp(p)
    group = _primitive([p, q], relay.divide(a, relay.add(a, q)))
    lib = check(relay.Function([x, y], relay.Call(group, [x, y])), {"x": f32(rng, 4, 5), "y": np.abs(f32(rng, 5))})
    (node,) = tvm_nodes(lib)
    assert node["attrs"]["func_name"] == "topi.elemwise"
    assert node["attrs"]["kernel_attrs"]["epilogue"] == "exp r1 in0; add r2 r1 in1; div r0 r1 r2"
    assert node["name"] == "tvmlite_fused_exp_add_divide_0"  # TVM's naming: the group's ops


def test_too_many_live_values_fall_back(rng):
    x = relay.var("x", shape=(8,))
    p = relay.var("p", shape=(8,))
    vals = [relay.multiply(p, relay.const(np.float32(i + 2))) for i in range(9)]  # 9 live at once > r1..r7
    acc = vals[0]
    for v in vals[1:]:
        acc = relay.add(acc, v)
    # a balanced-ish reduction keeps them all live: sum them last to first
    body = vals[-1]
    for v in reversed(vals[:-1]):
        body = relay.add(v, body)
    lib = check(relay.Function([x], relay.Call(_primitive([p], body), [x])), {"x": f32(rng, 8)})
    assert kernels(lib) == ["relay.backend.reference"]


def test_memory_plan_reuses_storage(rng):
    x = relay.var("x", shape=(1, 16, 32, 32))
    h = x
    for i in range(12):  # a residual chain: relu(h * s + h)
        h = relay.nn.relu(relay.add(relay.multiply(h, relay.const(np.float32(0.5 + i / 10))), h))
    lib = check(relay.Function([x], h), {"x": f32(rng, 1, 16, 32, 32)})
    planned, total = lib.planned_bytes, lib.intermediate_bytes
    assert total == 36 * 16 * 32 * 32 * 4
    assert planned <= 3 * 16 * 32 * 32 * 4 < total


# -- values other than static float tensors ---------------------------------------------------------------------
def test_control_flow_captures_outer_values(rng):
    x, c = relay.var("x", shape=(3, 4)), relay.var("c", shape=(), dtype="bool")
    h = relay.nn.relu(x)  # a native node the branches also read
    y = relay.op.control.if_(c, relay.Function([], relay.add(h, x)), relay.Function([], relay.exp(x)))
    func = relay.Function([x, c], relay.sigmoid(y))
    for cond in (True, False):
        lib = check(func, {"x": f32(rng, 3, 4), "c": np.array(cond)})
    # Native: the branches' nodes guarded by c (relu, read only by the then-branch, is the branch's), then the
    # select, then sigmoid in main.
    nodes = tvm_nodes(lib)
    assert kernels(lib)[-2:] == ["__select", "topi.elemwise"] and "relay.backend.reference" not in kernels(lib)
    guards = [[g[2] for g in n["attrs"].get("guard", [])] for n in nodes]
    assert guards[-2:] == [[], []] and guards[-3] == [0] and all(g == [1] for g in guards[:-3])


def test_control_flow_reads_main_values_once_and_nests(rng):
    """A value main also uses is computed once, unguarded, and read by the branch; an If inside a branch guards its
    nodes by both conditions; every combination runs as the debug executor."""
    x = relay.var("x", shape=(3, 4))
    c, d = relay.var("c", shape=(), dtype="bool"), relay.var("d", shape=(), dtype="bool")
    h = relay.nn.relu(x)
    inner = relay.op.control.if_(d, relay.Function([], relay.multiply(h, h)), relay.Function([], relay.tanh(x)))
    y = relay.op.control.if_(c, relay.Function([], relay.add(inner, x)), relay.Function([], relay.exp(x)))
    func = relay.Function([x, c, d], relay.add(relay.sigmoid(y), h))
    for cond, cond2 in itertools.product((True, False), repeat=2):
        lib = check(func, {"x": f32(rng, 3, 4), "c": np.array(cond), "d": np.array(cond2)})
    nodes = tvm_nodes(lib)
    assert "relay.backend.reference" not in kernels(lib) and kernels(lib).count("__select") == 2
    guards = [sorted(g[2] for g in n["attrs"].get("guard", [])) for n in nodes]
    assert guards[0] == []  # relu(x): main's, before the If
    assert [0, 1] in guards or [1, 1] in guards  # a node of the inner If: guarded by c and by d


def test_reference_output_feeds_native_kernels(rng):
    x = relay.var("x", shape=(2, 5))
    s = no_kernel(x)
    lib = check(relay.Function([x], relay.Tuple([relay.nn.relu(relay.add(s, x)), relay.reshape(s, (10,))])),
                {"x": f32(rng, 2, 5)})
    assert sorted(kernels(lib)) == ["__nop", "relay.backend.reference", "topi.elemwise", "topi.elemwise"]


def test_scalars_keep_rank_zero(rng):
    x, y = relay.var("x", shape=()), relay.var("y", shape=(), dtype="int64")
    out = relay.Tuple([relay.exp(x), relay.add(y, y), no_kernel(relay.expand_dims(x, 0))])
    check(relay.Function([x, y], out), {"x": np.array(0.3, "float32"), "y": np.array(7, "int64")})


def test_dynamic_shapes_and_sequences_as_inputs(rng):
    from tvmlite.ir.type import SequenceType, TensorType
    from tvmlite.ir import SizeVar

    x = relay.var("x", TensorType([SizeVar("n"), 3], "float32"))
    s = relay.var("s", SequenceType(TensorType([2], "float32")))
    out = relay.Tuple([relay.exp(x), relay.op.control.sequence_length(s)])
    seq = [f32(rng, 2) for _ in range(3)]
    lib = check(relay.Function([x, s], out), {"x": f32(rng, 5, 3), "s": seq})
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(x=f32(rng, 2, 3), s=seq[:1])  # another n, a shorter sequence
    gm.run()
    assert gm.get_output(0).shape == (2, 3) and int(gm.get_output(1).numpy()) == 1
    with pytest.raises(ValueError, match="input 'x' has shape \\(-1, 3\\)"):
        gm.set_input("x", f32(rng, 2, 4))


def test_string_and_bfloat16_tensors(rng):
    import ml_dtypes

    x = relay.var("x", shape=(2, 3), dtype="bfloat16")
    s = relay.var("s", shape=(2,), dtype="string")
    out = relay.Tuple([relay.add(x, x), s])
    xv = rng.standard_normal((2, 3)).astype(ml_dtypes.bfloat16)
    lib, (got, strings) = _run(relay.Function([x, s], out), {"x": xv, "s": np.array(["a", "bc"], object)}, "cpu")
    np.testing.assert_array_equal(got, (xv + xv))
    assert got.dtype == ml_dtypes.bfloat16
    assert list(strings) == ["a", "bc"]


def test_epilogue_inputs_must_broadcast_to_the_output(rng):
    # clip's bounds may be (1,) on a () input: no epilogue can read them, so the reference runs it
    x, lo = relay.var("x", shape=()), relay.var("lo", shape=(1,))
    out = relay.Call(tvmlite.ir.Op.get("clip"), [x, lo, relay.Tuple([])])
    lib = check(relay.Function([x, lo], out), {"x": np.array(-2, "float32"), "lo": np.array([-1], "float32")})
    assert kernels(lib) == ["relay.backend.reference"]


def _test_concat_factory(attrs):
    axis = int(attrs["axis"])
    assert not str(attrs.get("epilogue", ""))  # this test kernel takes no epilogue

    def run(*args):
        *ins, out = args
        np.from_dlpack(out)[...] = np.concatenate([a.numpy() for a in ins], axis=axis)

    return run


def test_tuple_inputs_of_an_anchor_are_flattened(rng):
    register_kernel_factory("topi.test_concat", _test_concat_factory, override=True)
    register_op_attr("concatenate", "FTVMLiteKernel", "topi.test_concat", level=1)
    x, y = relay.var("x", shape=(2, 3)), relay.var("y", shape=(4, 3))
    out = relay.concatenate([x, relay.exp(y)], axis=0)  # main-level tuple -> the node's inputs
    p, q = relay.var("p", shape=(4, 3)), relay.var("q", shape=(2, 3))
    fused = relay.Call(_primitive([p, q], relay.concatenate([p, q], axis=0)), [y, x])  # a tuple inside a group
    lib = check(relay.Function([x, y], relay.Tuple([out, fused])), {"x": f32(rng, 2, 3), "y": f32(rng, 4, 3)})
    nodes = tvm_nodes(lib)
    concat = [n for n in nodes if n["name"].startswith("tvmlite_concatenate")]
    assert len(concat) == 2 and all(n["attrs"]["func_name"].startswith("topi.") for n in concat)
    assert all(len(n["inputs"]) == 2 for n in concat)


def test_clip_with_tensor_bounds(rng):
    x, lo, hi = relay.var("x", shape=(3, 8)), relay.var("lo", shape=()), relay.var("hi", shape=(1,))
    out = relay.Call(tvmlite.ir.Op.get("clip"), [x, lo, hi])
    lib = check(relay.Function([x, lo, hi], out),
                {"x": f32(rng, 3, 8) * 4, "lo": np.array(-1, "float32"), "hi": np.array([0.5], "float32")})
    (node,) = tvm_nodes(lib)
    assert node["attrs"]["kernel_attrs"]["epilogue"] == "copy r0 in0; max r0 r0 in1; min r0 r0 in2"


def test_multi_instruction_rule_on_the_anchor_value(rng, softsign_kernel):
    # swish(alpha != 1) of r0 into r0 needs scratch: computed in r1, then copied to r0
    x, p = relay.var("x", shape=(4, 6)), relay.var("p", shape=(4, 6))
    group = _primitive([p], relay.nn.swish(relay.nn.softsign(p), alpha=1.7))
    lib = check(relay.Function([x], relay.Call(group, [x])), {"x": f32(rng, 4, 6) * 3})
    (node,) = tvm_nodes(lib)
    if node["attrs"]["func_name"] == softsign_kernel:
        assert node["attrs"]["kernel_attrs"]["epilogue"] == "mul r1 r0 1.7; sigmoid r1 r1; mul r1 r0 r1; copy r0 r1"


def test_empty_tensors(rng):
    x, y = relay.var("x", shape=(0, 3)), relay.var("y", shape=(3,))
    out = relay.Tuple([relay.exp(relay.add(x, y)), relay.reshape(x, (3, -1)), no_kernel(x)])
    lib = check(relay.Function([x, y], out), {"x": np.zeros((0, 3), "float32"), "y": f32(rng, 3)})
    assert kernels(lib) == ["topi.elemwise", "topi.elemwise", "__nop", "relay.backend.reference"]  # source order


def test_tuple_anchor_read_only_as_field_0(rng):
    """nn.layer_norm returns (out, mean, inv_std): read only as field 0 it runs on the kernel computing out alone;
    when another field is read, the whole tuple comes from the reference."""
    x, g, b = relay.var("x", shape=(2, 5, 16)), relay.var("g", shape=(16,)), relay.var("b", shape=(16,))
    inputs = {"x": f32(rng, 2, 5, 16), "g": f32(rng, 16), "b": f32(rng, 16)}
    out = relay.nn.layer_norm(x, g, b, axis=-1)
    lib = check(relay.Function([x, g, b], relay.nn.relu(out)), inputs, rtol=1e-5, atol=1e-5)
    assert kernels(lib) == ["topi.nn.layer_norm", "topi.elemwise"]
    stats = relay.nn.layer_norm(x, g, b, axis=-1, return_stats=True)
    lib = check(relay.Function([x, g, b], relay.Tuple([stats[0], stats[1]])),
                inputs, rtol=1e-5, atol=1e-5)
    assert kernels(lib) == ["relay.backend.reference"]


def test_layout_transform_adding_a_block_of_one_is_a_view(rng):
    """NCHW -> NCHW1c (a conv's input of 1 or 19 channels) moves no data: a __nop view; NCHW -> NCHW4c is a
    kernel."""
    x = relay.var("x", shape=(1, 3, 5, 5))
    lib = check(relay.Function([x], relay.layout_transform(x, "NCHW", "NCHW1c")), {"x": f32(rng, 1, 3, 5, 5)})
    assert kernels(lib) == ["__nop"]
    x = relay.var("x", shape=(1, 8, 5, 5))
    lib = check(relay.Function([x], relay.layout_transform(x, "NCHW", "NCHW4c")), {"x": f32(rng, 1, 8, 5, 5)})
    assert kernels(lib) == ["topi.layout_transform"]


def test_layout_transform_with_an_epilogue(rng):
    """A broadcast the blocked layout does not take (a (1, C, 1, W) map) runs in NCHW: the transform back from the
    conv's blocks and the multiply after it are one fused node, the transform kernel applying the multiply as its
    epilogue."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    w = relay.const(f32(rng, 16, 8, 3, 3))
    y = relay.multiply(relay.nn.conv2d(x, w, padding=1), relay.const(f32(rng, 1, 16, 1, 6)))
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x], relay.nn.relu(y)), {"x": f32(rng, 1, 8, 6, 6)}, rtol=1e-4, atol=1e-5)
    fused = [n for n in tvm_nodes(lib) if "multiply" in n["name"]]
    assert [n["attrs"]["func_name"] for n in fused] == ["topi.layout_transform"]
    assert fused[0]["attrs"]["kernel_attrs"]["epilogue"].startswith("mul")


def test_epilogue_wider_than_its_anchor_is_not_one_kernel(rng):
    """x - mean(x): the subtraction's output is wider than mean's, so the epilogue cannot run in place on it."""
    x = relay.var("x", shape=(3, 2, 8))
    with tvmlite.transform.PassContext(opt_level=3):
        lib = check(relay.Function([x], relay.subtract(x, relay.mean(x, axis=-1, keepdims=True))),
                    {"x": f32(rng, 3, 2, 8)})
    assert "topi.mean" in kernels(lib) and len(kernels(lib)) == 2


@pytest.mark.parametrize("shape, axis", [((2, 5, 3, 4), 1), ((2, 5, 3, 4), -3), ((3, 6), -1), ((4, 3, 7), 2),
                                         ((2, 3, 1, 1), 1)])
@pytest.mark.parametrize("constant", [False, True])
def test_bias_add_reads_its_bias_along_the_axis(rng, shape, axis, constant):
    """nn.bias_add alone: one topi.elemwise adding the bias as (C, 1, ..., 1), a view of the input or of the
    constant's data (numpy would broadcast a (C,) bias along the last dim instead)."""
    c = shape[axis]
    x = relay.var("x", shape=shape)
    b = relay.var("b", shape=(c,))
    bias = f32(rng, c)
    func = relay.Function([x], relay.nn.bias_add(x, relay.const(bias), axis=axis)) if constant else \
        relay.Function([x, b], relay.nn.bias_add(x, b, axis=axis))
    inputs = {"x": f32(rng, *shape)} if constant else {"x": f32(rng, *shape), "b": bias}
    lib = check(func, inputs)
    assert [k for k in kernels(lib) if k != "__nop"] == ["topi.elemwise"]
    (node,) = [n for n in tvm_nodes(lib) if n["attrs"]["func_name"] == "topi.elemwise"]
    assert node["attrs"]["kernel_attrs"]["epilogue"] == "add r0 in0 in1"
    graph = json.loads(lib.get_graph_json())
    bias_entry = graph["node_row_ptr"][node["inputs"][1][0]] + node["inputs"][1][1]
    trailing = len(shape) - 1 - (axis % len(shape))
    assert graph["attrs"]["shape"][1][bias_entry] == [c] + [1] * trailing


def test_bias_add_joins_the_anchor_epilogue(rng):
    """conv2d (NCHW, unblocked at opt_level 2) + bias_add of an input + relu: one conv node whose epilogue adds a
    view of the bias; dense + bias_add: the bias as it is."""
    with tvmlite.transform.PassContext(opt_level=2):
        x, b = relay.var("x", shape=(2, 8, 9, 9)), relay.var("b", shape=(16,))
        w = f32(rng, 16, 8, 3, 3)
        y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, relay.const(w), padding=1), b))
        lib = check(relay.Function([x, b], y), {"x": f32(rng, 2, 8, 9, 9), "b": f32(rng, 16)}, rtol=1e-4,
                    atol=1e-4)
        assert [k for k in kernels(lib) if k != "__nop"] == ["topi.nn.conv2d_nchwc"]
        (node,) = [n for n in tvm_nodes(lib) if n["attrs"]["func_name"] != "__nop"]
        assert node["attrs"]["kernel_attrs"]["epilogue"] == "add r1 r0 in0; relu r0 r1"

        x = relay.var("x", shape=(4, 32))
        y = relay.nn.bias_add(relay.nn.dense(x, relay.const(f32(rng, 16, 32))), relay.const(f32(rng, 16)), axis=-1)
        lib = check(relay.Function([x], y), {"x": f32(rng, 4, 32)}, rtol=1e-4, atol=1e-4)
        assert [k for k in kernels(lib) if k != "__nop"] == ["topi.nn.dense"]


def test_bias_add_view_on_an_anchor_taking_int64(rng):
    """take (int64 indices: topi.take.accepts is asked at build) + bias_add of an input: the bias view is pending
    until the kernel takes the group, then becomes a __nop node."""
    with tvmlite.transform.PassContext(opt_level=3):
        x, i, b = relay.var("x", shape=(5, 3, 4)), relay.var("i", shape=(2,), dtype="int64"), relay.var("b", shape=(3,))
        y = relay.nn.bias_add(relay.take(x, i, axis=0), b, axis=1)
        lib = check(relay.Function([x, i, b], y), {"x": f32(rng, 5, 3, 4), "i": np.array([4, 1], "int64"),
                                                  "b": f32(rng, 3)})
        assert kernels(lib) == ["__nop", "topi.take"]
        assert tvm_nodes(lib)[1]["attrs"]["kernel_attrs"]["epilogue"] == "add r0 r0 in0"


def test_bias_add_view_is_not_made_when_the_kernel_refuses(rng, softsign_kernel):
    """A factory that refuses the group sends it to the reference: the bias view it would have read is not made."""
    def refuse(attrs):
        raise ValueError("topi.test_softsign: refused")

    with tvmlite.transform.PassContext(opt_level=3):
        x, b = relay.var("x", shape=(2, 3, 4)), relay.var("b", shape=(3,))
        func = relay.Function([x, b], relay.nn.bias_add(relay.nn.softsign(x), b))
        tvmlite.register_func(softsign_kernel, refuse, override=True)
        try:
            lib = check(func, {"x": f32(rng, 2, 3, 4), "b": f32(rng, 3)})
        finally:
            register_kernel_factory(softsign_kernel, _test_softsign_factory, override=True)
        assert kernels(lib) == ["relay.backend.reference"]
        lib = check(func, {"x": f32(rng, 2, 3, 4), "b": f32(rng, 3)})  # accepted: the view, then the kernel
        assert kernels(lib) == ["__nop", softsign_kernel]


def test_a_tensor_too_large_to_address_is_a_clear_error():
    """Dims whose byte count overflows int64 (a hostile model's declaration) are a ValueError at build, not
    undefined behaviour in the memory plan (UBSan found the overflow)."""
    x = relay.var("x", shape=(1 << 62,), dtype="float64")
    with pytest.raises(ValueError, match=r"^build: a tensor of 1 dims with a dim of 4611686018427387904 does not "
                                         r"fit in memory"):
        tvmlite.build(tvmlite.ir.IRModule.from_expr(relay.Function([x], relay.exp(x))), target="cpu")
