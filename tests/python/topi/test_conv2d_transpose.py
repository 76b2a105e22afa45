"""topi.nn.conv2d_transpose (nn.conv2d_transpose, ONNX ConvTranspose) against a float64 numpy transposed conv and
the op's reference, on every ISA path and thread count; its error paths; and the cpu target using it in a build.

Tensors are plain: data (N, C, H, W) NCHW, weight (C, O / groups, KH, KW) IOHW, out (N, O, OH, OW).
"""
import json
import os
import sys

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.relay.op.op import get_reference
from tvmlite.runtime import GraphModule

sys.path.insert(0, os.path.dirname(__file__))
from lowering import lowering_attrs  # noqa: E402
from thread_helpers import same_results_in_threads  # noqa: E402

conv2d_transpose = tvmlite.get_global_func("topi.nn.conv2d_transpose")

KERNEL = "topi.nn.conv2d_transpose"


# ---------------------------------------------------------------------------------------------------------------
# the reference


def normalize_padding(padding):
    """relay's rules: 1 value -> all sides, 2 -> (h, w) both sides, 4 -> (top, left, bottom, right)."""
    p = [padding] if isinstance(padding, int) else list(padding)
    if len(p) == 1:
        p = p * 4
    elif len(p) == 2:
        p = p + p
    return p


def pair(v):
    return [v, v] if isinstance(v, int) else (list(v) * 2 if len(v) == 1 else list(v))


