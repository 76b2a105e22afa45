/*!
 * \file sequence.cc
 * \brief Sequence and optional ops (ONNX semantics). Values at run time: a list of tensors, None or a value.
 *
 *   sequence_construct((t...)) -> Sequence[join(t...)]      sequence_empty() -> Sequence[DynTensor(dtype)]
 *   sequence_insert(s, t, pos) -> Sequence[join]             sequence_erase(s, pos) / sequence_at(s, pos)
 *   sequence_length(s) -> int64 scalar                       split_to_sequence(x, split), concat_from_sequence(s)
 *   optional(x) -> Optional[T]     optional_empty() (attr elem_type)     optional_has_element(x) -> bool scalar
 *   optional_get_element(x) -> T   (a plain tensor or sequence counts as a present optional)
 * An omitted position (or split) is an empty tuple.
 */
#include <tvmlite/relay/attrs/control.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(SequenceEmptyAttrs, dtype);
  TVMLITE_REFLECT_FIELDS(SplitToSequenceAttrs, axis, keepdims);
  TVMLITE_REFLECT_FIELDS(ConcatFromSequenceAttrs, axis, new_axis);
  TVMLITE_REFLECT_FIELDS(OptionalEmptyAttrs, elem_type);
});

namespace {

const SequenceTypeNode* SeqArg(const Array<Type>& args, size_t i) {
  TVMLITE_CHECK_KIND(i < args.size(), TypeError) << "missing input " << i;
  const auto* s = args[i].as<SequenceTypeNode>();
  TVMLITE_CHECK_KIND(s != nullptr, TypeError) << "input " << i << " must be a sequence, got " << TypeToString(args[i]);
  return s;
}

bool Absent(const Type& t) {
  const auto* tt = t.as<TupleTypeNode>();
  return tt != nullptr && tt->fields.empty();
}

void CheckPosition(const Array<Type>& args, size_t i, bool optional) {
  TVMLITE_CHECK_KIND(i < args.size(), TypeError) << "missing input " << i << " (position)";
  if (optional && Absent(args[i])) return;
  const auto* t = args[i].as<TensorTypeNode>();
  TVMLITE_CHECK_KIND(t && (t->ndim() == 0 || (t->ndim() == 1 && DimIs(t->shape[0], 1))) &&
                         (t->dtype == DataType::Int(64) || t->dtype == DataType::Int(32)),
                     TypeError)
      << "the position must be an int32/int64 scalar (or 1-element tensor), got " << TypeToString(args[i]);
}

bool IsTensorLike(const Type& t) { return t.as<TensorTypeNode>() || t.as<DynTensorTypeNode>(); }

}  // namespace

Type SequenceConstructRel(const Array<Type>& args, const Attrs&) {
  const auto* tt = args[0].as<TupleTypeNode>();
  TVMLITE_CHECK_KIND(tt && !tt->fields.empty(), TypeError)
      << "expected a non-empty tuple of tensors, got " << TypeToString(args[0]);
  Type elem = tt->fields[0];
  for (const Type& t : tt->fields) {
    TVMLITE_CHECK_KIND(IsTensorLike(t), TypeError) << "sequence elements must be tensors, got " << TypeToString(t);
    elem = JoinTypes(elem, t);
  }
  return SequenceType(elem);
}

Type SequenceEmptyRel(const Array<Type>&, const SequenceEmptyAttrs& a) { return SequenceType(DynTensorType(a.dtype)); }

Type SequenceInsertRel(const Array<Type>& args, const Attrs&) {
  const SequenceTypeNode* s = SeqArg(args, 0);
  TVMLITE_CHECK_KIND(IsTensorLike(args[1]), TypeError)
      << "the inserted value must be a tensor, got " << TypeToString(args[1]);
  CheckPosition(args, 2, true);
  return SequenceType(JoinTypes(s->elem_type, args[1]));
}

Type SequenceEraseRel(const Array<Type>& args, const Attrs&) {
  const SequenceTypeNode* s = SeqArg(args, 0);
  CheckPosition(args, 1, true);
  (void)s;
  return args[0];
}

Type SequenceAtRel(const Array<Type>& args, const Attrs&) {
  const SequenceTypeNode* s = SeqArg(args, 0);
  CheckPosition(args, 1, false);
  return s->elem_type;
}

Type SequenceLengthRel(const Array<Type>& args, const Attrs&) {
  SeqArg(args, 0);
  return TensorType(std::vector<int64_t>{}, DataType::Int(64));
}

Type SplitToSequenceRel(const Array<Type>& args, const SplitToSequenceAttrs& a) {
  const TensorTypeNode* x = TensorArg(args, 0);
  int64_t axis = NormalizeAxis(a.axis, x->ndim());
  if (!Absent(args[1])) {
    const TensorTypeNode* split = TensorArg(args, 1);
    TVMLITE_CHECK_KIND(split->ndim() <= 1 && (split->dtype.code() == kDLInt), TypeError)
        << "split must be an integer scalar or 1-D tensor, got " << TypeToString(args[1]);
  }
  std::vector<Any> dims;
  for (size_t d = 0; d < x->ndim(); ++d) {
    if (static_cast<int64_t>(d) != axis) {
      dims.push_back(x->shape[d]);
    } else if (!Absent(args[1])) {
      dims.push_back(SizeVar::Any());
    } else if (a.keepdims) {
      dims.push_back(int64_t(1));
    }
  }
  return SequenceType(TensorType(Array<Any>(dims), x->dtype));
}

