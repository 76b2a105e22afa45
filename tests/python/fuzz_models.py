"""Seeded hostile models and files through the layers above the FFI: the ONNX frontend, both build targets, the
executors, and export_library / load_module.

Four generators, each case drawn from (seed, case index) alone, so any case replays on its own:

* ``node``: an onnx node test (onnx.backend.test.case.node, as onnx_node_runner.py reads them, with data set 0's
  inputs; the pip wheel has no data/node directory), mutated: attribute values out of range, of the wrong kind,
  unknown or missing; shapes and dtypes of value_infos; initializers with wrong byte counts, hostile values, or
  external data pointing elsewhere (``../x``, ``/etc/passwd``, a canary file in the child's cwd, a symlink out of
  it); renamed edges, cycles, duplicate outputs; If subgraphs nested hundreds deep; opsets, op types, arities;
  wrong run-time inputs (shapes, dtypes, NaN, extremes, empty, missing);
* ``cnn``: a small network of tvmlite.models (seeded builders) with the same mutations;
* ``bytes``: a serialized model (node test or CNN, maybe mutated) truncated, bit-flipped, spliced with another;
* ``export``: a small model built for the cpu target (all native; with reference nodes; with run-time indices),
  exported, and the file tampered: param dtype names, shapes, counts, names; the graph JSON (func_name set to another
  global such as ``testing.echo`` or a Python canary, keys dropped, values of the wrong type, hostile numbers, and
  well-typed lies: kernel attrs, epilogue programs, layouts, entry shapes, storage ids); header and bytes.

A model case goes through from_onnx (bytes, and the ModelProto; a model with external data also from a file in the
case's folder) -> build(target="cpu") and build(target="debug") -> run with the case's inputs; an export case
through load_module -> run.

Outcome contract of a case: results or errors that are ``tvmlite.TVMLiteError`` (or MemoryError, or
FileNotFoundError for a path that does not exist). Findings (``KINDS``): a child killed by a signal, a hang that
SIGINT (Ctrl-C) cannot end within a few seconds, any other exception class (IndexError, AttributeError, KeyError,
numpy AxisError, BufferError, RecursionError, a plain ValueError or TypeError, ...), a file opened outside the
allowed directory (wrappers of open record every open: a model given as bytes or a ModelProto may open no file
near the case at all; a module file only itself), a registered Python canary called as a kernel factory, and a model
that onnx.checker (full_check) and onnxruntime (at session creation) both reject as invalid but tvmlite imports, builds
and runs without error (sampled: ``--ort-fraction``, all cases in a soak). A case still running at its timeout gets
SIGINT: if it then ends, it is a slow case, not a finding.

Cases run in worker processes (``--jobs``, restarted when they die) with RLIMIT_AS capped (``--mem-gb``)::

    python tests/python/fuzz_models.py --seed 7 --cases 2000            # run in workers, report findings
    python tests/python/fuzz_models.py --seed 7 --case 1234 --inline    # replay one case in this process
    python tests/python/fuzz_models.py --seed 7 --case 1234 --save DIR  # write its hostile model/file to DIR

Environment: TVMLITE_FUZZ_SEED (seed), TVMLITE_FUZZ_SECONDS (a soak: new seeds until that time is up, every case
checked against onnxruntime), TVMLITE_SANITIZE_RUN=1 (set by tests/sanitize.sh: longer time limits).
"""
import argparse
import collections
import copy
import json
import math
import os
import random
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.abspath(__file__)
DEFAULT_SEED = 20261129
GENERATORS = (("node", 0.55), ("cnn", 0.08), ("bytes", 0.2), ("export", 0.17))
KINDS = ("crash", "hang Ctrl-C cannot end", "raw exception", "file opened outside the allowed directory",
         "foreign global called", "invalid model runs", "worker died", "harness error")
CANARY = "canary.bin"  # in the child's cwd: a model-adjacent file no model given as bytes/ModelProto may read
SECRET = "secret.bin"  # in a directory next to the cwd: outside everything


def sanitized():
    return os.environ.get("TVMLITE_SANITIZE_RUN") == "1"


def case_timeout():
    """Seconds a case may run before SIGINT (the sanitizers slow every call down)."""
    return 150.0 if sanitized() else 30.0


def sigint_grace():
    """Seconds a case has to end after SIGINT before it counts as a hang Ctrl-C cannot end."""
    return 30.0 if sanitized() else 5.0


def case_rng(seed, index):
    return random.Random(f"fuzz_models:{seed}:{index}")


def replay_line(seed, index):
    return f"python tests/python/fuzz_models.py --seed {seed} --case {index} --inline"


# ----------------------------------------------------------------------------------------------------------------
# Hostile values
# ----------------------------------------------------------------------------------------------------------------

INTS = [-1, 0, 1, 2, 3, -2, 7, 64, 1000, 2**31 - 1, 2**31, -2**31, 2**32, 2**40, 2**62, 2**63 - 1, -2**63]
FLOATS = [0.0, -1.0, 0.5, 2.5, float("nan"), float("inf"), float("-inf"), 1e30, -1e30, 1e-45]
STRS = [b"", b"bogus", b"\xff\xfe", b"NOTSET", b"SAME_UPPER", b"VALID", b"constant", b"reflect", b"edge", b"linear",
        b"nearest", b"cubic", b"half_pixel", b"tf_crop_and_resize", b"DCR", b"CRD", b"float32", b"x" * 5000, b"\x00",
        b"round_prefer_ceil", b"max", b"mean", b"sum", b"none", b"ai.onnx"]
DIMS = [0, 1, 2, 3, 5, 7, 16, -1, -5, 2**31, 2**40, 2**62]
ELEM_TYPES = list(range(0, 24)) + [99, -1, 1000]
OP_TYPES = ["Add", "Conv", "Reshape", "Gather", "Concat", "Slice", "Transpose", "MatMul", "Relu", "Resize", "Pad",
            "Split", "If", "Loop", "Scan", "Einsum", "TopK", "NonZero", "Squeeze", "Unsqueeze", "Expand", "Tile",
            "Cast", "ReduceSum", "Softmax", "LSTM", "CumSum", "Range", "ConstantOfShape", "Where", "ScatterND",
            "GatherND", "OneHot", "BatchNormalization", "MaxPool", "AveragePool", "GlobalAveragePool", "Flatten",
            "Gemm", "DepthToSpace", "SpaceToDepth", "Identity", "Constant", "Shape", "Size", "Dropout", "ArgMax",
            "SequenceAt", "SplitToSequence", "Optional", "OptionalGetElement", "Trilu", "Unique", "RoiAlign"]
DOMAINS = ["", "ai.onnx", "ai.onnx.ml", "com.microsoft", "ai.onnx.preview.training", "bogus.domain"]
DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int32", "int64", "bool", "uint1",
               "int4", "float8_e4m3fn", "float32x4", "handle", "bogus", "", "int0", "float33", "object", "string",
               "custom[x]32", "int64x0", "\xff"]
GLOBALS = ["testing.echo", "fuzz.canary", "runtime.Array", "relay.backend.reference", "__nop", "",
           "graph_executor.create", "testing.raise", "testing.nop", "runtime.SaveJSON", "relay._transform.InferType"]


def _hostile_json_value(rng):
    return rng.choice([None, "x", "", -1, 0, 1, 2**31, 2**63 - 1, -2**63, 2**64, 1.5, 1e300, True, [], {}, [-1],
                       [[0, 0, 0]], {"a": 1}, "float32", "\u00ff", [2**40]])


# ----------------------------------------------------------------------------------------------------------------
# Sources: onnx node tests and small CNNs
# ----------------------------------------------------------------------------------------------------------------

_CACHE = {}


def _node_cache_path():
    import onnx

    return os.path.join(tempfile.gettempdir(), f"tvmlite-fuzz-models-onnx{onnx.__version__}-{os.getuid()}.pkl")


def node_tests():
    """{name: (serialized model, [(input name, value)])} of onnx's node tests (onnx.backend.test.case.node, as
    onnx_node_runner.py reads them) with data set 0's inputs. Collecting them takes seconds: the first caller
    stores them in a file in the temp directory, which workers load."""
    if "node" in _CACHE:
        return _CACHE["node"]
    import pickle

    path = _node_cache_path()
    try:
        with open(path, "rb") as f:
            _CACHE["node"] = pickle.load(f)
        return _CACHE["node"]
    except (OSError, EOFError, pickle.UnpicklingError):
        pass
    import warnings

    import numpy as np
    import onnx
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = collect_testcases(None)
    tests = {}
    for c in cases:
        if not c.data_sets:
            continue
        inits = {i.name for i in c.model.graph.initializer}
        names = [vi.name for vi in c.model.graph.input if vi.name not in inits]
        values = [onnx.numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else v for v in c.data_sets[0][0]]
        tests[c.name] = (c.model.SerializeToString(), list(zip(names, values)))
    tmp = f"{path}.{os.getpid()}"
    with open(tmp, "wb") as f:
        pickle.dump(tests, f)
    os.replace(tmp, path)
    _CACHE["node"] = tests
    return tests


def node_names():
    return sorted(node_tests())


def node_case(name):
    """(ModelProto, {input name: value}) of a node test: data set 0's inputs in graph.input order after dropping
    initializers (as onnx's runner maps them)."""
    import onnx

    data, inputs = node_tests()[name]
    return onnx.load_model_from_string(data), {k: copy.deepcopy(v) for k, v in inputs}


CNNS = {
    "resnet18": lambda m: m.resnet(depth=18, image_size=32, width=0.25, num_classes=10),
    "mobilenet_v2": lambda m: m.mobilenet_v2(image_size=32, width=0.35, num_classes=10),
    "inception_v1": lambda m: m.inception_v1(image_size=32, width=0.25, num_classes=10),
    "unet": lambda m: m.unet(image_size=16, base=4, levels=2),
}


def cnn_case(name):
    from tvmlite import models

    key = "cnn:" + name
    if key not in _CACHE:
        model = CNNS[name](models)
        _CACHE[key] = (model.SerializeToString(), models.example_input(model, seed=0))
    import onnx

    data, inputs = _CACHE[key]
    return onnx.load_model_from_string(data), dict(inputs)


