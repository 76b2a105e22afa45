/*!
 * \file shape_value.cc
 * \brief ShapeValueEvaluator: shape computations followed as dims at build time (shape_value.h says why).
 */
#include "shape_value.h"

#include <tvmlite/relay/attrs/cast.h>
#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/type_rel.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tvmlite {
namespace relay {

namespace {

using Ints = std::vector<int64_t>;

// A shape value is short (a shape, a few indices): longer tensors are not followed.
constexpr size_t kMaxEntries = 64;

/*! \brief Whether e is typed as a rank-0 or rank-1 integer tensor of at most kMaxEntries entries. */
bool IsSmallIntTensor(const Expr& e) {
  const TensorTypeNode* t = TensorTypeOf(e);
  if (t == nullptr || !(t->dtype.is_int() || t->dtype.is_uint() || t->dtype.is_bool()) || t->ndim() > 1) return false;
  if (t->ndim() == 0) return true;
  std::optional<int64_t> n = t->static_dim(0);
  return n.has_value() && static_cast<size_t>(*n) <= kMaxEntries;
}

std::optional<int64_t> StaticOf(const Any& dim) {
  return dim.type_index() == kTVMLiteInt ? std::optional<int64_t>(dim.cast<int64_t>()) : std::nullopt;
}

/*! \brief a op b on ints; nullopt on overflow or division by zero (left to run time). */
std::optional<int64_t> Arith(const std::string& op, int64_t a, int64_t b) {
  int64_t r;
  if (op == "add") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "subtract") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "multiply") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "maximum") return std::max(a, b);
  if (op == "minimum") return std::min(a, b);
  if (op == "floor_divide") {
    if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }
  return std::nullopt;
}

/*! \brief a op b on sums of dims where it stays one (add, subtract, a multiple); nullopt otherwise. */
std::optional<Affine> SumOp(const std::string& op, const std::optional<Affine>& a, const std::optional<Affine>& b) {
  if (!a || !b) return std::nullopt;
  if (op == "add" || op == "subtract") return Affine::AddScaled(*a, *b, op == "add" ? 1 : -1);
  if (op == "multiply" && (a->IsConst() || b->IsConst())) {
    return a->IsConst() ? Affine::AddScaled(Affine(), *b, a->c) : Affine::AddScaled(Affine(), *a, b->c);
  }
  return std::nullopt;
}

/*! \brief Whether a dim is a SizeVar: a tensor's dim, never negative. */
bool IsDimVar(const Any& d) { return d.as<SizeVar>().has_value(); }

/*! \brief The symbolic operand kept by a op b when b is static and the identity of op (x + 0, x * 1, ...). */
bool IsRightIdentity(const std::string& op, int64_t b) {
  return ((op == "add" || op == "subtract") && b == 0) || ((op == "multiply" || op == "floor_divide") && b == 1);
}

}  // namespace

/*! \brief The values of a constant integer (or, with allow_float, float: truncated as Python's int()) CPU tensor,
 * flattened; nullopt when e is not such a constant. */
