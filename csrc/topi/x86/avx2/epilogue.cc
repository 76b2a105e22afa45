/*!
 * \file avx2/epilogue.cc
 * \brief EpiRunAVX2: the epilogue interpreter's loops on 8 lanes with FMA (the ops are in ../epilogue_vec.inc).
 */
#include <tvmlite/topi/epilogue.h>

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tvmlite {
namespace topi {
namespace {

#include "vec.inc"
#include "../epilogue_vec.inc"

}  // namespace

void EpiRunAVX2(const EpiInstr& ins, float* y, const float* a, const float* b, int64_t n) {
  RunVector(ins, y, a, b, n);
}

}  // namespace topi
}  // namespace tvmlite
