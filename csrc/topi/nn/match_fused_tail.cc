/*!
 * \file match_fused_tail.cc
 * \brief MatchFusedTail (match_fused_tail.h): which epilogues the conv and GEMM kernels apply in registers.
 */
#include "match_fused_tail.h"

#include <cmath>

namespace tvmlite {
namespace topi {

bool MatchFusedTail(const Epilogue& program, const std::vector<runtime::NDArray>& inputs,
                    const std::vector<int64_t>& out_shape, const std::vector<int64_t>& channel_shape, FusedTail* tail,
                    bool allow_scale, bool allow_gelu) {
  const size_t rank = out_shape.size();
  if (program.empty() || channel_shape.size() != rank) return false;
  auto is_reg = [](const EpiSrc& src, int reg) { return src.kind == EpiSrc::kReg && src.index == reg; };
  int cur = 0, adds = 0;
  bool activated = false, first = true;
  for (const EpiInstr& ins : program.code()) {
    if (activated) return false;
    const bool opening = first;
    first = false;
    const bool imm_b = ins.b.kind == EpiSrc::kImm, imm_a = ins.a.kind == EpiSrc::kImm;
    if (opening && allow_scale && ins.op == EpiOp::kMul &&
        ((is_reg(ins.a, cur) && imm_b) || (imm_a && is_reg(ins.b, cur)))) {
      tail->scale_op = FusedTail::kMulImm;
      tail->scale = imm_b ? ins.b.imm : ins.a.imm;
    } else if (opening && allow_scale && ins.op == EpiOp::kDiv && is_reg(ins.a, cur) && imm_b) {
      // x / 2^e is x * 2^-e exactly (one rounding of the same real number) when 2^-e is a float: a multiply,
      // several times cheaper than a divide (BERT-base: scores / sqrt(64))
      const double inv = 1.0 / static_cast<double>(ins.b.imm);
      int e = 0;
      const bool exact = std::isfinite(inv) && inv != 0 && std::frexp(std::fabs(ins.b.imm), &e) == 0.5f &&
                         static_cast<double>(static_cast<float>(inv)) == inv;
      tail->scale_op = exact ? FusedTail::kMulImm : FusedTail::kDivImm;
      tail->scale = exact ? static_cast<float>(inv) : ins.b.imm;
    } else if (ins.op == EpiOp::kAdd) {
      const bool a_cur = is_reg(ins.a, cur);
      const EpiSrc& other = a_cur ? ins.b : ins.a;
      if (adds == 2 || !(a_cur || is_reg(ins.b, cur)) || other.kind != EpiSrc::kInput) return false;
      const runtime::NDArray& x = inputs[other.index];
      const DLDataType dtype = x->tensor.dtype;
      if (dtype.code != kDLFloat || dtype.bits != 32 || dtype.lanes != 1) return false;
      std::vector<int64_t> shape = x.Shape();
      if (shape.size() > rank) return false;
      shape.insert(shape.begin(), rank - shape.size(), 1);
      const DLTensor& t = x->tensor;
      tail->add[adds] = reinterpret_cast<const float*>(static_cast<const char*>(t.data) + t.byte_offset);
      if (shape == out_shape) {
        tail->add_kind[adds++] = FusedTail::kFull;
      } else if (shape == channel_shape) {
        tail->add_kind[adds++] = FusedTail::kChannel;
      } else {
        return false;
      }
    } else if ((ins.op == EpiOp::kRelu || ins.op == EpiOp::kClip) && is_reg(ins.a, cur)) {
      tail->act = ins.op == EpiOp::kRelu ? FusedTail::kRelu : FusedTail::kClip;
      tail->lo = ins.alpha;
      tail->hi = ins.beta;
      activated = true;
    } else if (allow_gelu && ins.op == EpiOp::kGelu && is_reg(ins.a, cur)) {
      tail->act = FusedTail::kGelu;
      activated = true;
    } else {
      return false;
    }
    cur = ins.dst;
  }
  return cur == 0;
}

std::vector<int64_t> ConvChannelShape(const std::vector<int64_t>& out_shape) {
  std::vector<int64_t> channel(out_shape.size(), 1);
  if (out_shape.size() >= 2) channel[1] = out_shape[1];
  if (out_shape.size() == 5) channel[4] = out_shape[4];
  return channel;
}

std::vector<int64_t> BlockedChannelShape(const std::vector<int64_t>& out_shape) {
  std::vector<int64_t> channel(out_shape.size(), 1);
  if (out_shape.size() >= 2) channel[1] = out_shape[1];
  if (out_shape.size() >= 3) channel.back() = out_shape.back();
  return channel;
}

}  // namespace topi
}  // namespace tvmlite
