/*!
 * \file tvmlite/topi/epilogue.h
 * \brief Fused elementwise programs: the tail of a fused group, run on output tiles while they are in cache.
 *
 * Text form (docs/compiler.md), one instruction per ';':  op dst src0 [src1] [alpha] [beta]
 *   add r0 r0 in0; add r0 r0 in1; relu r0 r0          conv + bias + residual + relu
 *   copy r0 in0; mul r1 r0 1.702; sigmoid r1 r1; mul r0 r0 r1
 * Registers r0..r7: r0 is the output (it starts as the anchor kernel's value, and its final value is the result);
 * in<k> is extra input k, numpy-broadcast to the output's shape; a number is an immediate.
 *
 *   Epilogue epi = attrs.GetEpilogue();   // the factory: KernelAttrs::GetEpilogue parses the attr "epilogue"
 *   ...per call:  BoundEpilogue bound = epi.Bind(out.shape(), args.Rest(2), kernel);
 *   ...per tile:  bound.Apply(out_data, flat_begin, n);   // in place on out_data[flat_begin, flat_begin + n)
 */
#ifndef TVMLITE_TOPI_EPILOGUE_H_
#define TVMLITE_TOPI_EPILOGUE_H_

#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/topi/epilogue_ops.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tvmlite {
namespace topi {

/*! \brief An opcode: EpiOp::kName for each row X(Name, ...) of TVMLITE_EPILOGUE_OPS (topi/epilogue_ops.h). */
enum class EpiOp : uint8_t {
#define TVMLITE_EPI_ENUMERATOR(name, text, arity, scalar, vec) k##name,
  TVMLITE_EPILOGUE_OPS(TVMLITE_EPI_ENUMERATOR)
#undef TVMLITE_EPI_ENUMERATOR
      kNumOps
};

/*! \brief The op's name in the text form ("add", "relu", ...). */
const char* EpiOpName(EpiOp op);
/*! \brief The number of sources (1 or 2). */
int EpiOpArity(EpiOp op);

/*! \brief Where an instruction reads a value from. */
struct EpiSrc {
  enum Kind : uint8_t { kReg, kInput, kImm } kind = kReg;
  int index = 0;  // register or extra-input number
  float imm = 0;
};

struct EpiInstr {
  EpiOp op;
  int dst;
  EpiSrc a, b;
  float alpha = 0, beta = 0;
};

class BoundEpilogue;

/*! \brief A parsed program; cheap to copy, immutable, shared by every call of a bound kernel. */
class Epilogue {
 public:
  static constexpr int kNumRegs = 8;
  static constexpr int kMaxInputs = 64;

  Epilogue() = default;
  /*! \brief Parse text ("" is the empty program); a malformed program is a ValueError naming kernel. */
  static Epilogue Parse(const std::string& text, const std::string& kernel);
  bool empty() const { return code_.empty(); }
  /*! \brief 1 + the highest in<k> it reads (0 when it reads none). */
  int num_inputs() const { return num_inputs_; }
  const std::vector<EpiInstr>& code() const { return code_; }
  /*! \brief The canonical text (Parse(ToString()) gives the same program). */
  std::string ToString() const;
  /*!
   * \brief Bind to one call: the output's shape and the extra inputs (float32, each broadcastable to out_shape;
   * checked, ValueError/TypeError naming kernel).
   */
  BoundEpilogue Bind(const std::vector<int64_t>& out_shape, const std::vector<runtime::NDArray>& inputs,
                     const std::string& kernel) const;

 private:
  std::vector<EpiInstr> code_;
  int num_inputs_ = 0;
};

/*! \brief A program bound to one call's tensors. Apply is thread-safe (its scratch is on the stack). */
class BoundEpilogue {
 public:
  bool empty() const { return code_ == nullptr || code_->empty(); }
  /*!
   * \brief Run the program in place on out[begin, begin + n): out is the whole output's base pointer, begin a
   * flat (row-major) index. A no-op for the empty program. Uses the loops of CpuIsa() as it is at the call (read
   * once per call): EpiRunAVX512, EpiRunAVX2 or the portable EpiRun.
   */
  void Apply(float* out, int64_t begin, int64_t n) const;
  /*!
   * \brief Run the program in place on dst[0, n), which holds the output's values at flat indices [begin, begin + n)
   * somewhere else than the output (a kernel's scratch: the depthwise chain's expanded planes): the inputs are read
   * at the output's indices, the values at dst.
   */
  void ApplyTo(float* dst, int64_t begin, int64_t n) const;

 private:
  friend class Epilogue;
  struct Operand {
    const float* data;
    std::vector<int64_t> strides;  // per collapsed dim, 0 where broadcast
  };
  /*!
   * \brief Sources that are one value across a tile (immediates; inputs broadcast along the innermost dim) are
   * splatted once per tile (immediates once per Apply) into one of at most kMaxSplats buffers, shared by every
   * instruction reading them; src_splat_[2 * i + j] is source j of instruction i's buffer, or -1.
   */
  static constexpr int kMaxSplats = 8;
  const std::vector<EpiInstr>* code_ = nullptr;
  std::vector<int64_t> shape_;     // the output's shape with mergeable dims collapsed
  std::vector<Operand> operands_;  // one per extra input
  std::vector<EpiSrc> splats_;
  std::vector<int8_t> src_splat_;
  /*!
   * \brief Rows too short for a tile: tiles span the rows of one block of the last two collapsed dims, and inputs
   * not contiguous across them are gathered per tile into buffer gather_slot_[k] (-1: read in place or splatted).
   */
  bool multi_row_ = false;
  std::vector<int8_t> gather_slot_;
  /*! \brief Whether extra input k holds one value over any tile. */
  bool IsTileConstant(int k) const;
};

/*!
 * \brief y[i] = op(a[i], b[i]) over n values (b unused for unary ops): the interpreter's inner loops, portable
 * scalar code (libm). y may be a or b.
 */
void EpiRun(const EpiInstr& ins, float* dst, const float* a, const float* b, int64_t n);
/*! \brief The same on 16 lanes (csrc/topi/x86/avx512/epilogue.cc); only when CpuIsa() is kAVX512. */
void EpiRunAVX512(const EpiInstr& ins, float* dst, const float* a, const float* b, int64_t n);
/*! \brief The same on 8 lanes (csrc/topi/x86/avx2/epilogue.cc); only when CpuIsa() is at least kAVX2. */
void EpiRunAVX2(const EpiInstr& ins, float* dst, const float* a, const float* b, int64_t n);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_EPILOGUE_H_
