"""ONNX shape converters on cases the node tests miss: old opsets (attributes instead of inputs), constant shape
inputs giving static types, symbolic dims, and bad attributes naming the node."""
import numpy as np
import pytest

import onnx  # noqa: E402,F401  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import tvmlite  # noqa: E402
from tvmlite.error import OpAttributeInvalid, OpAttributeRequired  # noqa: E402


def make_model(node, inputs, outputs, opset, initializers=()):
    """inputs/outputs: (name, elem_type, shape) with dims ints or names."""
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), name=k) for k, v in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def convert(model, freeze=True):
    mod, params = tvmlite.frontend.from_onnx(model, freeze_params=freeze)
    return mod, params


def out_type(mod):
    return mod["main"].body.checked_type if hasattr(mod["main"].body, "checked_type") else None


def typed(mod):
    return tvmlite.relay.transform.InferType()(mod)["main"].body.checked_type


def dims(ty):
    return tuple(d if isinstance(d, int) else str(d) for d in ty.shape)


def run(model, *values, freeze=True):
    mod, params = convert(model, freeze)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    names = [p.name_hint for p in mod["main"].params if p.name_hint not in params]
    for name, v in zip(names, values):
        gm.set_input(name, v)
    gm.run()
    outs = [gm.get_output(i) for i in range(gm.get_num_outputs())]
    outs = [o.numpy() if hasattr(o, "numpy") else o for o in outs]
    return outs if len(outs) > 1 else outs[0]


F = TensorProto.FLOAT
I64 = TensorProto.INT64


def test_reshape_v1_attribute():
    node = helper.make_node("Reshape", ["x"], ["y"], shape=[3, -1])
    model = make_model(node, [("x", F, [2, 3, 4])], [("y", F, None)], opset=4)
    assert dims(typed(convert(model)[0])) == (3, 8)
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_array_equal(run(model, a), a.reshape(3, 8))


def test_reshape_constant_shape_is_static_with_symbolic_batch():
    node = helper.make_node("Reshape", ["x", "s"], ["y"])
    model = make_model(node, [("x", F, ["batch", 3, 4])], [("y", F, None)], opset=13,
                       initializers=[("s", np.array([0, -1], "int64"))])
    assert dims(typed(convert(model)[0])) == ("batch", 12)
    a = np.ones((5, 3, 4), "float32")
    assert run(model, a).shape == (5, 12)
    # Not frozen, an integer initializer is still a constant (ONNX: only one also listed as a graph input may be
    # replaced); listed as an input, the shape is a run-time input, so the type has "?" dims of the right rank.
    mod, params = convert(model, freeze=False)
    assert dims(typed(mod)) == ("batch", 12) and "s" not in params
    model.graph.input.append(helper.make_tensor_value_info("s", TensorProto.INT64, [2]))
    mod, params = convert(model, freeze=False)
    assert dims(typed(mod)) == ("?", "?") and list(params) == ["s"]


def test_reshape_allowzero_v14():
    node = helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=1)
    model = make_model(node, [("x", F, [0, 3])], [("y", F, None)], opset=14,
                       initializers=[("s", np.array([3, 0], "int64"))])
    assert dims(typed(convert(model)[0])) == (3, 0)
    node = helper.make_node("Reshape", ["x", "s"], ["y"])  # without allowzero, 0 copies: (3, 3) != 0 elements
    model = make_model(node, [("x", F, [0, 3])], [("y", F, None)], opset=14,
                       initializers=[("s", np.array([3, 0], "int64"))])
    with pytest.raises(ValueError, match="Reshape"):
        convert(model)


