/*!
 * \file nonzero.cc
 * \brief topi.argwhere (relay argwhere; ONNX NonZero is its transpose): the index tuple of every non-zero element,
 * row-major, one row each. The row count depends on the values, so the kernel makes and returns its output
 * (kernel.h, MakeReturningKernel):
 *
 *   topi.argwhere({})   [out] = run(condition)   out: (count, rank) int64, numpy.argwhere
 *
 * Any 1, 2, 4 or 8 byte dtype. "Non-zero" is the dtype's: for floats -0.0 is zero and NaN is not (float16 and
 * bfloat16 by their bits); for integers and bool any set bit. A 0-d condition gives (1, 0) or (0, 0), as numpy.
 * Two passes over the input (count, then write): no guess at the size, no growth.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

/*! \brief Whether WithNonZero reads elements of dtype dt (it checks this first). */
bool TakesCondition(DLDataType dt) {
  if (!IsByteScalar(dt)) return false;
  const int esize = dt.bits / 8;
  return (dt.code == kDLFloat && esize >= 2) || (dt.code == kDLBfloat && esize == 2) || dt.code == kDLInt ||
         dt.code == kDLUInt || dt.code == kDLBool;
}

/*! \brief Call body(is_nonzero) with a predicate over element k of p for t's dtype. */
template <typename F>
void WithNonZero(const TensorArg& t, const std::string& kName, const F& body) {
  const DLDataType dt = t.dtype();
  const int esize = injective::ElemBytes(t, kName);
  TVMLITE_CHECK_KIND(TakesCondition(dt), TypeError)
      << kName << ": condition of dtype " << runtime::DataType(dt).str() << " is not supported";
  const char* p = injective::Bytes(t);
  if (dt.code == kDLFloat && esize == 4) {
    const float* x = reinterpret_cast<const float*>(p);
    body([x](int64_t k) { return x[k] != 0.0f; });  // NaN != 0; -0.0 == 0
  } else if (dt.code == kDLFloat && esize == 8) {
    const double* x = reinterpret_cast<const double*>(p);
    body([x](int64_t k) { return x[k] != 0.0; });
  } else if ((dt.code == kDLFloat || dt.code == kDLBfloat) && esize == 2) {
    const uint16_t* x = reinterpret_cast<const uint16_t*>(p);
    body([x](int64_t k) { return (x[k] & 0x7fff) != 0; });  // every bit but the sign
  } else if (dt.code == kDLInt || dt.code == kDLUInt || dt.code == kDLBool) {
    if (esize == 1) {
      const uint8_t* x = reinterpret_cast<const uint8_t*>(p);
      body([x](int64_t k) { return x[k] != 0; });
    } else if (esize == 2) {
      const uint16_t* x = reinterpret_cast<const uint16_t*>(p);
      body([x](int64_t k) { return x[k] != 0; });
    } else if (esize == 4) {
      const uint32_t* x = reinterpret_cast<const uint32_t*>(p);
      body([x](int64_t k) { return x[k] != 0; });
    } else {
      const uint64_t* x = reinterpret_cast<const uint64_t*>(p);
      body([x](int64_t k) { return x[k] != 0; });
    }
  } else {
    TVMLITE_THROW(TypeError) << kName << ": condition of dtype " << runtime::DataType(dt).str() << " is not supported";
  }
}

TVMLITE_REGISTER_GLOBAL("topi.argwhere").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.argwhere";
  KernelAttrs attrs(kName, attrs_in);
  attrs.CheckNoEpilogue();
  return MakeReturningKernel(kName, 1, [](const KernelArgs& args) {
    TensorArg cond = args.Input(0, "condition");
    const int rank = cond.ndim();
    const std::vector<int64_t> shape = cond.shape();
    const int64_t n = cond.size();
    NDArray out;
    WithNonZero(cond, kName, [&](const auto& nonzero) {
      int64_t count = 0;
      for (int64_t k = 0; k < n; ++k) count += nonzero(k) ? 1 : 0;
      out = NDArray::Empty({count, static_cast<int64_t>(rank)}, DLDataType{kDLInt, 64, 1});
      int64_t* y = reinterpret_cast<int64_t*>(static_cast<char*>(out->tensor.data) + out->tensor.byte_offset);
      if (rank == 0 || count == 0) return;
      // An odometer of the current element's index: rows are written in row-major order.
      // Branch-free on the values (about half non-zero mispredicts every other element): every index is written,
      // and kept by advancing y only for a non-zero element; the check against the end is always taken but one.
      std::vector<int64_t> idx(rank, 0);
      const int64_t* end = y + count * rank;
      for (int64_t k = 0; k < n; ++k) {
        if (y != end) std::copy(idx.begin(), idx.end(), y);
        y += nonzero(k) ? rank : 0;
        for (int d = rank - 1; d >= 0 && ++idx[d] == shape[d]; --d) idx[d] = 0;
      }
    });
    return out;
  });
});

// [out] = run(condition): a dtype TakesCondition (WithNonZero's gate) takes.
std::string ArgwhereAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (t.size() != 1) return k + ": expected 1 tensor argument (condition), got " + std::to_string(t.size());
  TVMLITE_ACCEPTS_CHECK(ByteScalarReason(k, t[0].dtype));
  if (TakesCondition(t[0].dtype)) return "";
  return k + ": condition of dtype " + DTypeName(t[0].dtype) + " is not supported";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.argwhere", ArgwhereAccepts);

}  // namespace

TVMLITE_REGISTER_OP_KERNEL("argwhere", "topi.argwhere").set_attr<bool>("TVMLiteReturnsOutputs", true);

}  // namespace topi
}  // namespace tvmlite
