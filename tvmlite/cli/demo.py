"""``python -m tvmlite demo``: build, import, run and check a ResNet-style ONNX model made on the fly."""
import statistics
import sys
import time

from .common import ms, op_counts, table


def median_latency(run, repeat):
    run()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def demo_cpu(mod, params, feeds, result, model, repeat, say):
    """The demo's second half: the cpu target against the debug executor's result; latency against onnxruntime.
    Returns True (pass), False (fail) or None (no cpu target in this build)."""
    import numpy as np

    import tvmlite

    t0 = time.perf_counter()
    try:
        lib = tvmlite.build(mod, target="cpu", params=params)
    except ValueError as err:
        if "unknown target" not in str(err):
            raise
        say(f"\ncpu target: not available in this build ({str(err).splitlines()[0]})")
        return None
    t_build = time.perf_counter() - t0
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(**feeds)
    gm.run()
    got = gm.get_output(0).numpy()
    error = float(np.max(np.abs(got.astype("float64") - result))) if got.shape == result.shape else float("inf")
    ok = got.shape == result.shape and np.allclose(got, result, rtol=1e-3, atol=1e-4)
    say(f"\ncpu target: build {ms(t_build)}; max abs error vs the debug executor: {error:.3g} "
        f"{'PASS' if ok else 'FAIL'}")
    rows = [["tvmlite (cpu)", ms(median_latency(gm.run, repeat))]]
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    if ort is not None:
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        rows.append([f"onnxruntime {ort.__version__}", ms(median_latency(lambda: sess.run(None, feeds), repeat))])
    else:
        rows.append(["onnxruntime", "not installed"])
    say(f"latency (median of {repeat} runs):")
    say(table(rows, ["runtime", "latency"]))
    return ok


def cmd_demo(args, out=None):
    import numpy as np

    import tvmlite
    from tvmlite.relay.frontend.onnx.demo_model import example_input, resnet_model

    out = out or sys.stdout

    def say(text=""):
        print(text, file=out)

    model = resnet_model(seed=args.seed, image_size=args.image_size)
    feeds = example_input(model, seed=args.seed)
    n_weights = sum(int(np.prod(i.dims)) for i in model.graph.initializer)
    say(f"tvmlite demo: a ResNet-style ONNX model built with onnx.helper (seed {args.seed}, no download)")
    say(f"  {len(model.graph.node)} nodes, opset {model.opset_import[0].version}, input 'input' "
        f"{feeds['input'].shape}, {len(model.graph.initializer)} initializers ({n_weights} weights)")
    from tvmlite.relay.frontend.onnx.common import get_convert_map

    t0 = time.perf_counter()
    get_convert_map(model.opset_import[0].version)  # imports every op family once (not part of the model's import)
    t_load = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        mod, params = tvmlite.frontend.from_onnx(model)
        mod = tvmlite.relay.transform.InferType()(mod)
        t_import = time.perf_counter() - t0
        t0 = time.perf_counter()
        tvmlite.relay.transform.InferType()(tvmlite.frontend.from_onnx(model)[0])
        t_again = time.perf_counter() - t0
        t0 = time.perf_counter()
        lib = tvmlite.build(mod, target="debug", params=params)
        t_build = time.perf_counter() - t0
    except tvmlite.TVMLiteError as err:
        say(f"import failed: {type(err).__name__}: {err}")
        return 2
    head = str(mod).splitlines()
    say(f"\nIR (first {min(args.lines, len(head))} of {len(head)} lines of print(mod)):")
    for line in head[:args.lines]:
        say("  " + (line if len(line) <= 150 else line[:147] + "..."))
    counts = op_counts(mod)
    say(f"\nops ({sum(counts.values())} calls):")
    say(table(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])), ["op", "count"]))

    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for name, value in feeds.items():
        gm.set_input(name, value)
    t0 = time.perf_counter()
    gm.run()
    t_run = time.perf_counter() - t0
    result = gm.get_output(0).numpy()

    from onnx.reference import ReferenceEvaluator

    t0 = time.perf_counter()
    expected = ReferenceEvaluator(model).run(None, feeds)[0]
    t_ref = time.perf_counter() - t0
    error = float(np.max(np.abs(result.astype("float64") - expected))) if result.shape == expected.shape else \
        float("inf")
    ok = result.shape == expected.shape and np.allclose(result, expected, rtol=1e-3, atol=1e-4)
    say("\ntimings:")
    say(table([["load the converters (once per process)", ms(t_load)],
                ["from_onnx + InferType (first call)", ms(t_import)], ["from_onnx + InferType (again)", ms(t_again)],
                ["build (debug)", ms(t_build)],
                ["run (debug executor)", ms(t_run)], ["onnx ReferenceEvaluator (oracle)", ms(t_ref)]],
               ["step", "time"]))
    say(f"\noutput 'logits' {result.shape}: {np.array2string(result.ravel()[:5], precision=4)}...")
    say(f"max abs error vs onnx.reference: {error:.3g} (tolerance rtol 1e-3, atol 1e-4)")
    cpu_ok = demo_cpu(mod, params, feeds, result, model, getattr(args, "repeat", 20), say)
    ok = ok and cpu_ok is not False
    say("PASS" if ok else "FAIL")
    return 0 if ok else 1
