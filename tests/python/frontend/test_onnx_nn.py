"""ONNX converters of the nn family on cases the official node tests miss: old opsets, auto_pad variants with
strides/dilations, ConvTranspose output_shape, symbolic dims, bad attributes. Expected values come from direct
numpy loops written here."""
import gc
import itertools

import numpy as np
import pytest

import onnx  # noqa: E402  (a dependency of tvmlite: a missing one is an error, not a skip)
from onnx import TensorProto, helper  # noqa: E402

import tvmlite  # noqa: E402
from tvmlite.error import OpAttributeInvalid, OpAttributeRequired, OpNotImplemented  # noqa: E402
from tvmlite.relay.frontend import from_onnx  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _collect_cycles():
    """pytest.raises tracebacks and executor closures form reference cycles holding IR objects; free them when the
    module ends so later tests that count live objects (test_ctypes_backend, test_leak) start from a clean heap."""
    yield
    gc.collect()


def make_model(node, inputs, outputs, opset, initializers=()):
    graph = helper.make_graph([node], "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def tensor(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def run(model, feeds):
    mod, params = from_onnx(model)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(len(model.graph.output))]


def out_type(model):
    mod, _ = from_onnx(model)
    from tvmlite import relay

    mod = relay.transform.InferType()(mod)
    return mod["main"].body.checked_type


def loop_conv(x, w, strides, pads, dilations, groups=1):
    """N-D direct convolution; pads (begin..., end...)."""
    n = x.ndim - 2
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pads[i], pads[n + i]) for i in range(n)])
    o, cg = w.shape[:2]
    k = w.shape[2:]
    out_sizes = [(xp.shape[2 + i] - dilations[i] * (k[i] - 1) - 1) // strides[i] + 1 for i in range(n)]
    out = np.zeros((x.shape[0], o, *out_sizes))
    og = o // groups
    for b, oc in itertools.product(range(x.shape[0]), range(o)):
        g = oc // og
        for pos in itertools.product(*(range(s) for s in out_sizes)):
            acc = 0.0
            for kk in itertools.product(*(range(s) for s in k)):
                idx = tuple(pos[i] * strides[i] + kk[i] * dilations[i] for i in range(n))
                acc += float(np.dot(xp[(b, slice(g * cg, (g + 1) * cg)) + idx], w[(oc, slice(None)) + kk]))
            out[(b, oc) + pos] = acc
    return out


@pytest.mark.parametrize("auto_pad, strides, dilations, size", [
    ("SAME_UPPER", [2, 2], [1, 1], [7, 6]),
    ("SAME_LOWER", [2, 1], [1, 1], [7, 6]),
    ("SAME_LOWER", [1, 2], [2, 1], [5, 8]),
    ("VALID", [2, 3], [1, 2], [7, 9]),
])
def test_conv_auto_pad(auto_pad, strides, dilations, size):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, *size)).astype("float32")
    w = rng.standard_normal((3, 2, 3, 2)).astype("float32")
    node = helper.make_node("Conv", ["x", "w"], ["y"], auto_pad=auto_pad, strides=strides, dilations=dilations)
    model = make_model(node, [tensor("x", x.shape), tensor("w", w.shape)], [tensor("y", None)], 13)
    (out,) = run(model, {"x": x, "w": w})
    if auto_pad == "VALID":
        pads = [0, 0, 0, 0]
    else:
        begin, end = [], []
        for s, k, st, d in zip(size, (3, 2), strides, dilations):
            total = max(0, (-(-s // st) - 1) * st + (k - 1) * d + 1 - s)
            lo, hi = total // 2, total - total // 2
            begin.append(lo if auto_pad == "SAME_UPPER" else hi)
            end.append(hi if auto_pad == "SAME_UPPER" else lo)
        pads = begin + end
        assert list(out.shape[2:]) == [-(-s // st) for s, st in zip(size, strides)]
    np.testing.assert_allclose(out, loop_conv(x, w, strides, pads, dilations), rtol=1e-5, atol=1e-5)


def test_conv_same_pads_before_opset_11_ignore_dilation():
    # opset < 11: SAME pads = (out - 1) * stride + kernel - in (undilated kernel); from 11: the dilated extent
    x = tensor("x", [1, 1, 8])
    w = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 3], np.ones(3, "float32"))
    node = helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", dilations=[2])
    old = out_type(make_model(node, [x], [tensor("y", None)], 10, [w]))
    new = out_type(make_model(node, [x], [tensor("y", None)], 11, [w]))
    assert [int(d) for d in old.shape] == [1, 1, 6]  # pads 2: 8 + 2 - 5 + 1
    assert [int(d) for d in new.shape] == [1, 1, 8]


def test_conv_symbolic_batch_and_bias():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((4, 1, 3)).astype("float32")
    b = rng.standard_normal(4).astype("float32")
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], group=2, pads=[1, 0])
    model = make_model(node, [tensor("x", ["N", 2, 5])], [tensor("y", None)], 11,
                       [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(b, "b")])
    ty = out_type(model)
    assert ty.shape[0].name_hint == "N" and [int(d) for d in ty.shape[1:]] == [4, 4]
    x = rng.standard_normal((3, 2, 5)).astype("float32")
    mod, params = from_onnx(model, shape={"x": (3, 2, 5)})
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input("x", x)
    gm.run()
    ref = loop_conv(x, w, [1], [1, 0], [1], groups=2) + b[None, :, None]
    np.testing.assert_allclose(gm.get_output(0).numpy(), ref, rtol=1e-5, atol=1e-5)


def test_conv_errors_name_the_node():
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv_a", auto_pad="SAME_UPPER")
    model = make_model(node, [tensor("x", [1, 2, "H", 4]), tensor("w", [3, 2, 3, 3])], [tensor("y", None)], 13)
    with pytest.raises(OpNotImplemented, match=r"Conv with auto_pad SAME_UPPER needs static spatial dims"):
        from_onnx(model)
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv_b")
    model = make_model(node, [tensor("x", [1, 2, 4, 4]), tensor("w", [3, 4, 3, 3])], [tensor("y", None)], 13)
    with pytest.raises(ValueError, match=r"node 'conv_b' \(Conv\).*in_channels mismatch: data \(1, 2, 4, 4\) has 2 "
                                         r"channels, weight \(3, 4, 3, 3\)"):
        from_onnx(model)
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1])
    model = make_model(node, [tensor("x", [1, 2, 4, 4]), tensor("w", [3, 2, 3, 3])], [tensor("y", None)], 13)
    with pytest.raises(OpAttributeInvalid, match=r"'pads' has 3 values, expected 4"):
        from_onnx(model)
    node = helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME", name="conv_c")
    model = make_model(node, [tensor("x", [1, 2, 4, 4]), tensor("w", [3, 2, 3, 3])], [tensor("y", None)], 13)
    with pytest.raises(OpAttributeInvalid, match=r"^node 'conv_c' \(Conv\): attribute auto_pad='SAME' is not one of "
                                                 r"NOTSET, VALID, SAME_UPPER, SAME_LOWER$"):
        from_onnx(model)


