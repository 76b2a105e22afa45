"""Latency of whole models at batch 1: tvmlite's cpu target against onnxruntime and OpenVINO.

Models (tvmlite.models, seeded ONNX built with onnx.helper, no download): ResNet-50, ResNet-18, MobileNetV2,
Inception v1 at 224x224, and a 4-layer BERT-base-sized transformer encoder (seq 128, hidden 768, 12 heads).

Per model and thread count t:
  onnxruntime  SessionOptions intra_op_num_threads=t, inter_op_num_threads=1, ORT_ENABLE_ALL
  OpenVINO     compile_model(model, "CPU", INFERENCE_NUM_THREADS=t, INFERENCE_PRECISION_HINT=f32)
               (only when `openvino` imports; f32, its default on AMX / AVX-512 BF16 CPUs being bf16)
  tvmlite      tvmlite.build(mod, target="cpu", params=params); runtime.set_num_threads(t)
Each runner runs in a worker process of its own (bench/workers.py; in one process the runtimes' thread pools
disturb each other: onnxruntime's idle threads spin ~40 ms after its runs), one per runner, model and thread count,
tvmlite's compiling the model there. Each runner is checked against onnxruntime's output first, warmed up, then the
workers take turns, one at a time (order rotating; a pause and one untimed run before each turn's timed runs: a
runtime's idle threads spin after a run, in their own process too, and would steal the other core) and the median
latency in ms is reported, with the ratios tvmlite/ORT and tvmlite/OpenVINO (below 1 = tvmlite faster), and
tvmlite's compile time (from_onnx + build). Without the cpu target the tvmlite columns read n/a and the run goes on.

    python bench/models.py                         # all five, t = 1 and 2, 60 repeats
    python bench/models.py --quick                 # small images / widths: a smoke run (~30 s)
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
from timing import ort_session, timed_runs  # noqa: E402  (bench/timing.py)
from workers import Workers  # noqa: E402  (bench/workers.py)

DEFAULT_MODELS = ["resnet50", "resnet18", "mobilenet_v2", "inception_v1", "transformer"]
LABELS = {"resnet50": "ResNet-50", "resnet18": "ResNet-18", "mobilenet_v2": "MobileNetV2",
          "inception_v1": "Inception v1", "transformer": "Transformer encoder", "unet": "U-Net"}


def _describe(model):
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    return "x".join(map(str, dims))


class OrtRunner:
    def __init__(self, model, feeds, threads):
        self.session = ort_session(model, threads)
        self.feeds = feeds

    def __call__(self):
        return self.session.run(None, self.feeds)[0]


class OpenVinoRunner:
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
    """One compiled graph module; the thread count is the process-wide pool size (the worker runs this one only)."""
    def __init__(self, lib, feeds, threads):
        self.gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        self.gm.set_input(**feeds)
        tvmlite.get_global_func("runtime.set_num_threads")(threads)

    def __call__(self):
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
# s before a turn: onnxruntime's idle threads spin ~40 ms after its calls (measured here), in their own process too
# (without it, OpenVINO's turns after onnxruntime's took 6-8 ms instead of 4.6-5 ms: MobileNetV2, 2 threads)
PAUSE = 0.1


class Worker:
    """One runner (a runtime at a thread count, on one model) in its worker process."""

    def __init__(self, runner, model_name, quick, target, threads):
        self.args = runner, model_name, quick, target, threads
        self.run = None

    def prepare(self):
        """{"output": the first output, "compile_s": tvmlite's compile seconds}, or {"note": why there is no runner}."""
        runner, model_name, quick, target, threads = self.args
        model = models.get_model(model_name, quick=quick)
        feeds = models.example_input(model, seed=0)
        if runner == "onnxruntime":
            self.run = OrtRunner(model, feeds, threads)
        elif runner == "openvino":
            try:
                self.run = OpenVinoRunner(model, feeds, threads)
            except Exception as err:  # noqa: BLE001 - reported, the others are still measured
                return {"note": f"OpenVINO failed: {type(err).__name__}: {err}"}
        else:
            lib, compiled = compile_tvmlite(model, target)
            if lib is None:
                return {"note": f"tvmlite target '{target}' unavailable: {compiled}"}
            self.run = TvmliteRunner(lib, feeds, threads)
            return {"output": self.run(), "compile_s": compiled}
        return {"output": self.run()}

    def warmup(self, n):
        for _ in range(n):
            self.run()

    def turn(self, n):
        """One untimed run, then n timed ones (seconds)."""
        return timed_runs(self.run, n)


def measure(call, names, repeat, warmup):
    """{name: median seconds}: warm each worker's runner up, then take turns in a rotating order, each turn a pause,
    one untimed run and BLOCK timed ones. Turns rather than single runs, because a runtime's idle threads spin for a
    while after its run (onnxruntime's by default) and would take the second core from whoever runs next."""
    for name in names:
        call(name, "warmup", warmup)
    samples = {name: [] for name in names}
    for r in range(max(1, -(-repeat // BLOCK))):
        for name in names[r % len(names):] + names[:r % len(names)]:
            time.sleep(PAUSE)
            samples[name] += call(name, "turn", BLOCK)
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
    # 60: twelve turns each. The host's load shifts within a second, and with four turns each (20) one shift weighs
    # on a runtime's median: on a loaded host MobileNetV2 at one thread came out at 1.06x onnxruntime in a 20-repeat
    # run and at 0.94x in the two 100-repeat runs right after it.
    parser.add_argument("--repeat", type=int, default=60, help="timed runs per runner (default 60)")
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

    rows, notes = [], {}  # notes: {reason: {model label: None}}
    runners = ["onnxruntime"] + (["openvino"] if have_ov else []) + ["tvmlite"]
    for name in names:
        t0 = time.perf_counter()
        model = models.get_model(name, quick=args.quick)
        t_model = time.perf_counter() - t0
        label = f"{LABELS.get(name, name)} {_describe(model)}"
        print(f"{label} ({len(model.graph.node)} nodes): ONNX built in {t_model:.2f} s", file=sys.stderr)
        del model
        for t in threads:
            with Workers({r: (Worker, (r, name, args.quick, args.target, t)) for r in runners}) as call:
                ready = {}
                for r in runners:
                    info = call(r, "prepare")
                    if "note" in info:
                        call.close(r)
                        notes.setdefault(info["note"], {})[label] = None
                    else:
                        ready[r] = info
                expected = ready["onnxruntime"]["output"]
                tv = ready.get("tvmlite")
                error = None if tv is None else float(np.max(np.abs(tv["output"] - expected)))
                if tv is not None:
                    print(f"  {t} thread(s): tvmlite compiled in {tv['compile_s']:.2f} s", file=sys.stderr)
                times = measure(call, list(ready), args.repeat, args.warmup)
            ort_t, ov_t, tv_t = times.get("onnxruntime"), times.get("openvino"), times.get("tvmlite")
            rows.append([label, t, _ms(ort_t), _ms(ov_t), _ms(tv_t), _ratio(tv_t, ort_t),
                         _ratio(tv_t, ov_t), "n/a" if tv is None else f"{tv['compile_s']:.2f}",
                         "n/a" if error is None else f"{error:.1e}"])
    print()
    print("| model | threads | onnxruntime ms | OpenVINO ms | tvmlite ms | tvmlite/ORT | tvmlite/OpenVINO | "
          "tvmlite compile s | max abs err vs ORT |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    for reason, labels in notes.items():
        print(f"\n{reason} ({'all models' if len(labels) == len(names) else ', '.join(labels)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
