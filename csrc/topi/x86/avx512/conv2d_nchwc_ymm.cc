/*!
 * \file conv2d_nchwc_ymm.cc
 * \brief The AVX-512VL blocked conv2d for out block 8 (or 16 as two ymm halves): the ymm tiles of
 * csrc/topi/x86/conv2d_nchwc_ymm.inc with AVX-512VL's 32 ymm registers, at most 28 accumulators: three blocks of 8
 * output channels x 9 columns (MobileNetV2's 24-channel projections), one weight load per 9 FMAs where the AVX2
 * build's 12 accumulators take one block x 12 columns and a broadcast per FMA. Blocks of 8 channels stay ymm: on
 * AVX-512 machines whose zmm FMA runs as two 256-bit halves (AMD Zen 4) a ymm FMA is half the cost, and a zmm would
 * straddle two output blocks. This file is compiled with -mavx512f -mavx512vl.
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/conv2d.h>

#include "../fused_tail_vec.h"

namespace tvmlite {
namespace topi {

#define TVMLITE_CONV_YMM_ENTRY Conv2DNCHWcAVX512Ymm
#define TVMLITE_CONV_YMM_REGS 32
#include "../conv2d_nchwc_ymm.inc"

}  // namespace topi
}  // namespace tvmlite
