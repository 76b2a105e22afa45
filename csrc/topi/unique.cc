/*!
 * \file unique.cc
 * \brief topi.unique (relay unique, ONNX Unique): the distinct elements of data, or its distinct slices along
 * axis, with where each first occurs, which one each element is, and how often each occurs. Their count depends
 * on the values, so the kernel makes and returns its four outputs (the protocol of MakeReturningKernel, kernel.h,
 * with four entries):
 *
 *   topi.unique({"sorted": 1, "axis": 0})   [y, first, inverse, counts] = run(data)
 *
 *   no axis: data flattened; y (u,)                    first (u,), inverse (data.size,), counts (u,): int64
 *   axis a:  slices data[..., k, ...] along a; y is data with dim a = u; inverse (data.shape[a],)
 *
 * Algorithm (numpy.unique, which the op's reference calls): a stable sort of the slice numbers by their elements
 * compared lexicographically in row-major order, then one walk grouping equal neighbours. The stable sort makes
 * each group's first member its first occurrence. sorted = 0 orders the groups by first occurrence instead.
 * Floats order NaN last and count every NaN as one value (numpy's equal_nan); -0.0 equals 0.0, y keeps the first.
 * dtypes: float32/64, int8..int64, uint8..uint64, bool; others are a TypeError (the build's reference runs them).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <type_traits>

#include "transform/injective.h"

namespace tvmlite {
namespace topi {
namespace {

constexpr DLDataType kInt64{kDLInt, 64, 1};

/*! \brief Element order: numeric, NaN after every number and equal to every NaN. */
template <typename T>
struct ElemOrder {
  static bool Less(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return a < b || (!std::isnan(a) && std::isnan(b));
    else return a < b;
  }
  static bool Equal(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return a == b || (std::isnan(a) && std::isnan(b));
    else return a == b;
  }
};

/*! \brief The groups of equal slices: first occurrence and count per group, group number per slice. */
struct Groups {
  std::vector<int64_t> first, counts, inverse;
};

/*! \brief Group n slices of x (slice k: elements x[(o * n + k) * inner + i], o < outer, i < inner). */
template <typename T>
Groups GroupSlices(const T* x, int64_t outer, int64_t n, int64_t inner, bool sorted) {
  using O = ElemOrder<T>;
  auto at = [=](int64_t k, int64_t o, int64_t i) { return x[(o * n + k) * inner + i]; };
  // -1, 0, 1 as slice a sorts before, with, after slice b.
  auto compare = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T va = at(a, o, i), vb = at(b, o, i);
        if (O::Equal(va, vb)) continue;
        return O::Less(va, vb) ? -1 : 1;
      }
    }
    return 0;
  };
  std::vector<int64_t> order(n);
  std::vector<T> vals;  // elements: the values in sorted order (the walk below reads them in sequence)
  if (outer == 1 && inner == 1) {
    // Elements, the common case: (value, index) pairs sorted in place (no indirection); the index breaks ties,
    // which makes the order the stable one.
    std::vector<std::pair<T, int64_t>> pairs(n);
    for (int64_t k = 0; k < n; ++k) pairs[k] = {x[k], k};
    std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
      return O::Less(a.first, b.first) || (!O::Less(b.first, a.first) && a.second < b.second);
    });
    vals.resize(n);
    for (int64_t k = 0; k < n; ++k) order[k] = pairs[k].second, vals[k] = pairs[k].first;
  } else {
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  }
  Groups g;
  g.inverse.resize(n);
  for (int64_t p = 0; p < n; ++p) {
    const int64_t k = order[p];
    const bool fresh =
        p == 0 || (outer == 1 && inner == 1 ? !O::Equal(vals[p - 1], vals[p]) : compare(order[p - 1], k) != 0);
    if (fresh) {
      g.first.push_back(k);
      g.counts.push_back(0);
    }
    g.counts.back() += 1;
    g.inverse[k] = static_cast<int64_t>(g.first.size()) - 1;
  }
  if (!sorted) {  // groups by first occurrence: first values are distinct, a plain sort of the group numbers
    const int64_t u = static_cast<int64_t>(g.first.size());
    std::vector<int64_t> perm(u), rank(u);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return g.first[a] < g.first[b]; });
    Groups r;
    r.first.resize(u);
    r.counts.resize(u);
    for (int64_t j = 0; j < u; ++j) {
      rank[perm[j]] = j;
      r.first[j] = g.first[perm[j]];
      r.counts[j] = g.counts[perm[j]];
    }
    r.inverse = std::move(g.inverse);
    for (int64_t& v : r.inverse) v = rank[v];
    return r;
  }
  return g;
}

