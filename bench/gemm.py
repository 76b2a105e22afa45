"""How fast the GEMM kernels are on transformer-sized shapes, against numpy's BLAS and onnxruntime's MatMul.

GFLOP/s (2 M N K / time, times B for batched rows), for y = x W^T with x (M, K), W (N, K):
  dense_pack   topi.nn.dense_pack, W packed once ("NK16n"), the form a built model runs
  dense        topi.nn.dense, W as given (M < 4: dot products over W's rows; else W packed per call)
  numpy        x @ W.T (numpy's bundled OpenBLAS, on the same number of threads)
  ort          onnxruntime MatMul(x, W^T) with W^T an initializer (skipped when onnxruntime is missing)
and, for the attention rows "bmm B x M x K x N" (B heads of x (M, K) times y (K, N); the first with y given as
(N, K), batch_matmul's transpose_b): dense_pack is topi.nn.batch_matmul, dense is empty, numpy is np.matmul, ort
a MatMul of the two inputs. Rows with N = 64 show the GEMM driver's column split across threads.

Method (as bench/conv2d.py): each runtime runs in a worker process of its own per thread count (bench/workers.py;
tvmlite's two kernels share one), the workers taking turns one at a time for --rounds rounds, the order
alternating: in one process onnxruntime's and OpenBLAS's idle threads spin after each call and took a core from
the next runtime's 2-thread samples (ort at 67 GFLOP/s on 128x768x768 right after numpy, ~200 alone); and since
idle threads spin in their own process too, the parent pauses 0.3 s before each turn. Each sample
times a loop of calls lasting about --target-ms; the figure is the median of the --repeat samples of all rounds
(--stat min: the fastest). Before timing, each worker returns its outputs and the parent checks them against
numpy's in float64.

    python bench/gemm.py                 # 1 and 2 threads, ~30 s
    python bench/gemm.py --quick         # fewer, shorter samples
    python bench/gemm.py --threads 2 --shapes 64
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from timing import ort_session, sample  # noqa: E402  (bench/timing.py)
from workers import Workers, take_turns  # noqa: E402  (bench/workers.py)

# (M, K, N) for dense rows; (B, M, K, N, transpose_b) for attention rows
SHAPES = [(1, 768, 3072), (1, 3072, 768), (1, 768, 768), (128, 768, 768), (128, 768, 3072), (128, 3072, 768),
          (197, 768, 2304), (128, 768, 64), (512, 256, 64), (3136, 64, 64)]
BMM_SHAPES = [(12, 128, 64, 128, 1), (12, 128, 128, 64, 0)]
RUNTIMES = {"tvm": ("dense_pack", "dense"), "numpy": ("numpy",), "ort": ("ort",)}
# Before each turn: the previous worker's idle threads still spin in its process (onnxruntime's ~40 ms, OpenBLAS's
# ~0.1 s after a call) and took a core from the next turn's 2-thread samples (tvmlite's dense_pack at ~100 GFLOP/s
# right after onnxruntime's turn, 205 alone).
PAUSE_S = 0.3
COLUMNS = ("dense_pack", "dense", "numpy", "ort")


def row_name(shape):
    if len(shape) == 3:
        return "{:5d} {:5d} {:5d}".format(*shape)
    return "bmm {}x{}x{}x{}".format(*shape[:4])


def flops(shape):
    if len(shape) == 3:
        m, k, n = shape
        return 2.0 * m * n * k
    b, m, k, n, _ = shape
    return 2.0 * b * m * n * k


def tensors(shape):
    """The operands of a row, seeded by the row itself: every worker builds the same ones."""
    rng = np.random.default_rng(list(shape))
    if len(shape) == 3:
        m, k, n = shape
        return rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((n, k)).astype(np.float32)
    b, m, k, n, tb = shape
    x = rng.standard_normal((b, m, k)).astype(np.float32)
    y = rng.standard_normal((b, n, k) if tb else (b, k, n)).astype(np.float32)
    return x, y


def reference(shape):
    x, y = tensors(shape)
    if len(shape) == 3:
        return x.astype(np.float64) @ y.T.astype(np.float64)
    return x.astype(np.float64) @ (np.swapaxes(y, 1, 2) if shape[4] else y).astype(np.float64)


def _ort_session(graph_inputs, node, threads, inits):
    from onnx import TensorProto, helper

    graph = helper.make_graph([node], "mm", graph_inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return ort_session(model, threads)


def build(column, shape, threads):
    """A callable returning the row's output (a numpy array) for one column, or None when it has no such cell."""
    x, y = tensors(shape)
    if column in ("dense_pack", "dense"):
        import tvmlite

        get = tvmlite.get_global_func
        if len(shape) == 3:
            n, k = y.shape
            out = tvmlite.nd.empty((x.shape[0], n))
            xd = tvmlite.nd.array(x)
            if column == "dense":
                f, wd = get("topi.nn.dense")({}), tvmlite.nd.array(y)
            else:
                nb = get("topi.nn.dense_pack_block")(n)
                f = get("topi.nn.dense_pack")({"weight_layout": f"NK{nb}n"})
                wd = tvmlite.nd.array(np.ascontiguousarray(y.reshape(n // nb, nb, k).transpose(0, 2, 1)))
            return lambda: (f(xd, wd, out), out)[1]
        if column == "dense":
            return None
        b, m, k, n, tb = shape
        f = get("topi.nn.batch_matmul")({"transpose_b": tb})
        xd, yd, out = tvmlite.nd.array(x), tvmlite.nd.array(y), tvmlite.nd.empty((b, m, n))
        return lambda: (f(xd, yd, out), out)[1]
    if column == "numpy":
        if len(shape) == 3:
            w_t = np.ascontiguousarray(y.T)
            return lambda: np.matmul(x, w_t)
        yy = np.ascontiguousarray(np.swapaxes(y, 1, 2)) if shape[4] else y
        return lambda: np.matmul(x, yy)
    from onnx import TensorProto, helper, numpy_helper

    if len(shape) == 3:
        w_t = np.ascontiguousarray(y.T)
        sess = _ort_session([helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", x.shape[1]])],
                            helper.make_node("MatMul", ["x", "w"], ["y"]), threads,
                            [numpy_helper.from_array(w_t, "w")])
        return lambda: sess.run(None, {"x": x})[0]
    yy = np.ascontiguousarray(np.swapaxes(y, 1, 2)) if shape[4] else y
    sess = _ort_session([helper.make_tensor_value_info(name, TensorProto.FLOAT, list(a.shape))
                         for name, a in (("a", x), ("b", yy))],
                        helper.make_node("MatMul", ["a", "b"], ["y"]), threads, [])
    return lambda: sess.run(None, {"a": x, "b": yy})[0]


class Worker:
    """One runtime's columns at one thread count, in a worker process of its own."""

    def __init__(self, runtime, threads, shapes, target_s):
        self.columns, self.threads, self.shapes, self.target_s = RUNTIMES[runtime], threads, shapes, target_s
        if runtime == "tvm":
            import tvmlite

            tvmlite.get_global_func("runtime.set_num_threads")(threads)
        self.cells = [(c, s) for c in self.columns for s in shapes]
        self.loops = {}

    def check(self):
        """{(column, shape): output}; fixes each cell's loops per sample."""
        outputs = {}
        for column, shape in self.cells:
            fn = build(column, shape, self.threads)
            if fn is None:
                continue
            fn()
            t0 = time.perf_counter()
            got = fn()
            outputs[column, shape] = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
            self.loops[column, shape] = max(1, int(self.target_s / max(time.perf_counter() - t0, 1e-7)))
        return outputs

    def round(self, n):
        """{(column, shape): [n samples]}, each cell built and warmed up first and freed after: an onnxruntime
        session's threads spin ~40 ms after its last run and would take a core from the next cell's samples."""
        samples = {}
        for key in self.loops:
            fn = build(*key, self.threads)
            for _ in range(3):
                fn()
            samples[key] = [sample(fn, self.loops[key]) for _ in range(n)]
            del fn
        return samples


def measure(runtimes, threads, shapes, repeat, rounds, target_s):
    """{(column, shape): [samples]} at one thread count, each runtime in its own process, taking turns."""
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)  # read when a worker imports numpy
    samples = {}
    with Workers({rt: (Worker, (rt, threads, shapes, target_s)) for rt in runtimes}) as call:
        for rt in runtimes:
            for (column, shape), got in call(rt, "check").items():
                want = reference(shape)
                err = np.abs(got - want).max()
                if err > 1e-3 * max(1.0, float(np.abs(want).max())):
                    raise SystemExit(f"{column} {row_name(shape)}, {threads} thread(s): off by {err}")
        for _, new in take_turns(call, runtimes, rounds, repeat, threads, pause_s=PAUSE_S):
            for key, cell in new.items():
                samples.setdefault(key, []).extend(cell)
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 samples of ~1 ms per cell")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=9, help="samples per cell")
    parser.add_argument("--rounds", type=int, default=3, help="turns each runtime's worker takes per thread count")
    parser.add_argument("--target-ms", type=float, default=2.0, help="length of one sample")
    parser.add_argument("--stat", choices=["median", "min"], default="median")
    parser.add_argument("--shapes", default="", help="comma-separated substrings of row names (e.g. 64,bmm)")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.rounds, args.target_ms = 3, 1, 1.0
    try:
        import onnxruntime  # noqa: F401
        runtimes = ["tvm", "numpy", "ort"]
    except ImportError:
        runtimes = ["tvm", "numpy"]
    shapes = [s for s in SHAPES + BMM_SHAPES
              if not args.shapes or any(f in row_name(s) for f in args.shapes.split(","))]
    stat = statistics.median if args.stat == "median" else min
    import tvmlite

    print(f"isa {tvmlite.get_global_func('topi.cpu_isa')()}; GFLOP/s, {args.stat} of {args.repeat} samples of "
          f"~{args.target_ms:g} ms in {args.rounds} rounds, each runtime in its own process")
    for t in (int(v) for v in args.threads.split(",")):
        samples = measure(runtimes, t, shapes, args.repeat, max(1, min(args.rounds, args.repeat)),
                          args.target_ms / 1e3)
        print(f"{t} thread(s)")
        print(f"{'M':>5} {'K':>5} {'N':>5} | {'dense_pack':>10} {'dense':>8} {'numpy':>8} {'ort':>8}")
        for shape in shapes:
            cells = [f"{flops(shape) / stat(samples[c, shape]) / 1e9:.1f}" if (c, shape) in samples else "-"
                     for c in COLUMNS]
            print(f"{row_name(shape):>17} | {cells[0]:>10} {cells[1]:>8} {cells[2]:>8} {cells[3]:>8}", flush=True)


if __name__ == "__main__":
    main()