# ----------------------------------------------------------------------------------------------------------------
# Model mutations: each edits a ModelProto (and the case's inputs) in place and returns what it did, or None when it
# does not apply to this model
# ----------------------------------------------------------------------------------------------------------------

def all_graphs(graph):
    out, stack = [], [graph]
    while stack:
        g = stack.pop()
        out.append(g)
        for n in g.node:
            for a in n.attribute:
                if a.HasField("g"):
                    stack.append(a.g)
                stack.extend(a.graphs)
    return out


def all_nodes(model):
    return [(g, n) for g in all_graphs(model.graph) for n in g.node]


def _label(n):
    return f"{n.op_type}({n.name or (n.output[0] if n.output else '')})"


def _pick_node(rng, model):
    """(graph, node) chosen among all the model's nodes (subgraphs included); (None, None) when it has none."""
    nodes = all_nodes(model)
    return rng.choice(nodes) if nodes else (None, None)


def _pick_attr(rng, model):
    """(node, attribute) chosen among all the model's (subgraphs included); (None, None) when it has none."""
    cands = [(n, a) for _, n in all_nodes(model) for a in n.attribute]
    return rng.choice(cands) if cands else (None, None)


def m_attr_value(rng, model, case):
    import onnx

    A = onnx.AttributeProto
    n, a = _pick_attr(rng, model)
    if a is None:
        return None
    if a.type == A.INT:
        a.i = rng.choice(INTS)
        v = a.i
    elif a.type == A.FLOAT:
        a.f = rng.choice(FLOATS)
        v = a.f
    elif a.type in (A.INTS, A.FLOATS):
        field, pool = (a.ints, INTS) if a.type == A.INTS else (a.floats, FLOATS)
        how = rng.randrange(4)
        if how == 0 and len(field):
            field[rng.randrange(len(field))] = rng.choice(pool)
        elif how == 1:
            field.append(rng.choice(pool))
        elif how == 2:
            del field[:]
        else:
            field.extend([rng.choice(pool)] * rng.choice([7, 64, 1000]))
        v = f"{list(field)[:8]}..."
    elif a.type == A.STRING:
        a.s = rng.choice(STRS)
        v = a.s[:20]
    elif a.type == A.STRINGS:
        a.strings.append(rng.choice(STRS))
        v = "+1 string"
    elif a.type == A.TENSOR:
        v = _mutate_tensor(rng, a.t)
    elif a.type == A.GRAPH:
        sub = a.g
        if sub.node and rng.random() < 0.5:
            node = rng.choice(sub.node)
            if node.input:
                node.input[rng.randrange(len(node.input))] = rng.choice(["nowhere", sub.node[-1].output[0]
                                                                         if sub.node[-1].output else "", ""])
            v = "subgraph edge renamed"
        elif sub.output:
            del sub.output[rng.randrange(len(sub.output))]
            v = "subgraph output dropped"
        else:
            return None
    else:
        return None
    return f"attr {_label(n)}.{a.name}={v!r}"


def m_attr_kind(rng, model, case):
    import onnx

    A = onnx.AttributeProto
    n, a = _pick_attr(rng, model)
    if a is None:
        return None
    name = a.name
    new = rng.choice([A.INT, A.FLOAT, A.INTS, A.FLOATS, A.STRING, A.STRINGS, A.TENSOR, A.GRAPH, A.UNDEFINED,
                      A.SPARSE_TENSOR, A.TYPE_PROTO])
    a.Clear()
    a.name = name
    if new == A.UNDEFINED:  # no type field: set one or two value fields
        a.i = rng.choice(INTS)
        if rng.random() < 0.5:
            a.f = 1.5
    elif new == A.INT:
        a.i = rng.choice(INTS)
    elif new == A.FLOAT:
        a.f = rng.choice(FLOATS)
    elif new == A.INTS:
        a.ints.extend([rng.choice(INTS) for _ in range(rng.randrange(4))])
    elif new == A.FLOATS:
        a.floats.extend([rng.choice(FLOATS) for _ in range(rng.randrange(4))])
    elif new == A.STRING:
        a.s = rng.choice(STRS)
    elif new == A.STRINGS:
        a.strings.extend([rng.choice(STRS) for _ in range(rng.randrange(3))])
    elif new == A.TENSOR:
        a.t.CopyFrom(onnx.helper.make_tensor("t", onnx.TensorProto.INT64, [2], [1, 2]))
    elif new == A.GRAPH:
        a.g.CopyFrom(onnx.helper.make_graph([], "empty", [], []))
    if new != A.UNDEFINED:
        a.type = new
    return f"attr {_label(n)}.{name} kind -> {A.AttributeType.Name(new)}"


def m_attr_unknown(rng, model, case):
    import onnx

    _, n = _pick_node(rng, model)
    if n is None:
        return None
    name = rng.choice(["frobnicate", "axis2", "_x", "", "strides", "axis", "mode", "kernel_shape"]
                      + [a.name for a in n.attribute])
    value = rng.choice([rng.choice(INTS), rng.choice(FLOATS), rng.choice(STRS), [1, 2], [0.5]])
    n.attribute.append(onnx.helper.make_attribute(name, value))
    return f"attr {_label(n)}.{name!r} added ({value!r:.30})"


def m_attr_drop(rng, model, case):
    cands = [n for _, n in all_nodes(model) if n.attribute]
    if not cands:
        return None
    n = rng.choice(cands)
    k = rng.randrange(len(n.attribute))
    name = n.attribute[k].name
    del n.attribute[k]
    return f"attr {_label(n)}.{name} dropped"


def _value_infos(model):
    out = []
    for g in all_graphs(model.graph):
        out += list(g.input) + list(g.output) + list(g.value_info)
    return out


def m_shape(rng, model, case):
    vis = [vi for vi in _value_infos(model) if vi.type.HasField("tensor_type")]
    if not vis:
        return None
    vi = rng.choice(vis)
    shape = vi.type.tensor_type.shape
    how = rng.randrange(5)
    if how == 0 and len(shape.dim):
        d = shape.dim[rng.randrange(len(shape.dim))]
        d.dim_value = rng.choice(DIMS)
    elif how == 1:
        shape.dim.add().dim_value = rng.choice(DIMS)
    elif how == 2 and len(shape.dim):
        del shape.dim[rng.randrange(len(shape.dim))]
    elif how == 3 and len(shape.dim):
        shape.dim[rng.randrange(len(shape.dim))].dim_param = rng.choice(["n", "", "?", "x y", "\xff"])
    else:
        vi.type.tensor_type.ClearField("shape")
    return f"shape of {vi.name!r} -> {[d.dim_value or d.dim_param for d in shape.dim]}"


def m_dtype(rng, model, case):
    vis = [vi for vi in _value_infos(model) if vi.type.HasField("tensor_type")]
    if not vis:
        return None
    vi = rng.choice(vis)
    vi.type.tensor_type.elem_type = rng.choice(ELEM_TYPES)
    return f"elem_type of {vi.name!r} -> {vi.type.tensor_type.elem_type}"


def _some_initializer(rng, model):
    import onnx

    if model.graph.initializer and rng.random() < 0.8:
        return rng.choice(model.graph.initializer)
    t = model.graph.initializer.add()
    t.CopyFrom(onnx.helper.make_tensor("fz_w", onnx.TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0]))
    return t


def _mutate_tensor(rng, t):
    how = rng.randrange(6)
    if how == 0:
        raw = t.raw_data or b"\0" * 16
        t.raw_data = raw[:rng.randrange(len(raw))] if rng.random() < 0.5 else raw + b"\x01" * rng.choice([1, 3, 64])
        return "raw_data size"
    if how == 1:
        t.dims.append(rng.choice(DIMS))
        return "extra dim"
    if how == 2 and len(t.dims):
        t.dims[rng.randrange(len(t.dims))] = rng.choice(DIMS)
        return "dim changed"
    if how == 3:
        t.data_type = rng.choice(ELEM_TYPES)
        return f"data_type {t.data_type}"
    if how == 4:
        t.float_data.extend([1.0, 2.0])
        t.int64_data.extend([3])
        return "typed data fields added"
    t.ClearField("dims")
    return "dims cleared"


def m_initializer(rng, model, case):
    t = _some_initializer(rng, model)
    return f"initializer {t.name!r}: {_mutate_tensor(rng, t)}"


def m_init_values(rng, model, case):
    """Hostile values of the right shape and dtype (indices out of range, NaN, extremes): these reach the kernels."""
    import numpy as np
    import onnx

    inits = [t for g in all_graphs(model.graph) for t in g.initializer]
    if not inits:
        return None
    t = rng.choice(inits)
    try:
        arr = onnx.numpy_helper.to_array(t)
    except Exception:  # noqa: BLE001 - already unreadable
        return None
    if arr.dtype.kind not in "biuf" or arr.size == 0:
        return None
    if arr.dtype.kind == "f":
        value = rng.choice([np.nan, np.inf, -np.inf, 0.0, -1.0, 1e30])
    elif arr.dtype.kind == "b":
        value = rng.random() < 0.5
    else:
        info = np.iinfo(arr.dtype)
        value = rng.choice([info.min, info.max, -1, 0, 2**31 - 1, 1000, -1000])
        value = min(max(value, info.min), info.max)
    arr = arr.copy()
    flat = arr.reshape(-1)
    if rng.random() < 0.5:
        flat[:] = value
    else:
        flat[rng.randrange(flat.size)] = value
    t.CopyFrom(onnx.numpy_helper.from_array(arr, t.name))
    return f"initializer {t.name!r} value {value!r}"


def m_external(rng, model, case):
    import onnx

    t = _some_initializer(rng, model)
    secret = os.path.join(case["workdir"], "outside", SECRET)
    location = rng.choice([CANARY, "./" + CANARY, "../outside/" + SECRET, "link.bin", secret, "/etc/passwd",
                           "/proc/self/environ", "missing.bin", "", "sub/../" + CANARY, "C:\\x", "../../../../x"])
    t.data_location = onnx.TensorProto.EXTERNAL
    t.ClearField("raw_data")
    del t.external_data[:]
    entries = {"location": location}
    if rng.random() < 0.3:
        entries["offset"] = rng.choice(["0", "-1", "4096", "99999999999", "abc"])
    if rng.random() < 0.3:
        entries["length"] = rng.choice(["0", "16", "-1", "99999999999", "x"])
    if rng.random() < 0.1:
        del entries["location"]
    for k, v in entries.items():
        e = t.external_data.add()
        e.key, e.value = k, v
    return f"initializer {t.name!r} external {entries}"


