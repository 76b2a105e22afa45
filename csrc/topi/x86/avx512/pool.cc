/*!
 * \file pool.cc
 * \brief AVX-512 rows of topi.nn.{max,avg}_pool2d on blocked data, 16 channels a vector (../pool_row.inc). See
 * tvmlite/topi/nn/pool.h.
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/pool.h>

namespace tvmlite {
namespace topi {

namespace {

#include "vec.inc"

#include "../pool_row.inc"

}  // namespace

void PoolRowAVX512(const PoolRowArgs& a) { PoolRow(a); }

}  // namespace topi
}  // namespace tvmlite
