"""Shape and data-movement ops: builders, type relations (static, symbolic and dyn forms, errors) and executor
results against numpy written out here (never the references themselves)."""
import numpy as np
import pytest

import tvmlite
from tvmlite import relay

n = relay.SizeVar("n")


def infer(expr, params):
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(params, expr)))
    return mod["main"].body.checked_type


def shape_of(expr, params):
    return tuple(str(d) if not isinstance(d, int) else d for d in infer(expr, params).shape)


def run(expr, params, *values):
    mod = relay.IRModule.from_expr(relay.Function(params, expr))
    lib = tvmlite.build(mod, target="debug")
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for p, v in zip(params, values):
        gm.set_input(p.name_hint, v)
    gm.run()
    outs = [gm.get_output(i) for i in range(gm.get_num_outputs())]
    outs = [o.numpy() if hasattr(o, "numpy") else o for o in outs]
    return outs if len(outs) > 1 else outs[0]


def error(expr, params, kind, *fragments):
    with pytest.raises(kind) as info:
        infer(expr, params)
    message = str(info.value)
    del info  # the traceback holds this frame: drop the cycle now rather than at the next gc
    for f in fragments:
        assert f in message, message


# ------------------------------------------------------------------------------------------------ reshape

def test_reshape_types():
    x = relay.var("x", shape=(2, 3, 4))
    assert shape_of(relay.reshape(x, (6, -1)), [x]) == (6, 4)
    assert shape_of(relay.reshape(x, (0, 0, -1, 1)), [x]) == (2, 3, 4, 1)
    assert shape_of(relay.reshape(x, (-1,)), [x]) == (24,)
    s = relay.var("s", shape=(n, 3, 4))
    assert shape_of(relay.reshape(s, (0, -1)), [s]) == ("n", 12)
    assert shape_of(relay.reshape(s, (-1, 12)), [s]) == ("n", 12)
    assert shape_of(relay.reshape(s, (-1, 6)), [s]) == ("?", 6)
    assert shape_of(relay.reshape(s, (4, -1)), [s]) == (4, "?")
    z = relay.var("z", shape=(0, 3))
    assert shape_of(relay.reshape(z, (3, 0), allowzero=True), [z]) == (3, 0)


def test_reshape_errors():
    x = relay.var("x", shape=(2, 3, 4))
    error(relay.reshape(x, (5, -1)), [x], ValueError, "reshape", "(2, 3, 4)", "do not divide")
    error(relay.reshape(x, (5, 5)), [x], ValueError, "cannot reshape (2, 3, 4)", "(5, 5)")
    error(relay.reshape(x, (-1, -1)), [x], ValueError, "more than one -1")
    error(relay.reshape(x, (0, 0, 0, 0)), [x], ValueError, "newshape[3] is 0")
    error(relay.reshape(x, (-2, 12)), [x], ValueError, "newshape[0] is -2")


def test_dyn_reshape():
    x = relay.var("x", shape=(2, 3, 4))
    s = relay.var("s", shape=(3,), dtype="int64")
    assert shape_of(relay.reshape(x, s), [x, s]) == ("?", "?", "?")
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    out = run(relay.reshape(x, s), [x, s], a, np.array([4, 0, -1], "int64"))
    np.testing.assert_array_equal(out, a.reshape(4, 3, 2))
    f = relay.var("f", shape=(3,), dtype="float32")
    error(relay.reshape(x, f), [x, f], TypeError, "integer")
    m = relay.var("m", shape=(n,), dtype="int64")
    error(relay.reshape(x, m), [x, m], ValueError, "static length")


def test_reshape_run():
    x = relay.var("x", shape=(2, 3, 4))
    a = np.random.RandomState(0).rand(2, 3, 4).astype("float32")
    np.testing.assert_array_equal(run(relay.reshape(x, (0, -1)), [x], a), a.reshape(2, 12))


# ------------------------------------------------------------------------------------- transpose, squeeze

