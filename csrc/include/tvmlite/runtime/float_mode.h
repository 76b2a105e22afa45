/*!
 * \file tvmlite/runtime/float_mode.h
 * \brief Opt-in flush-to-zero for the kernels: subnormal floats (|x| < 1.2e-38) are up to ~100x slower on x86 cores,
 * and a model whose activations decay into them (a saturated sigmoid, a long product of small weights) can run
 * orders of magnitude slower. With FlushDenormals() on, every kernel call runs with FTZ and DAZ set (subnormal
 * results and inputs read as zero), as onnxruntime's session.set_denormal_as_zero does; off (the default), results
 * are IEEE's to the last bit.
 *
 *   runtime::SetFlushDenormals(true);     // or TVMLITE_FLUSH_DENORMALS=1, or runtime.set_flush_denormals(True)
 *   { runtime::FloatModeScope scope; ... }  // MakeKernel does this around each kernel call
 *
 * The pool runs a ParallelFor's chunks in its launcher's float mode (ParallelFor reads it at launch), and the mode
 * is restored when the scope ends: Python's own float arithmetic never sees it. x86 only; elsewhere a no-op.
 */
#ifndef TVMLITE_RUNTIME_FLOAT_MODE_H_
#define TVMLITE_RUNTIME_FLOAT_MODE_H_

#include <cstdint>

namespace tvmlite {
namespace runtime {

/*! \brief Whether kernels flush subnormals to zero (TVMLITE_FLUSH_DENORMALS=1 at start, else off). */
bool FlushDenormals();
void SetFlushDenormals(bool on);

/*! \brief The calling thread's float control word (MXCSR on x86; 0 elsewhere), and setting it. */
uint32_t GetFloatMode();
void SetFloatMode(uint32_t mode);

/*! \brief FTZ and DAZ set for the scope when FlushDenormals(); the thread's previous mode restored at its end. */
class FloatModeScope {
 public:
  FloatModeScope();
  ~FloatModeScope();
  FloatModeScope(const FloatModeScope&) = delete;
  FloatModeScope& operator=(const FloatModeScope&) = delete;

 private:
  uint32_t saved_ = 0;
  bool active_ = false;
};

}  // namespace runtime
}  // namespace tvmlite
#endif  // TVMLITE_RUNTIME_FLOAT_MODE_H_
