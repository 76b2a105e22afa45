"""AlterOpLayout on small CNNs built with relay: the rewritten module type-checks, the debug executor gives the same
results before and after on random input, convolutions become the blocked ops with the expected blocks, and the
layout_transforms on activations are the minimal ones (one in after the input, one out per value leaving the
blocked part)."""
import gc
import pathlib
import re

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.relay.expr import Call, Constant
from tvmlite.relay.transform_layout import AlterOpLayout

from ir_calls import calls_of


@pytest.fixture(autouse=True, scope="module")
def _collect_cycles():
    yield
    gc.collect()


def calls(mod, name=None):
    return [c for c in calls_of(mod["main"].body) if name is None or getattr(c.op, "name", None) == name]


def activation_transforms(mod):
    """layout_transforms of activations: not of a constant (weights, per-channel constants: those fold at build)."""
    return [(c.attrs.src_layout, c.attrs.dst_layout) for c in calls(mod, "layout_transform")
            if not _constant_subgraph(c.args[0])]


def _constant_subgraph(e):
    if isinstance(e, Constant):
        return True
    return isinstance(e, Call) and all(_constant_subgraph(a) for a in e.args)


def blocks(mod, op):
    return [(c.attrs.data_layout, c.attrs.kernel_layout, c.attrs.out_layout) for c in calls(mod, op)]


def const(rng, *shape, scale=0.2):
    return relay.const(rng.standard_normal(shape).astype("float32") * scale)


def conv(rng, x, cin, cout, k=3, **kw):
    kw.setdefault("padding", k // 2)
    return relay.nn.conv2d(x, const(rng, cout, cin // kw.get("groups", 1), k, k), **kw)


def check(run_relay, rng, body, params, max_block=16):
    """The module of body, altered: type-checked (raises otherwise), same values on the debug executor."""
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(params, body)))
    new = AlterOpLayout(max_block=max_block)(mod)
    inputs = [rng.standard_normal([int(d) for d in p.type_annotation.shape]).astype("float32") for p in params]
    expect, got = run_relay(mod, inputs), run_relay(new, inputs)
    assert len(expect) == len(got)
    for e, g in zip(expect, got):
        assert e.shape == g.shape
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)
    return new


def resnet_like(rng, x, c_stem=24, c_out=64):
    y = relay.nn.relu(conv(rng, x, 3, c_stem))
    z = relay.add(conv(rng, y, c_stem, c_stem), y)                      # residual
    z = relay.nn.relu(z)
    z = relay.nn.max_pool2d(z, pool_size=2, strides=2)
    z = conv(rng, z, c_stem, c_out, strides=2)
    z = relay.add(relay.multiply(z, const(rng, c_out, 1, 1)), const(rng, 1, c_out, 1, 1))  # folded BN
    z = relay.clip(z, 0.0, 6.0)
    z = relay.nn.global_avg_pool2d(z)
    z = relay.nn.batch_flatten(z)
    return relay.nn.dense(z, const(rng, 10, c_out))


def test_resnet_like(run_relay, rng):
    x = relay.var("x", shape=(2, 3, 17, 16))
    new = check(run_relay, rng, resnet_like(rng, x), [x])
    assert not calls(new, "nn.conv2d")
    assert blocks(new, "nn.contrib_conv2d_NCHWc") == [
        ("NCHW3c", "OIHW3i8o", "NCHW8c"),      # stem: 3 channels -> one block of 3
        ("NCHW8c", "OIHW8i8o", "NCHW8c"),      # 24 channels -> block 8
        ("NCHW8c", "OIHW8i16o", "NCHW16c"),    # 64 channels -> block 16
    ]
    assert activation_transforms(new) == [("NCHW", "NCHW3c"), ("NCHW16c", "NCHW")]
    assert [c.attrs.layout for c in calls(new, "nn.max_pool2d")] == ["NCHW8c"]
    assert [c.attrs.layout for c in calls(new, "nn.global_avg_pool")] == ["NCHW16c"]


