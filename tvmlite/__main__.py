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
import contextlib
import os
import statistics
import sys
import time

__all__ = ["main", "CliError"]


class CliError(Exception):
    """A user-facing error: main prints ``error: <message>`` on one line and exits with status 2."""


def _ms(seconds):
    """Milliseconds with one decimal, or microseconds below a millisecond (a tiny model's run)."""
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} us"


def _duration(seconds):
    return f"{seconds:.2f} s" if seconds >= 1 else _ms(seconds)


def _bytes(n):
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def op_counts(mod):
    """{op name: number of calls} over every function of mod (nested functions included)."""
    from tvmlite.ir.op import Op
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
    return counter.counts


def _table(rows, headers):
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]
    lines = ["  " + "  ".join(str(h).ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines.append("  " + "  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  " + "  ".join(str(c).rjust(w) if isinstance(c, (int, float)) else str(c).ljust(w)
                                      for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


class _Progress:
    """One stderr line per step with its elapsed time; on a terminal the line shows "step ..." while it runs.
    The (step, seconds) pairs are kept for the summary."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.times = []

    @contextlib.contextmanager
    def step(self, what):
        if self.tty:
            self.stream.write(f"[tvmlite] {what} ...")
            self.stream.flush()
        t0 = time.perf_counter()
        ok = False
        try:
            yield
            ok = True
        finally:
            elapsed = time.perf_counter() - t0
            self.times.append((what, elapsed))
            end = _duration(elapsed) if ok else "failed"
            self.stream.write(("\r" if self.tty else "") + f"[tvmlite] {what}: {end}\n")
            self.stream.flush()


# -- arguments ---------------------------------------------------------------------------------------------------
def _parse_shapes(specs):
    """["data:1,3,224,224", ...] -> {"data": (1, 3, 224, 224)}; CliError on a bad spelling."""
    shapes = {}
    for spec in specs or []:
        name, sep, dims = spec.rpartition(":")
        try:
            if not sep or not name or not dims:
                raise ValueError
            shape = tuple(int(d) for d in dims.split(","))
            if any(d < 0 for d in shape):
                raise ValueError
        except ValueError:
            raise CliError(f"bad --shape {spec!r}: expected NAME:D1,D2,... with integer dims "
                           f"(e.g. input:1,3,224,224)") from None
        shapes[name] = shape
    return shapes


def _parse_inputs(specs):
    """["data=x.npy", ...] -> {"data": array}; CliError on a bad spelling or an unreadable file."""
    import numpy as np

    values = {}
    for spec in specs or []:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise CliError(f"bad --input {spec!r}: expected NAME=FILE.npy")
        if not os.path.isfile(path):
            raise CliError(f"--input {name}: no such file: {path}")
        try:
            values[name] = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as err:
            raise CliError(f"--input {name}: cannot read {path} as a .npy array ({err})") from None
    return values


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


# -- the model -----------------------------------------------------------------------------------------------------
def _load_onnx(path):
    import onnx

    if not os.path.isfile(path):
        raise CliError(f"no such file: {path}")
    try:
        return onnx.load(path)
    except Exception as err:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise CliError(f"{path} is not an ONNX model ({type(err).__name__}: {err})") from None


def _onnx_inputs(model):
    """[(name, dims with None for symbolic ones, numpy dtype)] of the graph inputs that are not initializers."""
    from onnx import helper

    inits = {i.name for i in model.graph.initializer}
    specs = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        specs.append((vi.name, dims, helper.tensor_dtype_to_np_dtype(t.elem_type)))
    return specs


def _resolve_shapes(model, shapes, values):
    """Every input's static shape for from_onnx: --shape first, then an --input file's shape, then the model's."""
    specs = _onnx_inputs(model)
    names = [n for n, _, _ in specs]
    for name in list(shapes) + list(values):
        if name not in names:
            raise CliError(f"the model has no input {name!r} (its inputs: {', '.join(names) or 'none'})")
    resolved = {}
    for name, dims, dtype in specs:
        if name in shapes:
            resolved[name] = shapes[name]
        elif name in values:
            resolved[name] = tuple(values[name].shape)
        elif any(d is None for d in dims):
            raise CliError(f"input {name!r} has a dynamic shape {['?' if d is None else d for d in dims]}: give it "
                           f"with --shape {name}:D1,D2,...")
        else:
            resolved[name] = tuple(dims)
        if name in values and tuple(values[name].shape) != resolved[name]:
            raise CliError(f"--input {name}: the file's shape {tuple(values[name].shape)} is not the input's "
                           f"shape {resolved[name]}")
    return resolved, {n: dt for n, _, dt in specs}


def _pass_context(opt_level):
    """tvmlite.transform.PassContext(opt_level) when this build has one; a no-op context otherwise."""
    import tvmlite

    ctx = getattr(getattr(tvmlite, "transform", None), "PassContext", None)
    if ctx is None:
        return contextlib.nullcontext()
    return ctx(opt_level=opt_level)


def _compile(path, shapes, values, opt_level, progress, target="cpu"):
    """Read, import and build an ONNX model: (model, mod, lib, {input: (shape, dtype)})."""
    import tvmlite

    with progress.step("read the model"):
        model = _load_onnx(path)
    resolved, dtypes = _resolve_shapes(model, shapes, values)
    with progress.step("import (from_onnx)"):
        mod, params = tvmlite.frontend.from_onnx(model, shape=resolved)
        mod = tvmlite.relay.transform.InferType()(mod)
    with progress.step(f"build (target {target}, opt level {opt_level})"):
        with _pass_context(opt_level):
            lib = tvmlite.build(mod, target=target, params=params)
    return model, mod, lib, {n: (resolved[n], dtypes[n]) for n in resolved}


def _graph_json(lib):
    """The library's graph JSON (TVM's format) as a dict, or None when it does not expose one."""
    import json

    for get in (lambda: lib.get_graph_json(), lambda: lib.graph_json, lambda: lib["get_graph_json"]()):
        try:
            text = get()
        except Exception:  # noqa: BLE001 - not this spelling
            continue
        if isinstance(text, (str, bytes)):
            try:
                return json.loads(text)
            except ValueError:
                return None
    return None


def _graph_summary(graph):
    """(kernel nodes, planned bytes, bytes of all intermediates) from a graph JSON: a storage id's size is its
    largest tenant; inputs (arg_nodes) are not intermediates."""
    import numpy as np

    nodes = graph["nodes"]
    row_ptr = graph.get("node_row_ptr") or list(range(len(nodes) + 1))
    attrs = graph["attrs"]
    shapes, dltypes, storage = attrs["shape"][1], attrs["dltype"][1], attrs["storage_id"][1]
    args = set(graph.get("arg_nodes", []))
    per_storage, total = {}, 0
    for nid in range(len(nodes)):
        if nid in args:
            continue
        for eid in range(row_ptr[nid], row_ptr[nid + 1]):
            size = int(np.prod(shapes[eid])) * np.dtype(dltypes[eid]).itemsize
            total += size
            per_storage[storage[eid]] = max(per_storage.get(storage[eid], 0), size)
    kernels = sum(1 for n in nodes if n.get("op") not in (None, "null"))
    return kernels, sum(per_storage.values()), total


def _library_inputs(lib, gm):
    """{input name: (shape, dtype)} of a compiled library's data inputs, from its graph JSON or its executor."""
    graph = _graph_json(lib)
    params = set()
    with contextlib.suppress(Exception):
        params = set(lib.get_params())
    specs = {}
    if graph is not None:
        attrs = graph["attrs"]
        row_ptr = graph.get("node_row_ptr") or list(range(len(graph["nodes"]) + 1))
        for nid in graph.get("arg_nodes", []):
            name = graph["nodes"][nid]["name"]
            if name not in params:
                eid = row_ptr[nid]
                specs[name] = (tuple(attrs["shape"][1][eid]), attrs["dltype"][1][eid])
        return specs
    for name in gm.get_input_names():
        if name in params:
            continue
        value = gm.get_input(name)
        if value is None or not hasattr(value, "shape"):
            raise CliError(f"cannot tell the shape of input {name!r} from the library: give it with "
                           f"--input {name}=FILE.npy")
        specs[name] = (tuple(value.shape), str(value.dtype))
    return specs


# -- commands --------------------------------------------------------------------------------------------------------
def cmd_compile(args, out=None):
    out = out or sys.stdout
    progress = _Progress()
    shapes = _parse_shapes(args.shape)
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise CliError(f"-o {args.output}: no such directory: {out_dir}")
    model, mod, lib, inputs = _compile(args.model, shapes, {}, args.opt_level, progress)
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
    graph = _graph_json(lib)
    say(f"\n  ONNX nodes      {len(model.graph.node)}")
    say(f"  relay op calls  {sum(counts.values())} ({len(counts)} distinct ops)")
    if graph is not None:
        kernels, planned, total = _graph_summary(graph)
        saved = f", {100 * (1 - planned / total):.0f}% saved by reuse" if total else ""
        say(f"  kernel calls    {kernels}")
        say(f"  planned memory  {_bytes(planned)} for {_bytes(total)} of intermediates{saved}")
    say(f"  library size    {_bytes(os.path.getsize(args.output))}" if os.path.isfile(args.output) else "")
    say("\nops:")
    say(_table(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])), ["op", "count"]))
    say("\ntimings:")
    say(_table([[what, _duration(t)] for what, t in progress.times], ["step", "time"]))
    return 0


def _summarise(name, value, out):
    import numpy as np

    a = np.asarray(value)
    head = np.array2string(a.ravel()[:5], precision=4, separator=", ")
    if a.size and a.dtype.kind in "fiub":
        stats = f"min {a.min():.4g}  max {a.max():.4g}  mean {a.astype('float64').mean():.4g}"
    else:
        stats = "empty" if not a.size else ""
    print(f"output {name}: shape {a.shape} {a.dtype}  {stats}", file=out)
    print(f"  first values {head}{' ...' if a.size > 5 else ''}", file=out)


def cmd_run(args, out=None):
    import numpy as np

    import tvmlite
    from tvmlite.models import random_array

    out = out or sys.stdout
    progress = _Progress()
    shapes = _parse_shapes(args.shape)
    values = _parse_inputs(args.input)
    if args.threads is not None:
        tvmlite.get_global_func("runtime.set_num_threads")(args.threads)
    output_names = None
    if args.model.endswith(".onnx"):
        model, _, lib, specs = _compile(args.model, shapes, values, args.opt_level, progress, target=args.target)
        output_names = [vi.name for vi in model.graph.output]
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    else:
        if shapes:
            raise CliError("--shape applies to .onnx models; a compiled library's shapes are fixed")
        if not os.path.isfile(args.model):
            raise CliError(f"no such file: {args.model}")
        with progress.step("load the library"):
            lib = tvmlite.runtime.load_module(args.model)
            gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        specs = _library_inputs(lib, gm)
        for name in values:
            if name not in specs:
                raise CliError(f"the model has no input {name!r} (its inputs: {', '.join(specs) or 'none'})")
    rng = np.random.default_rng(args.seed)
    for name, (shape, dtype) in specs.items():
        if name in values:
            if values[name].dtype != np.dtype(dtype):
                raise CliError(f"--input {name}: the file holds {values[name].dtype}, the input is {np.dtype(dtype)}")
            gm.set_input(name, values[name])
        else:
            gm.set_input(name, random_array(shape, dtype, rng))
    with progress.step("first run"):
        gm.run()
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        gm.run()
        times.append(time.perf_counter() - t0)
    for i in range(gm.get_num_outputs()):
        value = gm.get_output(i)
        value = value.numpy() if hasattr(value, "numpy") else value
        _summarise(f"{i}" + (f" '{output_names[i]}'" if output_names and i < len(output_names) else ""), value, out)
    threads = f", {args.threads} thread{'s' if args.threads > 1 else ''}" if args.threads else ""
    print(f"latency over {args.repeat} run{'s' if args.repeat > 1 else ''}{threads}: median "
          f"{_ms(statistics.median(times))}, min {_ms(min(times))}", file=out)
    if args.profile:
        profile = getattr(gm, "profile", None) or getattr(gm.module, "profile", None)
        if profile is None:
            raise CliError("--profile needs the cpu target's graph executor (this executor has no profile())")
        print(profile(), file=out)
    return 0


def _median_latency(run, repeat):
    run()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _demo_cpu(mod, params, feeds, result, model, repeat, say):
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
    say(f"\ncpu target: build {_ms(t_build)}; max abs error vs the debug executor: {error:.3g} "
        f"{'PASS' if ok else 'FAIL'}")
    rows = [["tvmlite (cpu)", _ms(_median_latency(gm.run, repeat))]]
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    if ort is not None:
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        rows.append([f"onnxruntime {ort.__version__}", _ms(_median_latency(lambda: sess.run(None, feeds), repeat))])
    else:
        rows.append(["onnxruntime", "not installed"])
    say(f"latency (median of {repeat} runs):")
    say(_table(rows, ["runtime", "latency"]))
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
    say(_table([["load the converters (once per process)", _ms(t_load)],
                ["from_onnx + InferType (first call)", _ms(t_import)], ["from_onnx + InferType (again)", _ms(t_again)], ["build (debug)", _ms(t_build)],
                ["run (debug executor)", _ms(t_run)], ["onnx ReferenceEvaluator (oracle)", _ms(t_ref)]],
               ["step", "time"]))
    say(f"\noutput 'logits' {result.shape}: {np.array2string(result.ravel()[:5], precision=4)}...")
    say(f"max abs error vs onnx.reference: {error:.3g} (tolerance rtol 1e-3, atol 1e-4)")
    cpu_ok = _demo_cpu(mod, params, feeds, result, model, getattr(args, "repeat", 20), say)
    ok = ok and cpu_ok is not False
    say("PASS" if ok else "FAIL")
    return 0 if ok else 1


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
    run.add_argument("--repeat", type=_positive, default=10, help="timed runs after a first one (default 10)")
    run.add_argument("--threads", type=_positive, default=None, help="threads of the kernel pool (default: all "
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
    demo.add_argument("--repeat", type=_positive, default=20, help="timed runs for the latency (default 20)")
    demo.set_defaults(func=cmd_demo)
    return parser


def _one_line(err):
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
        print(f"error: {_one_line(err)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