def test_transpose():
    x = relay.var("x", shape=(2, n, 4))
    assert shape_of(relay.transpose(x), [x]) == (4, "n", 2)
    assert shape_of(relay.transpose(x, (1, -1, 0)), [x]) == ("n", 4, 2)
    error(relay.transpose(x, (0, 0, 1)), [x], ValueError, "repeated")
    error(relay.transpose(x, (0, 1)), [x], ValueError, "rank 3")
    error(relay.transpose(x, (0, 1, 3)), [x], IndexError, "axis 3")
    y = relay.var("y", shape=(2, 3, 4))
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_array_equal(run(relay.transpose(y, (2, 0, 1)), [y], a), a.transpose(2, 0, 1))


def test_squeeze_expand_dims():
    x = relay.var("x", shape=(1, n, 1, 3))
    assert shape_of(relay.squeeze(x), [x]) == ("n", 3)
    assert shape_of(relay.squeeze(x, [-2]), [x]) == (1, "n", 3)
    error(relay.squeeze(x, [3]), [x], ValueError, "size 3, not 1")
    assert shape_of(relay.expand_dims(x, -1, 2), [x]) == (1, "n", 1, 3, 1, 1)
    assert shape_of(relay.expand_dims(x, 0), [x]) == (1, 1, "n", 1, 3)
    error(relay.expand_dims(x, 6), [x], IndexError, "axis 6")
    error(relay.expand_dims(x, 0, 100), [x], ValueError, "num_newaxis")
    axes = relay.var("axes", shape=(2,), dtype="int64")
    assert shape_of(relay.expand_dims(x, axes), [x, axes]) == ("?",) * 6
    assert shape_of(relay.squeeze(x, axes), [x, axes]) == ("?",) * 2
    y = relay.var("y", shape=(3, 4))
    a = np.ones((3, 4), "float32")
    out = run(relay.expand_dims(y, axes), [y, axes], a, np.array([-1, 0], "int64"))
    assert out.shape == (1, 3, 4, 1)


# ----------------------------------------------------------------------------------- slicing and indexing

def test_strided_slice_types():
    x = relay.var("x", shape=(20, 10, n))
    big = 2 ** 63 - 1
    assert shape_of(relay.strided_slice(x, [1, -3], [-1, big]), [x]) == (18, 3, "n")
    assert shape_of(relay.strided_slice(x, [0], [big], axes=[2]), [x]) == (20, 10, "n")
    assert shape_of(relay.strided_slice(x, [1], [big], axes=[2]), [x]) == (20, 10, "?")
    assert shape_of(relay.strided_slice(x, [big, 5], [-big - 1, 0], [-1, -2]), [x]) == (20, 3, "n")
    assert shape_of(relay.strided_slice(x, [30], [40]), [x]) == (0, 10, "n")
    assert shape_of(relay.strided_slice(x, [2], [5], slice_mode="size"), [x]) == (5, 10, "n")
    error(relay.strided_slice(x, [0], [1], [0]), [x], ValueError, "step 0")
    error(relay.strided_slice(x, [0, 0], [1]), [x], ValueError, "end has 1")
    error(relay.strided_slice(x, [0], [1], axes=[3]), [x], IndexError, "axis 3")


def test_strided_slice_run_matches_python_slicing():
    x = relay.var("x", shape=(7, 6))
    a = np.arange(42, dtype="float32").reshape(7, 6)
    cases = [([1, -1], [-1, -6], [2, -2]), ([-100, 2], [100, 3], [1, 1]), ([6, 5], [-100, -100], [-3, -1])]
    for b, e, s in cases:
        want = a[b[0]:e[0]:s[0], b[1]:e[1]:s[1]]
        np.testing.assert_array_equal(run(relay.strided_slice(x, b, e, s), [x], a), want)
        bv, ev, sv = (relay.var(k, shape=(2,), dtype="int64") for k in "bes")
        dyn = relay.strided_slice(x, bv, ev, sv, axes=relay.const(np.array([0, 1], "int64")))
        out = run(dyn, [x, bv, ev, sv], a, *(np.array(v, "int64") for v in (b, e, s)))
        np.testing.assert_array_equal(out, want)


