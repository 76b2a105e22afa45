"""Reading, importing and building an ONNX model for the command line; what a built library's graph holds."""
import contextlib
import os

from .common import CliError


def load_onnx(path):
    import onnx

    if not os.path.isfile(path):
        raise CliError(f"no such file: {path}")
    try:
        return onnx.load(path, load_external_data=False)  # from_onnx reads external data, confined to the folder
    except Exception as err:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise CliError(f"{path} is not an ONNX model ({type(err).__name__}: {err})") from None


def onnx_inputs(model):
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


def resolve_shapes(model, shapes, values):
    """Every input's static shape for from_onnx: --shape first, then an --input file's shape, then the model's."""
    specs = onnx_inputs(model)
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


def pass_context(opt_level):
    """tvmlite.transform.PassContext(opt_level) when this build has one; a no-op context otherwise."""
    import tvmlite

    ctx = getattr(getattr(tvmlite, "transform", None), "PassContext", None)
    if ctx is None:
        return contextlib.nullcontext()
    return ctx(opt_level=opt_level)


def compile_model(path, shapes, values, opt_level, progress, target="cpu"):
    """Read, import and build an ONNX model: (model, mod, lib, {input: (shape, dtype)})."""
    import tvmlite

    with progress.step("read the model"):
        model = load_onnx(path)
    resolved, dtypes = resolve_shapes(model, shapes, values)
    with progress.step("import (from_onnx)"):
        mod, params = tvmlite.frontend.from_onnx(model, shape=resolved,
                                                 base_dir=os.path.dirname(os.path.abspath(path)))
        mod = tvmlite.relay.transform.InferType()(mod)
    with progress.step(f"build (target {target}, opt level {opt_level})"):
        with pass_context(opt_level):
            lib = tvmlite.build(mod, target=target, params=params)
    return model, mod, lib, {n: (resolved[n], dtypes[n]) for n in resolved}


def graph_json(lib):
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


def graph_summary(graph):
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


def library_inputs(lib, gm):
    """{input name: (shape, dtype)} of a compiled library's data inputs, from its graph JSON or its executor."""
    graph = graph_json(lib)
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