/*! \brief Call f(T{}) for data's element type T; TypeError naming the kernel for other dtypes. */
template <typename F>
auto ByDType(DLDataType dt, const std::string& kName, const F& f) {
  const int bits = dt.lanes == 1 ? dt.bits : 0;
  if (dt.code == kDLFloat && bits == 32) return f(float{});
  if (dt.code == kDLFloat && bits == 64) return f(double{});
  if (dt.code == kDLInt && bits == 8) return f(int8_t{});
  if (dt.code == kDLInt && bits == 16) return f(int16_t{});
  if (dt.code == kDLInt && bits == 32) return f(int32_t{});
  if (dt.code == kDLInt && bits == 64) return f(int64_t{});
  if ((dt.code == kDLUInt || dt.code == kDLBool) && bits == 8) return f(uint8_t{});
  if (dt.code == kDLUInt && bits == 16) return f(uint16_t{});
  if (dt.code == kDLUInt && bits == 32) return f(uint32_t{});
  if (dt.code == kDLUInt && bits == 64) return f(uint64_t{});
  TVMLITE_THROW(TypeError) << kName << ": data of dtype " << runtime::DataType(dt).str() << " is not supported";
}

NDArray Int64Vector(const std::vector<int64_t>& v) {
  NDArray a = NDArray::Empty({static_cast<int64_t>(v.size())}, kInt64);
  if (!v.empty()) {
    std::memcpy(static_cast<char*>(a->tensor.data) + a->tensor.byte_offset, v.data(), v.size() * sizeof(int64_t));
  }
  return a;
}

TVMLITE_REGISTER_GLOBAL("topi.unique").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.unique";
  KernelAttrs attrs(kName, attrs_in);
  const bool sorted = attrs.GetInt("sorted", 1) != 0;
  const std::optional<int64_t> axis = attrs.Has("axis") ? std::optional<int64_t>(attrs.GetInt("axis")) : std::nullopt;
  attrs.CheckNoEpilogue();
  Function f([sorted, axis](runtime::PackedArgs args, Any* rv) {
    TVMLITE_CHECK_KIND(args.size() == 1, TypeError)
        << kName << ": expected 1 tensor argument (data), got " << args.size();
    KernelArgs kargs(&kName, args);
    TensorArg data = kargs.Input(0, "data");
    const std::vector<int64_t> shape = data.shape();
    // Slices along a (the whole tensor as n = size slices of one element without an axis).
    int a = -1;
    int64_t outer = 1, n = data.size(), inner = 1;
    if (axis) {
      TVMLITE_CHECK_KIND(data.ndim() > 0, ValueError) << kName << ": data is 0-d but an axis is given";
      a = injective::NormalizeAxis(*axis, data.ndim(), kName);
      outer = injective::Product(shape, 0, a);
      n = shape[a];
      inner = injective::Product(shape, a + 1, shape.size());
    }
    const int esize = injective::ElemBytes(data, kName);
    const char* x = injective::Bytes(data);
    Groups g = ByDType(data.dtype(), kName, [&](auto zero) {
      using T = decltype(zero);
      return GroupSlices(reinterpret_cast<const T*>(x), outer, n, inner, sorted);
    });
    const int64_t u = static_cast<int64_t>(g.first.size());
    std::vector<int64_t> y_shape{u};
    if (axis) {
      y_shape = shape;
      y_shape[a] = u;
    }
    NDArray y = NDArray::Empty(y_shape, data.dtype());
    char* yp = static_cast<char*>(y->tensor.data) + y->tensor.byte_offset;
    const int64_t row = inner * esize;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < u; ++j) {
        std::memcpy(yp + (o * u + j) * row, x + (o * n + g.first[j]) * row, row);
      }
    }
    *rv = Array<Any>{Any(y), Any(Int64Vector(g.first)), Any(Int64Vector(g.inverse)), Any(Int64Vector(g.counts))};
  });
  const_cast<runtime::FunctionObj*>(f.get())->cell.flags |=
      kTVMLiteFunctionLongRunning | kTVMLiteFunctionReturnsOutputs;
  return f;
});

// [y, indices, inverse, counts] = run(data): data of a dtype ByDType (the body's dispatch) takes; rank >= 1 with an
// axis.
std::string UniqueAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (t.size() != 1) return k + ": expected 1 tensor argument (data), got " + std::to_string(t.size());
  try {
    ByDType(t[0].dtype, k, [](auto) { return 0; });
  } catch (const runtime::Error& err) {
    return err.message();
  }
  if (attrs.Has("axis") && t[0].ndim == 0) return k + ": data is 0-d but an axis is given";
  return "";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.unique", UniqueAccepts);

}  // namespace

TVMLITE_REGISTER_OP_KERNEL("unique", "topi.unique").set_attr<bool>("TVMLiteReturnsOutputs", true);

}  // namespace topi
}  // namespace tvmlite