def m_edges(rng, model, case):
    g = rng.choice(all_graphs(model.graph))
    if not g.node:
        return None
    n = g.node[rng.randrange(len(g.node))]
    later = [o for m in g.node for o in m.output]
    how = rng.randrange(7)
    if how == 0 and n.input:
        k = rng.randrange(len(n.input))
        n.input[k] = rng.choice(["nowhere", ""] + later)
        return f"{_label(n)} input {k} -> {n.input[k]!r}"
    if how == 1 and n.input and n.output:
        n.input[rng.randrange(len(n.input))] = n.output[0]
        return f"{_label(n)} reads its own output"
    if how == 2 and n.output:
        n.output[rng.randrange(len(n.output))] = rng.choice(later + [o.name for o in g.input] + [""])
        return f"{_label(n)} output renamed"
    if how == 3 and len(g.node) > 1:
        nodes = list(g.node)
        rng.shuffle(nodes)
        del g.node[:]
        g.node.extend(nodes)
        return "nodes shuffled"
    if how == 4:
        del g.node[rng.randrange(len(g.node))]
        return "a node removed"
    if how == 5:
        g.node.append(copy.deepcopy(n))
        return f"{_label(n)} duplicated"
    if g.output:
        g.output.append(copy.deepcopy(rng.choice(g.output)))
        return "graph output duplicated"
    return None


def m_if_nest(rng, model, case):
    """An If nest, up to a few hundred deep, that computes an extra output from the first graph input. Built in place
    (helper.make_node copies its graphs through protobuf's parser, which stops at depth 100)."""
    import onnx
    from onnx import TensorProto, helper

    g = model.graph
    inits = {i.name for i in g.initializer}
    ins = [vi for vi in g.input if vi.name not in inits]
    if not ins:
        return None
    x = ins[0].name
    depth = rng.choice([1, 2, 8, 40, 120, 400])
    const_cond = rng.random() < 0.4
    container = g
    for level in range(depth):
        node = container.node.add()
        node.op_type, node.name = "If", f"fz_if{level}"
        node.input.append("fz_cond")
        node.output.append(f"fz_if{level}")
        then_attr, else_attr = node.attribute.add(), node.attribute.add()
        then_attr.name, then_attr.type = "then_branch", onnx.AttributeProto.GRAPH
        else_attr.name, else_attr.type = "else_branch", onnx.AttributeProto.GRAPH
        else_attr.g.name = f"else{level}"
        else_attr.g.node.append(helper.make_node("Identity", [x], [f"fz_else{level}"]))
        else_attr.g.output.append(helper.make_value_info(f"fz_else{level}", onnx.TypeProto()))
        then_attr.g.name = f"then{level}"
        inner = f"fz_if{level + 1}" if level + 1 < depth else "fz_leaf"
        then_attr.g.output.append(helper.make_value_info(inner, onnx.TypeProto()))
        container = then_attr.g
    container.node.append(helper.make_node("Identity", [x], ["fz_leaf"]))
    if const_cond:
        g.initializer.append(helper.make_tensor("fz_cond", TensorProto.BOOL, [], [True]))
    else:
        g.input.append(helper.make_tensor_value_info("fz_cond", TensorProto.BOOL, []))
        import numpy as np

        case["inputs"]["fz_cond"] = np.array(rng.random() < 0.5)
    g.output.append(helper.make_value_info("fz_if0", onnx.TypeProto()))
    return f"If nest of depth {depth} ({'constant' if const_cond else 'input'} condition)"


def m_inputs(rng, model, case):
    import numpy as np

    inputs = case["inputs"]
    if not inputs:
        return None
    name = rng.choice(sorted(inputs))
    v = inputs[name]
    how = rng.randrange(9)
    arr = v if isinstance(v, np.ndarray) else None
    if how == 0 and arr is not None:
        inputs[name] = arr.reshape(arr.shape + (1,))
    elif how == 1 and arr is not None and arr.ndim:
        inputs[name] = arr[..., :0]
    elif how == 2 and arr is not None:
        inputs[name] = arr.astype(rng.choice(["float64", "float16", "int32", "int64", "bool", "uint8", "complex64"]))
    elif how == 3 and arr is not None and arr.dtype.kind == "f":
        inputs[name] = np.full_like(arr, rng.choice([np.nan, np.inf, -np.inf, 1e38]))
    elif how == 4:
        del inputs[name]
    elif how == 5:
        inputs["fz_unknown"] = np.zeros(3, "float32")
    elif how == 6:
        inputs[name] = rng.choice([None, [1, 2], 3.0, "x", np.zeros((), "float32")])
    elif how == 7 and arr is not None and arr.ndim:
        inputs[name] = np.ascontiguousarray(np.swapaxes(arr, 0, -1)) if arr.ndim > 1 else arr[::-1]
    elif arr is not None and arr.dtype.kind in "iu":
        inputs[name] = np.full_like(arr, rng.choice([-1, 2**31 - 1, -2**31, 10**6]) if arr.itemsize >= 4 else -1)
    else:
        return None
    return f"input {name!r} changed ({how})"


def m_dynamic(rng, model, case):
    """A graph input's dim made symbolic and fed at another size (0, 1, odd, larger): run-time shapes through the
    executors' per-shape plans and the kernels' edge sizes."""
    import numpy as np

    inputs = case["inputs"]
    cands = [vi for vi in model.graph.input if vi.name in inputs and isinstance(inputs[vi.name], np.ndarray)
             and vi.type.HasField("tensor_type") and len(vi.type.tensor_type.shape.dim) == inputs[vi.name].ndim > 0]
    if not cands:
        return None
    vi = rng.choice(cands)
    arr = inputs[vi.name]
    axis = rng.randrange(arr.ndim)
    size = rng.choice([0, 1, 2, 3, 7, 33, arr.shape[axis] + 1])
    vi.type.tensor_type.shape.dim[axis].dim_param = rng.choice(["fz_n", "fz_m", "N"])
    reps = -(-size // arr.shape[axis]) if arr.shape[axis] else 0
    if reps:
        arr = np.concatenate([arr] * reps, axis=axis)
    inputs[vi.name] = np.ascontiguousarray(np.take(arr, np.arange(size), axis=axis)) if reps or size == 0 else \
        np.zeros(arr.shape[:axis] + (size,) + arr.shape[axis + 1:], arr.dtype)
    return f"input {vi.name!r} dim {axis} symbolic, fed {size}"


def m_opset(rng, model, case):
    how = rng.randrange(4)
    if how == 0 and model.opset_import:
        imp = rng.choice(model.opset_import)
        imp.version = rng.choice([0, 1, 6, 7, 9, 11, 13, 99999, -1, 2**40])
        return f"opset {imp.domain!r} -> {imp.version}"
    if how == 1 and model.opset_import:
        del model.opset_import[rng.randrange(len(model.opset_import))]
        return "an opset_import removed"
    if how == 2:
        model.ir_version = rng.choice([0, 1, 3, 99, 2**40])
        return f"ir_version -> {model.ir_version}"
    imp = model.opset_import.add()
    imp.domain, imp.version = rng.choice(DOMAINS), rng.choice([1, 2, 17])
    return f"opset_import {imp.domain!r} {imp.version} added"


def m_op_type(rng, model, case):
    _, n = _pick_node(rng, model)
    if n is None:
        return None
    old = _label(n)
    if rng.random() < 0.8:
        n.op_type = rng.choice(OP_TYPES)
    else:
        n.domain = rng.choice(DOMAINS)
    return f"{old} -> {n.op_type} (domain {n.domain!r})"


def m_arity(rng, model, case):
    g, n = _pick_node(rng, model)
    if n is None:
        return None
    how = rng.randrange(4)
    if how == 0 and n.input:
        n.input.append(rng.choice(list(n.input) + [""]))
    elif how == 1 and n.input:
        del n.input[rng.randrange(len(n.input))]
    elif how == 2:
        n.output.append(f"fz_extra{rng.randrange(3)}")
    elif how == 3 and len(n.output) > 1:
        del n.output[-1]
    else:
        n.input.extend([""] * rng.choice([1, 5]))
    return f"{_label(n)} arity ({how})"


def m_graph_io(rng, model, case):
    import onnx

    g = model.graph
    how = rng.randrange(3)
    if how == 0 and g.output:
        del g.output[rng.randrange(len(g.output))]
        return "a graph output removed"
    if how == 1 and g.input:
        vi = rng.choice(g.input)
        g.input.remove(vi)
        return f"graph input {vi.name!r} removed"
    g.input.append(onnx.helper.make_tensor_value_info(rng.choice(["fz_in", "x", ""]), rng.choice([1, 7, 9]),
                                                      rng.choice([[2], [], None, [0]])))
    return "a graph input added"


MODEL_MUTATIONS = [(m_attr_value, 5), (m_attr_kind, 2), (m_attr_unknown, 2), (m_attr_drop, 2), (m_shape, 3),
                   (m_dtype, 2), (m_initializer, 2), (m_init_values, 2), (m_external, 2), (m_edges, 3),
                   (m_if_nest, 1), (m_inputs, 4), (m_dynamic, 3), (m_opset, 1), (m_op_type, 1), (m_arity, 2),
                   (m_graph_io, 1)]


# Mild ones keep a model valid more often, so that cases reach the build and the kernels
MILD_MUTATIONS = [(m_attr_value, 3), (m_init_values, 3), (m_inputs, 3), (m_dynamic, 3)]


def mutate_model(rng, model, case, count, mild=False):
    fns, weights = zip(*(MILD_MUTATIONS if mild else MODEL_MUTATIONS))
    done = []
    for _ in range(count * 3):
        if len(done) >= count:
            break
        fn = rng.choices(fns, weights)[0]
        try:
            what = fn(rng, model, case)
        except Exception as err:  # noqa: BLE001 - protobuf refuses the edit (a copy deeper than it parses)
            what = f"({fn.__name__} refused: {type(err).__name__})"
        if what is not None:
            done.append(what)
    return done


# ----------------------------------------------------------------------------------------------------------------
# Byte-level mutations of serialized models
# ----------------------------------------------------------------------------------------------------------------

def mutate_bytes(rng, data, other):
    data = bytearray(data)
    how = rng.randrange(5)
    head = min(len(data), 4096)  # a model's graph (nodes) comes first: most structure is in the head
    if how == 0:
        cut = rng.randrange(len(data)) if rng.random() < 0.5 else rng.randrange(head)
        return bytes(data[:cut]), f"truncated to {cut} of {len(data)} bytes"
    if how == 1:
        flips = rng.choice([1, 2, 8, 32])
        for _ in range(flips):
            pos = rng.randrange(head) if rng.random() < 0.8 else rng.randrange(len(data))
            data[pos] ^= 1 << rng.randrange(8)
        return bytes(data), f"{flips} bit flips"
    if how == 2:
        a, b = rng.randrange(len(data)), rng.randrange(len(other))
        return bytes(data[:a]) + other[b:], f"splice {a} + other[{b}:]"
    if how == 3:
        pos = rng.randrange(head)
        data[pos:pos] = bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 4, 10])))
        return bytes(data), f"bytes inserted at {pos}"
    pos = rng.randrange(head)
    data[pos] = rng.choice([0x00, 0xff, 0x7f, 0x80])  # varints: lengths and tags
    return bytes(data), f"byte {pos} set"


