"""Op facts (csrc/include/tvmlite/relay/op_facts.h): attributes registered with the ops that the passes and the
lowering ask instead of keeping lists of op names. Each is set on the ops the old lists held, and an op given the
attribute from Python gets the behaviour in the pass, while the same op without it does not."""
import contextlib
import json
import pathlib
import re

import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay import _ffi_api as relay_ffi_api
from tvmlite.relay.frontend.onnx import fold
from tvmlite.relay.transform_layout import AlterOpLayout

ROOT = pathlib.Path(__file__).resolve().parents[3]

# What the passes' name lists held before the ops carried the facts.
KEEPS_FINITE = [
    "add", "subtract", "multiply", "maximum", "minimum", "negative", "abs", "sign", "copy", "floor", "ceil", "round",
    "sigmoid", "tanh", "erf", "exp", "sin", "cos", "clip", "nn.relu", "nn.prelu", "nn.leaky_relu", "nn.elu",
    "nn.celu", "nn.selu", "nn.hard_sigmoid", "nn.hard_swish", "nn.thresholded_relu", "nn.shrink", "nn.swish",
    "nn.gelu", "nn.softplus", "nn.softsign", "nn.mish"]
# alter_op_layout.cc's list; legalize.cc's copy lacked nn.bias_add (Legalize remaps its axis itself).
AXIS_SEMANTICS = ["nn.bias_add", "expand_dims", "broadcast_to", "full", "qnn.quantize", "qnn.dequantize"]
VIEWS = ["reshape", "squeeze", "expand_dims", "nn.batch_flatten", "reshape_like"]


@contextlib.contextmanager
def marked(op_name, key, value=True):
    """op_name with attribute key set to value (True; level 1) for the duration; it must not have had it."""
    op = ir.Op.get(op_name)
    assert op.get_attr_level(key) is None
    op.set_attr(key, value, 1)
    try:
        yield
    finally:
        op.reset_attr(key)


@pytest.mark.parametrize("key, names", [("TKeepsFinite", KEEPS_FINITE), ("TAxisSemantics", AXIS_SEMANTICS),
                                        ("TIsView", VIEWS)])
def test_set_on_the_ops_the_lists_held(key, names):
    assert [n for n in names if ir.Op.get(n).get_attr(key) is not True] == []


@pytest.mark.parametrize("key, name", [("TKeepsFinite", "divide"), ("TKeepsFinite", "log"), ("TKeepsFinite", "sqrt"),
                                       ("TKeepsFinite", "power"), ("TAxisSemantics", "add"),
                                       ("TAxisSemantics", "nn.relu"), ("TIsView", "transpose"),
                                       ("TIsView", "broadcast_to"), ("TIsView", "layout_transform")])
def test_not_set_on_others(key, name):
    assert ir.Op.get(name).get_attr(key) is None


def test_every_dyn_op_has_axis_semantics():
    """The old lists' prefix rule: a dyn.* op's shape or axes come from a run-time tensor."""
    dyn = [n for n in ir.list_op_names() if n.startswith("dyn.")]
    assert len(dyn) >= 20
    assert [n for n in dyn if ir.Op.get(n).get_attr("TAxisSemantics") is not True] == []


def const(rng, *shape, scale=0.2):
    return relay.const(rng.standard_normal(shape).astype("float32") * scale)


def conv(rng, x, cin, cout):
    return relay.nn.conv2d(x, const(rng, cout, cin, 1, 1))  # 1x1: never Winograd


def arg_op(mod, name):
    """The op name of the first argument of main's one call of name."""
    found = []

    class Find(relay.ExprVisitor):
        def visit_call(self, call):
            if isinstance(call.op, ir.Op) and call.op.name == name:
                found.append(call.args[0])
            super().visit_call(call)

    Find().visit(mod["main"])
    (arg,) = found
    return arg.op.name


def alter(run_relay, rng, body, x):
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x], body)))
    new = AlterOpLayout(max_block=8)(mod)
    data = rng.standard_normal([int(d) for d in x.type_annotation.shape]).astype("float32")
    np.testing.assert_allclose(run_relay(new, [data])[0], run_relay(mod, [data])[0], rtol=1e-4, atol=1e-4)
    return new


