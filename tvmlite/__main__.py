"""The tvmlite command line: ``python -m tvmlite <command> [options]``.

Commands:
    demo    build a ResNet-style ONNX model (onnx.helper, seeded weights, no download), import it with from_onnx,
            print the IR's head and the op counts, run it with the debug executor and check the result against
            onnx.reference.ReferenceEvaluator (the oracle; never the run path). Exit status 0 on PASS, 1 on FAIL,
            2 when the model cannot be imported or built (the error says why).
"""
import argparse
import sys
import time

__all__ = ["main"]


def _ms(seconds):
    return f"{seconds * 1e3:.1f} ms"


def op_counts(mod):
    """{op name: number of calls} over every function of mod (nested functions included)."""
    from tvmlite.ir.op import Op
    from tvmlite.relay.expr import Call
    from tvmlite.relay.expr_functor import ExprVisitor

    class _Count(ExprVisitor):
        def __init__(self):
            super().__init__()
            self.counts = {}

        def visit_call(self, call):
            name = call.op.name if isinstance(call.op, Op) else "<function call>"
            self.counts[name] = self.counts.get(name, 0) + 1

        def visit_function(self, func):
            self.visit(func.body)

    counter = _Count()
    for name in mod.get_global_vars():
        counter.visit(mod[name].body)
    del Call
    return counter.counts


def _table(rows, headers):
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]
    lines = ["  " + "  ".join(str(h).ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines.append("  " + "  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  " + "  ".join(str(c).rjust(w) if isinstance(c, (int, float)) else str(c).ljust(w)
                                      for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


def cmd_demo(args, out=sys.stdout):
    import numpy as np

    import tvmlite
    from tvmlite.relay.frontend.onnx.demo_model import example_input, resnet_model

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
    say(_table(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])), ["op", "count"]))

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
    say(_table([["load the converters (once per process)", _ms(t_load)], ["from_onnx + InferType (first call)", _ms(t_import)],
                ["from_onnx + InferType (again)", _ms(t_again)], ["build (debug)", _ms(t_build)],
                ["run (debug executor)", _ms(t_run)], ["onnx ReferenceEvaluator (oracle)", _ms(t_ref)]],
               ["step", "time"]))
    say(f"\noutput 'logits' {result.shape}: {np.array2string(result.ravel()[:5], precision=4)}...")
    say(f"max abs error vs onnx.reference: {error:.3g} (tolerance rtol 1e-3, atol 1e-4)")
    say("PASS" if ok else "FAIL")
    return 0 if ok else 1


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m tvmlite", description="tvmlite command line")
    sub = parser.add_subparsers(dest="command", metavar="command")
    demo = sub.add_parser("demo", help="import, run and check a ResNet-style ONNX model built on the fly",
                          description="Build a ResNet-style ONNX model with onnx.helper (seeded weights), import it "
                                      "with from_onnx, print the IR's head and op counts, run it with the debug "
                                      "executor and compare with onnx.reference.ReferenceEvaluator.")
    demo.add_argument("--seed", type=int, default=0, help="seed of the weights and the input (default 0)")
    demo.add_argument("--image-size", type=int, default=32, help="input height and width (default 32)")
    demo.add_argument("--lines", type=int, default=15, help="lines of the IR to print (default 15)")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