def test_blocks_follow_max_block(run_relay, rng):
    x = relay.var("x", shape=(1, 3, 12, 12))
    new = check(run_relay, rng, resnet_like(rng, x), [x], max_block=8)
    assert [b[2] for b in blocks(new, "nn.contrib_conv2d_NCHWc")] == ["NCHW8c", "NCHW8c", "NCHW8c"]
    new = check(run_relay, rng, resnet_like(rng, x, c_stem=16, c_out=32), [x], max_block=4)
    assert [b[2] for b in blocks(new, "nn.contrib_conv2d_NCHWc")] == ["NCHW4c", "NCHW4c", "NCHW4c"]


@pytest.fixture
def isa():
    set_isa = tvmlite.get_global_func("topi.set_cpu_isa")
    try:
        yield set_isa
    finally:
        set_isa("avx512")


def test_default_block_from_the_isa(rng, isa):
    x = relay.var("x", shape=(1, 64, 8, 8))
    body = conv(rng, x, 64, 64, k=1)  # 1x1: the direct conv on every ISA (AVX2 runs a 3x3 at 8x8 as Winograd)
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x], body)))
    expected = {"avx512": "NCHW16c", "avx2": "NCHW8c", "scalar": "NCHW8c"}
    for want in ("scalar", "avx2", "avx512"):
        used = isa(want)  # clamped to what the cpu has
        new = AlterOpLayout()(mod)
        assert blocks(new, "nn.contrib_conv2d_NCHWc")[0][2] == expected[str(used)]


def test_depthwise(run_relay, rng):
    x = relay.var("x", shape=(1, 32, 15, 15))
    y = relay.nn.relu(conv(rng, x, 32, 48, k=1))
    y = conv(rng, y, 48, 48, groups=48, strides=2)                       # depthwise, block 16
    y = relay.clip(y, 0.0, 6.0)
    y = conv(rng, y, 48, 24, k=1)                                        # block 8 out
    y = relay.nn.avg_pool2d(y, pool_size=3, padding=1, strides=1)
    new = check(run_relay, rng, y, [x])
    assert blocks(new, "nn.contrib_depthwise_conv2d_NCHWc") == [("NCHW16c", "OIHW1i16o", "NCHW16c")]
    assert [b[2] for b in blocks(new, "nn.contrib_conv2d_NCHWc")] == ["NCHW16c", "NCHW8c"]
    assert activation_transforms(new) == [("NCHW", "NCHW16c"), ("NCHW8c", "NCHW")]


def test_depthwise_takes_the_producers_block(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 9, 9))
    y = conv(rng, x, 8, 24, k=1)                                         # out block 8
    y = conv(rng, y, 24, 24, groups=24)
    new = check(run_relay, rng, y, [x])
    assert blocks(new, "nn.contrib_depthwise_conv2d_NCHWc") == [("NCHW8c", "OIHW1i8o", "NCHW8c")]
    assert len(activation_transforms(new)) == 2


def test_conv_output_is_also_a_model_output(run_relay, rng):
    x = relay.var("x", shape=(1, 16, 8, 8))
    y = conv(rng, x, 16, 32)
    z = relay.nn.relu(conv(rng, relay.nn.relu(y), 32, 32))
    new = check(run_relay, rng, relay.Tuple([y, z, relay.nn.relu(y)]), [x])
    # in; y out once (shared by the tuple field); relu(y) stays blocked and goes out; z out
    assert sorted(activation_transforms(new)) == sorted([("NCHW", "NCHW16c"), ("NCHW16c", "NCHW"),
                                                         ("NCHW16c", "NCHW"), ("NCHW16c", "NCHW")])
    outs = [c for c in calls(new, "layout_transform") if c.attrs.dst_layout == "NCHW"]
    assert not any(a.args[0].same_as(b.args[0]) for i, a in enumerate(outs) for b in outs[i + 1:])
    fields = new["main"].body.fields
    assert all(f.op.name == "layout_transform" for f in fields)


