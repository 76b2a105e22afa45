/*!
 * \file reduce_plan.cc
 * \brief The reductions' shared plan: reduce_plan.h.
 */
#include "./reduce_plan.h"

#include <tvmlite/runtime/error.h>

namespace tvmlite {
namespace topi {
namespace reduce {

std::vector<bool> ReducedDims(const std::string& kernel, const std::vector<int64_t>& shape, bool all,
                              const std::vector<int64_t>& axes, bool exclude) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  std::vector<bool> listed(shape.size(), false);
  for (int64_t a : axes) {
    TVMLITE_CHECK_KIND(a >= -ndim && a < ndim, ValueError)
        << kernel << ": axis " << a << " is out of range for rank " << ndim;
    listed[a < 0 ? a + ndim : a] = true;
  }
  std::vector<bool> reduced(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) reduced[i] = all || (exclude ? !listed[i] : listed[i]);
  return reduced;
}

Plan MakePlan(const std::vector<int64_t>& shape, const std::vector<bool>& reduced, bool keepdims) {
  Plan p;
  const size_t n = shape.size();
  for (size_t i = 0; i < n; ++i) {
    if (!reduced[i]) p.out_shape.push_back(shape[i]);
    else if (keepdims) p.out_shape.push_back(1);
    if (reduced[i]) p.reduce_size *= shape[i];
  }
  // merge adjacent dims with the same flag (dims of size 1 join either side)
  std::vector<int64_t> dims;
  std::vector<bool> flags;
  for (size_t i = 0; i < n; ++i) {
    if (shape[i] == 1) continue;
    if (!dims.empty() && flags.back() == reduced[i]) {
      dims.back() *= shape[i];
    } else {
      dims.push_back(shape[i]);
      flags.push_back(reduced[i]);
    }
  }
  if (dims.empty()) dims.push_back(1), flags.push_back(false);
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (size_t i = dims.size(); i-- > 0;) strides[i] = s, s *= dims[i];
  p.inner = dims.back();
  p.inner_reduced = flags.back();
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    (flags[i] ? p.red_dims : p.kept_dims).push_back(dims[i]);
    (flags[i] ? p.red_strides : p.kept_strides).push_back(strides[i]);
    (flags[i] ? p.red_count : p.kept_count) *= dims[i];
  }
  return p;
}

}  // namespace reduce
}  // namespace topi
}  // namespace tvmlite
