"""ai.onnx.ml: Binarizer, ArrayFeatureExtractor, TreeEnsemble."""
import numpy as np

from ....error import OpAttributeRequired
from ...op import ml as _ml
from .common import OnnxOpConverter, register_converter, register_renamed, required_attr

_DOMAIN = "ai.onnx.ml"


@register_converter("Binarizer", domain=_DOMAIN)
class Binarizer(OnnxOpConverter):
    @classmethod
    def _impl_v1(cls, inputs, attr, ctx):
        return _ml.binarizer(inputs[0], attr.get("threshold", 0.0))


register_renamed("ArrayFeatureExtractor", 1, _ml.array_feature_extractor, _DOMAIN)


def _values(attr, name, default=None):
    value = attr.get(name, default)
    if value is None:
        raise OpAttributeRequired(f"attribute '{name}' is required")
    return np.asarray(value).reshape(-1).tolist()


@register_converter("TreeEnsemble", domain=_DOMAIN)
class TreeEnsemble(OnnxOpConverter):
    @classmethod
    def _impl_v5(cls, inputs, attr, ctx):
        return _ml.tree_ensemble(
            inputs[0], required_attr(attr, "n_targets"), _values(attr, "tree_roots"), _values(attr, "nodes_featureids"),
            _values(attr, "nodes_modes"), _values(attr, "nodes_splits"), _values(attr, "nodes_truenodeids"),
            _values(attr, "nodes_trueleafs"), _values(attr, "nodes_falsenodeids"),
            _values(attr, "nodes_falseleafs"), _values(attr, "leaf_targetids"), _values(attr, "leaf_weights"),
            aggregate_function=attr.get("aggregate_function", 1), post_transform=attr.get("post_transform", 0),
            nodes_missing_value_tracks_true=_values(attr, "nodes_missing_value_tracks_true", []),
            membership_values=_values(attr, "membership_values", []))


def _table_part(attr, prefix):
    """(values, dtype) of the keys_* / values_* attribute present (strings, int64s, floats or a tensor)."""
    for suffix, dtype in (("strings", "string"), ("int64s", "int64"), ("floats", "float32")):
        if prefix + suffix in attr:
            return list(attr[prefix + suffix]), dtype
    if prefix + "tensor" in attr:
        arr = np.asarray(attr[prefix + "tensor"])
        dtype = "string" if arr.dtype.kind in "OSU" else arr.dtype.name
        return [v.decode() if isinstance(v, bytes) else v for v in arr.reshape(-1).tolist()], dtype
    raise OpAttributeRequired(f"one of {prefix}strings, {prefix}int64s, {prefix}floats or {prefix}tensor is required")


@register_converter("LabelEncoder", domain=_DOMAIN)
class LabelEncoder(OnnxOpConverter):
    @classmethod
    def _impl_v2(cls, inputs, attr, ctx):
        keys, _ = _table_part(attr, "keys_")
        values, dtype = _table_part(attr, "values_")
        if "default_tensor" in attr:
            default = np.asarray(attr["default_tensor"]).reshape(-1)[0]
            default = default.decode() if isinstance(default, bytes) else default.item() \
                if hasattr(default, "item") else default
        else:
            default = {"string": attr.get("default_string", "_Unused"), "int64": attr.get("default_int64", -1),
                       "float32": attr.get("default_float", -0.0)}.get(dtype, 0)
        return _ml.label_encoder(inputs[0], keys, values, default, dtype)
