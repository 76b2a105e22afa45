"""The epilogue interpreter (csrc/topi/epilogue.cc and its AVX2 / AVX-512 loops), reached through topi.elemwise.

Every op is checked against a float64 numpy reference on every ISA path, with the special values numpy gives
(exp overflow is inf, log(0) is -inf, ...), then the parts around the loops: broadcasting of each rank pattern,
registers, immediates, parse errors, run-time argument errors, the canonical text, and Apply on ranges that start
anywhere in a row (what a fused anchor hands the epilogue).
"""
import math

import numpy as np
import pytest

import tvmlite

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _func(name):
    return tvmlite.get_global_func(name)


def elemwise(program, *inputs, shape=None):
    """Run topi.elemwise on numpy inputs; the output has the first input's shape unless given."""
    shape = inputs[0].shape if shape is None else shape
    out = tvmlite.nd.empty(shape, "float32")
    _func("topi.elemwise")({"epilogue": program})(*[tvmlite.nd.array(x) for x in inputs], out)
    return out.numpy()


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _softplus(x):
    return np.where(x > 20, x, np.logaddexp(0.0, x))


def _clip01(x):
    return np.clip(x, 0.0, 1.0)


# op -> (reference on float64, extra text after the operands, domain); binary ops take two inputs.
UNARY = {
    "copy": (lambda x: x, "", None),
    "relu": (lambda x: np.maximum(x, 0), "", None),
    "clip": (lambda x: np.clip(x, -0.5, 1.5), "-0.5 1.5", None),
    "sigmoid": (_sigmoid, "", None),
    "tanh": (np.tanh, "", None),
    "exp": (np.exp, "", None),
    "log": (np.log, "", "positive"),
    "sqrt": (np.sqrt, "", "positive"),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), "", "positive"),
    "neg": (np.negative, "", None),
    "abs": (np.abs, "", None),
    "erf": (_erf, "", None),
    "gelu": (lambda x: 0.5 * x * _erfc(-x / np.sqrt(2.0)), "", None),
    "gelu_tanh": (lambda x: 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3))), "", None),
    "silu": (lambda x: x * _sigmoid(x), "", None),
    "leaky_relu": (lambda x: np.where(x < 0, 0.1 * x, x), "0.1", None),
    "elu": (lambda x: np.where(x < 0, 0.7 * np.expm1(x), x), "0.7", None),
    "selu": (lambda x: 1.0507 * np.where(x <= 0, 1.6733 * np.expm1(x), x), "1.6733 1.0507", None),
    "hard_sigmoid": (lambda x: _clip01(0.2 * x + 0.5), "0.2 0.5", None),
    "hard_swish": (lambda x: x * _clip01(x / 6 + 0.5), "", None),
    "softplus": (_softplus, "", None),
    "floor": (np.floor, "", None),
    "ceil": (np.ceil, "", None),
    "round": (np.round, "", None),
    "reciprocal": (lambda x: 1.0 / x, "", "nonzero"),
    "sign": (np.sign, "", None),
    "mish": (lambda x: x * np.tanh(_softplus(x)), "", None),
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
    "min": np.minimum, "pow": np.power, "prelu": lambda x, a: np.where(x < 0, x * a, x),
}


