"""Winograd chosen per run-time shape: a 3x3 conv whose output plane is symbolic becomes
nn.contrib_conv2d_winograd_per_shape (AlterOpLayout), carrying the filters transformed for every tile size
topi.nn.conv2d_winograd_tiles names, and its kernel (topi.nn.conv2d_winograd_per_shape) runs per call what a build
specialised to that shape runs: bit for bit the static build's output at every shape."""

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.ir import SizeVar
from tvmlite.ir.type import TensorType
from tvmlite.relay.op._layout import transform_array
from tvmlite.relay.op.nn._winograd import winograd_weight_transform
from tvmlite.relay.transform_layout import AlterOpLayout

_get = tvmlite.get_global_func
PER_SHAPE = "nn.contrib_conv2d_winograd_per_shape"
KERNEL = "topi.nn.conv2d_winograd_per_shape"


def tile_of(c, o, oh, ow, stride):
    return _get("topi.nn.conv2d_winograd_tile")(c, o, oh, ow, stride)


def tiles_of(c, o, stride):
    return [int(t) for t in _get("topi.nn.conv2d_winograd_tiles")(c, o, stride)]


@pytest.mark.parametrize("c,o,stride", [(8, 8, 1), (16, 16, 1), (32, 32, 1), (64, 64, 1), (128, 528, 1),
                                        (512, 512, 1), (32, 32, 2), (64, 64, 2), (128, 256, 2), (12, 16, 1)])
def test_tiles_are_those_some_plane_takes(c, o, stride):
    seen = {tile_of(c, o, h, w, stride) for h in range(1, 100) for w in range(1, 100)} - {0}
    seen |= {tile_of(c, o, 4096, 4096, stride)} - {0}
    tiles = tiles_of(c, o, stride)
    assert tiles == sorted(seen, reverse=True)


def _conv_net(rng, h, w):
    """3x3 convs with bias and relu: 64 -> 64, stride 2 to 128, then 128 -> 528 (F(2x2) on mid planes, as ResNet's
    last stage), on x (1, 64, h, w)."""
    x = relay.var("x", TensorType([1, 64, h, w], "float32"))

    def conv(v, cin, cout, stride):
        wt = (rng.standard_normal((cout, cin, 3, 3)) / np.sqrt(cin * 9)).astype(np.float32)
        b = rng.standard_normal(cout).astype(np.float32)
        y = relay.nn.conv2d(v, relay.const(wt), strides=stride, padding=1)
        return relay.nn.relu(relay.nn.bias_add(y, relay.const(b)))

    return relay.Function([x], conv(conv(conv(x, 64, 64, 1), 64, 128, 2), 128, 528, 1))


def test_alter_op_layout_makes_the_per_shape_conv_only_for_a_symbolic_plane(rng, op_names):
    for h, w in ((SizeVar("h"), SizeVar("w")), (SizeVar("h"), 24), (24, 24)):
        mod = relay.transform.InferType()(relay.IRModule.from_expr(_conv_net(rng, h, w)))
        names = op_names(AlterOpLayout()(mod))
        symbolic = not isinstance(h, int) or not isinstance(w, int)
        want = sum(bool(tiles_of(c, o, s)) for c, o, s in ((64, 64, 1), (64, 128, 2), (128, 528, 1))) if symbolic else 0
        assert names.count(PER_SHAPE) == want
        transforms = names.count("nn.contrib_conv2d_winograd_weight_transform")
        if symbolic:  # one transform per tile each per-shape conv may take
            assert transforms == sum(len(tiles_of(c, o, s)) for c, o, s in ((64, 64, 1), (64, 128, 2), (128, 528, 1)))


