"""Text-feature op builders: ``relay.text.tfidf_vectorizer`` (csrc/relay/op/text/)."""
from ...._ffi.registry import register_object
from ....ir.attrs import Attrs
from . import _make

__all__ = ["tfidf_vectorizer"]


def tfidf_vectorizer(data, ngram_counts, ngram_indexes, pool_int64s, mode="TF", min_gram_length=1,
                     max_gram_length=1, max_skip_count=0, weights=()):
    """Per row of data ((C,) or (N, C) integer tokens): the counts of the pool's n-grams (lengths
    min_gram_length..max_gram_length, taken with strides 1..max_skip_count + 1) in columns ngram_indexes;
    mode "IDF" turns counts into presence x weight, "TFIDF" into count x weight."""
    return _make.tfidf_vectorizer(data, mode, int(min_gram_length), int(max_gram_length), int(max_skip_count),
                                  [int(v) for v in ngram_counts], [int(v) for v in ngram_indexes],
                                  [int(v) for v in pool_int64s], [float(v) for v in weights])


@register_object("relay.attrs.TfIdfVectorizerAttrs")
class TfIdfVectorizerAttrs(Attrs):
    """Attributes of text.tfidf_vectorizer."""
