/*!
 * \file transform_util.h
 * \brief Helpers shared by the shape/data-movement relations (reshape.cc, index.cc, transform.cc): dim arithmetic
 * that keeps symbolic dims where it can, and checks of the small integer tensors the dyn.* forms take.
 */
#ifndef TVMLITE_RELAY_OP_TENSOR_TRANSFORM_UTIL_H_
#define TVMLITE_RELAY_OP_TENSOR_TRANSFORM_UTIL_H_

#include <tvmlite/relay/attrs/transform.h>
#include <tvmlite/relay/type_rel.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tvmlite {
namespace relay {

/*! \brief The largest rank a relation creates (the runtime's NDArray limit). */
constexpr int64_t kMaxRank = kTVMLiteMaxNDim;

/*! \brief Whether a DataType attribute was left unset ("the input's dtype"). */
inline bool IsVoidDtype(DataType t) { return t.code() == kDLOpaqueHandle && t.bits() == 0; }
inline bool IsIntegerDtype(DataType t) { return t.is_int() || t.is_uint(); }

/*! \brief dims [lo, hi) of a shape as a vector (hi clamped to the rank). */
inline std::vector<Any> Dims(const Array<Any>& shape, size_t lo = 0, size_t hi = static_cast<size_t>(-1)) {
  std::vector<Any> out;
  for (size_t i = lo; i < std::min(hi, shape.size()); ++i) out.push_back(shape[i]);
  return out;
}
inline void Append(std::vector<Any>* out, const std::vector<Any>& more) {
  out->insert(out->end(), more.begin(), more.end());
}

inline Any UnknownDim() { return Any(SizeVar::Any()); }
inline bool IsStatic(const Any& d) { return d.type_index() == kTVMLiteInt; }
inline int64_t StaticValue(const Any& d) { return d.cast<int64_t>(); }

/*! \brief d * f (f >= 0), "?" when d is symbolic (d when f is 1); ValueError on overflow. */
Any MulDim(const Any& d, int64_t f);
/*! \brief d + a (a may be negative), "?" when d is symbolic (d when a is 0); ValueError when negative. */
Any AddDim(const Any& d, int64_t a, const char* what);
/*! \brief a * b for static sizes; ValueError naming what on overflow. */
int64_t CheckedMul(int64_t a, int64_t b, const char* what);

/*!
 * \brief A 1-D integer tensor input (a shape, pads, axes) with a static length: that length; TypeError /
 * ValueError naming `what` otherwise.
 */
int64_t StaticLengthArg(const Array<Type>& args, size_t i, const char* what);
/*! \brief A scalar (rank 0, or 1-D of length 1 when allow_vec1) input; TypeError naming `what` otherwise. */
const TensorTypeNode* ScalarArg(const Array<Type>& args, size_t i, const char* what, bool allow_vec1 = false);
/*! \brief A shape of n unknown dims. */
Array<Any> UnknownShape(int64_t n);
/*! \brief Normalised, duplicate-free axes; IndexError / ValueError naming the op. */
std::vector<int64_t> NormalizeAxes(const Array<int64_t>& axes, int64_t ndim, const char* op);

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_OP_TENSOR_TRANSFORM_UTIL_H_
