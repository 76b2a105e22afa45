"""Hostile attribute values and missing optional inputs: a converter reports them as tvmlite errors naming the node
and the attribute (OpAttributeInvalid from the shared checks in common.py), never as a raw IndexError, KeyError,
ZeroDivisionError or numpy AxisError from inside it.

The last test is a bounded version of the sweep that found them: onnx's node test models with every int/ints/string
attribute of the op's schema set to out-of-range values, and trailing inputs dropped."""
import numpy as np
import pytest

import onnx  # noqa: E402  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper  # noqa: E402

import tvmlite
from tvmlite.error import OpAttributeInvalid, TVMLiteError
from tvmlite.relay.frontend.onnx import common

F = TensorProto.FLOAT


def model(op, inputs, outputs, opset, domain="", **attrs):
    """A one-node model; inputs/outputs are (name, elem_type, shape)."""
    node = helper.make_node(op, [i[0] for i in inputs], [o[0] for o in outputs], name="n0", domain=domain, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs])
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return helper.make_model(graph, opset_imports=opsets)


def convert_error(m):
    with pytest.raises(Exception) as info:
        tvmlite.frontend.from_onnx(m)
    return info.value


X3 = [("x", F, [2, 3, 4])]


# -- the shared checks, one per kind --------------------------------------------------------------------------
@pytest.mark.parametrize("axis,rank,end,expected", [(-1, 3, False, 2), (2, 3, False, 2), (3, 3, True, 3),
                                                   (-3, 3, True, 0), (0, 0, False, 0), (-1, 0, False, 0)])
def test_normalize_axis(axis, rank, end, expected):
    assert common.normalize_axis(axis, rank, "axis", end) == expected


@pytest.mark.parametrize("axis,rank,end,message", [
    (3, 3, False, "attribute 'axis' is 3: out of range for an input of rank 3 (valid: -3 to 2)"),
    (-4, 3, False, "attribute 'axis' is -4: out of range for an input of rank 3 (valid: -3 to 2)"),
    (1 << 62, 3, True, "attribute 'axis' is 4611686018427387904: out of range for an input of rank 3 (valid: -3 to 3)"),
    (-4, 3, True, "attribute 'axis' is -4: out of range for an input of rank 3 (valid: -3 to 3)"),
    (1, 0, False, "attribute 'axis' is 1: out of range for an input of rank 0 (valid: -1 to 0)"),
    ("1", 3, False, "attribute 'axis' must be an integer, got '1'"),
])
def test_normalize_axis_rejects(axis, rank, end, message):
    with pytest.raises(OpAttributeInvalid) as info:
        common.normalize_axis(axis, rank, "axis", end)
    assert str(info.value) == message


def test_axes_perm_choice_dtype_checks():
    assert common.normalize_axes([-1, 0], 3) == [2, 0]
    with pytest.raises(OpAttributeInvalid, match=r"^attribute 'axes' \[0, -3\] repeats an axis$"):
        common.normalize_axes([0, -3], 3)
    assert common.check_perm([2, 0, -2], 3) == [2, 0, 1]
    with pytest.raises(OpAttributeInvalid, match=r"^attribute 'perm' \[0, 0, 1\] is not a permutation of the axes "
                                                 r"0 to 2$"):
        common.check_perm([0, 0, 1], 3)
    with pytest.raises(OpAttributeInvalid, match=r"^attribute 'perm' \[1, 0\] has 2 entries for an input of rank 3$"):
        common.check_perm([1, 0], 3)
    assert common.choice_attr({}, "mode", "DCR", ("DCR", "CRD")) == "DCR"
    with pytest.raises(OpAttributeInvalid, match=r"^attribute mode='XYZ' is not one of DCR, CRD$"):
        common.choice_attr({"mode": "XYZ"}, "mode", "DCR", ("DCR", "CRD"))
    assert common.dtype_attr({"to": TensorProto.INT64}, "to") == "int64"
    assert common.dtype_attr({}, "dtype") is None and common.dtype_attr({}, "dtype", 1) == "float32"
    for code in (0, -1, 9999):
        with pytest.raises(OpAttributeInvalid, match=f"^attribute 'to' is {code}: not an ONNX tensor data type$"):
            common.dtype_attr({"to": code}, "to")
    with pytest.raises(OpAttributeInvalid, match=r"^attribute 'stash_type' is int32, must be a float type$"):
        common.dtype_attr({"stash_type": TensorProto.INT32}, "stash_type", kinds="f")
    assert common.input_at([1, 2], 1) == 2 and common.input_at([1, 2], 2) is None


