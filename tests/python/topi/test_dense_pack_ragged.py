"""nn.contrib_dense_pack over a width N that no panel width divides (GPT-2's 50257-word head): AlterOpLayout pads the
constant weight with zero rows to whole panels and sets units = N, the relation types the output with units, and
topi.nn.dense_pack (csrc/topi/nn/gemm.cc) stores, and runs the epilogue on, the first N columns only. Checked against
numpy through one cpu build, static and symbolic M, 1 and 2 threads; the kernel directly on every ISA path."""
import json
import math

import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.runtime import GraphModule

_get = tvmlite.get_global_func
_erf = np.vectorize(math.erf)

NS = [1, 7, 50, 257, 1003]
KS = [3, 64, 768]


def _want(x, w, bias, gelu):
    y = x.astype(np.float64) @ w.T.astype(np.float64)
    if bias is not None:
        y = y + bias
    return y * 0.5 * (1 + _erf(y / math.sqrt(2))) if gelu else y


def _close(got, want):
    """Within 1e-5 of the result's largest magnitude."""
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    assert float(np.abs(got - want).max(initial=0)) <= 1e-5 * scale


def _nodes(lib):
    return [n for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] != "null"]


def _expected_kernel(n, k):
    return "topi.nn.dense_pack" if _get("topi.nn.dense_pack_width")(n, k) else "topi.nn.dense"


@pytest.mark.parametrize("epilogue", ["none", "bias", "bias_gelu"])
@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("op", ["dense", "matmul"])
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("n", NS)
def test_ragged_dense_builds_packed_and_matches_numpy(threads, rng, n, k, op, symbolic, epilogue):
    """One node, topi.nn.dense_pack (unless topi.nn.dense_pack_width keeps nn.dense: N = 1 over K = 3 on AVX2), no
    fallback; a symbolic M reads its shapes per call (M = 1, then 33, then 6 from one build)."""
    w = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32) if epilogue != "none" else None
    m = ir.SizeVar("m") if symbolic else 33
    x = relay.var("x", shape=(m, k))
    y = relay.nn.dense(x, relay.const(w)) if op == "dense" else relay.nn.matmul(x, relay.const(w.T.copy()))
    if bias is not None:
        y = relay.add(y, relay.const(bias))
    if epilogue == "bias_gelu":
        y = relay.nn.gelu(y)
    lib = tvmlite.build(relay.Function([x], y), target="cpu")
    nodes = _nodes(lib)
    assert [nd["attrs"]["func_name"] for nd in nodes] == [_expected_kernel(n, k)]
    assert lib.fallbacks() == []
    gm = GraphModule(lib["default"]())
    for rows in (1, 33, 6) if symbolic else (33,):
        xv = rng.standard_normal((rows, k)).astype(np.float32)
        gm.set_input("x", xv)
        gm.run()
        _close(gm.get_output(0).numpy(), _want(xv, w, bias, epilogue == "bias_gelu"))


