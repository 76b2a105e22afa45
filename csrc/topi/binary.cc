/*!
 * \file binary.cc
 * \brief Binary elementwise ops epilogue programs do not cover: integer arithmetic (the shape arithmetic
 * exporters emit: seq + past, dim // heads), float ops without an epilogue instruction (mod, floor_mod,
 * floor_divide) and comparisons (causal masks), numpy broadcasting.
 *
 *   topi.add({}) ... run(a, b, out)          int32 / int64 / float32 / float64: add subtract multiply divide
 *                                            floor_divide mod floor_mod maximum minimum (relay's semantics:
 *                                            integer divide truncates, mod takes the dividend's sign, floor_mod
 *                                            the divisor's; float floor_divide and floor_mod as numpy)
 *   topi.less({}) ... run(a, b, out)         float32 / float64 / int32 / int64 / uint8 / bool inputs, bool out:
 *                                            equal not_equal less less_equal greater greater_equal
 *   topi.logical_and({}) ...                 bool: logical_and logical_or logical_xor
 *
 * The lowering picks them only where no epilogue program runs the op (float32 add is one). An integer division
 * by zero is a ValueError (C++ leaves it undefined; numpy returns garbage with a warning); a float one gives
 * inf / nan as numpy.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/kernel_accepts.h>

#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

namespace tvmlite {
namespace topi {
namespace {

using runtime::DataType;

enum class Kind { kArith, kCompare, kLogical };

/*! \brief Per output dim, the element step of a and b (0 where they broadcast), numpy rules. */
struct Broadcast {
  std::vector<int64_t> shape, step_a, step_b;
};

Broadcast PlanBroadcast(const TensorArg& a, const TensorArg& b, const std::string& kernel) {
  const int nd = std::max(a.ndim(), b.ndim());
  Broadcast p;
  p.shape.resize(nd);
  p.step_a.assign(nd, 0);
  p.step_b.assign(nd, 0);
  int64_t sa = 1, sb = 1;
  for (int i = nd - 1; i >= 0; --i) {
    const int ia = i - (nd - a.ndim()), ib = i - (nd - b.ndim());
    const int64_t da = ia >= 0 ? a.dim(ia) : 1, db = ib >= 0 ? b.dim(ib) : 1;
    TVMLITE_CHECK_KIND(da == db || da == 1 || db == 1, ValueError)
        << kernel << ": shapes " << runtime::ShapeTuple(a.shape()) << " and " << runtime::ShapeTuple(b.shape())
        << " do not broadcast";
    p.shape[i] = da == 1 ? db : da;
    if (da != 1) p.step_a[i] = sa;
    if (db != 1) p.step_b[i] = sb;
    sa *= da;
    sb *= db;
  }
  return p;
}

