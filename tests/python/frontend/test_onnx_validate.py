"""Nodes are checked against their ONNX schema at import, as strictly as onnxruntime loads a model (validate.py).

Each hostile model here is one onnxruntime refuses at session creation (checked: the oracle), and tvmlite refuses
it at import with one error naming the node and the attribute or input. Flag attributes out of {0, 1} are refused
too: onnxruntime reads some of them as ``== 1`` where a converter reads ``bool(x)``, so they would compute different
results.
"""
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import tvmlite
from tvmlite.error import OpAttributeInvalid, OpAttributeRequired

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, value_info=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _x(shape=(2, 3), name="x", elem=F):
    return helper.make_tensor_value_info(name, elem, list(shape))


def _y(name="y", elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def _relu(**attrs):
    return _model([helper.make_node("Relu", ["x"], ["y"], name="r", **attrs)], [_x()], [_y()])


def _unary(op, inputs=("x",), outputs=("y",), **attrs):
    node = helper.make_node(op, list(inputs), list(outputs), name="n", **attrs)
    return _model([node], [_x()], [_y(o) for o in outputs if o])


def _if_with(node_attrs):
    then = helper.make_graph([helper.make_node("Relu", ["x"], ["o"], name="inner", **node_attrs)], "then", [],
                             [_y("o")])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["o"], name="other")], "else", [], [_y("o")])
    node = helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)
    return _model([node], [_x(), _x((), "c", TensorProto.BOOL)], [_y()])


def _twice():
    node = helper.make_node("ReduceSum", ["x"], ["y"], name="n", keepdims=1)
    node.attribute.extend([helper.make_attribute("keepdims", 0)])
    return _model([node], [_x()], [_y()])


def _softmax_with(edit):
    """A Softmax whose 'axis' attribute is edited at the protobuf level (what helper.make_node never writes)."""
    node = helper.make_node("Softmax", ["x"], ["y"], name="n", axis=1)
    edit(node.attribute[0])
    return _model([node], [_x()], [_y()])


def _untyped(a):
    a.type = a.UNDEFINED


def _two_values(a):
    a.f = 1.0


def _mismatched(a):
    a.ClearField("i")
    a.f = 1.0


def _empty_required_input():
    node = helper.make_node("Conv", ["", "w"], ["y"], name="n")
    return _model([node], [_x((1, 1, 3, 3), "w")], [_y()])


