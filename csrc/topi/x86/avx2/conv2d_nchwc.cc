/*!
 * \file conv2d_nchwc.cc
 * \brief The AVX2 + FMA blocked conv2d (out block 8, or 16 as two ymm halves): the ymm tiles of
 * csrc/topi/x86/conv2d_nchwc_ymm.inc (the AVX-512 file's algorithm with 8 lanes) with 16 registers, at most 12
 * accumulators. This file is compiled with -mavx2 -mfma.
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/conv2d.h>

#include "../fused_tail_vec.h"

namespace tvmlite {
namespace topi {

#define TVMLITE_CONV_YMM_ENTRY Conv2DNCHWcAVX2
#define TVMLITE_CONV_YMM_REGS 16
#include "../conv2d_nchwc_ymm.inc"

}  // namespace topi
}  // namespace tvmlite