def _data(rng, n, domain):
    x = np.concatenate([rng.standard_normal(n) * 3, rng.uniform(-30, 30, n // 4), [0.5, -0.5, 1.5, 2.5, -2.5]])
    if domain == "positive":
        x = np.abs(x) + 1e-3
    if domain == "nonzero":
        x = np.where(np.abs(x) < 1e-3, 1.0, x)
    return x.astype("float32")


def _close(got, ref, rtol=1e-5, atol=1e-6):
    with np.errstate(over="ignore"):
        ref = ref.astype("float32")
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_op(op, isa, rng):
    ref, extra, domain = UNARY[op]
    x = _data(rng, 997, domain)  # 997: not a multiple of any vector width, so the tail loop runs
    got = elemwise(f"copy r0 in0; {op} r0 r0 {extra}", x)
    with np.errstate(all="ignore"):
        want = ref(x.astype("float64"))
    _close(got, want)


ULP_BOUNDS = {"exp": 2, "log": 2, "tanh": 3, "sigmoid": 3, "erf": 3, "softplus": 4, "elu": 3}


@pytest.mark.parametrize("op", sorted(ULP_BOUNDS))
def test_ulp_bounds(op, isa, rng):
    """A few ulp against float64 over a dense sweep (normal results; the special values are tested below)."""
    n = 40000
    if op == "log":
        x = np.exp(rng.uniform(-87, 88, n))
    elif op == "erf":
        x = rng.uniform(-5, 5, n)
    else:
        x = np.concatenate([rng.uniform(-88, 88, n // 2), rng.standard_normal(n // 2) * 3])
    x = x.astype("float32")
    got = elemwise(f"copy r0 in0; {op} r0 r0" + (" 1" if op == "elu" else ""), x)
    with np.errstate(all="ignore"):
        ref = UNARY[op][0](x.astype("float64")) if op != "elu" else np.where(x < 0, np.expm1(x.astype("float64")), x)
    r32 = ref.astype("float32")
    ok = np.isfinite(r32) & (np.abs(r32) >= np.finfo("float32").tiny)
    ulps = np.abs(got[ok] - ref[ok]) / np.spacing(np.abs(r32[ok]))
    assert ulps.max() <= ULP_BOUNDS[op], (op, ulps.max(), x[ok][np.argmax(ulps)])


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_op(op, isa, rng):
    x = _data(rng, 501, None)
    y = _data(rng, 501, "positive" if op in ("pow", "div") else None)
    if op == "pow":
        x = np.abs(x) % 4 + 0.1  # pow of a negative base is NaN unless y is integral: tested below
    got = elemwise(f"copy r0 in0; {op} r0 r0 in1", x, y)
    with np.errstate(all="ignore"):
        want = BINARY[op](x.astype("float64"), y.astype("float64"))
    _close(got, want, rtol=2e-5)


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-45, 1e-40, 88.7, 88.73, 89.0, 100.0,
                     -87.5, -100.0, -103.0, -104.0, -200.0, 1e30, -1e30, 3.4e38, -3.4e38, 20.5, -20.5, 9.1, -9.1],
                    dtype="float32")


@pytest.mark.parametrize("op", ["exp", "log", "tanh", "sigmoid", "erf", "softplus", "sqrt", "elu"])
def test_special_values_like_numpy(op, isa):
    """Every path gives numpy's float32 answer on inf, nan, -inf, zeros, denormals and overflowing inputs."""
    x = SPECIALS
    got = elemwise(f"copy r0 in0; {op} r0 r0" + (" 1" if op == "elu" else ""), x)
    with np.errstate(all="ignore"):
        if op == "sigmoid":
            want = _sigmoid(x.astype("float64"))  # float64: the denormal tail is right (float32 1/(1+inf) is 0)
        elif op == "erf":
            want = _erf(x.astype("float64"))
        elif op == "elu":
            want = np.where(x < 0, np.expm1(x.astype("float64")), x)
        else:
            want = UNARY[op][0](x.astype("float64"))
    _close(got, want, atol=0)
    # The contract in words, so a reference slip cannot hide it.
    def named(v):
        v = np.float32(v)
        where = np.isnan(x) if np.isnan(v) else (x == v) & (np.signbit(x) == np.signbit(v))
        return got[np.flatnonzero(where)[0]]

    if op == "exp":
        assert named(100.0) == np.inf and named(-200.0) == 0.0 and named(-np.inf) == 0.0
        assert 0 < named(-100.0) < 1e-43  # a denormal, as numpy
    if op == "log":
        assert named(0.0) == -np.inf and named(-0.0) == -np.inf and np.isnan(named(-1e-30))
        assert named(np.inf) == np.inf and np.isclose(named(1e-45), np.log(np.float32(1e-45)), rtol=1e-5)
    if op == "sigmoid":
        assert named(-np.inf) == 0.0 and named(np.inf) == 1.0
        assert 0 < named(-100.0) < 1e-43  # e^-100, a denormal: computed as e / (1 + e), e = exp(-|x|)
    if op == "tanh":
        assert named(9.1) == 1.0 and named(-9.1) == -1.0 and named(-np.inf) == -1.0
    assert np.isnan(named(np.nan))


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_propagate_nan(op, isa):
    x = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0] * 4, dtype="float32")
    y = np.array([1.0, np.nan, np.nan, 0.0, -2.0] * 4, dtype="float32")
    got = elemwise(f"copy r0 in0; {op} r0 r0 in1", x, y)
    _close(got, getattr(np, op + "imum")(x, y), atol=0)


def test_relu_clip_sign_keep_nan(isa):
    x = np.array([np.nan, -1.0, 2.0, -0.0] * 5, dtype="float32")
    for prog, ref in [("relu r0 r0", np.maximum(x, 0)), ("clip r0 r0 -0.5 0.5", np.clip(x, -0.5, 0.5)),
                      ("sign r0 r0", np.sign(x)), ("hard_sigmoid r0 r0 0.2 0.5", _clip01(0.2 * x + 0.5))]:
        _close(elemwise("copy r0 in0; " + prog, x), ref, atol=0)


def test_pow_negative_base(isa):
    x = np.array([-2.0, -2.0, -8.0, 0.0, 2.0] * 3, dtype="float32")
    y = np.array([2.0, 3.0, 1.0 / 3.0, 0.0, -1.0] * 3, dtype="float32")
    with np.errstate(all="ignore"):
        _close(elemwise("copy r0 in0; pow r0 r0 in1", x, y), np.power(x, y), atol=0)


# Broadcasting: (out shape, input shape) for each rank pattern the fused groups produce.
BROADCASTS = [
    ((2, 32, 5, 7), (1,)),                  # a scalar
    ((2, 32, 5, 7), ()),                    # rank 0
    ((2, 32, 5, 7), (32, 1, 1)),            # per channel
    ((2, 2, 5, 7, 16), (1, 2, 1, 1, 16)),   # blocked per channel: NCHW16c bias
    ((2, 32, 5, 7), (2, 32, 5, 7)),         # full shape
    ((2, 32, 5, 7), (32, 5, 7)),            # leading-dim broadcast
    ((2, 32, 5, 7), (2, 1, 5, 1)),          # interleaved
    ((3, 1, 300), (300,)),                  # a row longer than a tile
    ((1000,), (1000,)),
    ((4, 1), (1, 1)),
]


@pytest.mark.parametrize("out_shape,in_shape", BROADCASTS, ids=str)
def test_broadcast_patterns(out_shape, in_shape, isa, threads, rng):
    x = rng.standard_normal(out_shape).astype("float32")
    b = rng.standard_normal(in_shape).astype("float32")
    got = elemwise("copy r0 in0; mul r1 in1 2; add r0 r0 r1; sub r0 r0 in1; relu r0 r0", x, b)
    _close(got, np.maximum(x + b, 0))


def test_many_registers_and_inputs(isa, rng):
    shape = (3, 17, 19)
    ins = [rng.standard_normal(s).astype("float32") for s in [shape, (17, 1), (1,), (19,), shape, (3, 1, 1)]]
    prog = ("copy r0 in0; copy r1 in1; copy r2 in2; copy r3 in3; copy r4 in4; copy r5 in5; mul r6 r1 r2; "
            "add r7 r3 r4; sub r6 r6 r7; mul r6 r6 r5; add r0 r0 r6; max r0 r0 -1.5; min r0 r0 1.5")
    got = elemwise(prog, *ins)
    a, b, c, d, e, f = [x.astype("float64") for x in ins]
    _close(got, np.clip(a + (b * c - (d + e)) * f, -1.5, 1.5))


def test_immediates_as_either_operand(isa, rng):
    x = (rng.standard_normal((5, 41)) + 3).astype("float32")
    got = elemwise("copy r0 in0; sub r1 1 r0; div r2 2.5e-1 r0; mul r0 r1 r2; add r0 r0 -3", x)
    _close(got, (1 - x.astype("float64")) * (0.25 / x) - 3)


def test_program_many_immediates_and_broadcasts(isa, rng):
    """More value-per-tile sources than splat buffers: the rest are splatted per instruction."""
    x = rng.standard_normal((4, 8, 33)).astype("float32")
    bs = [rng.standard_normal((8, 1)).astype("float32") for _ in range(6)]
    prog = "copy r0 in0; " + "; ".join(f"add r0 r0 in{k + 1}; mul r0 r0 {1 + k / 8}" for k in range(6))
    want = x.astype("float64")
    for k, b in enumerate(bs):
        want = (want + b) * (1 + k / 8)
    _close(elemwise(prog, x, *bs), want, rtol=2e-5)


@pytest.mark.parametrize("chunk", [1, 7, 15, 16, 17, 100, 255, 257, 10000])
@pytest.mark.parametrize("shape,in_shape", [
    ((6, 5, 37), (6, 1, 1)), ((6, 5, 37), (1, 1, 37)), ((6, 5, 37), (6, 5, 37)), ((6, 5, 37), (5, 1)),
    ((6, 5, 300), (5, 1)), ((6, 5, 300), (300,)),
    ((2, 3, 7, 5, 16), (1, 3, 1, 1, 16)),   # blocked bias: 16-value rows, tiles across rows
    ((2, 3, 7, 5, 16), (2, 3, 7, 5, 1)),    # one value per pixel, repeated over the block
    ((2, 3, 7, 5, 16), (3, 7, 1, 16)),
    ((2, 3, 100, 5), (1, 3, 1, 5)),         # rows alike, 5 not dividing a tile: tiles start at other columns
], ids=str)
def test_apply_on_ranges(chunk, shape, in_shape, isa, rng):
    """Apply on [begin, begin + n) for any begin: tiles that start and end mid-row."""
    x = rng.standard_normal(shape).astype("float32")
    b = rng.standard_normal(in_shape).astype("float32")
    out = tvmlite.nd.array(x)
    _func("testing.epilogue_apply_ranges")("add r0 r0 in0; mul r1 in0 0.5; sub r0 r0 r1; tanh r0 r0",
                                                 chunk, tvmlite.nd.array(b), out)
    _close(out.numpy(), np.tanh(x + b * 0.5))


@pytest.mark.parametrize("count", [3, 8, 9, 12])
def test_blocked_many_broadcast_inputs(count, isa, rng):
    """Short rows with more inputs to gather than buffers: the tiles fall back to one row each; same result."""
    shape = (2, 3, 5, 4, 16)
    x = rng.standard_normal(shape).astype("float32")
    shapes = [(1, 3, 1, 1, 16), (2, 3, 5, 4, 1), (3, 5, 1, 16)]
    bs = [rng.standard_normal(shapes[k % 3]).astype("float32") for k in range(count)]
    prog = "copy r0 in0; " + "; ".join(f"mul r1 in{k + 1} {k + 1}; add r0 r0 r1" for k in range(count))
    want = x.astype("float64") + sum((k + 1) * b.astype("float64") for k, b in enumerate(bs))
    _close(elemwise(prog, x, *bs), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("chunk", [18, 33, 97, 256, 768, 10000])
@pytest.mark.parametrize("out_shape,scale_shape", [((3, 100, 8), (1, 1, 8)), ((2, 4, 70, 16), (1, 4, 1, 16))],
                         ids=str)
def test_rows_alike_reused_across_tiles(chunk, out_shape, scale_shape, isa, rng):
    """A blocked per-channel scale (every row alike) is gathered once per outer index and reused by the next tiles;
    a longer tile after a short one at the same column (an Apply ending or an outer index ending mid-tile; the
    per-image shift keeps the outer dims apart) refills it (chunks of 18, 33, 97 read stale values otherwise)."""
    x = rng.standard_normal(out_shape).astype("float32")
    scale = rng.standard_normal(scale_shape).astype("float32")
    shift = rng.standard_normal((out_shape[0],) + (1,) * (len(out_shape) - 1)).astype("float32")
    out = tvmlite.nd.array(x)
    _func("testing.epilogue_apply_ranges")("mul r0 r0 in0; add r0 r0 in1", chunk, tvmlite.nd.array(scale),
                                           tvmlite.nd.array(shift), out)
    _close(out.numpy(), x.astype("float64") * scale + shift)


def test_big_parallel(isa, threads, rng):
    x = rng.standard_normal(1 << 18).astype("float32")
    y = rng.standard_normal(1 << 18).astype("float32")
    _close(elemwise("copy r0 in0; add r0 r0 in1; gelu r0 r0", x, y),
           UNARY["gelu"][0](x.astype("float64") + y))


@pytest.mark.parametrize("text", [
    "copy r0 in0; add r0 r0 in1; relu r0 r0",
    "  copy   r0 in0 ;;  clip r0 r0 -1 6 ; ",
    "copy r0 in0; leaky_relu r0 r0 0.1; selu r1 r0 1.67326 1.0507; add r0 r0 r1",
    "copy r0 in12; hard_sigmoid r0 r0 0.2 0.5; mul r0 r0 1e-3",
    "copy r0 in0; clip r0 r0 0 6",
    "copy r0 in0; elu r0 r0 0 1",
    "",
])
def test_canonical_round_trip(text):
    canon = _func("topi.epilogue_canonical")
    once = canon(text)
    assert canon(once) == once
    assert ";;" not in once and "  " not in once
    if text:
        assert once.split("; ")[0].split()[0] == "copy"


def test_canonical_text_exact():
    canon = _func("topi.epilogue_canonical")
    assert canon(" copy r0  in0;clip r0 r0 -1 6.5 ") == "copy r0 in0; clip r0 r0 -1 6.5"
    assert canon("copy r0 in0; add r0 r0 0.1") == "copy r0 in0; add r0 r0 0.100000001"


@pytest.mark.parametrize("text,why", [
    ("copy r0 in0; frobnicate r0 r0", "unknown op 'frobnicate'"),
    ("copy r8 in0", "the destination must be a register r0..r7"),
    ("copy r0 r8", "'r8' is not a register, an input or a number"),
    ("add r0 r0", "expected: add dst src0 src1"),
    ("relu r0", "expected: relu dst src"),
    ("relu r0 r0 1 2 3", "expected: relu dst src"),
    ("add r0 r0 1.5x", "'1.5x' is not a register, an input or a number"),
    ("clip r0 r0 0 six", "'six' is not a number"),
    ("copy r0 inx", "'inx' is not a register"),
    ("copy 3 in0", "the destination must be a register"),
])
def test_parse_errors(text, why):
    with pytest.raises(ValueError, match="topi.elemwise: bad epilogue instruction") as e:
        _func("topi.elemwise")({"epilogue": text})
    assert why in str(e.value)


def test_too_many_inputs():
    with pytest.raises(ValueError, match="topi.elemwise: bad epilogue instruction 'copy r0 in64': an epilogue "
                                         "reads at most 64 extra inputs"):
        _func("topi.elemwise")({"epilogue": "copy r0 in64"})
    x = np.zeros(3, "float32")
    np.testing.assert_array_equal(elemwise("copy r0 in63", *([x] * 64)), x)  # in63 is the last one


def test_empty_program_is_an_error():
    with pytest.raises(ValueError, match="topi.elemwise: the epilogue program is empty"):
        _func("topi.elemwise")({"epilogue": " ; "})
    with pytest.raises(ValueError, match="topi.elemwise: missing attribute 'epilogue'"):
        _func("topi.elemwise")({})


def test_run_errors():
    f = _func("topi.elemwise")({"epilogue": "copy r0 in0; add r0 r0 in1"})
    x = tvmlite.nd.array(np.zeros((2, 3), "float32"))
    out = tvmlite.nd.empty((2, 3), "float32")
    with pytest.raises(TypeError, match="topi.elemwise: expected at least 3 tensor arguments"):
        f(x, out)
    with pytest.raises(TypeError, match="topi.elemwise: epilogue input 1 must be float32"):
        f(x, tvmlite.nd.array(np.zeros((2, 3), "int32")), out)
    with pytest.raises(TypeError, match="topi.elemwise: out must be float32"):
        f(x, x, tvmlite.nd.empty((2, 3), "int32"))
    with pytest.raises(ValueError, match=r"topi.elemwise: epilogue input 1 of shape \(4,\) does not broadcast"):
        f(x, tvmlite.nd.array(np.zeros(4, "float32")), out)
    with pytest.raises(ValueError, match="does not broadcast"):
        f(x, tvmlite.nd.array(np.zeros((1, 2, 3), "float32")), out)
    with pytest.raises(TypeError, match="must be an NDArray"):
        f(x, 3, out)
    # The kernel still works after the errors.
    f(x, tvmlite.nd.array(np.ones(3, "float32")), out)
    np.testing.assert_array_equal(out.numpy(), np.ones((2, 3)))


def test_apply_ranges_errors():
    f = _func("testing.epilogue_apply_ranges")
    out = tvmlite.nd.empty((4,), "float32")
    with pytest.raises(ValueError, match="chunk must be >= 1"):
        f("relu r0 r0", 0, out)
    with pytest.raises(TypeError, match="extra inputs, got 0"):
        f("add r0 r0 in0", 3, out)