# ----------------------------------------------------------------------------------------------------------------
# Exported files: parse/pack export_library's layout (tvmlite/runtime/module.py) so fields can disagree at will
# ----------------------------------------------------------------------------------------------------------------

MAGIC, END, ALIGN = b"TVMLITE-GRAPHLIB", b"TVMLEND\0", 64


def parse_module(data):
    """(graph JSON text, [param dicts: name, dtype, shape, data]) of a version 2 file."""
    pos = len(MAGIC) + 4
    (n,) = struct.unpack_from("<Q", data, pos)
    pos += 8
    graph = data[pos:pos + n].decode()
    pos += n
    (count,) = struct.unpack_from("<I", data, pos)
    pos += 4
    params = []
    for _ in range(count):
        texts = []
        for _ in range(2):
            (k,) = struct.unpack_from("<I", data, pos)
            texts.append(data[pos + 4:pos + 4 + k].decode())
            pos += 4 + k
        (ndim,) = struct.unpack_from("<I", data, pos)
        shape = list(struct.unpack_from(f"<{ndim}q", data, pos + 4))
        pos += 4 + 8 * ndim
        (nbytes,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        pos += -pos % ALIGN
        params.append({"name": texts[0], "dtype": texts[1], "shape": shape, "data": data[pos:pos + nbytes]})
        pos += nbytes
    if data[pos:] != END:
        raise ValueError(f"parse_module: {len(data) - pos} bytes after the params are not the end mark {END!r}")
    return graph, params


def pack_module(graph, params, version=2):
    """The file bytes; a param's "nbytes" (when set) is written instead of its data's size."""
    out = bytearray(MAGIC + struct.pack("<I", version))
    g = graph.encode("utf-8", "surrogatepass") if isinstance(graph, str) else graph
    out += struct.pack("<Q", len(g)) + g + struct.pack("<I", len(params))
    for p in params:
        for text in (p["name"], p["dtype"]):
            b = text.encode("utf-8", "surrogatepass")
            out += struct.pack("<I", len(b)) + b
        shape = p["shape"]
        out += struct.pack("<I", len(shape)) + struct.pack(f"<{len(shape)}q", *shape)
        out += struct.pack("<Q", p.get("nbytes", len(p["data"])))
        if version >= 2:
            out += b"\0" * (-len(out) % ALIGN)
        out += p["data"]
    return bytes(out + END)


def export_bases():
    """{name: (file bytes, inputs)}: small models built for the cpu target and exported, made once per process."""
    if "export" in _CACHE:
        return _CACHE["export"]
    import numpy as np
    from onnx import TensorProto, helper

    import tvmlite

    r = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 3, 3, 3], r.standard_normal(108).astype("float32"))
    b = helper.make_tensor("b", TensorProto.FLOAT, [4, 1, 1], r.standard_normal(4).astype("float32"))
    native = helper.make_graph([
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c", "b"], ["a"]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
    ], "native", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, b])
    # TopK and CumSum have no native kernel: they run as relay.backend.reference nodes
    v = helper.make_tensor_value_info("v", TensorProto.FLOAT, [4, 6])
    k = helper.make_tensor("k", TensorProto.INT64, [1], [3])
    ax = helper.make_tensor("ax", TensorProto.INT64, [], [1])
    reference = helper.make_graph([
        helper.make_node("Relu", ["v"], ["r"]),
        helper.make_node("TopK", ["r", "k"], ["vals", "idx"]),
        helper.make_node("CumSum", ["vals", "ax"], ["cs"]),
        helper.make_node("Mul", ["cs", "cs"], ["y"]),
    ], "reference", [v], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                          helper.make_tensor_value_info("idx", TensorProto.INT64, None)], [k, ax])
    # run-time indices into native kernels (take), a dense layer, a softmax, a concat
    d = helper.make_tensor_value_info("d", TensorProto.FLOAT, [5, 8])
    i = helper.make_tensor_value_info("i", TensorProto.INT64, [3])
    wd = helper.make_tensor("wd", TensorProto.FLOAT, [8, 6], r.standard_normal(48).astype("float32"))
    indexed = helper.make_graph([
        helper.make_node("Gather", ["d", "i"], ["g"], axis=0),
        helper.make_node("MatMul", ["g", "wd"], ["m"]),
        helper.make_node("Softmax", ["m"], ["s"], axis=-1),
        helper.make_node("Concat", ["s", "s"], ["c"], axis=0),
        helper.make_node("ReduceSum", ["c"], ["y"], keepdims=0),
    ], "indexed", [d, i], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [wd])
    bases = {}
    with tempfile.TemporaryDirectory(prefix="tvmlite-fuzzm-") as tmp:
        for name, graph, feeds in (("native", native, {"x": r.standard_normal((1, 3, 8, 8)).astype("float32")}),
                                   ("reference", reference, {"v": r.standard_normal((4, 6)).astype("float32")}),
                                   ("indexed", indexed, {"d": r.standard_normal((5, 8)).astype("float32"),
                                                         "i": np.array([4, 0, 2], "int64")})):
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
            mod, params = tvmlite.frontend.from_onnx(model)
            lib = tvmlite.build(mod, target="cpu", params=params)
            path = os.path.join(tmp, name + ".tvmlite")
            lib.export_library(path)
            with open(path, "rb") as f:
                bases[name] = (f.read(), feeds)
    _CACHE["export"] = bases
    return bases


def _walk_json(rng, root, want=None):
    """A random (container, key) inside root (a dict/list tree), preferring leaves of type want."""
    spots = []
    stack = [root]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            if want is None or isinstance(v, want):
                spots.append((node, k))
            if isinstance(v, (dict, list)):
                stack.append(v)
    return rng.choice(spots) if spots else None


def _mutate_text(rng, text):
    """A layout or epilogue string a little off: a number, a register or operand, an op, a token dropped or added."""
    tokens = re.split(r"(\W+)", text)
    words = [k for k, t in enumerate(tokens) if t and re.match(r"\w", t)]
    how = rng.randrange(4)
    if how == 0 and words:
        k = rng.choice(words)
        tokens[k] = re.sub(r"\d+", lambda m: str(rng.choice([0, 1, 2, 3, 4, 7, 8, 16, 99, 2**31])), tokens[k]) \
            if re.search(r"\d", tokens[k]) else rng.choice(["add", "mul", "div", "relu", "clip", "bogus", "NCHW",
                                                             "NHWC", "NCHW8c", "OIHW"])
    elif how == 1 and words:
        del tokens[rng.choice(words)]
    elif how == 2:
        tokens.append(rng.choice(["; relu r0 r0", "; add r0 r0 in5", "; mul r9 r0 in0", "c", "8c", ";"]))
    else:
        return rng.choice(["", "NCHW", "NCHW16c", "NHWC", "relu r0 in0", "add r0 in0 in1", "x" * 300])
    return "".join(tokens)


