"""Layouts (TVM's strings) and the ops on blocked layouts: layout parsing and its errors, layout_transform's relation
and reference, nn.contrib_conv2d_NCHWc / nn.contrib_depthwise_conv2d_NCHWc against nn.conv2d, and the blocked
pools against their NCHW selves. The oracles here are hand-written reshapes/transposes and the NCHW ops."""
import gc

import numpy as np
import pytest

from tvmlite import relay
from tvmlite.ir import SizeVar
from tvmlite.relay.op.layout import parse_layout, transform_shape
from tvmlite.relay.op.op import get_reference

from relay_helpers import run, shape_of, typed


@pytest.fixture(autouse=True, scope="module")
def _collect_cycles():
    yield
    gc.collect()


def pack_nchw(x, c):
    """NCHW -> NCHW{c}c by hand: (N, C, H, W) -> (N, C / c, H, W, c)."""
    n, ch, h, w = x.shape
    return x.reshape(n, ch // c, c, h, w).transpose(0, 1, 3, 4, 2).copy()


def pack_oihw(w, ic, oc):
    """OIHW -> OIHW{ic}i{oc}o by hand: (O, I, KH, KW) -> (O / oc, I / ic, KH, KW, ic, oc)."""
    o, i, kh, kw = w.shape
    return w.reshape(o // oc, oc, i // ic, ic, kh, kw).transpose(0, 2, 4, 5, 3, 1).copy()


# ---- parsing ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout, axes", [
    ("NCHW", [("N", 0), ("C", 0), ("H", 0), ("W", 0)]),
    ("NCHW16c", [("N", 0), ("C", 0), ("H", 0), ("W", 0), ("c", 16)]),
    ("OIHW16i16o", [("O", 0), ("I", 0), ("H", 0), ("W", 0), ("i", 16), ("o", 16)]),
    ("NK16n", [("N", 0), ("K", 0), ("n", 16)]),
    ("NC4cHW", [("N", 0), ("C", 0), ("c", 4), ("H", 0), ("W", 0)]),
    ("OIHW1i8o", [("O", 0), ("I", 0), ("H", 0), ("W", 0), ("i", 1), ("o", 8)]),
    ("NCDHW128c", [("N", 0), ("C", 0), ("D", 0), ("H", 0), ("W", 0), ("c", 128)]),
])
def test_parse(layout, axes):
    assert parse_layout(layout) == axes


@pytest.mark.parametrize("layout, message", [
    ("", "empty"),
    ("NC_HW", "unknown character '_'"),
    ("NCHW16", "must be followed by a lowercase sub-axis letter"),
    ("NCHW16C", "must be followed by a lowercase sub-axis letter"),
    ("NCHWc", "unknown character 'c'"),
    ("NHW16c", "sub-axis 'c' has no primal axis 'C'"),
    ("NCHWC", "axis 'C' appears twice"),
    ("NCHW4c4c", "axis 'c' appears twice"),
    ("NCHW0c", "has factor 0, must be > 0"),
    ("NCHW99999999999c", "larger than"),
])
def test_parse_errors(layout, message):
    with pytest.raises(ValueError, match=message):
        parse_layout(layout)


@pytest.mark.parametrize("shape, src, dst, out", [
    ((1, 32, 7, 7), "NCHW", "NCHW16c", (1, 2, 7, 7, 16)),
    ((1, 2, 7, 7, 16), "NCHW16c", "NCHW", (1, 32, 7, 7)),
    ((1, 2, 7, 7, 16), "NCHW16c", "NCHW8c", (1, 4, 7, 7, 8)),
    ((64, 32, 3, 3), "OIHW", "OIHW16i16o", (4, 2, 3, 3, 16, 16)),
    ((48, 24, 1, 1), "OIHW", "OIHW8i16o", (3, 3, 1, 1, 8, 16)),
    ((2, 3, 4, 5), "NCHW", "NHWC", (2, 4, 5, 3)),
    ((40, 7), "NK", "NK8n", (5, 7, 8)),
    ((24, 1, 1), "CHW", "CHW8c", (3, 1, 1, 8)),
])
def test_transform_shape(shape, src, dst, out):
    assert transform_shape(shape, src, dst) == out


