/*!
 * \file avx512/epilogue.cc
 * \brief EpiRunAVX512: the epilogue interpreter's loops on 16 lanes (the ops are in ../epilogue_vec.inc).
 */
#include <tvmlite/topi/epilogue.h>

#include <immintrin.h>

#include <cmath>
#include <cstdint>

namespace tvmlite {
namespace topi {
namespace {

#include "vec.inc"

static inline V Scale2(V p, V n) { return _mm512_scalef_ps(p, n); }
static inline void LogSplit(V x, V* m, V* e) {
  V mant = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);  // [1, 2), denormals normalised
  V ex = _mm512_getexp_ps(x);
  M big = _mm512_cmp_ps_mask(mant, _mm512_set1_ps(1.41421356f), _CMP_GT_OQ);
  *m = _mm512_mask_mul_ps(mant, big, mant, _mm512_set1_ps(0.5f));
  *e = _mm512_mask_add_ps(ex, big, ex, _mm512_set1_ps(1.0f));
}

#include "../epilogue_vec.inc"

}  // namespace

void EpiRunAVX512(const EpiInstr& ins, float* y, const float* a, const float* b, int64_t n) {
  RunVector(ins, y, a, b, n);
}

}  // namespace topi
}  // namespace tvmlite