def test_one_transform_back_shared_by_consumers(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 6, 6))
    y = conv(rng, x, 8, 16)
    a = relay.nn.softmax(y, axis=1)                                      # not layout-aware: needs NCHW
    b = relay.sum(y, axis=[2, 3])                                        # neither
    new = check(run_relay, rng, relay.Tuple([a, b]), [x])
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]


def test_concatenate(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 7, 7))
    a = relay.nn.relu(conv(rng, x, 8, 16))
    b = relay.nn.relu(conv(rng, x, 8, 32, k=1))
    y = relay.concatenate([a, b], axis=1)                                # 16 + 32, both block 16
    y = conv(rng, y, 48, 16)
    new = check(run_relay, rng, y, [x])
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]
    assert [c.attrs.axis for c in calls(new, "concatenate")] == [1]


def test_concatenate_keeps_the_common_block(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 7, 7))
    a = conv(rng, x, 8, 8)
    b = conv(rng, x, 8, 24)
    y = relay.concatenate([a, b], axis=-3)                               # 8 + 24 channels, both block 8
    y = conv(rng, y, 32, 32)                                             # reads the concat's block 8, writes 16
    new = check(run_relay, rng, y, [x])
    assert [b[0] for b in blocks(new, "nn.contrib_conv2d_NCHWc")][-1] == "NCHW8c"
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]


def test_concatenate_of_mixed_blocks_takes_the_smallest(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 7, 7))
    a = conv(rng, x, 8, 16)                                              # block 16
    b = conv(rng, x, 8, 24)                                              # block 8
    c = conv(rng, x, 8, 4)                                               # block 4
    y = conv(rng, relay.concatenate([a, b, c], axis=1), 44, 16)
    new = check(run_relay, rng, y, [x])
    assert sorted(activation_transforms(new)) == sorted([("NCHW", "NCHW8c"), ("NCHW16c", "NCHW4c"),
                                                         ("NCHW8c", "NCHW4c"), ("NCHW16c", "NCHW")])
    assert blocks(new, "nn.contrib_conv2d_NCHWc")[-1][0] == "NCHW4c"


def test_concatenate_of_indivisible_channels_goes_through_nchw(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 7, 7))
    v = relay.var("v", shape=(1, 3, 7, 7))
    y = conv(rng, relay.concatenate([conv(rng, x, 8, 16), v], axis=1), 19, 16)   # 3 channels: no block of 16
    new = check(run_relay, rng, y, [x, v])
    assert sorted(activation_transforms(new)) == sorted([("NCHW", "NCHW8c"), ("NCHW16c", "NCHW"),
                                                         ("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")])
    (pad,) = [c for c in calls(new, "nn.pad") if not _constant_subgraph(c.args[0])]   # 19 channels padded to 24
    assert pad.args[0].op.name == "concatenate" and list(pad.attrs.pad_width)[3] == 5


def test_concatenate_packs_an_nchw_input(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 8, 8))
    skip = relay.nn.relu(conv(rng, x, 8, 16))                            # block 16
    up = relay.image.resize(relay.nn.max_pool2d(skip, pool_size=2, strides=2), scales=[1, 1, 2, 2],
                            output_size=(1, 16, 8, 8))
    y = conv(rng, relay.concatenate([up, skip], axis=1), 32, 16)        # resize is NCHW only: its output is packed
    new = check(run_relay, rng, y, [x])
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW"), ("NCHW", "NCHW16c"),
                                          ("NCHW16c", "NCHW")]
    assert [c.attrs.axis for c in calls(new, "concatenate")] == [1]


def test_grouped_conv(run_relay, rng):
    x = relay.var("x", shape=(1, 32, 6, 6))
    y = conv(rng, x, 32, 64, groups=2)                                   # 16 in / 32 out per group: blocked
    y = conv(rng, y, 64, 24, groups=4)                                   # 16 in / 6 out per group: merged
    y = conv(rng, y, 24, 12, groups=4)                                   # 6 in / 3 out: no merge of <= 4 fits
    new = check(run_relay, rng, y, [x])
    assert [c.attrs.groups for c in calls(new, "nn.contrib_conv2d_NCHWc")] == [2, 1]
    assert [c.attrs.data_layout for c in calls(new, "nn.contrib_conv2d_NCHWc")] == ["NCHW16c", "NCHW8c"]
    assert len(calls(new, "nn.conv2d")) == 1
    assert activation_transforms(new) == [("NCHW", "NCHW16c"), ("NCHW16c", "NCHW8c"), ("NCHW8c", "NCHW")]