def tamper_export(rng, data):
    """The tampered file bytes and what was done."""
    graph_text, params = parse_module(data)
    graph = json.loads(graph_text)
    how = rng.choice(["func_name", "func_name", "drop_key", "wrong_type", "number", "dltype", "kernel_attrs",
                      "kernel_number", "kernel_number", "kernel_text", "kernel_text", "shape", "shape", "storage",
                      "ref_func", "param_dtype", "param_shape", "param_count", "param_name", "header", "raw"])
    raw_graph = None
    version = 2
    what = how
    kernels = [n for n in graph.get("nodes", ()) if n.get("op") == "tvm_op"]
    if how == "func_name" and kernels:
        node = rng.choice(kernels)
        node["attrs"]["func_name"] = rng.choice(GLOBALS + [n["attrs"]["func_name"] for n in kernels])
        what = f"{node['name']} func_name -> {node['attrs']['func_name']!r}"
    elif how == "drop_key":
        spot = _walk_json(rng, graph, None)
        if spot and isinstance(spot[0], dict):
            del spot[0][spot[1]]
            what = f"key {spot[1]!r} dropped"
        else:
            graph.pop(rng.choice(sorted(graph)), None)
    elif how == "wrong_type":
        spot = _walk_json(rng, graph, None)
        if spot:
            spot[0][spot[1]] = _hostile_json_value(rng)
            what = f"{spot[1]!r} -> {spot[0][spot[1]]!r:.40}"
    elif how == "number":
        spot = _walk_json(rng, graph, int)
        if spot:
            spot[0][spot[1]] = rng.choice(INTS + [5, 6, 100])
            what = f"number {spot[1]!r} -> {spot[0][spot[1]]}"
    elif how == "dltype":
        spot = _walk_json(rng, graph.get("attrs", {}).get("dltype", []), str)
        if spot:
            spot[0][spot[1]] = rng.choice(DTYPE_NAMES)
            what = f"dltype -> {spot[0][spot[1]]!r}"
    elif how == "kernel_attrs" and kernels:
        node = rng.choice(kernels)
        spot = _walk_json(rng, node["attrs"].get("kernel_attrs", {}), None)
        if spot:
            spot[0][spot[1]] = _hostile_json_value(rng)
        else:
            node["attrs"]["kernel_attrs"] = _hostile_json_value(rng)
        what = f"{node['name']} kernel_attrs tampered"
    elif how == "kernel_number" and kernels:  # well-typed but inconsistent: strides, pads, sizes, groups
        node = rng.choice(kernels)
        spot = _walk_json(rng, node["attrs"].get("kernel_attrs", {}), int)
        if spot:
            v = spot[0][spot[1]]
            spot[0][spot[1]] = rng.choice([v + 1, v - 1, 2 * v, 0, -1, 1, 64, 2**31 - 1])
            what = f"{node['name']} kernel_attrs {spot[1]!r}: {v} -> {spot[0][spot[1]]}"
    elif how == "kernel_text" and kernels:  # layouts and epilogue programs
        node = rng.choice(kernels)
        spot = _walk_json(rng, node["attrs"].get("kernel_attrs", {}), str)
        if spot and not spot[1] == "func":
            v = spot[0][spot[1]]
            spot[0][spot[1]] = _mutate_text(rng, v)
            what = f"{node['name']} kernel_attrs {spot[1]!r}: {v!r} -> {spot[0][spot[1]]!r}"
    elif how == "shape":  # an entry's shape a little off, well-typed
        spot = _walk_json(rng, graph.get("attrs", {}).get("shape", []), int)
        if spot:
            v = spot[0][spot[1]]
            spot[0][spot[1]] = rng.choice([v + 1, v - 1, 2 * v, 0, 1])
            what = f"an entry's dim {v} -> {spot[0][spot[1]]}"
    elif how == "storage":  # an entry moved to another storage (aliases, sizes that differ)
        ids = graph.get("attrs", {}).get("storage_id", [])
        if isinstance(ids, list) and len(ids) > 1:
            k = rng.randrange(len(ids))
            old_id, ids[k] = ids[k], rng.choice(ids)
            what = f"entry {k} storage {old_id} -> {ids[k]}"
    elif how == "ref_func":
        refs = [n for n in kernels if isinstance(n["attrs"].get("kernel_attrs", {}).get("func"), str)]
        if refs:
            node = rng.choice(refs)
            text = bytearray(node["attrs"]["kernel_attrs"]["func"].encode())
            for _ in range(rng.choice([1, 4])):
                pos = rng.randrange(len(text))
                text[pos] = rng.choice(b'{}[]",:0123456789-x')
            node["attrs"]["kernel_attrs"]["func"] = text.decode("utf-8", "replace")
            what = f"{node['name']} reference func text tampered"
    elif how == "param_dtype" and params:
        p = rng.choice(params)
        p["dtype"] = rng.choice(DTYPE_NAMES)
        if rng.random() < 0.5:
            p["nbytes"] = rng.choice([0, len(p["data"]) // 2, len(p["data"]) * 2])
        what = f"param {p['name']} dtype -> {p['dtype']!r}"
    elif how == "param_shape" and params:
        p = rng.choice(params)
        h = rng.randrange(4)
        if h == 0 and p["shape"]:
            p["shape"][rng.randrange(len(p["shape"]))] = rng.choice(DIMS)
        elif h == 1:
            p["shape"] = p["shape"][::-1]
        elif h == 2:
            p["shape"] = [int(math.prod(p["shape"]))]  # same bytes, another rank
        else:
            p["shape"] = p["shape"] + [1]
        what = f"param {p['name']} shape -> {p['shape']}"
    elif how == "param_count" and params:
        h = rng.randrange(3)
        if h == 0:
            params.pop(rng.randrange(len(params)))
        elif h == 1:
            params.append(dict(rng.choice(params)))
        else:
            params.append({"name": "fz_extra", "dtype": "float32", "shape": [2], "data": b"\0" * 8})
        what = f"param count ({h})"
    elif how == "param_name" and params:
        p = rng.choice(params)
        p["name"] = rng.choice(["", "x", "v", "fz", params[0]["name"], "\udcff"])
        what = f"param renamed -> {p['name']!r}"
    elif how == "header":
        h = rng.randrange(3)
        if h == 0:
            version = rng.choice([0, 1, 3, 2**32 - 1])
        elif h == 1:
            raw_graph = graph_text.encode()[:rng.randrange(len(graph_text))]
        else:
            raw_graph = graph_text.encode() + b"\0" * rng.choice([1, 7])
        what = f"header ({h}, version {version})"
    else:
        blob = bytearray(pack_module(graph_text, params))
        if rng.random() < 0.5:
            cut = rng.randrange(len(blob))
            return bytes(blob[:cut]), f"truncated to {cut}"
        for _ in range(rng.choice([1, 4, 16])):
            blob[rng.randrange(len(blob))] ^= 1 << rng.randrange(8)
        return bytes(blob), "bit flips"
    text = raw_graph if raw_graph is not None else json.dumps(graph)
    return pack_module(text, params, version), what


# ----------------------------------------------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------------------------------------------

def make_case(seed, index, workdir):
    """The case (a dict) for (seed, index); workdir is where its files live (the child's cwd is workdir/cwd)."""

    rng = case_rng(seed, index)
    gen = rng.choices([g for g, _ in GENERATORS], [w for _, w in GENERATORS])[0]
    case = {"seed": seed, "index": index, "gen": gen, "workdir": workdir, "inputs": {}, "what": []}
    if gen == "export":
        name = rng.choice(sorted(export_bases()))
        data, feeds = export_bases()[name]
        case["origin"] = "export:" + name
        case["inputs"] = {k: v.copy() for k, v in feeds.items()}
        case["file"], what = tamper_export(rng, data)
        case["what"].append(what)
        if rng.random() < 0.2:
            case["what"].append(m_inputs(rng, None, case) or "inputs kept")
        return case
    import onnx

    if gen == "cnn" or (gen == "bytes" and rng.random() < 0.2):
        name = rng.choice(sorted(CNNS))
        model, inputs = cnn_case(name)
        origin = "cnn:" + name
    else:
        origin = rng.choice(node_names())
        model, inputs = node_case(origin)
    case["origin"], case["inputs"] = origin, inputs
    if gen == "bytes":
        if rng.random() < 0.3:
            case["what"] += mutate_model(rng, model, case, 1)
        other, _ = node_case(rng.choice(node_names()))
        data, what = mutate_bytes(rng, model.SerializeToString(), other.SerializeToString())
        case["what"].append(what)
        case["model_bytes"] = data
        try:
            case["model"] = onnx.load_model_from_string(data)
        except Exception:  # noqa: BLE001 - bytes protobuf rejects: from_onnx gets only the bytes
            case["model"] = None
        return case
    count = rng.choice([1, 1, 1, 2, 3])
    case["what"] += mutate_model(rng, model, case, count, mild=rng.random() < 0.4)
    case["model"] = model
    try:
        case["model_bytes"] = model.SerializeToString()
    except Exception as err:  # noqa: BLE001 - e.g. nesting deeper than protobuf serializes
        case["model_bytes"] = None
        case["what"].append(f"(not serializable: {type(err).__name__})")
    return case


def save_case(case, directory):
    """Write a case's hostile model or file and its inputs to directory; returns the paths written."""
    import numpy as np

    os.makedirs(directory, exist_ok=True)
    stem = os.path.join(directory, f"seed{case['seed']}_case{case['index']}")
    written = []
    if case.get("file") is not None:
        written.append(stem + ".tvmlite")
        with open(written[-1], "wb") as f:
            f.write(case["file"])
    else:
        data = case.get("model_bytes")
        if data is None and case.get("model") is not None:
            data = case["model"].SerializeToString()
        if data is not None:
            written.append(stem + ".onnx")
            with open(written[-1], "wb") as f:
                f.write(data)
    arrays = {k: v for k, v in case["inputs"].items() if isinstance(v, np.ndarray) and v.dtype != object}
    if arrays:
        written.append(stem + "_inputs.npz")
        np.savez(written[-1], **arrays)
    with open(stem + ".txt", "w") as f:
        f.write(f"{case['gen']} {case['origin']}: {'; '.join(case['what'])}\n")
        f.write(replay_line(case["seed"], case["index"]) + "\n")
    written.append(stem + ".txt")
    return written


# ----------------------------------------------------------------------------------------------------------------
# Running a case (in a worker, or inline): stages, the exception contract, the open watch, the onnxruntime oracle
# ----------------------------------------------------------------------------------------------------------------

class Watch:
    """What the child records while tvmlite runs: files opened and canary calls.

    Opens are seen through wrappers of builtins.open / io.open / os.open, not an audit hook: a hook runs Python code
    inside every audited C call, where a Ctrl-C handler that fires in it raises KeyboardInterrupt into callers that
    drop it (measured: about one probe in ten lost, cases Ctrl-C could then not end). A wrapper runs only on an open,
    called from Python code, where the interrupt propagates as the original open's would."""

    def __init__(self):
        self.recording = False
        self.allowed = set()  # files that may be opened
        self.allowed_dirs = []  # directories whose files (after resolving links) may be opened
        self.roots = []  # directories no open may reach (the case's workdir)
        self.opened = []
        self.canary_calls = 0
        self.safe_prefixes = []

    def install(self):
        import builtins
        import io

        import numpy
        import onnx

        import tvmlite

        prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.dirname(tvmlite.__file__)),
                    os.path.dirname(onnx.__file__), os.path.dirname(numpy.__file__), os.path.dirname(HERE), "/proc",
                    "/sys", "/dev"}
        self.safe_prefixes = sorted(os.path.realpath(p) for p in prefixes)
        builtins.open = io.open = self._wrap(io.open)
        os.open = self._wrap(os.open)

    def _wrap(self, fn):
        watch = self

        def opener(file, *args, **kwargs):
            if watch.recording:
                watch.check(file)
            return fn(file, *args, **kwargs)

        opener.__name__, opener.__qualname__, opener.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        return opener

    def check(self, path):
        if isinstance(path, int):  # open(fd) of a file opened natively (onnx opens external data in C++)
            try:
                path = os.readlink(f"/proc/self/fd/{path}")
            except OSError:
                return
        try:
            path = os.fsdecode(path)
            full = os.path.abspath(path)
            real = os.path.realpath(full)
        except Exception:  # noqa: BLE001 - a path that cannot be resolved: record it as given
            self.opened.append(repr(path))
            return
        if full in self.allowed or real in self.allowed or any(real.startswith(d + os.sep) for d in self.allowed_dirs):
            return
        near = any(p == r or p.startswith(r + os.sep) for r in self.roots for p in (full, real))
        safe = any(real == s or real.startswith(s + os.sep) for s in self.safe_prefixes)
        if near or not safe:
            self.opened.append(f"{path} (a link to {real})" if os.path.islink(full) else path)


