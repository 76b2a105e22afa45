"""Text-feature ops: TfIdfVectorizer (opset 9) over integer tokens."""
from ...op import text as _text
from ....error import OpAttributeInvalid
from .common import OnnxOpConverter, choice_attr, register_converter, unsupported


@register_converter("TfIdfVectorizer")
class TfIdfVectorizer(OnnxOpConverter):
    @classmethod
    def _impl_v9(cls, inputs, attr, ctx):
        if "pool_strings" in attr:
            if "pool_int64s" in attr:
                raise OpAttributeInvalid("TfIdfVectorizer: only one of pool_strings and pool_int64s may be set")
            unsupported("TfIdfVectorizer: pool_strings (string tensors are not supported)")
        if "pool_int64s" not in attr:
            raise OpAttributeInvalid("TfIdfVectorizer: one of pool_strings and pool_int64s must be set")
        for name in ("mode", "min_gram_length", "max_gram_length", "max_skip_count", "ngram_counts",
                     "ngram_indexes"):
            if name not in attr:
                raise OpAttributeInvalid(f"TfIdfVectorizer: attribute '{name}' is required")
        return _text.tfidf_vectorizer(inputs[0], attr["ngram_counts"], attr["ngram_indexes"], attr["pool_int64s"],
                                      mode=choice_attr(attr, "mode", None, ("TF", "IDF", "TFIDF")),
                                      min_gram_length=attr["min_gram_length"],
                                      max_gram_length=attr["max_gram_length"],
                                      max_skip_count=attr["max_skip_count"], weights=attr.get("weights", ()))