@pytest.mark.parametrize("group_in, group_out, groups, merged", [(4, 4, 16, 8), (4, 4, 32, 16), (2, 2, 8, 2),
                                                                 (8, 4, 6, 3), (12, 12, 4, 2)])
def test_narrow_groups_merge_into_blocks(run_relay, rng, group_in, group_out, groups, merged):
    """ResNeXt / RegNet convs of 4 channels a group (and 2, 12): k groups as one of whole 8-channel blocks, the
    weight block-diagonal over them (zeros across groups), so the blocked kernels run them; same values."""
    c, o = group_in * groups, group_out * groups
    x = relay.var("x", shape=(1, c, 7, 7))
    y = relay.nn.relu(conv(rng, relay.nn.relu(x), c, o, groups=groups))
    new = check(run_relay, rng, y, [x])
    (blocked,) = calls(new, "nn.contrib_conv2d_NCHWc")
    assert blocked.attrs.groups == merged
    assert blocked.attrs.kernel_layout == "OIHW8i8o" and blocked.attrs.data_layout == "NCHW8c"
    assert not calls(new, "nn.conv2d")


def test_bias_add_and_broadcast_operands(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 6, 6))
    r = relay.var("r", shape=(1, 16, 6, 6))
    y = relay.nn.bias_add(conv(rng, x, 8, 16), const(rng, 16))           # ONNX Conv's bias
    y = relay.add(y, r)                                                  # an NCHW input of the same shape: packed
    y = relay.multiply(y, relay.const(np.float32(0.5)))                  # scalar
    y = relay.subtract(y, const(rng, 1, 1, 1, 1))                        # all-ones shape: a scalar too
    y = relay.maximum(y, const(rng, 16, 1, 1))                           # per channel
    y = relay.clip(y, a_max=0.5)                                         # an absent optional input
    y = relay.nn.relu(y)
    new = check(run_relay, rng, y, [x, r])
    assert not calls(new, "nn.bias_add")
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW", "NCHW16c"), ("NCHW16c", "NCHW")]


def test_unhandled_broadcast_goes_through_nchw(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 6, 6))
    y = conv(rng, x, 8, 16)
    y = relay.nn.prelu(y, const(rng, 16, 1, 1))                          # per channel: stays blocked
    y = relay.multiply(y, const(rng, 1, 16, 1, 6))                       # channels and columns: not in blocks
    new = check(run_relay, rng, y, [x])
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]
    assert calls(new, "multiply")[0].args[0].op.name == "layout_transform"
    assert calls(new, "nn.prelu")[0].args[0].op.name == "nn.contrib_conv2d_NCHWc"


@pytest.mark.parametrize("shape", [(1, 1, 6, 6), (6, 6), (1, 6, 6), (6,)])
def test_channel_free_broadcast_stays_blocked(run_relay, rng, shape):
    """A spatial map (CBAM's attention, a mask) broadcasts over the channels: with a trailing 1 it broadcasts over
    each pixel's block, so the multiply stays blocked."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    y = relay.multiply(conv(rng, x, 8, 16), const(rng, *shape))
    new = check(run_relay, rng, relay.nn.relu(y), [x])
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]
    (expand,) = calls(new, "expand_dims")
    assert expand.attrs.axis == len(shape) and expand.attrs.num_newaxis == 1


def test_squeeze_excite_scale_stays_blocked(run_relay, rng):
    """MobileNetV3 / EfficientNet's squeeze-excite: x * sigmoid(conv(relu(conv(mean(x))))): the (1, C, 1, 1) scale
    is blocked like x, so the multiply runs on the blocks with no transform back to NCHW."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    y = relay.nn.relu(conv(rng, x, 8, 32))
    s = relay.nn.global_avg_pool2d(y)
    s = relay.sigmoid(conv(rng, relay.nn.relu(conv(rng, s, 32, 8, k=1)), 8, 32, k=1))
    z = conv(rng, relay.multiply(y, s), 32, 16)
    for scaled in (z, relay.multiply(s, y)):                               # either operand order
        new = check(run_relay, rng, scaled, [x])
        assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]
    (mul,) = calls(new, "multiply")
    assert [a.op.name for a in mul.args] == ["sigmoid", "nn.relu"]
    assert mul.args[0].args[0].op.name == "nn.contrib_conv2d_NCHWc"


