"""Classical-ML ops (ml.binarizer, ml.array_feature_extractor, ml.tree_ensemble)."""
import numpy as np
import pytest

from tvmlite import ir, relay


def test_binarizer_and_feature_extractor(run_relay):
    x = relay.var("x", shape=(2, 3))
    i = relay.var("i", shape=(2,), dtype="int64")
    xv = np.array([[0.5, 2, -1], [3, 0, 1]], "float32")
    b, f = run_relay(relay.Function([x, i], relay.Tuple([relay.ml.binarizer(x, 0.75),
                                                         relay.ml.array_feature_extractor(x, i)])),
                     [xv, np.array([2, 0])])
    assert b.tolist() == [[0, 1, 0], [1, 0, 1]] and b.dtype == np.float32
    assert f.tolist() == [[-1, 0.5], [1, 3]]


def _stump(**kw):
    # One split on feature 0 at 1.0: <= goes to leaf 0 (target 0, weight 5), else leaf 1 (target 1, weight 7).
    args = dict(n_targets=2, tree_roots=[0], nodes_featureids=[0], nodes_modes=[0], nodes_splits=[1.0],
                nodes_truenodeids=[0], nodes_trueleafs=[1], nodes_falsenodeids=[1], nodes_falseleafs=[1],
                leaf_targetids=[0, 1], leaf_weights=[5.0, 7.0])
    args.update(kw)
    return args


def test_tree_ensemble_walks_each_sample(run_relay):
    x = relay.var("x", shape=(3, 1))
    (out,) = run_relay(relay.Function([x], relay.ml.tree_ensemble(x, **_stump())),
                       [np.array([[0.5], [1.0], [np.nan]], "float32")])
    assert out.tolist() == [[5, 0], [5, 0], [0, 7]]  # NaN goes false unless missing values track true
    (out,) = run_relay(relay.Function([x], relay.ml.tree_ensemble(x, **_stump(nodes_missing_value_tracks_true=[1]))),
                       [np.array([[2.0], [1.0], [np.nan]], "float32")])
    assert out.tolist() == [[0, 7], [5, 0], [5, 0]]


def test_tree_ensemble_checks_its_arrays():
    x = relay.var("x", shape=(3, 1))
    with pytest.raises(ValueError, match="every nodes_\\* attribute must have 1 entries"):
        relay.transform.InferType()(ir.IRModule.from_expr(relay.ml.tree_ensemble(x, **_stump(nodes_modes=[0, 0]))))
