"""The command line's shared pieces: its error, number formats, tables, the progress display, argument parsing."""
import argparse
import contextlib
import os
import sys
import time


class CliError(Exception):
    """A user-facing error: main prints ``error: <message>`` on one line and exits with status 2."""


def ms(seconds):
    """Milliseconds with one decimal, or microseconds below a millisecond (a tiny model's run)."""
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} us"


def duration(seconds):
    return f"{seconds:.2f} s" if seconds >= 1 else ms(seconds)


def fmt_bytes(n):
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def table(rows, headers):
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]
    lines = ["  " + "  ".join(str(h).ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines.append("  " + "  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  " + "  ".join(str(c).rjust(w) if isinstance(c, (int, float)) else str(c).ljust(w)
                                      for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


class Progress:
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
            end = duration(elapsed) if ok else "failed"
            self.stream.write(("\r" if self.tty else "") + f"[tvmlite] {what}: {end}\n")
            self.stream.flush()


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


def parse_shapes(specs):
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


def parse_inputs(specs):
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


def positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value
