/*!
 * \file pool.cc
 * \brief AVX2 rows of topi.nn.{max,avg}_pool2d on blocked data, 8 channels a vector (../pool_row.inc). See
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

void PoolRowAVX2(const PoolRowArgs& a) { PoolRow(a); }

}  // namespace topi
}  // namespace tvmlite
