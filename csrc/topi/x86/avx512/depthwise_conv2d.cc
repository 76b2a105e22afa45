/*!
 * \file depthwise_conv2d.cc
 * \brief AVX-512 rows of topi.nn.depthwise_conv2d_nchwc: the rows of ../depthwise_row.inc with 16 lanes and 32
 * registers (tiles of at most 16 columns). This file is compiled with -mavx512f. See tvmlite/topi/nn/depthwise.h.
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/depthwise.h>

#include <algorithm>
#include <array>
#include <utility>

namespace tvmlite {
namespace topi {

namespace {

#include "vec.inc"

}  // namespace

#define TVMLITE_DEPTHWISE_ROW_ENTRY DepthwiseRowAVX512
#include "../depthwise_row.inc"

}  // namespace topi
}  // namespace tvmlite
