"""The shape arithmetic exporters emit, natively (csrc/topi/transform/dyn_shape.cc, dyn.strided_slice in
strided_slice.cc, csrc/topi/binary.cc): shape_of, the kernels that make their output from input values (dyn.reshape
as a view, dyn.broadcast_to, dyn.full, arange, dyn.strided_slice), integer arithmetic and comparisons, against the
relay ops' numpy references; their registration; bad values raising errors that name the kernel."""
import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from tvmlite.ir import Op
from tvmlite.relay.op.op import get_reference


def _nd(x):
    return tvmlite.nd.array(np.require(x, requirements="C"))  # (ascontiguousarray makes 0-d arrays 1-d)


def _returning(name, attrs, *inputs):
    """Call a kernel that returns its output ([out]); the output as numpy."""
    (out,) = tvmlite.get_global_func(name)(attrs)(*[_nd(x) for x in inputs])
    return out.numpy()


def _ints(*v, dtype="int64"):
    return np.array(v, dtype)


def test_ops_name_their_kernels():
    for op, kernel in [("shape_of", "topi.shape_of"), ("dyn.reshape", "topi.dyn.reshape"),
                       ("dyn.broadcast_to", "topi.dyn.broadcast_to"), ("dyn.full", "topi.dyn.full"),
                       ("arange", "topi.arange"), ("dyn.strided_slice", "topi.dyn.strided_slice"),
                       ("add", "topi.add"), ("less", "topi.less"), ("logical_and", "topi.logical_and")]:
        assert Op.get(op).get_attr("FTVMLiteKernel") == kernel
    for op in ("dyn.reshape", "dyn.broadcast_to", "dyn.full", "arange", "dyn.strided_slice"):
        assert Op.get(op).get_attr("TVMLiteReturnsOutputs") is True
    assert Op.get("add").get_attr("TVMLiteReturnsOutputs") is None


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("shape", [(), (5,), (2, 0, 3), (1, 2, 3, 4, 5)], ids=str)
def test_shape_of(dtype, shape):
    x = np.zeros(shape, "float16")
    out = tvmlite.nd.empty((len(shape),), dtype)
    tvmlite.get_global_func("topi.shape_of")({"dtype": dtype})(_nd(x), out)
    np.testing.assert_array_equal(out.numpy(), get_reference("shape_of")(SimpleNamespace(dtype=dtype), x))


@pytest.mark.parametrize("newshape,allowzero", [
    ((0, -1), 0), ((-1,), 0), ((3, 2, 4), 0), ((0, 2, 2), 0), ((6, 4, 0), 1), ((2, -1, 2), 0)])
def test_dyn_reshape_is_a_view(newshape, allowzero):
    x = np.arange(24, dtype="float32").reshape(6, 4) if 0 not in newshape or not allowzero else np.zeros((6, 4, 0))
    data = _nd(x)
    (out,) = tvmlite.get_global_func("topi.dyn.reshape")({"allowzero": allowzero})(data, _nd(_ints(*newshape)))
    want = get_reference("dyn.reshape")(SimpleNamespace(allowzero=allowzero), x, _ints(*newshape))
    assert out.shape == want.shape
    np.testing.assert_array_equal(out.numpy(), want)
    assert out.numpy().size == 0 or out.numpy().__array_interface__ is not None  # readable after data goes
    del data
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("newshape,message", [
    ((5, -1), "cannot reshape"), ((-1, -1), "newshape has more than one -1"), ((2, -2), "newshape\\[1\\] is -2"),
    ((0, 0, 0), "newshape\\[2\\] is 0 \\(copy\\) but the input has rank 2")])
def test_dyn_reshape_bad_values(newshape, message):
    with pytest.raises(tvmlite.TVMLiteError, match="topi.dyn.reshape: " + message):
        _returning("topi.dyn.reshape", {}, np.zeros((6, 4), "float32"), _ints(*newshape))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8"])
@pytest.mark.parametrize("shape,target", [((3, 1), (2, 3, 4)), ((4,), (3, 1)), ((1, 1), (0, 5)), ((2, 3), ())],
                         ids=str)
def test_dyn_broadcast_to_both_ways(dtype, shape, target):
    x = (np.arange(int(np.prod(shape))) % 3).reshape(shape).astype(dtype)
    got = _returning("topi.dyn.broadcast_to", {}, x, _ints(*target))
    want = get_reference("dyn.broadcast_to")(None, x, _ints(*target))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_dyn_broadcast_to_refuses_what_does_not_broadcast():
    with pytest.raises(tvmlite.TVMLiteError, match="does not broadcast"):
        _returning("topi.dyn.broadcast_to", {}, np.zeros((3,), "float32"), _ints(4))


