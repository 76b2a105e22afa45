"""Attention's q @ K^T two ways, as SimplifyExpr's transpose fold changes it: the transpose materialised
(topi.transpose(K, [0, 1, 3, 2]) then topi.nn.matmul) against K read as it is (topi.nn.matmul with transpose_b).

Shapes: a decode step's q (1, H, 1, 64) against K (1, H, P, 64) (Whisper-tiny's 6 heads, GPT-2's 12; P = 1500 is
Whisper's cross-attention), BERT's scores (1, 12, S, 64) x (1, 12, S, 64)^T at S = 16..512, the same as BERT's
export spells them ("bert-onnx": K (1, S, 12, 64) transposed by [0, 2, 3, 1], against the [0, 2, 1, 3] row copy the
fold leaves and transpose_b), and P @ V (unchanged by the fold, for scale). The forms alternate sample by sample in
one process (the machine is shared); the figure is each form's median over --samples samples, each a loop of calls
lasting about --target-ms. "K^T given" is the matmul alone on a K^T made beforehand: the old form's kernel share.

    python bench/attention_matmul.py               # 1 thread
    python bench/attention_matmul.py --threads 2 --samples 21
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tvmlite  # noqa: E402

# (name, q shape, k shape); K^T is k with its last two dims swapped
SCORES = [("decode H6 P32", (1, 6, 1, 64), (1, 6, 32, 64)),
          ("decode H6 P128", (1, 6, 1, 64), (1, 6, 128, 64)),
          ("decode H6 P448", (1, 6, 1, 64), (1, 6, 448, 64)),
          ("decode H6 P1500", (1, 6, 1, 64), (1, 6, 1500, 64)),
          ("decode H12 P128", (1, 12, 1, 64), (1, 12, 128, 64))]
SCORES += [(f"bert S{s}", (1, 12, s, 64), (1, 12, s, 64)) for s in (16, 32, 64, 128, 256, 512)]
# BERT's export: K comes as (1, S, 12, 64) and K^T is one transpose by [0, 2, 3, 1]; the fold leaves [0, 2, 1, 3]
SCORES += [(f"bert-onnx S{s}", (1, 12, s, 64), (1, s, 12, 64)) for s in (16, 64, 128, 256, 512)]
# (name, p shape, v shape): P @ V, the same kernel either way
PV = [("pv decode P128", (1, 6, 1, 128), (1, 6, 128, 64)), ("pv bert S128", (1, 12, 128, 128), (1, 12, 128, 64))]


def _nd(a):
    return tvmlite.nd.array(np.ascontiguousarray(a, dtype=np.float32))


def _loop(fn, target_s):
    """Seconds per call of fn, over a loop lasting about target_s."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target_s:
            return dt / n
        n = max(n * 2, int(n * target_s / max(dt, 1e-6)))


def forms(q_shape, k_shape, rng):
    """{name: call} for the transposed-then-matmul form and the transpose_b form; checked against numpy. k (B, S, H,
    D) with q (B, H, S', D) is BERT's export: K^T by [0, 2, 3, 1] against [0, 2, 1, 3] then transpose_b."""
    q, k = rng.standard_normal(q_shape), rng.standard_normal(k_shape)
    bert = k_shape[1] != q_shape[1]
    axes, rest = ([0, 2, 3, 1], [0, 2, 1, 3]) if bert else ([0, 1, 3, 2], None)
    kt = np.transpose(k, axes)
    out_shape = q_shape[:-1] + (kt.shape[-1],)
    qn, kn, ktn = _nd(q), _nd(k), tvmlite.nd.empty(kt.shape, "float32")
    krn = tvmlite.nd.empty(np.transpose(k, rest).shape, "float32") if bert else kn
    outs = {name: tvmlite.nd.empty(out_shape, "float32") for name in ("transpose+matmul", "transpose_b", "K^T given")}
    transpose = tvmlite.get_global_func("topi.transpose")({"axes": axes})
    transpose_rest = tvmlite.get_global_func("topi.transpose")({"axes": rest}) if bert else None
    matmul = tvmlite.get_global_func("topi.nn.matmul")({})
    matmul_tb = tvmlite.get_global_func("topi.nn.matmul")({"transpose_b": True})

    def old():
        transpose(kn, ktn)
        matmul(qn, ktn, outs["transpose+matmul"])

    def new():
        if bert:
            transpose_rest(kn, krn)
        matmul_tb(qn, krn, outs["transpose_b"])

    calls = {"transpose+matmul": old, "transpose_b": new, "K^T given": lambda: matmul(qn, ktn, outs["K^T given"])}
    want = q @ kt
    for name, fn in calls.items():
        fn()
        np.testing.assert_allclose(outs[name].numpy(), want, rtol=1e-4, atol=1e-3)
    return calls


def pv_forms(p_shape, v_shape, rng):
    p, v = _nd(rng.standard_normal(p_shape)), _nd(rng.standard_normal(v_shape))
    out = tvmlite.nd.empty(p_shape[:-1] + (v_shape[-1],), "float32")
    matmul = tvmlite.get_global_func("topi.nn.matmul")({})
    return {"matmul": lambda: matmul(p, v, out)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--target-ms", type=float, default=20.0)
    ap.add_argument("--only", default="", help="run the rows whose name contains this")
    args = ap.parse_args()
    tvmlite.get_global_func("runtime.set_num_threads")(args.threads)
    rng = np.random.default_rng(0)
    rows = [(name, forms(q, k, rng)) for name, q, k in SCORES if args.only in name]
    rows += [(name, pv_forms(p, v, rng)) for name, p, v in PV if args.only in name]
    print(f"{tvmlite.get_global_func('topi.cpu_isa')()}, {args.threads} thread(s), median of {args.samples}, us")
    print(f"{'shape':18s} {'transpose+matmul':>17s} {'transpose_b':>12s} {'old/new':>8s} {'K^T given':>10s}")
    for name, calls in rows:
        times = {form: [] for form in calls}
        for i in range(args.samples):
            order = list(calls) if i % 2 == 0 else list(calls)[::-1]
            for form in order:
                times[form].append(_loop(calls[form], args.target_ms / 1e3))
        med = {form: statistics.median(t) * 1e6 for form, t in times.items()}
        if len(med) > 1:
            old, new = med["transpose+matmul"], med["transpose_b"]
            print(f"{name:18s} {old:17.2f} {new:12.2f} {old / new:8.2f} {med['K^T given']:10.2f}")
        else:
            print(f"{name:18s} {med['matmul']:17.2f}")


if __name__ == "__main__":
    main()