def test_take():
    x = relay.var("x", shape=(5, n, 3))
    i = relay.var("i", shape=(2, 4), dtype="int64")
    assert shape_of(relay.take(x, i, axis=1), [x, i]) == (5, 2, 4, 3)
    assert shape_of(relay.take(x, i), [x, i]) == (2, 4)
    f = relay.var("f", shape=(2,), dtype="float32")
    error(relay.take(x, f, axis=0), [x, f], TypeError, "integer")
    error(relay.take(x, i, axis=3), [x, i], IndexError, "axis 3")
    y = relay.var("y", shape=(4, 3))
    j = relay.var("j", shape=(3,), dtype="int64")
    a = np.arange(12, dtype="float32").reshape(4, 3)
    np.testing.assert_array_equal(run(relay.take(y, j, axis=0), [y, j], a, np.array([-1, 0, 2], "int64")),
                                  a[[3, 0, 2]])
    with pytest.raises(IndexError, match="out of range"):
        run(relay.take(y, j, axis=0), [y, j], a, np.array([4, 0, 0], "int64"))


def test_gather_and_gather_nd():
    x = relay.var("x", shape=(3, 3))
    i = relay.var("i", shape=(2, 3), dtype="int64")
    assert shape_of(relay.gather(x, 1, i), [x, i]) == (2, 3)
    a = np.arange(9, dtype="float32").reshape(3, 3)
    idx = np.array([[1, 2, 0], [2, 0, -1]], "int64")
    want = np.array([[a[0, 1], a[0, 2], a[0, 0]], [a[1, 2], a[1, 0], a[1, 2]]])
    np.testing.assert_array_equal(run(relay.gather(x, 1, i), [x, i], a, idx), want)
    b = relay.var("b", shape=(2,), dtype="int64")
    error(relay.gather(x, 0, b), [x, b], ValueError, "rank of data")

    d = relay.var("d", shape=(2, 3, 4))
    k = relay.var("k", shape=(5, 2), dtype="int64")
    assert shape_of(relay.gather_nd(d, k), [d, k]) == (5, 4)
    kb = relay.var("kb", shape=(2, 1), dtype="int64")
    assert shape_of(relay.gather_nd(d, kb, batch_dims=1), [d, kb]) == (2, 4)
    big = relay.var("big", shape=(5, 4), dtype="int64")
    error(relay.gather_nd(d, big), [d, big], ValueError, "address 4 dims")
    data = np.arange(24, dtype="float32").reshape(2, 3, 4)
    ids = np.array([[1, 2], [0, 0], [1, -1]], "int64")
    k3 = relay.var("k3", shape=(3, 2), dtype="int64")
    np.testing.assert_array_equal(run(relay.gather_nd(d, k3), [d, k3], data, ids),
                                  np.stack([data[1, 2], data[0, 0], data[1, 2]]))


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "min", "max"])
def test_scatter_elements(reduction):
    x = relay.var("x", shape=(2, 4))
    i = relay.var("i", shape=(2, 2), dtype="int64")
    u = relay.var("u", shape=(2, 2))
    a = np.arange(8, dtype="float32").reshape(2, 4) + 1
    idx = np.array([[1, 3], [0, -1]], "int64")
    upd = np.array([[10, 20], [30, 40]], "float32")
    want = a.copy()
    op = {"update": lambda o, v: v, "add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}
    for r in range(2):
        for c in range(2):
            col = idx[r, c] % 4
            want[r, col] = op[reduction](want[r, col], upd[r, c])
    out = run(relay.scatter_elements(x, i, u, axis=1, reduction=reduction), [x, i, u], a, idx, upd)
    np.testing.assert_array_equal(out, want)


def test_scatter_nd():
    x = relay.var("x", shape=(4, 3))
    i = relay.var("i", shape=(2, 1), dtype="int64")
    u = relay.var("u", shape=(2, 3))
    assert shape_of(relay.scatter_nd(x, i, u), [x, i, u]) == (4, 3)
    a = np.zeros((4, 3), "float32")
    out = run(relay.scatter_nd(x, i, u, "add"), [x, i, u], a, np.array([[3], [3]], "int64"),
              np.ones((2, 3), "float32"))
    want = a.copy()
    want[3] = 2
    np.testing.assert_array_equal(out, want)
    bad = relay.var("bad", shape=(2, 4))
    error(relay.scatter_nd(x, i, bad), [x, i, bad], ValueError, "updates (2, 4) must be (2, 3)")
    error(relay.scatter_nd(x, i, u, "sum"), [x, i, u], ValueError, "reduction 'sum'")


# --------------------------------------------------------------------------------- combine and construct

def test_concatenate():
    a = relay.var("a", shape=(2, n, 3))
    b = relay.var("b", shape=(2, 5, 4))
    assert shape_of(relay.concatenate([a, b], -1), [a, b]) == (2, 5, 7)
    assert shape_of(relay.concatenate([a, a], 1), [a]) == (2, "?", 3)
    c = relay.var("c", shape=(3, 5, 4))
    error(relay.concatenate([b, c], 2), [b, c], ValueError, "(3, 5, 4)", "(2, 5, 4)", "differ on dim 0")
    d = relay.var("d", shape=(2, 5, 4), dtype="int32")
    error(relay.concatenate([b, d], 0), [b, d], TypeError, "int32")
    error(relay.concatenate([b], 3), [b], IndexError, "axis 3")
    x, y = relay.var("x", shape=(2, 2)), relay.var("y", shape=(2, 1))
    p, q = np.ones((2, 2), "float32"), np.zeros((2, 1), "float32")
    np.testing.assert_array_equal(run(relay.concatenate([x, y], 1), [x, y], p, q), np.concatenate([p, q], 1))


def test_split():
    x = relay.var("x", shape=(2, 7))
    parts = relay.split(x, [2, 5], axis=1)
    assert len(parts) == 3
    ty = infer(parts.astuple(), [x])
    assert [tuple(f.shape) for f in ty.fields] == [(2, 2), (2, 3), (2, 2)]
    assert shape_of(parts[-1], [x]) == (2, 2)
    ty = infer(relay.split(x, [5, 2], axis=1).astuple(), [x])  # numpy: [0:5], [5:2] (empty), [2:7]
    assert [tuple(f.shape) for f in ty.fields] == [(2, 5), (2, 0), (2, 5)]
    error(relay.split(x, 3, axis=1).astuple(), [x], ValueError, "3 equal sections")
    s = relay.var("s", shape=(n, 4))
    assert [str(f.shape[0]) for f in infer(relay.split(s, 2).astuple(), [s]).fields] == ["?", "?"]
    a = np.arange(14, dtype="float32").reshape(2, 7)
    outs = run(relay.split(x, [2, 5], axis=1).astuple(), [x], a)
    for o, w in zip(outs, np.split(a, [2, 5], axis=1)):
        np.testing.assert_array_equal(o, w)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
def test_pad(mode):
    x = relay.var("x", shape=(3, 4))
    pad = relay.nn.pad(x, ((1, 2), (2, -1)), 7.0, mode)
    assert shape_of(pad, [x]) == (6, 5)
    a = np.arange(12, dtype="float32").reshape(3, 4)
    cropped = a[:, :3]
    kw = {"constant_values": 7.0} if mode == "constant" else {}
    want = np.pad(cropped, ((1, 2), (2, 0)), mode=mode, **kw)
    np.testing.assert_array_equal(run(pad, [x], a), want)


def test_pad_errors_and_dyn():
    x = relay.var("x", shape=(3, n))
    assert shape_of(relay.nn.pad(x, ((0, 0), (1, 1))), [x]) == (3, "?")
    error(relay.nn.pad(x, ((-2, -2), (0, 0))), [x], ValueError, "negative")
    error(relay.nn.pad(x, ((0, 0),)), [x], ValueError, "2 per axis")
    error(relay.nn.pad(x, ((0, 0), (0, 0)), 0.0, "mirror"), [x], ValueError, "pad_mode 'mirror'")
    pads = relay.var("pads", shape=(2,), dtype="int64")
    y = relay.var("y", shape=(2, 3))
    e = relay.nn.pad(y, pads, 0.0, "edge", axes=[1])
    assert shape_of(e, [y, pads]) == ("?", "?")
    a = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(run(e, [y, pads], a, np.array([1, 2], "int64")),
                                  np.pad(a, ((0, 0), (1, 2)), mode="edge"))


def test_broadcast_to_and_tile():
    x = relay.var("x", shape=(3, 1))
    assert shape_of(relay.broadcast_to(x, (2, 1, 4)), [x]) == (2, 3, 4)
    error(relay.broadcast_to(x, (2, 4)), [x], ValueError, "do not broadcast")
    s = relay.var("s", shape=(3,), dtype="int64")
    assert shape_of(relay.broadcast_to(x, s), [x, s]) == ("?", 3, "?")
    a = np.array([[1], [2], [3]], "float32")
    np.testing.assert_array_equal(run(relay.broadcast_to(x, s), [x, s], a, np.array([2, 1, 2], "int64")),
                                  a * np.ones((2, 1, 2), "float32"))
    y = relay.var("y", shape=(n, 2))
    assert shape_of(relay.tile(y, (2, 3)), [y]) == ("?", 6)
    assert shape_of(relay.tile(y, (1, 3)), [y]) == ("n", 6)
    assert shape_of(relay.tile(x, (2, 2, 2)), [x]) == (2, 6, 2)
    np.testing.assert_array_equal(run(relay.tile(x, (2, 2)), [x], a), np.tile(a, (2, 2)))


def test_shape_size_full_arange():
    x = relay.var("x", shape=(n, 3))
    assert shape_of(relay.shape_of(x), [x]) == (2,)
    assert str(infer(relay.ndarray_size(x, "int32"), [x]).dtype) == "int32"
    a = np.zeros((4, 3), "float32")
    np.testing.assert_array_equal(run(relay.shape_of(x), [x], a), np.array([4, 3], "int64"))
    assert run(relay.ndarray_size(x), [x], a) == 12
    assert shape_of(relay.full(2.5, (2, 3)), []) == (2, 3)
    np.testing.assert_array_equal(run(relay.full(2.5, (2, 3)), []), np.full((2, 3), 2.5, "float32"))
    np.testing.assert_array_equal(run(relay.ones((2,), "int32"), []), np.ones(2, "int32"))
    s = relay.var("s", shape=(2,), dtype="int64")
    assert shape_of(relay.full(1.0, s), [s]) == ("?", "?")
    r = relay.arange(relay.const(np.float32(1)), relay.const(np.float32(2)), relay.const(np.float32(0.25)))
    assert shape_of(r, []) == ("?",)
    np.testing.assert_allclose(run(r, []), np.array([1, 1.25, 1.5, 1.75], "float32"))
    np.testing.assert_array_equal(run(relay.arange(10, 1, -3), []), np.array([10, 7, 4], "int64"))


def test_trilu_eye_like_one_hot():
    x = relay.var("x", shape=(2, 3, 4))
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    k = np.int64(1)
    want = a.copy()
    for i in range(3):
        for j in range(4):
            if j - i < k:
                want[:, i, j] = 0
    np.testing.assert_array_equal(run(relay.trilu(x, 1), [x], a), want)
    error(relay.trilu(relay.var("v", shape=(3,)), 0), [], ValueError, "rank >= 2")
    y = relay.var("y", shape=(3, 4))
    assert str(infer(relay.eye_like(y, 1, "int32"), [y]).dtype) == "int32"
    np.testing.assert_array_equal(run(relay.eye_like(y, -1), [y], np.zeros((3, 4), "float32")),
                                  np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]], "float32"))
    i = relay.var("i", shape=(3,), dtype="int64")
    oh = relay.one_hot(i, 5.0, -1.0, 4, axis=0)
    assert shape_of(oh, [i]) == (4, 3)
    out = run(oh, [i], np.array([0, -1, 9], "int64"))
    want = -np.ones((4, 3), "float32")
    want[0, 0] = want[3, 1] = 5.0  # index 9 is out of range: a column of off_value
    np.testing.assert_array_equal(out, want)
    error(relay.one_hot(i, 1.0, 0.0, 4, axis=3), [i], IndexError, "axis 3")