def test_filters_too_large_to_fold_are_left_out(rng, op_names):
    """F(4x4, 2x2)'s filters for 512 -> 512 at stride 2 (100 floats per channel pair, 26M) would not fold at build
    and be transformed at every call on the reference: the per-shape conv carries F(2x2)'s only, and a static build
    at a plane where F(4x4) pays takes F(2x2) too."""
    tiles = [t for t in tiles_of(512, 512, 2) if t != 4]  # [2] with AVX2 or AVX-512; [] on the portable build
    for size in (SizeVar("h"), 64):
        x = relay.var("x", TensorType([1, 512, size, size], "float32"))
        wt = relay.const(np.zeros((512, 512, 3, 3), np.float32))
        mod = relay.transform.InferType()(relay.IRModule.from_expr(
            relay.Function([x], relay.nn.conv2d(x, wt, strides=2, padding=1))))
        new = AlterOpLayout()(mod)
        assert op_names(new).count("nn.contrib_conv2d_winograd_weight_transform") == len(tiles)
        assert "tile_size=4" not in str(new["main"])
        assert ("tile_size=2" in str(new["main"])) == bool(tiles)


def _build(func):
    lib = tvmlite.build(func, target="cpu")
    return lib, tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))


def _run(gm, data):
    gm.set_input(x=data)
    gm.run()
    return gm.get_output(0).numpy()


def test_one_build_runs_every_shape_as_the_static_build_does(rng):
    dyn_lib, dyn = _build(_conv_net(np.random.default_rng(1), SizeVar("h"), SizeVar("w")))
    assert dyn_lib.fallbacks() == []
    if tiles_of(64, 64, 1):
        assert "conv2d_winograd_per_shape" in dyn_lib.get_graph_json()
    static_winograd = 0
    for h, w in ((6, 6), (20, 20), (24, 40), (30, 30), (60, 60)):
        data = rng.standard_normal((1, 64, h, w)).astype(np.float32)
        static_lib, static = _build(_conv_net(np.random.default_rng(1), h, w))
        oh, ow = (h - 1) // 2 + 1, (w - 1) // 2 + 1  # after the stride-2 conv
        takes = tile_of(64, 64, h, w, 1) or tile_of(64, 128, oh, ow, 2) or tile_of(128, 528, oh, ow, 1)
        assert ("conv2d_winograd_nchwc" in static_lib.get_graph_json()) == bool(takes)
        static_winograd += bool(takes)
        # the same kernels on the same folded filters: equal to the last bit (the direct conv and Winograd differ in
        # rounding, so a wrong choice shows)
        np.testing.assert_array_equal(_run(dyn, data), _run(static, data), err_msg=f"at {h}x{w}")
    assert static_winograd == (4 if tiles_of(64, 64, 1) else 0)  # all but 6x6 (planes under 7x7: direct)


def test_matches_the_debug_executor(rng, run_relay):
    func = _conv_net(np.random.default_rng(2), SizeVar("h"), SizeVar("w"))
    _, dyn = _build(func)
    for h, w in ((9, 13), (30, 30)):
        data = rng.standard_normal((1, 64, h, w)).astype(np.float32)
        np.testing.assert_allclose(_run(dyn, data), run_relay(func, [data])[0], rtol=1e-4, atol=1e-4)


# ---- the kernel --------------------------------------------------------------------------------------------------

ATTRS = {"strides": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 1, "kernel_size": [3, 3],
         "data_layout": "NCHW8c", "kernel_layout": "OIHW8i8o", "out_layout": "NCHW8c"}


def _call(name, attrs, *arrays):
    out = tvmlite.nd.array(np.full(arrays[-1], np.nan, np.float32))
    _get(name)(attrs)(*[tvmlite.nd.array(a) for a in arrays[:-1]], out)
    return out.numpy()


