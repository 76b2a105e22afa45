"""``python -m tvmlite compile``: import and build an ONNX model, export the library, print a summary."""
import os
import sys

from .common import CliError, Progress, duration, fmt_bytes, op_counts, parse_shapes, table
from .model import compile_model, graph_json, graph_summary


def cmd_compile(args, out=None):
    out = out or sys.stdout
    progress = Progress()
    shapes = parse_shapes(args.shape)
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise CliError(f"-o {args.output}: no such directory: {out_dir}")
    model, mod, lib, inputs = compile_model(args.model, shapes, {}, args.opt_level, progress)
    with progress.step(f"export_library ({args.output})"):
        lib.export_library(args.output)

    def say(text=""):
        print(text, file=out)

    counts = op_counts(mod)
    say(f"compiled {args.model} -> {args.output} (target cpu, opt level {args.opt_level})")
    for name, (shape, dtype) in inputs.items():
        say(f"  input  {name}: {shape} {dtype}")
    for vi in model.graph.output:
        say(f"  output {vi.name}")
    graph = graph_json(lib)
    say(f"\n  ONNX nodes      {len(model.graph.node)}")
    say(f"  relay op calls  {sum(counts.values())} ({len(counts)} distinct ops)")
    if graph is not None:
        kernels, planned, total = graph_summary(graph)
        saved = f", {100 * (1 - planned / total):.0f}% saved by reuse" if total else ""
        say(f"  kernel calls    {kernels}")
        say(f"  planned memory  {fmt_bytes(planned)} for {fmt_bytes(total)} of intermediates{saved}")
    say(f"  library size    {fmt_bytes(os.path.getsize(args.output))}" if os.path.isfile(args.output) else "")
    say("\nops:")
    say(table(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])), ["op", "count"]))
    say("\ntimings:")
    say(table([[what, duration(t)] for what, t in progress.times], ["step", "time"]))
    return 0
