"""Kernels declare what they accept (tvmlite/topi/kernel_accepts.h): every "<kernel>.accepts" agrees with its bound
kernel over a grid of dtypes; the lowering asks it (nothing runs at build) and carries its reason; bad arguments to
it are errors naming the function.
"""
import itertools

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.ir import register_op_attr
from tvmlite.runtime import register_kernel_factory

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]

_B, _C, _L = ("float32", "int64", "int32", "int64"), ("int64", "int64", "bool"), ("bool", "bool", "bool")
_ARITH = ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod", "maximum", "minimum"]
_COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


def _t(shape, dtype, value=None):
    """One tensor argument: its shape, a dtype .accepts takes (the grid varies it) and its values (ones)."""
    return (shape, dtype, value)


#: kernel -> (representative attrs, tensor arguments in call order (out last, none for a kernel returning its
#: outputs), returns its outputs). Every registered .accepts must be here: a new kernel family adds its row.
TABLE = {
    **{f"topi.{op}": ({}, [_t((2, 3), "int32"), _t((1, 3), "int32"), _t((2, 3), "int32")], False) for op in _ARITH},
    **{f"topi.{op}": ({}, [_t((2, 3), "int64"), _t((2, 3), "int64"), _t((2, 3), "bool")], False) for op in _COMPARE},
    **{f"topi.logical_{op}": ({}, [_t((2, 3), "bool"), _t((2, 3), "bool"), _t((2, 3), "bool")], False)
       for op in ["and", "or", "xor"]},
    **{f"topi.{op}": ({}, [_t((2, 3), "int64"), _t((2, 3), "int64")], False) for op in ["abs", "negative", "sign"]},
    "topi.logical_not": ({}, [_t((2, 3), "bool"), _t((2, 3), "bool")], False),
    "topi.isnan": ({}, [_t((2, 3), "float64"), _t((2, 3), "bool")], False),
    "topi.isinf": ({}, [_t((2, 3), "float64"), _t((2, 3), "bool")], False),
    "topi.argmax": ({"axis": [1]}, [_t((2, 3), "int32"), _t((2,), "int64")], False),
    "topi.argmin": ({"axis": [1]}, [_t((2, 3), "int32"), _t((2,), "int64")], False),
    "topi.cumsum": ({"axis": 1}, [_t((2, 3), "int64"), _t((2, 3), "int64")], False),
    "topi.cumprod": ({"axis": 1}, [_t((2, 3), "int64"), _t((2, 3), "int64")], False),
    "topi.unique": ({"sorted": 1}, [_t((2, 3), "int64")], True),
    "topi.argwhere": ({}, [_t((2, 3), "bool")], True),
    "topi.take": ({"axis": 0}, [_t((2, 3), "int64"), _t((2,), "int64"), _t((2, 3), "int64")], False),
    "topi.gather": ({"axis": 0}, [_t((2, 3), "int64"), _t((2, 3), "int64"), _t((2, 3), "int64")], False),
    "topi.gather_nd": ({}, [_t((2, 3), "int64"), _t((1, 2), "int64"), _t((1,), "int64")], False),
    "topi.scatter_nd": ({"mode": "update"}, [_t((2, 3), "int64"), _t((1, 1), "int64"), _t((1, 3), "int64"),
                                             _t((2, 3), "int64")], False),
    "topi.where": ({}, [_t((2, 3), "bool"), _t((2, 3), "int64"), _t((1, 3), "int64"), _t((2, 3), "int64")], False),
    "topi.concatenate": ({"axis": 0}, [_t((1, 3), "int64"), _t((2, 3), "int64"), _t((3, 3), "int64")], False),
    "topi.copy": ({}, [_t((2, 3), "int64"), _t((6,), "int64")], False),
    "topi.cast": ({"dtype": "int32"}, [_t((2, 3), "float32"), _t((2, 3), "int32")], False),
    "topi.transpose": ({}, [_t((2, 3), "int64"), _t((3, 2), "int64")], False),
    "topi.strided_slice": ({"begin": [0], "end": [1], "strides": [1]}, [_t((2, 3), "int64"), _t((1, 3), "int64")],
                           False),
    "topi.slice_like": ({}, [_t((2, 3), "int64"), _t((1, 3), "float32"), _t((1, 3), "int64")], False),
    "topi.dyn.strided_slice": ({}, [_t((2, 3), "int64"), _t((1,), "int64", [0]), _t((1,), "int64", [1]),
                                    _t((1,), "int64", [1]), _t((1,), "int64", [0])], True),
    "topi.nn.pad": ({"pad_width": [0, 0, 1, 1]}, [_t((2, 3), "int64"), _t((), "int64"), _t((2, 5), "int64")],
                    False),
    "topi.dyn.nn.pad": ({}, [_t((2, 3), "int64"), _t((2,), "int64", [1, 1]), _t((), "int64"),
                             _t((1,), "int64", [1])], True),
    "topi.trilu": ({"upper": 1}, [_t((2, 3), "int64"), _t((), "int64"), _t((2, 3), "int64")], False),
    "topi.shape_of": ({"dtype": "int64"}, [_t((2, 3), "float32"), _t((2,), "int64")], False),
    "topi.dyn.reshape": ({}, [_t((2, 3), "int64"), _t((2,), "int64", [3, 2])], True),
    "topi.dyn.broadcast_to": ({}, [_t((1, 3), "int64"), _t((2,), "int64", [2, 3])], True),
    "topi.broadcast_to": ({"shape": [2, 3]}, [_t((1, 3), "int64"), _t((2, 3), "int64")], False),
    "topi.broadcast_to_like": ({}, [_t((1, 3), "int64"), _t((2, 3), "float32"), _t((2, 3), "int64")], False),
    "topi.dyn.tile": ({}, [_t((2, 3), "int64"), _t((2,), "int64", [2, 1])], True),
    "topi.tile": ({"reps": [2, 1]}, [_t((2, 3), "int64"), _t((4, 3), "int64")], False),
    "topi.dyn.full": ({}, [_t((), "int64"), _t((2,), "int64", [2, 3])], True),
    "topi.arange": ({}, [_t((), "int64", 0), _t((), "int64", 3), _t((), "int64", 1)], True),
    "topi.image.resize2d": ({}, [_t((1, 1, 2, 2), "float32"), _t((0,), "float32"), _t((0,), "float32"),
                                 _t((4,), "int64", [1, 1, 4, 4]), _t((1, 1, 4, 4), "float32")], False),
    "topi.layout_transform": ({"src_layout": "NCHW", "dst_layout": "NCHW4c"},
                              [_t((1, 4, 2, 2), "int64"), _t((1, 1, 2, 2, 4), "int64")], False),
}


