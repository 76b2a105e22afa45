"""Subgraphs (If branches, Loop/Scan/SequenceMap bodies) -> relay Functions.

A subgraph's inputs become the Function's params (typed by the caller, who knows them from the outer values, or
from the graph's own declarations); its initializers become constants; its nodes are converted in a scope that
chains to the enclosing one, so a node may use any outer value by name (the Function then refers to the outer
expression directly: a closure). The body is the single output, or a Tuple of the outputs (``as_tuple`` forces a
Tuple, as Loop and Scan bodies always return one).
"""
import collections

from ... import expr as _expr

__all__ = ["convert_subgraph"]


def convert_subgraph(ctx, graph, input_types=None, as_tuple=False):
    """The Function of an onnx.GraphProto converted inside ctx's current scope (see the module docstring).

    input_types: one IR type per graph input (None entries, or input_types None: the graph's declared type)."""
    outer_scope = getattr(ctx, "scope", None) or {}
    scope = collections.ChainMap({}, outer_scope)
    input_types = list(input_types) if input_types is not None else [None] * len(graph.input)
    if len(input_types) != len(graph.input):
        raise ValueError(f"subgraph '{graph.name}' takes {len(graph.input)} inputs, {len(input_types)} given")
    params = []
    for vi, ty in zip(graph.input, input_types):
        v = _expr.Var(vi.name, ty if ty is not None else ctx.value_type(vi))
        scope[vi.name] = v
        params.append(v)
    for init in graph.initializer:
        array = ctx.read_tensor(init, f"subgraph '{graph.name}': initializer '{init.name}'")
        scope[init.name] = _expr.const(array, dtype=array.dtype.name if array.dtype.kind != "O" else None)
    saved_node = ctx.node
    try:
        for node in graph.node:
            ctx.convert_node(node, scope)
    finally:
        ctx.node = saved_node
        ctx.scope = outer_scope
    ctx.check_declared_types(graph, scope)
    outputs = []
    for out in graph.output:
        if out.name not in scope:
            raise ValueError(f"subgraph '{graph.name}': output '{out.name}' is produced by no node")
        outputs.append(scope[out.name])
    body = outputs[0] if len(outputs) == 1 and not as_tuple else _expr.Tuple(outputs)
    return ctx.infer_type(_expr.Function(params, body))