# (model, error class, message regex); every one of these onnxruntime refuses too (test_onnxruntime_refuses_too)
SCHEMA_CASES = {
    "unknown attribute": (_relu(dilations=[2, 2]), OpAttributeInvalid,
                          r"^node 'r' \(Relu\): Relu \(opset 17\) has no attribute 'dilations' "
                          r"\(its attributes: none\)$"),
    "bogus attribute": (_unary("Softmax", bogus_attr=1), OpAttributeInvalid,
                        r"^node 'n' \(Softmax\): Softmax \(opset 17\) has no attribute 'bogus_attr' \(its "
                        r"attributes: axis\)$"),
    "attribute in a subgraph": (_if_with({"bogus": 1}), OpAttributeInvalid,
                                r"^node 'inner' \(Relu\): Relu \(opset 17\) has no attribute 'bogus'"),
    "attribute given twice": (_twice(), OpAttributeInvalid,
                              r"^node 'n' \(ReduceSum\): attribute 'keepdims' is given twice$"),
    "attribute without type": (_softmax_with(_untyped), OpAttributeInvalid,
                               r"^node 'n' \(Softmax\): attribute 'axis' declares no type \(required from IR "
                               r"version 2\)$"),
    "attribute with two values": (_softmax_with(_two_values), OpAttributeInvalid,
                                  r"^node 'n' \(Softmax\): attribute 'axis' holds values of several kinds "
                                  r"\(FLOAT, INT\)$"),
    "attribute type and value disagree": (_softmax_with(_mismatched), OpAttributeInvalid,
                                          r"^node 'n' \(Softmax\): attribute 'axis' is declared INT but holds a "
                                          r"FLOAT value$"),
    "input type outside the constraint": (_model([helper.make_node("Sqrt", ["x"], ["y"], name="n")],
                                                 [_x(elem=TensorProto.INT32)], [_y(elem=TensorProto.INT32)]),
                                          TypeError, r"^node 'n' \(Sqrt\): input 0 \('x'\) of Sqrt \(opset 17\) is "
                                                     r"tensor\(int32\), which it does not take \(tensor\(bfloat16\), "
                                                     r"tensor\(double\), tensor\(float\), tensor\(float16\)\)$"),
    "opset out of range": (_model([helper.make_node("Relu", ["x"], ["y"])], [_x()], [_y()], opset=1 << 40),
                           ValueError, r"^the model imports opset 1099511627776 of ai.onnx, which ONNX defines from 1 "
                                       r"to \d+$"),
    "wrong kind": (_unary("Softmax", axis=1.5), OpAttributeInvalid,
                   r"^node 'n' \(Softmax\): attribute 'axis' must be INT, got FLOAT$"),
    "required attribute missing": (_unary("Cast"), OpAttributeRequired,
                                   r"^node 'n' \(Cast\): required attribute 'to' of Cast \(opset 17\) not given$"),
    "too many inputs": (_unary("Relu", inputs=("x", "x")), ValueError,
                        r"^node 'n' \(Relu\): Relu \(opset 17\) takes 1 inputs, got 2$"),
    "too few inputs": (_unary("Add"), ValueError,
                       r"^node 'n' \(Add\): Add \(opset 17\) takes 2 inputs, got 1$"),
    "too many outputs": (_unary("Relu", outputs=("y", "z")), ValueError,
                         r"^node 'n' \(Relu\): Relu \(opset 17\) has 1 outputs, got 2$"),
    "empty required input": (_empty_required_input(), ValueError,
                             r"^node 'n' \(Conv\): input 0 of Conv \(opset 17\) is required, but its name is empty$"),
    "graph output dtype": (_model([helper.make_node("Relu", ["x"], ["y"])], [_x()], [_y(elem=TensorProto.FLOAT16)]),
                           TypeError, r"^graph output 'y' is declared float16, but the graph computes float32$"),
    "value_info dtype": (_model([helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
                                [_x()], [_y()], value_info=[_y("h", TensorProto.INT64)]),
                         TypeError, r"^value_info 'h' is declared int64, but the graph computes float32$"),
    "input without element type": (_model([helper.make_node("Relu", ["x"], ["y"])], [_x(elem=0)], [_y()]), ValueError,
                                   r"^graph input 'x' declares no element type, which ONNX requires \(onnxruntime "
                                   r"refuses such a model\); pass dtype= to from_onnx to assume one$"),
    "output without element type": (_model([helper.make_node("Relu", ["x"], ["y"])], [_x()], [_y(elem=0)]),
                                    ValueError, r"^graph output 'y' declares no element type, which ONNX requires"),
}

FLAG_CASES = {
    "keepdims=3": (_unary("ReduceSum", keepdims=3), r"^node 'n' \(ReduceSum\): attribute 'keepdims' is a flag "
                                                    r"\(0 or 1\), got 3$"),
    "Unique sorted=-1": (_unary("Unique", sorted=-1), r"^node 'n' \(Unique\): attribute 'sorted' is a flag \(0 or "
                                                      r"1\), got -1$"),
    "Gemm transA=2": (_model([helper.make_node("Gemm", ["x", "x"], ["y"], name="n", transA=2)], [_x((3, 3))], [_y()]),
                      r"^node 'n' \(Gemm\): attribute 'transA' is a flag \(0 or 1\), got 2$"),
}


@pytest.mark.parametrize("case", sorted(SCHEMA_CASES))
def test_schema_violations_are_refused(case):
    model, cls, pattern = SCHEMA_CASES[case]
    with pytest.raises(cls, match=pattern) as info:
        tvmlite.frontend.from_onnx(model)
    assert isinstance(info.value, tvmlite.TVMLiteError)


@pytest.mark.parametrize("case", sorted(SCHEMA_CASES))
def test_onnxruntime_refuses_too(case):
    """The oracle: tvmlite is not stricter than onnxruntime on these."""
    model = SCHEMA_CASES[case][0]
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime's own exception classes
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("case", sorted(FLAG_CASES))
def test_flags_out_of_range_are_refused(case):
    model, pattern = FLAG_CASES[case]
    with pytest.raises(OpAttributeInvalid, match=pattern):
        tvmlite.frontend.from_onnx(model)


def test_valid_models_still_import():
    """The checks pass what the spec allows: optional inputs left empty, flags 0 and 1, variadic inputs, outputs
    declared with the computed type and any shape."""
    clip = helper.make_node("Clip", ["x", "", "hi"], ["c"], name="clip")
    red = helper.make_node("ReduceSum", ["c"], ["s"], name="sum", keepdims=0)
    mx = helper.make_node("Max", ["x", "x", "x"], ["m"], name="max")
    hi = helper.make_tensor_value_info("hi", F, [])
    model = _model([clip, red, mx], [_x(), hi], [_y("s", shape=[]), _y("m")])
    mod, _ = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target="debug")
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    x = np.arange(6, dtype="float32").reshape(2, 3) - 2
    gm.set_input(x=x, hi=np.array(2, "float32"))
    gm.run()
    np.testing.assert_array_equal(gm.get_output(0).numpy(), np.minimum(x, 2).sum())
    np.testing.assert_array_equal(gm.get_output(1).numpy(), x)


def test_dtype_names_the_type_of_untyped_inputs():
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_x(elem=0)], [_y(elem=TensorProto.DOUBLE)])
    mod, _ = tvmlite.frontend.from_onnx(model, dtype="float64")
    assert str(mod["main"].params[0].type_annotation.dtype) == "float64"