_WINDOW_OPS = [
    ("Conv", [tensor("x", [1, 2, 4, 4]), tensor("w", [3, 2, 3, 3])], {}),
    ("ConvTranspose", [tensor("x", [1, 2, 4, 4]), tensor("w", [2, 3, 3, 3])], {}),
    ("MaxPool", [tensor("x", [1, 2, 4, 4])], {"kernel_shape": [2, 2]}),
    ("AveragePool", [tensor("x", [1, 2, 4, 4])], {"kernel_shape": [2, 2]}),
    ("LpPool", [tensor("x", [1, 2, 4, 4])], {"kernel_shape": [2, 2]}),
    ("ConvInteger", [tensor("x", [1, 2, 4, 4], TensorProto.UINT8), tensor("w", [3, 2, 3, 3], TensorProto.UINT8)], {}),
    ("QLinearConv", [tensor("x", [1, 2, 4, 4], TensorProto.UINT8), tensor("xs", []),
                     tensor("xz", [], TensorProto.UINT8), tensor("w", [3, 2, 3, 3], TensorProto.UINT8),
                     tensor("ws", []), tensor("wz", [], TensorProto.UINT8), tensor("ys", []),
                     tensor("yz", [], TensorProto.UINT8)], {}),
]


@pytest.mark.parametrize("value", ["SAME", "same_upper", "VALID "])
@pytest.mark.parametrize("op, inputs, attrs", _WINDOW_OPS, ids=[op for op, _, _ in _WINDOW_OPS])
def test_auto_pad_is_one_of_four_for_every_op(op, inputs, attrs, value):
    """ONNX's auto_pad is NOTSET, VALID, SAME_UPPER or SAME_LOWER, spelled so; every op that reads it checks it the
    same way (an empty string, which onnxruntime reads as NOTSET, is refused earlier: a STRING with no value)."""
    node = helper.make_node(op, [i.name for i in inputs], ["y"], name="w0", auto_pad=value, **attrs)
    out = TensorProto.UINT8 if op == "QLinearConv" else TensorProto.INT32 if op == "ConvInteger" else TensorProto.FLOAT
    with pytest.raises(OpAttributeInvalid) as info:
        from_onnx(make_model(node, inputs, [tensor("y", None, out)], 13))
    assert str(info.value) == (f"node 'w0' ({op}): attribute auto_pad={value!r} is not one of NOTSET, VALID, "
                               f"SAME_UPPER, SAME_LOWER")


