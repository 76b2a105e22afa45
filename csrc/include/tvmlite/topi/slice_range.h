/*!
 * \file tvmlite/topi/slice_range.h
 * \brief A slice's range on one axis by numpy's rules: the one place this arithmetic lives.
 *
 *   SliceRange r = SliceIndices(10, -3, 100, 1);    // r.start == 7, r.length == 3 (Python's slice.indices)
 *   int64_t e = SizeModeEnd(10, -3, 2);             // slice_mode "size": begin -3, 2 long -> end 9
 *
 * Users: the relation of strided_slice (csrc/relay/op/tensor/index.cc, the output's static dims) and the kernel
 * topi.strided_slice (csrc/topi/transform/strided_slice.cc, where its copy starts), so they cannot disagree.
 */
#ifndef TVMLITE_TOPI_SLICE_RANGE_H_
#define TVMLITE_TOPI_SLICE_RANGE_H_

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tvmlite {
namespace topi {

/*! \brief The first index and the count of data[begin:end:step] on an axis of n. */
struct SliceRange {
  int64_t start;
  int64_t length;
};

/*! \brief Python's slice(begin, end, step).indices(n), for any int64 bounds (no overflow); step != 0. */
inline SliceRange SliceIndices(int64_t n, int64_t begin, int64_t end, int64_t step) {
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v = v < -n ? lo : v + n;  // v + n cannot overflow: v >= -n here
    return std::min(std::max(v, lo), hi);
  };
  __int128 len;
  int64_t start;
  if (step > 0) {
    int64_t b = clamp(begin, 0, n), e = clamp(end, 0, n);
    start = b;
    len = e > b ? (static_cast<__int128>(e) - b + step - 1) / step : 0;
  } else {
    int64_t b = clamp(begin, -1, n - 1), e = clamp(end, -1, n - 1);
    __int128 s = -static_cast<__int128>(step);
    start = b;
    len = b > e ? (static_cast<__int128>(b) - e + s - 1) / s : 0;
  }
  return {start, static_cast<int64_t>(len)};
}

/*!
 * \brief slice_mode "size": the end of `size` elements from begin on an axis of n (size -1: to the end; a negative
 * begin counts from the end, as the reference), saturating at int64's max. The caller checks size >= -1.
 */
inline int64_t SizeModeEnd(int64_t n, int64_t begin, int64_t size) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (begin < 0) begin = std::max<int64_t>(begin + n, 0);
  return size == -1 || begin > kMax - size ? kMax : begin + size;
}

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_SLICE_RANGE_H_
