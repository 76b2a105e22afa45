"""The C++ graph executor (csrc/backend/graph_executor.cc) and its memory plan (csrc/backend/memory_plan.cc)."""
import io

import numpy as np
import pytest

import tvmlite
from tvmlite import relay
from tvmlite.runtime import GraphModule

from thread_helpers import run_threads


def _plan(bytes_, alias, planned, node_in, node_out, outputs):
    f = tvmlite.get_global_func("relay.backend._PlanMemory")
    sids, sizes, planned_bytes, total = f(bytes_, alias, planned, node_in, node_out, outputs)
    return [int(s) for s in sids], [int(s) for s in sizes], int(planned_bytes), int(total)


def _simulate(bytes_, alias, planned, node_in, node_out, outputs, sids, sizes):
    """Replay the plan: no two live entries share a storage; every storage holds what is put in it."""
    root = list(range(len(bytes_)))
    for e in range(len(bytes_)):
        while alias[root[e]] >= 0:
            root[e] = alias[root[e]]
    last = {}
    for n, (ins, outs) in enumerate(zip(node_in, node_out)):
        for e in list(ins) + list(outs):
            last[root[e]] = max(last.get(root[e], -1), n)
    pinned = {root[e] for e in outputs}
    live = {}  # storage -> root entry living in it
    for n, outs in enumerate(node_out):
        for e in outs:
            if root[e] != e or not planned[e]:
                continue
            s = sids[e]
            assert s >= 0 and sizes[s] >= bytes_[e]
            assert s not in live, f"entry {e} placed in storage {s} while entry {live.get(s)} lives there"
            live[s] = e
        for s, e in list(live.items()):
            if last.get(e, n) <= n and e not in pinned:
                del live[s]
    for e in range(len(bytes_)):
        assert sids[e] == sids[root[e]]


def test_plan_chain_reuses_two_buffers():
    n = 10  # input -> n nodes, each reads the previous entry
    bytes_ = [400] * (n + 1)
    alias, planned = [-1] * (n + 1), [0] + [1] * n
    node_in, node_out = [[i] for i in range(n)], [[i + 1] for i in range(n)]
    sids, sizes, planned_bytes, total = _plan(bytes_, alias, planned, node_in, node_out, [n])
    assert sids[0] == -1 and total == 400 * n
    assert planned_bytes == 2 * 400  # two ping-pong buffers; the output stays in the last one
    _simulate(bytes_, alias, planned, node_in, node_out, [n], sids, sizes)


def test_plan_reuses_the_most_recently_freed_of_equal_storages():
    """Equal-sized free storages: a new entry takes the one freed last (its lines are likeliest still in cache).
    e2 is freed after node 3, e4 after node 4; node 5's output takes e4's storage, not e2's."""
    bytes_ = [400] * 7
    alias, planned = [-1] * 7, [0] + [1] * 6
    node_in = [[0], [0], [1], [2], [3, 4], [5]]
    node_out = [[1], [2], [3], [4], [5], [6]]
    sids, sizes, _, _ = _plan(bytes_, alias, planned, node_in, node_out, [6])
    assert sids[4] == sids[1]  # the only free storage then
    assert sids[6] == sids[4] != sids[2]
    _simulate(bytes_, alias, planned, node_in, node_out, [6], sids, sizes)


def test_plan_resnet_like_with_views(rng):
    # blocks: a = conv(h); b = conv(a); c = add(b, h) (residual keeps h alive); v = view(c); h = v
    bytes_, alias, planned, node_in, node_out = [4096], [-1], [0], [], []
    h = 0
    for blk in range(8):
        size = int(rng.integers(1, 5)) * 1024
        a, b, c, v = range(len(bytes_), len(bytes_) + 4)
        bytes_ += [size, size, size, size]
        alias += [-1, -1, -1, c]
        planned += [1, 1, 1, 0]
        node_in += [[h], [a], [b, h], [c]]
        node_out += [[a], [b], [c], [v]]
        h = v
    sids, sizes, planned_bytes, total = _plan(bytes_, alias, planned, node_in, node_out, [h])
    assert planned_bytes < total / 3
    _simulate(bytes_, alias, planned, node_in, node_out, [h], sids, sizes)