@pytest.mark.parametrize("opset,kind", [(2, "attr"), (11, "attr"), (13, "input"), (18, "input")])
def test_split_sizes_by_opset(opset, kind):
    if kind == "attr":
        node = helper.make_node("Split", ["x"], ["a", "b"], axis=1, split=[1, 3])
        inits = []
    else:
        node = helper.make_node("Split", ["x", "s"], ["a", "b"], axis=1)
        inits = [("s", np.array([1, 3], "int64"))]
    model = make_model(node, [("x", F, [2, 4])], [("a", F, None), ("b", F, None)], opset, inits)
    a = np.arange(8, dtype="float32").reshape(2, 4)
    p, q = run(model, a)
    np.testing.assert_array_equal(p, a[:, :1])
    np.testing.assert_array_equal(q, a[:, 1:])


def test_split_v18_num_outputs_uneven_and_symbolic():
    node = helper.make_node("Split", ["x"], ["a", "b", "c"], num_outputs=3)
    model = make_model(node, [("x", F, [7])], [(k, F, None) for k in "abc"], 18)
    outs = run(model, np.arange(7, dtype="float32"))
    assert [o.tolist() for o in outs] == [[0, 1, 2], [3, 4, 5], [6]]
    model = make_model(node, [("x", F, ["n"])], [(k, F, None) for k in "abc"], 18)
    outs = run(model, np.arange(6, dtype="float32"))
    assert [o.tolist() for o in outs] == [[0, 1], [2, 3], [4, 5]]
    bad = helper.make_node("Split", ["x"], ["a", "b"], num_outputs=3, name="sp")
    model = make_model(bad, [("x", F, [6])], [(k, F, None) for k in "ab"], 18)
    with pytest.raises(OpAttributeInvalid, match="num_outputs"):
        convert(model)


def test_slice_v1_attributes_and_v10_constant_inputs():
    node = helper.make_node("Slice", ["x"], ["y"], starts=[1, -2], ends=[1000, 1000], axes=[0, 1])
    model = make_model(node, [("x", F, [4, 5])], [("y", F, None)], opset=9)
    a = np.arange(20, dtype="float32").reshape(4, 5)
    assert dims(typed(convert(model)[0])) == (3, 2)
    np.testing.assert_array_equal(run(model, a), a[1:, -2:])
    node = helper.make_node("Slice", ["x", "s", "e", "ax", "st"], ["y"])
    inits = [("s", np.array([-1], "int64")), ("e", np.array([-(2 ** 63)], "int64")), ("ax", np.array([1], "int64")),
             ("st", np.array([-2], "int64"))]
    model = make_model(node, [("x", F, ["n", 5])], [("y", F, None)], 13, inits)
    assert dims(typed(convert(model)[0])) == ("n", 3)
    np.testing.assert_array_equal(run(model, a), a[:, ::-2])


def test_pad_v2_attribute_modes_and_crop():
    node = helper.make_node("Pad", ["x"], ["y"], pads=[0, 2, 0, 1], mode="reflect")
    model = make_model(node, [("x", F, [2, 4])], [("y", F, None)], opset=10)
    a = np.arange(8, dtype="float32").reshape(2, 4)
    np.testing.assert_array_equal(run(model, a), np.pad(a, ((0, 0), (2, 1)), mode="reflect"))
    node = helper.make_node("Pad", ["x", "p", "v"], ["y"])
    inits = [("p", np.array([1, -1, 0, 0], "int64")), ("v", np.array(9.0, "float32"))]
    model = make_model(node, [("x", F, [2, 4])], [("y", F, None)], 13, inits)
    assert dims(typed(convert(model)[0])) == (3, 3)
    np.testing.assert_array_equal(run(model, a), np.pad(a[:, 1:], ((1, 0), (0, 0)), constant_values=9.0))


def test_pad_wrap_needs_opset_19():
    node = helper.make_node("Pad", ["x", "p"], ["y"], mode="wrap", name="padder")
    model = make_model(node, [("x", F, [2, 4])], [("y", F, None)], 18, [("p", np.array([0, 1, 0, 1], "int64"))])
    with pytest.raises(OpAttributeInvalid, match="padder.*mode 'wrap'"):
        convert(model)


