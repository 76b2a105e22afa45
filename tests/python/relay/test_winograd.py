"""The Winograd ops (csrc/relay/op/nn/conv2d_winograd.cc): their type relations and errors, their numpy references
against nn.conv2d's, AlterOpLayout choosing them for 3x3 stride-1 and stride-2 convs when topi.nn.conv2d_winograd_tile
says so,
and the built cpu target matching the debug executor."""
import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.relay.expr import Call
from tvmlite.relay.expr_functor import ExprVisitor
from tvmlite.relay.transform_layout import AlterOpLayout

WINOGRAD = "nn.contrib_conv2d_winograd_without_weight_transform"


def infer(body, params):
    return relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(params, body)))


def out_shape(mod):
    return tuple(int(d) for d in mod["main"].body.checked_type.shape)


def winograd_conv(x, w, tile=4, padding=(1, 1), stride=1, **kw):
    """x (NCHW var), w (O, C, 3, 3) constant -> the blocked Winograd conv of x, back in NCHW."""
    u = relay.nn.contrib_conv2d_winograd_weight_transform(relay.const(w), tile, stride)
    u = relay.layout_transform(u, "HWOI", "HWOI16o")
    y = relay.nn.contrib_conv2d_winograd_without_weight_transform(relay.layout_transform(x, "NCHW", "NCHW16c"), u,
                                                                  tile, strides=(stride, stride), padding=padding,
                                                                  **kw)
    return relay.layout_transform(y, "NCHW16c", "NCHW")


