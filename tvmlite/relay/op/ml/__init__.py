"""Classical-ML ops (csrc/relay/op/ml/ml.cc; ONNX ai.onnx.ml): binarizer, array_feature_extractor, tree_ensemble."""
from . import _make
from . import _ml  # noqa: F401  (registers the references)

__all__ = ["binarizer", "array_feature_extractor", "tree_ensemble", "label_encoder"]


def binarizer(data, threshold=0.0):
    """1 where data > threshold, else 0, in data's dtype."""
    return _make.binarizer(data, threshold)


def array_feature_extractor(data, indices):
    """Elements of data's last axis at the int64 indices."""
    return _make.array_feature_extractor(data, indices)


def tree_ensemble(data, n_targets, tree_roots, nodes_featureids, nodes_modes, nodes_splits, nodes_truenodeids,
                  nodes_trueleafs, nodes_falsenodeids, nodes_falseleafs, leaf_targetids, leaf_weights,
                  aggregate_function=1, post_transform=0, nodes_missing_value_tracks_true=(),
                  membership_values=()):
    """Scores (N, n_targets) of a forest over data (N, F); see relay.attrs.TreeEnsembleAttrs."""
    return _make.tree_ensemble(data, n_targets, aggregate_function, post_transform, list(tree_roots),
                               list(nodes_featureids), list(nodes_modes), [float(v) for v in nodes_splits],
                               list(nodes_truenodeids), list(nodes_trueleafs), list(nodes_falsenodeids),
                               list(nodes_falseleafs), list(nodes_missing_value_tracks_true),
                               [float(v) for v in membership_values], list(leaf_targetids),
                               [float(v) for v in leaf_weights])


def label_encoder(data, keys, values, default_value, out_dtype):
    """Each element of data mapped through keys -> values (strings, ints or floats), default_value for the rest."""
    return _make.label_encoder(data, list(keys), list(values), default_value, out_dtype)