@pytest.mark.parametrize("begin, end, axes, blocked", [
    ([0], [16], [1], True),                 # GhostNet's out[:, :oup]: whole blocks
    ([8], [2 ** 62], [1], True),            # to the end, clamped
    ([-16], [-8], [-3], True),              # negative bounds and axis
    ([0, 1], [24, 5], [1, 3], True),        # channels and columns
    ([1, 0], [4, 24], [2, 1], True),        # rows and all channels
    ([0], [12], [1], False),                # a partial block: through NCHW
])
def test_strided_slice_of_whole_blocks_stays_blocked(run_relay, rng, begin, end, axes, blocked):
    x = relay.var("x", shape=(1, 8, 6, 6))
    y = relay.strided_slice(conv(rng, x, 8, 24), begin, end, axes=axes)
    new = check(run_relay, rng, relay.nn.relu(y), [x], max_block=8)
    expect = [("NCHW", "NCHW8c"), ("NCHW8c", "NCHW")]
    assert activation_transforms(new) == expect
    (sl,) = calls(new, "strided_slice")
    assert (sl.args[0].op.name == "nn.contrib_conv2d_NCHWc") == blocked


@pytest.mark.parametrize("op", ["mean", "sum", "max", "min"])
def test_spatial_reduction_with_keepdims_stays_blocked(run_relay, rng, op):
    """timm's squeeze-excite pools with x.mean((2, 3), keepdim=True): a reduction over H and W of the blocks."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    y = relay.nn.relu(conv(rng, x, 8, 16))
    s = getattr(relay, op)(y, axis=[2, -1], keepdims=True)
    new = check(run_relay, rng, relay.multiply(y, relay.sigmoid(conv(rng, s, 16, 16, k=1))), [x])
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]
    (r,) = calls(new, op)
    assert list(r.attrs.axis) == [2, 3] and r.args[0].op.name == "nn.relu"
    new = check(run_relay, rng, getattr(relay, op)(y, axis=[1, 2], keepdims=True), [x])  # channels: NCHW
    assert calls(new, op)[0].args[0].op.name == "layout_transform"


def test_elementwise_operands_in_different_blocks_take_the_largest(run_relay, rng):
    """GhostNet: a concat of two 12-channel halves (padded to 16 in blocks of 8, concatenated as the blocks of 4 of
    their real channels) added to a 24-channel conv (blocks of 8): the concat is re-blocked to 8 and the add stays
    blocked, not sent through NCHW; likewise for a broadcast (N, C, 1, 1)."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    halves = relay.concatenate([conv(rng, x, 8, 12), conv(rng, x, 8, 12)], axis=1)    # 24 channels, blocks of 4
    y = relay.add(halves, conv(rng, x, 8, 24))                                         # blocks of 4 and 8
    y = relay.multiply(y, relay.mean(halves, axis=[2, 3], keepdims=True))              # 8 and 4
    new = check(run_relay, rng, relay.nn.relu(y), [x], max_block=8)
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW8c", "NCHW4c"), ("NCHW8c", "NCHW4c"),
                                          ("NCHW4c", "NCHW8c"), ("NCHW4c", "NCHW8c"), ("NCHW8c", "NCHW")]