Type ConcatFromSequenceRel(const Array<Type>& args, const ConcatFromSequenceAttrs& a) {
  const SequenceTypeNode* s = SeqArg(args, 0);
  const auto* e = s->elem_type.as<TensorTypeNode>();
  TVMLITE_CHECK_KIND(e != nullptr, TypeError) << "the elements' rank must be known, got " << TypeToString(s->elem_type);
  int64_t rank = static_cast<int64_t>(e->ndim()) + (a.new_axis ? 1 : 0);
  TVMLITE_CHECK_KIND(rank >= 1, ValueError) << "cannot concatenate scalars without new_axis";
  int64_t axis = NormalizeAxis(a.axis, rank);
  std::vector<Any> dims;
  for (int64_t d = 0, src = 0; d < rank; ++d) {
    if (d == axis) {
      dims.push_back(SizeVar::Any());
      if (!a.new_axis) ++src;
    } else {
      dims.push_back(e->shape[src++]);
    }
  }
  return TensorType(Array<Any>(dims), e->dtype);
}

Type OptionalRel(const Array<Type>& args, const Attrs&) {
  TVMLITE_CHECK_KIND(IsTensorLike(args[0]) || args[0].as<SequenceTypeNode>(), TypeError)
      << "an optional holds a tensor or a sequence, got " << TypeToString(args[0]);
  return OptionalType(args[0]);
}

Type OptionalEmptyRel(const Array<Type>&, const OptionalEmptyAttrs& a) {
  TVMLITE_CHECK_KIND(a.elem_type.defined(), TypeError) << "elem_type is required";
  TVMLITE_CHECK_KIND(IsTensorLike(a.elem_type) || a.elem_type.as<SequenceTypeNode>(), TypeError)
      << "an optional holds a tensor or a sequence, got " << TypeToString(a.elem_type);
  return OptionalType(a.elem_type);
}

Type OptionalHasElementRel(const Array<Type>& args, const Attrs&) {
  TVMLITE_CHECK_KIND(args[0].as<OptionalTypeNode>() || args[0].as<SequenceTypeNode>() || IsTensorLike(args[0]),
                     TypeError)
      << "expected an optional, a tensor or a sequence, got " << TypeToString(args[0]);
  return TensorType(std::vector<int64_t>{}, DataType::Bool());
}

Type OptionalGetElementRel(const Array<Type>& args, const Attrs&) {
  if (const auto* o = args[0].as<OptionalTypeNode>()) return o->elem_type;
  TVMLITE_CHECK_KIND(args[0].as<SequenceTypeNode>() || IsTensorLike(args[0]), TypeError)
      << "expected an optional, a tensor or a sequence, got " << TypeToString(args[0]);
  return args[0];
}

#define TVMLITE_REGISTER_SEQ_OP(Name, N, Rel, Doc)                                                                     \
  TVMLITE_REGISTER_OP(Name).describe(Doc).set_num_inputs(N).add_type_rel(#Rel, Rel).set_attr<TOpPattern>("TOpPattern", \
                                                                                                         kOpaque)

TVMLITE_REGISTER_SEQ_OP("sequence_construct", 1, SequenceConstructRel, "A sequence of the tuple's tensors.")
    .add_argument("inputs", "Tuple", "The tensors.");
TVMLITE_REGISTER_SEQ_OP("sequence_empty", 0, SequenceEmptyRel, "An empty sequence of tensors of dtype.");
TVMLITE_REGISTER_SEQ_OP("sequence_insert", 3, SequenceInsertRel, "Insert a tensor at position (default: end).")
    .add_argument("seq", "Sequence", "The sequence.")
    .add_argument("tensor", "Tensor", "The value inserted.")
    .add_argument("position", "Tensor", "An integer scalar in [-n, n], or ().");
TVMLITE_REGISTER_SEQ_OP("sequence_erase", 2, SequenceEraseRel, "Remove the element at position (default: last).")
    .add_argument("seq", "Sequence", "The sequence.")
    .add_argument("position", "Tensor", "An integer scalar in [-n, n), or ().");
TVMLITE_REGISTER_SEQ_OP("sequence_at", 2, SequenceAtRel, "The element at position.")
    .add_argument("seq", "Sequence", "The sequence.")
    .add_argument("position", "Tensor", "An integer scalar in [-n, n).");
TVMLITE_REGISTER_SEQ_OP("sequence_length", 1, SequenceLengthRel, "The number of elements (int64 scalar).")
    .add_argument("seq", "Sequence", "The sequence.");
TVMLITE_REGISTER_SEQ_OP("split_to_sequence", 2, SplitToSequenceRel, "Split a tensor along axis into a sequence.")
    .add_argument("data", "Tensor", "The tensor split.")
    .add_argument("split", "Tensor", "Chunk length (scalar) or lengths (1-D), or () for chunks of 1.");
TVMLITE_REGISTER_SEQ_OP("concat_from_sequence", 1, ConcatFromSequenceRel,
                        "Concatenate (or stack, with new_axis) a sequence's tensors along axis.")
    .add_argument("seq", "Sequence", "The sequence.");
TVMLITE_REGISTER_SEQ_OP("optional", 1, OptionalRel, "An optional holding the value.")
    .add_argument("value", "Tensor", "A tensor or a sequence.");
TVMLITE_REGISTER_SEQ_OP("optional_empty", 0, OptionalEmptyRel, "An empty optional of elem_type.");
TVMLITE_REGISTER_SEQ_OP("optional_has_element", 1, OptionalHasElementRel, "Whether the optional holds a value.")
    .add_argument("value", "Optional", "An optional (a tensor or sequence counts as present).");
TVMLITE_REGISTER_SEQ_OP("optional_get_element", 1, OptionalGetElementRel, "The optional's value.")
    .add_argument("value", "Optional", "An optional (a tensor or sequence is returned as is).");

}  // namespace relay
}  // namespace tvmlite