@pytest.mark.parametrize("value,dtype", [(np.float32(1.5), ""), (np.int64(-3), "float32"),
                                         (np.float32(2.7), "int64"), (np.int64(0), "bool"), (np.float64(1), "")])
def test_dyn_full(value, dtype):
    got = _returning("topi.dyn.full", {"dtype": dtype} if dtype else {}, np.asarray(value), _ints(2, 3))
    want = get_reference("dyn.full")(SimpleNamespace(dtype=dtype or "void"), np.asarray(value), _ints(2, 3))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("start,stop,step", [(0, 7, 1), (7, 0, -2), (3, 3, 1), (-5, 20, 4),
                                             (0.5, 3.0, 0.5), (1.0, -1.0, -0.3)])
def test_arange(start, stop, step):
    dtype = "int64" if isinstance(start, int) else "float32"
    args = [np.asarray(v, dtype) for v in (start, stop, step)]
    got = _returning("topi.arange", {}, *args)
    want = get_reference("arange")(SimpleNamespace(dtype="void"), *args)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_arange_step_zero_and_huge_lengths_are_errors():
    z, one = np.asarray(0, "int64"), np.asarray(1, "int64")
    with pytest.raises(tvmlite.TVMLiteError, match="topi.arange: step is 0"):
        _returning("topi.arange", {}, z, one, z)
    with pytest.raises(tvmlite.TVMLiteError, match="too large"):
        _returning("topi.arange", {}, z, np.asarray(2 ** 62, "int64"), one)


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8"])
@pytest.mark.parametrize("begin,end,strides,axes", [
    ((1,), (2 ** 62,), (1,), (1,)), ((0, -1), (3, -4), (1, -1), (0, 2)), ((5,), (-9,), (-2,), (-1,)),
    ((0,), (0,), (1,), (0,))])
def test_dyn_strided_slice(dtype, begin, end, strides, axes):
    x = np.arange(4 * 5 * 6).reshape(4, 5, 6).astype(dtype)
    args = [_ints(*v) for v in (begin, end, strides, axes)]
    got = _returning("topi.dyn.strided_slice", {}, x, *args)
    np.testing.assert_array_equal(got, get_reference("dyn.strided_slice")(None, x, *args))


def test_dyn_strided_slice_bad_bounds():
    x = np.zeros((4, 5), "float32")
    with pytest.raises(tvmlite.TVMLiteError, match="step 0"):
        _returning("topi.dyn.strided_slice", {}, x, _ints(0), _ints(2), _ints(0), _ints(0))
    with pytest.raises(tvmlite.TVMLiteError, match="sliced twice"):
        _returning("topi.dyn.strided_slice", {}, x, _ints(0, 0), _ints(1, 1), _ints(1, 1), _ints(0, -2))
    with pytest.raises(tvmlite.TVMLiteError, match="int32 or int64"):
        _returning("topi.dyn.strided_slice", {}, x, np.zeros(1, "float32"), _ints(1), _ints(1), _ints(0))


ARITH = ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod", "maximum", "minimum"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


def _binary(op, a, b, out_dtype, out_shape=None):
    out = tvmlite.nd.empty(out_shape or np.broadcast_shapes(a.shape, b.shape), out_dtype)
    tvmlite.get_global_func(f"topi.{op}")({})(_nd(a), _nd(b), out)
    return out.numpy()


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("op", ARITH)
def test_integer_arithmetic_as_the_reference(op, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(-50, 50, (3, 1, 5)).astype(dtype)
    b = rng.integers(-7, 7, (4, 1)).astype(dtype)
    b[b == 0] = 3
    got = _binary(op, a, b, dtype)
    np.testing.assert_array_equal(got, get_reference(op)(None, a, b))


@pytest.mark.parametrize("op", ["divide", "floor_divide", "mod", "floor_mod"])
def test_integer_division_by_zero_is_an_error(op):
    with pytest.raises(tvmlite.TVMLiteError, match=f"topi.{op}: integer division by zero"):
        _binary(op, _ints(4, 5), _ints(1, 0), "int64")


def test_integer_overflow_wraps_as_numpy():
    big = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], "int64")
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(_binary("add", big, _ints(1, -1), "int64"), big + _ints(1, -1))
    np.testing.assert_array_equal(_binary("divide", big[1:], _ints(-1), "int64"), big[1:])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("op", COMPARE)
def test_comparisons_give_bool(op, dtype):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, (2, 3, 1)).astype(dtype)
    b = rng.integers(0, 3, (4,)).astype(dtype)
    np.testing.assert_array_equal(_binary(op, a, b, "bool"), get_reference(op)(None, a, b))


