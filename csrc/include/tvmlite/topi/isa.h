/*!
 * \file tvmlite/topi/isa.h
 * \brief Which vector ISA the kernels use, picked once from the CPU.
 *
 * TVMLITE_ISA=avx512|avx2|scalar asks for one; a request above what the CPU has falls back to what it has, so
 * tests can run every path on an AVX-512 machine and nothing can select an instruction the CPU lacks.
 */
#ifndef TVMLITE_TOPI_ISA_H_
#define TVMLITE_TOPI_ISA_H_

namespace tvmlite {
namespace topi {

enum class Isa : int { kScalar = 0, kAVX2 = 1, kAVX512 = 2 };

/*! \brief The ISA in use (AVX2 means AVX2 + FMA; AVX-512 means F, BW, DQ and VL). */
Isa CpuIsa();
/*! \brief Floats in a vector register of isa: 16, 8 or 1. */
inline int VectorLanes(Isa isa) { return isa == Isa::kAVX512 ? 16 : isa == Isa::kAVX2 ? 8 : 1; }
const char* IsaName(Isa isa);
/*! \brief Use isa from now on (clamped to what the CPU has); tests and benchmarks only. Returns the one in use. */
Isa SetCpuIsa(Isa isa);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_ISA_H_