def test_keeps_finite_lets_padded_channels_through(run_relay, rng):
    """A conv's 12 channels are padded to 16 (NCHW8c): atan (bounded, but in no list before) takes the padding only
    when marked TKeepsFinite; unmarked it gets the 12 real channels, sliced out in NCHW."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    body = relay.atan(conv(rng, x, 8, 12))
    assert arg_op(alter(run_relay, rng, body, x), "atan") == "strided_slice"
    with marked("atan", "TKeepsFinite"):
        assert arg_op(alter(run_relay, rng, body, x), "atan") == "nn.contrib_conv2d_NCHWc"


def test_axis_semantics_keeps_an_op_out_of_the_blocked_layout(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 6, 6))
    body = relay.atan(conv(rng, x, 8, 16))
    assert arg_op(alter(run_relay, rng, body, x), "atan") == "nn.contrib_conv2d_NCHWc"
    with marked("atan", "TAxisSemantics"):
        assert arg_op(alter(run_relay, rng, body, x), "atan") == "layout_transform"


def test_axis_semantics_stops_legalize_sinking_the_squeeze(rng):
    """Legalize sinks a 1-D conv's squeeze below the elementwise ops after it, but not below an op whose axes mean
    something (it would need them remapped); nn.bias_add has the attribute and is remapped still."""
    x = relay.var("x", shape=(1, 8, 16))
    y = relay.nn.bias_add(relay.nn.conv1d(x, const(rng, 16, 8, 3), padding=1), const(rng, 16))
    func = relay.Function([x], relay.atan(y))

    def chain():
        e, names = relay.transform.Legalize()(ir.IRModule.from_expr(func))["main"].body, []
        while len(names) < 3:
            names.append(e.op.name)
            e = e.args[0]
        return names

    assert chain() == ["squeeze", "atan", "nn.bias_add"]
    with marked("atan", "TAxisSemantics"):
        assert chain() == ["atan", "squeeze", "nn.bias_add"]


def kernels(func, inputs):
    """The cpu build's kernel names, unfused; its outputs checked against the debug target's."""
    outs = {}
    with tvmlite.transform.PassContext(opt_level=0):
        for target in ("cpu", "debug"):
            lib = tvmlite.build(relay.IRModule.from_expr(func), target=target)
            gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
            gm.set_input(**inputs)
            gm.run()
            outs[target] = (lib, gm.get_output(0).numpy())
    np.testing.assert_array_equal(outs["cpu"][1], outs["debug"][1])
    return [n["attrs"]["func_name"] for n in json.loads(outs["cpu"][0].get_graph_json())["nodes"]
            if n["op"] == "tvm_op"]


def test_is_view_makes_the_lowering_alias_storage(rng):
    """copy's output is its input's bytes: marked TIsView it lowers to a view ("__nop"), not a kernel."""
    x = relay.var("x", shape=(3, 4))
    func = relay.Function([x], relay.copy(relay.nn.relu(x)))
    inputs = {"x": rng.standard_normal((3, 4)).astype("float32")}
    assert "__nop" not in kernels(func, inputs)
    with marked("copy", "TIsView"):
        assert kernels(func, inputs)[-1] == "__nop"


def test_the_facts_with_a_condition_are_rules_on_their_ops():
    """What the pass and the lowering tested by name: divide keeps finite by a nonzero scalar, layout_transform is a
    view between layouts of one memory order, broadcast_to's input is read as it is."""
    assert callable(ir.Op.get("divide").get_attr("FTVMLiteKeepsFinite"))
    assert callable(ir.Op.get("layout_transform").get_attr("FTVMLiteIsView"))
    assert ir.Op.get("broadcast_to").get_attr("TBroadcastsFirstInput") is True
    for name in ("alter_op_layout.cc", "group_lowering.cc"):
        path = ROOT / ("csrc/relay/transforms" if name.startswith("alter") else "csrc/backend") / name
        assert re.findall(r'->name [!=]= "', path.read_text()) == []