WATCH = Watch()
TVMLITE_DIR = None
FAILED = object()  # what CaseRun.stage returns after an exception


def GraphModuleRun(gm):  # noqa: N802 - a stage's callable (the name the traceback shows)
    gm.run()


def _where(exc):
    """'file:line in function' of the deepest traceback frame in tvmlite's package (else the deepest frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    ours = [f for f in frames if TVMLITE_DIR and f.filename.startswith(TVMLITE_DIR)]
    f = (ours or frames)[-1]
    name = os.path.relpath(f.filename, os.path.dirname(TVMLITE_DIR)) if ours else os.path.basename(f.filename)
    return f"{name}:{f.lineno} in {f.name}"


def exception_finding(exc):
    """None when exc honours the contract, else the finding's kind."""
    from tvmlite import TVMLiteError

    if isinstance(exc, (TVMLiteError, MemoryError)):
        return None
    if isinstance(exc, FileNotFoundError) and exc.filename and not os.path.exists(exc.filename):
        return None
    return "raw exception"


def _first_line(text, limit=240):
    text = str(text).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[:limit] + "..."


class CaseRun:
    """Runs one case's stages, collecting outcomes and findings. emit(stage) is called before each stage."""

    def __init__(self, case, emit=None, ort_check=False, verbose=False):
        self.case = case
        self.emit = emit or (lambda stage: None)
        self.ort_check = ort_check
        self.verbose = verbose
        self.outcomes = []  # (stage, "ok" or exception class name)
        self.findings = []  # dicts: kind, stage, message, where, exc

    def stage(self, name, fn, *args):
        """fn(*args) under the watch: its result, or FAILED after an exception (recorded)."""
        import warnings

        import numpy as np

        self.emit(name)
        WATCH.recording = True
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = fn(*args)
            self.outcomes.append((name, "ok", ""))
            return result
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - every exception is judged
            cls = type(exc)
            self.outcomes.append((name, f"{cls.__module__}.{cls.__qualname__}", _first_line(exc, 160)))
            kind = exception_finding(exc) if isinstance(exc, Exception) else "raw exception"
            if self.verbose:
                traceback.print_exception(exc)
            if kind:
                self.findings.append({"kind": kind, "stage": name, "exc": cls.__qualname__,
                                      "message": _first_line(exc), "where": _where(exc)})
            return FAILED
        finally:
            WATCH.recording = False
            self._check_watch(name)

    def _check_watch(self, stage):
        if WATCH.opened:
            for path in dict.fromkeys(WATCH.opened):
                self.findings.append({"kind": "file opened outside the allowed directory", "stage": stage,
                                      "exc": "", "message": f"opened {path}", "where": ""})
            WATCH.opened.clear()
        if WATCH.canary_calls:
            self.findings.append({"kind": "foreign global called", "stage": stage, "exc": "",
                                  "message": f"the Python canary fuzz.canary was called {WATCH.canary_calls} times "
                                             f"as a kernel factory", "where": ""})
            WATCH.canary_calls = 0

    def run(self):
        case = self.case
        if case.get("file") is not None:
            self._run_export()
        else:
            self._run_model()
        return self

    def _execute(self, lib, tag):
        """Make an executor of lib, set the case's inputs, run, read the outputs: whether every step succeeded."""
        import tvmlite

        gm = self.stage(f"create {tag}", lambda: tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0))))
        if gm is FAILED:
            return False
        steps = (("set inputs", self._set_inputs), ("run", GraphModuleRun), ("outputs", self._outputs))
        return all(self.stage(f"{what} {tag}", fn, gm) is not FAILED for what, fn in steps)

    def _set_inputs(self, gm):
        for name, value in self.case["inputs"].items():
            gm.set_input(name, value)
        return True

    @staticmethod
    def _outputs(gm):
        outs = []
        for i in range(gm.get_num_outputs()):
            o = gm.get_output(i)
            outs.append(o.numpy() if hasattr(o, "numpy") else o)
        return outs

    def _run_model(self):
        import tvmlite

        case = self.case
        WATCH.allowed = set()
        imported = FAILED
        if case.get("model_bytes") is not None:
            imported = self.stage("from_onnx(bytes)", tvmlite.frontend.from_onnx, case["model_bytes"])
        if case.get("model") is not None:
            proto = self.stage("from_onnx(ModelProto)", tvmlite.frontend.from_onnx, case["model"])
            imported = proto if proto is not FAILED else imported
        if case.get("model_bytes") is not None and _uses_external_data(case.get("model")):
            # from a file, external data may come from the model's folder (links resolved), and nowhere else
            cwd = os.path.join(case["workdir"], "cwd")
            path = os.path.join(cwd, "model.onnx")
            with open(path, "wb") as f:
                f.write(case["model_bytes"])
            WATCH.allowed, WATCH.allowed_dirs = {path}, [os.path.realpath(cwd)]
            from_path = self.stage("from_onnx(path)", tvmlite.frontend.from_onnx, path)
            WATCH.allowed, WATCH.allowed_dirs = set(), []
            imported = from_path if imported is FAILED else imported
        if imported is FAILED:
            return
        mod, params = imported
        ran = False
        for target in ("cpu", "debug"):
            lib = self.stage(f"build {target}", tvmlite.build, mod, target, params)
            if lib is not FAILED:
                ran = self._execute(lib, target) or ran
        if ran and self.ort_check and case.get("model") is not None:
            self._oracle()

    def _oracle(self):
        """A model onnx's full check and onnxruntime both reject as invalid must not run silently."""
        import onnx

        self.emit("oracle: onnx.checker")
        model = self.case["model"]
        try:
            onnx.checker.check_model(model, full_check=True)
            return
        except Exception as err:  # noqa: BLE001 - any rejection
            checker = _first_line(err, 160)
        if "Unable to parse proto" in checker:  # deeper than protobuf parses: a limit of the oracle, not invalid
            return
        self.emit("oracle: onnxruntime session")
        try:
            import onnxruntime as ort
        except ImportError as err:
            self.findings.append({"kind": "harness error", "stage": "oracle", "exc": "ImportError",
                                  "message": f"the oracle needs onnxruntime (the test extra installs it): {err}",
                                  "where": ""})
            return

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        opts.log_severity_level = 4
        try:
            data = self.case.get("model_bytes") or model.SerializeToString()
            ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
            return
        except Exception as err:  # noqa: BLE001 - classify onnxruntime's verdict
            text = str(err)
        if "NOT_IMPLEMENTED" in text:
            return
        if any(s in text for s in ("INVALID_GRAPH", "INVALID_ARGUMENT", "FAIL : Load model")):
            self.findings.append({"kind": "invalid model runs", "stage": "oracle", "exc": "",
                                  "message": f"onnx.checker: {checker} | onnxruntime: {_first_line(text, 200)}",
                                  "where": ""})

    def _run_export(self):
        import tvmlite

        case = self.case
        path = os.path.join(case["workdir"], "cwd", "model.tvmlite")
        with open(path, "wb") as f:
            f.write(case["file"])
        WATCH.allowed = {path, os.path.realpath(path)}
        lib = self.stage("load_module", tvmlite.runtime.load_module, path)
        if lib is not FAILED:
            self._execute(lib, "loaded")


def _uses_external_data(model):
    import onnx

    return model is not None and any(t.data_location == onnx.TensorProto.EXTERNAL for g in all_graphs(model.graph)
                                     for t in g.initializer)


def prepare_workdir(workdir):
    """workdir/cwd (the case's cwd) with a canary file and a symlink out; workdir/outside with a secret file."""
    shutil.rmtree(workdir, ignore_errors=True)
    cwd, outside = os.path.join(workdir, "cwd"), os.path.join(workdir, "outside")
    os.makedirs(cwd)
    os.makedirs(outside)
    for path in (os.path.join(cwd, CANARY), os.path.join(outside, SECRET)):
        with open(path, "wb") as f:
            f.write(b"\x42" * 65536)
    os.symlink(os.path.join(outside, SECRET), os.path.join(cwd, "link.bin"))
    return cwd