def test_padded_channels(run_relay, rng):
    """ReXNet / ShuffleNet channel counts no block of 8 divides (27, 12): padded to whole blocks (32, 16) by zero
    weights, so every conv, the depthwise, the squeeze-excite and the pool run on NCHW8c; one slice at the exit."""
    x = relay.var("x", shape=(1, 8, 9, 9))
    y = relay.nn.relu(conv(rng, x, 8, 27))
    y = relay.add(relay.nn.relu(conv(rng, y, 27, 27, groups=27)), const(rng, 27, 1, 1))      # depthwise, bias
    s = relay.mean(y, axis=[2, 3], keepdims=True)
    s = relay.sigmoid(conv(rng, relay.nn.relu(conv(rng, s, 27, 12, k=1)), 12, 27, k=1))     # squeeze-excite
    y = relay.nn.max_pool2d(relay.multiply(y, s), pool_size=2, strides=2)
    y = relay.nn.bias_add(conv(rng, y, 27, 38), const(rng, 38))
    new = check(run_relay, rng, relay.multiply(y, relay.sigmoid(y)), [x])                     # SiLU
    assert not calls(new, "nn.conv2d")
    assert [b[1] for b in blocks(new, "nn.contrib_conv2d_NCHWc")] == ["OIHW8i8o"] * 4
    assert [c.attrs.channels for c in calls(new, "nn.contrib_conv2d_NCHWc")] == [32, 16, 32, 40]
    assert [c.attrs.data_layout for c in calls(new, "nn.contrib_depthwise_conv2d_NCHWc")] == ["NCHW8c"]
    assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW8c", "NCHW")]
    (exit_slice,) = calls(new, "strided_slice")
    assert list(exit_slice.attrs.end) == [38] and exit_slice.args[0].op.name == "layout_transform"


def test_padded_channels_leave_through_nchw(run_relay, rng):
    """Where padded channels cannot stay (a grouped conv, a slice of a partial block, a concat, an op that could
    turn the zero filler into NaN or inf, which the next conv's zero weights would not cancel), the value goes back
    to its own channels, in NCHW or in smaller blocks that divide them; the results stay the debug executor's."""
    x = relay.var("x", shape=(1, 8, 6, 6))
    r = relay.var("r", shape=(1, 12, 6, 6))
    y = conv(rng, x, 8, 12)                                                  # 12 -> 16
    y = relay.add(y, r)                                                      # an NCHW input: padded to 16 too
    unsafe = relay.divide(y, const(rng, 12, 1, 1))                           # 0 / 0 in the filler: via NCHW
    safe = relay.divide(y, relay.const(np.float32(3.0)))                     # a nonzero scalar: stays
    g = conv(rng, relay.add(unsafe, safe), 12, 24, groups=3)                 # grouped: via NCHW
    cat = relay.concatenate([y, relay.log(relay.sigmoid(y))], axis=1)       # log: via NCHW; concat of 24
    out = relay.Tuple([g, conv(rng, cat, 24, 16), relay.strided_slice(y, [0], [5], axes=[1])])
    new = check(run_relay, rng, out, [x, r], max_block=8)
    pads = [c.args[0] for c in calls(new, "nn.pad") if not _constant_subgraph(c.args[0])]
    assert sorted(getattr(p, "name_hint", None) or p.op.name for p in pads) == ["divide", "r"]   # into NCHW8c
    (div_unsafe,) = [c for c in calls(new, "divide") if c.args[1].data.numpy().size == 12]
    assert div_unsafe.args[0].op.name == "strided_slice"                     # the plain 12 channels
    (div_safe,) = [c for c in calls(new, "divide") if c.args[1].data.numpy().size == 1]
    assert div_safe.args[0].op.name == "add"                                 # padded
    assert calls(new, "log")[0].args[0].op.name == "strided_slice"
    # The grouped conv (4 channels a group) and the concat read the real channels' blocks of 4: a re-blocking and
    # a slice of whole blocks, no NCHW in between.
    (grouped,) = [c for c in calls(new, "nn.contrib_conv2d_NCHWc") if c.attrs.groups == 3]
    assert grouped.attrs.data_layout == "NCHW4c" and grouped.args[0].op.name == "strided_slice"
    (cat,) = calls(new, "concatenate")
    assert [f.op.name for f in cat.args[0].fields] == ["strided_slice", "layout_transform"]


