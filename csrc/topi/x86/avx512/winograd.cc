/*!
 * \file winograd.cc
 * \brief AVX-512 build of the Winograd transforms (csrc/topi/nn/winograd_transform.inc): the 16-lane loops become
 * one zmm each.
 */
#include <tvmlite/topi/nn/winograd.h>

namespace tvmlite {
namespace topi {
namespace winograd {

#define TVMLITE_WINOGRAD_INPUT InputTransformAVX512
#define TVMLITE_WINOGRAD_INPUT_S2 InputTransformS2AVX512
#define TVMLITE_WINOGRAD_OUTPUT OutputTransformAVX512
#include "../../nn/winograd_transform.inc"

}  // namespace winograd
}  // namespace topi
}  // namespace tvmlite