@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
def test_logical(op):
    a, b = np.array([[True], [False]]), np.array([True, False, True])
    np.testing.assert_array_equal(_binary(op, a, b, "bool"), get_reference(op)(None, a, b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ARITH)
def test_float_arithmetic_as_the_reference(op, dtype):
    """Ops without an epilogue instruction (floor_mod, mod, floor_divide) on floats, signed zeros and NaN included."""
    a = np.array([[-7.5], [7.5], [0.0], [-0.0], [np.nan], [5.0]], dtype)
    b = np.array([2.0, -2.0, 0.5, -3.0], dtype)
    with np.errstate(all="ignore"):
        want = get_reference(op)(None, a, b)
    np.testing.assert_array_equal(_binary(op, a, b, dtype), want)


def test_binary_kernels_refuse_other_dtypes():
    with pytest.raises(tvmlite.TVMLiteError, match="topi.add: dtype bool is not supported"):
        _binary("add", np.zeros(2, "bool"), np.zeros(2, "bool"), "bool")
    with pytest.raises(tvmlite.TVMLiteError, match="dtypes differ"):
        _binary("less", np.zeros(2, "float32"), np.zeros(2, "int64"), "bool")
    with pytest.raises(tvmlite.TVMLiteError, match="do not broadcast"):
        _binary("add", _ints(1, 2), _ints(1, 2, 3), "int64", out_shape=(3,))


def test_shape_arithmetic_graph_runs_natively():
    """Shape -> Gather -> arithmetic -> Concat -> Reshape, Range, Expand and a causal Less mask over symbolic dims:
    one build, no reference node, right at every shape."""
    from tvmlite import relay

    b, s = tvmlite.ir.SizeVar("b"), tvmlite.ir.SizeVar("s")
    x = relay.var("x", shape=(b, s, 8))
    shape = relay.shape_of(x)
    seq = relay.take(shape, relay.const(np.int64(1)), axis=0)
    half = relay.floor_divide(relay.take(shape, relay.const(np.int64(2)), axis=0), relay.const(np.int64(2)))
    new = relay.concatenate([relay.take(shape, relay.const(np.array([0, 1], "int64")), axis=0),
                             relay.reshape(half, [1]), relay.const(np.array([2], "int64"))], 0)
    y = relay.reshape(x, new)
    pos = relay.arange(relay.const(np.int64(0)), seq, relay.const(np.int64(1)))
    mask = relay.less(relay.expand_dims(pos, 1), relay.expand_dims(pos, 0))
    wide = relay.broadcast_to(relay.cast(mask, "float32"), relay.concatenate(
        [relay.take(shape, relay.const(np.array([0], "int64")), axis=0), relay.reshape(seq, [1]),
         relay.reshape(seq, [1])], 0))
    func = relay.Function([x], relay.Tuple([y, wide]))
    lib = tvmlite.build(func, target="cpu")
    assert lib.fallbacks() == []
    gm = tvmlite.runtime.GraphModule(lib["default"]())
    for bs, ss in itertools.product((1, 3), (1, 5)):
        v = np.random.default_rng(bs * 10 + ss).standard_normal((bs, ss, 8)).astype("float32")
        gm.set_input("x", v)
        gm.run()
        got = [gm.get_output(i).numpy() for i in range(2)]
        np.testing.assert_array_equal(got[0], v.reshape(bs, ss, 4, 2))
        np.testing.assert_array_equal(got[1], np.broadcast_to(np.triu(np.ones((ss, ss), "float32"), 1),
                                                              (bs, ss, ss)))


@pytest.mark.parametrize("op,dtype", [("abs", "int64"), ("abs", "int32"), ("negative", "int64"), ("sign", "int32"),
                                      ("abs", "float64"), ("negative", "float64"), ("sign", "float64")])
def test_unary_arithmetic_as_the_reference(op, dtype):
    x = np.array([[-7, 0, 3], [np.iinfo(np.int32).min + 1, 5, -1]]).astype(dtype)
    out = tvmlite.nd.empty(x.shape, dtype)
    tvmlite.get_global_func(f"topi.{op}")({})(_nd(x), out)
    np.testing.assert_array_equal(out.numpy(), get_reference(op)(None, x))


@pytest.mark.parametrize("op,dtype", [("isnan", "float32"), ("isinf", "float32"), ("isnan", "float64"),
                                      ("logical_not", "bool")])
def test_predicates_give_bool(op, dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, 1.5]).astype(dtype) if dtype != "bool" else np.array([True, False])
    out = tvmlite.nd.empty(x.shape, "bool")
    tvmlite.get_global_func(f"topi.{op}")({})(_nd(x), out)
    np.testing.assert_array_equal(out.numpy(), get_reference(op)(None, x))


def test_unary_kernels_refuse_other_dtypes():
    out = tvmlite.nd.empty((2,), "int8")
    with pytest.raises(tvmlite.TVMLiteError, match="topi.abs: dtype int8 is not supported"):
        tvmlite.get_global_func("topi.abs")({})(_nd(np.zeros(2, "int8")), out)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
