"""Models beyond tvmlite.models' five: torchvision and timm architectures (random weights, exported by torch's ONNX
exporter, opset 17), each imported, built for the cpu target, checked against onnxruntime and timed against it.

Needs torch and torchvision and/or timm (optional: not tvmlite dependencies; a missing one skips its models). The
exported models are cached in --cache (default bench/.build/zoo). Per model: from_onnx + build time, the largest
difference to onnxruntime's output relative to its largest magnitude, and the median latency of tvmlite and
onnxruntime at one thread each, in one process, alternating run by run (a thread count of one: onnxruntime's idle
threads would spin against tvmlite's in one process), with the ratio tvmlite/onnxruntime (below 1 = tvmlite faster).
The table ends with the geometric mean of the ratios and how many models failed or differ by more than 1e-3; a
model that differs by more gets onnxruntime's own noise floor (how far its output moves when the input moves by a
relative 1e-6) and is not counted when that floor is 1e-3 or more (random weights can make activations explode).

    python bench/zoo.py                              # the default list (~100 models, ~15 min)
    python bench/zoo.py --models tv:resnet50,tm:rexnet_100 --repeat 21
"""
import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tvmlite  # noqa: E402

TORCHVISION = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0",
               "efficientnet_v2_s", "regnet_x_400mf", "regnet_y_400mf", "shufflenet_v2_x1_0", "squeezenet1_0",
               "squeezenet1_1", "densenet121", "googlenet", "mnasnet0_5", "convnext_tiny", "swin_t", "swin_v2_t",
               "alexnet", "vgg11_bn", "resnext50_32x4d"]
TIMM = ["deit_tiny_patch16_224", "vit_tiny_patch16_224", "mobilevit_xs", "levit_128s", "convnext_atto",
        "ghostnet_100", "rexnet_100", "mixnet_s", "tf_efficientnet_lite0", "hrnet_w18_small", "dla34", "cspresnet50",
        "resnet26d", "poolformer_s12", "lcnet_050", "repvgg_a0", "efficientformer_l1", "mobilenetv4_conv_small",
        "fastvit_t8", "regnetz_005", "inception_v3", "semnasnet_075", "mobileone_s0", "edgenext_xx_small", "gernet_s",
        "resnest14d", "skresnet18", "selecsls42b", "dpn68", "nf_resnet26", "ese_vovnet19b_dw", "res2net50_14w_8s",
        "tinynet_a", "pit_ti_224", "convit_tiny", "xcit_nano_12_p16_224", "coat_lite_tiny", "twins_svt_small",
        "visformer_tiny", "ghostnetv2_100", "efficientvit_b0", "fbnetv3_b", "hgnetv2_b0", "rdnet_tiny",
        "mambaout_femto", "tiny_vit_5m_224", "cait_xxs24_224", "deit3_small_patch16_224", "gcvit_xxtiny",
        "pvt_v2_b0", "gmlp_ti16_224", "resmlp_12_224", "coatnet_0_rw_224", "davit_tiny", "focalnet_tiny_srf",
        "nest_tiny", "botnet26t_256", "crossvit_9_240", "efficientnetv2_rw_t", "regnety_002", "nfnet_l0",
        "eca_resnet33ts", "cs3darknet_s", "hardcorenas_a", "lambda_resnet26t", "vovnet39a", "xception41",
        "mobilevitv2_050", "inception_next_tiny", "fastvit_s12", "repghostnet_050", "starnet_s1", "efficientvit_m0",
        "levit_conv_128s"]
DEFAULT = [f"tv:{m}" for m in TORCHVISION] + [f"tm:{m}" for m in TIMM]


def import_zoos():
    """(torchvision, timm), None for one that does not import. A torchvision wheel built for another torch fails to
    register its C++ ops' fake kernels at import; its models are pure Python, so that registration is skipped."""
    import torch.library

    register = torch.library.register_fake

    def tolerant(name, *args, **kwargs):
        def deco(fn):
            try:
                return register(name, *args, **kwargs)(fn)
            except Exception:  # noqa: BLE001 - an op of a mismatched torchvision build
                return fn
        return deco

    torch.library.register_fake = tolerant
    found = []
    for name in ("torchvision", "timm"):
        try:
            found.append(__import__(name))
        except Exception:  # noqa: BLE001 - optional
            found.append(None)
    torch.library.register_fake = register
    return found


