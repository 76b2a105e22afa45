"""How fast the IR and the ONNX frontend are.

Three tables, medians over interleaved repeats in one process:

1. IR node construction, ns per node: ``relay.add(x, y)`` (the builder: maker lookup done once, one FFI call,
   checked attrs), ``relay.Call(op, [x, y])`` (the constructor), against a plain Python class with ``__slots__``
   and two fields (the floor for "making an object from Python"), with the ratio to it.
2. ``from_onnx`` + InferType on real-sized models: onnx's ``light_resnet50`` (from onnx's test data, when the
   installed onnx ships it) and a 12-layer BERT-style encoder built with onnx.helper (demo_model.py). A model that
   cannot be imported (a converter not there yet) is reported with the reason; the run goes on.
3. Growth: from_onnx + InferType on chains of N elementwise nodes for growing N, time per node (flat = linear).

    python bench/frontend.py            # ~30 s
    python bench/frontend.py --quick    # smoke run
"""
import argparse
import gc
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tvmlite  # noqa: E402
from tvmlite import relay  # noqa: E402
from tvmlite.ir.op import Op  # noqa: E402
from tvmlite.testing import Pair  # noqa: E402


class Plain:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b


def _time_loop(fn, n):
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        return (time.perf_counter_ns() - t0) / n
    finally:
        gc.enable()


def _calibrate(fn, target_ns=4e6):
    n = 16
    while True:
        t = _time_loop(fn, n) * n
        if t >= target_ns or n >= 1 << 22:
            return n
        n *= 2


def bench_construction(repeats):
    x = relay.var("x", shape=(1, 3), dtype="float32")
    y = relay.var("y", shape=(1, 3), dtype="float32")
    add_op = Op.get("add")
    t = relay.Tuple([x, y])
    rows = [("Plain(x, y)  (__slots__, 2 fields)", lambda: Plain(x, y)),
            ("testing.Pair(x, y)  (C++, 2 fields, refl::init)", lambda: Pair(x, y)),
            ("relay.TupleGetItem(t, 0)  (refl::init)", lambda: relay.TupleGetItem(t, 0)),
            ("relay.add(x, y)", lambda: relay.add(x, y)),
            ("relay.Call(op, [x, y])", lambda: relay.Call(add_op, [x, y]))]
    assert relay.add(x, y).op.same_as(add_op) and relay.Call(add_op, [x, y]).args[1].same_as(y)
    counts = [_calibrate(fn) for _, fn in rows]
    samples = [[] for _ in rows]
    for r in range(repeats):  # interleaved, order rotating
        order = list(range(len(rows)))
        order = order[r % len(order):] + order[:r % len(order)]
        for i in order:
            samples[i].append(_time_loop(rows[i][1], counts[i]))
    medians = [statistics.median(s) for s in samples]
    print("\n## IR node construction (ns per node; median of %d repeats)\n" % repeats)
    print("| operation | ns | ratio to Plain |")
    print("| --- | --- | --- |")
    for (name, _), m in zip(rows, medians):
        print(f"| `{name}` | {m:.1f} | {m / medians[0]:.2f}x |")


def _import_time(model, repeats):
    times = []
    mod = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        mod, _params = tvmlite.frontend.from_onnx(model)
        mod = relay.transform.InferType()(mod)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), mod


def _count_calls(mod):
    from tvmlite.cli import op_counts

    return sum(op_counts(mod).values())


def bench_models(repeats):
    import onnx

    from tvmlite.relay.frontend.onnx.demo_model import transformer_encoder_model

    models = []
    light = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", "light_resnet50.onnx")
    if os.path.exists(light):
        models.append(("light_resnet50 (onnx test data)", lambda: onnx.load(light)))
    else:
        print(f"\n(light_resnet50 is not in this onnx installation: {light})")
    models.append(("12-layer transformer encoder (onnx.helper)", lambda: transformer_encoder_model(layers=12)))
    print(f"\n## from_onnx + InferType (median of {repeats})\n")
    print("| model | ONNX nodes | IR calls | time | per ONNX node |")
    print("| --- | --- | --- | --- | --- |")
    failures = []
    for name, load in models:
        model = load()
        try:
            t, mod = _import_time(model, repeats)
        except Exception as err:  # noqa: BLE001 - report and go on
            first = str(err).strip().splitlines()[0] if str(err).strip() else ""
            failures.append((name, f"{type(err).__name__}: {first}"))
            print(f"| {name} | {len(model.graph.node)} | - | not imported | - |")
            continue
        n = len(model.graph.node)
        print(f"| {name} | {n} | {_count_calls(mod)} | {t * 1e3:.1f} ms | {t / n * 1e6:.1f} us |")
    for name, why in failures:
        print(f"\n{name} could not be imported: {why}")


def _chain_model(n):
    from onnx import TensorProto, helper

    nodes = []
    prev = "x"
    for i in range(n):
        op = ("Add", "Mul", "Relu", "Sub")[i % 4]
        out = f"t{i}"
        nodes.append(helper.make_node(op, [prev] if op == "Relu" else [prev, "x"], [out], name=f"n{i}"))
        prev = out
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def bench_growth(sizes, repeats):
    print(f"\n## Growth: chains of N elementwise nodes (median of {repeats})\n")
    print("| N | from_onnx + InferType | per node |")
    print("| --- | --- | --- |")
    per_node = []
    for n in sizes:
        model = _chain_model(n)
        t, _ = _import_time(model, repeats)
        per_node.append(t / n)
        print(f"| {n} | {t * 1e3:.1f} ms | {t / n * 1e6:.1f} us |")
    print(f"\nper-node time, largest / smallest N: {per_node[-1] / per_node[0]:.2f}x (1.0x = linear)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few repeats and small graphs (a smoke run)")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 15
    np.random.seed(0)
    print(f"tvmlite {tvmlite.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}")
    bench_construction(repeats)
    bench_models(1 if args.quick else 5)
    bench_growth([50, 100, 200] if args.quick else [250, 500, 1000, 2000, 4000], 1 if args.quick else 5)


if __name__ == "__main__":
    main()
