/*!
 * \file shape_value_rules.cc
 * \brief The ops' "FTVMLiteShapeValue" rules (shape_value_rule.h): how a call of each integer op exporters use on
 * shapes computes its value as dims from its inputs' (shape_value.h says why). The evaluator asks an op for its
 * rule; it names no op.
 *
 *   shape_of                       the input's dims, each noted as read there (Locate finds it)
 *   concatenate                    the fields' entries in order
 *   equal, where                   compared / selected entry by entry (a dim is never negative)
 *   add, subtract, multiply,       int64 arithmetic on static entries, identities (x + 0, x * 1, x // 1) on
 *   floor_divide, maximum, minimum symbolic ones, sums of dims where they stay sums (past + seq)
 *   negative                       the negated sums
 *   cast, expand_dims, squeeze,    the same entries (rank 0 or 1, as the type says)
 *   reshape
 *   take                           the entries at static in-range indices
 *   strided_slice                  the entries of a 1-D slice
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "rule_args.h"
#include "shape_value_rule.h"

namespace tvmlite {
namespace relay {
namespace {

using Ints = std::vector<int64_t>;

/*! \brief The int64 arithmetic of a binary op's rule (its registration names it). */
enum class Arithmetic { kAdd, kSubtract, kMultiply, kFloorDivide, kMaximum, kMinimum };

/*! \brief a op b on ints; nullopt on overflow or division by zero (left to run time). */
std::optional<int64_t> Arith(Arithmetic op, int64_t a, int64_t b) {
  int64_t r;
  switch (op) {
    case Arithmetic::kAdd: return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
    case Arithmetic::kSubtract: return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
    case Arithmetic::kMultiply: return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
    case Arithmetic::kMaximum: return std::max(a, b);
    case Arithmetic::kMinimum: return std::min(a, b);
    case Arithmetic::kFloorDivide: {
      if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
      int64_t q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    }
  }
  return std::nullopt;
}

/*! \brief a op b on sums of dims where it stays one (add, subtract, a multiple); nullopt otherwise. */
std::optional<Affine> SumOp(Arithmetic op, const std::optional<Affine>& a, const std::optional<Affine>& b) {
  if (!a || !b) return std::nullopt;
  if (op == Arithmetic::kAdd || op == Arithmetic::kSubtract) {
    return Affine::AddScaled(*a, *b, op == Arithmetic::kAdd ? 1 : -1);
  }
  if (op == Arithmetic::kMultiply && (a->IsConst() || b->IsConst())) {
    return a->IsConst() ? Affine::AddScaled(Affine(), *b, a->c) : Affine::AddScaled(Affine(), *a, b->c);
  }
  return std::nullopt;
}

/*! \brief The symbolic operand kept by a op b when b is static and the identity of op (x + 0, x * 1, ...). */
bool IsRightIdentity(Arithmetic op, int64_t b) {
  return ((op == Arithmetic::kAdd || op == Arithmetic::kSubtract) && b == 0) ||
         ((op == Arithmetic::kMultiply || op == Arithmetic::kFloorDivide) && b == 1);
}

std::optional<ShapeValue> Elementwise(Arithmetic op, const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue) {
  const Array<Expr>& args = call->args;
  const ShapeValue* a = shapes->Eval(args[0]);
  const ShapeValue* b = shapes->Eval(args[1]);
  if (a == nullptr || b == nullptr) return std::nullopt;
  size_t n = std::max(a->dims.size(), b->dims.size());
  if ((a->dims.size() != n && a->dims.size() != 1) || (b->dims.size() != n && b->dims.size() != 1)) {
    return std::nullopt;
  }
  ShapeValue out;
  out.scalar = a->scalar && b->scalar;
  for (size_t i = 0; i < n; ++i) {
    const size_t ia = a->dims.size() == 1 ? 0 : i, ib = b->dims.size() == 1 ? 0 : i;
    const Any &x = a->dims[ia], &y = b->dims[ib];
    std::optional<int64_t> sx = StaticOf(x), sy = StaticOf(y);
    std::optional<int64_t> r = sx && sy ? Arith(op, *sx, *sy) : std::nullopt;
    if (r) {
      out.Push(Any(*r));
    } else if (!sx && sy && IsRightIdentity(op, *sy)) {
      out.Push(*a, ia);
    } else if (sx && !sy && ((op == Arithmetic::kAdd && *sx == 0) || (op == Arithmetic::kMultiply && *sx == 1))) {
      out.Push(*b, ib);
    } else {
      shapes->PushSum(&out, SumOp(op, a->sums[ia], b->sums[ib]));  // past + seq; unknown: batch * 12
    }
  }
  return out;
}