std::optional<Ints> ConstInts(const Expr& e, bool allow_float) {
  const auto* c = e.as<ConstantNode>();
  if (c == nullptr) return std::nullopt;
  const NDArray& a = c->data;
  const DLTensor& t = a->tensor;
  if (t.device.device_type != kDLCPU || !a.IsContiguous() || t.dtype.lanes != 1) return std::nullopt;
  int64_t n = a.NumElements();
  const char* p = static_cast<const char*>(t.data) + t.byte_offset;
  DataType dt = a.dtype();
  Ints out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (dt.is_int()) {
      switch (dt.bits()) {
        case 8: out[i] = reinterpret_cast<const int8_t*>(p)[i]; break;
        case 16: out[i] = reinterpret_cast<const int16_t*>(p)[i]; break;
        case 32: out[i] = reinterpret_cast<const int32_t*>(p)[i]; break;
        case 64: out[i] = reinterpret_cast<const int64_t*>(p)[i]; break;
        default: return std::nullopt;
      }
    } else if (dt.is_uint() || dt.is_bool()) {
      uint64_t v;
      switch (dt.bits()) {
        case 8: v = reinterpret_cast<const uint8_t*>(p)[i]; break;
        case 16: v = reinterpret_cast<const uint16_t*>(p)[i]; break;
        case 32: v = reinterpret_cast<const uint32_t*>(p)[i]; break;
        case 64: v = reinterpret_cast<const uint64_t*>(p)[i]; break;
        default: return std::nullopt;
      }
      if (v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
      out[i] = static_cast<int64_t>(v);
    } else if (allow_float && dt.is_float() && (dt.bits() == 32 || dt.bits() == 64)) {
      double v = dt.bits() == 32 ? reinterpret_cast<const float*>(p)[i] : reinterpret_cast<const double*>(p)[i];
      if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) return std::nullopt;
      out[i] = static_cast<int64_t>(v);  // truncation toward zero, as int() in the references
    } else {
      return std::nullopt;
    }
  }
  return out;
}


std::optional<Affine> Affine::OfDim(const Any& dim) {
  if (std::optional<int64_t> v = StaticOf(dim)) return Const(*v);
  if (IsDimVar(dim)) return Affine{0, {{dim, 1}}};
  return std::nullopt;
}

std::optional<Affine> Affine::AddScaled(const Affine& a, const Affine& b, int64_t k) {
  Affine out = a;
  int64_t kc;
  if (__builtin_mul_overflow(b.c, k, &kc) || __builtin_add_overflow(out.c, kc, &out.c)) return std::nullopt;
  for (const auto& [dim, coef] : b.terms) {
    int64_t kt;
    if (__builtin_mul_overflow(coef, k, &kt)) return std::nullopt;
    auto it = std::find_if(out.terms.begin(), out.terms.end(), [&](const auto& t) { return DimEqual(t.first, dim); });
    if (it == out.terms.end()) {
      out.terms.emplace_back(dim, kt);
      it = out.terms.end() - 1;
    } else if (__builtin_add_overflow(it->second, kt, &it->second)) {
      return std::nullopt;
    }
    if (it->second == 0) out.terms.erase(it);
  }
  return out;
}

bool Affine::NonNegative() const {
  return c >= 0 && std::all_of(terms.begin(), terms.end(), [](const auto& t) { return t.second >= 0; });
}

std::optional<Any> Affine::SingleDim() const {
  if (c != 0 || terms.size() != 1 || terms[0].second != 1) return std::nullopt;
  return terms[0].first;
}

bool Affine::operator==(const Affine& o) const {
  std::optional<Affine> d = AddScaled(*this, o, -1);
  return d && d->c == 0 && d->terms.empty();
}