def loop_conv_transpose_1d(x, w, stride, pads, out_size):
    b, c, n = x.shape
    o, k = w.shape[1], w.shape[2]
    full = np.zeros((b, o, max((n - 1) * stride + k, pads[0] + out_size)))
    for i, j in itertools.product(range(n), range(k)):
        full[:, :, i * stride + j] += np.einsum("bc,co->bo", x[:, :, i], w[:, :, j])
    return full[:, :, pads[0]:pads[0] + out_size]


@pytest.mark.parametrize("attrs, out_size, pads", [
    ({"output_shape": [10]}, 10, [0, 0]),  # total padding -1: one appended zero column
    ({"output_shape": [6]}, 6, [2, 1]),  # NOTSET: the odd padding goes first
    ({"output_shape": [6], "auto_pad": "SAME_UPPER"}, 6, [1, 2]),
    ({"auto_pad": "SAME_UPPER", "strides": [3]}, 9, [0, 0]),
    ({"auto_pad": "SAME_UPPER", "strides": [2]}, 6, [0, 1]),  # total 1: at the end, as Conv's SAME_UPPER
    ({"auto_pad": "SAME_LOWER", "strides": [2]}, 6, [1, 0]),  # ... at the beginning, as Conv's SAME_LOWER
    ({"pads": [1, 2], "output_padding": [1]}, 7, [1, 2]),
])
def test_conv_transpose_output_shape(attrs, out_size, pads):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 3)).astype("float32")
    w = rng.standard_normal((2, 3, 3)).astype("float32")
    attrs = dict(attrs)
    stride = attrs.setdefault("strides", [3])[0]
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], **attrs)
    model = make_model(node, [tensor("x", x.shape), tensor("w", w.shape)], [tensor("y", None)], 11)
    (out,) = run(model, {"x": x, "w": w})
    assert out.shape == (1, 3, out_size)
    np.testing.assert_allclose(out, loop_conv_transpose_1d(x, w, stride, pads, out_size), rtol=1e-5, atol=1e-5)


def test_maxpool_opset8_indices_storage_order():
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 3)).astype("float32")
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], storage_order=1)
    model = make_model(node, [tensor("x", x.shape)], [tensor("y", None), tensor("i", None, TensorProto.INT64)], 8)
    values, indices = run(model, {"x": x})
    for c, h, w in itertools.product(range(2), range(3), range(2)):
        window = x[0, c, h:h + 2, w:w + 2]
        dh, dw = np.unravel_index(np.argmax(window), window.shape)
        assert values[0, c, h, w] == window.max()
        assert indices[0, c, h, w] == c * 12 + (h + dh) + (w + dw) * 4  # column-major spatial part


def test_pool_attributes_by_opset():
    x = tensor("x", [1, 1, 5, 5])
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    with pytest.raises(OpAttributeInvalid, match=r"MaxPool \(opset 8\) has no attribute 'ceil_mode'"):
        from_onnx(make_model(node, [x], [tensor("y", None)], 8))
    assert [int(d) for d in out_type(make_model(node, [x], [tensor("y", None)], 10)).shape] == [1, 1, 3, 3]
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 2])
    with pytest.raises(OpAttributeInvalid, match=r"AveragePool \(opset 18\) has no attribute 'dilations'"):
        from_onnx(make_model(node, [x], [tensor("y", None)], 18))
    assert [int(d) for d in out_type(make_model(node, [x], [tensor("y", None)], 19)).shape] == [1, 1, 3, 3]
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], count_include_pad=1)
    with pytest.raises(OpAttributeInvalid, match=r"AveragePool \(opset 6\) has no attribute 'count_include_pad'"):
        from_onnx(make_model(node, [x], [tensor("y", None)], 6))
    node = helper.make_node("AveragePool", ["x"], ["y"])
    with pytest.raises(OpAttributeRequired, match=r"required attribute 'kernel_shape' of AveragePool \(opset 11\)"):
        from_onnx(make_model(node, [x], [tensor("y", None)], 11))