def test_plan_random_graphs(rng):
    for _ in range(30):
        n = int(rng.integers(2, 25))
        bytes_, alias, planned, node_in, node_out = [64, 64], [-1, -1], [0, 0], [], []
        for i in range(n):
            k = len(bytes_)
            ins = sorted(set(int(x) for x in rng.integers(0, k, int(rng.integers(1, 4)))))
            is_view = rng.random() < 0.2
            src = ins[0]
            bytes_.append(bytes_[src] if is_view else int(rng.integers(1, 2000)))
            alias.append(src if is_view else -1)
            planned.append(0 if is_view else 1)
            node_in.append([src] if is_view else ins)
            node_out.append([k])
        outputs = sorted(set(int(x) for x in rng.integers(0, len(bytes_), 2)))
        sids, sizes, _, _ = _plan(bytes_, alias, planned, node_in, node_out, outputs)
        _simulate(bytes_, alias, planned, node_in, node_out, outputs, sids, sizes)


def test_plan_bad_input():
    with pytest.raises(ValueError, match="out of range"):
        _plan([4], [-1], [1], [[3]], [[0]], [0])


# -- the executor -------------------------------------------------------------------------------------------------
def _model():
    x, y = relay.var("x", shape=(2, 3)), relay.var("y", shape=(3,))
    z = relay.nn.relu(relay.add(x, y))
    return relay.Function([x, y], relay.Tuple([relay.sort(z, axis=-1), relay.exp(z)]))  # sort: a reference node


@pytest.fixture
def lib():
    with tvmlite.transform.PassContext(opt_level=0):  # unfused: four nodes
        return tvmlite.build(_model(), target="cpu")


def _ref(xv, yv):
    z = np.maximum(xv + yv, 0)
    return np.sort(z, axis=-1), np.exp(z)