def _registered():
    return sorted(n[:-len(".accepts")] for n in tvmlite.list_global_func_names() if n.endswith(".accepts"))


def test_every_accepts_is_in_the_table():
    assert _registered() == sorted(TABLE)


def _combos(base):
    """The base dtypes, every one position changed, every two changed, and all positions one dtype."""
    seen = set()
    n = len(base)
    for k in range(min(n, 2) + 1):
        for positions in itertools.combinations(range(n), k):
            for dts in itertools.product(DTYPES, repeat=k):
                combo = list(base)
                for p, d in zip(positions, dts):
                    combo[p] = d
                seen.add(tuple(combo))
    seen.update((d,) * n for d in DTYPES)
    return sorted(seen)


def _runs(kernel, attrs, args, dtypes, returns):
    """Whether the bound kernel takes tensors of these dtypes: None if it runs, else the TypeError's message."""
    arrays = [tvmlite.nd.array(np.asarray(np.ones(shape) if value is None else value).astype(dt))
              for (shape, _, value), dt in zip(args, dtypes)]
    if not returns:
        arrays[-1] = tvmlite.nd.empty(args[-1][0], dtypes[-1])
    bound = tvmlite.get_global_func(kernel)(attrs)
    try:
        bound(*arrays)
    except TypeError as err:
        return str(err)
    return None


@pytest.mark.parametrize("kernel", sorted(TABLE))
def test_accepts_agrees_with_the_bound_kernel(kernel):
    attrs, args, returns = TABLE[kernel]
    accepts = tvmlite.get_global_func(kernel + ".accepts")
    ndims = [len(shape) for shape, _, _ in args]
    base = [dt for _, dt, _ in args]
    assert accepts(attrs, base, ndims) == ""
    assert _runs(kernel, attrs, args, base, returns) is None  # the table's row is a call the kernel makes
    yes = no = 0
    for dtypes in _combos(base):
        why = accepts(attrs, list(dtypes), ndims)
        err = _runs(kernel, attrs, args, dtypes, returns)
        assert (why == "") == (err is None), (dtypes, why, err)
        if why:
            assert why.startswith(kernel + ": "), why  # a reason naming the kernel, as its TypeError does
            no += 1
        else:
            yes += 1
    assert yes > 0 and (no > 0 or kernel == "topi.argwhere")  # argwhere takes every dtype of the grid