def test_keeps_finite_rule_lets_padded_channels_through_a_divide(run_relay, rng):
    """12 channels padded to 16: a divide by a nonzero scalar keeps the padding; by zero it gets the 12 real ones."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    for divisor, kept in ((2.0, True), (0.0, False)):
        body = relay.divide(conv(rng, x, 8, 12), relay.const(np.float32(divisor)))
        new = alter(run_relay, rng, body, x) if divisor else _alter_only(body, x)
        assert (arg_op(new, "divide") == "nn.contrib_conv2d_NCHWc") is kept


def _alter_only(body, x):
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], body)))
    return AlterOpLayout(max_block=8)(mod)


def test_is_view_rule_makes_a_call_a_view(rng):
    """copy marked with an FTVMLiteIsView rule that says yes lowers to a view; a rule returning no bool is a
    TypeError naming the attribute and the op."""
    x = relay.var("x", shape=(3, 4))
    func = relay.Function([x], relay.copy(relay.nn.relu(x)))
    inputs = {"x": rng.standard_normal((3, 4)).astype("float32")}
    with marked("copy", "FTVMLiteIsView", lambda call: True):
        assert kernels(func, inputs)[-1] == "__nop"
    with marked("copy", "FTVMLiteIsView", lambda call: "yes"):
        with pytest.raises(TypeError, match="FTVMLiteIsView of copy: expected a bool"):
            kernels(func, inputs)


def test_the_importer_asks_the_compiler_whether_an_op_is_deterministic(monkeypatch):
    """frontend/onnx/fold.py keeps no rule of its own: it asks OpFacts::Deterministic (relay.OpDeterministic)."""
    asked = []

    def spy(op):
        asked.append(op.name)
        return False

    monkeypatch.setattr(relay_ffi_api, "OpDeterministic", spy, raising=False)
    monkeypatch.delitem(fold._DETERMINISTIC, "nn.softmax", raising=False)
    assert fold.is_deterministic(ir.Op.get("nn.softmax")) is False
    assert asked == ["nn.softmax"]


def test_op_deterministic_reads_the_attribute():
    op = ir.Op.get("negative")
    assert relay_ffi_api.OpDeterministic(op) is True
    with marked("negative", "TNonDeterministic"):
        assert relay_ffi_api.OpDeterministic(op) is False


def test_passes_keep_no_lists_of_op_names():
    """The helpers that held the lists are gone, and no pass or lowering file keeps a set of names again
    (epilogue_rules.cc is another part of issue 32)."""
    files = sorted((ROOT / "csrc/relay/transforms").glob("*.cc")) + sorted((ROOT / "csrc/backend").glob("*.cc"))
    pattern = re.compile(r"static const std::(unordered_)?set<std::string>|\bIsViewOp\b|\bkReductions\b")
    found = [f"{f.name}:{i}" for f in files if f.name != "epilogue_rules.cc"
             for i, line in enumerate(f.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []
    assert "_RANDOM_WORDS" not in (ROOT / "tvmlite/relay/frontend/onnx/fold.py").read_text()


LEGALIZED = ["nn.conv1d", "nn.conv1d_transpose", "nn.conv2d", "nn.bias_add", "expand_dims", "split", "tile",
             "l2_norm", "l1_norm", "sum_square"]


def test_legalize_asks_each_op_for_its_rule():
    """Legalize names no op: its rewrites are the ops' "FTVMLiteLegalize" rules (legalize_rules.cc, TVM's
    FTVMLegalize), and a rule set from Python is applied like them: (call, new args) -> an expression, or None to
    keep the call."""
    assert re.findall(r'->name ==|name == "', (ROOT / "csrc/relay/transforms/legalize.cc").read_text()) == []
    assert [n for n in LEGALIZED if ir.Op.get(n).get_attr("FTVMLiteLegalize") is None] == []
    x = relay.var("x", shape=(2, 3))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.negative(relay.exp(x))))
    seen = []

    def rule(call, args):
        seen.append(call.op.name)
        return relay.subtract(relay.const(0.0), args[0]) if len(seen) == 1 else None

    op = ir.Op.get("negative")
    assert op.get_attr_level("FTVMLiteLegalize") is None
    op.set_attr("FTVMLiteLegalize", rule, 1)
    try:
        first = relay.transform.Legalize()(mod)["main"].body
        second = relay.transform.Legalize()(mod)["main"].body
    finally:
        op.reset_attr("FTVMLiteLegalize")
    assert (first.op.name, first.args[1].op.name) == ("subtract", "exp")
    assert second.op.name == "negative" and seen == ["negative", "negative"]
    assert relay.transform.Legalize()(mod)["main"].body.op.name == "negative"  # the rule is gone


def test_a_legalize_rule_called_wrongly_raises_naming_it():
    rule = ir.Op.get("split").get_attr("FTVMLiteLegalize")
    with pytest.raises(TypeError, match=r"FTVMLiteLegalize of split: expected \(call, args\), got 1 arguments"):
        rule(1)
    x = relay.var("x", shape=(4,))
    call = relay.split(x, 2).astuple()
    with pytest.raises(ValueError, match="FTVMLiteLegalize of split: 0 args for a call of 1"):
        rule(call, [])


def pass_source(name):
    return (ROOT / "csrc/relay/transforms" / name).read_text()


def scaled_matmul(rng):
    """matmul(x (3, 4), W (4, 5)) * s (5,): the scale is per output channel (W's axis 1, the result's last)."""
    x = relay.var("x", shape=(3, 4))
    body = relay.multiply(relay.nn.matmul(x, const(rng, 4, 5)), const(rng, 5, scale=2.0))
    return ir.IRModule.from_expr(relay.Function([x], body))


def test_fold_scale_axis_asks_each_op_where_its_channels_are(run_relay, rng, op_names):
    """FoldScaleAxis names no anchor: an op's "FTVMLiteScaleAxis" rule (call -> (output axis, weight axis) or None)
    says whether and where a scale folds into its weight; nn.matmul given one from Python folds like nn.dense."""
    assert re.findall(r'AsOpCall\([^)]*"nn\.(conv|dense)', pass_source("fold_scale_axis.cc")) == []
    assert [n for n in ["nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.dense"]
            if ir.Op.get(n).get_attr("FTVMLiteScaleAxis") is None] == []
    mod = scaled_matmul(rng)

    def fold():
        return relay.transform.FoldConstant()(relay.transform.FoldScaleAxis()(mod))

    assert sorted(op_names(fold())) == ["multiply", "nn.matmul"]
    seen = []

    def rule(call):
        seen.append(call.op.name)
        return [-1, 1]

    with marked("nn.matmul", "FTVMLiteScaleAxis", rule):
        out = fold()
    assert seen == ["nn.matmul"] and op_names(out) == ["nn.matmul"]
    x = rng.standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(run_relay(out, [x])[0], run_relay(mod, [x])[0], rtol=1e-5, atol=1e-5)
    with marked("nn.matmul", "FTVMLiteScaleAxis", lambda call: None):
        assert sorted(op_names(fold())) == ["multiply", "nn.matmul"]


@pytest.mark.parametrize("result, error, message", [
    ("channels", TypeError, r"FTVMLiteScaleAxis of nn.matmul must return None or \(output axis, weight axis\), "
                            r"got .*str"),
    ([1], TypeError, r"FTVMLiteScaleAxis of nn.matmul must return None or \(output axis, weight axis\), got 1 values"),
    ([2, 0], ValueError, r"FTVMLiteScaleAxis of nn.matmul gave axes \(2, 0\) for a rank-2 result and a rank-2 weight"),
    ([0, -3], ValueError, r"FTVMLiteScaleAxis of nn.matmul gave axes \(0, -3\)")])
def test_a_wrong_scale_axis_rule_raises_naming_it(rng, result, error, message):
    with marked("nn.matmul", "FTVMLiteScaleAxis", lambda call: result), pytest.raises(error, match=message):
        relay.transform.FoldScaleAxis()(scaled_matmul(rng))


def test_a_scale_axis_rule_called_wrongly_raises_naming_it():
    rule = ir.Op.get("nn.conv2d").get_attr("FTVMLiteScaleAxis")
    with pytest.raises(TypeError, match=r"FTVMLiteScaleAxis of nn.conv2d"):
        rule(1)


DYNAMIC_TO_STATIC = [n for n in ir.list_op_names() if n.startswith("dyn.")] + ["image.resize"]


def test_dynamic_to_static_asks_each_op_for_its_rule():
    """DynamicToStatic names no op: each dyn op's "FTVMLiteDynamicToStatic" rule (dynamic_to_static_rules.cc)
    gives its static form; a rule set from Python on another op is applied the same way, (call, context) -> an
    expression (typed by the pass) or None, and one the static relation rejects keeps the call."""
    source = pass_source("dynamic_to_static.cc")
    assert re.findall(r'name ==|name\.compare|"dyn\.|"image\.', source) == []
    assert len(DYNAMIC_TO_STATIC) >= 26
    assert [n for n in DYNAMIC_TO_STATIC if ir.Op.get(n).get_attr("FTVMLiteDynamicToStatic") is None] == []
    x = relay.var("x", shape=(2, 3))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.negative(x)))
    seen = []

    def rule(call, context):
        seen.append((call.op.name, type(context).__name__))
        return relay.subtract(relay.const(0.0), call.args[0])

    with marked("negative", "FTVMLiteDynamicToStatic", rule):
        body = relay.transform.DynamicToStatic()(mod)["main"].body
    assert body.op.name == "subtract" and seen[0][0] == "negative"
    with marked("negative", "FTVMLiteDynamicToStatic", lambda call, context: relay.reshape(call.args[0], (7,))):
        assert relay.transform.DynamicToStatic()(mod)["main"].body.op.name == "negative"


def test_a_wrong_dynamic_to_static_rule_raises_naming_it():
    x = relay.var("x", shape=(2, 3))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.negative(x)))
    with marked("negative", "FTVMLiteDynamicToStatic", lambda call, context: 3), \
            pytest.raises(TypeError, match="FTVMLiteDynamicToStatic of negative must return an Expr or None, got int"):
        relay.transform.DynamicToStatic()(mod)


def test_a_dynamic_to_static_rule_called_wrongly_raises_naming_it():
    """The context a Python rule was given stays valid after the pass (it owns the shape values); a C++ rule given
    a call of another op, or wrong arguments, raises naming it."""
    x = relay.var("x", shape=(2, 3))
    contexts = []
    with marked("negative", "FTVMLiteDynamicToStatic", lambda call, context: contexts.append(context)):
        relay.transform.DynamicToStatic()(ir.IRModule.from_expr(relay.Function([x], relay.negative(x))))
    (context,) = contexts
    rule = ir.Op.get("dyn.reshape").get_attr("FTVMLiteDynamicToStatic")
    with pytest.raises(TypeError, match=r"FTVMLiteDynamicToStatic of dyn.reshape: expected \(call, context\), got 1"):
        rule(1)
    with pytest.raises(TypeError, match=r"FTVMLiteDynamicToStatic of dyn.reshape: expected \(Call, "
                                        r"DynamicToStaticContext\), got"):
        rule(relay.negative(x), 1)
    with pytest.raises(ValueError, match="FTVMLiteDynamicToStatic of dyn.reshape: expected a call of it, got one "
                                         "of negative with 1 args"):
        rule(relay.negative(x), context)
    typed = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function(
        [x], relay.reshape(x, relay.const(np.array([3, 2], "int64"))))))["main"].body
    assert typed.op.name == "dyn.reshape"
    assert rule(typed, context).op.name == "reshape"


SHAPE_VALUE_OPS = ["shape_of", "concatenate", "equal", "where", "add", "subtract", "multiply", "floor_divide",
                   "maximum", "minimum", "negative", "cast", "expand_dims", "squeeze", "reshape", "take",
                   "strided_slice"]


def copied_shape():
    """main(x) = copy(shape_of(x) + 0): DynamicToStatic folds a shape value whose entries are all static."""
    x = relay.var("x", shape=(2, 3))
    zero = relay.const(np.zeros(2, "int64"))
    return ir.IRModule.from_expr(relay.Function([x], relay.copy(relay.add(relay.shape_of(x), zero))))


def test_shape_values_ask_each_op_for_its_rule():
    """The shape value evaluator names no op: each op's "FTVMLiteShapeValue" rule (shape_value_rules.cc) computes
    its value; copy given a rule from Python (reusing cast's) is followed like cast, and folds to a constant."""
    for name in ["shape_value.cc", "shape_value.h"]:
        assert re.findall(r'name ==|name\.compare|op == "', pass_source(name)) == []
    assert [n for n in SHAPE_VALUE_OPS if ir.Op.get(n).get_attr("FTVMLiteShapeValue") is None] == []
    mod = copied_shape()
    assert relay.transform.DynamicToStatic()(mod)["main"].body.op.name == "copy"
    cast_rule = ir.Op.get("cast").get_attr("FTVMLiteShapeValue")
    seen = []

    def rule(call, context):
        seen.append(call.op.name)
        return cast_rule(call, context)

    with marked("copy", "FTVMLiteShapeValue", rule):
        body = relay.transform.DynamicToStatic()(mod)["main"].body
    assert seen == ["copy"] and isinstance(body, relay.Constant)
    np.testing.assert_array_equal(body.data.numpy(), [2, 3])
    with marked("copy", "FTVMLiteShapeValue", lambda call, context: None):
        assert relay.transform.DynamicToStatic()(mod)["main"].body.op.name == "copy"


def test_a_wrong_shape_value_rule_raises_naming_it():
    shape_of_rule = ir.Op.get("shape_of").get_attr("FTVMLiteShapeValue")
    with marked("copy", "FTVMLiteShapeValue", lambda call, context: 3), \
            pytest.raises(TypeError, match="FTVMLiteShapeValue of copy must return a ShapeValue or None, got int"):
        relay.transform.DynamicToStatic()(copied_shape())
    y = relay.var("y", shape=(7,))
    shape_of_y = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([y], relay.shape_of(y))))
    with marked("copy", "FTVMLiteShapeValue", lambda call, context: shape_of_rule(shape_of_y["main"].body, context)), \
            pytest.raises(ValueError, match=r"FTVMLiteShapeValue of copy gave 1 entries for a tensor of shape \(2,\)"):
        relay.transform.DynamicToStatic()(copied_shape())


