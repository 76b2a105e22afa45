"""String tensors: StringConcat, StringSplit, StringNormalizer, RegexFullMatch (Equal on strings is elemwise's)."""
from ...op import text as _text
from ...expr import TupleGetItem
from .common import OnnxOpConverter, choice_attr, register_converter, register_renamed


register_renamed("StringConcat", 20, _text.string_concat)


@register_converter("StringSplit")
class StringSplit(OnnxOpConverter):
    @classmethod
    def _impl_v20(cls, inputs, attr, ctx):
        call = _text.string_split(inputs[0], attr.get("delimiter") or None, attr.get("maxsplit", -1))
        return [TupleGetItem(call, 0), TupleGetItem(call, 1)]


@register_converter("StringNormalizer")
class StringNormalizer(OnnxOpConverter):
    @classmethod
    def _impl_v10(cls, inputs, attr, ctx):
        return _text.string_normalizer(inputs[0], choice_attr(attr, "case_change_action", "NONE",
                                                              ("LOWER", "UPPER", "NONE")),
                                       bool(attr.get("is_case_sensitive", 0)), attr.get("locale", ""),
                                       attr.get("stopwords", []))


@register_converter("RegexFullMatch")
class RegexFullMatch(OnnxOpConverter):
    @classmethod
    def _impl_v20(cls, inputs, attr, ctx):
        return _text.regex_full_match(inputs[0], attr.get("pattern", ""))