# -- converters that leaked, each through its shared check ----------------------------------------------------
@pytest.mark.parametrize("m,cls,message", [
    (model("ArgMax", X3, [("y", TensorProto.INT64, None)], 13, axis=3), OpAttributeInvalid,
     "attribute 'axis' is 3: out of range for an input of rank 3 (valid: -3 to 2)"),
    (model("Transpose", X3, [("y", F, None)], 13, perm=[0, 2, 2]), OpAttributeInvalid,
     "attribute 'perm' [0, 2, 2] is not a permutation of the axes 0 to 2"),
    (model("Unsqueeze", [("x", F, [2])], [("y", F, None)], 11, axes=[0, -3]), OpAttributeInvalid,
     "attribute 'axes' [0, -3] repeats an axis"),
    (model("EyeLike", [("x", F, [2, 2])], [("y", F, None)], 9, dtype=-3), OpAttributeInvalid,
     "attribute 'dtype' is -3: not an ONNX tensor data type"),
    (model("LayerNormalization", [("x", F, [2, 3]), ("s", F, [3])], [("y", F, None)], 17, stash_type=-1),
     OpAttributeInvalid, "attribute 'stash_type' is -1: not an ONNX tensor data type"),  # was KeyError: -1
    (model("DepthToSpace", [("x", F, [1, 4, 2, 2])], [("y", F, None)], 13, blocksize=2, mode="XYZ"),
     OpAttributeInvalid, "attribute mode='XYZ' is not one of DCR, CRD"),
    (model("ConvTranspose", [("x", F, [1, 1, 3, 3]), ("w", F, [1, 1, 2, 2])], [("y", F, None)], 11,
           kernel_shape=[2]), OpAttributeInvalid, "attribute 'kernel_shape' has 1 values for 2 spatial dims"),
    (model("AveragePool", [("x", F, [1, 1, 4, 4])], [("y", F, None)], 11, kernel_shape=[2, 2], strides=[0, 0],
           auto_pad="SAME_UPPER"), OpAttributeInvalid, "attribute 'strides' [0, 0] has a value below 1"),
    (model("ReverseSequence", [("x", F, [2, 3]), ("l", TensorProto.INT64, [3])], [("y", F, None)], 10,
           time_axis=1, batch_axis=1), OpAttributeInvalid, "attributes 'time_axis' and 'batch_axis' are both 1"),
    (model("Adagrad", [("r", F, []), ("t", TensorProto.INT64, []), ("x", F, [2])], [("y", F, None)], 13,
           domain="ai.onnx.preview.training"), ValueError,
     "takes R, T and 3 tensors per optimized tensor (2 + 3 * n inputs), got 3 inputs"),
])
def test_converter_errors_name_node_and_attribute(m, cls, message):
    err = convert_error(m)
    assert isinstance(err, cls) and isinstance(err, TVMLiteError)
    assert str(err) == "node 'n0' (" + m.graph.node[0].op_type + "): " + message


