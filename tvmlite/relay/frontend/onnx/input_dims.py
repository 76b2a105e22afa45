"""The symbolic dims of a model's inputs that its weights fix.

Exporters name every input dim they were told is dynamic, and some they were not: optimum's vision models take
``pixel_values`` of shape (batch_size, num_channels, height, width), yet the first Conv's weight says how many
channels there are. Left symbolic, such a dim hides what every pass needs (blocked layouts are chosen from the
channels: the stem conv and everything up to the first blocked op would stay on plain NCHW). A run with another value
fails in that op anyway; fixed at import, it is known to every pass and a wrong input fails at ``set_input``.

    fixed = dims_fixed_by_weights(graph)    # {dim_param: value}, used by the importer for the input types

A dim is fixed by an input a Conv reads as its data (channels = weight's input channels x group), or one a MatMul
(last dim = weight's rows) or Gemm (its inner dim) multiplies by an initializer. The same dim_param is the same value
throughout a model (ONNX's rule), so it is fixed everywhere; one two weights disagree on is left symbolic.
"""

__all__ = ["dims_fixed_by_weights"]


def dims_fixed_by_weights(graph):
    """{dim_param: value} for the symbolic dims of graph's inputs that a consumer's initializer fixes."""
    weights = {init.name: list(init.dims) for init in graph.initializer}
    inputs = {vi.name: vi for vi in graph.input if vi.name not in weights}
    fixed, conflicting = {}, set()

    def pin(name, axis, value):
        vi = inputs.get(name)
        if vi is None or not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            return
        dims = vi.type.tensor_type.shape.dim
        if not -len(dims) <= axis < len(dims):
            return
        dim = dims[axis]
        if dim.HasField("dim_value") or not dim.dim_param:
            return
        if fixed.setdefault(dim.dim_param, value) != value:
            conflicting.add(dim.dim_param)

    def attr(node, name, default):
        return next((a.i for a in node.attribute if a.name == name), default)

    for node in graph.node:
        if node.domain not in ("", "ai.onnx") or len(node.input) < 2 or node.input[1] not in weights:
            continue
        w = weights[node.input[1]]
        if node.op_type == "Conv" and len(w) >= 3:
            pin(node.input[0], 1, w[1] * attr(node, "group", 1))
        elif node.op_type == "MatMul" and len(w) >= 2:
            pin(node.input[0], -1, w[-2])
        elif node.op_type == "Gemm" and len(w) == 2:
            pin(node.input[0], 0 if attr(node, "transA", 0) else 1, w[1] if attr(node, "transB", 0) else w[0])
    return {name: value for name, value in fixed.items() if name not in conflicting and value >= 0}
