/*!
 * \file scan.cc
 * \brief topi.cumsum / topi.cumprod (relay cumsum, cumprod; ONNX CumSum): the running sum (product) along an axis,
 * numpy's order of additions, so float results equal the reference's bit for bit.
 *
 *   topi.cumsum({"axis": 1, "exclusive": 0, "reverse": 0}) run(x, out)   axis absent: over x flattened
 *
 * int32 / int64 / float32 / float64, out of x's dtype (RoBERTa's position ids are a cumsum of the mask).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/kernel_accepts.h>

#include <string>
#include <type_traits>

namespace tvmlite {
namespace topi {
namespace {

using runtime::DataType;

/*! \brief The accumulator type: unsigned for integers (they wrap, as numpy's), T itself for floats. */
template <typename T, typename = void>
struct AccOf {
  using type = T;
};
template <typename T>
struct AccOf<T, std::enable_if_t<std::is_integral_v<T>>> {
  using type = std::make_unsigned_t<T>;
};

template <typename T, bool kProd>
void Scan(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  using Acc = typename AccOf<T>::type;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      Acc acc = kProd ? Acc(1) : Acc(0);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t j = reverse ? n - 1 - k : k;
        const int64_t at = (o * n + j) * inner + i;
        const Acc v = static_cast<Acc>(x[at]);
        if (exclusive) {
          y[at] = static_cast<T>(acc);
          acc = kProd ? static_cast<Acc>(acc * v) : static_cast<Acc>(acc + v);
        } else {
          acc = kProd ? static_cast<Acc>(acc * v) : static_cast<Acc>(acc + v);
          y[at] = static_cast<T>(acc);
        }
      }
    }
  }
}

/*! \brief run(tag) with a null T* for dtype dt; false (nothing run) for a dtype the scans do not take. */
template <typename F>
bool ByDType(DLDataType dt, F run) {
  if (dt.code == kDLInt && dt.bits == 64) return run(static_cast<int64_t*>(nullptr)), true;
  if (dt.code == kDLInt && dt.bits == 32) return run(static_cast<int32_t*>(nullptr)), true;
  if (dt.code == kDLFloat && dt.bits == 32) return run(static_cast<float*>(nullptr)), true;
  if (dt.code == kDLFloat && dt.bits == 64) return run(static_cast<double*>(nullptr)), true;
  return false;
}

// run(data, out): out data's dtype (and the attr dtype's, when given), one ByDType takes; data of rank >= 1 with
// an axis.
std::string ScanAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (t.size() != 2) return k + ": expected 2 tensor arguments (data, out), got " + std::to_string(t.size());
  const DLDataType dt = t[0].dtype;
  const std::string dtype = attrs.GetString("dtype", "");
  if (!dtype.empty() && dtype != "void" && DataType(dtype) != DataType(dt)) {
    return k + ": an output dtype other than the input's is not supported";
  }
  if (t[1].dtype.code != dt.code || t[1].dtype.bits != dt.bits) return k + ": out must have data's dtype";
  if (!ByDType(dt, [](auto*) {})) return k + ": dtype " + DTypeName(dt) + " is not supported";
  if (attrs.Has("axis")) return MinRankReason(k, "data", t[0], 1);
  return "";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.cumsum", ScanAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.cumprod", ScanAccepts);

template <bool kProd>
Function MakeScan(const std::string& kernel, Map<String, Any> attrs_in) {
  KernelAttrs attrs(kernel, attrs_in);
  const bool has_axis = attrs.Has("axis");
  const int64_t axis_attr = attrs.GetInt("axis", 0);
  const bool exclusive = attrs.GetInt("exclusive", 0) != 0, reverse = attrs.GetInt("reverse", 0) != 0;
  const std::string dtype = attrs.GetString("dtype", "");
  attrs.CheckNoEpilogue();
  return MakeKernel(kernel, 2, [=](const KernelArgs& args) {
    TensorArg x = args.Input(0, "data"), out = args.Output();
    const DLDataType dt = x.dtype();
    TVMLITE_CHECK_KIND(dtype.empty() || dtype == "void" || DataType(dtype) == DataType(dt), TypeError)
        << kernel << ": an output dtype other than the input's is not supported";
    TVMLITE_CHECK_KIND(out.dtype().code == dt.code && out.dtype().bits == dt.bits, TypeError)
        << kernel << ": out must have data's dtype";
    int64_t outer = 1, n = x.size(), inner = 1;
    if (has_axis) {
      const int64_t axis = NormalizedAxis(kernel, axis_attr, x.ndim());
      out.CheckShape(x.shape());
      n = x.dim(static_cast<int>(axis));
      for (int d = 0; d < axis; ++d) outer *= x.dim(d);
      for (int d = static_cast<int>(axis) + 1; d < x.ndim(); ++d) inner *= x.dim(d);
    } else {
      out.CheckShape({x.size()});
    }
    auto run = [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      Scan<T, kProd>(x.Data<T>(), out.Data<T>(), outer, n, inner, exclusive, reverse);
    };
    if (ByDType(dt, run)) return;
    TVMLITE_THROW(TypeError) << kernel << ": dtype " << DataType(dt).str() << " is not supported";
  });
}

}  // namespace

TVMLITE_REGISTER_KERNEL_FACTORY("topi.cumsum", MakeScan<false>);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.cumprod", MakeScan<true>);

TVMLITE_REGISTER_OP_KERNEL("cumsum", "topi.cumsum");
TVMLITE_REGISTER_OP_KERNEL("cumprod", "topi.cumprod");

}  // namespace topi
}  // namespace tvmlite