/*! \brief out[i] = f(a[ia], b[ib]) over the broadcast index space (an odometer over the output's dims). */
template <typename A, typename O, typename F>
void Apply(const A* a, const A* b, O* out, const Broadcast& p, F f) {
  const int nd = static_cast<int>(p.shape.size());
  int64_t n = 1;
  for (int64_t d : p.shape) n *= d;
  if (n == 0) return;
  std::vector<int64_t> idx(nd, 0);
  int64_t ia = 0, ib = 0;
  const int64_t inner = nd ? p.shape[nd - 1] : 1, sa = nd ? p.step_a[nd - 1] : 0, sb = nd ? p.step_b[nd - 1] : 0;
  for (int64_t done = 0; done < n; done += inner) {
    for (int64_t k = 0; k < inner; ++k) out[done + k] = f(a[ia + k * sa], b[ib + k * sb]);
    for (int d = nd - 2; d >= 0; --d) {  // next row: carry through the outer dims
      ia += p.step_a[d];
      ib += p.step_b[d];
      if (++idx[d] < p.shape[d]) break;
      ia -= p.step_a[d] * p.shape[d];
      ib -= p.step_b[d] * p.shape[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
T Arith(const std::string& op, T x, T y, const std::string& kernel) {
  using U = std::make_unsigned_t<T>;
  auto need_divisor = [&] { TVMLITE_CHECK_KIND(y != 0, ValueError) << kernel << ": integer division by zero"; };
  if (op == "add") return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));  // wraps as numpy does
  if (op == "subtract") return static_cast<T>(static_cast<U>(x) - static_cast<U>(y));
  if (op == "multiply") return static_cast<T>(static_cast<U>(x) * static_cast<U>(y));
  if (op == "maximum") return x > y ? x : y;
  if (op == "minimum") return x < y ? x : y;
  need_divisor();
  if (y == -1) {  // min / -1 overflows: wrap as the other ops do
    return op == "divide" || op == "floor_divide" ? static_cast<T>(U(0) - static_cast<U>(x)) : T(0);
  }
  T q = x / y, r = x % y;  // C: truncation, remainder takes the dividend's sign
  if (op == "divide") return q;
  if (op == "mod") return r;
  const bool adjust = r != 0 && ((r < 0) != (y < 0));
  if (op == "floor_divide") return adjust ? q - 1 : q;
  return adjust ? r + y : r;  // floor_mod: the divisor's sign
}

/*! \brief numpy's float floor_divide / floor_mod (Python's divmod) and fmod, +, -, *, /, max, min. */
template <typename T>
T FloatArith(const std::string& op, T x, T y) {
  if (op == "add") return x + y;
  if (op == "subtract") return x - y;
  if (op == "multiply") return x * y;
  if (op == "divide") return x / y;
  if (op == "maximum") return std::isnan(x) || x > y ? x : y;  // numpy propagates NaN
  if (op == "minimum") return std::isnan(x) || x < y ? x : y;
  if (op == "mod") return std::fmod(x, y);
  if (y == 0) return op == "floor_mod" ? std::fmod(x, y) : x / y;
  T mod = std::fmod(x, y);
  T div = (x - mod) / y;
  if (mod != 0 && ((y < 0) != (mod < 0))) {
    mod += y;
    div -= 1;
  }
  if (op == "floor_mod") return mod != 0 ? mod : std::copysign(T(0), y);
  if (div == 0) return std::copysign(T(0), x / y);
  T floor_div = std::floor(div);
  return div - floor_div > T(0.5) ? floor_div + 1 : floor_div;
}

template <typename T>
bool Compare(const std::string& op, T x, T y) {
  if (op == "equal") return x == y;
  if (op == "not_equal") return x != y;
  if (op == "less") return x < y;
  if (op == "less_equal") return x <= y;
  if (op == "greater") return x > y;
  return x >= y;
}

/*! \brief Call f with a null pointer of the C type of dtype (a tag), for the dtypes of kind. */
template <typename F>
void ByDType(DLDataType dt, Kind kind, const std::string& kernel, F f) {
  const bool any = kind == Kind::kCompare, numeric = kind != Kind::kLogical;
  if (dt.lanes == 1 && dt.code == kDLInt && dt.bits == 64) return f(static_cast<int64_t*>(nullptr));
  if (dt.lanes == 1 && dt.code == kDLInt && dt.bits == 32) return f(static_cast<int32_t*>(nullptr));
  if (numeric && dt.lanes == 1 && dt.code == kDLFloat && dt.bits == 32) return f(static_cast<float*>(nullptr));
  if (numeric && dt.lanes == 1 && dt.code == kDLFloat && dt.bits == 64) return f(static_cast<double*>(nullptr));
  if ((any || kind == Kind::kLogical) && dt.lanes == 1 && (dt.code == kDLBool || dt.code == kDLUInt) && dt.bits == 8) {
    return f(static_cast<uint8_t*>(nullptr));
  }
  TVMLITE_THROW(TypeError) << kernel << ": dtype " << DataType(dt).str() << " is not supported";
}

/*!
 * \brief run(lhs, rhs, out): lhs and rhs one dtype ByDType takes for kind, out theirs (arithmetic) or bool. The
 * kernel's own dispatch (ByDType) decides the dtype, so the two agree.
 */
std::string BinaryAccepts(Kind kind, const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (t.size() != 3) return k + ": expected 3 tensor arguments (lhs, rhs, out), got " + std::to_string(t.size());
  const DLDataType a = t[0].dtype, b = t[1].dtype, out = t[2].dtype;
  if (a.code != b.code || a.bits != b.bits) return k + ": lhs and rhs dtypes differ";
  try {
    ByDType(a, kind, k, [](auto*) {});
  } catch (const runtime::Error& err) {
    return err.message();
  }
  if (kind == Kind::kArith) {
    if (out.code != a.code || out.bits != a.bits) return k + ": out must have the inputs' dtype";
  } else if (!(out.code == kDLBool || (out.code == kDLUInt && out.bits == 8))) {
    return k + ": out must be bool";
  }
  return "";
}

Function MakeBinary(const std::string& op, Kind kind) {
  const std::string kernel = "topi." + op;
  return MakeKernel(kernel, 3, [op, kind, kernel](const KernelArgs& args) {
    TensorArg a = args.Input(0, "lhs"), b = args.Input(1, "rhs"), out = args.Output();
    TVMLITE_CHECK_KIND(a.dtype().code == b.dtype().code && a.dtype().bits == b.dtype().bits, TypeError)
        << kernel << ": lhs and rhs dtypes differ";
    Broadcast p = PlanBroadcast(a, b, kernel);
    out.CheckShape(p.shape);
    ByDType(a.dtype(), kind, kernel, [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* x = static_cast<const T*>(a.array()->tensor.data);
      const T* y = static_cast<const T*>(b.array()->tensor.data);
      x = reinterpret_cast<const T*>(reinterpret_cast<const char*>(x) + a.array()->tensor.byte_offset);
      y = reinterpret_cast<const T*>(reinterpret_cast<const char*>(y) + b.array()->tensor.byte_offset);
      if (kind == Kind::kArith) {
        TVMLITE_CHECK_KIND(out.dtype().code == a.dtype().code && out.dtype().bits == a.dtype().bits, TypeError)
            << kernel << ": out must have the inputs' dtype";
        T* o = reinterpret_cast<T*>(static_cast<char*>(out.array()->tensor.data) + out.array()->tensor.byte_offset);
        if constexpr (std::is_floating_point_v<T>) {
          Apply(x, y, o, p, [&](T u, T v) { return FloatArith<T>(op, u, v); });
        } else if constexpr (std::is_signed_v<T>) {
          Apply(x, y, o, p, [&](T u, T v) { return Arith<T>(op, u, v, kernel); });
        }
        return;
      }
      TVMLITE_CHECK_KIND(out.dtype().code == kDLBool || (out.dtype().code == kDLUInt && out.dtype().bits == 8),
                         TypeError)
          << kernel << ": out must be bool";
      uint8_t* o = static_cast<uint8_t*>(out.array()->tensor.data) + out.array()->tensor.byte_offset;
      if (kind == Kind::kCompare) {
        Apply(x, y, o, p, [&](T u, T v) -> uint8_t { return Compare<T>(op, u, v); });
      } else {
        Apply(x, y, o, p, [&](T u, T v) -> uint8_t {
          const bool s = u != 0, t = v != 0;
          return op == "logical_and" ? (s && t) : op == "logical_or" ? (s || t) : (s != t);
        });
      }
    });
  });
}

const bool kRegistered = [] {
  const std::pair<const char*, Kind> ops[] = {
      {"add", Kind::kArith},           {"subtract", Kind::kArith},     {"multiply", Kind::kArith},
      {"divide", Kind::kArith},        {"floor_divide", Kind::kArith}, {"mod", Kind::kArith},
      {"floor_mod", Kind::kArith},     {"maximum", Kind::kArith},      {"minimum", Kind::kArith},
      {"equal", Kind::kCompare},       {"not_equal", Kind::kCompare},  {"less", Kind::kCompare},
      {"less_equal", Kind::kCompare},  {"greater", Kind::kCompare},    {"greater_equal", Kind::kCompare},
      {"logical_and", Kind::kLogical}, {"logical_or", Kind::kLogical}, {"logical_xor", Kind::kLogical}};
  for (const auto& [name, kind] : ops) {
    const std::string op = name;
    const Kind k = kind;
    runtime::Registry::Register("topi." + op)
        .set_body_typed([op, k](Map<String, Any> attrs) {
          KernelAttrs checked("topi." + op, attrs);  // no attrs besides the lowering's "epilogue"
          checked.CheckNoEpilogue();
          return MakeBinary(op, k);
        })
        .set_kernel_factory();
    RegisterKernelAccepts("topi." + op, [k](const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
      return BinaryAccepts(k, attrs, t);
    });
    ir::OpRegEntry::RegisterOrGet(op).set_attr<runtime::String>(kOpKernelAttr, runtime::String("topi." + op));
  }
  return true;
}();

}  // namespace
}  // namespace topi
}  // namespace tvmlite
