/*!
 * \file dynamic_to_static_rules.cc
 * \brief The ops' "FTVMLiteDynamicToStatic" rules (dynamic_to_static.h): each builds the static form of one dyn
 * op's call whose shape-like inputs are known, or returns None to keep it. The DynamicToStatic pass
 * (dynamic_to_static.cc, whose comment lists the rewrites) asks an op for its rule; it names no op.
 *
 *   dyn.reshape            reshape; or reshape_like of the tensors whose dims the shape value names
 *   dyn.squeeze            squeeze
 *   dyn.expand_dims        one expand_dims per new axis
 *   dyn.broadcast_to       broadcast_to; or broadcast_to_like of the tensors whose dims the shape value names
 *   dyn.tile               tile
 *   dyn.strided_slice      strided_slice (x itself when it keeps every element); or slice_like
 *   dyn.one_hot, dyn.topk  their static op, depth / k from the constant
 *   dyn.cumsum, cumprod    their static op, axis from the constant
 *   dyn.<reduce>           the reduce over the constant axes
 *   dyn.nn.pad             nn.pad with pad_width over every axis
 *   dyn.full               full; or broadcast_to_like (as dyn.broadcast_to) of the value
 *   dyn.nn.col2im          nn.col2im
 *   dyn.nn.max_unpool{N}d  nn.max_unpool{N}d with the output shape's spatial dims
 *   image.resize           itself with output_size from the constant roi / scales / sizes
 */
#include <tvmlite/ir/attrs.h>
#include <tvmlite/ir/op.h>
#include <tvmlite/relay/attrs/image.h>
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/attrs/reduce.h>
#include <tvmlite/relay/attrs/sort.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/resize_geometry.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "dynamic_to_static.h"
#include "rule_args.h"

