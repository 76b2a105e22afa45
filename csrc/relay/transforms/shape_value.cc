/*!
 * \file shape_value.cc
 * \brief ShapeValueEvaluator: shape computations followed as dims at build time (shape_value.h says why).
 */
#include "shape_value.h"

#include "shape_value_rule.h"

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

/*! \brief Whether a dim is a fresh unknown ("?"): equal only to itself. */
bool IsAnonymous(const Any& d) {
  std::optional<SizeVar> v = d.as<SizeVar>();
  return v && (*v)->name_hint == "?";
}

}  // namespace

bool IsShapeValueTensor(const Expr& e) {
  const TensorTypeNode* t = TensorTypeOf(e);
  if (t == nullptr || !(t->dtype.is_int() || t->dtype.is_uint() || t->dtype.is_bool()) || t->ndim() > 1) return false;
  if (t->ndim() == 0) return true;
  std::optional<int64_t> n = t->static_dim(0);
  return n.has_value() && static_cast<size_t>(*n) <= kMaxShapeValueEntries;
}

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
    std::optional<ShapeValue> v = IsShapeValueTensor(e) ? Compute(e) : std::nullopt;
    it = memo_.emplace(e.get(), std::make_pair(e, std::move(v))).first;
  }
  return it->second.second ? &*it->second.second : nullptr;
}

ShapeValueEvaluator::ShapeValueEvaluator() : rules_("FTVMLiteShapeValue") {}

std::optional<ShapeValue> ShapeValueEvaluator::Compute(const Expr& e) {
  if (e.as<ConstantNode>()) {
    std::optional<Ints> v = ConstInts(e);
    if (!v) return std::nullopt;
    ShapeValue out;
    out.scalar = TensorTypeOf(e)->ndim() == 0;
    for (int64_t x : *v) out.Push(Any(x));
    return out;
  }
  const auto* call = e.as<CallNode>();
  if (call == nullptr || call->op.as<OpNode>() == nullptr) return std::nullopt;
  const Op op = runtime::Downcast<Op>(call->op);
  return rules_.count(op) ? ApplyShapeValueRule(rules_[op], op, e, this) : std::nullopt;
}

TVMLITE_REGISTER_OBJECT_TYPE(ShapeValueContextNode);
TVMLITE_REGISTER_OBJECT_TYPE(ShapeValueObj);

std::optional<ShapeValue> ApplyShapeValueRule(const runtime::Function& rule, const Op& op, const Expr& call,
                                              ShapeValueEvaluator* shapes) {
  ObjectPtr<ShapeValueContextNode> context = make_object<ShapeValueContextNode>();
  context->shapes = shapes;
  struct Expire {  // the evaluator is only borrowed: a context the rule kept must not reach it later
    ShapeValueContextNode* context;
    ~Expire() { context->shapes = nullptr; }
  } expire{context.get()};
  const Any v = rule(call, ShapeValueContext(context));
  if (v.is_none()) return std::nullopt;
  std::optional<ShapeValueRef> value = v.as<ShapeValueRef>();
  TVMLITE_CHECK_KIND(value.has_value(), TypeError)
      << "FTVMLiteShapeValue of " << op->name << " must return a ShapeValue or None, got "
      << runtime::AnyTypeStr(*v.raw());
  const ShapeValue& out = (*value)->value;
  const TensorTypeNode* type = TensorTypeOf(call);
  const size_t entries = type->ndim() == 0 ? 1 : static_cast<size_t>(*type->static_dim(0));
  TVMLITE_CHECK_KIND(out.dims.size() == entries && out.scalar == (type->ndim() == 0), ValueError)
      << "FTVMLiteShapeValue of " << op->name << " gave " << out.dims.size() << (out.scalar ? " scalar" : "")
      << " entries for a tensor of shape " << ShapeToString(type->shape);
  return out;
}

}  // namespace relay
}  // namespace tvmlite
