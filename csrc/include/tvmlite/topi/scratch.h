/*!
 * \file tvmlite/topi/scratch.h
 * \brief A kernel's scratch buffer, kept across calls and 64-byte aligned.
 *
 *   static thread_local std::vector<float> buf;       // the calling thread's, kept: the executor repeats its calls
 *   float* p = topi::AlignedScratch(&buf, n);          // n floats at a 64-byte boundary
 *
 * Why aligned: malloc's large blocks (mmap'd) start 16 bytes into a page, so a buffer of vectors laid out at
 * multiples of 16 floats (a packed GEMM panel's k step, a blocked tensor's pixel) had every zmm load and store
 * straddle two cache lines: nn.dense, which packs its weight into scratch per call, ran 6-10% slower at 128x768x768
 * in a process whose buffer landed so. The vector grows, never shrinks; the pointer stays valid until the next call
 * with the same buffer asks for more.
 */
#ifndef TVMLITE_TOPI_SCRATCH_H_
#define TVMLITE_TOPI_SCRATCH_H_

#include <cstdint>
#include <vector>

namespace tvmlite {
namespace topi {

inline float* AlignedScratch(std::vector<float>* buf, int64_t n) {
  constexpr int64_t kSlack = 64 / sizeof(float);
  if (static_cast<int64_t>(buf->size()) < n + kSlack) buf->resize(static_cast<size_t>(n + kSlack));
  const uintptr_t p = reinterpret_cast<uintptr_t>(buf->data());
  return reinterpret_cast<float*>((p + 63) & ~uintptr_t(63));
}

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_SCRATCH_H_
