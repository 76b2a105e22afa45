/*!
 * \file shape_rewrites.cc
 * \brief NameResultDims: "?" result dims named from shape values (shape_rewrites.h says why).
 */
#include "shape_rewrites.h"

#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/type_rel.h>

namespace tvmlite {
namespace relay {

namespace {

bool IsAnonymous(const Any& d) {
  std::optional<SizeVar> v = d.as<SizeVar>();
  return v && (*v)->name_hint == "?";
}

/*! \brief concatenate's "?" at its axis: the sum of the inputs' dims, named by the first tensor of that sum. */
Expr NameConcat(ShapeValueEvaluator* shapes, const Expr& node, const CallNode* call) {
  const auto* a = call->attrs.as<ConcatenateAttrs>();
  const TensorTypeNode* t = TensorTypeOf(node);
  const auto* fields = call->args[0]->checked_type_.as<TupleTypeNode>();
  if (a == nullptr || t == nullptr || fields == nullptr || t->ndim() == 0) return node;
  const int64_t rank = static_cast<int64_t>(t->ndim());
  if (a->axis < -rank || a->axis >= rank) return node;
  const int64_t axis = a->axis < 0 ? a->axis + rank : a->axis;
  if (!IsAnonymous(t->shape[axis])) return node;
  Affine sum;
  for (const Type& f : fields->fields) {
    const auto* ft = f.as<TensorTypeNode>();
    if (ft == nullptr || static_cast<int64_t>(ft->ndim()) != rank) return node;
    std::optional<Affine> d = shapes->SumOf(ft->shape[axis]);
    std::optional<Affine> s = d ? Affine::AddScaled(sum, *d, 1) : std::nullopt;
    if (!s) return node;
    sum = *s;
  }
  if (sum.IsConst() || sum.SingleDim()) return node;  // the relation names those itself
  // A later tensor of the same sum keeps its own "?": a reshape_like of it to the first one would fuse the two
  // concatenations into one group, which the cpu lowering cannot run natively (T5's merged decoder).
  shapes->NoteSum(node, axis, sum);
  return node;
}

/*! \brief arange(start, stop, 1)'s "?" length: stop - start when that is never negative. */
Expr NameArange(ShapeValueEvaluator* shapes, const Expr& node, const CallNode* call) {
  const TensorTypeNode* t = TensorTypeOf(node);
  if (t == nullptr || t->ndim() != 1 || !IsAnonymous(t->shape[0])) return node;
  const ShapeValue* start = shapes->Eval(call->args[0]);
  const ShapeValue* stop = shapes->Eval(call->args[1]);
  const ShapeValue* step = shapes->Eval(call->args[2]);
  std::optional<std::vector<int64_t>> k = step ? step->StaticValues() : std::nullopt;
  if (!start || !stop || !k || k->size() != 1 || (*k)[0] != 1 || start->sums.size() != 1 || stop->sums.size() != 1 ||
      !start->sums[0] || !stop->sums[0]) {
    return node;
  }
  std::optional<Affine> n = Affine::AddScaled(*stop->sums[0], *start->sums[0], -1);
  if (!n) return node;
  if (n->IsConst()) {
    auto attrs = make_object<ReshapeAttrs>();
    attrs->newshape = Array<int64_t>(std::vector<int64_t>{std::max<int64_t>(n->c, 0)});
    return InferTypeExpr(MakeCall("reshape", {node}, Attrs(attrs)));
  }
  std::optional<DimSource> place = n->NonNegative() ? shapes->Locate(*n) : std::nullopt;
  if (!place || !place->tensor.defined()) return node;
  return InferTypeExpr(ReshapeAxisLike(node, 0, place->tensor, place->axis));
}

}  // namespace

Expr ReshapeAxisLike(const Expr& x, int64_t axis, const Expr& like, int64_t like_axis) {
  auto attrs = make_object<ReshapeLikeAttrs>();
  attrs->lhs_begin = axis;
  attrs->lhs_end = axis + 1;
  attrs->rhs_begin = like_axis;
  attrs->rhs_end = like_axis + 1;
  return MakeCall("reshape_like", {x, like}, Attrs(attrs));
}

Expr NameResultDims(ShapeValueEvaluator* shapes, const Expr& node) {
  const CallNode* call = AsOpCall(node, "concatenate");
  if (call != nullptr) return NameConcat(shapes, node, call);
  call = AsOpCall(node, "arange");
  if (call != nullptr && call->args.size() == 3) return NameArange(shapes, node, call);
  return node;
}

}  // namespace relay
}  // namespace tvmlite
