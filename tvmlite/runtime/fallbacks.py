"""Which graph nodes run on the numpy reference instead of a native kernel, and why.

    lib = tvmlite.build(mod, target="cpu", params=params)   # warns once (FallbackWarning) when there are any
    for f in lib.fallbacks():
        print(f["name"], f["reason"])    # tvmlite_dyn_reshape_0  op dyn.reshape has no native kernel

The lowering (csrc/backend/graph_codegen.cc) writes the reason on each reference node ("reason" beside its
kernel_attrs); graphs from older files have none (""). The executor finds them (graph_executor.fallbacks, which the
C API's TVMLiteModelLoad uses to name them too). A Loop or Scan node ("__loop", "__scan") runs its body, a
graph of its own (attrs.body): it is native when its body is; the body's reference nodes are listed too, named
"<loop node>/<body node>".
"""
import collections
import warnings

__all__ = ["FallbackWarning", "fallbacks", "scan", "warn_fallbacks"]

REFERENCE = "relay.backend.reference"


class FallbackWarning(UserWarning):
    """A built model has nodes on the numpy reference: they run, much slower than native kernels."""


def scan(graph):
    """(records, number of op nodes) of a graph: its JSON text or the executor's parsed Map (the walk is the
    executor's, graph_executor.fallbacks)."""
    from .._ffi import core

    if isinstance(graph, str):
        graph = core.get_global_func("graph_executor.parse")(graph)
    scan = core.get_global_func("graph_executor.fallbacks")(graph)
    records = [{"name": str(r["name"]), "reason": str(r["reason"])} for r in scan["fallbacks"]]
    return records, int(scan["op_nodes"])


def fallbacks(graph):
    """The reference nodes of a graph (its JSON text, or the Map graph_executor.parse made), in execution order,
    loop bodies' included: dicts with name and reason."""
    return scan(graph)[0]


def summary(records, limit=4):
    """'18 x op shape_of has no native kernel; 8 x ...' for the most common reasons."""
    counts = collections.Counter(r["reason"] or "no reason recorded" for r in records)
    text = "; ".join(f"{n} x {reason}" for reason, n in counts.most_common(limit))
    return text + ("; ..." if len(counts) > limit else "")


def warn_fallbacks(records, ops, where="tvmlite.build"):
    """Warn once (FallbackWarning) when records (fallbacks' list) is not empty, naming how many of the ops op nodes
    they are and the commonest reasons."""
    if not records:
        return
    warnings.warn(f"{where}: {len(records)} of {ops} graph nodes run on the numpy reference, not native kernels "
                  f"(lib.fallbacks() lists them): {summary(records)}", FallbackWarning, stacklevel=3)
