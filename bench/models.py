"""Latency of whole models at batch 1: tvmlite's cpu target against onnxruntime and OpenVINO.

Models (tvmlite.models, seeded ONNX built with onnx.helper, no download): ResNet-50, ResNet-18, MobileNetV2,
Inception v1 at 224x224, and a 4-layer BERT-base-sized transformer encoder (seq 128, hidden 768, 12 heads).

Per model and thread count t:
  onnxruntime  SessionOptions intra_op_num_threads=t, inter_op_num_threads=1, ORT_ENABLE_ALL
  OpenVINO     compile_model(model, "CPU", INFERENCE_NUM_THREADS=t, INFERENCE_PRECISION_HINT=f32)
               (only when `openvino` imports; f32, its default on AMX / AVX-512 BF16 CPUs being bf16)
  tvmlite      tvmlite.build(mod, target="cpu", params=params); runtime.set_num_threads(t)
Each runner is checked against onnxruntime's output first, warmed up, then the runners take turns (order rotating,
a pause and one untimed run before each turn's timed runs: idle runtime threads spin after a run and would steal
the other core) and the median latency in ms is reported, with the ratios tvmlite/ORT and tvmlite/OpenVINO
(below 1 = tvmlite faster), and tvmlite's compile time (from_onnx + build). Without the cpu target the tvmlite
columns read n/a and the run goes on.

    python bench/models.py                         # all five, t = 1 and 2, 20 repeats
    python bench/models.py --quick                 # small images / widths: a smoke run of a few seconds
    python bench/models.py --models resnet18,transformer --threads 1 --repeat 10
    python bench/models.py --quick --target debug  # checks this script without the cpu target
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tvmlite  # noqa: E402
from tvmlite import models  # noqa: E402

DEFAULT_MODELS = ["resnet50", "resnet18", "mobilenet_v2", "inception_v1", "transformer"]
LABELS = {"resnet50": "ResNet-50", "resnet18": "ResNet-18", "mobilenet_v2": "MobileNetV2",
          "inception_v1": "Inception v1", "transformer": "Transformer encoder", "unet": "U-Net"}


def _describe(model):
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    return "x".join(map(str, dims))


class OrtRunner:
    name = "onnxruntime"

    def __init__(self, model, feeds, threads):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        self.feeds = feeds

    def __call__(self):
        return self.session.run(None, self.feeds)[0]


class OpenVinoRunner:
    name = "openvino"

    def __init__(self, model, feeds, threads):
        import openvino as ov

        core = ov.Core()
        # f32 like the others: on a CPU with AMX / AVX-512 BF16 OpenVINO's default precision hint is bf16.
        compiled = core.compile_model(core.read_model(model.SerializeToString(), b""), "CPU",
                                      {"INFERENCE_NUM_THREADS": threads, "INFERENCE_PRECISION_HINT": "f32"})
        self.request = compiled.create_infer_request()
        self.feeds = feeds

    def __call__(self):
        self.request.infer(self.feeds)
        return np.asarray(self.request.get_output_tensor(0).data)


class TvmliteRunner:
    """One compiled graph module per model; the thread count is the process-wide pool size, set before each run."""
    name = "tvmlite"

    def __init__(self, lib, feeds, threads):
        self.gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        self.gm.set_input(**feeds)
        self.threads = threads
        self.set_threads = tvmlite.get_global_func("runtime.set_num_threads")

    def __call__(self):
        self.set_threads(self.threads)
        self.gm.run()
        return self.gm.get_output(0).numpy()


def compile_tvmlite(model, target="cpu"):
    """(lib, seconds for from_onnx + build) or (None, reason)."""
    t0 = time.perf_counter()
    try:
        mod, params = tvmlite.frontend.from_onnx(model)
        lib = tvmlite.build(mod, target=target, params=params)
    except Exception as err:  # noqa: BLE001 - reported, the peers are still measured
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return None, f"{type(err).__name__}: {first}"
    return lib, time.perf_counter() - t0


BLOCK = 5  # timed runs per turn
PAUSE = 0.1  # s before a turn: onnxruntime's idle threads spin ~40 ms after its calls (measured here)


def measure(runners, repeat, warmup):
    """{name: median seconds}: warm each runner up, then take turns in a rotating order, each turn a pause, one
    untimed run and BLOCK timed ones. Turns rather than single runs, because a runtime's idle threads spin for a
    while after its run (onnxruntime's by default) and would take the second core from whoever runs next."""
    for run in runners:
        for _ in range(warmup):
            run()
    samples = {run.name: [] for run in runners}
    for r in range(max(1, -(-repeat // BLOCK))):
        order = runners[r % len(runners):] + runners[:r % len(runners)]
        for run in order:
            time.sleep(PAUSE)
            run()
            for _ in range(BLOCK):
                t0 = time.perf_counter()
                run()
                samples[run.name].append(time.perf_counter() - t0)
    return {name: statistics.median(s) for name, s in samples.items()}


def _have_openvino():
    try:
        import openvino  # noqa: F401
    except ImportError:
        return False
    return True


def _ms(seconds):
    return "n/a" if seconds is None else f"{seconds * 1e3:.2f}"


def _ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help=f"comma-separated, from {', '.join(models.MODELS)} (default: {','.join(DEFAULT_MODELS)})")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per runner (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs per runner first (default 3)")
    parser.add_argument("--quick", action="store_true", help="small image sizes and widths: a smoke run")
    parser.add_argument("--target", default="cpu", help="tvmlite target (default cpu; debug checks this script)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in models.MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)} (known: {', '.join(models.MODELS)})")
    threads = [int(t) for t in args.threads.split(",")]

    import onnxruntime as ort

    have_ov = _have_openvino()
    print(f"# Model latency at batch 1 ({'quick sizes' if args.quick else 'benchmark sizes'}), median of "
          f"{args.repeat} interleaved runs after {args.warmup} warm-up runs\n")
    print(f"onnxruntime {ort.__version__}; OpenVINO {'present' if have_ov else 'not installed (column n/a)'}; "
          f"{os.cpu_count()} cpus")

    rows, notes = [], []
    for name in names:
        t0 = time.perf_counter()
        model = models.get_model(name, quick=args.quick)
        t_model = time.perf_counter() - t0
        feeds = models.example_input(model, seed=0)
        label = f"{LABELS.get(name, name)} {_describe(model)}"
        lib, compiled = compile_tvmlite(model, args.target)
        if lib is None:
            notes.append((label, f"tvmlite target '{args.target}' unavailable: {compiled}"))
        print(f"{label} ({len(model.graph.node)} nodes): ONNX built in "
              f"{t_model:.2f} s" + (f", tvmlite compiled in {compiled:.2f} s" if lib is not None else ""),
              file=sys.stderr)
        for t in threads:
            ort_run = OrtRunner(model, feeds, t)
            expected = ort_run()
            runners = [ort_run]
            if have_ov:
                try:
                    runners.append(OpenVinoRunner(model, feeds, t))
                except Exception as err:  # noqa: BLE001
                    notes.append((label, f"OpenVINO failed: {type(err).__name__}: {err}"))
            error = None
            if lib is not None:
                tv = TvmliteRunner(lib, feeds, t)
                error = float(np.max(np.abs(tv() - expected)))
                runners.append(tv)
            times = measure(runners, args.repeat, args.warmup)
            ort_t, ov_t, tv_t = times.get("onnxruntime"), times.get("openvino"), times.get("tvmlite")
            rows.append([label, t, _ms(ort_t), _ms(ov_t), _ms(tv_t), _ratio(tv_t, ort_t),
                         _ratio(tv_t, ov_t), "n/a" if lib is None else f"{compiled:.2f}",
                         "n/a" if error is None else f"{error:.1e}"])
    print()
    print("| model | threads | onnxruntime ms | OpenVINO ms | tvmlite ms | tvmlite/ORT | tvmlite/OpenVINO | "
          "tvmlite compile s | max abs err vs ORT |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    reasons = {}
    for label, reason in notes:
        reasons.setdefault(reason, []).append(label)
    for reason, labels in reasons.items():
        print(f"\n{reason} ({'all models' if len(labels) == len(names) else ', '.join(dict.fromkeys(labels))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