def test_a_shape_value_rule_called_wrongly_raises_naming_it():
    """A context is live only while its rule runs: kept and used later it is refused, never read."""
    contexts = []
    with marked("copy", "FTVMLiteShapeValue", lambda call, context: contexts.append(context)):
        relay.transform.DynamicToStatic()(copied_shape())
    (context,) = contexts
    rule = ir.Op.get("shape_of").get_attr("FTVMLiteShapeValue")
    x = relay.var("x", shape=(2, 3))
    call = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.shape_of(x))))["main"].body
    with pytest.raises(TypeError, match=r"FTVMLiteShapeValue of shape_of: expected \(call, context\), got 1"):
        rule(call)
    with pytest.raises(TypeError, match=r"FTVMLiteShapeValue of shape_of: expected \(Call, ShapeValueContext\)"):
        rule(call, 1)
    with pytest.raises(ValueError, match="FTVMLiteShapeValue of shape_of: the context is used after the rule it was "
                                         "given to returned"):
        rule(call, context)
    take = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function(
        [x], relay.take(relay.shape_of(x), relay.const(np.array([1, 0], "int64"))))))["main"].body
    with marked("copy", "FTVMLiteShapeValue", lambda call, context: rule(take, context)), \
            pytest.raises(ValueError, match="FTVMLiteShapeValue of shape_of: expected a typed call of 1 args with a "
                                            "small integer result, got one of 2 args"):
        relay.transform.DynamicToStatic()(copied_shape())