def export(spec, cache, zoos):
    """The model's ONNX path (exported once into cache) and its input shape; raises when it cannot be exported."""
    import torch

    src, name = spec.split(":", 1)
    torchvision, timm = zoos
    path = os.path.join(cache, f"{src}_{name}.onnx")
    if src == "tv":
        if torchvision is None:
            raise RuntimeError("torchvision is not installed")
        make, size = (lambda: getattr(torchvision.models, name)()), 224
    else:
        if timm is None:
            raise RuntimeError("timm is not installed")
        model = timm.create_model(name, pretrained=False)
        make, size = (lambda: model), model.default_cfg.get("input_size", (3, 224, 224))[1]
    shape = (1, 3, size, size)
    if not os.path.exists(path):
        torch.manual_seed(0)
        net = make().eval()
        os.makedirs(cache, exist_ok=True)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(net, (torch.randn(*shape),), path, opset_version=17, dynamo=False,
                              input_names=["x"], output_names=["y"])
    return path, shape


def relative_difference(got, want):
    return float(np.abs(got.astype(np.float64) - want).max()) / max(1e-6, float(np.abs(want).max()))


def noise_floor(sess, x):
    """How far onnxruntime's own output moves when x moves by a relative 1e-6 (a few float32 roundings): a model whose
    activations grow to thousands (random weights, no trained norms) amplifies the summation-order differences of any
    two correct runtimes to this size, so a difference near it is rounding, not a wrong kernel."""
    want = sess.run(None, {"x": x})[0]
    nudged = (x * (1 + 1e-6 * np.random.default_rng(1).standard_normal(x.shape))).astype("float32")
    return relative_difference(sess.run(None, {"x": nudged})[0], want)


def measure(path, shape, repeat):
    """(compile s, relative difference, onnxruntime's noise floor or 0 when the difference is within 1e-3, tvmlite
    ms, onnxruntime ms) at one thread each."""
    import onnx
    import onnxruntime as ort

    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    t0 = time.perf_counter()
    mod, params = tvmlite.frontend.from_onnx(onnx.load(path))
    lib = tvmlite.build(mod, target="cpu", params=params)
    compile_s = time.perf_counter() - t0
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(x=x)
    gm.run()
    want = sess.run(None, {"x": x})[0]
    got = gm.get_output(0).numpy()
    diff = relative_difference(got, want)
    noise = noise_floor(sess, x) if diff > 1e-3 else 0.0
    ours, theirs = [], []
    for i in range(repeat + 2):
        t = time.perf_counter()
        gm.run()
        a = time.perf_counter() - t
        t = time.perf_counter()
        sess.run(None, {"x": x})
        b = time.perf_counter() - t
        if i >= 2:  # two warm-up runs each
            ours.append(a)
            theirs.append(b)
    return compile_s, diff, noise, float(np.median(ours)) * 1e3, float(np.median(theirs)) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(DEFAULT), help="comma-separated tv:NAME / tm:NAME")
    parser.add_argument("--repeat", type=int, default=9, help="timed runs per runtime and model")
    parser.add_argument("--cache", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".build", "zoo"))
    args = parser.parse_args()
    try:
        import onnxruntime  # noqa: F401
        zoos = import_zoos()
    except ImportError as err:
        print(f"zoo.py needs torch and onnxruntime: {err}")
        return 0
    tvmlite.runtime.set_num_threads(1)
    print("model                              compile s   rel diff   tvmlite ms     ort ms   tvm/ort")
    ratios, failed, differ, noisy = [], [], [], []
    for spec in args.models.split(","):
        try:
            path, shape = export(spec, args.cache, zoos)
        except Exception as err:  # noqa: BLE001 - an exporter limit, not tvmlite's
            print(f"{spec:34s} not exported: {type(err).__name__}: {str(err).splitlines()[0][:80]}")
            continue
        try:
            compile_s, diff, noise, ours, theirs = measure(path, shape, args.repeat)
        except Exception as err:  # noqa: BLE001 - reported and counted
            failed.append(spec)
            print(f"{spec:34s} FAILED: {type(err).__name__}: {str(err).splitlines()[0][:100]}")
            continue
        ratios.append(ours / theirs)
        note = ""
        if diff > 1e-3:
            (noisy if noise >= 1e-3 else differ).append(spec)
            note = f"  (onnxruntime's own noise floor {noise:.1e})"
        print(f"{spec:34s} {compile_s:9.2f} {diff:10.1e} {ours:12.2f} {theirs:10.2f} {ours / theirs:9.2f}{note}",
              flush=True)
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\n{len(ratios)} models run: geomean tvmlite/ort {geo:.2f}; at or below 1: "
              f"{sum(r <= 1 for r in ratios)}; above 1.5: {sum(r > 1.5 for r in ratios)}")
    print(f"failed: {len(failed)} {failed}; differ by more than 1e-3: {len(differ)} {differ}")
    if noisy:
        print(f"differ by more than 1e-3 where onnxruntime's own output moves by 1e-3 or more when the input moves "
              f"by a relative 1e-6 (rounding amplified, not counted): {noisy}")
    return 1 if failed or differ else 0


if __name__ == "__main__":
    sys.exit(main())