def test_run_and_outputs(lib, rng):
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    xv, yv = rng.standard_normal((2, 3)).astype("float32"), rng.standard_normal(3).astype("float32")
    gm.set_input("x", xv)
    gm.set_input(1, tvmlite.nd.array(yv))  # by index, as an NDArray
    gm.run()
    assert gm.get_num_outputs() == 2 and gm.get_input_names() == ["x", "y"]
    for i, want in enumerate(_ref(xv, yv)):
        np.testing.assert_allclose(gm.get_output(i).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(gm.get_input("x").numpy(), xv)


def test_bad_inputs(lib):
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    with pytest.raises(ValueError, match="run: inputs not set: x, y"):
        gm.run()
    with pytest.raises(ValueError, match="run\\(\\) has not been called"):
        gm.get_output(0)
    with pytest.raises(KeyError, match="no input 'z' \\(inputs: x, y\\)"):
        gm.set_input("z", np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match="input 'x' has shape \\(2, 3\\), got shape \\(3, 2\\)"):
        gm.set_input("x", np.zeros((3, 2), "float32"))
    with pytest.raises(TypeError, match="input 'x' is float32, got dtype float64"):
        gm.set_input("x", np.zeros((2, 3)))
    with pytest.raises(TypeError, match="input 'x' is a tensor, got runtime.Array"):
        gm.set_input("x", [np.zeros(3, "float32")])
    with pytest.raises(IndexError, match="input index 5 out of range"):
        gm.set_input(5, np.zeros((2, 3), "float32"))
    with pytest.raises(TypeError, match="input 'x' is a tensor, got runtime.Map") as info:
        gm.set_input("x", np.zeros((2, 3), "complex64"))  # no NDArray holds it: boxed, then refused
    assert isinstance(info.value, tvmlite.TVMLiteError)
    gm.set_input(x=np.zeros((2, 3), "float32"), y=np.zeros(3, "float32"))
    gm.run()
    with pytest.raises(IndexError, match="index 2 out of range for 2 outputs"):
        gm.get_output(2)


def test_bad_graph_is_a_value_error(lib):
    from tvmlite.runtime.executor_factory import ExecutorFactoryModule

    with pytest.raises(ValueError, match="malformed"):
        ExecutorFactoryModule("{not json", {})
    bad = lib.get_graph_json().replace('"topi.elemwise"', '"topi.no_such_kernel"')
    with pytest.raises(ValueError, match="no kernel factory 'topi.no_such_kernel'"):
        ExecutorFactoryModule(bad, lib.get_params())["default"](tvmlite.cpu(0))
    bad = lib.get_graph_json().replace('"node_row_ptr":[0,', '"node_row_ptr":[1,')
    with pytest.raises(ValueError, match="node_row_ptr"):
        ExecutorFactoryModule(bad, lib.get_params())["default"](tvmlite.cpu(0))
    with pytest.raises(KeyError, match="no function 'other'"):
        lib["other"]


def test_profile_table(lib, rng):
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input(x=rng.standard_normal((2, 3)).astype("float32"), y=rng.standard_normal(3).astype("float32"))
    out = io.StringIO()
    records = gm.profile(file=out)
    assert sorted(r["func_name"] for r in records) == ["relay.backend.reference"] + ["topi.elemwise"] * 3
    assert all(r["time_ms"] >= 0 and r["shape"] == (2, 3) for r in records)
    table = out.getvalue().splitlines()
    assert table[0].split() == ["node", "kernel", "shape", "time", "ms", "%"]
    assert table[-2].split()[:3] == ["total", "4", "nodes"]
    assert table[-1].split()[:6] == ["on", "the", "numpy", "reference", "1", "nodes"]
    assert sum(1 for line in table if "tvmlite_" in line) == 4
    assert sum(1 for line in table if "(numpy fallback)" in line) == 1
    times = [float(line.split()[-2]) for line in table[2:-3]]
    assert times == sorted(times, reverse=True)  # slowest first
    debug = GraphModule(tvmlite.build(_model(), target="debug")["default"](tvmlite.cpu(0)))
    with pytest.raises(TypeError, match="cannot profile"):
        debug.profile()


def test_executors_share_params_and_run_concurrently(rng):
    x = relay.var("x", shape=(64, 33))
    w = rng.standard_normal((64, 33)).astype("float32")
    h = x
    for i in range(6):
        h = relay.tanh(relay.add(relay.multiply(h, relay.const(w)), relay.const(np.float32(i))))
    func = relay.Function([x], relay.nn.softmax(h))
    lib = tvmlite.build(func, target="cpu")
    inputs = [rng.standard_normal((64, 33)).astype("float32") for _ in range(4)]
    want = []
    for xv in inputs:
        d = GraphModule(tvmlite.build(func, target="debug")["default"](tvmlite.cpu(0)))
        d.run(x=xv)
        want.append(d.get_output(0).numpy())
    errors, results = [], [None] * 4

    def work(k):
        try:
            gm = GraphModule(lib["default"](tvmlite.cpu(0)))
            for _ in range(20):
                gm.run(x=inputs[k])
                results[k] = gm.get_output(0).numpy().copy()
                np.testing.assert_allclose(results[k], want[k], rtol=1e-5, atol=1e-6)
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    run_threads(work, 4)
    assert not errors, errors
    assert all(r is not None for r in results)


def test_mutated_graphs_never_crash(lib):
    """Numbers and dtypes of a valid graph changed at random: each run works or raises, never crashes."""
    import random
    import re

    from tvmlite.runtime.executor_factory import ExecutorFactoryModule

    graph = lib.get_graph_json()
    numbers = [m.span() for m in re.finditer(r"-?\d+", graph)]
    rnd = random.Random(0)
    outcomes = {"ran": 0, "raised": 0}
    for _ in range(300):
        text = graph
        for a, b in rnd.sample(numbers, 2):
            text = graph[:a] + str(rnd.choice([-1, 0, 1, 2, 3, 7, 2 ** 40])) + graph[b:] if text == graph else text
        if rnd.random() < 0.2:
            text = text.replace('"float32"', rnd.choice(['"int8"', '"bogus"', '"object"', '"string"']), 1)
        try:
            gm = GraphModule(ExecutorFactoryModule(text, lib.get_params())["default"](tvmlite.cpu(0)))
            gm.set_input(x=np.ones((2, 3), "float32"), y=np.ones(3, "float32"))
            gm.run()
            [gm.get_output(k) for k in range(gm.get_num_outputs())]
            outcomes["ran"] += 1
        except (ValueError, TypeError, KeyError, IndexError, tvmlite.TVMLiteError):
            outcomes["raised"] += 1
    assert outcomes["ran"] > 0 and outcomes["raised"] > 0