def test_gpt2_head_shape_is_packed_with_its_true_units(rng):
    """(batch, seq, 768) x (768, 50257): a zero-padded weight of whole panels, units = 50257, output (.., 50257)."""
    k, n = 768, 50257
    w = (rng.standard_normal((k, n)) / 32).astype(np.float32)
    b, s = ir.SizeVar("batch"), ir.SizeVar("seq")
    x = relay.var("x", shape=(b, s, k))
    lib = tvmlite.build(relay.Function([x], relay.nn.matmul(x, relay.const(w))), target="cpu")
    (node,) = _nodes(lib)
    nb = _get("topi.nn.dense_pack_width")(n, k)
    assert node["attrs"]["func_name"] == "topi.nn.dense_pack" and node["attrs"]["kernel_attrs"]["units"] == n
    assert sorted(v.shape for v in lib.get_params().values()) == [(-(-n // nb), k, nb)]
    gm = GraphModule(lib["default"]())
    xv = rng.standard_normal((1, 3, k)).astype(np.float32)
    gm.set_input("x", xv)
    gm.run()
    got = gm.get_output(0).numpy()
    _close(got, xv.astype(np.float64) @ w.astype(np.float64))


def _pack(w, nb):
    """nn.dense's weight (N, K) as the packed (ceil(N / nb), K, nb), zero past N."""
    n, k = w.shape
    padded = np.zeros((-(-n // nb) * nb, k), np.float32)
    padded[:n] = w
    return np.ascontiguousarray(padded.reshape(-1, nb, k).transpose(0, 2, 1))


def _nd(a):
    return tvmlite.nd.array(np.ascontiguousarray(a, dtype=np.float32))


@pytest.mark.parametrize("nb", [8, 16])
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("n", NS)
def test_kernel_stores_only_the_valid_columns(isa, threads, rng, n, k, nb):
    """topi.nn.dense_pack with units < the panels' columns, on every ISA path: the product, then a bias and GELU
    whose inputs hold N values (in registers for whole tiles, interpreted on the last, partial one), the output
    exactly (M, N)."""
    if -(-n // nb) * nb == n:
        pytest.skip("no padded panel")
    m = 13  # two AVX2 row tiles and a partial one
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    kernel = _get("topi.nn.dense_pack")({"units": n, "weight_layout": f"NK{nb}n",
                                          "epilogue": "add r0 r0 in0; gelu r0 r0"})
    out = tvmlite.nd.array(np.full((m, n), np.nan, np.float32))
    kernel(_nd(x), _nd(_pack(w, nb)), _nd(bias), out)
    _close(out.numpy(), _want(x, w, bias, True))


def test_dense_pack_width():
    """The ISA's width when none divides N; 0 (nn.dense) for a weight narrower than a panel over a short K."""
    width = _get("topi.nn.dense_pack_width")
    set_isa = _get("topi.set_cpu_isa")
    before = _get("topi.cpu_isa")()
    try:
        if set_isa("avx512") == "avx512":  # an AVX2 CPU runs its own path (the other two cases)
            assert [width(n, 768) for n in (768, 50257, 1000, 7)] == [16, 16, 16, 16]
            assert [width(n, 64) for n in (7, 15, 16)] == [0, 0, 16]
        set_isa("avx2")
        assert [width(n, 768) for n in (768, 50257, 1003, 1)] == [8, 8, 8, 8]
        assert [width(1, k) for k in (3, 16, 17)] == [0, 0, 8]
        assert width(7, 3) == 8
        set_isa("scalar")
        assert [width(n, 768) for n in (768, 24, 50257)] == [16, 8, 16]
        assert width(7, 64) == 0
    finally:
        set_isa(before)
    with pytest.raises(ValueError, match=r"topi.nn.dense_pack_width: n must be >= 1 and k >= 0, got n = 0, k = 3"):
        width(0, 3)


def test_units_outside_the_last_panel_is_a_clear_error():
    """units must lie in ((panels - 1) nb, panels nb]: the relation and the kernel say which range."""
    x = relay.var("x", shape=(2, 8))
    w = relay.var("w", shape=(2, 8, 8))
    mod = ir.IRModule.from_expr(relay.nn.contrib_dense_pack(x, w, units=9, weight_layout="NK8n"))
    assert str(relay.transform.InferType()(mod)["main"].body.checked_type) == "Tensor[(2, 9), float32]"
    for units in (8, 17):
        mod = ir.IRModule.from_expr(relay.nn.contrib_dense_pack(x, w, units=units, weight_layout="NK8n"))
        with pytest.raises(ValueError, match=rf"units = {units} disagrees with packed weight \(2, 8, 8\) \(its 16 "
                                             r"columns in panels of 8 hold units in \(8, 16\]\)"):
            relay.transform.InferType()(mod)
    kernel = _get("topi.nn.dense_pack")({"units": 8, "weight_layout": "NK8n"})
    with pytest.raises(ValueError, match=r"topi.nn.dense_pack: weight gives 16 output units, attribute units = 8 "
                                         r"\(panels of 8 hold units in \(8, 16\]\)"):
        kernel(_nd(np.zeros((2, 8))), _nd(np.zeros((2, 8, 8))), tvmlite.nd.array(np.zeros((2, 8), np.float32)))


def test_reference_of_the_ragged_pack(run_relay, rng):
    """The rewritten module on the debug executor (numpy references), as tests/python/relay/test_alter_op_layout.py
    checks every rewrite."""
    from tvmlite.relay.transform_layout import AlterOpLayout

    # K = 128: packed on both ISAs (AVX-512's panels of 16 keep N < 16 with K <= 64 as nn.dense: dense_pack_width)
    w = rng.standard_normal((7, 128)).astype(np.float32)
    x = relay.var("x", shape=(5, 128))
    mod = relay.transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.nn.dense(x, relay.const(w)))))
    new = AlterOpLayout()(mod)
    assert "nn.contrib_dense_pack" in str(new)
    xv = rng.standard_normal((5, 128)).astype(np.float32)
    (got,) = run_relay(new, [xv])
    _close(got, _want(xv, w, None, False))