ALTER_OP_LAYOUT = ["nn.conv2d", "nn.conv3d", "nn.conv2d_transpose", "nn.conv3d_transpose", "nn.max_pool2d",
                   "nn.avg_pool2d", "nn.global_avg_pool", "nn.global_max_pool", "concatenate", "strided_slice", "mean",
                   "sum", "max", "min", "nn.pad", "nn.bias_add", "nn.dense", "nn.matmul"]


def test_alter_op_layout_asks_each_op_for_its_rule(run_relay, rng):
    """AlterOpLayout names no op in a table: each op's "FTVMLiteAlterOpLayout" rule (alter_op_layout_rules.cc, TVM's
    FTVMAlterOpLayout) rewrites its call, and a rule set from Python is applied the same way: (call, context) ->
    [expr, block, padded], or None to fall back to the elementwise rewrite."""
    source = pass_source("alter_op_layout.cc")
    assert re.findall(r'->name ==|kRules|Rules\(\)', source) == []
    assert [n for n in ALTER_OP_LAYOUT if ir.Op.get(n).get_attr("FTVMLiteAlterOpLayout") is None] == []
    x = relay.var("x", shape=(1, 8, 6, 6))
    body = relay.atan(conv(rng, x, 8, 16))
    seen = []

    def decline(call, context):
        seen.append(call.op.name)

    with marked("atan", "FTVMLiteAlterOpLayout", decline):
        assert arg_op(alter(run_relay, rng, body, x), "atan") == "nn.contrib_conv2d_NCHWc"
    assert seen == ["atan"]
    # A rule's expression in the original layout (block 0): here the original call itself, copied.
    with marked("atan", "FTVMLiteAlterOpLayout", lambda call, context: [relay.copy(call), 0, 0]):
        new = alter(run_relay, rng, body, x)
    assert new["main"].body.op.name == "copy" and arg_op(new, "atan") == "nn.conv2d"


