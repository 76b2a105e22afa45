"""numpy reference of text.tfidf_vectorizer, from the ONNX TfIdfVectorizer spec: every n-gram of each length in
[min_gram_length, max_gram_length] is taken at each start position with each stride 1..max_skip_count + 1
(1-grams once, their stride being irrelevant) and counted when the pool holds it."""
import numpy as np

from ..op import register_reference


def _pool_table(attrs):
    """{(n-gram tuple): n-gram number} over the pool."""
    pool = list(attrs.pool_int64s)
    counts = list(attrs.ngram_counts)
    table = {}
    number = 0
    for i, start in enumerate(counts):
        n = i + 1
        end = counts[i + 1] if i + 1 < len(counts) else len(pool)
        for p in range(start, end, n):
            table[tuple(pool[p:p + n])] = number
            number += 1
    return table


def _tfidf_vectorizer(attrs, data):
    table = _pool_table(attrs)
    indexes = list(attrs.ngram_indexes)
    weights = list(attrs.weights) or [1.0] * len(indexes)
    width = max(indexes) + 1
    rows = data.reshape(1, -1) if data.ndim == 1 else data
    out = np.zeros((rows.shape[0], width), dtype=np.float64)
    lo, hi, skips = attrs.min_gram_length, attrs.max_gram_length, attrs.max_skip_count
    for r, row in enumerate(rows.tolist()):
        counts = np.zeros(len(indexes))
        for n in range(lo, hi + 1):
            for stride in range(1, (skips + 2) if n > 1 else 2):
                for start in range(len(row) - (n - 1) * stride):
                    number = table.get(tuple(row[start:start + (n - 1) * stride + 1:stride]))
                    if number is not None:
                        counts[number] += 1
        if attrs.mode == "IDF":
            counts = np.minimum(counts, 1) * weights
        elif attrs.mode == "TFIDF":
            counts = counts * weights
        for number, c in enumerate(counts):
            out[r, indexes[number]] += c
    out = out.astype(np.float32)
    return out[0] if data.ndim == 1 else out


register_reference("text.tfidf_vectorizer", _tfidf_vectorizer)