namespace tvmlite {
namespace relay {
namespace {

using Ints = std::vector<int64_t>;

/*! \brief The one value of a constant holding exactly one element (the references' _scalar). */
std::optional<int64_t> ConstScalar(const Expr& e) {
  std::optional<Ints> v = ConstInts(e);
  if (!v.has_value() || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

Array<int64_t> ToArray(const Ints& v) { return Array<int64_t>(v); }

/*! \brief The rank of e's tensor type, or -1. */
int64_t RankOf(const Expr& e) {
  const TensorTypeNode* t = TensorTypeOf(e);
  return t == nullptr ? -1 : static_cast<int64_t>(t->ndim());
}

/*! \brief axes normalised against rank (the references' _norm_axes); nullopt when one is out of range or repeats. */
std::optional<Ints> NormAxes(const Ints& axes, int64_t rank) {
  Ints out;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    out.push_back(a < 0 ? a + rank : a);
  }
  Ints sorted = out;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return std::nullopt;
  return out;
}

/*! \brief Where entry i of v is a tensor's dim: the shape_of it was read from, else a place holding its sum. */
DimSource SourceOf(const ShapeValueEvaluator* shapes, const ShapeValue& v, size_t i) {
  if (v.sources[i].tensor.defined() || !v.sums[i]) return v.sources[i];
  return shapes->Locate(*v.sums[i]).value_or(DimSource());
}

/*! \brief Whether a slice keeps every element: begins 0, steps 1, ends at the end (int64 max). */
bool IsWholeSlice(const Ints& begins, const Ints& ends, const Ints& steps) {
  auto is = [](const Ints& v, int64_t x) { return std::all_of(v.begin(), v.end(), [x](int64_t y) { return y == x; }); };
  return is(begins, 0) && is(steps, 1) && is(ends, std::numeric_limits<int64_t>::max());
}

/*!
 * \brief The newshape of a reshape of x into a shape value known as dims: a static entry as it is, a dim of x
 * at its own position 0 (copy), one other -1 (inferred from the element count); nullopt when two entries are
 * neither (or allowzero, where 0 is a zero dim).
 */
std::optional<Ints> ReshapeTarget(ShapeValueEvaluator* shapes, const Expr& x, const Expr& shape, bool allowzero) {
  const ShapeValue* v = shapes->Eval(shape);
  const TensorTypeNode* t = TensorTypeOf(x);
  if (v == nullptr || t == nullptr || v->scalar) return std::nullopt;
  Ints out;
  bool inferred = false;
  for (size_t i = 0; i < v->dims.size(); ++i) {
    const Any& d = v->dims[i];
    if (d.type_index() == kTVMLiteInt) {
      out.push_back(d.cast<int64_t>());
      inferred = inferred || out.back() == -1;
    } else if (!allowzero && i < t->ndim() && shapes->Same(*v, i, t->shape[i])) {
      out.push_back(0);
    } else if (!inferred) {
      out.push_back(-1);
      inferred = true;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

/*!
 * \brief A reshape of x into the whole shape of one tensor y (GPT-2's mask: reshape(m, shape_of(idx)) after a
 * take by idx): reshape_like(x, y), every entry y's dim at its own position (a static one or one read there).
 */
Expr ReshapeToShapeOf(const Expr& x, const ShapeValue& v, bool allowzero) {
  Expr like;
  for (size_t i = 0; i < v.dims.size() && !like.defined(); ++i) like = v.sources[i].tensor;
  const TensorTypeNode* y = like.defined() ? TensorTypeOf(like) : nullptr;
  if (y == nullptr || y->ndim() != v.dims.size()) return Expr();
  for (size_t i = 0; i < v.dims.size(); ++i) {
    const DimSource& source = v.sources[i];
    const bool read_here = source.tensor.same_as(like) && source.axis == static_cast<int64_t>(i);
    const bool copies = !allowzero && DimIs(v.dims[i], 0);  // a 0 copying x's dim, not y's
    if (!read_here && (copies || !(v.dims[i].type_index() == kTVMLiteInt && DimEqual(v.dims[i], y->shape[i])))) {
      return Expr();
    }
  }
  return MakeCall("reshape_like", {x, like}, Attrs(make_object<ReshapeLikeAttrs>()));
}

/*!
 * \brief A reshape of x into (a..., dims r0..r1 of one tensor y, b...), a and b static (GPT-2's
 * x.view(x.size()[:-1] + (nf,)) after a dense on the flattened (batch * seq, nf)): a static reshape to
 * (a..., -1, b...), then reshape_like putting y's dims for the -1, so the result has y's named dims. An
 * undefined Expr when the target is not of that form.
 */
Expr ReshapeLike(ShapeValueEvaluator* shapes, const Array<Expr>& args, bool allowzero) {
  const ShapeValue* v = shapes->Eval(args[1]);
  if (v == nullptr || v->scalar) return Expr();
  if (Expr whole = ReshapeToShapeOf(args[0], *v, allowzero); whole.defined()) return whole;
  Ints newshape;
  int64_t at = -1, r0 = -1, r1 = -1;
  Expr like;
  for (size_t i = 0; i < v->dims.size(); ++i) {
    const Any& d = v->dims[i];
    if (d.type_index() == kTVMLiteInt) {
      const int64_t n = d.cast<int64_t>();
      // -1 is the run's; a copying 0 after the run would copy another position of x than the target's.
      if (n < 0 || (n == 0 && !allowzero && at >= 0)) return Expr();
      newshape.push_back(n);
      continue;
    }
    const DimSource source = SourceOf(shapes, *v, i);
    if (!source.tensor.defined()) return Expr();
    if (at < 0) {
      at = static_cast<int64_t>(i);
      like = source.tensor;
      r0 = r1 = source.axis;
      newshape.push_back(-1);
    } else if (like.same_as(source.tensor) && source.axis == r1 + 1 && static_cast<int64_t>(i) == at + r1 - r0 + 1) {
      r1 = source.axis;
    } else {
      return Expr();
    }
  }
  if (at < 0) return Expr();
  Expr flat = MakeCall("reshape", {args[0]}, {{"newshape", ToArray(newshape)}, {"allowzero", allowzero}});
  return MakeCall("reshape_like", {flat, like},
                  {{"lhs_begin", at}, {"lhs_end", at + 1}, {"rhs_begin", r0}, {"rhs_end", r1 + 1}});
}

/*!
 * \brief The static target of a broadcast of x to a shape value known as dims: a dim of x at its aligned
 * position becomes 1 (it broadcasts to itself); nullopt when another entry is symbolic.
 */
std::optional<Ints> BroadcastTarget(ShapeValueEvaluator* shapes, const Expr& x, const Expr& shape) {
  const ShapeValue* v = shapes->Eval(shape);
  const TensorTypeNode* t = TensorTypeOf(x);
  if (v == nullptr || t == nullptr || v->scalar) return std::nullopt;
  Ints out;
  size_t n = v->dims.size(), rank = t->ndim();
  for (size_t i = 0; i < n; ++i) {
    const Any& d = v->dims[i];
    if (d.type_index() == kTVMLiteInt) {
      out.push_back(d.cast<int64_t>());
    } else if (i + rank >= n && shapes->Same(*v, i, t->shape[i + rank - n])) {
      out.push_back(1);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

/*!
 * \brief A broadcast of x to a shape value whose other symbolic entries are dims of other tensors, where x has 1
 * (BERT's mask (batch, 1, 1, seq) expanded to (batch, 1, seq, seq)): a static broadcast_to for the static entries
 * and x's own dims, then one broadcast_to_like per tensor whose dims x takes, so the result has their named dims.
 * An undefined Expr when an entry is neither.
 */
Expr BroadcastLike(ShapeValueEvaluator* shapes, const Array<Expr>& args) {
  const ShapeValue* v = shapes->Eval(args[1]);
  const TensorTypeNode* t = TensorTypeOf(args[0]);
  if (v == nullptr || t == nullptr || v->scalar || v->dims.size() < t->ndim()) return Expr();
  const size_t n = v->dims.size(), skip = n - t->ndim();  // x's dim i - skip is aligned with entry i
  Ints target;
  std::vector<Expr> likes;
  std::vector<Ints> axes, like_axes;
  for (size_t i = 0; i < n; ++i) {
    const Any& d = v->dims[i];
    if (d.type_index() == kTVMLiteInt) {
      target.push_back(d.cast<int64_t>());
      continue;
    }
    target.push_back(1);
    if (i >= skip && shapes->Same(*v, i, t->shape[i - skip])) continue;  // x's own dim: broadcasts to itself
    const DimSource source = SourceOf(shapes, *v, i);
    if (!source.tensor.defined() || (i >= skip && !DimIs(t->shape[i - skip], 1))) return Expr();
    size_t k = 0;
    while (k < likes.size() && !likes[k].same_as(source.tensor)) ++k;
    if (k == likes.size()) {
      likes.push_back(source.tensor);
      axes.emplace_back();
      like_axes.emplace_back();
    }
    axes[k].push_back(static_cast<int64_t>(i));
    like_axes[k].push_back(source.axis);
  }
  if (likes.empty()) return Expr();
  Expr out = MakeCall("broadcast_to", {args[0]}, {{"shape", ToArray(target)}});
  for (size_t k = 0; k < likes.size(); ++k) {
    out = MakeCall("broadcast_to_like", {out, likes[k]},
                   {{"axes", ToArray(axes[k])}, {"like_axes", ToArray(like_axes[k])}});
  }
  return out;
}

/*!
 * \brief The static begins (or ends) of a slice of x given as a shape value: an int entry is itself; a symbolic one
 * is static where a forward slice starts at minus its axis's own dim (begins: 0, exactly; T5's bias[:, :, -seq:, :]
 * on a (.., seq, ..) bias) or ends at that dim (ends: the end). nullopt when another entry is symbolic.
 */
std::optional<Ints> SliceBounds(ShapeValueEvaluator* shapes, const Expr& x, const Expr& bounds, const Ints& steps,
                                const Ints& axes, bool ends) {
  const ShapeValue* v = shapes->Eval(bounds);
  const TensorTypeNode* t = TensorTypeOf(x);
  if (v == nullptr || t == nullptr || v->scalar || v->dims.size() != axes.size()) return std::nullopt;
  Ints out;
  const int64_t rank = static_cast<int64_t>(t->ndim());
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    const int64_t step = steps.size() > 1 ? steps[i] : steps.empty() ? 1 : steps[0];
    if (v->dims[i].type_index() == kTVMLiteInt) {
      out.push_back(v->dims[i].cast<int64_t>());
      continue;
    }
    if (step <= 0 || axis < 0 || axis >= rank) return std::nullopt;
    if (ends) {
      if (!shapes->Same(*v, i, t->shape[axis])) return std::nullopt;
      out.push_back(std::numeric_limits<int64_t>::max());
    } else {
      std::optional<Affine> own = shapes->SumOf(t->shape[axis]);
      if (!own || !v->sums[i] || !(*v->sums[i] == Affine::AddScaled(Affine(), *own, -1))) return std::nullopt;
      out.push_back(0);  // -d + d; for d = 0 the begin is 0 as well
    }
  }
  return out;
}

/*!
 * \brief x[0:n] where each symbolic end n is dim `axis` of one tensor y, read at x's own axis (the position ids
 * sliced to the sequence length: buffer[:, :shape_of(input_ids)[1]]): slice_like(x, y) on those axes, after a
 * static slice for the static ends, so the result has y's named dim. The dyn slice would clamp an n above x's
 * dim, slice_like rejects it at run time (such a model fails later anyway: its table is shorter than the
 * sequence). An undefined Expr when the slice is not of that form.
 */
Expr SliceLike(ShapeValueEvaluator* shapes, const Array<Expr>& args) {
  std::optional<Ints> b = ConstInts(args[1]), s = ConstInts(args[3]), a = ConstInts(args[4]);
  const ShapeValue* e = shapes->Eval(args[2]);
  const TensorTypeNode* t = TensorTypeOf(args[0]);
  if (!b || !s || !a || e == nullptr || t == nullptr || e->scalar || e->dims.size() != a->size() ||
      b->size() != a->size()) {
    return Expr();
  }
  std::optional<Ints> axes = NormAxes(*a, static_cast<int64_t>(t->ndim()));
  if (!axes) return Expr();
  Ints static_axes, static_ends, like_axes;
  Expr like;
  for (size_t i = 0; i < axes->size(); ++i) {
    const int64_t step = s->size() > 1 ? (*s)[i] : s->empty() ? 1 : (*s)[0];
    if ((*b)[i] != 0 || step != 1) return Expr();
    if (e->dims[i].type_index() == kTVMLiteInt) {
      static_axes.push_back((*axes)[i]);
      static_ends.push_back(e->dims[i].cast<int64_t>());
      continue;
    }
    const DimSource source = SourceOf(shapes, *e, i);
    if (!source.tensor.defined() || source.axis != (*axes)[i] || (like.defined() && !like.same_as(source.tensor))) {
      return Expr();
    }
    like = source.tensor;
    like_axes.push_back((*axes)[i]);
  }
  if (!like.defined()) return Expr();
  Expr x = args[0];
  if (!static_axes.empty()) {
    x = MakeCall("strided_slice", {x},
                 {{"begin", ToArray(Ints(static_axes.size(), 0))},
                  {"end", ToArray(static_ends)},
                  {"strides", ToArray(Ints{1})},
                  {"axes", ToArray(static_axes)}});
  }
  return MakeCall("slice_like", {x, like}, {{"axes", ToArray(like_axes)}});
}

/*! \brief dyn.reshape(x, s) -> reshape(x, newshape=s), allowzero kept; s a shape value: 0 copies x's dim at its
 * own position, -1 infers one other; else reshape_like of the tensors whose dims s names. */
Expr Reshape(const CallNode* call, ShapeValueEvaluator* shapes) {
  const Array<Expr>& args = call->args;
  const auto* old = call->attrs.as<ReshapeAttrs>();
  if (old == nullptr) return Expr();
  std::optional<Ints> s = ConstInts(args[1]);
  if (!s) s = ReshapeTarget(shapes, args[0], args[1], old->allowzero);
  if (!s) return ReshapeLike(shapes, args, old->allowzero);
  return MakeCall("reshape", {args[0]}, {{"newshape", ToArray(*s)}, {"allowzero", old->allowzero}});
}

Expr Squeeze(const CallNode* call, ShapeValueEvaluator*) {
  std::optional<Ints> a = ConstInts(call->args[1]);
  if (!a) return Expr();
  return MakeCall("squeeze", {call->args[0]}, {{"axis", ToArray(*a)}});
}

/*! \brief dyn.expand_dims(x, a) -> expand_dims(x, p, 1) for each output position p of a, ascending. */
Expr ExpandDims(const CallNode* call, ShapeValueEvaluator*) {
  const Array<Expr>& args = call->args;
  std::optional<Ints> a = ConstInts(args[1]);
  int64_t ndim = RankOf(args[0]);
  if (!a || ndim < 0) return Expr();
  std::optional<Ints> positions = NormAxes(*a, ndim + static_cast<int64_t>(a->size()));
  if (!positions) return Expr();
  std::sort(positions->begin(), positions->end());
  Expr out = args[0];
  for (int64_t p : *positions) {  // ascending: each insertion leaves the earlier positions in place
    out = MakeCall("expand_dims", {out}, {{"axis", p}, {"num_newaxis", int64_t(1)}});
  }
  return out;
}

Expr BroadcastTo(const CallNode* call, ShapeValueEvaluator* shapes) {
  const Array<Expr>& args = call->args;
  std::optional<Ints> s = ConstInts(args[1]);
  if (!s) s = BroadcastTarget(shapes, args[0], args[1]);
  if (!s) return BroadcastLike(shapes, args);
  return MakeCall("broadcast_to", {args[0]}, {{"shape", ToArray(*s)}});
}

Expr Tile(const CallNode* call, ShapeValueEvaluator*) {
  std::optional<Ints> s = ConstInts(call->args[1]);
  if (!s) return Expr();
  return MakeCall("tile", {call->args[0]}, {{"reps", ToArray(*s)}});
}

Expr StridedSlice(const CallNode* call, ShapeValueEvaluator* shapes) {
  const Array<Expr>& args = call->args;
  std::optional<Ints> b = ConstInts(args[1]), s = ConstInts(args[3]), a = ConstInts(args[4]);
  std::optional<Ints> e = ConstInts(args[2]);
  if (!b && s && a) b = SliceBounds(shapes, args[0], args[1], *s, *a, /*ends=*/false);
  if (!e && b && s && a) e = SliceBounds(shapes, args[0], args[2], *s, *a, /*ends=*/true);
  if (!b || !e || !s || !a) return SliceLike(shapes, args);
  if (IsWholeSlice(*b, *e, *s)) return args[0];  // x[0:] on every axis sliced (bias[:, :, -seq:] of seq)
  return MakeCall("strided_slice", {args[0]},
                  {{"begin", ToArray(*b)}, {"end", ToArray(*e)}, {"strides", ToArray(*s)}, {"axes", ToArray(*a)}});
}

Expr OneHot(const CallNode* call, ShapeValueEvaluator*) {
  std::optional<Ints> d = ConstInts(call->args[3], /*allow_float=*/true);  // the reference reads depth[0]
  if (call->attrs.as<OneHotAttrs>() == nullptr || !d || d->empty()) return Expr();
  return MakeCall("one_hot", {call->args[0], call->args[1], call->args[2]},
                  WithAttrFields(call->attrs, {{"depth", Any((*d)[0])}}, "DynamicToStatic"));
}

Expr TopK(const CallNode* call, ShapeValueEvaluator*) {
  std::optional<int64_t> k = ConstScalar(call->args[1]);
  if (call->attrs.as<TopKAttrs>() == nullptr || !k) return Expr();
  return MakeCall("topk", {call->args[0]}, WithAttrFields(call->attrs, {{"k", Any(*k)}}, "DynamicToStatic"));
}

/*! \brief dyn.cumsum / dyn.cumprod(x, a) -> name(x, axis=int(a)), other attrs kept. */
Expr Scan(const CallNode* call, const std::string& name) {
  std::optional<int64_t> axis = ConstScalar(call->args[1]);
  if (call->attrs.as<ScanopAttrs>() == nullptr || !axis) return Expr();
  return MakeCall(name, {call->args[0]}, WithAttrFields(call->attrs, {{"axis", Any(*axis)}}, "DynamicToStatic"));
}

/*! \brief dyn.nn.pad(x, p, v, a) -> nn.pad(x, v, pad_width): axis a[i] gets (p[i], p[i + len(a)]), others 0. */
Expr Pad(const CallNode* call) {
  const auto* old = call->attrs.as<PadAttrs>();
  std::optional<Ints> pads = ConstInts(call->args[1]), axes = ConstInts(call->args[3]);
  int64_t ndim = RankOf(call->args[0]);
  if (old == nullptr || !pads || !axes || ndim < 0 || pads->size() != 2 * axes->size()) return Expr();
  std::optional<Ints> norm = NormAxes(*axes, ndim);
  if (!norm) return Expr();
  Ints width(static_cast<size_t>(2 * ndim), 0);
  for (size_t i = 0; i < norm->size(); ++i) {
    width[2 * (*norm)[i]] = (*pads)[i];
    width[2 * (*norm)[i] + 1] = (*pads)[i + norm->size()];
  }
  return MakeCall("nn.pad", {call->args[0], call->args[2]},
                  {{"pad_width", ToArray(width)}, {"pad_mode", old->pad_mode}});
}

/*! \brief dyn.<reduce>(x, a) -> name(x, axis=a, keepdims kept); an empty a is [] (reduce nothing) under
 * noop_with_empty_axes, else None (every axis). */
Expr Reduce(const CallNode* call, const std::string& name) {
  const auto* old = call->attrs.as<DynReduceAttrs>();
  std::optional<Ints> a = ConstInts(call->args[1]);
  if (old == nullptr || !a) return Expr();
  auto attrs = make_object<ReduceAttrs>();
  if (!a->empty()) {
    attrs->axis = ToArray(*a);
  } else if (old->noop_with_empty_axes) {
    attrs->axis = Array<int64_t>();  // [] reduces nothing
  }  // else None: every axis
  attrs->keepdims = old->keepdims;
  attrs->exclude = false;
  return MakeCall(name, {call->args[0]}, Attrs(attrs));
}

Expr Full(const CallNode* call, ShapeValueEvaluator* shapes) {
  const Array<Expr>& args = call->args;
  std::optional<Ints> s = ConstInts(args[1]);
  const TensorTypeNode* value = TensorTypeOf(args[0]);
  // A shape of other tensors' dims: the value broadcast to them (BroadcastLike), of the same dtype.
  const auto* result = call->checked_type_.as<TensorTypeNode>();
  if (!s && value != nullptr && result != nullptr && value->dtype == result->dtype) return BroadcastLike(shapes, args);
  if (call->attrs.as<FullAttrs>() == nullptr || !s) return Expr();
  return MakeCall("full", {args[0]}, WithAttrFields(call->attrs, {{"shape", Any(ToArray(*s))}}, "DynamicToStatic"));
}

Expr Col2Im(const CallNode* call, ShapeValueEvaluator*) {
  std::optional<Ints> image = ConstInts(call->args[1]), block = ConstInts(call->args[2]);
  if (call->attrs.as<Col2ImAttrs>() == nullptr || !image || !block) return Expr();
  return MakeCall(
      "nn.col2im", {call->args[0]},
      WithAttrFields(call->attrs, {{"image_shape", Any(ToArray(*image))}, {"block_shape", Any(ToArray(*block))}},
                     "DynamicToStatic"));
}

/*! \brief dyn.nn.max_unpool{N}d with a constant output_shape (batch, channels, spatial...): its spatial dims. */
template <int N>
Expr MaxUnpool(const CallNode* call, const std::string& name) {
  const auto* old = call->attrs.as<MaxUnpoolAttrs<N>>();
  std::optional<Ints> shape = ConstInts(call->args[2]);
  if (old == nullptr || !shape || shape->size() != static_cast<size_t>(N + 2)) return Expr();
  const Array<int64_t> size = ToArray(Ints(shape->begin() + 2, shape->end()));
  return MakeCall(name, {call->args[0], call->args[1]},
                  WithAttrFields(call->attrs, {{"output_size", Any(size)}}, "DynamicToStatic"));
}

/*! \brief The values of a float32 / float64 CPU constant, flattened; nullopt for any other expr. */
std::optional<std::vector<double>> ConstFloats(const Expr& e) {
  const auto* c = e.as<ConstantNode>();
  if (c == nullptr) return std::nullopt;
  const NDArray& a = c->data;
  const DLTensor& t = a->tensor;
  const DataType dt = a.dtype();
  if (t.device.device_type != kDLCPU || !a.IsContiguous() || !dt.is_float() || t.dtype.lanes != 1 ||
      (dt.bits() != 32 && dt.bits() != 64)) {
    return std::nullopt;
  }
  const char* p = static_cast<const char*>(t.data) + t.byte_offset;
  std::vector<double> out(static_cast<size_t>(a.NumElements()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = dt.bits() == 32 ? reinterpret_cast<const float*>(p)[i] : reinterpret_cast<const double*>(p)[i];
  }
  return out;
}

/*!
 * \brief image.resize takes scales / sizes as inputs and types its result from the output_size attr: once they
 * are constants, output_size comes from topi::ResizeStaticOutputSize (the rule the frontend applies to constants
 * at import). Values the op rejects at run time leave the call dynamic, to fail there.
 */
Expr StaticResize(const CallNode* call) {
  const auto* old = call->attrs.as<ResizeAttrs>();
  if (old == nullptr || !old->output_size.empty() || call->args.size() != 4) return Expr();
  const TensorTypeNode* data = TensorTypeOf(call->args[0]);
  if (data == nullptr) return Expr();
  // roi, scales, sizes: a constant's values, none when omitted (an empty tuple); anything else stays dynamic.
  auto omitted = [](const Expr& e) {
    const auto* t = e.as<TupleNode>();
    return t != nullptr && t->fields.empty();
  };
  std::optional<std::vector<double>> roi, scales;
  std::optional<Ints> sizes;
  if (!omitted(call->args[1]) && !(roi = ConstFloats(call->args[1]))) return Expr();
  if (!omitted(call->args[2]) && !(scales = ConstFloats(call->args[2]))) return Expr();
  if (!omitted(call->args[3]) && !(sizes = ConstInts(call->args[3], /*allow_float=*/true))) return Expr();
  Ints shape, axes;
  for (const Any& d : data->shape) shape.push_back(d.as<int64_t>().value_or(-1));
  for (int64_t a : old->axes) axes.push_back(a);
  std::optional<Ints> size;
  try {
    size = topi::ResizeStaticOutputSize(shape, axes, roi ? &*roi : nullptr, scales ? &*scales : nullptr,
                                        sizes ? &*sizes : nullptr,
                                        topi::ParseResizePolicy(old->keep_aspect_ratio_policy, "DynamicToStatic"),
                                        old->coordinate_transformation_mode == "tf_crop_and_resize", "DynamicToStatic");
  } catch (const runtime::Error&) {
    return Expr();
  }
  if (!size) return Expr();
  return Call(call->op, call->args,
              WithAttrFields(call->attrs, {{"output_size", Any(ToArray(*size))}}, "DynamicToStatic"));
}

/*! \brief Register rule(call, shapes) -> Expr (null: keep the call) as op_name's "FTVMLiteDynamicToStatic". */
template <typename F>
void SetRule(const std::string& op_name, F rule) {
  static constexpr const char* kAttr = "FTVMLiteDynamicToStatic";
  runtime::Function f([op_name, rule](runtime::PackedArgs args, Any* rv) {
    auto [call, context] = RuleArgs<DynamicToStaticContext>(kAttr, op_name, "DynamicToStaticContext", args);
    CheckRuleCallOf(kAttr, op_name, call);
    Expr out = rule(call.get(), &context->shapes);
    if (out.defined()) *rv = out;
  });
  // RegisterOrGet: this file may initialise before the op's own registration (static init order across files).
  ir::OpRegEntry::RegisterOrGet(op_name).set_attr(kAttr, f);
}

void RegisterRules() {
  SetRule("dyn.reshape", Reshape);
  SetRule("dyn.squeeze", Squeeze);
  SetRule("dyn.expand_dims", ExpandDims);
  SetRule("dyn.broadcast_to", BroadcastTo);
  SetRule("dyn.tile", Tile);
  SetRule("dyn.strided_slice", StridedSlice);
  SetRule("dyn.one_hot", OneHot);
  SetRule("dyn.topk", TopK);
  SetRule("dyn.nn.pad", [](const CallNode* call, ShapeValueEvaluator*) { return Pad(call); });
  SetRule("dyn.full", Full);
  SetRule("dyn.nn.col2im", Col2Im);
  SetRule("dyn.nn.max_unpool1d",
          [](const CallNode* call, ShapeValueEvaluator*) { return MaxUnpool<1>(call, "nn.max_unpool1d"); });
  SetRule("dyn.nn.max_unpool2d",
          [](const CallNode* call, ShapeValueEvaluator*) { return MaxUnpool<2>(call, "nn.max_unpool2d"); });
  SetRule("dyn.nn.max_unpool3d",
          [](const CallNode* call, ShapeValueEvaluator*) { return MaxUnpool<3>(call, "nn.max_unpool3d"); });
  SetRule("image.resize", [](const CallNode* call, ShapeValueEvaluator*) { return StaticResize(call); });
  for (const char* scan : {"cumsum", "cumprod"}) {
    const std::string name = scan;
    SetRule("dyn." + name, [name](const CallNode* call, ShapeValueEvaluator*) { return Scan(call, name); });
  }
  // The reductions registered in pairs by TVMLITE_REGISTER_REDUCE_OP (reduce.cc); test_op_facts.py checks that
  // every dyn.* op has a rule.
  for (const char* reduce :
       {"sum", "mean", "max", "min", "prod", "logsumexp", "log_sum", "l1_norm", "l2_norm", "sum_square"}) {
    const std::string name = reduce;
    SetRule("dyn." + name, [name](const CallNode* call, ShapeValueEvaluator*) { return Reduce(call, name); });
  }
}

TVMLITE_STATIC_INIT_BLOCK({ RegisterRules(); });

}  // namespace
}  // namespace relay
}  // namespace tvmlite
