/*!
 * \file depthwise_conv2d.cc
 * \brief AVX2 rows of topi.nn.depthwise_conv2d_nchwc: the rows of ../depthwise_row.inc with 8 lanes and 16 registers
 * (tiles of at most 12 columns). This file is compiled with -mavx2 -mfma. See tvmlite/topi/nn/depthwise.h.
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

#define TVMLITE_DEPTHWISE_ROW_ENTRY DepthwiseRowAVX2
#include "../depthwise_row.inc"

}  // namespace topi
}  // namespace tvmlite
