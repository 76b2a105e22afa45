#!/usr/bin/env python3
"""1-D and 3-D convolutions (and transposes) on the cpu target, per realistic layer, against onnxruntime and against
the reference path these layers took before they had native kernels.

Rows: one layer each, as a one-node ONNX model (Conv or ConvTranspose + bias, then Relu), batch 1:
    wav2vec2's feature encoder (its first conv on 1 s of 16 kHz audio, a 512-channel k3 s2 layer, its last k2 s2
    layer, the grouped k128 positional conv), a dilated TCN layer, a HiFi-GAN ConvTranspose1d upsampler; C3D's 3x3x3
    64->64 at 16x56x56, an R(2+1)D pair (1x3x3 spatial, 3x1x1 temporal), a 3-D U-Net encoder layer and its 2x2x2
    ConvTranspose3d up-sampling, an X3D depthwise 3x3x3.
Columns, for each thread count:
    tvm ms      tvmlite.build(target="cpu") of the model, GraphModule.run(): the native kernel with its fused bias +
                relu, and the layout_transforms in and out of the blocked layout (which a whole network pays once)
    GF/s        2 * multiply-adds / tvm ms
    ort ms      an onnxruntime session of the same model (graph optimizations on, intra_op_num_threads = threads)
    ref ms      the same model on the ops' numpy references (tvmlite's debug target): what the cpu target ran for
                these convs before (a relay.backend.reference node evaluates its group through the same references);
                fewer samples (--ref-repeat), --no-ref to skip
    ort/tvm, ref/tvm   above 1: tvmlite is faster
Method as bench/conv2d.py: each runtime in its own worker process (bench/workers.py), the workers taking turns;
each layer is built, warmed up, sampled and freed before the next; the figure is the median (--stat min: the fastest)
of the samples. Before timing, the outputs of tvmlite and onnxruntime are checked against each other.

Usage
    python bench/conv1d3d.py                      # every layer, 1 thread (~1 min, most of it the reference path)
    python bench/conv1d3d.py --threads 1,2 --no-ref
    python bench/conv1d3d.py --layers wav2vec,C3D --stat min
"""
from __future__ import annotations

import argparse
import os
import statistics

import numpy as np

import tvmlite
from timing import OrtCall, calibrate, warm, warm_samples  # bench/timing.py
from workers import Workers, samples_per_item, take_turns  # bench/workers.py

try:
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # pragma: no cover - the bench still shows tvmlite's figures
    ort = None
    from onnx import TensorProto, helper, numpy_helper


# name: (op, input shape (N, C, *S), out channels, kernel, attrs). Conv weight (O, C/g, *K); ConvTranspose (C, O/g, *K).
LAYERS = {
    "wav2vec2 conv0 1->512 k10 s5 @16000": ("Conv", (1, 1, 16000), 512, [10], dict(strides=[5])),
    "wav2vec2 conv1 512->512 k3 s2 @3199": ("Conv", (1, 512, 3199), 512, [3], dict(strides=[2])),
    "wav2vec2 conv6 512->512 k2 s2 @99": ("Conv", (1, 512, 99), 512, [2], dict(strides=[2])),
    "wav2vec2 pos_conv 768 k128 g16 @49": ("Conv", (1, 768, 49), 768, [128], dict(pads=[64, 64], group=16)),
    "TCN 128->128 k3 d8 @2048": ("Conv", (1, 128, 2048), 128, [3], dict(dilations=[8], pads=[16, 0])),
    "HiFi-GAN up T 512->256 k16 s8 @32": ("ConvTranspose", (1, 512, 32), 256, [16], dict(strides=[8], pads=[4, 4])),
    "C3D 64->64 3x3x3 @16x56x56": ("Conv", (1, 64, 16, 56, 56), 64, [3, 3, 3], dict(pads=[1] * 6)),
    "R(2+1)D 64->144 1x3x3 @8x56x56": ("Conv", (1, 64, 8, 56, 56), 144, [1, 3, 3], dict(pads=[0, 1, 1, 0, 1, 1])),
    "R(2+1)D 144->64 3x1x1 @8x56x56": ("Conv", (1, 144, 8, 56, 56), 64, [3, 1, 1], dict(pads=[1, 0, 0, 1, 0, 0])),
    "3D U-Net 64->64 3x3x3 @32x32x32": ("Conv", (1, 64, 32, 32, 32), 64, [3, 3, 3], dict(pads=[1] * 6)),
    "3D U-Net up T 128->64 2x2x2 s2 @16^3": ("ConvTranspose", (1, 128, 16, 16, 16), 64, [2, 2, 2],
                                             dict(strides=[2, 2, 2])),
    "X3D dw 192 3x3x3 @8x28x28": ("Conv", (1, 192, 8, 28, 28), 192, [3, 3, 3], dict(pads=[1] * 6, group=192)),
}