@pytest.mark.parametrize("pad_width, mode, blocked", [
    (((0, 0), (0, 0), (0, 1), (0, 1)), "constant", True),     # TensorFlow's "same" padding before a stride-2 conv
    (((0, 0), (0, 0), (2, 1), (1, -1)), "constant", True),    # a negative width crops
    (((0, 0), (0, 0), (1, 1), (1, 1)), "reflect", True),
    (((0, 0), (0, 0), (1, 1), (1, 1)), "edge", True),
    (((0, 0), (1, 0), (1, 1), (1, 1)), "constant", False),    # channels padded: NCHW
])
def test_spatial_pad_stays_blocked(run_relay, rng, pad_width, mode, blocked):
    x = relay.var("x", shape=(1, 8, 7, 7))
    y = relay.nn.pad(relay.nn.relu(conv(rng, x, 8, 16)), pad_width, pad_value=relay.const(np.float32(0.5)),
                     pad_mode=mode)
    c = 17 if not blocked else 16
    new = check(run_relay, rng, conv(rng, y, c, 16, padding=0, strides=2), [x])
    (pad,) = [p for p in calls(new, "nn.pad") if any(list(p.attrs.pad_width)[4:])]  # not a channel padding
    assert (pad.args[0].op.name == "nn.relu") == blocked
    if blocked:
        assert activation_transforms(new) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]
        assert list(pad.attrs.pad_width) == [w for pair in pad_width for w in pair] + [0, 0]


@pytest.mark.parametrize("pad_value, blocked", [(0.0, True), (-np.inf, False)])
def test_spatial_pad_of_padded_channels(run_relay, rng, pad_value, blocked):
    """A pad of padded channels (12 -> 16) stays blocked with a finite pad value; -inf (a max pool's padding) would
    put -inf in the filler, which the next conv's zero weights turn into NaN: through NCHW."""
    x = relay.var("x", shape=(1, 8, 7, 7))
    y = relay.nn.pad(conv(rng, x, 8, 12), ((0, 0), (0, 0), (1, 1), (1, 1)),
                     pad_value=relay.const(np.float32(pad_value)))
    y = conv(rng, relay.nn.max_pool2d(y, pool_size=3, strides=1), 12, 16)
    new = check(run_relay, rng, y, [x], max_block=8)
    (pad,) = [p for p in calls(new, "nn.pad") if any(list(p.attrs.pad_width)[4:])]  # not a channel padding
    assert (pad.args[0].op.name == "nn.contrib_conv2d_NCHWc") == blocked


def test_unconverted_convs(run_relay, rng):
    x = relay.var("x", shape=(1, 8, 6, 6), dtype="float64")
    w = relay.const(rng.standard_normal((8, 8, 3, 3)))
    y = relay.nn.conv2d(x, w, padding=1)                                 # float64: left alone
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x], y)))
    new = AlterOpLayout(max_block=16)(mod)
    assert len(calls(new, "nn.conv2d")) == 1 and not calls(new, "layout_transform")
    v = relay.var("v", shape=(1, 8, 6, 6))
    wv = relay.var("w", shape=(16, 8, 3, 3))                             # a weight that is an input: still packed
    new = check(run_relay, rng, relay.nn.conv2d(v, wv, padding=1), [v, wv])
    assert [(c.attrs.src_layout, c.attrs.dst_layout) for c in calls(new, "layout_transform")] == [
        ("NCHW", "NCHW8c"), ("OIHW", "OIHW8i16o"), ("NCHW16c", "NCHW")]