std::optional<ShapeValue> Select(bool equal, const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue) {
  const Array<Expr>& args = call->args;
  // Exporters write Expand's target as where(shape == -1, 1, shape) (torch's expand(-1, ...)): a dim is never
  // negative, so a SizeVar compared with a negative constant is false.
  std::vector<const ShapeValue*> in;
  size_t n = 1;
  for (const Expr& a : args) {
    in.push_back(shapes->Eval(a));
    if (in.back() == nullptr) return std::nullopt;
    n = std::max(n, in.back()->dims.size());
  }
  ShapeValue out;
  out.scalar = true;
  for (const ShapeValue* v : in) {
    if (v->dims.size() != n && v->dims.size() != 1) return std::nullopt;
    out.scalar = out.scalar && v->scalar;
  }
  auto at = [&](size_t k, size_t i) { return in[k]->dims.size() == 1 ? size_t(0) : i; };
  for (size_t i = 0; i < n; ++i) {
    const Any &a = in[0]->dims[at(0, i)], &b = in[1]->dims[at(1, i)];
    if (equal) {
      std::optional<int64_t> sa = StaticOf(a), sb = StaticOf(b);
      if (sa && sb) {
        out.Push(Any(int64_t(*sa == *sb)));
      } else if ((IsDimVar(a) && sb && *sb < 0) || (IsDimVar(b) && sa && *sa < 0)) {
        out.Push(Any(int64_t(0)));
      } else if (IsDimVar(a) && IsDimVar(b) && DimEqual(a, b)) {
        out.Push(Any(int64_t(1)));
      } else if (const auto& ua = in[0]->sums[at(0, i)], &ub = in[1]->sums[at(1, i)]; ua && ub) {
        // Sums of dims: equal ones are equal; a never-negative one is not a negative constant.
        std::optional<Affine> d = Affine::AddScaled(*ua, *ub, -1);
        if (d && d->IsConst()) {
          out.Push(Any(int64_t(d->c == 0)));
        } else if ((ua->NonNegative() && ub->IsConst() && ub->c < 0) ||
                   (ub->NonNegative() && ua->IsConst() && ua->c < 0)) {
          out.Push(Any(int64_t(0)));
        } else {
          out.Push(Any());
        }
      } else {
        out.Push(Any());
      }
      continue;
    }
    std::optional<int64_t> cond = StaticOf(a);  // where(cond, x, y)
    if (!cond) {
      out.Push(Any());
    } else {
      size_t k = *cond ? 1 : 2;
      out.Push(*in[k], at(k, i));
    }
  }
  return out;
}

std::optional<ShapeValue> ShapeOf(const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
  const Expr& x = call->args[0];
  const TensorTypeNode* t = TensorTypeOf(x);
  if (t == nullptr) return std::nullopt;
  for (size_t i = 0; i < t->ndim(); ++i) {
    DimSource source{x, static_cast<int64_t>(i)};
    shapes->NoteSource(t->shape[i], source);
    out.Push(t->shape[i], source, shapes->SumOf(t->shape[i]));
  }
  return out;
}

std::optional<ShapeValue> Concatenate(const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
  const auto* tuple = call->args[0].as<TupleNode>();
  if (tuple == nullptr) return std::nullopt;
  for (const Expr& f : tuple->fields) {
    const ShapeValue* v = shapes->Eval(f);
    if (v == nullptr || v->scalar) return std::nullopt;
    for (size_t i = 0; i < v->dims.size(); ++i) out.Push(*v, i);
  }
  return out;
}

std::optional<ShapeValue> Negative(const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
  const ShapeValue* in = shapes->Eval(call->args[0]);
  if (in == nullptr) return std::nullopt;
  for (size_t i = 0; i < in->dims.size(); ++i) {
    shapes->PushSum(&out, in->sums[i] ? Affine::AddScaled(Affine(), *in->sums[i], -1) : std::nullopt);
  }
  return out;
}

/*! \brief cast (between integers), expand_dims, squeeze, reshape: the same entries in rank 0 or 1. */
std::optional<ShapeValue> SameEntries(const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
  const ShapeValue* in = shapes->Eval(call->args[0]);
  if (in == nullptr) return std::nullopt;
  out.dims = in->dims;
  out.sources = in->sources;
  out.sums = in->sums;
  const auto* type = call->checked_type_.as<TensorTypeNode>();  // typed: SetRule checked
  return out.dims.size() == (out.scalar ? 1 : static_cast<size_t>(*type->static_dim(0))) ? std::optional(out)
                                                                                         : std::nullopt;
}

std::optional<ShapeValue> Take(const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
  const ShapeValue* in = shapes->Eval(call->args[0]);
  const auto* a = call->attrs.as<TakeAttrs>();
  const ShapeValue* idx = in != nullptr && call->args.size() > 1 ? shapes->Eval(call->args[1]) : nullptr;
  std::optional<Ints> indices = idx ? idx->StaticValues() : std::nullopt;
  if (a == nullptr || in == nullptr || in->scalar || a->batch_dims != 0 || !indices) return std::nullopt;
  int64_t n = static_cast<int64_t>(in->dims.size());
  for (int64_t i : *indices) {
    if (a->mode == "fast" && i < 0) i += n;
    if (i < 0 || i >= n) return std::nullopt;  // clip / wrap modes and errors: left to run time
    out.Push(*in, static_cast<size_t>(i));
  }
  return out;
}

