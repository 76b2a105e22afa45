"""Which graph nodes run on the numpy reference instead of a native kernel, and why.

    lib = tvmlite.build(mod, target="cpu", params=params)   # warns once (FallbackWarning) when there are any
    for f in lib.fallbacks():
        print(f["name"], f["reason"])    # tvmlite_dyn_reshape_0  op dyn.reshape has no native kernel

The lowering (csrc/backend/graph_codegen.cc) writes the reason on each reference node ("reason" beside its
kernel_attrs); graphs from older files have none (""). A Loop or Scan node ("__loop", "__scan") runs its body, a
graph of its own (attrs.body): it is native when its body is; the body's reference nodes are listed too, named
"<loop node>/<body node>".
"""
import collections
import warnings

__all__ = ["FallbackWarning", "fallbacks", "warn_fallbacks"]

REFERENCE = "relay.backend.reference"


class FallbackWarning(UserWarning):
    """A built model has nodes on the numpy reference: they run, much slower than native kernels."""


def _op_nodes(graph, prefix=""):
    """(name, attrs) of each op node of a graph and, after a loop node, of its body's (named loop/node)."""
    for node in graph.get("nodes", []) if isinstance(graph, dict) else []:
        attrs = node.get("attrs") if isinstance(node, dict) else None
        if not isinstance(attrs, dict) or node.get("op") == "null":
            continue
        name = prefix + str(node.get("name", "?"))
        yield name, attrs
        if isinstance(attrs.get("body"), dict):
            yield from _op_nodes(attrs["body"], name + "/")


def fallbacks(graph):
    """The reference nodes of a graph (the parsed graph JSON), in execution order, loop bodies' included: dicts
    with name and reason."""
    return [{"name": name, "reason": str(attrs.get("reason", ""))}
            for name, attrs in _op_nodes(graph) if attrs.get("func_name") == REFERENCE]


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
    ops = sum(1 for _ in _op_nodes(graph))
    warnings.warn(f"{where}: {len(records)} of {ops} graph nodes run on the numpy reference, not native kernels "
                  f"(lib.fallbacks() lists them): {summary(records)}", FallbackWarning, stacklevel=3)