@pytest.mark.parametrize("result, error, message", [
    (3, TypeError, r"FTVMLiteAlterOpLayout of atan must return \[expr, block, padded\] or None, got int"),
    ([1, 0, 0], TypeError, r"FTVMLiteAlterOpLayout of atan must return \[expr, block, padded\] or None"),
    ("block3", ValueError, r"FTVMLiteAlterOpLayout of atan gave block 3 and padded 0: the block must be 0, 1, 2, 4, 8"),
    ("padded", ValueError, r"FTVMLiteAlterOpLayout of atan gave block 0 and padded 16")])
def test_a_wrong_alter_op_layout_rule_raises_naming_it(rng, result, error, message):
    x = relay.var("x", shape=(1, 8, 6, 6))
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.atan(conv(rng, x, 8, 16)))))

    def rule(call, context):
        if result == "block3":
            return [call, 3, 0]
        if result == "padded":
            return [call, 0, 16]
        return result

    with marked("atan", "FTVMLiteAlterOpLayout", rule), pytest.raises(error, match=message):
        AlterOpLayout(max_block=8)(mod)


def test_an_alter_op_layout_rule_called_wrongly_raises_naming_it(rng):
    """The context a Python rule was given stays valid after the pass (it owns the values and their function): a C++
    rule asked with it rewrites a call of that function again; a call of another op, of another function, or wrong
    arguments raise naming the rule."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.atan(conv(rng, x, 8, 16)))))
    kept = []
    with marked("atan", "FTVMLiteAlterOpLayout", lambda call, context: kept.append((call, context))):
        AlterOpLayout(max_block=8)(mod)
    ((atan, context),) = kept
    rule = ir.Op.get("nn.conv2d").get_attr("FTVMLiteAlterOpLayout")
    with pytest.raises(TypeError, match=r"FTVMLiteAlterOpLayout of nn.conv2d: expected \(call, context\), got 1"):
        rule(1)
    with pytest.raises(TypeError, match=r"FTVMLiteAlterOpLayout of nn.conv2d: expected \(Call, AlterOpLayoutContext\)"):
        rule(atan.args[0], 1)
    with pytest.raises(ValueError, match="FTVMLiteAlterOpLayout of nn.conv2d: expected a call of it, got one of atan "
                                         "with 1 args"):
        rule(atan, context)
    expr, block, padded = rule(atan.args[0], context)
    assert (expr.op.name, block, padded) == ("nn.contrib_conv2d_NCHWc", 8, 0)
    y = relay.var("y", shape=(1, 8, 6, 6))
    other = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([y], conv(rng, y, 8, 16))))
    with pytest.raises(ValueError, match="is no node of the function this context rewrites"):
        rule(other["main"].body, context)
