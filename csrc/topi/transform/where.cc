/*!
 * \file where.cc
 * \brief topi.where (relay where): out = cond ? x : y, all three numpy-broadcast to out's shape.
 *
 *   topi.where({})     run(cond, x, y, [epilogue inputs], out)
 *
 * cond is bool (or a one-byte integer: nonzero is true); x, y and out share a dtype (any 1/2/4/8-byte one). Dims
 * all operands walk alike merge first; each output row then reads each operand with stride 0 or 1.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

/*! \brief Branch-free (a random condition would mispredict half the time): T is the unsigned type of the size. */
template <typename T>
void SelectRow(T* dst, const uint8_t* c, int64_t sc, const T* x, int64_t sx, const T* y, int64_t sy, int64_t n) {
  auto pick = [](uint8_t cond, T a, T b) {
    T mask = static_cast<T>(-static_cast<T>(cond != 0));
    return static_cast<T>((a & mask) | (b & static_cast<T>(~mask)));
  };
  if (sc == 1 && sx == 1 && sy == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = pick(c[i], x[i], y[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = pick(c[i * sc], x[i * sx], y[i * sy]);
}

std::string ConditionReason(DLDataType ct) {
  if (ct.lanes == 1 && ct.bits == 8 && (ct.code == kDLBool || ct.code == kDLUInt || ct.code == kDLInt)) return "";
  return "topi.where: condition must be bool (or a one-byte integer), got " + DTypeName(ct);
}

TVMLITE_REGISTER_GLOBAL("topi.where").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.where";
  KernelAttrs attrs(kName, attrs_in);
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 4 + epi.num_inputs(), [epi](const KernelArgs& args) {
    TensorArg cond = args.Input(0, "condition"), x = args.Input(1, "x"), y = args.Input(2, "y");
    TensorArg out = args.Output();
    const std::string ct_reason = ConditionReason(cond.dtype());
    TVMLITE_CHECK_KIND(ct_reason.empty(), TypeError) << ct_reason;
    injective::CheckSameDType(x, out, kName);
    injective::CheckSameDType(y, out, kName);
    const int esize = injective::ElemBytes(out, kName);
    std::vector<int64_t> shape = out.shape();
    std::vector<int64_t> sc = injective::BroadcastStrides(cond, shape, kName, "condition");
    std::vector<int64_t> sx = injective::BroadcastStrides(x, shape, kName, "x");
    std::vector<int64_t> sy = injective::BroadcastStrides(y, shape, kName, "y");
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 3);
    if (!injective::CollapseDims(&shape, {&sc, &sx, &sy})) return;
    const int nd = static_cast<int>(shape.size());
    const int64_t inner = shape[nd - 1];
    const uint8_t* c = reinterpret_cast<const uint8_t*>(injective::Bytes(cond));
    const char* xb = injective::Bytes(x);
    const char* yb = injective::Bytes(y);
    char* ob = injective::Bytes(out);
    injective::ForRows(injective::Product(shape, 0, nd - 1), inner, esize, out, bound, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t rest = r, oc = 0, ox = 0, oy = 0;
        for (int d = nd - 2; d >= 0; --d) {
          int64_t i = rest % shape[d];
          rest /= shape[d];
          oc += i * sc[d], ox += i * sx[d], oy += i * sy[d];
        }
        const int64_t a = sc[nd - 1], b = sx[nd - 1], e = sy[nd - 1];
        char* dst = ob + r * inner * esize;
        switch (esize) {
          case 1:
            SelectRow(reinterpret_cast<uint8_t*>(dst), c + oc, a, reinterpret_cast<const uint8_t*>(xb) + ox, b,
                      reinterpret_cast<const uint8_t*>(yb) + oy, e, inner);
            break;
          case 2:
            SelectRow(reinterpret_cast<uint16_t*>(dst), c + oc, a, reinterpret_cast<const uint16_t*>(xb) + ox, b,
                      reinterpret_cast<const uint16_t*>(yb) + oy, e, inner);
            break;
          case 4:
            SelectRow(reinterpret_cast<uint32_t*>(dst), c + oc, a, reinterpret_cast<const uint32_t*>(xb) + ox, b,
                      reinterpret_cast<const uint32_t*>(yb) + oy, e, inner);
            break;
          default:
            SelectRow(reinterpret_cast<uint64_t*>(dst), c + oc, a, reinterpret_cast<const uint64_t*>(xb) + ox, b,
                      reinterpret_cast<const uint64_t*>(yb) + oy, e, inner);
        }
      }
    });
  });
});

// run(cond, x, y, [epilogue inputs], out): the body's dtype checks (ranks only broadcast).
std::string WhereAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 3));
  TVMLITE_ACCEPTS_CHECK(ConditionReason(t[0].dtype));
  TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[1].dtype, t.back().dtype));
  return injective::MovedDTypeReason(k, t[2].dtype, t.back().dtype);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.where", WhereAccepts);

TVMLITE_REGISTER_OP_KERNEL("where", "topi.where");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