def setup_child(mem_gb):
    """Imports, the canary global and the open watch; RLIMIT_AS when mem_gb is set."""
    global TVMLITE_DIR
    import numpy  # noqa: F401
    import onnx  # noqa: F401

    import tvmlite
    import tvmlite.testing  # noqa: F401 - testing.echo and friends: func_name targets
    from tvmlite.relay.backend import reference_kernel  # noqa: F401

    TVMLITE_DIR = os.path.dirname(os.path.abspath(tvmlite.__file__))

    def canary(*args):
        WATCH.canary_calls += 1
        return tvmlite.get_global_func("testing.nop")

    tvmlite.register_func("fuzz.canary", canary, override=True)
    WATCH.install()
    if mem_gb:
        import resource

        limit = int(mem_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def selftest_case(kind):
    """Stand-in cases for the harness's own tests: each behaves like a finding (or a slow case) of its kind."""
    def crash():
        os.kill(os.getpid(), signal.SIGSEGV)

    def slow():
        time.sleep(3600)

    def hang():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        time.sleep(3600)

    def open_canary():
        with open(CANARY, "rb") as f:
            return f.read(1)

    def external():  # what from_onnx did before issue 30's item 1: external data read relative to the cwd
        import onnx

        t = onnx.helper.make_tensor("w", onnx.TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
        t.data_location = onnx.TensorProto.EXTERNAL
        t.ClearField("float_data")
        e = t.external_data.add()
        e.key, e.value = "location", CANARY
        return onnx.numpy_helper.to_array(t)  # onnx opens the file natively and reads it through open(fd)

    def raw():
        return {}["missing"]

    return {"crash": crash, "slow": slow, "hang": hang, "open": open_canary, "external": external, "raw": raw}[kind]


def run_one(seed, index, base, ort_check, emit=None, verbose=False, selftest=None):
    """Make case (seed, index) under base and run it; the case's findings and outcomes (a JSON-able dict)."""
    old = os.getcwd()
    try:
        return run_case(seed, index, base, ort_check, emit, verbose, selftest)
    finally:
        end_case(old, base, index)


def end_case(old_cwd, base, index):
    """The harness's cleanup after a case: back to old_cwd, the case's folder removed."""
    os.chdir(old_cwd)
    shutil.rmtree(os.path.join(base, f"case{index}"), ignore_errors=True)


def run_case(seed, index, base, ort_check, emit=None, verbose=False, selftest=None):
    """run_one without its cleanup (end_case): the part a Ctrl-C may interrupt."""
    workdir = os.path.join(base, f"case{index}")
    os.chdir(prepare_workdir(workdir))
    if selftest:
        run = CaseRun({"workdir": workdir, "inputs": {}}, emit)
        WATCH.allowed = set()
        WATCH.roots = [workdir]
        run.stage("selftest " + selftest, selftest_case(selftest))
        return {"gen": "selftest", "origin": selftest, "what": [], "outcomes": run.outcomes,
                "findings": run.findings}
    (emit or (lambda s: None))("generate")
    try:
        case = make_case(seed, index, workdir)
    except Exception as exc:  # noqa: BLE001 - the harness could not make its case (a base model did not build)
        return {"gen": "?", "origin": "?", "what": [], "outcomes": [("generate", type(exc).__name__, "")],
                "findings": [{"kind": "harness error", "stage": "generate", "exc": type(exc).__qualname__,
                              "message": _first_line(exc), "where": _where(exc)}]}
    WATCH.roots = [workdir]
    run = CaseRun(case, emit, ort_check=ort_check, verbose=verbose).run()
    ran = any(stage.startswith("run ") and outcome == "ok" for stage, outcome, _ in run.outcomes)
    return {"gen": case["gen"], "origin": case["origin"], "what": case["what"], "outcomes": run.outcomes,
            "findings": run.findings, "ran": ran}


def ort_sampled(seed, index, fraction):
    return fraction >= 1 or random.Random(f"ort:{seed}:{index}").random() < fraction


def worker_main(args):
    """A worker: reads case indices from stdin, writes JSON lines (stages, then a result) to --result-fd."""
    out = os.fdopen(args.result_fd, "w", buffering=1)
    setup_child(args.mem_gb)
    base = tempfile.mkdtemp(prefix="tvmlite-fuzzm-")

    def send(obj):
        out.write(json.dumps(obj) + "\n")

    running = False

    def on_sigint(signum, frame):
        # Ctrl-C ends the running case, once; between cases and in the harness's cleanup it is ignored (a
        # KeyboardInterrupt inside shutil.rmtree left it with a closed fd: OSError, the worker died).
        nonlocal running
        if running:
            running = False
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    send({"ready": os.getpid()})
    home = os.getcwd()
    try:
        for line in sys.stdin:
            seed, index = map(int, line.split())
            try:
                try:
                    running = True
                    res = run_case(seed, index, base, ort_sampled(seed, index, args.ort_fraction),
                                   emit=lambda stage: send({"stage": stage}), selftest=args.selftest)
                finally:
                    running = False
            except KeyboardInterrupt:  # raised at most once a case, inside the try above
                res = {"interrupted": True}
            end_case(home, base, index)
            res["index"] = index
            send(res)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def interrupt_probe(seed, index, fraction=0.05):
    """Seconds after which the parent sends this case SIGINT on purpose (Ctrl-C in the middle of the work: in native
    kernels, the build, an import), or None for most cases."""
    rng = random.Random(f"interrupt:{seed}:{index}")
    if rng.random() >= fraction:
        return None
    return round(rng.uniform(0.001, 0.03) if rng.random() < 0.7 else rng.uniform(0.03, 0.5), 3)  # most cases are short


# ----------------------------------------------------------------------------------------------------------------
# The driver (the parent): a pool of workers, timeouts, SIGINT, restarts
# ----------------------------------------------------------------------------------------------------------------

class Worker:
    def __init__(self, opts, logdir, wid):
        import tvmlite

        self.opts = opts
        self.log = os.path.join(logdir, f"worker{wid}.log")
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(tvmlite.__file__)))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
        if opts.get("selftest") == "crash":
            # The harness's crash on purpose must die by its signal: under tests/sanitize.sh, ASan's SEGV handler
            # would catch it, write a report (which fails the sanitized run) and exit instead.
            for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
                env[var] = ":".join(filter(None, [env.get(var, ""), "handle_segv=0"]))
        rfd, wfd = os.pipe()
        cmd = [sys.executable, "-X", "faulthandler", HERE, "--worker", "--result-fd", str(wfd),
               "--mem-gb", str(opts["mem_gb"]), "--ort-fraction", str(opts["ort_fraction"])]
        if opts.get("selftest"):
            cmd += ["--selftest", opts["selftest"]]
        with open(self.log, "ab") as logf:
            self.log_start = logf.tell()
            self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=logf, stderr=subprocess.STDOUT,
                                         pass_fds=(wfd,))
        os.close(wfd)
        self.fd = rfd
        self.buf = b""
        self.ready = False
        self.seed = self.index = None
        self.started = self.sigint_at = self.probe = None
        self.interrupted = None  # the last case a Ctrl-C probe interrupted in this worker
        self.stage = None

    def assign(self, seed, index, probe=None):
        self.seed, self.index, self.started, self.sigint_at, self.stage = seed, index, time.monotonic(), None, "sent"
        self.probe = probe  # seconds: SIGINT on purpose (interrupt_probe)
        self.proc.stdin.write(f"{seed} {index}\n".encode())
        self.proc.stdin.flush()

    def messages(self):
        """Complete JSON messages read so far, and whether the pipe is at EOF."""
        chunk = os.read(self.fd, 1 << 16)
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()], not chunk

    def tail(self, limit=3000):
        try:
            with open(self.log, "rb") as f:
                f.seek(self.log_start)
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return text[-limit:]

    def stop(self, sig=signal.SIGKILL):
        """End the worker (it may be stuck: SIGKILL by default)."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(sig)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        os.close(self.fd)


def _finding(seed, index, res, f):
    return {"seed": seed, "case": index, "kind": f["kind"], "stage": f.get("stage", ""), "exc": f.get("exc", ""),
            "message": f["message"], "where": f.get("where", ""), "gen": res.get("gen", "?"),
            "origin": res.get("origin", "?"), "what": res.get("what", []), "replay": replay_line(seed, index),
            "detail": f.get("detail", "")}


def drive(seed, ncases, first=0, seconds=None, jobs=2, ort_fraction=0.25, mem_gb=4, echo=print, selftest=None,
          timeout=None, grace=None, probes=True):
    """Run cases first..first+ncases-1 of seed (an int or a list of them) in workers; with seconds, then of the next
    seeds until the time is up. Returns the report: counts, outcomes, slow cases and findings (see format_finding)."""
    timeout = timeout or case_timeout()
    grace = grace or sigint_grace()
    opts = {"mem_gb": mem_gb, "ort_fraction": ort_fraction, "selftest": selftest}
    report = {"seeds": [], "cases": 0, "gens": collections.Counter(), "ran": collections.Counter(),
              "outcomes": collections.Counter(), "examples": {}, "slow": [], "findings": [], "restarts": 0,
              "probes": collections.Counter(),
              "selftest": selftest}
    start = time.monotonic()
    node_tests()  # collected once here, so that workers load them from the cache file
    logdir = tempfile.mkdtemp(prefix="tvmlite-fuzzm-logs-")

    def cases():
        seeds = list(seed) if isinstance(seed, (list, tuple)) else [seed]
        s = seeds[0]
        while seeds or seconds is not None:
            s = seeds.pop(0) if seeds else s + 1
            report["seeds"].append(s)
            for k in range(first, first + ncases):
                yield s, k

    todo = cases()
    workers = {}  # read fd -> Worker
    nspawned = 0
    exhausted = False

    def record(w, res):
        report["cases"] += 1
        if not res.get("interrupted"):
            report["gens"][res.get("gen", "?")] += 1
        report["ran"][res.get("gen", "?")] += bool(res.get("ran"))
        for stage, outcome, message in res.get("outcomes", ()):
            report["outcomes"][outcome] += 1
            report["examples"].setdefault(outcome, f"{stage}: {message} ({replay_line(w.seed, w.index)})")
        for f in res.get("findings", ()):
            if w.interrupted and f["kind"] in ("crash", "hang Ctrl-C cannot end", "worker died"):
                # it may come from the interrupted case's state: the replay of this case alone may not show it
                f = dict(f, message=f"{f['message']} (after a Ctrl-C probe interrupted case {w.interrupted} in "
                                    f"this worker)")
            finding = _finding(w.seed, w.index, res, f)
            report["findings"].append(finding)
            echo(format_finding(finding))
        w.index = None

    def retire(w):
        workers.pop(w.fd, None)
        w.stop()

    try:
        while True:
            if seconds is not None and time.monotonic() - start > seconds:
                exhausted = True
            while not exhausted and len(workers) < jobs:
                nspawned += 1
                w = Worker(opts, logdir, nspawned)
                workers[w.fd] = w
            for w in list(workers.values()):
                if exhausted or not w.ready or w.index is not None:
                    continue
                try:
                    s, k = next(todo)
                except StopIteration:
                    exhausted = True
                    continue
                w.assign(s, k, interrupt_probe(s, k) if probes and not selftest else None)
                report["probes"]["planned"] += w.probe is not None
            if exhausted and all(w.index is None for w in workers.values()):
                break
            ready, _, _ = select.select(list(workers), [], [], 0.2)
            for fd in ready:
                w = workers[fd]
                msgs, eof = w.messages()
                for m in msgs:
                    if "ready" in m:
                        w.ready = True
                    elif "stage" in m:
                        w.stage = m["stage"]
                    elif w.probe is not None and w.sigint_at is not None:  # interrupted on purpose
                        report["probes"][bool(m.get("interrupted"))] += 1
                        if m.get("interrupted"):
                            w.interrupted = f"seed={w.seed} case={w.index}"
                        record(w, m)
                    elif m.get("interrupted") or ("index" in m and w.sigint_at is not None):
                        report["slow"].append({"seed": w.seed, "case": w.index, "stage": w.stage})
                        echo(f"slow case (ended after SIGINT in '{w.stage}'): {replay_line(w.seed, w.index)}")
                        w.index = None
                        retire(w)  # it may have swallowed the interrupt: a fresh worker takes the next case
                        break
                    elif "index" in m:
                        record(w, m)
                if eof and w.fd in workers:
                    rc = w.proc.wait()
                    if w.index is not None:
                        how = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exited with status {rc}"
                        record(w, {"gen": "?", "origin": "?", "what": [], "findings": [{
                            "kind": "crash" if rc < 0 else "worker died", "stage": w.stage,
                            "message": f"the child was {how} in stage '{w.stage}'", "detail": w.tail()}]})
                    report["restarts"] += 1
                    retire(w)
            now = time.monotonic()
            for w in list(workers.values()):
                if w.index is None:
                    continue
                if w.sigint_at is None and (now - w.started > timeout or
                                            (w.probe is not None and now - w.started > w.probe)):
                    if now - w.started <= timeout:
                        w.stage = f"{w.stage} (Ctrl-C probe at {w.probe}s)"
                    else:
                        w.probe = None  # a slow case
                    w.sigint_at = now
                    w.proc.send_signal(signal.SIGINT)
                elif w.sigint_at is not None and now - w.sigint_at > grace:
                    stage = w.stage
                    w.proc.send_signal(signal.SIGABRT)  # faulthandler prints where it is stuck
                    try:
                        w.proc.wait(5)
                    except subprocess.TimeoutExpired:
                        pass
                    when = f"at {w.probe}s, a probe" if w.probe is not None else f"at the {timeout:.0f}s timeout"
                    record(w, {"gen": "?", "origin": "?", "what": [], "findings": [{
                        "kind": "hang Ctrl-C cannot end", "stage": stage,
                        "message": f"still in stage '{stage}' {grace:.0f}s after SIGINT (sent {when})",
                        "detail": w.tail()}]})
                    report["restarts"] += 1
                    retire(w)
    finally:
        for w in list(workers.values()):
            w.stop(signal.SIGTERM)
        shutil.rmtree(logdir, ignore_errors=True)
    report["seconds"] = round(time.monotonic() - start, 1)
    _fill_origins(report)
    return report


def _fill_origins(report):
    """Crashes and hangs know only (seed, case): name the case's generator and origin (generated here, not run)."""
    missing = [f for f in report["findings"] if f["gen"] == "?" and f["case"] is not None]
    if not missing or report.get("selftest"):
        return
    base = tempfile.mkdtemp(prefix="tvmlite-fuzzm-")
    try:
        for f in missing:
            try:
                case = make_case(f["seed"], f["case"], os.path.join(base, "c"))
                f["gen"], f["origin"], f["what"] = case["gen"], case["origin"], case["what"]
            except Exception:  # noqa: BLE001 - naming is best effort
                pass
    finally:
        shutil.rmtree(base, ignore_errors=True)


