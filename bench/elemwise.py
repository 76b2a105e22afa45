#!/usr/bin/env python3
"""Elementwise throughput of topi.elemwise (the epilogue interpreter) against numpy.

Rows (4M float32 values by default):
    add_relu   copy r0 in0; add r0 r0 in1; relu r0 r0           numpy: np.maximum(x + y, 0, out=out)
    gelu       copy r0 in0; gelu r0 r0                          numpy has no erf (math.erf per element would be
                                                                unfair), so its column is the tanh form, in place
    gelu_tanh  copy r0 in0; gelu_tanh r0 r0                     numpy: the same tanh form
    bias_bc    copy r0 in0; add r0 r0 in1; sigmoid r0 r0        in1 broadcast per channel (C, 1, 1)

Columns: tvmlite per ISA (avx512, avx2, scalar) and per thread count, and numpy. GB/s counts the bytes an ideal
kernel moves: every input read once plus the output written once (a broadcast input counts its own size).

Method: the median of --repeats timings of one call each, after one warm-up call; the output is preallocated.

    python bench/elemwise.py                  # all rows, 1 and 2 threads
    python bench/elemwise.py --n 1048576 --repeats 5 --isa avx512
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import tvmlite
from timing import timed_runs  # bench/timing.py


def _time(fn, repeats):
    return statistics.median(timed_runs(fn, repeats))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4 << 20, help="values per tensor (default 4M)")
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--isa", default="avx512,avx2,scalar", help="comma-separated ISA paths")
    args = ap.parse_args()

    set_isa = tvmlite.get_global_func("topi.set_cpu_isa")
    set_threads = tvmlite.get_global_func("runtime.set_num_threads")
    elemwise = tvmlite.get_global_func("topi.elemwise")
    rng = np.random.default_rng(0)
    n = args.n
    c = 64
    x = rng.standard_normal(n).astype("float32")
    y = rng.standard_normal(n).astype("float32")
    bias = rng.standard_normal((c, 1, 1)).astype("float32")
    x3 = x.reshape(c, -1, 1 << 4) if n % (c * 16) == 0 else None
    out = np.empty(n, "float32")

    def np_gelu():
        t = np.multiply(x, x, out=out)
        t *= x
        t *= np.float32(0.044715)
        t += x
        t *= np.float32(0.7978845608028654)
        np.tanh(t, out=t)
        t += np.float32(1)
        t *= x
        t *= np.float32(0.5)

    def np_bias_sigmoid():
        o = out.reshape(x3.shape)
        np.add(x3, bias, out=o)
        np.negative(o, out=o)
        np.exp(o, out=o)
        o += np.float32(1)
        np.reciprocal(o, out=o)

    rows = [
        ("add_relu", "copy r0 in0; add r0 r0 in1; relu r0 r0", [x, y], 3 * n * 4,
         lambda: np.maximum(np.add(x, y, out=out), 0, out=out)),
        ("gelu", "copy r0 in0; gelu r0 r0", [x], 2 * n * 4, np_gelu),
        ("gelu_tanh", "copy r0 in0; gelu_tanh r0 r0", [x], 2 * n * 4, np_gelu),
    ]
    if x3 is not None:
        rows.append(("bias_sigmoid", "copy r0 in0; add r0 r0 in1; sigmoid r0 r0", [x3, bias], 2 * n * 4,
                     np_bias_sigmoid))

    isas = [s for s in args.isa.split(",") if s]
    threads = [int(t) for t in args.threads.split(",") if t]
    print(f"n = {n} float32, median of {args.repeats}; GB/s = (inputs + output bytes) / time")
    header = f"{'row':14s}" + "".join(f"{f'{i}/{t}t':>14s}" for i in isas for t in threads) + f"{'numpy':>14s}"
    print(header)
    try:
        for name, prog, ins, nbytes, np_fn in rows:
            f = elemwise({"epilogue": prog})
            nd_ins = [tvmlite.nd.array(a) for a in ins]
            nd_out = tvmlite.nd.empty(ins[0].shape, "float32")
            cells = []
            for isa in isas:
                got = set_isa(isa)
                for t in threads:
                    set_threads(t)
                    if got != isa:
                        cells.append("n/a")
                        continue
                    sec = _time(lambda: f(*nd_ins, nd_out), args.repeats)
                    cells.append(f"{nbytes / sec / 1e9:.2f}")
            set_threads(1)
            sec = _time(np_fn, args.repeats)
            cells.append(f"{nbytes / sec / 1e9:.2f}")
            print(f"{name:14s}" + "".join(f"{cell:>14s}" for cell in cells))
    finally:
        set_isa("avx512")
        set_threads(0)


if __name__ == "__main__":
    main()