def layer_model(name):
    """The layer's ONNX model and its input, seeded by the name: every worker process builds the same ones."""
    op, x_shape, o, kernel, attrs = LAYERS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    c, g = x_shape[1], attrs.get("group", 1)
    fan_in = (c // g) * int(np.prod(kernel))
    w_shape = (c, o // g, *kernel) if op == "ConvTranspose" else (o, c // g, *kernel)
    w = (rng.standard_normal(w_shape) / np.sqrt(fan_in)).astype("float32")
    b = rng.standard_normal(o).astype("float32")
    nodes = [helper.make_node(op, ["x", "w", "b"], ["c"], kernel_shape=kernel, **attrs),
             helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model, rng.standard_normal(x_shape).astype("float32")


def macs(name):
    op, x_shape, o, kernel, attrs = LAYERS[name]
    c, g = x_shape[1], attrs.get("group", 1)
    if op == "ConvTranspose":  # every input pixel scatters O/g x K values
        return int(np.prod(x_shape[2:])) * c * (o // g) * int(np.prod(kernel))
    strides, dil = attrs.get("strides", [1] * len(kernel)), attrs.get("dilations", [1] * len(kernel))
    pads = attrs.get("pads", [0] * 2 * len(kernel))
    out = [(x_shape[2 + i] + pads[i] + pads[len(kernel) + i] - dil[i] * (kernel[i] - 1) - 1) // strides[i] + 1
           for i in range(len(kernel))]
    return int(np.prod(out)) * o * (c // g) * int(np.prod(kernel))


class TvmGraph:
    def __init__(self, name, target):
        model, x = layer_model(name)
        mod, params = tvmlite.frontend.from_onnx(model)
        lib = tvmlite.build(mod, target=target, params=params)
        self.gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        self.gm.set_input(x=x)

    def __call__(self):
        self.gm.run()

    def result(self):
        return self.gm.get_output(0).numpy()


class OrtGraph(OrtCall):
    def __init__(self, name, threads):
        model, x = layer_model(name)
        super().__init__(model, threads, {"x": x})


class Worker:
    """One runtime ("tvm", "ort" or "ref") at one thread count, in a worker process of its own."""

    def __init__(self, runtime, threads, names, target_ms):
        self.runtime, self.threads, self.names, self.target_ms = runtime, threads, names, target_ms
        self.loops = []
        tvmlite.get_global_func("runtime.set_num_threads")(threads)

    def build(self, name):
        if self.runtime == "ort":
            return OrtGraph(name, self.threads)
        return TvmGraph(name, "cpu" if self.runtime == "tvm" else "debug")

    def check(self):
        """One output per layer (compared across runtimes in the parent); fixes each layer's loops per sample."""
        outputs = []
        for name in self.names:
            fn = self.build(name)
            warm(fn)
            self.loops.append(calibrate(fn, self.target_ms / 1e3))
            outputs.append(fn.result())
        return outputs

    def round(self, n):
        samples = []
        for name, loops in zip(self.names, self.loops):
            samples.append(warm_samples(self.build(name), loops, n))  # the callable is freed before the next one
        return samples


def measure(runtimes, threads, names, args):
    with Workers({rt: (Worker, (rt, threads, names, args.target_ms)) for rt in runtimes}) as call:
        outputs = {rt: call(rt, "check") for rt in runtimes}
        for other in [rt for rt in runtimes if rt != "tvm"]:
            for name, got, want in zip(names, outputs["tvm"], outputs[other]):
                err = np.abs(got - want).max()
                if err > 1e-3 * max(1.0, float(np.abs(want).max())):
                    raise SystemExit(f"{name}, {threads} thread(s): tvmlite and {other} differ by {err}")
        del outputs
        repeat = {rt: args.ref_repeat if rt == "ref" else args.repeat for rt in runtimes}
        return samples_per_item(take_turns(call, runtimes, args.rounds, repeat, threads), runtimes, len(names))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", default="", help="comma-separated substrings of row names (e.g. wav2vec,3D)")
    ap.add_argument("--threads", default="1", help="thread counts, comma-separated")
    ap.add_argument("--repeat", type=int, default=9, help="samples per cell")
    ap.add_argument("--ref-repeat", type=int, default=2, help="samples per cell of the reference path")
    ap.add_argument("--rounds", type=int, default=2, help="turns each runtime's worker takes per thread count")
    ap.add_argument("--target-ms", type=float, default=20.0, help="length of one sample")
    ap.add_argument("--stat", choices=["median", "min"], default="median", help="how samples become one figure")
    ap.add_argument("--no-ref", action="store_true", help="skip the reference-path column (the slow one)")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    names = [n for n in LAYERS if not args.layers or any(f in n for f in args.layers.split(","))]
    runtimes = ["tvm"] + (["ort"] if ort is not None else []) + ([] if args.no_ref else ["ref"])
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # the workers' numpy on one thread (read when a worker imports numpy)
    stat = statistics.median if args.stat == "median" else min
    isa = tvmlite.get_global_func("topi.cpu_isa")()
    print(f"tvmlite ({isa}) one-layer ONNX models (conv + bias + relu), vs onnxruntime "
          f"{ort.__version__ if ort else '(not installed)'} and the reference path; {args.stat} of {args.repeat} "
          f"samples ({args.ref_repeat} for ref) of ~{args.target_ms:g} ms, each runtime in its own process")
    head = f"{'layer':38s}" + "".join(
        f" | {t}T tvm ms  GF/s" + ("   ort ms ort/tvm" if ort else "") + ("    ref ms ref/tvm" if not args.no_ref
                                                                          else "") for t in threads)
    print(head)
    print("-" * len(head), flush=True)
    figures = {}
    for t in threads:
        samples = measure(runtimes, t, names, args)
        for rt in runtimes:
            figures[t, rt] = [stat(s) for s in samples[rt]]
    for i, name in enumerate(names):
        line = f"{name[:38]:38s}"
        for t in threads:
            tvm_s = figures[t, "tvm"][i]
            line += f" | {tvm_s * 1e3:9.3f} {2 * macs(name) / tvm_s / 1e9:5.0f}"
            if ort is not None:
                line += f" {figures[t, 'ort'][i] * 1e3:8.3f} {figures[t, 'ort'][i] / tvm_s:7.2f}"
            if not args.no_ref:
                line += f" {figures[t, 'ref'][i] * 1e3:9.1f} {figures[t, 'ref'][i] / tvm_s:7.1f}"
        print(line)
    for t in threads:
        for rt in [r for r in runtimes if r != "tvm"]:
            r = np.array([o / v for o, v in zip(figures[t, rt], figures[t, "tvm"])])
            print(f"{t} thread(s): {rt}/tvmlite geomean {np.exp(np.log(r).mean()):.2f}, min {r.min():.2f}, "
                  f"max {r.max():.2f}")


if __name__ == "__main__":
    main()