def format_finding(f, detail=False):
    text = (f"FINDING seed={f['seed']} case={f['case']} [{f['kind']}] {f['stage']}: "
            f"{f['exc'] + ': ' if f['exc'] else ''}{f['message']}"
            f"{' (at ' + f['where'] + ')' if f['where'] else ''}\n"
            f"  case: {f['gen']} {f['origin']}: {'; '.join(f['what'])[:300]}\n  replay: {f['replay']}")
    if detail and f.get("detail"):
        text += "\n  child output (tail):\n" + "\n".join("    " + line for line in f["detail"].splitlines()[-40:])
    return text


def dedup_key(f):
    """Findings alike: same kind, class, place in tvmlite, op, and message once paths, quoted names, shapes and
    numbers are blanked."""
    op = re.search(r"\(([A-Z][A-Za-z0-9]*)\)|^([a-z][\w]*(?:\.[\w]+)+):", f["message"])
    msg = re.sub(r"/\S+|'[^']*'|\"[^\"]*\"|\([^()]*\)|\[[^\[\]]*\]|\d+", "#", f["message"])
    return (f["kind"], f["exc"], f["where"], op.group(1) or op.group(2) if op else "", msg[:70])


def format_report(report, detail=True):
    lines = [f"{report['cases']} cases (seeds {report['seeds'][:5]}{'...' if len(report['seeds']) > 5 else ''}) in "
             f"{report['seconds']}s; generators: " + ", ".join(f"{k} {v}" for k, v in report["gens"].most_common())]
    lines.append("cases that ran the model at least once: " + ", ".join(
        f"{g} {report['ran'][g]}/{n}" for g, n in report["gens"].most_common()))
    lines.append("stage outcomes: " + ", ".join(f"{k} {v}" for k, v in report["outcomes"].most_common(25)))
    rare = sorted(k for k, v in report["outcomes"].items() if v < 5 or "InternalError" in k)
    if rare:
        lines.append("rare outcomes (and internal errors), first case:")
        lines += [f"  {report['outcomes'][k]}x {k}: {report['examples'][k]}" for k in rare]
    lines.append(f"slow cases ended by SIGINT: {len(report['slow'])}; Ctrl-C probes: {report['probes']['planned']}, "
                 f"{report['probes'][True]} interrupted a case; worker restarts: {report['restarts']}")
    groups = collections.OrderedDict()
    for f in report["findings"]:
        groups.setdefault(dedup_key(f), []).append(f)
    lines.append(f"findings: {len(report['findings'])} ({len(groups)} distinct)")
    for key, fs in groups.items():
        lines.append(f"[{len(fs)}x] " + format_finding(fs[0], detail=detail))
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------------------------

def budget():
    """(seed, seconds or None) from the environment."""
    seconds = os.environ.get("TVMLITE_FUZZ_SECONDS")
    return int(os.environ.get("TVMLITE_FUZZ_SEED", DEFAULT_SEED)), float(seconds) if seconds else None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    env_seed, env_seconds = budget()
    p.add_argument("--seed", type=int, default=env_seed)
    p.add_argument("--cases", type=int, default=500, help="cases per seed")
    p.add_argument("--first", type=int, default=0, help="the first case index")
    p.add_argument("--case", type=int, default=None, help="only this case (with --inline or --save)")
    p.add_argument("--seconds", type=float, default=env_seconds, help="soak: new seeds until this time is up")
    p.add_argument("--jobs", type=int, default=2, help="worker processes")
    p.add_argument("--inline", action="store_true", help="run in this process (to replay)")
    p.add_argument("--save", metavar="DIR", help="write the hostile model/file of --case (or of every finding)")
    p.add_argument("--ort-fraction", type=float, default=None,
                   help="share of cases checked against onnxruntime (default 0.25, 1 in a soak and with --case)")
    p.add_argument("--mem-gb", type=float, default=4, help="RLIMIT_AS of each worker (0: none)")
    p.add_argument("--json", metavar="PATH", help="also write the report (findings included) to PATH")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--result-fd", type=int, help=argparse.SUPPRESS)
    p.add_argument("--selftest", choices=["crash", "slow", "hang", "open", "external", "raw"], help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.ort_fraction is None:
        args.ort_fraction = 1.0 if args.seconds is not None or args.case is not None else 0.25
    if args.worker:
        worker_main(args)
        return 0
    if args.case is not None and args.save and not args.inline:
        setup_child(0)
        base = tempfile.mkdtemp(prefix="tvmlite-fuzzm-")
        try:
            case = make_case(args.seed, args.case, os.path.join(base, "c"))
            print("\n".join(save_case(case, args.save)))
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return 0
    if args.inline:
        setup_child(args.mem_gb if args.mem_gb and args.case is None else 0)
        base = tempfile.mkdtemp(prefix="tvmlite-fuzzm-")
        indices = [args.case] if args.case is not None else range(args.first, args.first + args.cases)
        nfind = 0
        try:
            for k in indices:
                if args.save:
                    save_case(make_case(args.seed, k, os.path.join(base, "s")), args.save)
                probe = interrupt_probe(args.seed, k)
                timer = None
                if probe is not None:  # as the parent would: SIGINT that far into the case
                    import threading

                    print(f"case {k}: Ctrl-C probe at {probe}s")
                    timer = threading.Timer(probe, os.kill, (os.getpid(), signal.SIGINT))
                    timer.start()
                try:
                    res = run_one(args.seed, k, base, ort_sampled(args.seed, k, args.ort_fraction),
                                  verbose=args.case is not None,
                                  emit=(lambda s: print("stage:", s, flush=True)) if args.case is not None else None)
                except KeyboardInterrupt:
                    print(f"case {k}: interrupted")
                    continue
                finally:
                    if timer is not None:
                        timer.cancel()
                print(f"case {k}: {res['gen']} {res['origin']}: {'; '.join(res['what'])}")
                print("  " + ", ".join(f"{s}: {o}" for s, o, _ in res["outcomes"]))
                for f in res["findings"]:
                    nfind += 1
                    print(format_finding(_finding(args.seed, k, res, f)))
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return 1 if nfind else 0
    report = drive(args.seed, args.cases, args.first, args.seconds, args.jobs, args.ort_fraction, args.mem_gb)
    print(format_report(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if args.save:
        for f in report["findings"]:
            if f["case"] is not None:
                subprocess.run([sys.executable, HERE, "--seed", str(f["seed"]), "--case", str(f["case"]), "--save",
                                args.save], check=False)
    return 1 if report["findings"] else 0


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    sys.exit(main())