def test_where_argwhere_reverse_sequence():
    c = relay.var("c", shape=(2, 1), dtype="bool")
    x = relay.var("x", shape=(1, 3))
    y = relay.var("y", shape=())
    assert shape_of(relay.where(c, x, y), [c, x, y]) == (2, 3)
    error(relay.where(x, x, x), [x], TypeError, "bool")
    cv, xv = np.array([[True], [False]]), np.arange(3, dtype="float32").reshape(1, 3)
    np.testing.assert_array_equal(run(relay.where(c, x, y), [c, x, y], cv, xv, np.float32(-1)),
                                  np.where(cv, xv, -1).astype("float32"))
    d = relay.var("d", shape=(2, 3), dtype="int32")
    assert shape_of(relay.argwhere(d), [d]) == ("?", 2)
    dv = np.array([[0, 1, 0], [2, 0, 3]], "int32")
    np.testing.assert_array_equal(run(relay.argwhere(d), [d], dv), [[0, 1], [1, 0], [1, 2]])
    s = relay.var("s", shape=(3, 4))
    lens = relay.var("lens", shape=(3,), dtype="int64")
    sv = np.arange(12, dtype="float32").reshape(3, 4)
    want = sv.copy()
    for b, ln in enumerate([4, 0, 2]):
        want[b, :ln] = sv[b, :ln][::-1]
    out = run(relay.reverse_sequence(s, lens, seq_axis=1, batch_axis=0), [s, lens], sv, np.array([4, 0, 2], "int64"))
    np.testing.assert_array_equal(out, want)
    bad = relay.var("bad", shape=(2,), dtype="int64")
    error(relay.reverse_sequence(s, bad, 1, 0), [s, bad], ValueError, "batch size 3")