def test_average_pool_count_include_pad_and_ceil():
    x = np.arange(1, 17, dtype="float32").reshape(1, 1, 4, 4)
    for include in (0, 1):
        node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                ceil_mode=1, count_include_pad=include)
        (out,) = run(make_model(node, [tensor("x", x.shape)], [tensor("y", None)], 10), {"x": x})
        xp = np.pad(x[0, 0], 1)
        mask = np.pad(np.ones((4, 4)), 1)
        expected = np.zeros((3, 3))  # ceil((4 + 2 - 3) / 2) + 1 = 3; the last window starts at 4 < 4 + 1
        for i, j in itertools.product(range(3), range(3)):
            win = (slice(2 * i, 2 * i + 3), slice(2 * j, 2 * j + 3))
            inside_pad = np.ones((6, 6))[win].size  # positions within input + explicit pads
            expected[i, j] = xp[win].sum() / (inside_pad if include else mask[win].sum())
        np.testing.assert_allclose(out[0, 0], expected, rtol=1e-6)


def test_lppool_opsets_and_global_lp():
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 4)).astype("float32")
    for opset, p in ((1, 3.0), (2, 3), (18, 3)):
        node = helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2], p=p)
        (out,) = run(make_model(node, [tensor("x", x.shape)], [tensor("y", None)], opset), {"x": x})
        ref = np.zeros((1, 2, 2, 3))
        for i, j in itertools.product(range(2), range(3)):
            ref[..., i, j] = (np.abs(x[..., i:i + 2, j:j + 2].astype(np.float64)) ** 3).sum(axis=(-1, -2)) ** (1 / 3)
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    node = helper.make_node("GlobalLpPool", ["x"], ["y"], p=1)
    (out,) = run(make_model(node, [tensor("x", x.shape)], [tensor("y", None)], 2), {"x": x})
    np.testing.assert_allclose(out, np.abs(x).sum(axis=(2, 3), keepdims=True), rtol=1e-5)


def test_gemm_opsets():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 3)).astype("float32")
    b = rng.standard_normal((5, 4)).astype("float32")
    c = rng.standard_normal((5,)).astype("float32")
    inputs = [tensor("a", a.shape), tensor("b", b.shape), tensor("c", c.shape)]
    node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=1, transB=1, alpha=0.5, beta=2.0, broadcast=1)
    (out,) = run(make_model(node, inputs, [tensor("y", None)], 6), {"a": a, "b": b, "c": c})
    np.testing.assert_allclose(out, 0.5 * a.T @ b.T + 2.0 * c, rtol=1e-5)
    node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm_nb", transA=1, transB=1)
    with pytest.raises(ValueError, match=r"node 'gemm_nb' \(Gemm\): C of shape \(5,\) must match"):
        from_onnx(make_model(node, inputs, [tensor("y", None)], 6))
    (out,) = run(make_model(node, inputs, [tensor("y", None)], 7), {"a": a, "b": b, "c": c})
    np.testing.assert_allclose(out, a.T @ b.T + c, rtol=1e-5)
    node = helper.make_node("Gemm", ["a", "b"], ["y"], transA=1, transB=1)
    with pytest.raises(ValueError, match=r"Gemm \(opset 9\) takes 3 inputs, got 2$"):
        from_onnx(make_model(node, inputs[:2], [tensor("y", None)], 9))
    (out,) = run(make_model(node, inputs[:2], [tensor("y", None)], 11), {"a": a, "b": b})
    np.testing.assert_allclose(out, a.T @ b.T, rtol=1e-5)


def test_matmul_symbolic_batch_and_einsum():
    node = helper.make_node("MatMul", ["a", "b"], ["y"])
    model = make_model(node, [tensor("a", ["B", 2, 3]), tensor("b", [3, 4])], [tensor("y", None)], 13)
    ty = out_type(model)
    assert ty.shape[0].name_hint == "B" and [int(d) for d in ty.shape[1:]] == [2, 4]
    x = np.random.default_rng(6).standard_normal((2, 3, 3)).astype("float32")
    node = helper.make_node("Einsum", ["x"], ["y"], equation="...ii -> ...i")
    (out,) = run(make_model(node, [tensor("x", x.shape)], [tensor("y", None)], 12), {"x": x})
    np.testing.assert_allclose(out, np.stack([np.diag(m) for m in x]), rtol=1e-6)


def test_matmul_integer_default_zero_points():
    a = np.array([[1, 200], [3, 4]], "uint8")
    b = np.array([[5, 6], [7, 8]], "uint8")
    node = helper.make_node("MatMulInteger", ["a", "b"], ["y"])
    model = make_model(node, [tensor("a", a.shape, TensorProto.UINT8), tensor("b", b.shape, TensorProto.UINT8)],
                       [tensor("y", None, TensorProto.INT32)], 10)
    (out,) = run(model, {"a": a, "b": b})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, a.astype(np.int32) @ b.astype(np.int32))


