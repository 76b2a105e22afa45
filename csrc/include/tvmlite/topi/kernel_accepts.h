/*!
 * \file tvmlite/topi/kernel_accepts.h
 * \brief How a kernel family declares the tensors it takes, without running: the global "<kernel>.accepts".
 *
 *   std::string TakeAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
 *     if (!IsIndexDType(t[1].dtype)) return "topi.take: indices must be int32 or int64, got " + DTypeName(...);
 *     return "";
 *   }
 *   TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.take", TakeAccepts);
 *
 * registers "topi.take.accepts"(attrs: Map<String, Any>, dtypes: Array<String>, ndims: Array<int>) -> str: the
 * kernel's attrs as the lowering passes them to the factory, then the dtype and rank of every tensor argument in
 * call order (inputs, epilogue inputs, then out; a kernel returning its outputs: its inputs only). "" means the
 * bound kernel takes such tensors (no TypeError from its dtype dispatch), else a short reason. The lowering
 * (group_lowering.cc) asks it at build instead of running the kernel; a kernel without one takes float32 only.
 * Predicates share the dtype tests (IsIndexDType, ...) with the kernel bodies' dispatch so the two agree.
 */
#ifndef TVMLITE_TOPI_KERNEL_ACCEPTS_H_
#define TVMLITE_TOPI_KERNEL_ACCEPTS_H_

#include <tvmlite/runtime/registry.h>
#include <tvmlite/topi/kernel.h>

#include <functional>
#include <string>
#include <vector>

namespace tvmlite {
namespace topi {

/*! \brief What .accepts knows of one tensor argument: its dtype and rank (shapes may be symbolic at build). */
struct TensorSig {
  DLDataType dtype;
  int64_t ndim;
};

using AcceptsFn = std::function<std::string(const KernelAttrs& attrs, const std::vector<TensorSig>& tensors)>;

/*!
 * \brief Register kernel + ".accepts" calling fn on the parsed arguments; bad arguments (types, dtype names,
 * lengths that disagree, negative ranks) raise TypeError / ValueError naming the function.
 */
bool RegisterKernelAccepts(const std::string& kernel, AcceptsFn fn);

#define TVMLITE_REGISTER_KERNEL_ACCEPTS(Kernel, Fn)                                            \
  static TVMLITE_ATTRIBUTE_UNUSED const bool TVMLITE_CONCAT(__tvmlite_accepts_, __COUNTER__) = \
      ::tvmlite::topi::RegisterKernelAccepts(Kernel, Fn)

/*! \brief In a predicate: return the reason expr gives, if any. */
#define TVMLITE_ACCEPTS_CHECK(expr)                       \
  do {                                                    \
    std::string tvmlite_reason_ = (expr);                 \
    if (!tvmlite_reason_.empty()) return tvmlite_reason_; \
  } while (0)

inline bool IsDType(DLDataType t, int code, int bits) { return t.code == code && t.bits == bits && t.lanes == 1; }
inline bool IsF32(DLDataType t) { return IsDType(t, kDLFloat, 32); }
inline bool SameDType(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }
/*! \brief int32 or int64: the index / shape / bounds tensors the kernels read. */
inline bool IsIndexDType(DLDataType t) { return t.code == kDLInt && (t.bits == 32 || t.bits == 64) && t.lanes == 1; }
/*! \brief A scalar of 1, 2, 4 or 8 bytes: what the injective kernels move by size (injective::ElemBytes). */
inline bool IsByteScalar(DLDataType t) {
  const int bits = t.bits * t.lanes;
  return t.lanes == 1 && (bits == 8 || bits == 16 || bits == 32 || bits == 64);
}
/*! \brief bool, or a one-byte unsigned integer (what bool outputs are written as). */
inline bool IsBoolLike(DLDataType t) { return t.lanes == 1 && t.bits == 8 && (t.code == kDLBool || t.code == kDLUInt); }
std::string DTypeName(DLDataType t);
/*! \brief "" when a and b are one dtype, else "<kernel>: dtypes differ: <a> and <b>" (injective::CheckSameDType). */
std::string SameDTypeReason(const std::string& kernel, DLDataType a, DLDataType b);
/*! \brief "" for IsIndexDType(t), else "<kernel>: <what> must be int32 or int64, got <t>". */
std::string IndexReason(const std::string& kernel, const char* what, DLDataType t);
/*! \brief "" when t has at least min_ndim dims, else "<kernel>: <what> must have rank >= <min_ndim>, got <ndim>". */
std::string MinRankReason(const std::string& kernel, const char* what, const TensorSig& t, int64_t min_ndim);
/*! \brief "" for IsByteScalar(t), else injective::ElemBytes's reason. */
std::string ByteScalarReason(const std::string& kernel, DLDataType t);

/*! \brief How many extra inputs the attr "epilogue" reads (0 without one); ValueError for a bad program. */
int EpilogueInputs(const KernelAttrs& attrs);

/*!
 * \brief The checks every kernel with an epilogue shares: t holds own + EpilogueInputs(attrs) + (has_out ? 1 : 0)
 * tensors, the epilogue inputs are float32 and so is out when there is an epilogue. "" or the reason.
 */
std::string CheckArity(const KernelAttrs& attrs, const std::vector<TensorSig>& t, int own, bool has_out = true);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_KERNEL_ACCEPTS_H_
