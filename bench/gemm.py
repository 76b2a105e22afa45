"""How fast the GEMM kernels are on transformer-sized shapes, against numpy's BLAS and onnxruntime's MatMul.

GFLOP/s (2 M N K / time), medians over interleaved repeats in one process, for y = x W^T with x (M, K):
  dense_pack   topi.nn.dense_pack, W packed once ("NK16n"), the form a built model runs
  dense        topi.nn.dense, W as given (M < 4: dot products over W's rows; else W packed per call)
  numpy        x @ W.T (numpy's bundled OpenBLAS)
  ort          onnxruntime MatMul(x, W^T) with W^T an initializer (skipped when onnxruntime is missing)
at the current thread count: TVMLITE_NUM_THREADS for tvmlite and onnxruntime (default: one per core), numpy's
OpenBLAS its own (OPENBLAS_NUM_THREADS).

    python bench/gemm.py            # ~20 s
    python bench/gemm.py --quick
    OPENBLAS_NUM_THREADS=1 TVMLITE_NUM_THREADS=1 python bench/gemm.py     # one core each
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tvmlite  # noqa: E402

SHAPES = [(1, 768, 3072), (1, 3072, 768), (1, 768, 768), (128, 768, 768), (128, 768, 3072), (197, 768, 2304)]


def _ort_session(w_t):
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    k, n = w_t.shape
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["m", n])],
        [numpy_helper.from_array(w_t, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    opts = ort.SessionOptions()
    if os.environ.get("TVMLITE_NUM_THREADS"):
        opts.intra_op_num_threads = int(os.environ["TVMLITE_NUM_THREADS"])
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def _time(fn, budget):
    fn()
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    reps = max(1, int(budget / once / 5))
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        samples.append((time.perf_counter() - t0) / reps)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    budget = 0.05 if args.quick else 0.4
    get = tvmlite.get_global_func
    rng = np.random.default_rng(0)
    print(f"isa {get('topi.cpu_isa')()}, tvmlite threads {os.environ.get('TVMLITE_NUM_THREADS', 'default')}")
    print(f"{'M':>5} {'K':>5} {'N':>5} | {'dense_pack':>10} {'dense':>8} {'numpy':>8} {'ort':>8}   GFLOP/s")
    for m, k, n in SHAPES:
        x = rng.standard_normal((m, k)).astype(np.float32)
        w = rng.standard_normal((n, k)).astype(np.float32)
        nb = get("topi.nn.dense_pack_block")(n)
        wp = np.ascontiguousarray(w.reshape(n // nb, nb, k).transpose(0, 2, 1))
        xd, wd, wpd = tvmlite.nd.array(x), tvmlite.nd.array(w), tvmlite.nd.array(wp)
        out = tvmlite.nd.array(np.zeros((m, n), np.float32))
        pack = get("topi.nn.dense_pack")({"weight_layout": f"NK{nb}n"})
        dense = get("topi.nn.dense")({})
        w_t = np.ascontiguousarray(w.T)
        sess = _ort_session(w_t)
        runs = {
            "dense_pack": lambda: pack(xd, wpd, out),
            "dense": lambda: dense(xd, wd, out),
            "numpy": lambda: np.matmul(x, w_t),
        }
        if sess is not None:
            runs["ort"] = lambda: sess.run(None, {"x": x})
        flops = 2.0 * m * n * k
        cells = []
        for name in ("dense_pack", "dense", "numpy", "ort"):
            cells.append(f"{flops / _time(runs[name], budget) / 1e9:8.1f}" if name in runs else f"{'-':>8}")
        pack(xd, wpd, out)
        assert np.allclose(out.numpy(), x @ w.T, rtol=1e-3, atol=1e-3)
        print(f"{m:5d} {k:5d} {n:5d} | {cells[0]:>10} {cells[1]} {cells[2]} {cells[3]}")


if __name__ == "__main__":
    main()
