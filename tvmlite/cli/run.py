"""``python -m tvmlite run``: run a compiled library (or an ONNX model) and print its outputs and latency."""
import os
import statistics
import sys
import time

from .common import CliError, Progress, ms, parse_inputs, parse_shapes
from .model import compile_model, library_inputs


def summarise(name, value, out):
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
    progress = Progress()
    shapes = parse_shapes(args.shape)
    values = parse_inputs(args.input)
    if args.threads is not None:
        tvmlite.get_global_func("runtime.set_num_threads")(args.threads)
    output_names = None
    if args.model.endswith(".onnx"):
        model, _, lib, specs = compile_model(args.model, shapes, values, args.opt_level, progress, target=args.target)
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
        specs = library_inputs(lib, gm)
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
        summarise(f"{i}" + (f" '{output_names[i]}'" if output_names and i < len(output_names) else ""), value, out)
    threads = f", {args.threads} thread{'s' if args.threads > 1 else ''}" if args.threads else ""
    print(f"latency over {args.repeat} run{'s' if args.repeat > 1 else ''}{threads}: median "
          f"{ms(statistics.median(times))}, min {ms(min(times))}", file=out)
    if args.profile:
        profile = getattr(gm, "profile", None) or getattr(gm.module, "profile", None)
        if profile is None:
            raise CliError("--profile needs the cpu target's graph executor (this executor has no profile())")
        print(profile(), file=out)
    return 0