def test_flatten_and_subpixel():
    x = relay.var("x", shape=(n, 8, 2, 3))
    assert shape_of(relay.nn.batch_flatten(x), [x]) == ("n", 48)
    assert shape_of(relay.nn.depth_to_space(x, 2), [x]) == ("n", 2, 4, 6)
    assert shape_of(relay.nn.space_to_depth(relay.var("y", shape=(1, 2, 4, 6)), 2), []) == (1, 8, 2, 3)
    error(relay.nn.depth_to_space(x, 3), [x], ValueError, "not divisible by 9")
    error(relay.nn.space_to_depth(x, 2), [x], ValueError, "width 3")
    y = relay.var("y", shape=(1, 8, 1, 1))
    a = np.arange(8, dtype="float32").reshape(1, 8, 1, 1)
    # DCR: out[0, c, i, j] = in[0, (i * 2 + j) * 2 + c, 0, 0]; CRD: in[0, c * 4 + i * 2 + j, 0, 0]
    dcr = run(relay.nn.depth_to_space(y, 2, mode="DCR"), [y], a)
    crd = run(relay.nn.depth_to_space(y, 2, mode="CRD"), [y], a)
    for c in range(2):
        for i in range(2):
            for j in range(2):
                assert dcr[0, c, i, j] == (i * 2 + j) * 2 + c
                assert crd[0, c, i, j] == c * 4 + i * 2 + j
    back = relay.var("b", shape=(1, 2, 2, 2))
    np.testing.assert_array_equal(run(relay.nn.space_to_depth(back, 2, mode="DCR"), [back], dcr), a)


def test_hostile_attrs_raise_cleanly():
    x = relay.var("x", shape=(2, 3))
    error(relay.reshape(x, [2 ** 62, 2 ** 62, -1]), [x], ValueError, "overflows")
    error(relay.tile(x, [-1, 2]), [x], ValueError, ">= 0")
    error(relay.split(x, 2 ** 40, axis=1).astuple(), [x], ValueError, "sections")
    assert shape_of(relay.strided_slice(x, [0], [5], [-(2 ** 63)]), [x]) == (0, 3)
    assert shape_of(relay.strided_slice(x, [2 ** 63 - 1], [-(2 ** 63)], [-(2 ** 63)]), [x]) == (1, 3)
