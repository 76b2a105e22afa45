/*!
 * \file topi/reduce_plan.h
 * \brief What the reductions (reduce.cc: sum / mean / max / min) and the arg-reductions (arg_reduce.cc: argmax /
 * argmin) share: which dims a call reduces, and the input viewed as merged groups of kept and reduced dims.
 *
 *   std::vector<bool> reduced = reduce::ReducedDims(kernel, shape, all, axes, exclude);   // per call
 *   reduce::Plan p = reduce::MakePlan(shape, reduced, keepdims);
 *   out.CheckShape(p.out_shape);
 *   const float* base = x + reduce::Offset(o, p.kept_dims, p.kept_strides);               // output row o
 *
 * Adjacent dims that are both reduced or both kept merge (dims of 1 join either side), so the input is a short
 * alternation of kept and reduced groups. The last group (inner, contiguous) decides a kernel's inner loop; the
 * groups before it are walked as (kept index, reduced index) pairs whose offsets add. Reduced groups keep their
 * order, so reduced index r and inner position j (when the last group is reduced) give the row-major position
 * r * inner + j within the reduced dims: the index argmax reports.
 */
#ifndef TVMLITE_TOPI_REDUCE_PLAN_H_
#define TVMLITE_TOPI_REDUCE_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tvmlite {
namespace topi {
namespace reduce {

/*! \brief The input viewed as merged groups; see the file comment. */
struct Plan {
  std::vector<int64_t> out_shape;
  std::vector<int64_t> kept_dims, kept_strides;  // outer kept groups (the last group excluded)
  std::vector<int64_t> red_dims, red_strides;    // outer reduced groups
  int64_t inner = 1;                             // the last group's size
  bool inner_reduced = false;
  int64_t kept_count = 1, red_count = 1, reduce_size = 1;
};

/*!
 * \brief Which dims of shape are reduced: all of them (all: the attr axis is None), else the listed axes (negative
 * count from the end) or, with exclude, the others. ValueError naming the kernel for an axis out of range.
 */
std::vector<bool> ReducedDims(const std::string& kernel, const std::vector<int64_t>& shape, bool all,
                              const std::vector<int64_t>& axes, bool exclude);

Plan MakePlan(const std::vector<int64_t>& shape, const std::vector<bool>& reduced, bool keepdims);

/*! \brief The element offset of flat index `index` over dims (row-major) with the given strides. */
inline int64_t Offset(int64_t index, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t j = dims.size(); j-- > 0;) {
    off += index % dims[j] * strides[j];
    index /= dims[j];
  }
  return off;
}

}  // namespace reduce
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_REDUCE_PLAN_H_
