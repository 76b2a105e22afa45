"""The IR's nodes from Python: construction checks, fields, text form, structural equality/hash and JSON."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay


def _func():
    x = relay.var("x", shape=(1, 3))
    y = relay.var("y", shape=(2, 1))
    body = relay.multiply(relay.nn.relu(relay.add(x, relay.const(np.ones(3, "float32")))), y)
    return relay.Function([x, y], relay.Tuple([body, relay.exp(body)]))


def test_types_print_and_check_their_dims():
    n = ir.SizeVar("n")
    assert str(ir.TensorType((1, 3, n), "float32")) == "Tensor[(1, 3, n), float32]"
    assert str(ir.TensorType((5,), "int64")) == "Tensor[(5,), int64]"
    assert str(ir.TensorType((), "bool")) == "Tensor[(), bool]"
    assert str(ir.TupleType([ir.TensorType((2,), "float32")])) == "(Tensor[(2,), float32],)"
    assert str(ir.TensorType((ir.Any(), 2), "float32")) == "Tensor[(?, 2), float32]"
    with pytest.raises(ValueError, match="dim 1 is negative"):
        ir.TensorType((1, -2), "float32")
    with pytest.raises(TypeError, match="dim 0 must be an int or a SizeVar, got float"):
        ir.TensorType((1.5,), "float32")
    with pytest.raises(ValueError, match="rank 33"):
        ir.TensorType((1,) * 33, "float32")


def test_nodes_expose_their_fields():
    x = relay.var("x", shape=(2, 2), dtype="int32")
    assert x.name_hint == "x" and str(x.type_annotation) == "Tensor[(2, 2), int32]"
    c = relay.const(np.arange(4, dtype="int64"))
    assert c.data.numpy().tolist() == [0, 1, 2, 3] and str(c.checked_type) == "Tensor[(4,), int64]"
    call = relay.add(x, x)
    assert call.op.same_as(ir.Op.get("add")) and len(call.args) == 2 and call.attrs is None
    t = relay.Tuple([x, call])
    g = relay.TupleGetItem(t, 1)
    assert g.tuple_value.same_as(t) and g.index == 1
    f = relay.Function([x], g)
    assert f.params[0].same_as(x) and f.body.same_as(g) and f.ret_type is None


def test_constructors_reject_bad_arguments():
    x = relay.var("x", shape=(1,))
    with pytest.raises(ValueError, match="parameter %x is listed twice"):
        relay.Function([x, x], x)
    with pytest.raises(IndexError, match="index -1 is negative"):
        relay.TupleGetItem(relay.Tuple([x]), -1)
    with pytest.raises(TypeError):
        relay.Call(None, [x])
    with pytest.raises(TypeError, match="relay.op._make.add: input 1 \\(rhs\\) must be a relay expression, got int"):
        relay.add(x, 1)
    with pytest.raises(TypeError, match="takes 2 input expressions"):
        tvmlite.get_global_func("relay.op._make.add")(x)
    with pytest.raises(TypeError, match="Op cannot be constructed"):
        ir.Op()


def test_text_form_is_tvms():
    mod = relay.transform.InferType()(ir.IRModule.from_expr(_func()))
    text = str(mod)
    assert text.startswith("def @main(%x: Tensor[(1, 3), float32], %y: Tensor[(2, 1), float32]) -> "
                           "(Tensor[(2, 3), float32], Tensor[(2, 3), float32]) {\n")
    assert "  %0 = add(%x, meta[relay.Constant][0]) /* ty=Tensor[(1, 3), float32] */;\n" in text
    assert "  %1 = nn.relu(%0) /* ty=Tensor[(1, 3), float32] */;\n" in text
    assert text.rstrip().endswith("}")
    assert str(relay.add(relay.var("a", shape=()), relay.const(2.0))) == "add(%a, 2f)"


def test_printer_names_clashing_vars_apart():
    a1, a2 = relay.var("a", shape=(1,)), relay.var("a", shape=(1,))
    text = str(relay.Function([a1, a2], relay.add(a1, a2)))
    assert "fn (%a: Tensor[(1,), float32], %a_1: Tensor[(1,), float32])" in text
    assert "add(%a, %a_1)" in text


def test_structural_equality_binds_params_and_ignores_names():
    x, y = relay.var("x", shape=(3,)), relay.var("y", shape=(3,))
    assert tvmlite.structural_equal(relay.Function([x], relay.exp(x)), relay.Function([y], relay.exp(y)))
    assert not tvmlite.structural_equal(relay.Function([x, y], x), relay.Function([x, y], y))
    assert tvmlite.structural_hash(relay.Function([x], relay.exp(x))) == \
        tvmlite.structural_hash(relay.Function([y], relay.exp(y)))
    assert not tvmlite.structural_equal(relay.exp(x), relay.sqrt(x), map_free_vars=True)


def test_module_json_round_trip_is_structurally_equal():
    mod = ir.IRModule.from_expr(_func())
    again = tvmlite.load_json(tvmlite.save_json(mod))
    assert tvmlite.structural_equal(mod, again)
    # The loaded ops stand for the registered ones: type inference works on the copy.
    typed = relay.transform.InferType()(again)
    assert str(typed["main"].body.checked_type) == "(Tensor[(2, 3), float32], Tensor[(2, 3), float32])"


def test_module_lookup_and_from_expr():
    x = relay.var("x", shape=(2,))
    mod = ir.IRModule.from_expr(relay.exp(x))  # an expression over its free vars
    assert mod.get_global_vars() == ["main"] and mod["main"].params[0].same_as(x)
    with pytest.raises(KeyError, match="no function 'nope' \\(it has: main\\)"):
        mod["nope"]


def test_deep_graphs_do_not_recurse():
    x = relay.var("x", shape=(2,))
    y = x
    for _ in range(20000):
        y = relay.negative(y)
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], y)))
    assert str(mod["main"].body.checked_type) == "Tensor[(2,), float32]"
    assert len(str(mod).splitlines()) == 20002
    again = tvmlite.load_json(tvmlite.save_json(mod))
    assert tvmlite.structural_equal(mod, again)
    assert tvmlite.structural_hash(mod) == tvmlite.structural_hash(again)
