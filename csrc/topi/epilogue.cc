/*!
 * \file epilogue.cc
 * \brief The epilogue interpreter: parse, bind (broadcast strides over collapsed output dims), apply by tiles.
 *
 * Apply walks the output range row by row (a row is the innermost collapsed dim), in tiles of at most kTile values.
 * r0 is the output memory itself, the other registers are stack buffers; an input whose innermost stride is 1 is
 * read in place. Each instruction is one tight loop over the tile (EpiRun, or its AVX2 / AVX-512 twin picked once
 * per Apply), so dispatch costs one switch per instruction per tile. Immediates and inputs that are one value over
 * a tile are splatted once per tile (immediates once per Apply) into buffers shared by the instructions reading
 * them (Bind assigns them). Rows shorter than kMultiRowBelow (NCHW16c with a per-channel bias: 16 values) would
 * make tiles too short to amortise that: there a tile spans rows, and inputs that are not contiguous across rows
 * (the bias) are gathered into a buffer per tile; one whose rows are all alike (a blocked per-channel scale) keeps
 * its buffer for the following tiles of the same outer index.
 */
#include <tvmlite/runtime/error.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace tvmlite {
namespace topi {
namespace {

constexpr int64_t kTile = 256;
/*! \brief Rows shorter than this make tiles that span rows (see Bind). */
constexpr int64_t kMultiRowBelow = kTile / 4;

struct OpInfo {
  const char* name;
  int arity;
};

constexpr OpInfo kOps[] = {
#define TVMLITE_EPI_OP_INFO(name, text, arity, scalar, vec) {text, arity},
    TVMLITE_EPILOGUE_OPS(TVMLITE_EPI_OP_INFO)
#undef TVMLITE_EPI_OP_INFO
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == static_cast<size_t>(EpiOp::kNumOps), "one row per EpiOp");

std::string FormatFloat(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

bool ParseFloat(const std::string& tok, float* out) {
  char* end = nullptr;
  *out = std::strtof(tok.c_str(), &end);
  return !tok.empty() && end == tok.c_str() + tok.size();
}

bool ParseIndexed(const std::string& tok, const char* prefix, int limit, int* out) {
  size_t n = std::strlen(prefix);
  if (tok.size() <= n || tok.compare(0, n, prefix) != 0) return false;
  int v = 0;
  for (size_t i = n; i < tok.size(); ++i) {
    if (tok[i] < '0' || tok[i] > '9' || v > limit) return false;
    v = v * 10 + (tok[i] - '0');
  }
  if (v >= limit) return false;
  *out = v;
  return true;
}

std::string SrcText(const EpiSrc& s) {
  if (s.kind == EpiSrc::kReg) return "r" + std::to_string(s.index);
  if (s.kind == EpiSrc::kInput) return "in" + std::to_string(s.index);
  return FormatFloat(s.imm);
}

// The helpers of the opcode table's scalar forms (epilogue_ops.h).

/*! \brief exp(-|x|) cannot overflow, so sigmoid of a very negative x is its (denormal) value, not 1 / inf. */
inline float Sigmoid(float x) {
  float e = std::exp(-std::fabs(x));
  return x < 0 ? e / (1.0f + e) : 1.0f / (1.0f + e);
}
/*! \brief x clamped to [0, 1], NaN staying NaN (as numpy's clip). */
inline float Clamp01(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float Softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

}  // namespace

const char* EpiOpName(EpiOp op) { return kOps[static_cast<int>(op)].name; }
int EpiOpArity(EpiOp op) { return kOps[static_cast<int>(op)].arity; }

Epilogue Epilogue::Parse(const std::string& text, const std::string& kernel) {
  Epilogue epi;
  std::stringstream all(text);
  std::string line;
  while (std::getline(all, line, ';')) {
    std::stringstream words(line);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    auto fail = [&](const std::string& why) {
      TVMLITE_THROW(ValueError) << kernel << ": bad epilogue instruction '" << line << "': " << why;
    };
    int op = 0;
    while (op < static_cast<int>(EpiOp::kNumOps) && tok[0] != kOps[op].name) ++op;
    if (op == static_cast<int>(EpiOp::kNumOps)) fail("unknown op '" + tok[0] + "'");
    EpiInstr ins;
    ins.op = static_cast<EpiOp>(op);
    int arity = kOps[op].arity;
    if (tok.size() < static_cast<size_t>(2 + arity) || tok.size() > static_cast<size_t>(4 + arity)) {
      fail("expected: " + tok[0] + " dst" + (arity == 2 ? " src0 src1" : " src") + " [alpha] [beta]");
    }
    if (!ParseIndexed(tok[1], "r", kNumRegs, &ins.dst)) fail("the destination must be a register r0..r7");
    EpiSrc* srcs[2] = {&ins.a, &ins.b};
    for (int i = 0; i < arity; ++i) {
      const std::string& t = tok[2 + i];
      EpiSrc& s = *srcs[i];
      if (ParseIndexed(t, "r", kNumRegs, &s.index)) {
        s.kind = EpiSrc::kReg;
      } else if (ParseIndexed(t, "in", 1 << 20, &s.index)) {
        if (s.index >= kMaxInputs) fail("an epilogue reads at most " + std::to_string(kMaxInputs) + " extra inputs");
        s.kind = EpiSrc::kInput;
        epi.num_inputs_ = std::max(epi.num_inputs_, s.index + 1);
      } else if (ParseFloat(t, &s.imm)) {
        s.kind = EpiSrc::kImm;
      } else {
        fail("'" + t + "' is not a register, an input or a number");
      }
    }
    float* params[2] = {&ins.alpha, &ins.beta};
    for (size_t i = 2 + arity; i < tok.size(); ++i) {
      if (!ParseFloat(tok[i], params[i - 2 - arity])) fail("'" + tok[i] + "' is not a number");
    }
    epi.code_.push_back(ins);
  }
  return epi;
}

std::string Epilogue::ToString() const {
  std::ostringstream os;
  for (size_t i = 0; i < code_.size(); ++i) {
    const EpiInstr& ins = code_[i];
    os << (i ? "; " : "") << EpiOpName(ins.op) << " r" << ins.dst << " " << SrcText(ins.a);
    if (EpiOpArity(ins.op) == 2) os << " " << SrcText(ins.b);
    if (ins.alpha != 0 || ins.beta != 0) os << " " << FormatFloat(ins.alpha);
    if (ins.beta != 0) os << " " << FormatFloat(ins.beta);
  }
  return os.str();
}

BoundEpilogue Epilogue::Bind(const std::vector<int64_t>& out_shape, const std::vector<runtime::NDArray>& inputs,
                             const std::string& kernel) const {
  BoundEpilogue bound;
  bound.code_ = &code_;
  if (code_.empty()) return bound;
  TVMLITE_CHECK_KIND(static_cast<int>(inputs.size()) >= num_inputs_, TypeError)
      << kernel << ": the epilogue reads " << num_inputs_ << " extra inputs, got " << inputs.size();
  TVMLITE_CHECK_KIND(num_inputs_ <= kMaxInputs, ValueError)
      << kernel << ": an epilogue reads at most " << kMaxInputs << " extra inputs, this one " << num_inputs_;
  const int nd = static_cast<int>(out_shape.size());
  // Broadcast strides of every operand over the output's dims (numpy rules: align to the right).
  std::vector<std::vector<int64_t>> strides;
  for (int k = 0; k < num_inputs_; ++k) {
    const runtime::NDArray& x = inputs[k];
    const DLTensor& t = x->tensor;
    TVMLITE_CHECK_KIND(t.dtype.code == kDLFloat && t.dtype.bits == 32 && t.dtype.lanes == 1, TypeError)
        << kernel << ": epilogue input " << k << " must be float32";
    TVMLITE_CHECK_KIND(x.IsContiguous() && t.device.device_type == kDLCPU, ValueError)
        << kernel << ": epilogue input " << k << " must be a contiguous CPU array";
    TVMLITE_CHECK_KIND(t.ndim <= nd, ValueError)
        << kernel << ": epilogue input " << k << " of shape " << runtime::ShapeTuple(x.Shape())
        << " does not broadcast to the output's " << runtime::ShapeTuple(out_shape);
    std::vector<int64_t> s(nd, 0);
    int64_t stride = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      int od = nd - t.ndim + d;
      TVMLITE_CHECK_KIND(t.shape[d] == out_shape[od] || t.shape[d] == 1, ValueError)
          << kernel << ": epilogue input " << k << " of shape " << runtime::ShapeTuple(x.Shape())
          << " does not broadcast to the output's " << runtime::ShapeTuple(out_shape);
      s[od] = t.shape[d] == 1 ? 0 : stride;
      stride *= t.shape[d];
    }
    strides.push_back(std::move(s));
    bound.operands_.push_back({reinterpret_cast<const float*>(static_cast<const char*>(t.data) + t.byte_offset), {}});
  }
  // Collapse dim d into d+1 when every operand walks them as one (contiguous across both, or broadcast in both).
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> merged(strides.size());
  for (int d = 0; d < nd; ++d) {
    if (out_shape[d] == 1 && nd > 1) continue;  // size-1 dims merge with anything
    bool can_merge = !shape.empty();
    for (size_t k = 0; k < strides.size() && can_merge; ++k) {
      int64_t outer = merged[k].back(), inner = strides[k][d];
      can_merge = (outer == 0 && inner == 0) || (inner != 0 && outer == inner * out_shape[d]);
    }
    if (can_merge) {
      shape.back() *= out_shape[d];
      for (size_t k = 0; k < strides.size(); ++k) merged[k].back() = strides[k][d];
    } else {
      shape.push_back(out_shape[d]);
      for (size_t k = 0; k < strides.size(); ++k) merged[k].push_back(strides[k][d]);
    }
  }
  if (shape.empty()) {
    shape.push_back(1);
    for (auto& m : merged) m.push_back(0);
  }
  bound.shape_ = std::move(shape);
  for (size_t k = 0; k < merged.size(); ++k) bound.operands_[k].strides = std::move(merged[k]);
  // Short rows (a blocked layout's c = 16 values, once its bias or scale stops the merging): tiles span rows of the
  // same block of the last two dims, and each input that is neither contiguous across those rows nor one value
  // for the whole block is gathered into a buffer per tile. Without buffers to spare, tiles stay within a row.
  const int inner = static_cast<int>(bound.shape_.size()) - 1;
  const int64_t row = bound.shape_[inner];
  bound.gather_slot_.assign(bound.operands_.size(), -1);
  bound.multi_row_ = inner >= 1 && row < kMultiRowBelow;
  for (size_t k = 0, used = 0; k < bound.operands_.size() && bound.multi_row_; ++k) {
    const int64_t s1 = bound.operands_[k].strides[inner], s2 = bound.operands_[k].strides[inner - 1];
    if ((s1 == 0 && s2 == 0) || (s1 == 1 && s2 == row)) continue;
    bound.multi_row_ = used < static_cast<size_t>(BoundEpilogue::kMaxSplats);
    bound.gather_slot_[k] = static_cast<int8_t>(used++);
  }
  if (!bound.multi_row_) bound.gather_slot_.assign(bound.operands_.size(), -1);
  // One splat buffer per distinct value-per-tile source, while buffers last (the rest splat per instruction).
  bound.src_splat_.assign(2 * code_.size(), -1);
  for (size_t i = 0; i < code_.size(); ++i) {
    const EpiSrc* srcs[2] = {&code_[i].a, &code_[i].b};
    for (int j = 0; j < EpiOpArity(code_[i].op); ++j) {
      const EpiSrc& s = *srcs[j];
      bool splat = s.kind == EpiSrc::kImm || (s.kind == EpiSrc::kInput && bound.IsTileConstant(s.index));
      if (!splat) continue;
      int slot = 0;
      while (slot < static_cast<int>(bound.splats_.size()) &&
             !(bound.splats_[slot].kind == s.kind && bound.splats_[slot].index == s.index &&
               (s.kind != EpiSrc::kImm || std::memcmp(&bound.splats_[slot].imm, &s.imm, sizeof(float)) == 0))) {
        ++slot;
      }
      if (slot == static_cast<int>(bound.splats_.size())) {
        if (slot == BoundEpilogue::kMaxSplats) continue;
        bound.splats_.push_back(s);
      }
      bound.src_splat_[2 * i + j] = static_cast<int8_t>(slot);
    }
  }
  return bound;
}

bool BoundEpilogue::IsTileConstant(int k) const {
  const std::vector<int64_t>& st = operands_[k].strides;
  const size_t nd = st.size();
  return st[nd - 1] == 0 && (!multi_row_ || st[nd - 2] == 0);
}

void BoundEpilogue::Apply(float* out, int64_t begin, int64_t n) const {
  if (empty() || n <= 0) return;
  ApplyTo(out + begin, begin, n);
}

void BoundEpilogue::ApplyTo(float* dst, int64_t begin, int64_t n) const {
  if (empty() || n <= 0) return;
  using RunFn = void (*)(const EpiInstr&, float*, const float*, const float*, int64_t);
  const Isa isa = CpuIsa();  // once per Apply: every instruction of every tile runs this ISA's loops
  const RunFn run = isa == Isa::kAVX512 ? EpiRunAVX512 : isa == Isa::kAVX2 ? EpiRunAVX2 : EpiRun;
  alignas(64) float regs[Epilogue::kNumRegs][kTile];
  alignas(64) float splat_buf[kMaxSplats][kTile];
  alignas(64) float gather_buf[kMaxSplats][kTile];
  alignas(64) float spare[2][kTile];
  const float* splat_src[kMaxSplats] = {};  // the input value each buffer holds now (immediates: filled once)
  // A gathered input whose rows are all alike (stride 0 across them: a blocked per-channel scale, (1, C/c, 1, 1, c))
  // holds the same values in every tile of one outer index: refilled only when its first value's address (which
  // gives the start column) changes or a longer tile comes (a copy per row piece, 32 a tile, took ~4x the arithmetic).
  const float* gather_src[kMaxSplats] = {};
  int64_t gather_len[kMaxSplats] = {};
  const int nd = static_cast<int>(shape_.size());
  const int64_t row = shape_[nd - 1];
  // A tile stays within one row, or (multi_row_) within one block of the last two dims.
  const int outer_dims = multi_row_ ? nd - 2 : nd - 1;
  const int64_t span = multi_row_ ? row * shape_[nd - 2] : row;
  const int64_t fill = std::min(n, kTile);  // no tile is longer: short calls (a GEMM tile's rows) fill less
  int64_t pos = begin, end = begin + n;
  while (pos < end) {
    const int64_t within = pos % span;
    const int64_t len = std::min({span - within, end - pos, kTile});
    const int64_t r = multi_row_ ? within / row : 0, col = multi_row_ ? within % row : within;
    const float* in_ptr[Epilogue::kMaxInputs];
    for (size_t k = 0; k < operands_.size(); ++k) {
      const std::vector<int64_t>& s = operands_[k].strides;
      int64_t rest = pos / span, off = 0;
      for (int d = outer_dims - 1; d >= 0 && rest; --d) {
        off += (rest % shape_[d]) * s[d];
        rest /= shape_[d];
      }
      in_ptr[k] = operands_[k].data + off + (multi_row_ ? r * s[nd - 2] : 0) + col * s[nd - 1];
      const int g = gather_slot_[k];
      if (g < 0) continue;
      float* buf = gather_buf[g];
      const float* src = in_ptr[k];
      in_ptr[k] = buf;
      const bool rows_alike = s[nd - 2] == 0;
      if (rows_alike && gather_src[g] == src && gather_len[g] >= len) continue;
      gather_src[g] = rows_alike ? src : nullptr;
      gather_len[g] = len;
      // This tile's values of input k, row piece by row piece (stride 1: copied; 0: one value repeated).
      for (int64_t i = 0, c = col; i < len; c = 0) {
        const int64_t m = std::min(row - c, len - i);
        if (s[nd - 1] == 1) {
          std::memcpy(buf + i, src, m * sizeof(float));
        } else if (s[nd - 1] == 0) {
          std::fill(buf + i, buf + i + m, *src);
        } else {
          for (int64_t j = 0; j < m; ++j) buf[i + j] = src[j * s[nd - 1]];
        }
        i += m;
        src += s[nd - 2] - c * s[nd - 1];
      }
    }
    for (size_t slot = 0; slot < splats_.size(); ++slot) {
      const EpiSrc& s = splats_[slot];
      const float* src = s.kind == EpiSrc::kImm ? &s.imm : in_ptr[s.index];
      if (src == splat_src[slot]) continue;
      std::fill(splat_buf[slot], splat_buf[slot] + fill, *src);
      splat_src[slot] = src;
    }
    float* r0 = dst + (pos - begin);
    for (size_t i = 0; i < code_->size(); ++i) {
      const EpiInstr& ins = (*code_)[i];
      int spare_used = 0;
      auto source = [&](const EpiSrc& src, int slot) -> const float* {
        if (slot >= 0) return splat_buf[slot];
        if (src.kind == EpiSrc::kReg) return src.index == 0 ? r0 : regs[src.index];
        if (src.kind == EpiSrc::kInput && !IsTileConstant(src.index)) return in_ptr[src.index];
        float v = src.kind == EpiSrc::kImm ? src.imm : *in_ptr[src.index];
        float* buf = spare[spare_used++];
        std::fill(buf, buf + len, v);
        return buf;
      };
      const float* a = source(ins.a, src_splat_[2 * i]);
      const float* b = EpiOpArity(ins.op) == 2 ? source(ins.b, src_splat_[2 * i + 1]) : a;
      run(ins, ins.dst == 0 ? r0 : regs[ins.dst], a, b, len);
    }
    pos += len;
  }
}

void EpiRun(const EpiInstr& ins, float* y, const float* a, const float* b, int64_t n) {
  const float alpha = ins.alpha, beta = ins.beta;
  (void)alpha, (void)beta;
  // One loop per opcode, over its row's scalar form (epilogue_ops.h).
#define TVMLITE_EPI_SCALAR_CASE(name, text, arity, scalar, vec) \
  case EpiOp::k##name:                                          \
    for (int64_t i = 0; i < n; ++i) {                           \
      const float x = a[i], z = b[i];                           \
      (void)z;                                                  \
      y[i] = (scalar);                                          \
    }                                                           \
    return;
  switch (ins.op) {
    TVMLITE_EPILOGUE_OPS(TVMLITE_EPI_SCALAR_CASE)
    case EpiOp::kNumOps: break;
  }
#undef TVMLITE_EPI_SCALAR_CASE
}

}  // namespace topi
}  // namespace tvmlite