@pytest.mark.parametrize("kernel,attrs,dtypes,ndims,why", [
    ("topi.take", {"axis": 0}, ["float32", "float32", "float32"], [2, 1, 2],
     "topi.take: indices must be int32 or int64, got float32"),
    ("topi.take", {"axis": 0}, ["float32", "int64", "float32"], [0, 1, 1],
     "topi.take: data must have rank >= 1, got 0"),
    ("topi.take", {"axis": 0, "epilogue": "add r0 r0 in0"}, ["int64", "int64", "int64", "int64"], [2, 1, 2, 2],
     "topi.take: epilogue input 0 must be float32, got int64"),
    ("topi.take", {"axis": 0}, ["float32", "int64"], [2, 1],
     "topi.take: expected 3 tensor arguments (2 inputs, 0 epilogue inputs, out), got 2"),
    ("topi.gather", {"axis": 0}, ["float32", "int64", "float32"], [2, 1, 1],
     "topi.gather: indices must have the rank of data"),
    ("topi.trilu", {}, ["float32", "int64", "float32"], [1, 0, 1], "topi.trilu: data must have rank >= 2, got 1"),
    ("topi.image.resize2d", {}, ["float32", "float32", "float32", "int64", "float32"], [3, 1, 1, 1, 3],
     "topi.image.resize2d: data must have rank 4, got 3"),
    ("topi.transpose", {"axes": [1, 0]}, ["float32", "float32"], [3, 3],
     "topi.transpose: axes has 2 entries for data of rank 3"),
    ("topi.transpose", {"axes": []}, ["float32", "float32"], [3, 3], ""),  # no axes: reverse the dims
    ("topi.argwhere", {}, ["int4"], [1], "topi.argwhere: dtype int4 is not supported (1, 2, 4 or 8 byte scalars)"),
    ("topi.cast", {"dtype": "int32"}, ["float32", "int64"], [1, 1],
     "topi.cast: out must be int32 (attr dtype), got int64"),
    ("topi.add", {}, ["int8", "int8", "int8"], [1, 1, 1], "topi.add: dtype int8 is not supported"),
    ("topi.argmax", {}, ["float16", "int64"], [1, 0], "topi.argmax: dtype float16 is not supported"),
])
def test_reasons(kernel, attrs, dtypes, ndims, why):
    assert tvmlite.get_global_func(kernel + ".accepts")(attrs, dtypes, ndims) == why


def test_bad_arguments_are_errors_naming_the_function():
    accepts = tvmlite.get_global_func("topi.take.accepts")
    sig = r"`topi\.take\.accepts\(0: Map<str, Any>, 1: Array<str>, 2: Array<int>\) -> str`"
    with pytest.raises(TypeError, match=r"^Mismatched type on argument #0 when calling: " + sig):
        accepts(1, ["float32"], [1])
    with pytest.raises(TypeError, match=r"^Mismatched type on argument #1 when calling: " + sig):
        accepts({}, "float32", [1])
    with pytest.raises(TypeError, match=r"^Mismatched type on argument #2 when calling: " + sig):
        accepts({}, ["float32"], [1.5])
    with pytest.raises(ValueError, match=r"^topi\.take\.accepts: dtypes has 1 entries, ndims 2\n"):
        accepts({}, ["float32"], [1, 2])
    with pytest.raises(ValueError, match=r"^topi\.take\.accepts: dtypes\[0\] 'floaty' is not a dtype\n"):
        accepts({}, ["floaty"], [1])
    with pytest.raises(ValueError, match=r"^topi\.take\.accepts: ndims\[0\] is -1\n"):
        accepts({}, ["float32"], [-1])
    with pytest.raises(TypeError, match=r"^topi\.cast: attribute 'dtype' must be a str\n"):
        tvmlite.get_global_func("topi.cast.accepts")({"dtype": 3}, ["float32", "int32"], [1, 1])


# -- the lowering asks .accepts ----------------------------------------------------------------------------------
def _kinds(lib):
    import json

    return [n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]


def _build_run(func, inputs):
    from tvmlite.runtime import GraphModule

    lib = tvmlite.build(func, target="cpu")
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**inputs)
    gm.run()
    return lib, gm.get_output(0).numpy()


