"""Issue 31: exporter-shaped models with symbolic dims (dynamic_models.py) imported once without shape=, built once
for the cpu target and run by ONE executor at several shapes, against onnxruntime (the oracle) and against a static
build of one shape; and the goal that no node of them runs the numpy reference (xfail until each model gets there:
the reasons list the ops still on the reference today, so remove a marker when its model turns fully native).
"""
import functools
import json
import re
import warnings

import numpy as np
import pytest

import tvmlite

import dynamic_models as dm

ort = pytest.importorskip("onnxruntime")

RTOL, ATOL = 1e-3, 1e-4
_REFERENCE = "relay.backend.reference"

# per model: the shapes one build runs (dims by dim_param; the merged decoder's use_cache_branch too), and which of
# them the static build is made for
SHAPES = {
    "bert": [dict(batch=1, sequence=1), dict(batch=2, sequence=7), dict(batch=3, sequence=16)],
    "gpt2_with_past": [dict(batch=1, sequence=5, past_sequence=0),  # prefill: an empty past
                       dict(batch=2, sequence=1, past_sequence=3),
                       dict(batch=3, sequence=2, past_sequence=9)],
    # use_cache_branch False: past inputs are optimum's dummies (past_sequence 1), the mask covers the new tokens
    "gpt2_merged": [dict(batch=2, sequence=5, past_sequence=1, total_sequence=5, use_cache_branch=False),
                    dict(batch=2, sequence=1, past_sequence=5, total_sequence=6, use_cache_branch=True),
                    dict(batch=1, sequence=3, past_sequence=9, total_sequence=12, use_cache_branch=True),
                    dict(batch=3, sequence=4, past_sequence=1, total_sequence=4, use_cache_branch=False)],
    "vit": [dict(batch=1), dict(batch=2), dict(batch=3)],
    "swin": [dict(batch=1), dict(batch=2), dict(batch=3)],
    "resnet": [dict(batch=1), dict(batch=2), dict(batch=3)],
    "wav2vec2": [dict(batch=1, samples=400), dict(batch=2, samples=800), dict(batch=3, samples=1600)],
}
STATIC = {"bert": 1, "gpt2_with_past": 1, "gpt2_merged": 1, "vit": 2, "swin": 1, "resnet": 1, "wav2vec2": 1}
NAMES = list(SHAPES)


@functools.lru_cache(maxsize=None)
def _model(name):
    return dm.MODELS[name]()


@functools.lru_cache(maxsize=None)
def _dynamic(name):
    """(lib, executor) of the one dynamic build of a model, shared by the tests of this file."""
    mod, params = tvmlite.frontend.from_onnx(_model(name))
    lib = tvmlite.build(mod, target="cpu", params=params)
    return lib, lib["default"]()


def _run(gm, feeds):
    for key, value in feeds.items():
        gm.set_input(key, value)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


def _ort(name, feeds):
    sess = ort.InferenceSession(_model(name).SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _assert_same(got, expected, what):
    assert len(got) == len(expected), what
    for i, (g, e) in enumerate(zip(got, expected)):
        assert (g.shape, g.dtype) == (e.shape, e.dtype), f"{what}, output {i}"
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL, err_msg=f"{what}, output {i}")


@pytest.mark.parametrize("name", NAMES)
def test_models_are_valid_and_symbolic(name):
    """The oracle accepts every model at every shape (the builders already ran check_model(full_check=True) and
    strict shape inference), and every model has a dim no initializer fixes."""
    model = _model(name)
    assert any(d.dim_param for vi in model.graph.input for d in vi.type.tensor_type.shape.dim)
    for dims in SHAPES[name]:
        outputs = _ort(name, dm.example_inputs(model, dims))
        assert all(np.isfinite(o).all() and 0.1 < float(o.std()) < 10 for o in outputs)


@pytest.mark.parametrize("name", NAMES)
def test_one_build_runs_every_shape_as_onnxruntime(name):
    _, gm = _dynamic(name)
    for dims in SHAPES[name]:
        feeds = dm.example_inputs(_model(name), dims, seed=1)
        _assert_same(_run(gm, feeds), _ort(name, feeds), f"{name} at {dims}")