@pytest.mark.parametrize("size", [5, 9, 16])  # the direct conv, F(2x2) (128 -> 528 on a 9x9 plane), F(4x4)
def test_kernel_runs_the_kernel_its_plane_takes(rng, size):
    c, o = 128, 528
    x = rng.standard_normal((2, c, size, size)).astype(np.float32)
    w = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(c * 9)).astype(np.float32)
    bias = rng.standard_normal((1, o // 8, 1, 1, 8)).astype(np.float32)
    data, packed = transform_array(x, "NCHW", "NCHW8c"), transform_array(w, "OIHW", "OIHW8i8o")
    u = {m: transform_array(winograd_weight_transform(w, m), "HWOI", "HWOI8o") for m in (4, 2)}
    out_shape = (2, o // 8, size, size, 8)
    attrs = dict(ATTRS, epilogue="add r0 r0 in0")
    got = _call(KERNEL, attrs, data, packed, u[4], u[2], bias, out_shape)
    tile = tile_of(c, o, size, size, 1)
    if tile:
        want = _call("topi.nn.conv2d_winograd_nchwc", dict(attrs, tile_size=tile), data, u[tile], bias, out_shape)
    else:
        want = _call("topi.nn.conv2d_nchwc", attrs, data, packed, bias, out_shape)
    np.testing.assert_array_equal(got, want)
    # with only the other tile's filters: F(2x2) serves an F(4x4) plane (F(4x4)'s filters are left out where they
    # would not fold), the direct conv an F(2x2) one
    if tile:
        other = _call(KERNEL, attrs, data, packed, u[6 - tile], bias, out_shape)
        if tile == 4:
            want = _call("topi.nn.conv2d_winograd_nchwc", dict(attrs, tile_size=2), data, u[2], bias, out_shape)
        else:
            want = _call("topi.nn.conv2d_nchwc", attrs, data, packed, bias, out_shape)
        np.testing.assert_array_equal(other, want)


def test_kernel_errors(rng):
    data = np.zeros((1, 1, 6, 6, 8), np.float32)
    packed = np.zeros((1, 1, 3, 3, 8, 8), np.float32)
    out = (1, 1, 6, 6, 8)
    with pytest.raises(TypeError, match=r"^topi.nn.conv2d_winograd_per_shape: expected data, weight, one or two "
                                        r"transformed weights, 0 epilogue input\(s\) and out, got 3 arguments\n"):
        _call(KERNEL, ATTRS, data, packed, out)
    bad = np.zeros((5, 5, 1, 8, 8), np.float32)  # alpha 5 at stride 1: m = 3
    with pytest.raises(ValueError, match=r"^topi.nn.conv2d_winograd_per_shape: transformed weight must be \(alpha, "
                                         r"alpha, O / oc, C, oc\) for tile size 2 or 4\n"):
        _call(KERNEL, ATTRS, data, packed, bad, out)
    with pytest.raises(ValueError, match=r"^topi.nn.conv2d_winograd_per_shape: topi.nn.conv2d_winograd_nchwc: "
                                         r"kernel_size must be \(3, 3\)$"):
        _get(KERNEL)(dict(ATTRS, kernel_size=[5, 5]))


def test_relation_errors():
    x = relay.var("x", TensorType([1, 8, SizeVar("h"), SizeVar("w"), 8], "float32"))
    w = relay.var("w", TensorType([8, 8, 3, 3, 8, 8], "float32"))
    u = relay.var("u", TensorType([6, 6, 8, 64, 8], "float32"))

    def infer(*transformed, **kw):
        y = relay.nn.contrib_conv2d_winograd_per_shape(x, w, list(transformed), padding=(1, 1), **kw)
        free = [x, w, *transformed]
        return relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(free, y)))

    shape = list(infer(u)["main"].body.checked_type.shape)
    assert len(shape) == 5 and int(shape[1]) == 8 and int(shape[4]) == 8
    assert not isinstance(shape[2], int) and not isinstance(shape[3], int)  # the plane stays symbolic
    wrong = relay.var("v", TensorType([6, 6, 8, 32, 8], "float32"))  # C 32, the data has 64
    with pytest.raises(ValueError, match=r"transformed weight \(6, 6, 8, 32, 8\) \(float32\) is not the filters of "
                                         r"\(8, 8, 3, 3, 8, 8\) for Winograd tile size 2 or 4 at stride 1"):
        infer(wrong)
    with pytest.raises(ValueError, match="Winograd takes an ungrouped 3x3 conv of stride 1 or 2"):
        infer(u, dilation=(2, 2))
    with pytest.raises(TypeError, match="expected data, weight and one or two transformed weights, got 5 inputs"):
        infer(u, *[relay.var(f"u{i}", TensorType([6, 6, 8, 64, 8], "float32")) for i in range(2)])
    with pytest.raises(TypeError, match="^contrib_conv2d_winograd_per_shape: transformed must be a list of "
                                        "expressions, got Var$"):
        relay.nn.contrib_conv2d_winograd_per_shape(x, w, u)
