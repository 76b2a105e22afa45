/*!
 * \file tvmlite/topi/nn/pool.h
 * \brief The ISA entry points of topi.nn.{max,avg}_pool2d on blocked data (csrc/topi/nn/pool.cc dispatches).
 *
 *   PoolRowArgs a{...};                       // one output row of one (batch, channel block) plane
 *   if (CpuIsa() == Isa::kAVX512 && a.c % 16 == 0) PoolRowAVX512(a);
 *
 * The input plane is (H, W, c), the output row (OW, c). Column ow reduces the taps kh in [kh_lo, kh_hi) and kw in
 * [col_lo[ow], col_hi[ow]) (the caller clipped both to the input), at input (ih0 + kh * dh, ow * sw - pl + kw * dw).
 * scale == nullptr: max; else avg, column ow's sum times scale[ow].
 */
#ifndef TVMLITE_TOPI_NN_POOL_H_
#define TVMLITE_TOPI_NN_POOL_H_

#include <cstdint>

namespace tvmlite {
namespace topi {

struct PoolRowArgs {
  const float* plane;
  float* out;
  int64_t W, OW, c;
  int64_t sw, dw, pl, dh;
  int64_t ih0, kh_lo, kh_hi;
  const int64_t* col_lo;  // OW entries
  const int64_t* col_hi;
  const float* scale;  // OW entries (avg), or nullptr (max)
};

/*! \brief c a multiple of 16; AVX-512F only. */
void PoolRowAVX512(const PoolRowArgs& a);
/*! \brief c a multiple of 8; AVX2 only. */
void PoolRowAVX2(const PoolRowArgs& a);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_POOL_H_
