/*!
 * \file copy.cc
 * \brief topi.copy (relay copy, and the generic contiguous reshape: any out with as many elements and the same
 * dtype) and topi.cast (relay cast between float32/float64, int8/uint8/int32/int64 and bool).
 *
 *   topi.copy({})                     run(data, out)             out.size() == data.size()
 *   topi.cast({"dtype": "int32"})     run(data, out)             out.shape == data.shape, out.dtype == dtype
 *
 * Both take an "epilogue" when their output is float32 (its extra inputs follow data). Casts follow numpy on x86:
 * float to int truncates toward zero, a value outside int32 (int64) - NaN and inf included - becomes its minimum,
 * 8-bit targets wrap the int32 value; anything to bool is x != 0 (NaN is true).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>

#include <cmath>
#include <limits>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

using injective::Bytes;

TVMLITE_REGISTER_GLOBAL("topi.copy").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.copy";
  KernelAttrs attrs(kName, attrs_in);
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 2 + epi.num_inputs(), [epi](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), out = args.Output();
    injective::CheckSameDType(data, out, kName);
    TVMLITE_CHECK_KIND(data.size() == out.size(), ValueError)
        << kName << ": out has " << out.size() << " elements, data " << data.size();
    const int esize = injective::ElemBytes(out, kName);
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 1);
    const char* x = Bytes(data);
    char* y = Bytes(out);
    if (x == y && bound.empty()) return;
    injective::ForFlat(out.size(), esize, out, bound, [&](int64_t b, int64_t e) {
      if (x != y) std::memcpy(y + b * esize, x + b * esize, (e - b) * esize);
    });
  });
});

// ------------------------------------------------------------------------------------------------------- cast

enum class Kind { kF32, kF64, kI8, kU8, kI32, kI64, kBool };

bool KindOf(DLDataType t, Kind* out) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat && t.bits == 32) return *out = Kind::kF32, true;
  if (t.code == kDLFloat && t.bits == 64) return *out = Kind::kF64, true;
  if (t.code == kDLInt && t.bits == 8) return *out = Kind::kI8, true;
  if (t.code == kDLUInt && t.bits == 8) return *out = Kind::kU8, true;
  if (t.code == kDLInt && t.bits == 32) return *out = Kind::kI32, true;
  if (t.code == kDLInt && t.bits == 64) return *out = Kind::kI64, true;
  if (t.code == kDLBool && t.bits == 8) return *out = Kind::kBool, true;
  return false;
}

template <typename To, bool kToBool>
struct Convert {
  template <typename From>
  static To Do(From x) {
    if constexpr (kToBool) {
      return static_cast<To>(x != From(0));
    } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
      // x86 semantics (numpy's): out of range or NaN -> the minimum of int32 (int64 for int64 targets).
      using Wide = std::conditional_t<sizeof(To) == 8, int64_t, int32_t>;
      constexpr double lo = static_cast<double>(std::numeric_limits<Wide>::min());
      constexpr double hi = -lo;  // 2^31 or 2^63, exactly representable
      double v = static_cast<double>(x);
      Wide w = (v >= lo && v < hi) ? static_cast<Wide>(v) : std::numeric_limits<Wide>::min();
      return static_cast<To>(w);  // 8-bit targets: wrap (two's complement)
    } else {
      return static_cast<To>(x);
    }
  }
};

template <typename To, bool kToBool, typename From>
void CastRange(const void* src, void* dst, int64_t b, int64_t e) {
  const From* x = static_cast<const From*>(src);
  To* y = static_cast<To*>(dst);
  for (int64_t i = b; i < e; ++i) y[i] = Convert<To, kToBool>::template Do<From>(x[i]);
}

using CastFn = void (*)(const void*, void*, int64_t, int64_t);

template <typename To, bool kToBool = false>
CastFn CastFrom(Kind from) {
  switch (from) {
    case Kind::kF32: return CastRange<To, kToBool, float>;
    case Kind::kF64: return CastRange<To, kToBool, double>;
    case Kind::kI8: return CastRange<To, kToBool, int8_t>;
    case Kind::kU8: return CastRange<To, kToBool, uint8_t>;
    case Kind::kI32: return CastRange<To, kToBool, int32_t>;
    case Kind::kI64: return CastRange<To, kToBool, int64_t>;
    case Kind::kBool: return CastRange<To, kToBool, uint8_t>;
  }
  return nullptr;
}

CastFn PickCast(Kind from, Kind to) {
  switch (to) {
    case Kind::kF32: return CastFrom<float>(from);
    case Kind::kF64: return CastFrom<double>(from);
    case Kind::kI8: return CastFrom<int8_t>(from);
    case Kind::kU8: return CastFrom<uint8_t>(from);
    case Kind::kI32: return CastFrom<int32_t>(from);
    case Kind::kI64: return CastFrom<int64_t>(from);
    case Kind::kBool: return CastFrom<uint8_t, true>(from);
  }
  return nullptr;
}

TVMLITE_REGISTER_GLOBAL("topi.cast").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.cast";
  KernelAttrs attrs(kName, attrs_in);
  std::string dtype_name = attrs.GetString("dtype");
  DLDataType dtype;
  Kind to;
  TVMLITE_CHECK_KIND(runtime::IsValidDLDataType(dtype = runtime::StringToDLDataType(dtype_name)) && KindOf(dtype, &to),
                     ValueError)
      << kName << ": dtype '" << dtype_name << "' is not supported (float32, float64, int8, uint8, int32, int64, bool)";
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 2 + epi.num_inputs(), [epi, dtype, to](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), out = args.Output();
    DLDataType got = out.dtype();
    TVMLITE_CHECK_KIND(got.code == dtype.code && got.bits == dtype.bits && got.lanes == dtype.lanes, TypeError)
        << kName << ": out must be " << runtime::DataType(dtype).str() << " (attr dtype), got "
        << runtime::DataType(got).str();
    Kind from;
    TVMLITE_CHECK_KIND(KindOf(data.dtype(), &from), TypeError)
        << kName << ": data dtype " << runtime::DataType(data.dtype()).str() << " is not supported";
    out.CheckShape(data.shape());
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 1);
    CastFn fn = PickCast(from, to);
    const void* x = Bytes(data);
    void* y = Bytes(out);
    injective::ForFlat(out.size(), injective::ElemBytes(out, kName), out, bound,
                       [&](int64_t b, int64_t e) { fn(x, y, b, e); });
  });
});

// copy: run(data, [epilogue inputs], out), out data's dtype. cast: out the attr dtype, data a dtype KindOf knows.
std::string CopyAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 1));
  return injective::MovedDTypeReason(attrs.kernel(), t[0].dtype, t.back().dtype);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.copy", CopyAccepts);

std::string CastAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 1));
  const DLDataType dtype = runtime::StringToDLDataType(attrs.GetString("dtype"));
  Kind kind;
  if (!KindOf(dtype, &kind)) return k + ": dtype '" + DTypeName(dtype) + "' is not supported";
  if (!SameDType(t.back().dtype, dtype)) {
    return k + ": out must be " + DTypeName(dtype) + " (attr dtype), got " + DTypeName(t.back().dtype);
  }
  if (!KindOf(t[0].dtype, &kind)) return k + ": data dtype " + DTypeName(t[0].dtype) + " is not supported";
  return "";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.cast", CastAccepts);

TVMLITE_REGISTER_OP_KERNEL("copy", "topi.copy");
TVMLITE_REGISTER_OP_KERNEL("cast", "topi.cast");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
