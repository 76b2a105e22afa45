"""The tvmlite command line: ``python -m tvmlite <command> [options]`` (``<command> --help`` for each).

Commands:
    compile MODEL.onnx -o OUT [--shape NAME:1,3,224,224 ...] [--opt-level 3]
            import the model, build it for the cpu target, export the library to OUT; prints a summary (ops,
            nodes, planned memory) and the time of each step.
    run OUT|MODEL.onnx [--input NAME=FILE.npy ...] [--shape ...] [--repeat N] [--threads N] [--profile]
            run a compiled library (or a .onnx model, compiled first) on the given inputs, or on seeded random
            ones of the right shapes and dtypes; prints each output's shape, dtype, min/max/mean and first values,
            and the latency (median and min over the repeats); --profile prints the executor's per-node profile.
    demo    build a ResNet-style ONNX model (onnx.helper, seeded weights, no download), import it with from_onnx,
            print the IR's head and the op counts, run it with the debug executor and check the result against
            onnx.reference.ReferenceEvaluator (the oracle; never the run path); then build it for the cpu target,
            check it against the debug executor and time it against onnxruntime (when installed).

Exit status: 0 on success (demo: PASS), 1 when a check fails (demo: FAIL), 2 on a usage error or when the model
cannot be read, imported or built: one line on stderr says why, never a traceback (TVMLITE_TRACEBACK=1 shows it).
Progress of the slow steps goes to stderr, results to stdout.
"""
import argparse
import os
import sys

from .common import CliError, Progress, op_counts, positive
from .compile import cmd_compile
from .demo import cmd_demo
from .model import graph_summary
from .run import cmd_run

__all__ = ["main", "build_parser", "CliError", "Progress", "op_counts", "graph_summary", "cmd_compile", "cmd_run",
           "cmd_demo"]


# -- the parser ------------------------------------------------------------------------------------------------------
def build_parser():
    parser = argparse.ArgumentParser(prog="python -m tvmlite", description="tvmlite command line",
                                     epilog="Run 'python -m tvmlite COMMAND --help' for a command's options.")
    sub = parser.add_subparsers(dest="command", metavar="command")
    shape_help = "an input's shape, NAME:D1,D2,... (e.g. input:1,3,224,224); repeatable; overrides the model's"

    comp = sub.add_parser("compile", help="compile an ONNX model for the cpu target and export the library",
                          description="Import MODEL.onnx with from_onnx, build it for the cpu target and export "
                                      "the library to OUT; print a summary (ops, nodes, planned memory) and the "
                                      "time of each step.")
    comp.add_argument("model", metavar="MODEL.onnx", help="the ONNX model")
    comp.add_argument("-o", "--output", required=True, metavar="OUT", help="where to write the library (.so)")
    comp.add_argument("--shape", action="append", metavar="NAME:DIMS", help=shape_help)
    comp.add_argument("--opt-level", type=int, default=3, choices=range(4), help="optimisation level (default 3)")
    comp.set_defaults(func=cmd_compile)

    run = sub.add_parser("run", help="run a compiled library or an ONNX model; print outputs and latency",
                         description="Run a library made by 'compile' (or a .onnx model, compiled first) on the "
                                     "given inputs or on seeded random ones; print each output's shape, dtype, "
                                     "min/max/mean and first values, and the latency over the repeats.")
    run.add_argument("model", metavar="OUT|MODEL.onnx", help="a compiled library, or an ONNX model")
    run.add_argument("--input", action="append", metavar="NAME=FILE.npy",
                     help="an input's value from a .npy file; repeatable (default: random, seeded)")
    run.add_argument("--shape", action="append", metavar="NAME:DIMS", help=shape_help + " (.onnx only)")
    run.add_argument("--repeat", type=positive, default=10, help="timed runs after a first one (default 10)")
    run.add_argument("--threads", type=positive, default=None, help="threads of the kernel pool (default: all "
                                                                     "cores, or TVMLITE_NUM_THREADS)")
    run.add_argument("--profile", action="store_true", help="print the executor's per-node profile")
    run.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    run.add_argument("--opt-level", type=int, default=3, choices=range(4), help="(.onnx) optimisation level")
    run.add_argument("--target", default="cpu", choices=["cpu", "debug"],
                     help="(.onnx) build target (default cpu; debug runs the ops' numpy references)")
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser("demo", help="import, run and check a ResNet-style ONNX model built on the fly",
                          description="Build a ResNet-style ONNX model with onnx.helper (seeded weights), import it "
                                      "with from_onnx, print the IR's head and op counts, run it with the debug "
                                      "executor and compare with onnx.reference.ReferenceEvaluator; then build it "
                                      "for the cpu target, compare with the debug executor and time it against "
                                      "onnxruntime (when installed).")
    demo.add_argument("--seed", type=int, default=0, help="seed of the weights and the input (default 0)")
    demo.add_argument("--image-size", type=int, default=32, help="input height and width (default 32)")
    demo.add_argument("--lines", type=int, default=15, help="lines of the IR to print (default 15)")
    demo.add_argument("--repeat", type=positive, default=20, help="timed runs for the latency (default 20)")
    demo.set_defaults(func=cmd_demo)
    return parser


def one_line(err):
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def main(argv=None):
    """Run the command line on argv (sys.argv[1:] by default); returns the exit status (never raises)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error (2, argparse printed why)
        return exit_.code if isinstance(exit_.code, int) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.func(args)
    except CliError as err:
        print(f"error: {err}", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 - one line for the user, never a traceback
        if os.environ.get("TVMLITE_TRACEBACK"):
            raise
        print(f"error: {one_line(err)}", file=sys.stderr)
    return 2