def test_int64_take_where_concatenate_stay_native():
    """int64 groups the old trial run sent native: .accepts sends them native too, with nothing run at build."""
    x, i = relay.var("x", shape=(4, 3), dtype="int64"), relay.var("i", shape=(2,), dtype="int64")
    c, z = relay.var("c", shape=(2, 3), dtype="bool"), relay.var("z", shape=(1, 3), dtype="int64")
    taken = relay.take(x, i, axis=0)
    y = relay.concatenate([relay.where(c, taken, z), taken], axis=0)
    xv, iv, cv = np.arange(12, dtype="int64").reshape(4, 3), np.array([3, 1], "int64"), np.eye(2, 3, dtype=bool)
    zv = np.full((1, 3), -1, "int64")
    with tvmlite.transform.PassContext(opt_level=0):
        lib, got = _build_run(relay.Function([x, i, c, z], y), {"x": xv, "i": iv, "c": cv, "z": zv})
    t = xv[iv]
    np.testing.assert_array_equal(got, np.concatenate([np.where(cv, t, zv), t]))
    assert lib.fallbacks() == []
    assert _kinds(lib) == ["topi.take", "topi.where", "topi.concatenate"]


def test_a_dtype_the_kernel_refuses_carries_its_reason():
    x, y = relay.var("x", shape=(3,), dtype="int8"), relay.var("y", shape=(3,), dtype="int8")
    lib, _ = _build_run(relay.Function([x, y], relay.add(x, y)), {"x": np.ones(3, "int8"), "y": np.ones(3, "int8")})
    assert [f["reason"] for f in lib.fallbacks()] == ["topi.add refused: topi.add: dtype int8 is not supported"]


_KERNEL = "topi.test_accepts_negative"


_LEVEL = [100]


@pytest.fixture
def counting_kernel():
    """A Python kernel for negative (instead of topi.negative while the test runs) that counts its calls."""
    calls, questions = [], []

    def factory(attrs):
        def run(x, out):
            calls.append(x.dtype)
            y = x.numpy()
            out.copyfrom(-y)
        return run

    register_kernel_factory(_KERNEL, factory, override=True)
    level = _LEVEL[0]
    register_op_attr("negative", "FTVMLiteKernel", _KERNEL, level=level)
    try:
        yield calls, questions
    finally:
        register_op_attr("negative", "FTVMLiteKernel", "topi.negative", level=level + 1)  # a higher level wins
        _LEVEL[0] += 2
        if tvmlite.get_global_func(_KERNEL + ".accepts", allow_missing=True) is not None:
            tvmlite.remove_global_func(_KERNEL + ".accepts")


def _negative64():
    x = relay.var("x", shape=(2, 3), dtype="float64")
    return relay.Function([x], relay.negative(x)), {"x": np.linspace(-2, 2, 6).reshape(2, 3)}


def test_no_accepts_means_float32_only(counting_kernel):
    calls, _ = counting_kernel
    func, inputs = _negative64()
    with tvmlite.transform.PassContext(opt_level=0):
        lib = tvmlite.build(func, target="cpu")
    assert calls == []  # not run at build (the old lowering tried it once on zeros)
    assert [f["reason"] for f in lib.fallbacks()] == [
        _KERNEL + " refused: it takes float32 tensors only (it declares no .accepts), got float64"]


def test_the_lowering_asks_accepts_and_runs_nothing_at_build(counting_kernel):
    calls, questions = counting_kernel

    def accepts(attrs, dtypes, ndims):
        questions.append((dict(attrs), list(dtypes), list(ndims)))
        return "" if ndims[0] == 2 else "rank 2 only"

    tvmlite.register_func(_KERNEL + ".accepts", accepts, override=True)
    func, inputs = _negative64()
    with tvmlite.transform.PassContext(opt_level=0):
        lib = tvmlite.build(func, target="cpu")
        assert calls == []  # the old lowering ran the float64 group once at build
        assert questions == [({"epilogue": ""}, ["float64", "float64"], [2, 2])]
        assert lib.fallbacks() == [] and _kinds(lib) == [_KERNEL]
        _, got = _build_run(func, inputs)
    assert calls == ["float64"]
    np.testing.assert_array_equal(got, -inputs["x"])
    x = relay.var("x", shape=(6,), dtype="float64")
    with tvmlite.transform.PassContext(opt_level=0):
        lib = tvmlite.build(relay.Function([x], relay.negative(x)), target="cpu")
    assert [f["reason"] for f in lib.fallbacks()] == [_KERNEL + " refused: rank 2 only"]