def test_static_broadcast_to(dtype):
    x = (np.arange(3) % 2).reshape(3, 1).astype(dtype)
    out = tvmlite.nd.empty((2, 3, 4), dtype)
    tvmlite.get_global_func("topi.broadcast_to")({"shape": [2, 3, 4]})(_nd(x), out)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(x, (2, 3, 4)))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
@pytest.mark.parametrize("axis,exclusive,reverse", [(1, 0, 0), (-1, 1, 0), (0, 0, 1), (None, 1, 1)])
def test_scans_as_the_reference(op, dtype, axis, exclusive, reverse):
    x = (np.random.default_rng(0).integers(-3, 4, (3, 5, 2))).astype(dtype)
    attrs = {"exclusive": exclusive, "reverse": reverse}
    if axis is not None:
        attrs["axis"] = axis
    want = get_reference(op)(SimpleNamespace(axis=axis, dtype=tvmlite.runtime.DataType("void"), exclusive=exclusive,
                                             reverse=reverse), x)
    out = tvmlite.nd.empty(want.shape, dtype)
    tvmlite.get_global_func(f"topi.{op}")(attrs)(_nd(x), out)
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("shape,reps", [((2, 3), (2, 1)), ((2, 3), (1, 3, 2)), ((3,), (2, 2)), ((2, 0), (3, 1)),
                                        ((1, 2, 1), (2, 1, 4))], ids=str)
def test_tile(dtype, shape, reps):
    x = (np.arange(int(np.prod(shape))) % 5).reshape(shape).astype(dtype)
    want = np.tile(x, reps)
    np.testing.assert_array_equal(_returning("topi.dyn.tile", {}, x, _ints(*reps)), want)
    out = tvmlite.nd.empty(want.shape, dtype)
    tvmlite.get_global_func("topi.tile")({"reps": list(reps)})(_nd(x), out)
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("shape,idx", [((4, 5), [[1], [-1]]), ((4, 5), [[0, 2], [3, -5]]), ((2, 3, 4), [[[1, 2]]])],
                         ids=str)
def test_scatter_nd(dtype, shape, idx):
    x = (np.arange(int(np.prod(shape))) % 7).reshape(shape).astype(dtype)
    idx = np.asarray(idx, "int64")
    upd = (np.arange(int(np.prod(idx.shape[:-1] + shape[idx.shape[-1]:]))) % 3 + 10).reshape(
        idx.shape[:-1] + shape[idx.shape[-1]:]).astype(dtype)
    out = tvmlite.nd.empty(shape, dtype)
    tvmlite.get_global_func("topi.scatter_nd")({"mode": "update"})(_nd(x), _nd(idx), _nd(upd), out)
    np.testing.assert_array_equal(out.numpy(), get_reference("scatter_nd")(SimpleNamespace(mode="update"), x, idx, upd))


def test_scatter_nd_bad_index_and_reductions():
    with pytest.raises(tvmlite.TVMLiteError, match="index 4 is out of range for a dim of 4"):
        out = tvmlite.nd.empty((4,), "float32")
        tvmlite.get_global_func("topi.scatter_nd")({})(_nd(np.zeros(4, "float32")), _nd(_ints(4).reshape(1, 1)),
                                                        _nd(np.ones(1, "float32")), out)
    with pytest.raises(tvmlite.TVMLiteError, match="only mode 'update' runs natively"):
        tvmlite.get_global_func("topi.scatter_nd")({"mode": "add"})


@pytest.mark.parametrize("pads,axes,mode", [((1, 2, 0, 3), (0, 1), "constant"), ((-1, 1), (1,), "constant"),
                                            ((2, 2), (-1,), "reflect"), ((1, 0, 0, 1), (1, 0), "edge")])
def test_dyn_pad(pads, axes, mode):
    x = np.arange(12, dtype="float32").reshape(3, 4)
    value = np.asarray(-1.0, "float32")
    got = _returning("topi.dyn.nn.pad", {"pad_mode": mode}, x, _ints(*pads), value, _ints(*axes))
    want = get_reference("dyn.nn.pad")(SimpleNamespace(pad_mode=mode), x, _ints(*pads), value, _ints(*axes))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kernel,second", [("topi.dyn.tile", "reps"), ("topi.dyn.broadcast_to", "shape")])
def test_scalar_data_with_empty_shape_or_reps(kernel, second):
    """A 0-d input with an empty reps / shape is itself (numpy), not an out-of-bounds read."""
    x = np.asarray(3.5, "float32")
    got = _returning(kernel, {}, x, np.zeros(0, "int64"))
    assert got.shape == () and got == x
