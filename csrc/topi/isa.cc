/*!
 * \file isa.cc
 * \brief CpuIsa(): the CPU's features, lowered by TVMLITE_ISA; registered as topi.cpu_isa / topi.set_cpu_isa.
 */
#include <tvmlite/runtime/error.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/string.h>
#include <tvmlite/topi/isa.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tvmlite {
namespace topi {
namespace {

Isa HardwareIsa() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl")) {
    return Isa::kAVX512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAVX2;
#endif
  return Isa::kScalar;
}

bool ParseIsa(const std::string& name, Isa* out) {
  if (name == "avx512") return *out = Isa::kAVX512, true;
  if (name == "avx2") return *out = Isa::kAVX2, true;
  if (name == "scalar") return *out = Isa::kScalar, true;
  return false;
}

Isa Clamp(Isa wanted) { return static_cast<int>(wanted) < static_cast<int>(HardwareIsa()) ? wanted : HardwareIsa(); }

std::atomic<int>& Current() {
  static std::atomic<int> isa([] {
    Isa wanted = HardwareIsa();
    if (const char* env = std::getenv("TVMLITE_ISA")) ParseIsa(env, &wanted);  // unknown names: the hardware's
    return static_cast<int>(Clamp(wanted));
  }());
  return isa;
}

}  // namespace

Isa CpuIsa() { return static_cast<Isa>(Current().load(std::memory_order_relaxed)); }

const char* IsaName(Isa isa) { return isa == Isa::kAVX512 ? "avx512" : isa == Isa::kAVX2 ? "avx2" : "scalar"; }

Isa SetCpuIsa(Isa isa) {
  Current().store(static_cast<int>(Clamp(isa)), std::memory_order_relaxed);
  return CpuIsa();
}

TVMLITE_REGISTER_GLOBAL("topi.cpu_isa").set_body_typed([]() { return runtime::String(IsaName(CpuIsa())); });
TVMLITE_REGISTER_GLOBAL("topi.set_cpu_isa").set_body_typed([](runtime::String name) {
  Isa isa;
  TVMLITE_CHECK_KIND(ParseIsa(std::string(name), &isa), ValueError)
      << "topi.set_cpu_isa: expected 'avx512', 'avx2' or 'scalar', got '" << std::string(name) << "'";
  return runtime::String(IsaName(SetCpuIsa(isa)));
});

}  // namespace topi
}  // namespace tvmlite
