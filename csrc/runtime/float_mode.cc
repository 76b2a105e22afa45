/*!
 * \file float_mode.cc
 * \brief FlushDenormals and FloatModeScope (tvmlite/runtime/float_mode.h), and their globals
 * runtime.flush_denormals / runtime.set_flush_denormals.
 */
#include <tvmlite/runtime/float_mode.h>
#include <tvmlite/runtime/registry.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define TVMLITE_HAS_MXCSR 1
#endif

namespace tvmlite {
namespace runtime {
namespace {

constexpr uint32_t kFlushToZero = 0x8000;       // MXCSR.FTZ: subnormal results become zero
constexpr uint32_t kDenormalsAreZero = 0x0040;  // MXCSR.DAZ: subnormal inputs read as zero
constexpr uint32_t kExceptionFlags = 0x003f;    // MXCSR status: invalid, denormal, divide, overflow, underflow, inexact

std::atomic<bool>& FlushFlag() {
  static std::atomic<bool> flag([] {
    const char* env = std::getenv("TVMLITE_FLUSH_DENORMALS");
    return env != nullptr && std::strcmp(env, "1") == 0;
  }());
  return flag;
}

}  // namespace

bool FlushDenormals() { return FlushFlag().load(std::memory_order_relaxed); }
void SetFlushDenormals(bool on) { FlushFlag().store(on, std::memory_order_relaxed); }

uint32_t GetFloatMode() {
#ifdef TVMLITE_HAS_MXCSR
  // The control bits only: the sticky exception flags (bits 0-5) change with every inexact result, and comparing
  // them made the pool's workers reload MXCSR for every chunk.
  return _mm_getcsr() & ~kExceptionFlags;
#else
  return 0;
#endif
}

void SetFloatMode(uint32_t mode) {
#ifdef TVMLITE_HAS_MXCSR
  _mm_setcsr(mode);
#else
  (void)mode;
#endif
}

FloatModeScope::FloatModeScope() {
#ifdef TVMLITE_HAS_MXCSR
  if (!FlushDenormals()) return;
  saved_ = _mm_getcsr();
  const uint32_t flushed = saved_ | kFlushToZero | kDenormalsAreZero;
  active_ = flushed != saved_;
  if (active_) _mm_setcsr(flushed);
#endif
}

FloatModeScope::~FloatModeScope() {
  if (active_) SetFloatMode(saved_);
}

TVMLITE_REGISTER_GLOBAL("runtime.flush_denormals").set_body_typed([]() { return FlushDenormals(); });
TVMLITE_REGISTER_GLOBAL("runtime.set_flush_denormals").set_body_typed([](bool on) { SetFlushDenormals(on); });

}  // namespace runtime
}  // namespace tvmlite
