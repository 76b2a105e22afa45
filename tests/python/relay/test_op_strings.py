"""String tensors: the "string" dtype (IR types only, never an NDArray) and the text ops over them."""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay


def _s(*items):
    return np.array(list(items), dtype=object)


def test_string_is_a_type_but_not_an_array_dtype():
    assert str(ir.TensorType((2,), "string")) == "Tensor[(2,), string]"
    with pytest.raises(ValueError, match="cannot allocate an array of string"):
        tvmlite.nd.empty((2,), "string")


def test_text_ops(run_relay):
    x = relay.var("x", shape=(3,), dtype="string")
    y = relay.var("y", shape=(), dtype="string")
    out = relay.Tuple([relay.text.string_concat(x, y), relay.text.regex_full_match(x, "a+b?"),
                       relay.text.string_normalizer(x, "UPPER", stopwords=["AB"]), relay.equal(x, y)])
    cat, match, norm, eq = run_relay(relay.Function([x, y], out), [_s("a", "ab", "c d"), np.array("ab", object)])
    assert cat.tolist() == ["aab", "abab", "c dab"]
    assert match.tolist() == [True, True, False]
    assert norm.tolist() == ["A", "C D"]  # "ab" is a stopword (case-insensitive)
    assert eq.tolist() == [False, True, False]


def test_string_split_pads_and_counts(run_relay):
    x = relay.var("x", shape=(2,), dtype="string")
    parts, counts = run_relay(relay.Function([x], relay.text.string_split(x, ",")), [_s("a,b,,c", "d")])
    assert parts.tolist() == [["a", "b", "", "c"], ["d", "", "", ""]] and counts.tolist() == [4, 1]
    with pytest.raises(TypeError, match="input 0 must be a string tensor, got float32"):
        relay.transform.InferType()(ir.IRModule.from_expr(relay.text.string_split(relay.var("f", shape=(2,)))))
