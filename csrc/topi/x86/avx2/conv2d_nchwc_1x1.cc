/*!
 * \file conv2d_nchwc_1x1.cc
 * \brief The AVX2 + FMA blocked conv2d for 1x1 kernels: the same ymm tiles as conv2d_nchwc.cc
 * (csrc/topi/x86/conv2d_nchwc_ymm.inc), compiled apart with -fschedule-insns -fsched-pressure (setup.py).
 *
 * Why apart: GCC does not schedule before register allocation on x86 by default, and the tiles' 12 accumulators, two
 * weight vectors and a broadcast fill 15 of the 16 ymm registers. With the pressure-aware first pass, the 1x1 tiles
 * (one loop over the channel blocks, eight channels a trip) ran 2-7% faster at one thread and 3-8% at two on a Zen 3
 * (ResNet-50's 1x1 convs, MobileNetV2's expands and projects); the 3x3 tiles 1-2% slower and the 7x7 stem 8%, so
 * those stay in conv2d_nchwc.cc (PickConv2DFastPath's pointwise).
 */
#include <immintrin.h>
#include <tvmlite/topi/nn/conv2d.h>

#include "../fused_tail_vec.h"

namespace tvmlite {
namespace topi {

#define TVMLITE_CONV_YMM_ENTRY Conv2DNCHWcAVX2Pointwise
#define TVMLITE_CONV_YMM_REGS 16
#include "../conv2d_nchwc_ymm.inc"

}  // namespace topi
}  // namespace tvmlite