@pytest.mark.parametrize("m,cls,message", [
    (model("BatchNormalization", X3 + [(n, F, [3]) for n in "sbmv"], [("y", F, None)], 7, spatial=0),
     tvmlite.error.OpNotImplemented, "spatial=0 (per-activation statistics)"),
    (model("NegativeLogLikelihoodLoss", [("x", F, [2, 3]), ("t", TensorProto.INT64, [2])], [("y", F, None)], 13,
           reduction="avg"), OpAttributeInvalid, "attribute reduction='avg' is not one of none, sum, mean"),
    (model("GroupNormalization", [("x", F, [1, 4, 2]), ("s", F, [2]), ("b", F, [2])], [("y", F, None)], 18,
           num_groups=2), tvmlite.error.OpNotImplemented,
     "per-group scale/bias (opset 18) that are not constant, or unknown channels"),
    (model("Softmax", X3, [("y", F, None)], 11, axis=3), tvmlite.error.OpNotImplemented,
     "axis 3 equal to the rank 3"),
    (model("Pad", [("x", F, [2, 3]), ("p", TensorProto.INT64, [4])], [("y", F, None)], 18, mode="wrap"),
     OpAttributeInvalid, "mode 'wrap' (this opset allows: constant, reflect, edge)"),
])
def test_converter_errors_name_the_node_once(m, cls, message):
    """The importer puts the node's label in front of a converter's error; the converter's own text never names the
    node again (norm.py's did: "node 'n0' (Softmax): Softmax node 'n0': ...")."""
    err = convert_error(m)
    assert isinstance(err, cls)
    assert str(err) == f"node 'n0' ({m.graph.node[0].op_type}): {message}"
    assert str(err).count("'n0'") == 1


@pytest.mark.parametrize("op,inputs,attrs,shape", [
    ("Flatten", X3, dict(axis=-1), (6, 4)),  # a split point: [-rank, rank], negatives + rank
    ("Flatten", X3, dict(axis=3), (24, 1)),
    ("OneHot", [("i", TensorProto.INT64, [3]), ("d", TensorProto.INT64, [1]), ("v", F, [2])], dict(axis=-2),
     (5, 3)),  # an axis of the result, one rank more than the indices
])
def test_checked_axes_keep_their_meaning(op, inputs, attrs, shape):
    m = model(op, inputs, [("y", F, None)], 13, **attrs)
    if op == "OneHot":  # depth a constant (an initializer that is not a graph input)
        del m.graph.input[1]
        m.graph.initializer.append(onnx.numpy_helper.from_array(np.array([5], "int64"), "d"))
    mod, _ = tvmlite.frontend.from_onnx(m)
    assert tuple(int(d) for d in mod["main"].body.checked_type.shape) == shape


def test_an_input_read_as_axes_is_named_as_an_input():
    m = model("Unsqueeze", [("x", F, [2])], [("y", F, None)], 13)
    m.graph.node[0].input.append("axes")
    m.graph.initializer.append(onnx.numpy_helper.from_array(np.array([1, -2], "int64"), "axes"))
    err = convert_error(m)
    assert isinstance(err, OpAttributeInvalid)
    assert str(err) == "node 'n0' (Unsqueeze): input 'axes' [1, -2] repeats an axis"


def test_scan_axes_per_scan_input():
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "e"], ["s2"]), helper.make_node("Identity", ["s2"], ["o"])], "body",
        [helper.make_tensor_value_info("s", F, [2]), helper.make_tensor_value_info("e", F, [2])],
        [helper.make_tensor_value_info("s2", F, [2]), helper.make_tensor_value_info("o", F, [2])])
    io = [("s0", F, [2]), ("xs", F, [3, 2])]
    outs = [("sf", F, None), ("ys", F, None)]
    err = convert_error(model("Scan", io, outs, 11, body=body, num_scan_inputs=1, scan_input_axes=[0, 1]))
    assert isinstance(err, OpAttributeInvalid)
    assert str(err) == "node 'n0' (Scan): attribute 'scan_input_axes' has 2 entries for 1 scan values"
    err = convert_error(model("Scan", io, outs, 11, body=body, num_scan_inputs=1, scan_input_axes=[2]))
    assert str(err) == ("node 'n0' (Scan): attribute 'scan_input_axes' is 2: out of range for an input of rank 2 "
                        "(valid: -2 to 1)")
    err = convert_error(model("Scan", io, outs, 11, body=body, num_scan_inputs=3))
    assert str(err) == "node 'n0' (Scan): attribute 'num_scan_inputs' is 3, must be 1 to the 2 inputs given"