def test_squeeze_unsqueeze_attribute_opsets():
    node = helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, -1])
    model = make_model(node, [("x", F, ["n", 3])], [("y", F, None)], 11)
    assert dims(typed(convert(model)[0])) == (1, "n", 3, 1)
    node = helper.make_node("Squeeze", ["x"], ["y"], axes=[1])
    model = make_model(node, [("x", F, [2, 1, 3])], [("y", F, None)], 11)
    assert dims(typed(convert(model)[0])) == (2, 3)
    node = helper.make_node("Squeeze", ["x", "a"], ["y"])
    model = make_model(node, [("x", F, [2, 1, 3])], [("y", F, None)], 13, [("a", np.array([-2], "int64"))])
    assert dims(typed(convert(model)[0])) == (2, 3)


def test_flatten_symbolic_and_shape_v15():
    node = helper.make_node("Flatten", ["x"], ["y"], axis=2)
    model = make_model(node, [("x", F, ["n", 3, 4, 5])], [("y", F, None)], 13)
    assert dims(typed(convert(model)[0])) == ("?", 20)
    assert run(model, np.ones((2, 3, 4, 5), "float32")).shape == (6, 20)
    node = helper.make_node("Shape", ["x"], ["y"], start=-3, end=-1)
    model = make_model(node, [("x", F, ["n", 3, 4, 5])], [("y", I64, None)], 15)
    np.testing.assert_array_equal(run(model, np.ones((2, 3, 4, 5), "float32")), [3, 4])
    node = helper.make_node("Shape", ["x"], ["y"], start=0, end=2)
    model = make_model(node, [("x", F, ["n", 3, 4, 5])], [("y", I64, None)], 15)
    np.testing.assert_array_equal(run(model, np.ones((2, 3, 4, 5), "float32")), [2, 3])


def test_tile_v1_and_depth_to_space_v1():
    node = helper.make_node("Tile", ["x", "t", "a"], ["y"])
    model = make_model(node, [("x", F, [2, 3])], [("y", F, None)], 1,
                       [("t", np.array(3, "float32")), ("a", np.array(1, "float32"))])  # Tile-1 types them T
    a = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(run(model, a), np.tile(a, (1, 3)))
    node = helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2)
    model = make_model(node, [("x", F, [1, 4, 1, 1])], [("y", F, None)], 1)
    out = run(model, np.arange(4, dtype="float32").reshape(1, 4, 1, 1))
    np.testing.assert_array_equal(out, np.array([[[[0, 1], [2, 3]]]], "float32"))


def test_constant_of_shape_and_range_fold_to_constants():
    node = helper.make_node("ConstantOfShape", ["s"], ["y"], value=helper.make_tensor("v", TensorProto.INT32, [1], [7]))
    model = make_model(node, [], [("y", TensorProto.INT32, None)], 9, [("s", np.array([2, 3], "int64"))])
    assert dims(typed(convert(model)[0])) == (2, 3)
    np.testing.assert_array_equal(run(model), np.full((2, 3), 7, "int32"))
    node = helper.make_node("Range", ["a", "b", "c"], ["y"])
    inits = [("a", np.array(5, "int64")), ("b", np.array(-2, "int64")), ("c", np.array(-3, "int64"))]
    model = make_model(node, [], [("y", I64, None)], 11, inits)
    np.testing.assert_array_equal(run(model), [5, 2, -1])


def test_bad_attributes_name_the_node():
    node = helper.make_node("Concat", ["x", "x"], ["y"], name="cat")
    model = make_model(node, [("x", F, [2])], [("y", F, None)], 11)
    with pytest.raises(OpAttributeRequired, match="cat.*'axis'"):
        convert(model)
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], reduction="max", name="sc")
    model = make_model(node, [("x", F, [3]), ("i", I64, [1]), ("u", F, [1])], [("y", F, None)], 16)
    with pytest.raises(OpAttributeInvalid, match="sc.*reduction 'max'"):
        convert(model)
    node = helper.make_node("Concat", ["x", "z"], ["y"], axis=0, name="cat2")
    model = make_model(node, [("x", F, [2, 3]), ("z", F, [2, 4])], [("y", F, None)], 13)
    with pytest.raises(ValueError, match=r"cat2.*\(2, 4\).*\(2, 3\)"):
        convert(model)
    node = helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0], name="tp")
    model = make_model(node, [("x", F, [2, 3])], [("y", F, None)], 13)
    with pytest.raises(OpAttributeInvalid, match=r"^node 'tp' \(Transpose\): attribute 'perm' \[0, 0\] is not a "
                                         r"permutation of the axes 0 to 1$"):
        convert(model)


