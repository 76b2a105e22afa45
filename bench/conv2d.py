#!/usr/bin/env python3
"""The conv kernels tvmlite.build picks, per conv layer of ResNet-18, ResNet-50 and MobileNetV2, against onnxruntime
and torch (also its oneDNN path).

Rows: every distinct conv of the three models at batch 1 (224x224 input), listed once with the models using it.
Columns, for each thread count:
    tvmlite     median latency of the kernel tvmlite.build picks for the layer, on pre-packed blocked tensors
                (weights packed once, output preallocated), bound once as the executor binds it:
                topi.nn.conv2d_nchwc, or topi.nn.conv2d_winograd_nchwc (rows marked "w") for the 3x3 layers
                (stride 1, or 2: the polyphase F(4x4, 2x2) or F(2x2, 2x2)) where topi.nn.conv2d_winograd_tile picks
                Winograd (--no-winograd: always the direct conv)
    GF/s, %pk   2 * MACs of the direct conv / latency (for Winograd rows an effective rate, above the machine's
                peak when the saved multiplies outweigh the transforms), and that against --peak GFLOP/s per thread
                (default by the kernel path: 160 for AVX-512, fp32 on two FMA units at ~2.5 GHz; 100 for AVX2, what
                a register-only FMA loop reaches on the 2-core Zen 3 these AVX2 figures come from; 12 for scalar)
    ort         median latency of an onnxruntime session holding that one Conv (NCHW, weight an initializer,
                graph optimizations on, intra_op_num_threads = the thread count)
    ort/tvm     the ratio: above 1 means tvmlite is faster
    torch, t/tvm      when torch is installed: torch.nn.Conv2d (+ ReLU) in inference mode, and the ratio
    mkldnn, m/tvm     the same module through torch.utils.mkldnn (oneDNN's blocked layouts, input and weights
                      converted once), and the ratio
MobileNetV2's depthwise convs are rows only when topi.nn.depthwise_conv2d_nchwc is registered (another kernel);
otherwise a note says they were skipped.
Below the table: per thread count, each runtime's geomean and minimum ratio to tvmlite and the layers where tvmlite
is slower; then each runtime's own speed-up from the first thread count to the others (geomean and minimum over the
layers): speed-ups near 1, often for every runtime, mean the host took the second core for that phase.

Method: each runtime runs in its own worker process (bench/workers.py), one per runtime and thread count: in one
process onnxruntime's idle intra-op threads spin ~40 ms after each of its calls (process CPU time measured during a
sleep) and tvmlite's 2-thread samples taken after them ran on one core (a 320->1280 1x1 conv at 7x7: 0.18 ms alone,
0.30-0.55 ms next to onnxruntime, even after 60-200 ms pauses). The workers take turns, one at a time, for --rounds
rounds (the order alternating), so the machine's noise still hits both in the same time window; in a round a worker
builds each layer's callable, warms it up (~10 ms: a fresh onnxruntime session's first 2-3 calls are slow), times
its share of the --repeat samples and frees it before the next layer (so onnxruntime's spinning threads of one
layer's session never overlap the next layer); the workers' numpy runs on one thread (OpenBLAS's threads spin too).
Each sample times a loop of calls lasting about --target-ms; the figure is the median over the --repeat samples of
all rounds (--stat min: the fastest sample, the better estimate of what the code can do on a machine whose cores
other processes share). Before timing, each worker returns one output per layer and the parent checks them against
each other.

Usage
    python bench/conv2d.py                          # every layer, 1 and 2 threads (~2 min)
    python bench/conv2d.py --stat min               # the fastest sample: less noise on a shared machine
    python bench/conv2d.py --layers r50 --threads 1 --repeat 9
    python bench/conv2d.py --layers 3x3             # substring filter on the row name
    python bench/conv2d.py --isa avx2               # the AVX2 path (8-lane blocks), on an AVX-512 machine
    python bench/conv2d.py --bias-relu              # conv + bias + relu, as the models run it
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import tvmlite
from timing import OrtCall, calibrate, warm, warm_samples  # bench/timing.py
from workers import Workers, samples_per_item, take_turns  # bench/workers.py

try:
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # pragma: no cover - the bench still shows tvmlite's figures
    ort = None

import importlib.util

HAS_TORCH = importlib.util.find_spec("torch") is not None  # imported only by the torch workers


def block_size(c, cap=16):
    """The layout's channel block, as AlterOpLayout picks it: the largest of 16, 8, 4, 2, 1 dividing c and at most
    cap (16 on AVX-512, 8 on AVX2 and scalar builds: max_block_size()); 3 for the 3-channel stem."""
    if c == 3:
        return 3
    for b in (16, 8, 4, 2, 1):
        if b <= cap and c % b == 0:
            return b
    return 1


# (C, O, H, K, stride, groups); H = input size (square), padding = K // 2.
RESNET18 = [
    (3, 64, 224, 7, 2, 1),
    (64, 64, 56, 3, 1, 1),
    (64, 128, 56, 3, 2, 1), (128, 128, 28, 3, 1, 1), (64, 128, 56, 1, 2, 1),
    (128, 256, 28, 3, 2, 1), (256, 256, 14, 3, 1, 1), (128, 256, 28, 1, 2, 1),
    (256, 512, 14, 3, 2, 1), (512, 512, 7, 3, 1, 1), (256, 512, 14, 1, 2, 1),
]
RESNET50 = [
    (3, 64, 224, 7, 2, 1),
    (64, 64, 56, 1, 1, 1), (64, 64, 56, 3, 1, 1), (64, 256, 56, 1, 1, 1), (256, 64, 56, 1, 1, 1),
    (256, 128, 56, 1, 1, 1), (128, 128, 56, 3, 2, 1), (128, 512, 28, 1, 1, 1), (256, 512, 56, 1, 2, 1),
    (512, 128, 28, 1, 1, 1), (128, 128, 28, 3, 1, 1),
    (512, 256, 28, 1, 1, 1), (256, 256, 28, 3, 2, 1), (256, 1024, 14, 1, 1, 1), (512, 1024, 28, 1, 2, 1),
    (1024, 256, 14, 1, 1, 1), (256, 256, 14, 3, 1, 1),
    (1024, 512, 14, 1, 1, 1), (512, 512, 14, 3, 2, 1), (512, 2048, 7, 1, 1, 1), (1024, 2048, 14, 1, 2, 1),
    (2048, 512, 7, 1, 1, 1), (512, 512, 7, 3, 1, 1),
]
MOBILENETV2 = [
    (3, 32, 224, 3, 2, 1), (32, 32, 112, 3, 1, 32), (32, 16, 112, 1, 1, 1),
    (16, 96, 112, 1, 1, 1), (96, 96, 112, 3, 2, 96), (96, 24, 56, 1, 1, 1),
    (24, 144, 56, 1, 1, 1), (144, 144, 56, 3, 1, 144), (144, 24, 56, 1, 1, 1), (144, 144, 56, 3, 2, 144),
    (144, 32, 28, 1, 1, 1), (32, 192, 28, 1, 1, 1), (192, 192, 28, 3, 1, 192), (192, 32, 28, 1, 1, 1),
    (192, 192, 28, 3, 2, 192), (192, 64, 14, 1, 1, 1), (64, 384, 14, 1, 1, 1), (384, 384, 14, 3, 1, 384),
    (384, 64, 14, 1, 1, 1), (384, 96, 14, 1, 1, 1), (96, 576, 14, 1, 1, 1), (576, 576, 14, 3, 1, 576),
    (576, 96, 14, 1, 1, 1), (576, 576, 14, 3, 2, 576), (576, 160, 7, 1, 1, 1), (160, 960, 7, 1, 1, 1),
    (960, 960, 7, 3, 1, 960), (960, 160, 7, 1, 1, 1), (960, 320, 7, 1, 1, 1), (320, 1280, 7, 1, 1, 1),
]
MODELS = {"r18": RESNET18, "r50": RESNET50, "mv2": MOBILENETV2}


def max_block_size():
    """AlterOpLayout's largest block on this process's ISA (topi.set_cpu_isa included): the ISA's lanes, at least 8."""
    return 16 if tvmlite.get_global_func("topi.cpu_isa")() == "avx512" else 8