std::optional<Ints> ShapeValue::StaticValues() const {
  Ints out;
  for (const Any& d : dims) {
    std::optional<int64_t> v = StaticOf(d);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

namespace {
/*! \brief Whether a dim is a fresh unknown ("?"): equal only to itself. */
bool IsAnonymous(const Any& d) {
  std::optional<SizeVar> v = d.as<SizeVar>();
  return v && (*v)->name_hint == "?";
}
}  // namespace

std::optional<Affine> ShapeValueEvaluator::SumOf(const Any& dim) const {
  if (IsAnonymous(dim)) {
    for (const auto& [sum, place] : sums_) {
      if (DimEqual(place.second, dim)) return sum;
    }
  }
  return Affine::OfDim(dim);
}

bool ShapeValueEvaluator::SameDims(const Any& a, const Any& b) const {
  if (DimEqual(a, b)) return true;
  std::optional<Affine> sa = SumOf(a), sb = SumOf(b);
  return sa && sb && *sa == *sb;
}

bool ShapeValueEvaluator::Same(const ShapeValue& v, size_t i, const Any& dim) const {
  if (DimEqual(v.dims[i], dim)) return true;
  std::optional<Affine> s = SumOf(dim);
  return v.sums[i] && s && *v.sums[i] == *s;
}

std::optional<DimSource> ShapeValueEvaluator::Locate(const Affine& sum) const {
  for (const auto& [s, place] : sums_) {
    if (s == sum) return place.first;
  }
  if (std::optional<Any> d = sum.SingleDim()) {
    for (const auto& [dim, source] : dim_sources_) {
      if (DimEqual(dim, *d)) return source;
    }
  }
  return std::nullopt;
}

Any ShapeValueEvaluator::DimFor(const Affine& sum) const {
  if (sum.IsConst()) return Any(sum.c);
  if (std::optional<Any> d = sum.SingleDim()) return *d;
  for (const auto& [s, place] : sums_) {
    if (s == sum) return place.second;
  }
  return Any();
}

DimSource ShapeValueEvaluator::NoteSum(const Expr& tensor, int64_t axis, const Affine& sum) {
  const Any& dim = TensorTypeOf(tensor)->shape[axis];
  std::optional<DimSource> first;
  bool known = false;
  for (const auto& [s, place] : sums_) {
    if (!first && s == sum) first = place.first;
    known = known || DimEqual(place.second, dim);
  }
  if (!known) sums_.push_back({sum, {DimSource{tensor, axis}, dim}});  // later ones: their "?" is the sum too
  return first ? *first : sums_.back().second.first;
}

void ShapeValueEvaluator::NoteSource(const Any& dim, const DimSource& source) {
  if (!IsDimVar(dim) || IsAnonymous(dim)) return;  // a "?" is found by its sum
  for (const auto& [d, s] : dim_sources_) {
    if (DimEqual(d, dim)) return;
  }
  dim_sources_.emplace_back(dim, source);
}

void ShapeValueEvaluator::PushSum(ShapeValue* out, const std::optional<Affine>& sum) const {
  if (!sum) {
    out->Push(Any());
    return;
  }
  std::optional<DimSource> place = Locate(*sum);
  out->Push(DimFor(*sum), place ? *place : DimSource(), sum);
}

const ShapeValue* ShapeValueEvaluator::Eval(const Expr& e) {
  auto it = memo_.find(e.get());
  if (it == memo_.end()) {
    std::optional<ShapeValue> v = IsSmallIntTensor(e) ? Compute(e) : std::nullopt;
    it = memo_.emplace(e.get(), std::make_pair(e, std::move(v))).first;
  }
  return it->second.second ? &*it->second.second : nullptr;
}

std::optional<ShapeValue> ShapeValueEvaluator::Compute(const Expr& e) {
  const TensorTypeNode* type = TensorTypeOf(e);
  ShapeValue out;
  out.scalar = type->ndim() == 0;
  if (e.as<ConstantNode>()) {
    std::optional<Ints> v = ConstInts(e);
    if (!v) return std::nullopt;
    for (int64_t x : *v) out.Push(Any(x));
    return out;
  }
  const auto* call = e.as<CallNode>();
  const auto* op = call ? call->op.as<OpNode>() : nullptr;
  if (op == nullptr) return std::nullopt;
  const std::string& name = op->name;
  const Array<Expr>& args = call->args;
  if (name == "shape_of") {
    const TensorTypeNode* x = TensorTypeOf(args[0]);
    if (x == nullptr) return std::nullopt;
    for (size_t i = 0; i < x->ndim(); ++i) {
      DimSource source{args[0], static_cast<int64_t>(i)};
      NoteSource(x->shape[i], source);
      out.Push(x->shape[i], source, SumOf(x->shape[i]));
    }
    return out;
  }
  if (name == "concatenate") {
    const auto* tuple = args[0].as<TupleNode>();
    if (tuple == nullptr) return std::nullopt;
    for (const Expr& f : tuple->fields) {
      const ShapeValue* v = Eval(f);
      if (v == nullptr || v->scalar) return std::nullopt;
      for (size_t i = 0; i < v->dims.size(); ++i) out.Push(*v, i);
    }
    return out;
  }
  if (name == "equal" || name == "where") return Select(name, args);
  if (name == "add" || name == "subtract" || name == "multiply" || name == "floor_divide" || name == "maximum" ||
      name == "minimum") {
    return Elementwise(name, args);
  }
  // The rest rearrange one value.
  const ShapeValue* in = args.empty() ? nullptr : Eval(args[0]);
  if (in == nullptr) return std::nullopt;
  if (name == "negative") {
    for (size_t i = 0; i < in->dims.size(); ++i) {
      PushSum(&out, in->sums[i] ? Affine::AddScaled(Affine(), *in->sums[i], -1) : std::nullopt);
    }
    return out;
  }
  if (name == "cast" || name == "expand_dims" || name == "squeeze" || name == "reshape") {
    out.dims = in->dims;  // the same entries in rank 0 or 1 (the type says which); casts between integers
    out.sources = in->sources;
    out.sums = in->sums;
    return out.dims.size() == (out.scalar ? 1 : static_cast<size_t>(*type->static_dim(0))) ? std::optional(out)
                                                                                          : std::nullopt;
  }
  if (name == "take") {
    const auto* a = call->attrs.as<TakeAttrs>();
    const ShapeValue* idx = Eval(args[1]);
    std::optional<Ints> indices = idx ? idx->StaticValues() : std::nullopt;
    if (a == nullptr || in->scalar || a->batch_dims != 0 || !indices) return std::nullopt;
    int64_t n = static_cast<int64_t>(in->dims.size());
    for (int64_t i : *indices) {
      if (a->mode == "fast" && i < 0) i += n;
      if (i < 0 || i >= n) return std::nullopt;  // clip / wrap modes and errors: left to run time
      out.Push(*in, static_cast<size_t>(i));
    }
    return out;
  }
  if (name == "strided_slice") {
    const auto* a = call->attrs.as<StridedSliceAttrs>();
    if (a == nullptr || in->scalar || a->slice_mode != "end" || a->begin.size() != 1 || a->end.size() != 1) {
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
    return out.dims.size() == static_cast<size_t>(*type->static_dim(0)) ? std::optional(out) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<ShapeValue> ShapeValueEvaluator::Select(const std::string& op, const Array<Expr>& args) {
  // Exporters write Expand's target as where(shape == -1, 1, shape) (torch's expand(-1, ...)): a dim is never
  // negative, so a SizeVar compared with a negative constant is false.
  std::vector<const ShapeValue*> in;
  size_t n = 1;
  for (const Expr& a : args) {
    in.push_back(Eval(a));
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
    if (op == "equal") {
      std::optional<int64_t> sa = StaticOf(a), sb = StaticOf(b);
      if (sa && sb) {
        out.Push(Any(int64_t(*sa == *sb)));
      } else if ((IsDimVar(a) && sb && *sb < 0) || (IsDimVar(b) && sa && *sa < 0)) {
        out.Push(Any(int64_t(0)));
      } else if (IsDimVar(a) && IsDimVar(b) && DimEqual(a, b)) {
        out.Push(Any(int64_t(1)));
      } else if (const auto &ua = in[0]->sums[at(0, i)], &ub = in[1]->sums[at(1, i)]; ua && ub) {
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

std::optional<ShapeValue> ShapeValueEvaluator::Elementwise(const std::string& op, const Array<Expr>& args) {
  const ShapeValue* a = Eval(args[0]);
  const ShapeValue* b = Eval(args[1]);
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
    } else if (sx && !sy && ((op == "add" && *sx == 0) || (op == "multiply" && *sx == 1))) {
      out.Push(*b, ib);
    } else {
      PushSum(&out, SumOp(op, a->sums[ia], b->sums[ib]));  // past + seq; unknown: batch * 12
    }
  }
  return out;
}

}  // namespace relay
}  // namespace tvmlite
