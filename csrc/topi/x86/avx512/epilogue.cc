/*!
 * \file avx512/epilogue.cc
 * \brief EpiRunAVX512: the epilogue interpreter's loops on 16 lanes (the ops are in ../epilogue_vec.inc).
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

void EpiRunAVX512(const EpiInstr& ins, float* y, const float* a, const float* b, int64_t n) {
  RunVector(ins, y, a, b, n);
}

}  // namespace topi
}  // namespace tvmlite
