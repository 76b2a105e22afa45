"""One graph executor shared by threads (csrc/backend/graph_executor.cc, "Threads"): each call locks the executor,
so concurrent set_input / run / get_output / get_input / profile never fail or crash, and every output read is the
result of one whole run. Each race runs in a child process (test_stress_threads.py's harness), so a crash fails
its test instead of ending the pytest run."""
import functools
import json
import os

import numpy as np

import tvmlite
from tvmlite import relay
from tvmlite.runtime import GraphModule

from test_stress_threads import race, results, run_in_child

ROUNDS = 100  # per thread


@functools.lru_cache(maxsize=None)
def _model():
    """A reference node (dyn.topk with k the number of positives in x's first row: its output shape depends on the
    values), a native node on its symbolic shape (transpose) and static native ones, and inputs with different
    numbers of positive elements, so that the outputs of different runs have different shapes."""
    x = relay.var("x", shape=(16, 24))
    positive = relay.cast(relay.greater(relay.strided_slice(x, [0], [1]), relay.const(np.float32(0))), "float32")
    top = relay.transpose(relay.topk(x, relay.cast(relay.sum(positive), "int64"), axis=1, ret_type="values"))
    y = relay.tanh(relay.multiply(x, relay.const(np.float32(2))))
    lib = tvmlite.build(relay.Function([x], relay.Tuple([top, y])), target="cpu")
    rng = np.random.default_rng(0)
    inputs = [(rng.standard_normal((16, 24)) + shift).astype("float32") for shift in (-1.5, -0.5, 0.5, 1.5)]
    wants = [((-np.sort(-v, axis=1))[:, :int((v[0] > 0).sum())].T, np.tanh(v * 2)) for v in inputs]
    return lib, inputs, wants


def _check_valid(outs, wants):
    """outs[i] is output i of one of the runs in wants (each output on its own: they are separate calls)."""
    for i, o in enumerate(outs):
        assert any(o.shape == w[i].shape and np.allclose(o, w[i], rtol=1e-5, atol=1e-6) for w in wants), \
            f"output {i} of shape {o.shape} is no run's result"


def _outputs(gm):
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


def _shared(work):
    """Every thread calls work(gm, x) ROUNDS times on one shared executor, and checks what it returns."""
    lib, inputs, wants = _model()
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))

    def thread(tid):
        for r in range(ROUNDS):
            _check_valid(work(gm, inputs, inputs[(tid + r) % len(inputs)]), wants)

    results(race(thread))


# -- workloads (module-level: run_in_child calls them in a fresh interpreter) ----------------------------------------

def set_run_get():
    def work(gm, inputs, x):
        gm.set_input("x", x)
        gm.run()
        return _outputs(gm)

    _shared(work)


def with_get_input_and_profile():
    def work(gm, inputs, x):
        gm.set_input("x", x)
        got = gm.get_input("x").numpy()
        assert any(np.array_equal(got, v) for v in inputs)
        if x is inputs[0]:
            gm.profile(file=False)
        else:
            gm.run()
        return _outputs(gm)

    _shared(work)


def _on_path(monkeypatch):
    """The child imports this file, which imports test_stress_threads from the directory above."""
    here = os.path.dirname(os.path.abspath(__file__))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([os.path.dirname(here), os.environ.get("PYTHONPATH", "")]))


def test_model_has_reference_and_native_nodes():
    lib, _, _ = _model()
    kernels = {n["attrs"]["func_name"] for n in json.loads(lib.get_graph_json())["nodes"] if n["op"] != "null"}
    assert kernels == {"topi.strided_slice", "topi.greater", "topi.cast", "topi.sum", "relay.backend.reference",
                       "topi.transpose", "topi.elemwise"}


def test_shared_executor_set_input_run_get_output(monkeypatch):
    _on_path(monkeypatch)
    run_in_child(set_run_get)


def test_shared_executor_get_input_and_profile(monkeypatch):
    _on_path(monkeypatch)
    run_in_child(with_get_input_and_profile)


def test_an_output_is_a_snapshot():
    """get_output copies what the executor rewrites in place (the native node's output buffer): an output read
    after a later run is still its own run's result."""
    lib, inputs, wants = _model()
    gm = GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.run(x=inputs[0])
    held = gm.get_output(1)
    gm.run(x=inputs[1])
    np.testing.assert_allclose(held.numpy(), wants[0][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gm.get_output(1).numpy(), wants[1][1], rtol=1e-5, atol=1e-6)
