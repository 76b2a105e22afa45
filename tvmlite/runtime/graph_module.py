"""GraphModule: the user-facing wrapper of an executor module (TVM's ``graph_executor.GraphModule``).

    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input("input", x)          # or gm.set_input(**params), gm.set_input(input=x)
    gm.run()
    y = gm.get_output(0).numpy()

The wrapped module provides ``set_input(name, value)``, ``run()``, ``get_output(i)``, ``get_num_outputs()``,
``get_input(name)`` and ``get_input_names()``; the debug executor (tvmlite.relay.backend.debug_executor) is one,
the compiled graph executor of the next layer another. GraphModule adds no state: threads may share one as far as
its module allows (the compiled executor locks each call: runtime/executor_factory.py's GraphExecutor).
"""
from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .ndarray import NDArray

__all__ = ["GraphModule", "format_profile"]


_NO_VALUE = object()


class GraphModule:
    """Run a built model: set inputs, run, read outputs."""

    def __init__(self, module: Any) -> None:
        for method in ("set_input", "run", "get_output", "get_num_outputs", "get_input"):
            if not callable(getattr(module, method, None)):
                raise TypeError(f"GraphModule: {type(module).__name__} is not an executor module (no {method}())")
        self.module = module

    def set_input(self, key: str | None = None, value: Any = _NO_VALUE, **params: Any) -> None:
        """Set one input by name (``set_input("x", array)``) and/or several by keyword (``set_input(**params)``).
        None is a value: an empty optional input."""
        if key is not None:
            if value is _NO_VALUE:
                raise TypeError("GraphModule.set_input: a value is needed for input " + repr(key))
            self.module.set_input(key, value)
        for name, v in params.items():
            self.module.set_input(name, v)

    def run(self, **inputs: Any) -> None:
        """Run the model (after setting ``inputs``, if given)."""
        if inputs:
            self.set_input(**inputs)
        self.module.run()

    def get_output(self, index: int) -> NDArray:
        """Output ``index`` as an NDArray (a numpy array for dtypes NDArray cannot hold, e.g. strings)."""
        return self.module.get_output(index)

    def get_num_outputs(self) -> int:
        return self.module.get_num_outputs()

    def get_input(self, name: str) -> NDArray:
        """The value set for input ``name``."""
        return self.module.get_input(name)

    def get_input_names(self) -> list[str]:
        return list(self.module.get_input_names())

    def profile(self, file: IO[str] | None | Literal[False] = None) -> list[dict[str, Any]]:
        """Run once timing each node; print a table (node, kernel, output shape, ms, % of total), slowest first,
        with the total, to file (default stdout; None-like False skips printing) and return the records (dicts
        with name, func_name, shape, time_ms, in execution order). Needs an executor with profile() (cpu)."""
        import sys

        if not callable(getattr(self.module, "profile", None)):
            raise TypeError(f"GraphModule.profile: {type(self.module).__name__} cannot profile (build with "
                            f"target='cpu')")
        records = self.module.profile()
        if file is not False:
            print(format_profile(records), file=file or sys.stdout)
        return records

    def __getitem__(self, name):
        return getattr(self, name)


def format_profile(records):
    """The profile table of records (see GraphModule.profile)."""
    from .fallbacks import REFERENCE

    total = sum(r["time_ms"] for r in records) or 1e-12
    rows = [("node", "kernel", "shape", "time ms", "%")]
    for r in sorted(records, key=lambda r: -r["time_ms"]):
        kernel = r["func_name"] + (" (numpy fallback)" if r["func_name"] == REFERENCE else "")
        rows.append((r["name"], kernel, str(tuple(r["shape"])), f"{r['time_ms']:.3f}",
                     f"{100 * r['time_ms'] / total:.1f}"))
    fallback_ms = sum(r["time_ms"] for r in records if r["func_name"] == REFERENCE)
    rows.append(("total", f"{len(records)} nodes", "", f"{sum(r['time_ms'] for r in records):.3f}", "100.0"))
    if fallback_ms:
        rows.append(("on the numpy reference", f"{sum(r['func_name'] == REFERENCE for r in records)} nodes", "",
                     f"{fallback_ms:.3f}", f"{100 * fallback_ms / total:.1f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for k, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0 or k == len(rows) - 2 - bool(fallback_ms):
            lines.append("-" * len(lines[-1]))
    return "\n".join(lines)
