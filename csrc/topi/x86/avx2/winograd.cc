/*!
 * \file winograd.cc
 * \brief AVX2 + FMA build of the Winograd transforms (csrc/topi/nn/winograd_transform.inc): the 8-lane loops of
 * 8-channel blocks become one ymm each (16-channel blocks: two).
 */
#include <tvmlite/topi/nn/winograd.h>

namespace tvmlite {
namespace topi {
namespace winograd {

#define TVMLITE_WINOGRAD_INPUT InputTransformAVX2
#define TVMLITE_WINOGRAD_INPUT_S2 InputTransformS2AVX2
#define TVMLITE_WINOGRAD_OUTPUT OutputTransformAVX2
#include "../../nn/winograd_transform.inc"

}  // namespace winograd
}  // namespace topi
}  // namespace tvmlite