@pytest.mark.parametrize("shape, src, dst, message", [
    ((1, 24, 7, 7), "NCHW", "NCHW16c", "axis 'C' of extent 24 .* not divisible by the factor 16"),
    ((1, 3, 7, 7, 8), "NCHW16c", "NCHW", "sub-axis 'c' of layout 'NCHW16c' has factor 16 but the tensor's dim is 8"),
    ((1, 24, 7), "NCHW", "NCHW8c", "rank 3 cannot have layout 'NCHW'"),
    ((1, 24, 7, 7), "NCHW", "OIHW", "do not have the same primal axes"),
])
def test_transform_shape_errors(shape, src, dst, message):
    with pytest.raises(ValueError, match=message):
        transform_shape(shape, src, dst)


# ---- layout_transform ------------------------------------------------------------------------------------------

def test_layout_transform_relation():
    x = relay.var("x", shape=(1, 32, 7, 7))
    assert shape_of(typed(relay.layout_transform(x, "NCHW", "NCHW16c"), x)) == (1, 2, 7, 7, 16)
    w = relay.var("w", shape=(64, 32, 3, 3), dtype="float16")
    ty = typed(relay.layout_transform(w, "OIHW", "OIHW16i16o"), w)
    assert shape_of(ty) == (4, 2, 3, 3, 16, 16) and ty.dtype == "float16"
    assert relay.op.get("layout_transform").get_attr("TOpPattern") == 2  # kInjective


def test_layout_transform_symbolic():
    n = SizeVar("n")
    x = relay.var("x", shape=(n, 32, 7, 7))
    ty = typed(relay.layout_transform(x, "NCHW", "NCHW8c"), x)
    assert shape_of(ty) == ("n", 4, 7, 7, 8)
    c = SizeVar("c")
    y = relay.var("y", shape=(1, c, 7, 7))
    ty = typed(relay.layout_transform(y, "NCHW", "NCHW8c"), y)
    assert ty.shape[0] == 1 and not isinstance(ty.shape[1], int) and ty.shape[4] == 8


@pytest.mark.parametrize("shape, src, dst, message", [
    ((1, 24, 7, 7), "NCHW", "NCHW16c", "not divisible by the factor 16"),
    ((1, 24, 7, 7), "NCHW", "NCHW16", "must be followed by a lowercase"),
    ((1, 24, 7, 7), "NCH", "NCH8c", "rank 4 cannot have layout 'NCH'"),
])
def test_layout_transform_relation_errors(shape, src, dst, message):
    x = relay.var("x", shape=shape)
    with pytest.raises(ValueError, match=message):
        typed(relay.layout_transform(x, src, dst), x)


def test_layout_transform_reference_nchwc(rng):
    x = rng.standard_normal((2, 32, 5, 3)).astype("float32")
    y = run(lambda v: relay.layout_transform(v, "NCHW", "NCHW16c"), {"x": x})
    np.testing.assert_array_equal(y, pack_nchw(x, 16))
    back = run(lambda v: relay.layout_transform(v, "NCHW16c", "NCHW"), {"x": y})
    np.testing.assert_array_equal(back, x)


def test_layout_transform_reference_weights(rng):
    w = rng.standard_normal((32, 48, 3, 1)).astype("float32")
    y = run(lambda v: relay.layout_transform(v, "OIHW", "OIHW16i8o"), {"w": w})
    np.testing.assert_array_equal(y, pack_oihw(w, 16, 8))
    k = rng.integers(0, 100, (40, 7)).astype("int64")
    y = run(lambda v: relay.layout_transform(v, "NK", "NK8n"), {"k": k})
    np.testing.assert_array_equal(y, k.reshape(5, 8, 7).transpose(0, 2, 1))


@pytest.mark.parametrize("src, dst", [("NCHW8c", "NCHW4c"), ("NCHW4c", "NCHW8c"), ("NCHW", "NHWC"),
                                      ("NCHW8c", "NHWC"), ("NHWC", "NCHW8c"), ("NCHW2c", "NC2cHW")])
def test_layout_transform_round_trip(rng, src, dst):
    ref = get_reference("layout_transform")

    class A:
        pass

    def attrs(s, d):
        a = A()
        a.src_layout, a.dst_layout = s, d
        return a

    x = rng.standard_normal((2, 16, 3, 5)).astype("float32")
    xs = ref(attrs("NCHW", src), x)
    y = ref(attrs(src, dst), xs)
    assert y.shape == transform_shape(xs.shape, src, dst)
    np.testing.assert_array_equal(ref(attrs(dst, "NCHW"), y), x)


# ---- blocked convolutions --------------------------------------------------------------------------------------

def conv_nchw(x, w, **kw):
    return run(lambda a, b: relay.nn.conv2d(a, b, **kw), {"x": x, "w": w})


