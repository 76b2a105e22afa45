/*!
 * \file type_rel.cc
 * \brief Helpers shared by the type relations (tvmlite/relay/type_rel.h).
 */
#include <tvmlite/relay/type_rel.h>

#include <sstream>

namespace tvmlite {
namespace relay {

void CheckNumArgs(const Array<Type>& args, size_t n) {
  TVMLITE_CHECK_KIND(args.size() == n, TypeError) << "expected " << n << " inputs, got " << args.size();
}

const TensorTypeNode* TensorArg(const Array<Type>& args, size_t i) {
  TVMLITE_CHECK_KIND(i < args.size(), TypeError) << "expected at least " << i + 1 << " inputs, got " << args.size();
  Type t = args[i];
  const auto* tt = t.as<TensorTypeNode>();
  TVMLITE_CHECK_KIND(tt != nullptr, TypeError) << "input " << i << " must be a tensor, got " << TypeToString(t);
  return tt;  // args holds the type alive for the relation's duration
}

void CheckOneOf(const std::string& what, const std::string& value, std::initializer_list<const char*> allowed) {
  for (const char* a : allowed) {
    if (value == a) return;
  }
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  TVMLITE_THROW(ValueError) << what << " must be one of " << list << ", got '" << value << "'";
}

bool DimEqual(const Any& a, const Any& b) {
  if (a.type_index() == kTVMLiteInt && b.type_index() == kTVMLiteInt) return a.cast<int64_t>() == b.cast<int64_t>();
  std::optional<SizeVar> va = a.as<SizeVar>(), vb = b.as<SizeVar>();
  if (!va || !vb) return false;
  if (va->same_as(*vb)) return true;
  return (*va)->name_hint != "?" && (*va)->name_hint == (*vb)->name_hint;
}

std::string ShapeToString(const Array<Any>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << DimToString(shape[i]);
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

Array<Any> BroadcastShapes(const Array<Any>& a, const Array<Any>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<Any> out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right; a missing dim is 1.
    Any da = i < n - a.size() ? Any(int64_t(1)) : a[i - (n - a.size())];
    Any db = i < n - b.size() ? Any(int64_t(1)) : b[i - (n - b.size())];
    if (DimIs(da, 1)) {
      out[i] = db;
    } else if (DimIs(db, 1) || DimEqual(da, db)) {
      out[i] = da;
    } else if (da.type_index() != kTVMLiteInt && db.type_index() != kTVMLiteInt) {
      // Two different symbolic dims: either may be 1 at run time (a batch-1 position embedding added to (batch,
      // seq, C)), so the result is neither: a fresh one.
      out[i] = Any(SizeVar::Any());
    } else if (da.type_index() != kTVMLiteInt) {
      out[i] = db;  // a symbolic dim against a static one: the static one, checked at run time
    } else if (db.type_index() != kTVMLiteInt) {
      out[i] = da;
    } else {
      TVMLITE_THROW(ValueError) << "shapes " << ShapeToString(a) << " and " << ShapeToString(b)
                                << " do not broadcast (dim " << i << ": " << DimToString(da) << " vs "
                                << DimToString(db) << ")";
    }
  }
  return Array<Any>(out);
}

DataType MatchDtype(const TensorTypeNode* a, const TensorTypeNode* b) {
  TVMLITE_CHECK_KIND(a->dtype == b->dtype, TypeError)
      << "dtypes differ: " << a->dtype.str() << " vs " << b->dtype.str();
  return a->dtype;
}

int64_t NormalizeAxis(int64_t axis, int64_t ndim) {
  TVMLITE_CHECK_KIND(axis >= -ndim && axis < std::max<int64_t>(ndim, 1), IndexError)
      << "axis " << axis << " is out of range for rank " << ndim << " (valid: [" << -ndim << ", "
      << std::max<int64_t>(ndim, 1) - 1 << "])";
  return axis < 0 ? axis + ndim : axis;
}

Any DimProduct(const std::vector<Any>& dims) {
  int64_t p = 1;
  for (const Any& d : dims) {
    if (d.type_index() != kTVMLiteInt) return Any(SizeVar::Any());
    TVMLITE_CHECK_KIND(!__builtin_mul_overflow(p, d.cast<int64_t>(), &p), ValueError)
        << "the product of the dims overflows int64";
  }
  return Any(p);
}

}  // namespace relay
}  // namespace tvmlite