# -- the sweep ----------------------------------------------------------------------------------------------
U8, I64 = TensorProto.UINT8, TensorProto.INT64


def _scan_body():
    return helper.make_graph(
        [helper.make_node("Add", ["s", "e"], ["s2"]), helper.make_node("Identity", ["s2"], ["o"])], "body",
        [helper.make_tensor_value_info("s", F, [2]), helper.make_tensor_value_info("e", F, [2])],
        [helper.make_tensor_value_info("s2", F, [2]), helper.make_tensor_value_info("o", F, [2])])


def _loop_body():
    return helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c2"]), helper.make_node("Neg", ["v"], ["v2"])], "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", F, [2])],
        [helper.make_tensor_value_info("c2", TensorProto.BOOL, []), helper.make_tensor_value_info("v2", F, [2])])


# One model per converter family (each family that leaked among them): (op, inputs, outputs, opset, attributes).
SAMPLE = [
    ("ArgMax", X3, [("y", I64, None)], 13, dict(axis=1)),
    ("Transpose", X3, [("y", F, None)], 13, dict(perm=[2, 0, 1])),
    ("Concat", [("x", F, [2, 3]), ("z", F, [2, 3])], [("y", F, None)], 13, dict(axis=0)),
    ("Gather", [("x", F, [2, 3]), ("i", I64, [2])], [("y", F, None)], 13, dict(axis=1)),
    ("Unsqueeze", [("x", F, [2, 3])], [("y", F, None)], 11, dict(axes=[0])),
    ("Flatten", X3, [("y", F, None)], 13, dict(axis=1)),
    ("Softmax", X3, [("y", F, None)], 13, dict(axis=-1)),
    ("LayerNormalization", [("x", F, [2, 3]), ("s", F, [3])], [("y", F, None)], 17, dict(axis=-1)),
    ("ReduceSum", X3, [("y", F, None)], 11, dict(axes=[1])),
    ("Cast", X3, [("y", TensorProto.DOUBLE, None)], 13, dict(to=TensorProto.DOUBLE)),
    ("EyeLike", [("x", F, [3, 3])], [("y", F, None)], 9, dict(dtype=F)),
    ("DepthToSpace", [("x", F, [1, 4, 2, 2])], [("y", F, None)], 13, dict(blocksize=2)),
    ("ReverseSequence", [("x", F, [3, 2, 4]), ("l", I64, [2])], [("y", F, None)], 10, dict(time_axis=0)),
    ("OneHot", [("i", I64, [3]), ("d", I64, []), ("v", F, [2])], [("y", F, None)], 11, dict(axis=-1)),
    ("ScatterElements", [("x", F, [3, 3]), ("i", I64, [1, 2]), ("u", F, [1, 2])], [("y", F, None)], 18,
     dict(axis=1)),
    ("ConvTranspose", [("x", F, [1, 1, 3, 3]), ("w", F, [1, 2, 3, 3])], [("y", F, None)], 11, dict(strides=[1, 1])),
    ("AveragePool", [("x", F, [1, 1, 5, 5])], [("y", F, None)], 11, dict(kernel_shape=[2, 2],
                                                                         auto_pad="SAME_UPPER")),
    ("ConvInteger", [("x", U8, [1, 1, 3, 3]), ("w", U8, [1, 1, 2, 2])], [("y", TensorProto.INT32, None)], 10, {}),
    ("QLinearConv", [("x", U8, [1, 1, 3, 3]), ("xs", F, []), ("xz", U8, []), ("w", U8, [1, 1, 2, 2]),
                     ("ws", F, []), ("wz", U8, []), ("ys", F, []), ("yz", U8, [])], [("y", U8, None)], 10, {}),
    ("QuantizeLinear", [("x", F, [2, 3]), ("s", F, [3]), ("z", U8, [3])], [("y", U8, None)], 13, dict(axis=1)),
    ("Scan", [("s0", F, [2]), ("xs", F, [3, 2])], [("sf", F, None), ("ys", F, None)], 11,
     dict(body=_scan_body(), num_scan_inputs=1)),
    ("Loop", [("m", I64, []), ("c", TensorProto.BOOL, []), ("v", F, [2])], [("vf", F, None)], 13,
     dict(body=_loop_body())),
    ("GRU", [("x", F, [2, 1, 3]), ("w", F, [1, 12, 3]), ("r", F, [1, 12, 4])], [("y", F, None)], 14,
     dict(hidden_size=4)),
    ("Split", [("x", F, [6])], [("y0", F, None), ("y1", F, None)], 13, dict(axis=0)),
    ("TopK", [("x", F, [2, 3]), ("k", I64, [1])], [("v", F, None), ("i", I64, None)], 11, dict(axis=-1)),
    ("Attention", [("q", F, [1, 2, 8]), ("k", F, [1, 3, 8]), ("v", F, [1, 3, 8])], [("y", F, None)], 23,
     dict(q_num_heads=2, kv_num_heads=2)),
    ("TensorScatter", [("c", F, [1, 4, 2]), ("u", F, [1, 1, 2])], [("y", F, None)], 24, dict(axis=-2)),
    ("MeanVarianceNormalization", [("x", F, [1, 2, 3, 3])], [("y", F, None)], 13, dict(axes=[0, 2, 3])),
]