@pytest.mark.parametrize("tile,padding,stride", [
    (4, (1, 1), 1), (2, (1, 1), 1), (4, (0, 0), 1), (4, (2, 1), 1), (2, (0, 1, 2, 0), 1),
    (2, (1, 1), 2), (2, (0, 0), 2), (2, (2, 1), 2), (2, (0, 1, 2, 0), 2), (2, (0, 0, 1, 1), 2),
    (4, (1, 1), 2), (4, (0, 0), 2), (4, (0, 1, 2, 0), 2),
])
def test_references_match_conv2d(run_relay, rng, tile, padding, stride):
    x = relay.var("x", shape=(2, 32, 9, 10))
    w = (rng.standard_normal((16, 32, 3, 3)) / 17).astype(np.float32)
    data = rng.standard_normal((2, 32, 9, 10)).astype(np.float32)
    want = run_relay(relay.Function([x], relay.nn.conv2d(x, relay.const(w), strides=stride, padding=padding)),
                     [data])[0]
    got = run_relay(relay.Function([x], winograd_conv(x, w, tile, padding, stride)), [data])[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_types():
    w = relay.var("w", shape=(32, 16, 3, 3))
    assert out_shape(infer(relay.nn.contrib_conv2d_winograd_weight_transform(w, 4), [w])) == (6, 6, 32, 16)
    assert out_shape(infer(relay.nn.contrib_conv2d_winograd_weight_transform(w, 2), [w])) == (4, 4, 32, 16)
    x = relay.var("x", shape=(1, 2, 9, 7, 8))
    u = relay.var("u", shape=(6, 6, 3, 16, 16))
    y = relay.nn.contrib_conv2d_winograd_without_weight_transform(x, u, 4, padding=(1, 0), data_layout="NCHW8c",
                                                                  kernel_layout="HWOI16o", out_layout="NCHW16c")
    assert out_shape(infer(y, [x, u])) == (1, 3, 9, 5, 16)
    assert out_shape(infer(relay.nn.contrib_conv2d_winograd_weight_transform(w, 2, 2), [w])) == (3, 3, 32, 64)
    u2 = relay.var("u", shape=(3, 3, 3, 64, 16))
    y = relay.nn.contrib_conv2d_winograd_without_weight_transform(x, u2, 2, strides=(2, 2), padding=(1, 0),
                                                                  data_layout="NCHW8c", kernel_layout="HWOI16o")
    assert out_shape(infer(y, [x, u2])) == (1, 3, 5, 3, 16)
    assert out_shape(infer(relay.nn.contrib_conv2d_winograd_weight_transform(w, 4, 2), [w])) == (5, 5, 32, 64)
    u4 = relay.var("u", shape=(5, 5, 3, 64, 16))
    y = relay.nn.contrib_conv2d_winograd_without_weight_transform(x, u4, 4, strides=(2, 2), padding=(1, 0),
                                                                  data_layout="NCHW8c", kernel_layout="HWOI16o")
    assert out_shape(infer(y, [x, u4])) == (1, 3, 5, 3, 16)


@pytest.mark.parametrize("kw,wshape,message", [
    ({"tile_size": 3}, (6, 6, 2, 32, 16), "tile_size must be 2 or 4"),
    ({"strides": (2, 2)}, (6, 6, 2, 128, 16), r"must be \(5, 5, O / 16, 4C"),
    ({"strides": (3, 3), "tile_size": 2}, (3, 3, 2, 128, 16), "stride 1 or 2"),
    ({"strides": (2, 1), "tile_size": 2}, (3, 3, 2, 128, 16), "equal strides"),
    ({"strides": (2, 2), "tile_size": 2}, (3, 3, 2, 32, 16), "in_channels mismatch"),
    ({"strides": (2, 2), "tile_size": 2}, (4, 4, 2, 128, 16), r"must be \(3, 3, O / 16, 4C"),
    ({"groups": 2}, (6, 6, 2, 32, 16), "groups = 1"),
    ({}, (4, 4, 2, 32, 16), r"must be \(6, 6"),
    ({}, (6, 6, 2, 16, 16), "in_channels mismatch"),
    ({"kernel_layout": "OIHW16o"}, (6, 6, 2, 32, 16), "kernel_layout"),
])
def test_relation_errors(kw, wshape, message):
    x = relay.var("x", shape=(1, 2, 8, 8, 16))
    u = relay.var("u", shape=wshape)
    kw = {"tile_size": 4, **kw}
    tile = kw.pop("tile_size")
    y = relay.nn.contrib_conv2d_winograd_without_weight_transform(x, u, tile, **kw)
    with pytest.raises((ValueError, NotImplementedError), match=message):
        infer(y, [x, u])
    if tile not in (2, 4):
        with pytest.raises(ValueError, match="tile_size must be 2 or 4"):
            infer(relay.nn.contrib_conv2d_winograd_weight_transform(relay.var("w", shape=(4, 4, 3, 3)), tile),
                  [])


def test_weight_transform_needs_3x3():
    w = relay.var("w", shape=(8, 8, 5, 5))
    with pytest.raises(ValueError, match="3x3"):
        infer(relay.nn.contrib_conv2d_winograd_weight_transform(w, 4), [w])
    w = relay.var("w", shape=(8, 8, 3, 3))
    with pytest.raises(ValueError, match="stride 1 or 2"):
        infer(relay.nn.contrib_conv2d_winograd_weight_transform(w, 4, 3), [w])


class _Ops(ExprVisitor):
    def __init__(self):
        super().__init__()
        self.names = []

    def visit_call(self, call):
        if isinstance(call, Call) and hasattr(call.op, "name"):
            self.names.append(call.op.name)


def op_names(mod):
    v = _Ops()
    v.visit(mod["main"].body)
    return v.names


@pytest.mark.parametrize("c,o,size,strides,k", [
    (64, 64, 16, 1, 3),   # F(4x4) on AVX-512
    (128, 32, 7, 1, 3),   # F(2x2)
    (64, 64, 16, 2, 3),   # stride 2 to 8x8: direct
    (64, 48, 28, 2, 3),   # stride 2 to 14x14: the polyphase F(2x2, 2x2) on AVX-512
    (64, 32, 56, 2, 3),   # stride 2 to 28x28: the polyphase F(4x4, 2x2)
    (32, 48, 28, 2, 3),   # stride 2, too few channels: direct
    (64, 64, 16, 1, 1),   # 1x1: direct
    (32, 32, 5, 1, 3),    # too small a plane: direct
])
def test_alter_op_layout_picks_winograd_when_the_kernel_wants_it(run_relay, rng, c, o, size, strides, k):
    x = relay.var("x", shape=(1, c, size, size))
    w = relay.const((rng.standard_normal((o, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32))
    mod = infer(relay.nn.relu(relay.nn.conv2d(x, w, strides=strides, padding=k // 2)), [x])
    new = AlterOpLayout(max_block=16)(mod)
    oh = (size + 2 * (k // 2) - k) // strides + 1
    tile = tvmlite.get_global_func("topi.nn.conv2d_winograd_tile")(c, o, oh, oh, strides) if k == 3 else 0
    names = op_names(new)
    assert (WINOGRAD in names) == (tile > 0)
    assert ("nn.contrib_conv2d_NCHWc" in names) == (tile == 0)
    data = rng.standard_normal((1, c, size, size)).astype(np.float32)
    np.testing.assert_allclose(run_relay(new, [data])[0], run_relay(mod, [data])[0], rtol=1e-4, atol=1e-4)


def test_built_model_with_winograd_matches_debug(rng):
    """A residual block of 3x3 convs at 16x16: cpu (Winograd where the policy picks it, epilogues fused) against
    the debug executor."""
    x = relay.var("x", shape=(1, 32, 16, 16))

    def conv(v, cin, cout):
        w = (rng.standard_normal((cout, cin, 3, 3)) / np.sqrt(cin * 9)).astype(np.float32)
        b = rng.standard_normal(cout).astype(np.float32)
        return relay.nn.bias_add(relay.nn.conv2d(v, relay.const(w), padding=1), relay.const(b))

    y = relay.nn.relu(conv(x, 32, 32))
    y = relay.nn.relu(relay.add(conv(y, 32, 32), x))
    func = relay.Function([x], y)
    data = rng.standard_normal((1, 32, 16, 16)).astype(np.float32)
    outs = {}
    for target in ("debug", "cpu"):
        lib = tvmlite.build(func, target=target)
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        gm.set_input(x=data)
        gm.run()
        outs[target] = gm.get_output(0).numpy()
        if target == "cpu" and tvmlite.get_global_func("topi.nn.conv2d_winograd_tile")(32, 32, 16, 16, 1):
            assert "conv2d_winograd_nchwc" in lib.get_graph_json()
    np.testing.assert_allclose(outs["cpu"], outs["debug"], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("size", [28, 56])  # F(2x2, 2x2) and F(4x4, 2x2) on AVX-512
def test_built_downsampling_block_with_winograd_matches_debug(rng, size):
    """ResNet's downsampling block: a 3x3 stride-2 conv (the polyphase Winograd where the policy picks it) + bias +
    relu, a 3x3 conv, and the 1x1 stride-2 shortcut added: cpu against the debug executor."""
    x = relay.var("x", shape=(1, 64, size, size))

    def conv(v, cin, cout, k, stride):
        w = (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
        b = rng.standard_normal(cout).astype(np.float32)
        return relay.nn.bias_add(relay.nn.conv2d(v, relay.const(w), strides=stride, padding=k // 2),
                                 relay.const(b))

    y = relay.nn.relu(conv(x, 64, 64, 3, 2))
    y = relay.nn.relu(relay.add(conv(y, 64, 64, 3, 1), conv(x, 64, 64, 1, 2)))
    data = rng.standard_normal((1, 64, size, size)).astype(np.float32)
    outs = {}
    for target in ("debug", "cpu"):
        lib = tvmlite.build(relay.Function([x], y), target=target)
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        gm.set_input(x=data)
        gm.run()
        outs[target] = gm.get_output(0).numpy()
        tile_of = tvmlite.get_global_func("topi.nn.conv2d_winograd_tile")
        if target == "cpu" and tile_of(64, 64, size // 2, size // 2, 2):
            assert "conv2d_winograd_nchwc" in lib.get_graph_json()
    np.testing.assert_allclose(outs["cpu"], outs["debug"], rtol=1e-4, atol=1e-4)
