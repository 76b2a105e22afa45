"""The op registry from Python: lookup, attributes with levels, makers, references."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay.op import get_reference, register_reference


def test_get_and_list():
    op = ir.Op.get("nn.relu")
    assert op.name == "nn.relu" and op.num_inputs == 1 and op.same_as(ir.Op.get("nn.relu"))
    assert [a.name for a in op.arguments] == ["data"]
    assert {"add", "nn.relu", "exp"} <= set(ir.list_op_names())
    with pytest.raises(ValueError, match="no op is registered under the name 'nn.nope'"):
        ir.Op.get("nn.nope")


def test_builtin_attributes():
    assert ir.Op.get("add").get_attr("TOpPattern") == ir.OpPattern.BROADCAST
    assert ir.Op.get("exp").get_attr("TOpPattern") == ir.OpPattern.ELEMWISE
    assert ir.Op.get("add").get_attr("FTypeRelation") is not None
    assert ir.Op.get("add").get_attr("NoSuchAttr") is None


def test_levels_override_upward_only():
    op = ir.Op.get("sinh")
    try:
        op.set_attr("TestAttr", 1, level=10)
        op.set_attr("TestAttr", 2, level=5)  # lower: ignored
        assert op.get_attr("TestAttr") == 1
        op.set_attr("TestAttr", 3, level=20)  # higher: replaces
        assert op.get_attr("TestAttr") == 3 and op.get_attr_level("TestAttr") == 20
        with pytest.raises(ValueError, match="already has attribute TestAttr at level 20"):
            op.set_attr("TestAttr", 4, level=20)
    finally:
        op.reset_attr("TestAttr")
    assert op.get_attr("TestAttr") is None


def test_reference_registered_from_python_overrides_by_level():
    original = get_reference("cosh")
    x = relay.var("x", shape=(2,))
    lib = relay.build(relay.Function([x], relay.cosh(x)))
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    gm.set_input("x", np.zeros(2, "float32"))
    gm.run()
    assert gm.get_output(0).numpy().tolist() == [1.0, 1.0]
    # A higher level replaces the reference (as TVM's plevel); the FFI-visible attribute is the same function.
    marker = register_reference("cosh", lambda attrs, a: np.full_like(a, 7), level=30)
    try:
        assert get_reference("cosh") is marker
        assert ir.Op.get("cosh").get_attr_level("FReference") == 30
        lib = relay.build(relay.Function([x], relay.cosh(x)))
        gm = tvmlite.runtime.GraphModule(lib["default"]())
        gm.set_input("x", np.zeros(2, "float32"))
        gm.run()
        assert gm.get_output(0).numpy().tolist() == [7.0, 7.0]
    finally:
        ir.Op.get("cosh").reset_attr("FReference")
        register_reference("cosh", original, level=10)
    assert get_reference("cosh") is original


def test_type_relation_from_the_registry_is_callable():
    rel = ir.Op.get("add").get_attr("FTypeRelation")
    out = rel([ir.TensorType((2, 1), "float32"), ir.TensorType((3,), "float32")], None)
    assert str(out) == "Tensor[(2, 3), float32]"
    with pytest.raises(ValueError, match=r"shapes \(2,\) and \(3,\) do not broadcast"):
        rel([ir.TensorType((2,), "float32"), ir.TensorType((3,), "float32")], None)


def test_arity_comes_from_the_arguments_and_is_checked_before_the_relation():
    # Registrations state the arguments once: the op's input count is theirs, and the relation's wrapper checks it
    # for every relation (no relation repeats it).
    for name in ("nn.dense", "where", "nn.conv2d", "image.resize", "nn.layer_norm", "qnn.quantize"):
        op = ir.Op.get(name)
        assert op.num_inputs == len(op.arguments) > 0, name
    assert ir.Op.get("concatenate").num_inputs == 1  # one Tuple argument
    assert ir.Op.get("raise_error").num_inputs == 0 and not ir.Op.get("raise_error").arguments
    t = ir.TensorType((2, 3), "float32")
    for name, n in (("nn.dense", 2), ("exp", 1), ("where", 3)):
        rel = ir.Op.get(name).get_attr("FTypeRelation")
        with pytest.raises(TypeError, match=f"expected {n} inputs, got {n + 1}"):
            rel([t] * (n + 1), None)


def test_a_typed_relation_sets_the_attrs_type_and_rejects_other_attrs():
    # DenseRel takes DenseAttrs: registering it set the op's attrs type (there is no set_attrs_type in its chain).
    dense = ir.Op.get("nn.dense")
    assert dense.attrs_type_key == "relay.attrs.DenseAttrs"
    rel = dense.get_attr("FTypeRelation")
    data, weight = ir.TensorType((4, 8), "float32"), ir.TensorType((5, 8), "float32")
    dense_call = relay.nn.dense(relay.var("x", shape=(4, 8)), relay.var("w", shape=(5, 8)))
    assert str(rel([data, weight], dense_call.attrs)) == "Tensor[(4, 5), float32]"
    other = relay.nn.softmax(relay.var("y", shape=(4, 8))).attrs
    with pytest.raises(TypeError, match="expected attrs relay.attrs.DenseAttrs, got relay.attrs.SoftmaxAttrs"):
        rel([data, weight], other)
    with pytest.raises(TypeError, match="expected attrs relay.attrs.DenseAttrs, got None"):
        rel([data, weight], None)
