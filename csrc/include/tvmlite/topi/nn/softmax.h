/*!
 * \file tvmlite/topi/nn/softmax.h
 * \brief The row primitives of softmax / log_softmax (csrc/topi/nn/softmax.cc), with AVX-512, AVX2 and portable
 * variants of one algorithm, so every path gives the same values to within an ulp or two:
 *
 *   float m = RowMax(x, n);                      // NaN if any x is NaN
 *   float s = ExpShiftSum(x, y, n, m);           // y[i] = exp(x[i] - m), returns the sum of y
 *   DivideRow(y, n, s);                          // y[i] /= s
 *
 * exp is Cephes' expf: n = round(x / ln 2), r = x - n ln 2 in two parts (Cody-Waite), a degree-6 polynomial of r,
 * scaled by 2^n; below -87.3 (the smallest normal result) it is 0, above 88.7 inf, NaN stays NaN. Max error about
 * one ulp over the normal range.
 */
#ifndef TVMLITE_TOPI_NN_SOFTMAX_H_
#define TVMLITE_TOPI_NN_SOFTMAX_H_

#include <cstdint>

namespace tvmlite {
namespace topi {
namespace softmax {

float RowMaxAVX512(const float* x, int64_t n);
float RowMaxAVX2(const float* x, int64_t n);
/*! \brief y = exp(x - shift) elementwise; returns sum(y). y may alias x; y null: only the sum. */
float ExpShiftSumAVX512(const float* x, float* y, int64_t n, float shift);
float ExpShiftSumAVX2(const float* x, float* y, int64_t n, float shift);
/*! \brief y[i] /= s: the IEEE quotient, as a scalar loop gives it, a vector at a time. */
void DivideRowAVX512(float* y, int64_t n, float s);
void DivideRowAVX2(float* y, int64_t n, float s);

/*! \brief Cephes expf constants, shared by every variant. */
constexpr float kExpHi = 88.3762626647949f;
constexpr float kExpLo = -87.3365447504f;  // log(FLT_MIN): below it the result is 0
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500E-4f;
constexpr float kP1 = 1.3981999507E-3f;
constexpr float kP2 = 8.3334519073E-3f;
constexpr float kP3 = 4.1665795894E-2f;
constexpr float kP4 = 1.6666665459E-1f;
constexpr float kP5 = 5.0000001201E-1f;

}  // namespace softmax
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_SOFTMAX_H_
