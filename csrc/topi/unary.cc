/*!
 * \file unary.cc
 * \brief Unary elementwise ops epilogue programs do not cover (binary.cc's counterpart): integer abs / negative /
 * sign (T5's relative position buckets), bool logical_not (RoBERTa's padding mask), float isnan / isinf -> bool
 * (GPT-2's attention masks as exported).
 *
 *   topi.abs({}) ... run(x, out)     int32 / int64 / float64 (float32 runs as an epilogue): abs negative sign
 *   topi.logical_not({})             bool -> bool
 *   topi.isnan({}), topi.isinf({})   float32 / float64 -> bool
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/kernel_accepts.h>

#include <cmath>
#include <string>
#include <type_traits>

namespace tvmlite {
namespace topi {
namespace {

using runtime::DataType;

template <typename T>
const T* In(const TensorArg& t) {
  return reinterpret_cast<const T*>(static_cast<const char*>(t.array()->tensor.data) + t.array()->tensor.byte_offset);
}

template <typename T>
T* Out(const TensorArg& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.array()->tensor.data) + t.array()->tensor.byte_offset);
}

/*! \brief out = f(x) elementwise; x's and out's dtypes checked by the caller. */
template <typename A, typename O, typename F>
void Map1(const TensorArg& x, const TensorArg& out, F f) {
  const A* a = In<A>(x);
  O* o = Out<O>(out);
  for (int64_t i = 0, n = x.size(); i < n; ++i) o[i] = f(a[i]);
}

bool Is(DLDataType dt, DLDataTypeCode code, int bits) { return dt.code == code && dt.bits == bits && dt.lanes == 1; }

template <typename T>
T Arith(const std::string& op, T v) {
  using U = std::make_unsigned_t<T>;
  if (op == "negative") return static_cast<T>(U(0) - static_cast<U>(v));  // wraps at the minimum, as numpy
  if (op == "abs") return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v;
  return static_cast<T>((v > 0) - (v < 0));  // sign
}

/*! \brief "" when the kernel of op takes data of dtype dt into out of dtype ot, else why not (TypeError's text). */
std::string UnaryReason(const std::string& op, const std::string& kernel, DLDataType dt, DLDataType ot) {
  if (op == "isnan" || op == "isinf") {
    if (!Is(ot, kDLBool, 8) && !Is(ot, kDLUInt, 8)) return kernel + ": out must be bool";
    if (Is(dt, kDLFloat, 32) || Is(dt, kDLFloat, 64)) return "";
  } else if (op == "logical_not") {
    if (!Is(ot, kDLBool, 8) && !Is(ot, kDLUInt, 8)) return kernel + ": out must be bool";
    if (Is(dt, kDLBool, 8) || Is(dt, kDLUInt, 8)) return "";
  } else {
    if (ot.code != dt.code || ot.bits != dt.bits) return kernel + ": out must be data's dtype";
    if (Is(dt, kDLInt, 64) || Is(dt, kDLInt, 32) || Is(dt, kDLFloat, 64)) return "";
  }
  return kernel + ": dtype " + DTypeName(dt) + " is not supported";
}

Function MakeUnary(const std::string& op) {
  const std::string kernel = "topi." + op;
  return MakeKernel(kernel, 2, [op, kernel](const KernelArgs& args) {
    TensorArg x = args.Input(0, "data"), out = args.Output();
    out.CheckShape(x.shape());
    const DLDataType dt = x.dtype(), ot = out.dtype();
    const std::string reason = UnaryReason(op, kernel, dt, ot);  // the dispatch below takes exactly these
    TVMLITE_CHECK_KIND(reason.empty(), TypeError) << reason;
    if (op == "isnan" || op == "isinf") {
      auto pred = [&](auto v) -> uint8_t { return op == "isnan" ? std::isnan(v) : std::isinf(v); };
      if (Is(dt, kDLFloat, 32)) return Map1<float, uint8_t>(x, out, pred);
      if (Is(dt, kDLFloat, 64)) return Map1<double, uint8_t>(x, out, pred);
    } else if (op == "logical_not") {
      if (Is(dt, kDLBool, 8) || Is(dt, kDLUInt, 8)) {
        return Map1<uint8_t, uint8_t>(x, out, [](uint8_t v) -> uint8_t { return v == 0; });
      }
    } else {
      if (Is(dt, kDLInt, 64)) return Map1<int64_t, int64_t>(x, out, [&](int64_t v) { return Arith(op, v); });
      if (Is(dt, kDLInt, 32)) return Map1<int32_t, int32_t>(x, out, [&](int32_t v) { return Arith(op, v); });
      if (Is(dt, kDLFloat, 64)) {
        return Map1<double, double>(x, out, [&](double v) {
          return op == "negative" ? -v : op == "abs" ? std::fabs(v) : std::isnan(v) ? v : double((v > 0) - (v < 0));
        });
      }
    }
    TVMLITE_THROW(TypeError) << kernel << ": dtype " << DataType(dt).str() << " is not supported";
  });
}

const bool kRegistered = [] {
  for (const char* name : {"abs", "negative", "sign", "logical_not", "isnan", "isinf"}) {
    const std::string op = name;
    runtime::Registry::Register("topi." + op)
        .set_body_typed([op](Map<String, Any> attrs) {
          KernelAttrs checked("topi." + op, attrs);
          checked.CheckNoEpilogue();
          return MakeUnary(op);
        })
        .set_kernel_factory();
    RegisterKernelAccepts("topi." + op, [op](const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
      if (t.size() == 2) return UnaryReason(op, attrs.kernel(), t[0].dtype, t[1].dtype);
      return attrs.kernel() + ": expected 2 tensor arguments (data, out), got " + std::to_string(t.size());
    });
    ir::OpRegEntry::RegisterOrGet(op).set_attr<runtime::String>(kOpKernelAttr, runtime::String("topi." + op));
  }
  return true;
}();

}  // namespace
}  // namespace topi
}  // namespace tvmlite