def test_idempotent_and_no_conv_unchanged(rng):
    x = relay.var("x", shape=(1, 8, 6, 6))
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x], relay.nn.relu(x))))
    assert AlterOpLayout(max_block=16)(mod)["main"].same_as(mod["main"])
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x], conv(rng, x, 8, 16))))
    once = AlterOpLayout(max_block=16)(mod)
    assert AlterOpLayout(max_block=16)(once)["main"].same_as(once["main"])


def test_bad_arguments():
    with pytest.raises(TypeError, match="max_block must be an int"):
        AlterOpLayout(max_block="16")
    x = relay.var("x", shape=(1, 8, 6, 6))
    mod = relay.IRModule.from_expr(relay.Function([x], x))
    with pytest.raises(ValueError, match="max_block = 3 must be 1, 2, 4, 8 or 16"):
        AlterOpLayout(max_block=3)(mod)


_HAS_DENSE_PACK = "nn.contrib_dense_pack" in tvmlite.ir.list_op_names()


@pytest.mark.skipif(not _HAS_DENSE_PACK, reason="nn.contrib_dense_pack is not registered in this tree")
def test_dense_pack(run_relay, rng):
    x = relay.var("x", shape=(3, 40))
    y = relay.nn.dense(x, const(rng, 48, 40))
    new = check(run_relay, rng, y, [x])
    assert len(calls(new, "nn.contrib_dense_pack")) == 1
    (packing,) = calls(new, "layout_transform")
    assert packing.attrs.src_layout == "NK" and packing.attrs.dst_layout.startswith("NK")


@pytest.mark.skipif(not _HAS_DENSE_PACK, reason="nn.contrib_dense_pack is not registered in this tree")
@pytest.mark.parametrize("transpose_b", [False, True])
def test_matmul_by_a_constant_is_a_dense(run_relay, rng, transpose_b):
    """ONNX MatMul / Gemm by a weight: packed like dense, a width no panel divides (10) with a zero-padded last
    panel (units = N); nn.dense where topi.nn.dense_pack_width says packing does not pay (N = 1, K = 3)."""
    from tvmlite._ffi.registry import get_global_func

    width = get_global_func("topi.nn.dense_pack_width")
    x = relay.var("x", shape=(2, 3, 40))
    for n, packed in ((48, True), (10, width(10, 40) > 0)):
        w = const(rng, n, 40) if transpose_b else const(rng, 40, n)
        new = check(run_relay, rng, relay.nn.matmul(x, w, transpose_b=transpose_b), [x])
        assert not calls(new, "nn.matmul")
        assert len(calls(new, "nn.contrib_dense_pack" if packed else "nn.dense")) == 1


def test_blocked_ops_keep_every_other_attr(run_relay, rng):
    """The blocked op's attrs are the original's with the layouts changed (WithAttrFields), so a field the rewrite
    does not know (ceil_mode, count_include_pad here; one added later) is kept, never reset to its default."""
    x = relay.var("x", shape=(1, 8, 7, 7))
    body = relay.nn.avg_pool2d(conv(rng, x, 8, 16, dilation=(2, 2), padding=2), pool_size=(2, 2), strides=(2, 2),
                               padding=(1, 1), ceil_mode=True, count_include_pad=True)
    new = check(run_relay, rng, body, [x])
    (pool,) = calls(new, "nn.avg_pool2d")
    assert (pool.attrs.layout, pool.attrs.ceil_mode, pool.attrs.count_include_pad) == ("NCHW16c", True, True)
    (blocked,) = calls(new, "nn.contrib_conv2d_NCHWc")
    assert (list(blocked.attrs.dilation), blocked.attrs.data_layout) == ([2, 2], "NCHW8c")
    transforms = pathlib.Path(__file__).resolve().parents[3] / "csrc/relay/transforms"
    source = "".join((transforms / name).read_text() for name in ["alter_op_layout.cc", "alter_op_layout_rules.cc"])
    # The one field-by-field copy left fills another op's attrs (nn.matmul's out_dtype into nn.dense's).
    assert re.findall(r"attrs->(\w+) = a->\1;", source) == ["out_dtype"]