def layer_name(layer):
    c, o, h, k, s, g = layer
    dw = "dw" if g > 1 and g == c else ""
    return f"{c}->{o} {k}x{k}{dw} s{s} @{h}"


def distinct_layers(filter_text):
    rows = {}
    for model, layers in MODELS.items():
        for layer in layers:
            rows.setdefault(layer, []).append(model)
    out = []
    for layer, models in rows.items():
        name = f"{layer_name(layer)} [{','.join(dict.fromkeys(models))}]"
        if not filter_text or any(f in name for f in filter_text.split(",")):
            out.append((name, layer))
    return out


def macs(layer):
    c, o, h, k, s, g = layer
    oh = (h + 2 * (k // 2) - k) // s + 1
    return oh * oh * o * (c // g) * k * k


def winograd_tile(layer):
    """The tile size tvmlite.build would use for the layer (AlterOpLayout's question), 0 for the direct conv."""
    c, o, h, k, s, g = layer
    tile_of = tvmlite.get_global_func("topi.nn.conv2d_winograd_tile", allow_missing=True)
    if tile_of is None or (k, g) != (3, 1) or s not in (1, 2):
        return 0
    oh = (h - 1) // s + 1
    return int(tile_of(c, o, oh, oh, s))


def winograd_weight(w, tile, oc, stride):
    """(O, C, 3, 3) -> (alpha, alpha, O / oc, C, oc) ((3, 3, O / oc, 4C, oc) for stride 2): the folded
    nn.contrib_conv2d_winograd_weight_transform, packed as AlterOpLayout's layout_transform "HWOI" -> "HWOI{oc}o"."""
    from tvmlite.relay.op._layout import transform_array
    from tvmlite.relay.op.nn._winograd import winograd_weight_transform

    return transform_array(winograd_weight_transform(w, tile, stride), "HWOI", f"HWOI{oc}o")


class TvmliteConv:
    """The kernel bound once, tensors packed and allocated once: what the graph executor does per node."""

    def __init__(self, layer, x, w, bias=None, winograd=True):
        c, o, h, k, s, g = layer
        p = k // 2
        depthwise = g > 1 and g == c
        cap = max_block_size()
        ic, oc = (1 if depthwise else block_size(c, cap)), block_size(o, cap)
        self.tile = winograd_tile(layer) if winograd else 0
        name = ("topi.nn.depthwise_conv2d_nchwc" if depthwise else
                "topi.nn.conv2d_winograd_nchwc" if self.tile else "topi.nn.conv2d_nchwc")
        attrs = {"strides": [s, s], "padding": [p, p, p, p], "dilation": [1, 1], "groups": g}
        if self.tile:
            attrs["tile_size"] = self.tile
        self.extra = []
        if bias is not None:  # the fused group conv + bias + relu
            attrs["epilogue"] = "add r0 r0 in0; relu r0 r0"
            self.extra = [tvmlite.nd.array(np.ascontiguousarray(bias.reshape(1, o // oc, 1, 1, oc)))]
        self.kernel = tvmlite.get_global_func(name)(attrs)
        n = x.shape[0]
        dic = oc if depthwise else ic
        self.oc = oc
        self.data = tvmlite.nd.array(np.ascontiguousarray(
            x.reshape(n, c // dic, dic, h, h).transpose(0, 1, 3, 4, 2)))
        cg = c // g
        if self.tile:
            self.weight = tvmlite.nd.array(winograd_weight(w, self.tile, oc, s))
        else:
            wb = w.reshape(o // oc, oc, cg // ic, ic, k, k).transpose(0, 2, 4, 5, 3, 1)
            self.weight = tvmlite.nd.array(np.ascontiguousarray(wb))
        oh = (h + 2 * p - k) // s + 1
        self.out = tvmlite.nd.empty((n, o // oc, oh, oh, oc))

    def __call__(self):
        self.kernel(self.data, self.weight, *self.extra, self.out)

    def result(self):
        y = self.out.numpy()
        n, ob, oh, ow, oc = y.shape
        return y.transpose(0, 1, 4, 2, 3).reshape(n, ob * oc, oh, ow)


class OrtConv(OrtCall):
    def __init__(self, layer, x, w, threads, bias=None):
        c, o, h, k, s, g = layer
        p = k // 2
        inputs, inits = ["x", "w"], [numpy_helper.from_array(w, "w")]
        if bias is not None:
            inputs.append("b")
            inits.append(numpy_helper.from_array(bias, "b"))
        nodes = [helper.make_node("Conv", inputs, ["c" if bias is not None else "y"], kernel_shape=[k, k],
                                  strides=[s, s], pads=[p, p, p, p], group=g)]
        if bias is not None:
            nodes.append(helper.make_node("Relu", ["c"], ["y"]))  # onnxruntime fuses it into the Conv
        graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        super().__init__(model, threads, {"x": x})


class TorchConv:
    """torch.nn.Conv2d (+ ReLU) in inference mode; mkldnn: its oneDNN path (torch.utils.mkldnn.to_mkldnn on the
    module, the input as an mkldnn tensor), as PyTorch serves a CPU model through oneDNN."""

    def __init__(self, layer, x, w, threads, bias=None, mkldnn=False):
        import torch
        import torch.utils.mkldnn  # noqa: F401 - a submodule torch does not import itself

        torch.set_num_threads(threads)
        c, o, h, k, s, g = layer
        conv = torch.nn.Conv2d(c, o, k, stride=s, padding=k // 2, groups=g, bias=bias is not None)
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(w))
            if bias is not None:
                conv.bias.copy_(torch.from_numpy(bias))
        module = torch.nn.Sequential(conv, torch.nn.ReLU()) if bias is not None else conv
        module.eval()
        self.x = torch.from_numpy(x)
        if mkldnn:
            module = torch.utils.mkldnn.to_mkldnn(module)
            self.x = self.x.to_mkldnn()
        self.torch, self.module, self.mkldnn, self.y = torch, module, mkldnn, None

    def __call__(self):
        with self.torch.inference_mode():
            self.y = self.module(self.x)

    def result(self):
        return (self.y.to_dense() if self.mkldnn else self.y).numpy()


def layer_tensors(layer, bias_relu):
    """x, w and bias (or None) of a layer, seeded by the layer itself: every worker process builds the same ones."""
    c, o, h, k, s, g = layer
    rng = np.random.default_rng(list(layer))
    x = rng.standard_normal((1, c, h, h)).astype("float32")
    w = (rng.standard_normal((o, c // g, k, k)) / np.sqrt(c // g * k * k)).astype("float32")
    return x, w, (rng.standard_normal(o).astype("float32") if bias_relu else None)


class Worker:
    """One runtime at one thread count, in a worker process of its own (see Method in the module docstring)."""

    def __init__(self, runtime, threads, layers, opts):
        self.runtime, self.threads, self.layers, self.opts = runtime, threads, layers, opts
        self.loops = []
        if runtime == "tvm":
            if opts["isa"]:
                tvmlite.get_global_func("topi.set_cpu_isa")(opts["isa"])
            tvmlite.get_global_func("runtime.set_num_threads")(threads)

    def build(self, layer):
        x, w, bias = layer_tensors(layer, self.opts["bias_relu"])
        if self.runtime == "tvm":
            return TvmliteConv(layer, x, w, bias, winograd=self.opts["winograd"])
        if self.runtime in ("torch", "mkldnn"):
            return TorchConv(layer, x, w, self.threads, bias, mkldnn=self.runtime == "mkldnn")
        return OrtConv(layer, x, w, self.threads, bias)

    def check(self):
        """One output per layer, to check against the other runtimes; fixes each layer's loops per sample."""
        outputs = []
        for layer in self.layers:
            fn = self.build(layer)
            warm(fn)
            outputs.append(fn.result())
            self.loops.append(calibrate(fn, self.opts["target_ms"] / 1e3))
        return outputs

    def round(self, n):
        """n samples per layer. Each layer's callable is freed before the next one is built: an onnxruntime
        session's threads spin ~40 ms after its last run and would take a core from the next layer's samples."""
        samples = []
        time.sleep(0.05)  # the previous worker's idle threads (torch's OpenMP ones spin after a call) settle first
        for layer, loops in zip(self.layers, self.loops):
            samples.append(warm_samples(self.build(layer), loops, n))
        return samples


#: runtime key -> the name in messages; the columns: each one's ms and its ratio to tvmlite's
RUNTIMES = {"tvm": "tvmlite", "ort": "onnxruntime", "torch": "torch", "mkldnn": "torch oneDNN (mkldnn)"}
COLUMNS = {"ort": ("ort ms", "ort/tvm"), "torch": ("torch ms", "t/tvm"), "mkldnn": ("mkldnn ms", "m/tvm")}


def measure(runtimes, threads, layers, opts, repeat, rounds):
    """{runtime: [samples of each layer]} at one thread count, each runtime in its own process, taking turns;
    layers: (name, layer) pairs."""
    shapes = [layer for _, layer in layers]
    with Workers({rt: (Worker, (rt, threads, shapes, opts)) for rt in runtimes}) as call:
        outputs = {rt: call(rt, "check") for rt in runtimes}
        for rt in runtimes[1:]:
            for (name, _), got, want in zip(layers, outputs["tvm"], outputs[rt]):
                err = np.abs(got - want).max()
                if err > 1e-3 * max(1.0, float(np.abs(want).max())):
                    raise SystemExit(f"{name}, {threads} thread(s): tvmlite and {RUNTIMES[rt]} differ by {err}")
        del outputs
        return samples_per_item(take_turns(call, runtimes, rounds, repeat, threads), runtimes, len(layers))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", default="", help="comma-separated substrings of row names (e.g. r50,3x3)")
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--repeat", type=int, default=21, help="samples per cell")
    # 7 turns a runtime (3 before): the host's load shifts within a second, and in three turns one slow or fast
    # phase moved a layer's median by up to 15% (onnxruntime's 320->1280 1x1 at 7x7: 0.373-0.440 ms in three runs).
    ap.add_argument("--rounds", type=int, default=7,
                    help="turns each runtime's worker takes per thread count; the samples are split among them")
    ap.add_argument("--peak", type=float, default=None,
                    help="peak GFLOP/s of one thread (default by the kernel path: avx512 160, avx2 100, scalar 12)")
    ap.add_argument("--target-ms", type=float, default=1.0,
                    help="length of one sample (short: a preemption by another process spoils one sample, not all)")
    ap.add_argument("--stat", choices=["median", "min"], default="median", help="how samples become one figure")
    ap.add_argument("--bias-relu", action="store_true",
                    help="time conv + bias + relu (tvmlite's fused epilogue; onnxruntime's Conv+Relu fusion)")
    ap.add_argument("--no-winograd", action="store_true", help="time the direct conv on every layer")
    ap.add_argument("--isa", choices=["avx512", "avx2", "scalar"], default=None,
                    help="force a lower kernel path (topi.set_cpu_isa); default: the CPU's best")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    rounds = max(1, min(args.rounds, args.repeat))
    has_dw = "topi.nn.depthwise_conv2d_nchwc" in tvmlite.list_global_func_names()
    layers = distinct_layers(args.layers)
    skipped = [n for n, layer in layers if layer[5] > 1 and not has_dw]
    layers = [(n, layer) for n, layer in layers if has_dw or layer[5] == 1]
    if args.isa:
        tvmlite.get_global_func("topi.set_cpu_isa")(args.isa)
    isa = tvmlite.get_global_func("topi.cpu_isa")()
    if args.peak is None:
        args.peak = {"avx512": 160.0, "avx2": 100.0}.get(isa, 12.0)
    runtimes = ["tvm"] + (["ort"] if ort is not None else []) + (["torch", "mkldnn"] if HAS_TORCH else [])
    others = runtimes[1:]
    opts = {"isa": args.isa, "bias_relu": args.bias_relu, "winograd": not args.no_winograd,
            "target_ms": args.target_ms}

    head = f"{'layer':34s}" + "".join(
        f" | {t}T tvm ms  GF/s  %pk" + "".join(f" {COLUMNS[rt][0]:>9s} {COLUMNS[rt][1]:>7s}" for rt in others)
        for t in threads)
    versions = [f"onnxruntime {ort.__version__}" if ort else "onnxruntime (not installed)",
                "torch and its oneDNN path" if HAS_TORCH else "torch (not installed)"]
    print(f"tvmlite's conv kernels ({isa}{', + bias + relu' if args.bias_relu else ''}) vs {', '.join(versions)}; "
          f"{args.stat} of {args.repeat} samples of ~{args.target_ms:g} ms in {rounds} rounds, each runtime in its "
          f"own process; peak {args.peak:g} GFLOP/s per thread")
    print(head)
    print("-" * len(head), flush=True)
    # The workers' numpy (packing, Winograd weight transforms) on one thread: OpenBLAS's idle threads spin ~0.1 s
    # after each call (measured) and took a core from the samples after each Winograd layer's rebuild.
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read when a worker imports numpy
    stat = statistics.median if args.stat == "median" else min
    figures = {}  # (thread count, runtime) -> [seconds per layer]
    for t in threads:
        samples = measure(runtimes, t, layers, opts, args.repeat, rounds)
        for rt in runtimes:
            figures[t, rt] = [stat(s) for s in samples[rt]]
    ratios = {(t, rt): [] for t in threads for rt in others}
    for i, (name, layer) in enumerate(layers):
        line = f"{name[:32]:32s} {'w' if not args.no_winograd and winograd_tile(layer) else ' '}"
        for t in threads:
            tvm_s = figures[t, "tvm"][i]
            gflops = 2 * macs(layer) / tvm_s / 1e9
            line += f" | {tvm_s * 1e3:9.3f} {gflops:5.0f} {100 * gflops / args.peak / t:4.0f}"
            for rt in others:
                other_s = figures[t, rt][i]
                ratios[t, rt].append(other_s / tvm_s)
                line += f" {other_s * 1e3:9.3f} {other_s / tvm_s:7.2f}"
        print(line)
    for (t, rt), r in ratios.items():
        if r:
            r = np.array(r)
            print(f"{t} thread(s): {RUNTIMES[rt]}/tvmlite geomean {np.exp(np.log(r).mean()):.2f}, min {r.min():.2f}, "
                  f"layers where tvmlite is slower: {int((r < 1).sum())} of {len(r)}")
    # Each runtime's own speed-up from the first thread count: a phase the host disturbed (another tenant on the
    # second core) shows as speed-ups near 1, often for every runtime, which the ratios alone do not tell apart.
    for t in threads[1:]:
        parts = []
        for rt in runtimes:
            s = np.array(figures[threads[0], rt]) / np.array(figures[t, rt])
            parts.append(f"{RUNTIMES[rt]} {np.exp(np.log(s).mean()):.2f} (min {s.min():.2f})")
        print(f"speed-up {threads[0]} -> {t} threads, geomean over layers: " + ", ".join(parts))
    if skipped:
        print(f"skipped {len(skipped)} depthwise layers: topi.nn.depthwise_conv2d_nchwc is not registered")


if __name__ == "__main__":
    main()
