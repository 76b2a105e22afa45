"""Which graph nodes run on the numpy reference instead of a native kernel, and why.

    lib = tvmlite.build(mod, target="cpu", params=params)   # warns once (FallbackWarning) when there are any
    for f in lib.fallbacks():
        print(f["name"], f["reason"])    # tvmlite_dyn_reshape_0  op dyn.reshape has no native kernel

The lowering (csrc/backend/graph_codegen.cc) writes the reason on each reference node ("reason" beside its
kernel_attrs); graphs from older files have none ("").
"""
import collections
import warnings

__all__ = ["FallbackWarning", "fallbacks", "warn_fallbacks"]

REFERENCE = "relay.backend.reference"


class FallbackWarning(UserWarning):
    """A built model has nodes on the numpy reference: they run, much slower than native kernels."""


def fallbacks(graph):
    """The reference nodes of a graph (the parsed graph JSON), in execution order: dicts with name and reason."""
    out = []
    for node in graph.get("nodes", []):
        attrs = node.get("attrs") if isinstance(node, dict) else None
        if isinstance(attrs, dict) and attrs.get("func_name") == REFERENCE:
            out.append({"name": str(node.get("name", "?")), "reason": str(attrs.get("reason", ""))})
    return out


def summary(records, limit=4):
    """'18 x op shape_of has no native kernel; 8 x ...' for the most common reasons."""
    counts = collections.Counter(r["reason"] or "no reason recorded" for r in records)
    text = "; ".join(f"{n} x {reason}" for reason, n in counts.most_common(limit))
    return text + ("; ..." if len(counts) > limit else "")


def warn_fallbacks(graph, where="tvmlite.build"):
    """Warn once (FallbackWarning) when the graph has reference nodes, naming how many and the commonest reasons."""
    records = fallbacks(graph)
    if not records:
        return
    ops = sum(1 for n in graph.get("nodes", []) if isinstance(n, dict) and n.get("op") == "tvm_op")
    warnings.warn(f"{where}: {len(records)} of {ops} graph nodes run on the numpy reference, not native kernels "
                  f"(lib.fallbacks() lists them): {summary(records)}", FallbackWarning, stacklevel=3)
