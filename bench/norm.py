#!/usr/bin/env python3
"""nn.instance_norm, nn.group_norm and nn.lrn built for the cpu target: the native kernels (topi.nn.instance_norm,
topi.nn.group_norm, topi.nn.lrn) against the same one-op graphs run by their reference node (relay.backend.reference,
the numpy references: FTVMLiteKernel overridden to a kernel that does not exist, so the lowering falls back).

Rows (float32, NCHW):
    instance_norm  1x64x128x128
    group_norm     1x320x64x64, 32 groups
    lrn            1x64x56x56 and 1x96x55x55 (AlexNet's first), size 5, alpha 1e-4, beta 0.75, bias 1

Columns: ms per GraphModule.run() of the native graph per thread count, then of the reference graph (numpy: one
thread), and the speedup of the fastest native column. Method: the median of --repeats runs after one warm-up run; both
graphs get the same input, and their outputs are checked to agree (max abs difference printed).

    python bench/norm.py                      # 1 and 2 threads
    python bench/norm.py --repeats 9 --threads 1
"""
from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

import tvmlite
from tvmlite import relay
from tvmlite.ir import register_op_attr
from tvmlite.runtime import GraphModule
from timing import timed_runs  # bench/timing.py

CASES = [("instance_norm", "nn.instance_norm", (1, 64, 128, 128), {}),
         ("group_norm", "nn.group_norm", (1, 320, 64, 64), {"num_groups": 32}),
         ("lrn", "nn.lrn", (1, 64, 56, 56), {"size": 5, "alpha": 1e-4, "beta": 0.75, "bias": 1.0}),
         ("lrn", "nn.lrn", (1, 96, 55, 55), {"size": 5, "alpha": 1e-4, "beta": 0.75, "bias": 1.0})]


def _module(op, shape, attrs, seed=0):
    """A one-op graph, its gamma and beta bound as params, and an input."""
    rng = np.random.default_rng(seed)
    x = relay.var("x", shape=shape)
    params = {}
    if op == "nn.lrn":
        func = relay.Function([x], relay.nn.lrn(x, **attrs))
    else:
        c = shape[1]
        g, b = relay.var("g", shape=(c,)), relay.var("b", shape=(c,))
        params = {"g": rng.standard_normal(c).astype("float32"), "b": rng.standard_normal(c).astype("float32")}
        body = relay.nn.instance_norm(x, g, b) if op == "nn.instance_norm" else relay.nn.group_norm(x, g, b, **attrs)
        func = relay.Function([x, g, b], body)
    lib = tvmlite.build(func, target="cpu", params=params)
    kernels = [n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] == "tvm_op"]
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(x=(rng.standard_normal(shape) * 3 + 1).astype("float32"))
    return gm, kernels


def _time(gm, repeats):
    return statistics.median(timed_runs(gm.run, repeats)) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    args = ap.parse_args()
    set_threads = tvmlite.get_global_func("runtime.set_num_threads")
    threads = [int(t) for t in args.threads.split(",") if t]

    native = [_module(op, shape, attrs) for _, op, shape, attrs in CASES]
    for op in sorted({op for _, op, _, _ in CASES}):
        register_op_attr(op, "FTVMLiteKernel", "topi.bench_none", level=100)
    reference = [_module(op, shape, attrs) for _, op, shape, attrs in CASES]

    print(f"ms per run, median of {args.repeats}")
    print(f"{'row':14s}{'shape':20s}" + "".join(f"{f'native/{t}t':>12s}" for t in threads)
          + f"{'reference':>12s}{'speedup':>10s}{'max diff':>10s}")
    try:
        for (name, _, shape, _), (gm, kernels), (ref, ref_kernels) in zip(CASES, native, reference):
            assert kernels == [f"topi.nn.{name}"] and ref_kernels == ["relay.backend.reference"], (kernels,
                                                                                                  ref_kernels)
            cells = []
            for t in threads:
                set_threads(t)
                cells.append(_time(gm, args.repeats))
            ref_ms = _time(ref, args.repeats)
            diff = np.abs(gm.get_output(0).numpy() - ref.get_output(0).numpy()).max()
            print(f"{name:14s}{'x'.join(map(str, shape)):20s}" + "".join(f"{c:12.3f}" for c in cells)
                  + f"{ref_ms:12.3f}{ref_ms / min(cells):9.1f}x{diff:10.1e}")
    finally:
        set_threads(0)


if __name__ == "__main__":
    main()
