"""String-tensor op builders (csrc/relay/op/text/strings.cc)."""
from . import _make

__all__ = ["string_concat", "string_split", "string_normalizer", "regex_full_match"]


def string_concat(lhs, rhs):
    """Elementwise lhs + rhs of two string tensors, with numpy broadcasting."""
    return _make.string_concat(lhs, rhs)


def string_split(data, delimiter=None, maxsplit=-1):
    """(substrings padded with "" along a new last axis, int64 counts); no delimiter splits on whitespace runs."""
    return _make.string_split(data, delimiter or "", bool(delimiter), maxsplit)


def string_normalizer(data, case_change_action="NONE", is_case_sensitive=False, locale="", stopwords=()):
    """Strings of a (C,) or (1, C) tensor without the stopwords, case-changed (LOWER, UPPER or NONE)."""
    return _make.string_normalizer(data, case_change_action, is_case_sensitive, locale, list(stopwords))


def regex_full_match(data, pattern):
    """Whether each string matches pattern in full."""
    return _make.regex_full_match(data, pattern)