@pytest.mark.parametrize("name", NAMES)
def test_dynamic_build_equals_static_build(name):
    dims = SHAPES[name][STATIC[name]]
    feeds = dm.example_inputs(_model(name), dims, seed=2)
    static = _run(_static(name, feeds)["default"](), feeds)
    _assert_same(_run(_dynamic(name)[1], feeds), static, f"{name} at {dims}")


def _static(name, feeds):
    """A static build of a model for the shapes of feeds (warnings are the test's business)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod, params = tvmlite.frontend.from_onnx(_model(name), shape={k: v.shape for k, v in feeds.items()})
    return tvmlite.build(mod, target="cpu", params=params)


def test_static_merged_decoder_raises_only_in_the_branch_it_cannot_type():
    """Built with shape= for a cached step, the merged decoder's branch without the cache cannot be typed (its mask
    covers past + new tokens, its keys the new tokens only). onnxruntime fails only if that branch is taken: so
    does tvmlite. Import warns once, naming the If and the error; the step runs natively; taking the other branch
    raises that error at run time, natively too (no reference node)."""
    model = _model("gpt2_merged")
    feeds = dm.example_inputs(model, SHAPES["gpt2_merged"][1], seed=2)
    with pytest.warns(UserWarning) as record:
        mod, params = tvmlite.frontend.from_onnx(model, shape={k: v.shape for k, v in feeds.items()})
    expected = ("node 'optimum::if' (If): its else_branch cannot run at the shapes the model was built for: node "
                "'matmul_350' (MatMul): InferType: nn.matmul: reduction dims disagree")
    assert [str(w.message)[:len(expected)] for w in record] == [expected]
    lib = tvmlite.build(mod, target="cpu", params=params)
    assert lib.fallbacks() == []
    gm = lib["default"]()
    _assert_same(_run(gm, feeds), _ort("gpt2_merged", feeds), "the cached step")
    feeds["use_cache_branch"] = np.array([False])
    with pytest.raises(ValueError, match=re.escape(expected)):
        _run(gm, feeds)
    feeds["use_cache_branch"] = np.array([True])  # the executor is still usable
    _assert_same(_run(gm, feeds), _ort("gpt2_merged", feeds), "the cached step after the error")


def test_merged_decoder_cached_step_equals_full_prefill():
    """Through the one build: a prefill of 5 tokens (use_cache_branch False), then one cached step (True) fed its
    present key/values, gives the logits and presents of a prefill of all 6 tokens."""
    _, gm = _dynamic("gpt2_merged")
    model = _model("gpt2_merged")
    batch, total, layers = 2, 6, 2
    ids = np.random.default_rng(3).integers(0, dm.VOCAB, size=(batch, total)).astype("int64")

    def run(tokens, past, use_cache):
        feeds = dm.example_inputs(model, dict(batch=batch, sequence=tokens.shape[1], past_sequence=past,
                                              total_sequence=past * use_cache + tokens.shape[1],
                                              use_cache_branch=use_cache))
        feeds["input_ids"] = tokens
        feeds["attention_mask"] = np.ones_like(feeds["attention_mask"])
        return feeds, _run(gm, feeds)

    _, full = run(ids, 1, False)
    _, prefix = run(ids[:, :-1], 1, False)
    feeds = dm.example_inputs(model, dict(batch=batch, sequence=1, past_sequence=total - 1, total_sequence=total,
                                          use_cache_branch=True))
    feeds.update(input_ids=ids[:, -1:], attention_mask=np.ones((batch, total), "int64"))
    for i, name in enumerate(f"past_key_values.{j}.{kv}" for j in range(layers) for kv in ("key", "value")):
        feeds[name] = prefix[1 + i]
    step = _run(gm, feeds)
    _assert_same(step, [full[0][:, -1:]] + full[1:], "cached step vs full prefill")
    assert full[1].shape == (batch, 2, total, 16) and prefix[1].shape == (batch, 2, total - 1, 16)



def test_merged_decoder_branches_share_their_weights():
    """An If's branches are optimised as graphs of their own, so each folds (packs) its own copy of every weight both
    read; the lowering keeps one param per content: each packed weight of the cached branch is the one the prefill
    branch reads, and no two params of the build are equal (the merged decoder holds its weights once)."""
    lib, _ = _dynamic("gpt2_merged")
    graph = json.loads(lib.get_graph_json())
    nodes, inputs = graph["nodes"], set(graph["input_nodes"])
    branches_of = {}  # param node -> the branches (guard values) whose kernels read it
    for node in nodes:
        for guard in node["attrs"].get("guard", []) if node["op"] == "tvm_op" else []:
            for src, _, _ in node["inputs"]:
                if nodes[src]["op"] == "null" and src not in inputs:
                    branches_of.setdefault(src, set()).add(guard[2])
    packed = [node["inputs"][1][0] for node in nodes if node["op"] == "tvm_op"
              and node["attrs"]["func_name"] == "topi.nn.dense_pack" and node["attrs"]["guard"][0][2] == 1]
    assert len(packed) == 9  # per layer c_attn, c_proj, fc, proj; the lm head
    assert [nodes[p]["name"] for p in packed if branches_of[p] != {0, 1}] == []
    params = sorted(((v.numpy().dtype.str, v.numpy().shape, v.numpy().tobytes()) for v in lib.get_params().values()))
    assert [a[:2] for a, b in zip(params, params[1:]) if a == b] == []


def _reference_ops(nodes):
    """The ops inside reference nodes' functions (kernel_attrs' serialized Function), sorted."""
    ops = set()
    for node in nodes:
        func = json.loads(node["attrs"]["kernel_attrs"]["func"])
        ops.update(n["fields"]["name"] for n in func["nodes"] if n.get("type") == "ir.Op")
    return sorted(ops)


def _references_xfail(ops):
    return pytest.mark.xfail(strict=True, raises=AssertionError,
                             reason=f"issue 31: on the numpy reference today: {ops}")


# what the dynamic builds still run on the reference (reference nodes / all kernel nodes; lib.fallbacks()' reasons):
# name -> text. Every model here is fully native now (shape arithmetic natively, the merged decoder's If as guarded
# branches); an entry marks a regression being worked on.
_REFERENCES_TODAY = {}


def _nodes(name):
    return [n for n in json.loads(_dynamic(name)[0].get_graph_json())["nodes"] if n["op"] == "tvm_op"]


@pytest.mark.parametrize("name", NAMES)
def test_fallbacks_lists_every_reference_node(name):
    """lib.fallbacks() names exactly the graph's reference nodes, each with a reason."""
    references = [n["name"] for n in _nodes(name) if n["attrs"]["func_name"] == _REFERENCE]
    fallbacks = _dynamic(name)[0].fallbacks()
    assert [f["name"] for f in fallbacks] == references
    assert all(f["reason"] for f in fallbacks)


