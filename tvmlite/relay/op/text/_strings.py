"""numpy references of the string ops: string tensors are numpy object arrays of str."""
import re

import numpy as np

from ..op import register_reference


def _strings(shape, items):
    out = np.empty(shape, dtype=object)
    out.reshape(-1)[:] = items if len(items) else []
    return out


@register_reference("text.string_concat")
def _string_concat(attrs, a, b):
    a, b = np.broadcast_arrays(a, b)
    return _strings(a.shape, [x + y for x, y in zip(a.reshape(-1), b.reshape(-1))])


@register_reference("text.string_split")
def _string_split(attrs, x):
    sep = attrs.delimiter if attrs.has_delimiter else None
    limit = attrs.maxsplit if attrs.maxsplit >= 0 else -1
    parts = [str(s).split(sep, limit) for s in x.reshape(-1)]
    width = max((len(p) for p in parts), default=0)
    y = np.full((len(parts), width), "", dtype=object)
    for i, p in enumerate(parts):
        y[i, :len(p)] = p
    counts = np.array([len(p) for p in parts], dtype=np.int64).reshape(x.shape)
    return y.reshape(x.shape + (width,)), counts


@register_reference("text.string_normalizer")
def _string_normalizer(attrs, x):
    stop = list(attrs.stopwords)
    if attrs.is_case_sensitive:
        kept = [s for s in x.reshape(-1) if s not in set(stop)]
    else:
        lowered = {w.lower() for w in stop}
        kept = [s for s in x.reshape(-1) if s.lower() not in lowered]
    action = attrs.case_change_action
    kept = [s.lower() if action == "LOWER" else s.upper() if action == "UPPER" else s for s in kept]
    if not kept:  # ONNX keeps one empty string when every word is removed
        kept = [""]
    return _strings((len(kept),) if x.ndim == 1 else (1, len(kept)), kept)


@register_reference("text.regex_full_match")
def _regex_full_match(attrs, x):
    pattern = re.compile(attrs.pattern)
    return np.array([pattern.fullmatch(str(s)) is not None for s in x.reshape(-1)], dtype=bool).reshape(x.shape)
