"""FoldScaleAxis: a constant per-channel multiply after conv2d / dense (optionally through a per-channel bias)
folds into the weight; after FoldConstant the multiply is gone and the values are the same. Cases that must not
fold: a shared conv output, a scale that is not per-channel, a non-constant scale."""
import numpy as np
import pytest

from tvmlite import ir, relay

from ir_calls import op_names


def _ops(mod):
    return sorted(op_names(mod))


def _fold(mod):
    return relay.transform.FoldConstant()(relay.transform.FoldScaleAxis()(mod))


def _same(run_relay, mod, out, rng, shape):
    x = rng.standard_normal(shape).astype("float32")
    np.testing.assert_allclose(run_relay(out, {"x": x})[0], run_relay(mod, {"x": x})[0], rtol=1e-4, atol=1e-4)


def _const(rng, shape):
    return relay.const(rng.standard_normal(shape).astype("float32"))


@pytest.mark.parametrize("scale_shape", [(5, 1, 1), (1, 5, 1, 1), (1, 1, 1), (1,), ()])
@pytest.mark.parametrize("groups", [1, 5])
@pytest.mark.parametrize("swap", [False, True])
def test_conv_scale_folds_into_the_weight(run_relay, rng, scale_shape, groups, swap):
    x = relay.var("x", shape=(2, 5, 7, 6))
    conv = relay.nn.conv2d(x, _const(rng, (5, 5 // groups, 3, 3)), padding=(1, 1), groups=groups)
    s = _const(rng, scale_shape)
    mod = ir.IRModule.from_expr(relay.Function([x], relay.nn.relu(relay.multiply(s, conv) if swap
                                                                   else relay.multiply(conv, s))))
    out = _fold(mod)
    assert _ops(out) == ["nn.conv2d", "nn.relu"]
    _same(run_relay, mod, out, rng, (2, 5, 7, 6))


@pytest.mark.parametrize("bias_shape", [(4, 1, 1), (1, 4, 1, 1), "bias_add"])
def test_conv_bias_scale_folds_into_weight_and_bias(run_relay, rng, bias_shape):
    x = relay.var("x", shape=(1, 3, 5, 5))
    conv = relay.nn.conv2d(x, _const(rng, (4, 3, 3, 3)), strides=(2, 2))
    if bias_shape == "bias_add":
        y = relay.nn.bias_add(conv, _const(rng, (4,)))
    else:
        y = relay.add(_const(rng, bias_shape), conv)
    mod = ir.IRModule.from_expr(relay.Function([x], relay.multiply(y, _const(rng, (4, 1, 1)))))
    out = _fold(mod)
    assert "multiply" not in _ops(out)
    _same(run_relay, mod, out, rng, (1, 3, 5, 5))


@pytest.mark.parametrize("scale_shape", [(6,), (1, 6), ()])
@pytest.mark.parametrize("bias", [None, "add", "bias_add"])
def test_dense_scale_folds(run_relay, rng, scale_shape, bias):
    x = relay.var("x", shape=(3, 4))
    y = relay.nn.dense(x, _const(rng, (6, 4)))
    if bias == "add":
        y = relay.add(y, _const(rng, (6,)))
    elif bias == "bias_add":
        y = relay.nn.bias_add(y, _const(rng, (6,)), axis=-1)
    mod = ir.IRModule.from_expr(relay.Function([x], relay.multiply(y, _const(rng, scale_shape))))
    out = _fold(mod)
    assert "multiply" not in _ops(out)
    _same(run_relay, mod, out, rng, (3, 4))


def test_what_does_not_fold(rng):
    x = relay.var("x", shape=(1, 3, 4, 4))
    conv = relay.nn.conv2d(x, _const(rng, (4, 3, 1, 1)))
    # the unscaled conv output is used too
    mod = ir.IRModule.from_expr(relay.Function([x], relay.add(relay.multiply(conv, _const(rng, (4, 1, 1))), conv)))
    assert "multiply" in _ops(_fold(mod))
    # a spatial (not per-channel) scale, and a scale that would grow the result
    for shape in [(1, 1, 4, 1), (4, 4, 1, 1), (2, 1, 4, 1, 1)]:
        mod = ir.IRModule.from_expr(relay.Function([x], relay.multiply(conv, _const(rng, shape))))
        assert "multiply" in _ops(_fold(mod)), shape
    # a scale that is an input
    s = relay.var("s", shape=(4, 1, 1))
    mod = ir.IRModule.from_expr(relay.Function([x, s], relay.multiply(conv, s)))
    assert "multiply" in _ops(_fold(mod))
    # a bias that is not per-channel blocks folding through it
    y = relay.add(conv, _const(rng, (1, 1, 4, 4)))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.multiply(y, _const(rng, (4, 1, 1)))))
    assert "multiply" in _ops(_fold(mod))


def test_scale_after_batch_norm_pipeline(run_relay, rng):
    """The build's order: SimplifyInference turns batch_norm into multiply + add, FoldConstant makes them
    constants, FoldScaleAxis moves the multiply into the conv."""
    x = relay.var("x", shape=(1, 3, 6, 6))
    conv = relay.nn.conv2d(x, _const(rng, (8, 3, 3, 3)), padding=(1, 1))
    bn = relay.nn.batch_norm(conv, _const(rng, (8,)), _const(rng, (8,)), _const(rng, (8,)),
                             relay.const(rng.uniform(0.5, 2, 8).astype("float32")))[0]
    mod = ir.IRModule.from_expr(relay.Function([x], relay.nn.relu(bn)))
    t = relay.transform
    out = t.FoldConstant()(t.FoldScaleAxis()(t.FoldConstant()(t.SimplifyInference()(mod))))
    assert _ops(out) == ["add", "nn.conv2d", "nn.relu"]
    _same(run_relay, mod, out, rng, (1, 3, 6, 6))
