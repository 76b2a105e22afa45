"""numpy references of the classical-ML ops."""
import numpy as np

from ..op import register_reference


@register_reference("ml.binarizer")
def _binarizer(attrs, x):
    return (x > attrs.threshold).astype(x.dtype)


@register_reference("ml.array_feature_extractor")
def _array_feature_extractor(attrs, x, indices):
    flat = indices.reshape(-1)
    if flat.size and (flat.min() < -x.shape[-1] or flat.max() >= x.shape[-1]):
        raise IndexError(f"ml.array_feature_extractor: an index is out of range for a last axis of {x.shape[-1]}")
    out = np.take(x, flat, axis=-1)
    return out.reshape(1, -1) if x.ndim == 1 else out


class _Forest:
    """The trees of a TreeEnsembleAttrs, walked per sample."""

    def __init__(self, a):
        self.feature = list(a.nodes_featureids)
        self.mode = list(a.nodes_modes)
        self.split = list(a.nodes_splits)
        self.true_id, self.true_leaf = list(a.nodes_truenodeids), list(a.nodes_trueleafs)
        self.false_id, self.false_leaf = list(a.nodes_falsenodeids), list(a.nodes_falseleafs)
        missing = list(a.nodes_missing_value_tracks_true)
        self.missing_true = missing if missing else [0] * len(self.feature)
        self.sets = {}
        members = list(a.membership_values)
        for node, mode in enumerate(self.mode):
            if mode == 6:  # each member node takes the next NaN-terminated run of membership_values
                end = next((i for i, v in enumerate(members) if np.isnan(v)), len(members))
                self.sets[node], members = set(members[:end]), members[end + 1:]
        self.roots = list(a.tree_roots)

    def _goes_true(self, node, value):
        if np.isnan(value):
            return bool(self.missing_true[node])
        mode, split = self.mode[node], self.split[node]
        return {0: value <= split, 1: value < split, 2: value >= split, 3: value > split, 4: value == split,
                5: value != split}[mode] if mode != 6 else value in self.sets[node]

    def leaf(self, root, sample):
        """The leaf index a sample reaches from a root."""
        node = root
        if self.true_leaf[root] and self.false_leaf[root] and self.true_id[root] == self.false_id[root]:
            return self.true_id[root]  # a tree that is a single leaf
        for _ in range(len(self.feature) + 1):
            if self._goes_true(node, sample[self.feature[node]]):
                nxt, is_leaf = self.true_id[node], self.true_leaf[node]
            else:
                nxt, is_leaf = self.false_id[node], self.false_leaf[node]
            if is_leaf:
                return nxt
            node = nxt
        raise ValueError("ml.tree_ensemble: a tree has a cycle")


@register_reference("ml.tree_ensemble")
def _tree_ensemble(attrs, x):
    forest = _Forest(attrs)
    targets, weights = list(attrs.leaf_targetids), list(attrs.leaf_weights)
    agg, n = attrs.aggregate_function, attrs.n_targets
    init = {0: 0.0, 1: 0.0, 2: np.inf, 3: -np.inf}[agg]
    out = np.full((x.shape[0], n), init, np.float64)
    for i, sample in enumerate(x):
        for root in forest.roots:
            leaf = forest.leaf(root, sample)
            t, w = targets[leaf], weights[leaf]
            if agg in (0, 1):
                out[i, t] += w / len(forest.roots) if agg == 0 else w
            else:
                out[i, t] = min(out[i, t], w) if agg == 2 else max(out[i, t], w)
    if agg in (2, 3):  # targets no leaf reached stay at the dtype's extreme, as ONNX's reference leaves them
        fill = np.finfo(x.dtype).max if agg == 2 else np.finfo(x.dtype).min
        out[np.isinf(out)] = fill
    return _post_transform(out, attrs.post_transform).astype(x.dtype)


def _post_transform(s, kind):
    if kind == 1:  # softmax
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    if kind == 2:  # logistic
        return 1 / (1 + np.exp(-s))
    if kind == 3:  # softmax where zeros stay zero
        e = np.where(s == 0, 0, np.exp(s - s.max(axis=1, keepdims=True)))
        total = e.sum(axis=1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total != 0)
    if kind == 4:  # probit: the standard normal's quantile, sqrt(2) * erfinv(2 * s - 1)
        from statistics import NormalDist

        quantile = NormalDist().inv_cdf
        return np.vectorize(lambda p: quantile(p) if 0 < p < 1 else (np.inf if p >= 1 else -np.inf))(s)
    return s


@register_reference("ml.label_encoder")
def _label_encoder(attrs, x):
    from ...backend.dtypes import to_numpy_dtype

    table = {_key(k): v for k, v in zip(attrs.keys, attrs.values)}
    default = attrs.default_value
    out = np.array([table.get(_key(v), default) for v in x.reshape(-1)],
                   dtype=to_numpy_dtype(attrs.out_dtype)).reshape(x.shape)
    return out


def _key(v):
    """A table key: floats by value (NaN matches NaN), numpy scalars as Python values."""
    v = v.item() if hasattr(v, "item") else v
    return "nan" if isinstance(v, float) and v != v else v