@pytest.mark.parametrize("name", [pytest.param(n, marks=_references_xfail(_REFERENCES_TODAY[n]))
                                  if n in _REFERENCES_TODAY else n for n in NAMES])
def test_no_reference_nodes(name):
    nodes = _nodes(name)
    references = [n for n in nodes if n["attrs"]["func_name"] == _REFERENCE]
    reasons = sorted({f["reason"] for f in _dynamic(name)[0].fallbacks()})
    assert len(references) == 0, \
        f"{len(references)}/{len(nodes)} nodes on the reference: {', '.join(_reference_ops(references))} ({reasons})"


@pytest.mark.parametrize("name", ["bert", "vit", "wav2vec2", "resnet"])
def test_shape_arithmetic_becomes_static_ops(name):
    """The exporters' shape arithmetic over symbolic dims (Shape -> Gather -> Concat -> Reshape, Expand of the mask)
    is read as dims at build (shape_value.h): no dyn.* op is left to run it, so the graph fuses as the static one.
    (gpt2_with_past keeps its causal-mask slices from past to past + seq; swin its window reshapes of (h / 7).)"""
    dynamic = sorted({n["attrs"]["func_name"] for n in _nodes(name) if n["attrs"]["func_name"].startswith("topi.dyn.")})
    assert dynamic == []