def conv_transpose_ref(x, w, strides, padding, dilation, output_padding, groups):
    """The definition, in float64: every input pixel scatters its weighted kernel into the output."""
    sh, sw = pair(strides)
    dh, dw = pair(dilation)
    oph, opw = pair(output_padding)
    top, left, bottom, right = normalize_padding(padding)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // groups
    oh = (h - 1) * sh - top - bottom + dh * (kh - 1) + 1 + oph
    ow = (wd - 1) * sw - left - right + dw * (kw - 1) + 1 + opw
    # the full (uncropped) output, with room for output_padding past it
    fh = max((h - 1) * sh + dh * (kh - 1) + 1, top + oh)
    fw = max((wd - 1) * sw + dw * (kw - 1) + 1, left + ow)
    full = np.zeros((n, groups * og, fh, fw))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    for g in range(groups):
        xg = x64[:, g * cg:(g + 1) * cg]
        wg = w64[g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", xg, wg[:, :, i, j])
                full[:, g * og:(g + 1) * og, i * dh:i * dh + (h - 1) * sh + 1:sh,
                     j * dw:j * dw + (wd - 1) * sw + 1:sw] += contrib
    return full[:, :, top:top + oh, left:left + ow]


def silu(v):
    return v / (1 + np.exp(-v))


EPILOGUES = {
    "": "",
    "bias": "add r0 r0 in0",
    "bias_relu": "add r1 r0 in0; relu r0 r1",  # the lowering's register naming
    "bias_residual_relu": "add r0 r0 in0; add r0 r0 in1; relu r0 r0",
    "silu": "silu r0 r0",
}


def run_case(case, rng):
    """(got, want) for case = (N, C, H, W, O, KH, KW, strides, padding, dilation, output_padding, groups, epi)."""
    n, c, h, w, o, kh, kw, strides, padding, dilation, output_padding, groups, epi = case
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    wt = rng.standard_normal((c, o // groups, kh, kw)).astype("float32")
    ref = conv_transpose_ref(x, wt, strides, padding, dilation, output_padding, groups)
    extra = []
    if epi.startswith("bias"):
        bias = rng.standard_normal((o, 1, 1)).astype("float32")
        ref = ref + bias
        extra.append(bias)
    if "residual" in epi:
        residual = rng.standard_normal(ref.shape).astype("float32")
        ref = ref + residual
        extra.append(residual)
    if "relu" in epi:
        ref = np.maximum(ref, 0)
    if epi == "silu":
        ref = silu(ref)
    attrs = {"strides": strides, "padding": padding, "dilation": dilation, "output_padding": output_padding,
             "groups": groups, "epilogue": EPILOGUES[epi]}
    out = tvmlite.nd.empty(ref.shape)
    conv2d_transpose(attrs)(tvmlite.nd.array(x), tvmlite.nd.array(wt), *[tvmlite.nd.array(e) for e in extra], out)
    return out.numpy(), ref


def check(case, rng):
    got, ref = run_case(case, rng)
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5 * scale, err_msg=str(case))


# name: (N, C, H, W, O, KH, KW, strides, padding, dilation, output_padding, groups, epilogue)
CASES = {
    "unet_up_2x2_s2": (1, 16, 8, 8, 8, 2, 2, [2, 2], [0, 0, 0, 0], [1, 1], [0, 0], 1, "bias"),
    "3x3_s2_p1_op1": (1, 16, 7, 9, 16, 3, 3, [2, 2], [1, 1], [1, 1], [1, 1], 1, "bias_relu"),
    "3x3_s1_p1_c17": (2, 17, 9, 11, 17, 3, 3, [1, 1], [1], [1, 1], [0, 0], 1, "silu"),
    "4x4_s2_p1_dcgan": (1, 16, 5, 5, 3, 4, 4, [2, 2], [1, 1, 1, 1], [1, 1], [0, 0], 1, "bias"),
    "1x1_s1": (1, 3, 5, 7, 16, 1, 1, [1, 1], [0], [1, 1], [0, 0], 1, ""),
    "1x1_s3_gaps": (2, 3, 4, 5, 16, 1, 1, [3, 3], [0], [1, 1], [2, 1], 1, "bias"),
    "2x2_s3_gaps": (1, 16, 5, 6, 1, 2, 2, [3, 3], [0, 0], [1, 1], [0, 0], 1, "bias_relu"),
    "3x3_s3_op2": (1, 1, 7, 5, 3, 3, 3, [3, 3], [1, 2], [1, 1], [2, 1], 1, ""),
    "3x3_dilation2": (1, 16, 7, 7, 16, 3, 3, [1, 1], [2, 2], [2, 2], [0, 0], 1, "bias"),
    "3x3_s2_dilation2_asym": (2, 3, 9, 7, 17, 3, 3, [2, 2], [2, 1, 0, 3], [2, 2], [1, 0], 1, "bias_residual_relu"),
    "2x3_s_1x2_asym_pad": (1, 16, 6, 9, 16, 2, 3, [1, 2], [0, 1, 1, 2], [1, 1], [0, 1], 1, "silu"),
    "3x2_s_2x1_dil_2x1": (1, 17, 5, 8, 3, 3, 2, [2, 1], [1, 0], [2, 1], [1, 0], 1, "bias"),
    "4x4_s2_dil2_pad3": (1, 16, 6, 6, 16, 4, 4, [2, 2], [3], [2, 2], [1, 1], 1, ""),
    "pad_wider_than_kernel": (1, 3, 9, 9, 3, 2, 2, [2, 2], [3, 2, 4, 5], [1, 1], [0, 0], 1, "bias"),
    "groups2": (2, 16, 7, 9, 32, 3, 3, [2, 2], [1, 1], [1, 1], [1, 1], 2, "bias_relu"),
    "groups2_odd": (1, 6, 5, 5, 10, 4, 4, [2, 2], [1, 1], [1, 1], [0, 0], 2, "bias"),
    "depthwise_3x3_s2": (2, 16, 7, 7, 16, 3, 3, [2, 2], [1, 1], [1, 1], [1, 1], 16, "bias"),
    "depthwise_mult2_4x4": (1, 17, 6, 5, 34, 4, 4, [2, 2], [1, 1], [1, 1], [0, 0], 17, "silu"),
    "depthwise_1ch": (1, 1, 9, 9, 1, 3, 3, [1, 1], [1, 1], [1, 1], [0, 0], 1, "bias_relu"),
    "one_pixel": (1, 16, 1, 1, 16, 3, 3, [2, 2], [0], [1, 1], [0, 0], 1, "bias"),
    "one_row_wide": (1, 3, 1, 31, 16, 3, 3, [1, 2], [0, 1], [1, 1], [0, 1], 1, "bias"),
    "stride_beyond_kernel_and_op": (1, 3, 4, 4, 3, 2, 2, [5, 5], [0], [1, 1], [4, 3], 1, ""),
    # large enough that the GEMM and col2im split across threads
    "parallel_2x2_s2": (1, 64, 16, 16, 32, 2, 2, [2, 2], [0], [1, 1], [0, 0], 1, "bias_relu"),
    "parallel_3x3_s2_batch2": (2, 32, 15, 15, 48, 3, 3, [2, 2], [1], [1, 1], [1, 1], 1, "bias_residual_relu"),
    "parallel_many_groups": (2, 32, 12, 12, 32, 4, 4, [2, 2], [1], [1, 1], [0, 0], 8, "bias"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_conv2d_transpose_matches_numpy(name, isa, threads, rng):
    check(CASES[name], rng)


def random_case(rng):
    groups = int(rng.choice([1, 1, 2, 3]))
    c = groups * int(rng.choice([1, 2, 3, 5, 8, 16]))
    o = groups * int(rng.choice([1, 2, 3, 8, 16]))
    kh, kw, sh, sw = (int(v) for v in rng.integers(1, [5, 5, 4, 4]))
    dh, dw = (int(v) for v in rng.integers(1, 3, 2))
    h, w = (int(v) for v in rng.integers(1, [12, 20]))
    oph, opw = int(rng.integers(0, sh)), int(rng.integers(0, sw))
    # padding that leaves an output of at least one pixel
    full_h, full_w = (h - 1) * sh + dh * (kh - 1) + 1, (w - 1) * sw + dw * (kw - 1) + 1
    top, bottom = (int(v) for v in rng.integers(0, max(1, min(4, full_h // 2)), 2))
    left, right = (int(v) for v in rng.integers(0, max(1, min(4, full_w // 2)), 2))
    epi = str(rng.choice(["", "bias", "bias_relu", "bias_residual_relu", "silu"]))
    return (int(rng.integers(1, 3)), c, h, w, o, kh, kw, [sh, sw], [top, left, bottom, right], [dh, dw],
            [oph, opw], groups, epi)


@pytest.mark.parametrize("seed", range(3))
def test_conv2d_transpose_random_configs(seed, isa, threads):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        check(random_case(rng), rng)


@pytest.mark.parametrize("padding", [1, [1], [1, 2], [0, 1, 2, 1]])
@pytest.mark.parametrize("output_padding", [0, [1], [1, 0]])
def test_matches_the_op_reference_with_relay_attrs(padding, output_padding, rng):
    """The kernel given the attrs the lowering builds from a relay call equals the op's numpy reference."""
    x = rng.standard_normal((2, 6, 5, 7)).astype("float32")
    w = rng.standard_normal((6, 4, 3, 3)).astype("float32")
    call = relay.nn.conv2d_transpose(relay.var("x", shape=x.shape), relay.var("w", shape=w.shape), strides=2,
                                     padding=padding, output_padding=output_padding, groups=2, dilation=[1, 2])
    want = get_reference("nn.conv2d_transpose")(call.attrs, x, w)
    out = tvmlite.nd.empty(want.shape)
    conv2d_transpose(lowering_attrs(call))(tvmlite.nd.array(x), tvmlite.nd.array(w), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


# Cases whose cols (O / groups * KH * KW x H * W floats) exceed the kernel's budget (2^22 floats): the input
# pixels are cut into chunks that add into a zeroed output, the last one applying the epilogue. The chunks start in
# the middle of input rows.
@pytest.mark.parametrize("case", [
    (1, 2, 13, 17, 64, 24, 24, [2, 2], [3, 1, 2, 5], [1, 1], [1, 1], 1, "bias_relu"),  # 2 chunks of 113 pixels
    (1, 1, 3, 25, 1, 648, 648, [1, 1], [1, 0, 2, 3], [1, 1], [0, 0], 1, "bias"),         # chunks of 9 (< W)
])
def test_large_cols_run_in_chunks(case, threads, rng):
    check(case, rng)


def test_empty_tensors():
    """Batch 0: nothing to write; no input channels: the output is the epilogue of zeros."""
    f = conv2d_transpose({"strides": [2, 2], "epilogue": "add r0 r0 in0"})
    bias = tvmlite.nd.array(np.arange(4, dtype="float32").reshape(4, 1, 1))
    out = tvmlite.nd.empty((0, 4, 6, 6))
    f(tvmlite.nd.empty((0, 3, 3, 3)), tvmlite.nd.empty((3, 4, 2, 2)), bias, out)
    out = tvmlite.nd.empty((1, 4, 6, 6))
    f(tvmlite.nd.empty((1, 0, 3, 3)), tvmlite.nd.empty((0, 4, 2, 2)), bias, out)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(bias.numpy(), (1, 4, 6, 6)))


def test_repeated_and_concurrent_calls(rng):
    """One bound kernel called from two Python threads at once with different shapes (each has its own scratch),
    many times: the answers stay those of a single call."""
    expected = same_results_in_threads(run_case, [CASES["3x3_s2_p1_op1"], CASES["parallel_3x3_s2_batch2"]], 10)
    for got, ref in expected:
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------------------------------------------
# bad input


def _args(n=1, c=4, h=5, w=5, o=6, k=3, groups=1, dtype="float32", out_shape=None):
    data = tvmlite.nd.array(np.zeros((n, c, h, w), dtype))
    weight = tvmlite.nd.array(np.zeros((c, o // groups, k, k), "float32"))
    out = tvmlite.nd.empty(out_shape or (n, o, h + k - 1, w + k - 1))
    return data, weight, out


def test_bad_dtype():
    data, weight, out = _args(dtype="float64")
    with pytest.raises(TypeError, match=KERNEL + ".*data.*float32"):
        conv2d_transpose({})(data, weight, out)
    data, weight, _ = _args()
    out = tvmlite.nd.array(np.zeros((1, 6, 7, 7), "int32"))
    with pytest.raises(TypeError, match=KERNEL + ".*out.*float32"):
        conv2d_transpose({})(data, weight, out)


@pytest.mark.parametrize("which, shape, message", [
    ("data", (1, 4, 5), "data must be NCHW"),
    ("weight", (4, 6, 3, 3, 1, 1), "weight must be IOHW"),
    ("out", (6, 7, 7), "out must be NCHW"),
])
def test_bad_rank(which, shape, message):
    args = dict(zip(("data", "weight", "out"), _args()))
    args[which] = tvmlite.nd.empty(shape)
    with pytest.raises(ValueError, match=f"{KERNEL}: {message}"):
        conv2d_transpose({})(args["data"], args["weight"], args["out"])


@pytest.mark.parametrize("groups", [1, 2])
def test_packed_weight_is_read_as_it_is(rng, groups, threads):
    """kernel_layout "IOHW{k}i" (k = C / groups): the weight packed per group at build, (G, O/G, KH, KW, k); the
    same numbers as the plain IOHW weight, which the kernel transposes on every call."""
    from tvmlite.relay.op._layout import transform_array

    x = rng.standard_normal((2, 8, 5, 6)).astype("float32")
    w = rng.standard_normal((8, 3, 3, 2)).astype("float32")
    layout = f"IOHW{8 // groups}i"
    attrs = {"strides": [2, 1], "padding": [1, 0], "groups": groups, "epilogue": "relu r0 r0"}
    outs = []
    for weight, kernel_layout in [(w, "IOHW"), (transform_array(w, "IOHW", layout), layout)]:
        out = tvmlite.nd.empty((2, 3 * groups, 9, 7))
        conv2d_transpose(dict(attrs, kernel_layout=kernel_layout))(tvmlite.nd.array(x), tvmlite.nd.array(weight), out)
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    ref = np.maximum(conv_transpose_ref(x, w, [2, 1], [1, 0], [1, 1], [0, 0], groups), 0)
    np.testing.assert_allclose(outs[1], ref, rtol=1e-4, atol=1e-4)


def test_packed_weight_errors():
    data, _, out = _args()
    packed = tvmlite.nd.empty((1, 6, 3, 3, 4))
    with pytest.raises(ValueError, match=KERNEL + r": weight \(1, 6, 3, 3, 4\) does not match kernel_layout 'IOHW'"):
        conv2d_transpose({"kernel_layout": "IOHW"})(data, packed, out)
    with pytest.raises(ValueError, match=KERNEL + r": weight \(1, 6, 3, 3, 4\) is for 4 input channels in 1 groups, "
                                                  r"data \(1, 4, 5, 5\) has 4 in 2"):
        conv2d_transpose({"groups": 2})(data, packed, out)
    with pytest.raises(NotImplementedError, match=KERNEL + ": kernel_layout 'IOHW4o' is not supported"):
        conv2d_transpose({"kernel_layout": "IOHW4o"})


def test_channel_mismatch():
    data, _, out = _args()
    weight = tvmlite.nd.empty((5, 6, 3, 3))
    with pytest.raises(ValueError, match=KERNEL + r": weight \(5, 6, 3, 3\) is for 5 input channels"):
        conv2d_transpose({})(data, weight, out)


def test_groups_must_divide_the_channels():
    data, weight, out = _args(c=4, o=6)
    with pytest.raises(ValueError, match=KERNEL + ".*not divisible by groups = 3"):
        conv2d_transpose({"groups": 3})(data, weight, out)


def test_wrong_output_shape():
    data, weight, _ = _args()
    with pytest.raises(ValueError, match=KERNEL + ": out"):
        conv2d_transpose({})(data, weight, tvmlite.nd.empty((1, 6, 8, 7)))
    with pytest.raises(ValueError, match=KERNEL + ": out"):  # output_padding makes it larger
        conv2d_transpose({"output_padding": [1, 1]})(data, weight, tvmlite.nd.empty((1, 6, 7, 7)))


def test_output_that_would_be_empty_or_huge():
    data, weight, out = _args()
    with pytest.raises(ValueError, match=KERNEL + ": spatial dim 0 of the output would be -3"):
        conv2d_transpose({"padding": [5, 0]})(data, weight, out)
    with pytest.raises(ValueError, match=KERNEL + ": spatial dim 1 of the output would be too large"):
        conv2d_transpose({"strides": [1, 2 ** 40], "dilation": [1, 2 ** 40]})(data, weight, out)


def test_attrs_checked_against_the_tensors():
    data, weight, out = _args()
    with pytest.raises(ValueError, match=KERNEL + ".*attribute channels = 8"):
        conv2d_transpose({"channels": 8})(data, weight, out)
    with pytest.raises(ValueError, match=KERNEL + r".*3x3 kernel, attribute kernel_size = \(2, 2\)"):
        conv2d_transpose({"kernel_size": [2, 2]})(data, weight, out)


@pytest.mark.parametrize("attrs, kind, message", [
    ({"strides": [0, 1]}, ValueError, r"strides\[0\] = 0 is out of range"),
    ({"strides": [1, 2, 3]}, ValueError, "strides needs 1 or 2 values"),
    ({"padding": [1, 2, 3]}, ValueError, "padding needs 1, 2 or 4 values"),
    ({"padding": [-1]}, ValueError, r"padding\[0\] = -1 is out of range"),
    ({"dilation": [0]}, ValueError, r"dilation\[0\] = 0 is out of range"),
    ({"output_padding": [-1, 0]}, ValueError, r"output_padding\[0\] = -1 is out of range"),
    ({"output_padding": [1, 1, 1]}, ValueError, "output_padding needs 1 or 2 values"),
    ({"groups": 0}, ValueError, "groups must be in"),
    ({"channels": -2}, ValueError, "channels must be >= 0"),
    ({"kernel_size": [1, 2, 3]}, ValueError, "kernel_size needs 1 or 2 values"),
    ({"strides": "2"}, TypeError, "strides"),
    ({"out_dtype": "float16"}, TypeError, "out_dtype must be float32"),
    ({"data_layout": "NHWC"}, NotImplementedError, "data_layout 'NHWC' is not supported"),
    ({"kernel_layout": "OIHW"}, NotImplementedError, "kernel_layout 'OIHW' is not supported"),
    ({"out_layout": "NCHW16c"}, NotImplementedError, "out_layout 'NCHW16c' is not supported"),
    ({"epilogue": "add r0 r0"}, ValueError, ""),
])
def test_bad_attrs(attrs, kind, message):
    with pytest.raises(kind, match=KERNEL + ".*" + message):
        conv2d_transpose(attrs)


def test_bad_arguments():
    data, weight, out = _args()
    with pytest.raises(TypeError, match=KERNEL + ": expected at least 3 tensor arguments"):
        conv2d_transpose({})(data, out)
    with pytest.raises(ValueError, match=KERNEL):  # the epilogue's input does not broadcast to the output
        conv2d_transpose({"epilogue": "add r0 r0 in0"})(data, weight, tvmlite.nd.empty((5,)), out)


# ---------------------------------------------------------------------------------------------------------------
# the cpu target


def _run(lib, feeds):
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.run(**feeds)
    return gm.get_output(0).numpy()


def _kernels(lib):
    return [n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] != "null"]


@pytest.mark.parametrize("bias", ["bias_add", "add"])
def test_build_uses_the_kernel(bias, threads, rng):
    """conv2d_transpose + bias + relu built for the cpu target: one native node, the bias and relu in its epilogue
    (nn.bias_add's bias read as (C, 1, 1) through a view), that matches the debug target."""
    x = relay.var("x", shape=(2, 16, 9, 9))
    w = rng.standard_normal((16, 8, 3, 3)).astype("float32")
    b = rng.standard_normal(8).astype("float32")
    y = relay.nn.conv2d_transpose(x, relay.const(w), strides=2, padding=1, output_padding=1, kernel_size=[3, 3])
    y = relay.nn.bias_add(y, relay.const(b)) if bias == "bias_add" else relay.add(y, relay.const(b.reshape(8, 1, 1)))
    func = relay.Function([x], relay.nn.relu(y))
    lib = tvmlite.build(func, target="cpu")
    nodes = [n for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] != "null"]
    assert [n["attrs"]["func_name"] for n in nodes if n["attrs"]["func_name"] != "__nop"] == [KERNEL]
    assert nodes[-1]["attrs"]["kernel_attrs"]["epilogue"] == "add r1 r0 in0; relu r0 r1"
    feeds = {"x": rng.standard_normal((2, 16, 9, 9)).astype("float32")}
    got, want = _run(lib, feeds), _run(tvmlite.build(func, target="debug"), feeds)
    assert got.shape == (2, 8, 18, 18)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_unet_with_transposed_convs_matches_debug(rng):
    from tvmlite import models

    model = models.unet(image_size=32, base=8, levels=2)
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target="cpu", params=params)
    assert _kernels(lib).count(KERNEL) == 2 and "relay.backend.reference" not in _kernels(lib)
    feeds = {"input": rng.standard_normal((1, 3, 32, 32)).astype("float32")}
    got = _run(lib, feeds)
    want = _run(tvmlite.build(mod, target="debug", params=params), feeds)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