def _mutations(m):
    """(label, mutated model) pairs: each INT/INTS/STRING attribute of the op's schema set to hostile values (the
    rank, -rank - 1, 2**62, repeats, an empty list, "bogus"), and each count of trailing inputs dropped."""
    node = m.graph.node[0]
    opset = max(o.version for o in m.opset_import if o.domain == node.domain)
    schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
    rank = len(m.graph.input[0].type.tensor_type.shape.dim)
    A = onnx.AttributeProto
    values = {A.INT: (rank, -rank - 1, 1 << 62, -1), A.INTS: ([], [rank], [0, 0], [-rank - 1], [1 << 62]),
              A.STRING: ("bogus",)}
    for name, a in sorted(schema.attributes.items()):
        for value in values.get(a.type, ()):
            yield f"{name}={value}", _with(m, lambda n: _set(n, name, a.type, value))
    for k in range(len(node.input)):
        yield f"inputs[:{k}]", _with(m, lambda n: n.input.__delitem__(slice(k, None)))


def _with(m, change):
    out = onnx.ModelProto()
    out.CopyFrom(m)
    change(out.graph.node[0])
    return out


def _set(node, name, kind, value):
    for i, a in enumerate(node.attribute):
        if a.name == name:
            del node.attribute[i]
            break
    node.attribute.append(helper.make_attribute(name, value, attr_type=kind))


def _origin(err):
    """The exception the converter raised: under the importer's relabelling (raised ``from None``) and any copy
    with_context made (whose __cause__ is the error it copied)."""
    if err.__suppress_context__ and err.__cause__ is None and err.__context__ is not None:
        err = err.__context__
    while err.__cause__ is not None and (type(err) is type(err.__cause__) or
                                         type(err).__bases__[0] is type(err.__cause__)):
        err = err.__cause__
    return err


def test_hostile_attributes_and_missing_inputs_raise_tvmlite_errors():
    leaks, tried, refused = [], 0, 0
    for op, inputs, outputs, opset, attrs in SAMPLE:
        domain = "ai.onnx.preview.training" if op == "Adagrad" else ""
        m = model(op, inputs, outputs, opset, domain, **attrs)
        tvmlite.frontend.from_onnx(m)  # the model itself converts: what fails below is the mutation
        for label, bad in _mutations(m):
            tried += 1
            try:
                tvmlite.frontend.from_onnx(bad)
            except Exception as err:  # noqa: BLE001 - classified below
                refused += 1
                origin = _origin(err)
                if not isinstance(origin, TVMLiteError):
                    leaks.append(f"{op} {label}: {type(origin).__name__}: {origin}")
    assert tried > 300 and refused > tried // 2  # the sweep reaches the converters' checks
    assert leaks == []
