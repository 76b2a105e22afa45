/*!
 * \file avx512/epilogue.cc
 * \brief EpiRunAVX512: the epilogue interpreter's loops on 16 lanes (the ops are in ../epilogue_vec.inc).
 */
#include <tvmlite/topi/epilogue.h>

// GCC 12's avx512fintrin.h passes _mm512_undefined_ps() to the masked builtins behind max/min/roundscale/scalef,
// which -O3 reports as maybe-uninitialized (GCC bug 105593, fixed in 13): nothing here reads an undefined lane.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cmath>
#include <cstdint>

namespace tvmlite {
namespace topi {
namespace {

typedef __m512 V;
typedef __mmask16 M;
constexpr int W = 16;

static inline V Load(const float* p) { return _mm512_loadu_ps(p); }
static inline void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
static inline V Set1(float v) { return _mm512_set1_ps(v); }
static inline V Add(V a, V b) { return _mm512_add_ps(a, b); }
static inline V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
static inline V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
static inline V Div(V a, V b) { return _mm512_div_ps(a, b); }
static inline V Fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
static inline V Fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
static inline V Fmsub(V a, V b, V c) { return _mm512_fmsub_ps(a, b, c); }
static inline V Max(V a, V b) { return _mm512_max_ps(a, b); }
static inline V Min(V a, V b) { return _mm512_min_ps(a, b); }
static inline V Sqrt(V a) { return _mm512_sqrt_ps(a); }
static inline V Floor(V a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static inline V Ceil(V a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
static inline V RoundEven(V a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline V And(V a, V b) { return _mm512_and_ps(a, b); }
static inline V Or(V a, V b) { return _mm512_or_ps(a, b); }
static inline V Xor(V a, V b) { return _mm512_xor_ps(a, b); }
static inline V AndNot(V a, V b) { return _mm512_andnot_ps(a, b); }
static inline M Lt(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline M Le(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static inline M Gt(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline M Eq(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static inline M Unord(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
static inline V Select(M m, V t, V f) { return _mm512_mask_blend_ps(m, f, t); }
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