def test_scatter_v9_and_compress_nonzero():
    node = helper.make_node("Scatter", ["x", "i", "u"], ["y"], axis=0)
    model = make_model(node, [("x", F, [3]), ("i", I64, [2]), ("u", F, [2])], [("y", F, None)], 9)
    out = run(model, np.zeros(3, "float32"), np.array([2, 0], "int64"), np.array([5, 6], "float32"))
    np.testing.assert_array_equal(out, [6, 0, 5])
    node = helper.make_node("Compress", ["x", "c"], ["y"], axis=1)
    model = make_model(node, [("x", F, [2, 3]), ("c", TensorProto.BOOL, [3])], [("y", F, None)], 11)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(run(model, a, np.array([True, False, True])), a[:, [0, 2]])
    node = helper.make_node("NonZero", ["x"], ["y"])
    model = make_model(node, [("x", F, [2, 2])], [("y", I64, None)], 13)
    assert dims(typed(convert(model)[0])) == (2, "?")
    np.testing.assert_array_equal(run(model, np.array([[1, 0], [0, 2]], "float32")), np.nonzero([[1, 0], [0, 2]]))


def test_center_crop_pad_int32_runtime_shape_and_flatten_both_symbolic():
    node = helper.make_node("CenterCropPad", ["x", "s"], ["y"], axes=[0, 1])
    model = make_model(node, [("x", F, [5, 4]), ("s", TensorProto.INT32, [2])], [("y", F, None)], 18)
    a = np.arange(20, dtype="float32").reshape(5, 4)
    want = np.zeros((3, 7), "float32")
    want[:, 1:5] = a[1:4]  # crop 5 -> 3 from row 1; pad 4 -> 7 with 1 before, 2 after
    np.testing.assert_array_equal(run(model, a, np.array([3, 7], "int32")), want)
    node = helper.make_node("Flatten", ["x"], ["y"], axis=2)
    model = make_model(node, [("x", F, ["n", 3, "m"])], [("y", F, None)], 13)
    assert run(model, np.ones((2, 3, 5), "float32")).shape == (6, 5)


def test_squeeze_without_axes_keeps_symbolic_dims():
    node = helper.make_node("Squeeze", ["x"], ["y"])
    model = make_model(node, [("x", F, ["n", 1, 3])], [("y", F, None)], 13)
    assert dims(typed(convert(model)[0])) == ("n", 3)
    assert run(model, np.ones((1, 1, 3), "float32")).shape == (1, 3)  # n = 1 at run time stays a dim


def test_shape_arithmetic_on_static_inputs_folds_to_a_static_reshape():
    # y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): the usual exported "flatten but keep batch".
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
             helper.make_node("Unsqueeze", ["b", "ax"], ["b1"]),
             helper.make_node("Concat", ["b1", "minus1"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", F, [2, 3, 4])], [helper.make_tensor_value_info("y", F, None)],
        initializer=[numpy_helper.from_array(np.array(0, "int64"), "zero"),
                     numpy_helper.from_array(np.array([0], "int64"), "ax"),
                     numpy_helper.from_array(np.array([-1], "int64"), "minus1")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    mod, _ = convert(model)
    assert dims(typed(mod)) == (2, 12)
    assert "dyn.reshape" not in str(mod)
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_array_equal(run(model, a), a.reshape(2, 12))