@pytest.mark.parametrize("c, o, ic, oc, groups, strides, padding, dilation", [
    (16, 32, 16, 16, 1, 1, 1, 1),
    (24, 16, 8, 16, 1, 2, (1, 0, 2, 1), 1),
    (3, 8, 1, 8, 1, 1, 0, 2),
    (32, 32, 8, 8, 2, 1, 1, 1),    # grouped: 16 in / 16 out channels per group
    (16, 16, 4, 4, 4, (2, 1), 1, 1),
    (16, 8, 4, 2, 4, 1, 0, 1),
])
def test_conv2d_nchwc(rng, c, o, ic, oc, groups, strides, padding, dilation):
    x = rng.standard_normal((2, c, 9, 7)).astype("float32")
    w = rng.standard_normal((o, c // groups, 3, 3)).astype("float32")
    kw = dict(strides=strides, padding=padding, dilation=dilation, groups=groups)
    expect = conv_nchw(x, w, **kw)
    layouts = dict(data_layout=f"NCHW{ic}c", kernel_layout=f"OIHW{ic}i{oc}o", out_layout=f"NCHW{oc}c")
    got = run(lambda a, b: relay.nn.contrib_conv2d_nchwc(a, b, **kw, **layouts),
              {"x": pack_nchw(x, ic), "w": pack_oihw(w, ic, oc)})
    np.testing.assert_allclose(got, pack_nchw(expect, oc), rtol=1e-5, atol=1e-5)


def test_conv2d_nchwc_relation():
    x = relay.var("x", shape=(1, 4, 14, 14, 8))
    w = relay.var("w", shape=(2, 4, 3, 3, 8, 16))
    call = relay.nn.contrib_conv2d_nchwc(x, w, strides=2, padding=1, data_layout="NCHW8c",
                                         kernel_layout="OIHW8i16o", out_layout="NCHW16c")
    assert shape_of(typed(call, x, w)) == (1, 2, 7, 7, 16)
    call = relay.nn.contrib_conv2d_nchwc(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i16o", out_layout="")
    assert shape_of(typed(call, x, w)) == (1, 2, 12, 12, 16)
    assert relay.op.get("nn.contrib_conv2d_NCHWc").get_attr("TOpPattern") == 4  # kOutEWiseFusable


@pytest.mark.parametrize("xshape, wshape, kw, error, message", [
    ((1, 4, 8, 8, 8), (2, 4, 3, 3, 8, 16), dict(data_layout="NCHW", kernel_layout="OIHW8i16o"),
     NotImplementedError, "data_layout 'NCHW' is not supported"),
    ((1, 4, 8, 8, 8), (2, 4, 3, 3, 8, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW"),
     NotImplementedError, "kernel_layout 'OIHW' is not supported"),
    ((1, 4, 8, 8, 8), (2, 4, 3, 3, 8, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW8i16o",
                                                out_layout="NCHW8c"), ValueError, "disagrees with kernel_layout"),
    ((1, 4, 8, 8, 8), (2, 4, 3, 3, 4, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW4i16o"),
     ValueError, "has input block 4 but data_layout 'NCHW8c' has 8"),
    ((1, 4, 8, 8, 4), (2, 4, 3, 3, 8, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW8i16o"),
     ValueError, "must end in its block 8"),
    ((1, 4, 8, 8, 8), (2, 3, 3, 3, 8, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW8i16o"),
     ValueError, "in_channels mismatch"),
    ((1, 4, 8, 8, 8), (2, 1, 3, 3, 8, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW8i16o", groups=4),
     ValueError, "must be whole blocks"),
    ((1, 4, 8, 8, 8), (2, 4, 3, 3, 8, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW8i16o", padding=(1, 2, 3)),
     ValueError, "padding needs"),
    ((1, 4, 8, 8), (2, 4, 3, 3, 8, 16), dict(data_layout="NCHW8c", kernel_layout="OIHW8i16o"),
     ValueError, "must have rank 5"),
])
def test_conv2d_nchwc_errors(xshape, wshape, kw, error, message):
    x = relay.var("x", shape=xshape)
    w = relay.var("w", shape=wshape)
    kw.setdefault("out_layout", "")
    with pytest.raises(error, match=message):
        typed(relay.nn.contrib_conv2d_nchwc(x, w, **kw), x, w)


@pytest.mark.parametrize("c, block, strides, padding", [(32, 16, 1, 1), (24, 8, 2, 1), (6, 2, 1, 0)])
def test_depthwise_conv2d_nchwc(rng, c, block, strides, padding):
    x = rng.standard_normal((1, c, 8, 9)).astype("float32")
    w = rng.standard_normal((c, 1, 3, 3)).astype("float32")
    kw = dict(strides=strides, padding=padding, groups=c)
    expect = conv_nchw(x, w, **kw)
    layouts = dict(data_layout=f"NCHW{block}c", kernel_layout=f"OIHW1i{block}o", out_layout=f"NCHW{block}c")
    got = run(lambda a, b: relay.nn.contrib_depthwise_conv2d_nchwc(a, b, **kw, **layouts),
              {"x": pack_nchw(x, block), "w": pack_oihw(w, 1, block)})
    np.testing.assert_allclose(got, pack_nchw(expect, block), rtol=1e-5, atol=1e-5)


def test_depthwise_conv2d_nchwc_errors():
    x = relay.var("x", shape=(1, 2, 8, 8, 8))
    w = relay.var("w", shape=(2, 1, 3, 3, 1, 8))
    layouts = dict(data_layout="NCHW8c", kernel_layout="OIHW1i8o", out_layout="NCHW8c")
    assert shape_of(typed(relay.nn.contrib_depthwise_conv2d_nchwc(x, w, groups=16, **layouts), x, w)) == \
        (1, 2, 6, 6, 8)
    with pytest.raises(ValueError, match="groups .* must equal in_channels"):
        typed(relay.nn.contrib_depthwise_conv2d_nchwc(x, w, groups=8, **layouts), x, w)
    w4 = relay.var("w", shape=(4, 1, 3, 3, 1, 4))
    with pytest.raises(ValueError, match="OIHW1i.*o with c the data's block 8"):
        typed(relay.nn.contrib_depthwise_conv2d_nchwc(x, w4, groups=16, data_layout="NCHW8c",
                                                      kernel_layout="OIHW1i4o", out_layout="NCHW4c"), x, w4)


# ---- blocked pooling -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("pool, kw", [
    (relay.nn.max_pool2d, dict(pool_size=3, strides=2, padding=1)),
    (relay.nn.max_pool2d, dict(pool_size=2, strides=2, ceil_mode=True)),
    (relay.nn.avg_pool2d, dict(pool_size=3, strides=1, padding=1, count_include_pad=False)),
    (relay.nn.avg_pool2d, dict(pool_size=(2, 3), strides=(2, 1), padding=(0, 1), count_include_pad=True)),
])
def test_blocked_pool2d(rng, pool, kw):
    x = rng.standard_normal((2, 24, 7, 9)).astype("float32")
    expect = run(lambda v: pool(v, **kw), {"x": x})
    got = run(lambda v: pool(v, layout="NCHW8c", **kw), {"x": pack_nchw(x, 8)})
    np.testing.assert_allclose(got, pack_nchw(expect, 8), rtol=1e-6)
    v = relay.var("x", shape=(2, 3, 7, 9, 8))
    assert shape_of(typed(pool(v, layout="NCHW8c", **kw), v)) == pack_nchw(expect, 8).shape


@pytest.mark.parametrize("pool", [relay.nn.global_avg_pool, relay.nn.global_max_pool, relay.nn.global_lp_pool])
def test_blocked_global_pool(rng, pool):
    x = rng.standard_normal((2, 32, 5, 6)).astype("float32")
    expect = run(lambda v: pool(v, layout="NCHW"), {"x": x})
    got = run(lambda v: pool(v, layout="NCHW16c"), {"x": pack_nchw(x, 16)})
    assert got.shape == (2, 2, 1, 1, 16)
    np.testing.assert_allclose(got, pack_nchw(expect, 16), rtol=1e-6)


def test_blocked_pool_errors():
    x = relay.var("x", shape=(1, 3, 8, 8, 8))
    with pytest.raises(ValueError, match="must end in its block 16"):
        typed(relay.nn.max_pool2d(x, pool_size=2, layout="NCHW16c"), x)
    with pytest.raises(NotImplementedError, match="out_layout 'NCHW' must be '' or the layout 'NCHW8c'"):
        typed(relay.nn.max_pool2d(x, pool_size=2, layout="NCHW8c", out_layout="NCHW"), x)
    with pytest.raises(NotImplementedError, match="layout 'NCHW8c' is not supported"):
        typed(relay.nn.lp_pool2d(x, pool_size=2, layout="NCHW8c"), x)
    y = relay.var("y", shape=(1, 24, 8, 8))
    with pytest.raises(ValueError, match="must have rank 5"):
        typed(relay.nn.global_avg_pool(y, layout="NCHW8c"), y)