def loop_col2im_2d(cols, image, block, strides, dilations, pads):
    """Scatter-add column (c, kh, kw) of block (bh, bw) to image position (bh * s + kh * d - pad, ...)."""
    n = cols.shape[0]
    blocks = [(image[i] + pads[i] + pads[2 + i] - dilations[i] * (block[i] - 1) - 1) // strides[i] + 1
              for i in range(2)]
    c = cols.shape[1] // (block[0] * block[1])
    out = np.zeros((n, c, *image))
    for b, ch, kh, kw, bh, bw in itertools.product(range(n), range(c), range(block[0]), range(block[1]),
                                                   range(blocks[0]), range(blocks[1])):
        y = bh * strides[0] + kh * dilations[0] - pads[0]
        x = bw * strides[1] + kw * dilations[1] - pads[1]
        if 0 <= y < image[0] and 0 <= x < image[1]:
            out[b, ch, y, x] += cols[b, (ch * block[0] + kh) * block[1] + kw, bh * blocks[1] + bw]
    return out


@pytest.mark.parametrize("image, block, attrs", [
    ([5, 5], [1, 5], {}),
    ([5, 5], [2, 2], {"strides": [2, 2]}),
    ([5, 5], [2, 2], {"pads": [1, 0, 1, 2], "dilations": [2, 1]}),
])
def test_col2im(image, block, attrs):
    strides, dilations = attrs.get("strides", [1, 1]), attrs.get("dilations", [1, 1])
    pads = attrs.get("pads", [0, 0, 0, 0])
    blocks = [(image[i] + pads[i] + pads[2 + i] - dilations[i] * (block[i] - 1) - 1) // strides[i] + 1
              for i in range(2)]
    cols = np.random.default_rng(7).standard_normal((2, 3 * block[0] * block[1], blocks[0] * blocks[1]))
    cols = cols.astype("float32")
    node = helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"], **attrs)
    model = make_model(node, [tensor("x", cols.shape)], [tensor("y", None)], 18,
                       [onnx.numpy_helper.from_array(np.array(image, "int64"), "image_shape"),
                        onnx.numpy_helper.from_array(np.array(block, "int64"), "block_shape")])
    mod, params = from_onnx(model, freeze_params=True)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input("x", cols)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0).numpy(),
                               loop_col2im_2d(cols, image, block, strides, dilations, pads), rtol=1e-5, atol=1e-6)


def test_max_unpool_with_constant_output_shape():
    x = np.array([[[[5, 6], [7, 8]]]], "float32")
    idx = np.array([[[[5, 7], [13, 15]]]], "int64")
    node = helper.make_node("MaxUnpool", ["x", "i", "shape"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    model = make_model(node, [tensor("x", x.shape), tensor("i", idx.shape, TensorProto.INT64)],
                       [tensor("y", None)], 11, [onnx.numpy_helper.from_array(np.array([1, 1, 5, 5]), "shape")])
    mod, params = from_onnx(model, freeze_params=True)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input("x", x)
    gm.set_input("i", idx)
    gm.run()
    expected = np.zeros((1, 1, 5, 5), "float32")
    expected[0, 0, 1, 1], expected[0, 0, 1, 3], expected[0, 0, 3, 1], expected[0, 0, 3, 3] = 5, 6, 7, 8
    np.testing.assert_array_equal(gm.get_output(0).numpy(), expected)


def test_shape_inputs_computed_at_run_time():
    """Col2Im's image_shape and block_shape as graph inputs: one cpu build (dyn.nn.col2im) runs both shapes as
    onnxruntime does."""
    ort = pytest.importorskip("onnxruntime")
    node = helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"])
    model = make_model(node, [tensor("x", [1, 4, 4]), tensor("image_shape", [2], TensorProto.INT64),
                              tensor("block_shape", [2], TensorProto.INT64)], [tensor("y", None)], 18)
    mod, params = from_onnx(model)
    gm = tvmlite.runtime.GraphModule(tvmlite.build(mod, target="cpu", params=params)["default"]())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.arange(16, dtype="float32").reshape(1, 4, 4)
    for image, block in (([3, 3], [2, 2]), ([4, 4], [4, 1])):
        feeds = {"x": x, "image_shape": np.array(image), "block_shape": np.array(block)}
        gm.set_input(**feeds)
        gm.run()
        np.testing.assert_array_equal(gm.get_output(0).numpy(), sess.run(None, feeds)[0])