std::optional<ShapeValue> StridedSlice(const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
  const ShapeValue* in = shapes->Eval(call->args[0]);
  const auto* a = call->attrs.as<StridedSliceAttrs>();
  if (in == nullptr || a == nullptr || in->scalar || a->slice_mode != "end" || a->begin.size() != 1 ||
      a->end.size() != 1) {
    return std::nullopt;
  }
  if (a->axes.has_value() && !(a->axes->size() == 1 && ((*a->axes)[0] == 0 || (*a->axes)[0] == -1))) {
    return std::nullopt;
  }
  int64_t n = static_cast<int64_t>(in->dims.size());
  int64_t step = a->strides.empty() ? 1 : a->strides[0];
  if (step == 0) return std::nullopt;
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v < 0 ? v + n : v, lo), hi); };
  int64_t begin = step > 0 ? clamp(a->begin[0], 0, n) : clamp(a->begin[0], -1, n - 1);
  int64_t end = step > 0 ? clamp(a->end[0], 0, n) : clamp(a->end[0], -1, n - 1);
  for (int64_t i = begin; step > 0 ? i < end : i > end; i += step) out.Push(*in, static_cast<size_t>(i));
  const auto* type = call->checked_type_.as<TensorTypeNode>();  // typed: SetRule checked
  return out.dims.size() == static_cast<size_t>(*type->static_dim(0)) ? std::optional(out) : std::nullopt;
}

/*!
 * \brief Register rule(call, shapes, out) -> the call's value (out: empty, scalar as the call's type says), or
 * nullopt (unknown), as op_name's "FTVMLiteShapeValue".
 */
template <typename F>
void SetRule(const std::string& op_name, F rule) {
  static constexpr const char* kAttr = "FTVMLiteShapeValue";
  runtime::Function f([op_name, rule](runtime::PackedArgs args, Any* rv) {
    auto [call, context] = RuleArgs<ShapeValueContext>(kAttr, op_name, "ShapeValueContext", args);
    TVMLITE_CHECK_KIND(context->shapes != nullptr, ValueError)
        << "FTVMLiteShapeValue of " << op_name << ": the context is used after the rule it was given to returned";
    // Any op's call of as many args (a rule set from Python may reuse this one for another op); attrs are checked
    // where read.
    const int64_t inputs = ir::Op::Get(op_name)->num_inputs;
    const size_t n = call->args.size();
    TVMLITE_CHECK_KIND(
        call->op.as<OpNode>() != nullptr && (inputs < 0 || n == size_t(inputs)) && IsShapeValueTensor(call), ValueError)
        << "FTVMLiteShapeValue of " << op_name << ": expected a typed call of " << inputs
        << " args with a small integer result, got one of " << n << " args";
    ShapeValue out;
    out.scalar = TensorTypeOf(call)->ndim() == 0;
    std::optional<ShapeValue> value = rule(call.get(), context->shapes, std::move(out));
    if (!value) return;
    ObjectPtr<ShapeValueObj> result = make_object<ShapeValueObj>();
    result->value = std::move(*value);
    *rv = ShapeValueRef(result);
  });
  // RegisterOrGet: this file may initialise before the op's own registration (static init order across files).
  ir::OpRegEntry::RegisterOrGet(op_name).set_attr(kAttr, f);
}

void RegisterRules() {
  SetRule("shape_of", ShapeOf);
  SetRule("concatenate", Concatenate);
  SetRule("negative", Negative);
  for (const char* name : {"cast", "expand_dims", "squeeze", "reshape"}) SetRule(name, SameEntries);
  SetRule("take", Take);
  SetRule("strided_slice", StridedSlice);
  for (bool equal : {true, false}) {
    SetRule(equal ? "equal" : "where", [equal](const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
      return Select(equal, call, shapes, std::move(out));
    });
  }
  const std::pair<const char*, Arithmetic> binary[] = {
      {"add", Arithmetic::kAdd},           {"subtract", Arithmetic::kSubtract},
      {"multiply", Arithmetic::kMultiply}, {"floor_divide", Arithmetic::kFloorDivide},
      {"maximum", Arithmetic::kMaximum},   {"minimum", Arithmetic::kMinimum}};
  for (const auto& [name, op] : binary) {
    const Arithmetic arithmetic = op;
    SetRule(name, [arithmetic](const CallNode* call, ShapeValueEvaluator* shapes, ShapeValue out) {
      return Elementwise(arithmetic, call, shapes, std::move(out));
    });
  }
}

TVMLITE_STATIC_INIT_BLOCK({ RegisterRules(); });

}  // namespace
}  // namespace relay
}  // namespace tvmlite
