"""load_module on hand-tampered files (a compiled file is input too): every tampering is a ValueError naming the
file, and a graph node may name only a kernel factory, never any other registered function."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.runtime import GraphModule, load_module
from tvmlite.runtime.executor_factory import register_kernel_factory

from fuzz_models import pack_module, parse_module


# -- a real exported file, unpacked and packed again ----------------------------------------------------------------

def _unpack(data):
    """(graph dict, [[name, dtype, shape, raw bytes], ...]) of a version-2 file (the layout in runtime/module.py;
    fuzz_models.py reads and writes it for the model fuzzer)."""
    text, params = parse_module(data)
    return json.loads(text), [[p["name"], p["dtype"], p["shape"], p["data"]] for p in params]


def _pack(graph, params):
    """The file of graph (a dict, or JSON text as it is) and params, each record's fields written as they are."""
    text = graph if isinstance(graph, str) else json.dumps(graph)
    return pack_module(text, [{"name": n, "dtype": d, "shape": s, "data": raw} for n, d, s, raw in params])


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A file with a param (p0, float32 (3, 8)), a native node and a reference node (sort has no kernel)."""
    x = relay.var("x", shape=(3, 8))
    w = np.random.default_rng(0).standard_normal((3, 8)).astype("float32")
    body = relay.sort(relay.nn.relu(relay.multiply(x, relay.const(w))), axis=1)
    lib = tvmlite.build(relay.Function([x], body), target="cpu")
    path = tmp_path_factory.mktemp("exported") / "m.tvmlite"
    lib.export_library(path)
    graph, params = _unpack(path.read_bytes())
    kernels = [n["attrs"]["func_name"] for n in graph["nodes"] if n["op"] == "tvm_op"]
    assert "relay.backend.reference" in kernels and [p[:3] for p in params] == [["p0", "float32", [3, 8]]]
    return graph, params


def _load(tmp_path, graph, params, name="tampered"):
    path = tmp_path / name
    path.write_bytes(_pack(graph, params))
    return load_module(path)


def _bad(tmp_path, graph, params, what):
    """load_module fails with a ValueError naming the file and saying what."""
    path = tmp_path / "tampered"
    with pytest.raises(ValueError) as info:
        _load(tmp_path, graph, params)
    assert isinstance(info.value, tvmlite.TVMLiteError)  # tvmlite's ValueError, as the executor's checks raise
    msg = str(info.value)
    assert msg.startswith(f"load_module: {path} is not a valid tvmlite module: "), msg
    assert what in msg, msg


def _copy(exported):
    graph, params = exported
    return json.loads(json.dumps(graph)), [list(p) for p in params]


def _node(graph, func_name):
    return next(n for n in graph["nodes"] if n["op"] == "tvm_op" and n["attrs"]["func_name"] == func_name)


def test_the_untampered_file_loads_and_runs(tmp_path, exported):
    graph, params = _copy(exported)
    gm = GraphModule(_load(tmp_path, graph, params)["default"](tvmlite.cpu(0)))
    gm.run(x=np.ones((3, 8), "float32"))
    assert gm.get_output(0).numpy().shape == (3, 8)


# -- params ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, itemsize", [("object", 8), ("V4", 4), ("U1", 4), (">f4", 4), ("float128", 16),
                                             ("f4", 4), ("complex64", 8), ("bogus", 4)])
def test_param_dtypes_no_ndarray_holds(tmp_path, exported, dtype, itemsize):
    graph, params = _copy(exported)
    params[0][1], params[0][3] = dtype, bytes(24 * itemsize)
    _bad(tmp_path, graph, params, f"param 'p0' has an unsupported dtype '{dtype}'")


def test_param_dtype_other_than_the_graphs(tmp_path, exported):
    graph, params = _copy(exported)
    params[0][1] = "int32"  # same size as float32
    _bad(tmp_path, graph, params, "graph executor: param 'p0' is int32, the graph's entry is float32")


def test_param_shape_other_than_the_graphs(tmp_path, exported):
    graph, params = _copy(exported)
    params[0][2] = [8, 3]
    _bad(tmp_path, graph, params, "graph executor: param 'p0' has shape (8, 3), the graph's entry (3, 8)")


def test_param_the_graph_does_not_name(tmp_path, exported):
    graph, params = _copy(exported)
    params.append(["extra", "float32", [2], bytes(8)])
    _bad(tmp_path, graph, params, "graph executor: param 'extra' is no input of the graph")


def test_param_twice(tmp_path, exported):
    graph, params = _copy(exported)
    params.append(list(params[0]))
    _bad(tmp_path, graph, params, "param 'p0' appears twice")


def test_param_dims_whose_product_wraps(tmp_path, exported):
    graph, params = _copy(exported)
    params[0][2], params[0][3] = [1 << 32, 1 << 32], b""  # 2**64 elements: 0 in int64 arithmetic
    _bad(tmp_path, graph, params, "param 'p0': 0 bytes do not hold (4294967296, 4294967296) of float32")


# -- graph JSON of the wrong shape -----------------------------------------------------------------------------------

def _set(path, value):
    """A tampering: graph[path...] = value (None deletes)."""
    def apply(graph):
        *outer, last = path
        target = graph
        for key in outer:
            target = target[key]
        if value is None:
            del target[last]
        else:
            target[last] = value
        return graph
    return apply


GRAPHS = {
    "nodes not a list": (_set(["nodes"], 3), "graph executor: the graph's 'nodes' is malformed"),
    "a node not an object": (_set(["nodes", 0], [1, 2]), "graph executor: node 0 is not an object"),
    "a node without op": (_set(["nodes", 1, "op"], None), "graph executor: the graph has no 'op'"),
    "a node's name not a string": (_set(["nodes", 0, "name"], 5), "graph executor: the graph's 'name' is malformed"),
    "inputs not lists": (_set(["nodes", 1, "inputs"], [7]), "graph executor: a node input must be a list of ints"),
    "attrs missing": (_set(["attrs"], None), "graph executor: the graph has no 'attrs'"),
    "attrs not an object": (_set(["attrs"], [1]), "graph executor: the graph's 'attrs' is malformed"),
    "attrs.shape missing": (_set(["attrs", "shape"], None), "graph executor: the graph has no 'shape'"),
    "attrs.dltype too short": (_set(["attrs", "dltype"], ["list_str", ["float32"]]),
                               "graph executor: attrs.dltype must list"),
    "a shape of strings": (_set(["attrs", "shape", 1, 0], ["3", "8"]), "graph executor: shape must be a list of ints"),
    "a dim too large": (_set(["attrs", "shape", 1, 0], [1 << 40, 1 << 40]), "does not fit in memory"),
    "an int beyond 64 bits": (_set(["attrs", "shape", 1, 0], [3, 1 << 70]), "graph executor: malformed JSON at offset"),
    "node_row_ptr missing": (_set(["node_row_ptr"], None), "graph executor: the graph has no 'node_row_ptr'"),
    "heads not entries": (_set(["heads"], [[99, 0, 0]]), "graph executor: a head names no entry"),
    "a kernel node without attrs": (lambda g: _del_attrs(g), "graph executor: the graph has no 'attrs'"),
    "planned_bytes not an int": (_set(["attrs", "planned_bytes"], [1]), "attrs.planned_bytes must be an int"),
    "nested too deeply": (lambda g: "[" * 100000 + "]" * 100000,
                          "graph executor: malformed JSON at offset 513: nested too deeply"),
}


def _del_attrs(graph):
    del next(n for n in graph["nodes"] if n["op"] == "tvm_op")["attrs"]
    return graph


@pytest.mark.parametrize("case", list(GRAPHS))
def test_graph_json_of_the_wrong_shape(tmp_path, exported, case):
    tamper, what = GRAPHS[case]
    graph, params = _copy(exported)
    _bad(tmp_path, tamper(graph), params, what)


def test_reference_node_without_func(tmp_path, exported):
    graph, params = _copy(exported)
    node = _node(graph, "relay.backend.reference")
    del node["attrs"]["kernel_attrs"]["func"]
    _bad(tmp_path, graph, params, f"graph executor: reference node {node['name']} has no 'func'")


# -- func_name: kernel factories only --------------------------------------------------------------------------------

@pytest.fixture
def recorder():
    """A function an application registers: it must never be called from a file."""
    calls = []
    name = "test_hostile.recorder"
    tvmlite.register_func(name, lambda *args: calls.append(args), override=True)
    yield name, calls
    tvmlite.remove_global_func(name)


def _name_in_file(tmp_path, exported, func_name):
    graph, params = _copy(exported)
    node = _node(graph, "relay.backend.reference")
    node["attrs"]["func_name"] = func_name
    _bad(tmp_path, graph, params, f"graph executor: node {node['name']} names '{func_name}', a registered function "
                                  f"that is not a kernel factory")


def test_a_registered_function_is_never_called(tmp_path, exported, recorder):
    name, calls = recorder
    _name_in_file(tmp_path, exported, name)
    assert calls == []


@pytest.mark.parametrize("func_name", ["topi.cpu_isa", "topi.epilogue_canonical", "runtime.SaveJSON",
                                       "graph_executor.create"])
def test_cpp_functions_that_are_not_kernel_factories(tmp_path, exported, func_name):
    assert tvmlite.get_global_func(func_name, allow_missing=True) is not None
    _name_in_file(tmp_path, exported, func_name)


def test_a_topi_name_registered_from_python_is_no_factory(tmp_path, exported):
    calls = []
    tvmlite.register_func("topi.test_hostile_evil", lambda *args: calls.append(args), override=True)
    try:
        _name_in_file(tmp_path, exported, "topi.test_hostile_evil")
    finally:
        tvmlite.remove_global_func("topi.test_hostile_evil")
    assert calls == []


def test_python_kernel_factories_until_overridden(tmp_path, exported):
    """register_kernel_factory makes a Python factory nameable; register_func over its name ends that."""
    graph, params = _copy(exported)
    node = _node(graph, "topi.elemwise")
    node["attrs"]["func_name"] = name = "test_hostile.py_factory"
    made, calls = [], []

    def factory(attrs):
        made.append(attrs)
        return lambda *args: None

    register_kernel_factory(name, factory, override=True)
    try:
        lib = _load(tmp_path, graph, params)
        lib["default"](tvmlite.cpu(0))
        assert len(made) == 1
        tvmlite.register_func(name, lambda *args: calls.append(args), override=True)
        _bad(tmp_path, graph, params, f"names '{name}', a registered function that is not a kernel factory")
        with pytest.raises(ValueError, match="a registered function that is not a kernel factory"):
            lib["default"](tvmlite.cpu(0))  # loaded before the override: refused now too
    finally:
        tvmlite.remove_global_func(name)
    assert len(made) == 1 and calls == []


def test_overriding_a_cpp_factory_drops_its_mark(tmp_path, exported):
    """In a child: registering topi.elemwise again from Python (override) makes it no kernel factory."""
    graph, params = _copy(exported)
    path = tmp_path / "m"
    path.write_bytes(_pack(graph, params))
    assert any(n["attrs"]["func_name"] == "topi.elemwise" for n in graph["nodes"] if n["op"] == "tvm_op")
    script = textwrap.dedent(f"""
        import tvmlite
        tvmlite.runtime.load_module({str(path)!r})  # loads
        calls = []
        tvmlite.register_func("topi.elemwise", lambda *a: calls.append(a), override=True)
        try:
            tvmlite.runtime.load_module({str(path)!r})
        except ValueError as err:
            print(err)
        assert calls == []
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(tvmlite.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "names 'topi.elemwise', a registered function that is not a kernel factory" in proc.stdout
