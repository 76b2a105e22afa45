/*!
 * \file softmax.cc
 * \brief topi.nn.softmax and topi.nn.log_softmax (relay nn.softmax / nn.log_softmax: attrs axis, flatten).
 *
 * Per row of the normalised axis (the reference's algorithm, tvmlite/relay/op/nn/_norm.py):
 *   m = max(x) (0 when not finite: a row of -inf gives NaN, as numpy), s = sum(exp(x - m)),
 *   softmax y = exp(x - m) / s,  log_softmax y = (x - m) - log(s).
 * The row max, the exp pass and the division are the ISA's row primitives (tvmlite/topi/nn/softmax.h); the rest
 * is plain code.
 * The axis is viewed as (outer, L, inner). With inner = 1 (the last axis, or flatten) rows are contiguous and run
 * in parallel, each followed by the epilogue. With inner > 1 a task transposes a block of 16 columns (L x 16) into
 * thread-local scratch, runs the rows there and writes them back; the epilogue then runs over the output.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/softmax.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tvmlite {
namespace topi {
namespace softmax {
namespace {

float ExpPortable(float x) {
  if (x != x) return x;
  if (x < kExpLo) return 0.0f;
  if (x > 88.72283935546875f) return HUGE_VALF;
  float xc = std::min(x, kExpHi);
  float fx = std::nearbyint(xc * kLog2e);
  float r = std::fma(-fx, kLn2Hi, xc);
  r = std::fma(-fx, kLn2Lo, r);
  float y = kP0;
  y = std::fma(y, r, kP1);
  y = std::fma(y, r, kP2);
  y = std::fma(y, r, kP3);
  y = std::fma(y, r, kP4);
  y = std::fma(y, r, kP5);
  y = std::fma(y, r * r, r) + 1.0f;
  return std::ldexp(y, static_cast<int>(fx));
}

float RowMaxPortable(const float* x, int64_t n) {
  float m = -HUGE_VALF;
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] != x[i]) return x[i];
    m = x[i] > m ? x[i] : m;
  }
  return m;
}

float ExpShiftSumPortable(const float* x, float* y, int64_t n, float shift) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) {
    float e = ExpPortable(x[i] - shift);
    if (y) y[i] = e;
    s += e;
  }
  return s;
}

void DivideRowPortable(float* y, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) y[i] /= s;
}

struct RowFns {
  float (*max)(const float*, int64_t);
  float (*exp_sum)(const float*, float*, int64_t, float);
  void (*divide)(float*, int64_t, float);
};

RowFns PickRowFns() {
  switch (CpuIsa()) {
    case Isa::kAVX512: return {RowMaxAVX512, ExpShiftSumAVX512, DivideRowAVX512};
    case Isa::kAVX2: return {RowMaxAVX2, ExpShiftSumAVX2, DivideRowAVX2};
    default: return {RowMaxPortable, ExpShiftSumPortable, DivideRowPortable};
  }
}

void Row(const RowFns& f, const float* x, float* y, int64_t n, bool log) {
  float m = f.max(x, n);
  if (!std::isfinite(m)) m = 0.0f;
  if (log) {
    const float ls = std::log(f.exp_sum(x, nullptr, n, m));
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - ls;
  } else {
    f.divide(y, n, f.exp_sum(x, y, n, m));
  }
}

Function MakeSoftmax(const std::string& name, Map<String, Any> attrs_in, bool log) {
  KernelAttrs attrs(name, attrs_in);
  const int64_t axis_attr = attrs.GetInt("axis", -1);
  const bool flatten = attrs.GetInt("flatten", 0) != 0;
  Epilogue epi = attrs.GetEpilogue();
  const RowFns fns = PickRowFns();
  return MakeKernel(name, 2 + epi.num_inputs(), [=](const KernelArgs& args) {
    const AxisWise a = ReadAxisWise(args, axis_attr);
    const float* x = a.x;
    float* y = a.y;
    const std::vector<int64_t>& shape = a.shape;
    const int64_t outer = a.outer, len = flatten ? a.len * a.inner : a.len, inner = flatten ? 1 : a.inner;
    BoundEpilogue bound = epi.Bind(shape, args.Rest(1), args.kernel());
    if (a.size() == 0) return;
    if (inner == 1) {
      runtime::ParallelFor(
          outer,
          [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
              Row(fns, x + r * len, y + r * len, len, log);
              bound.Apply(y, r * len, len);
            }
          },
          std::max<int64_t>(1, 8192 / len));
      return;
    }
    constexpr int64_t kCols = 16;
    // (outer, column block) items, not runtime::ParallelTiles: the scratch is set up once per piece of blocks.
    const int64_t blocks = (inner + kCols - 1) / kCols;
    runtime::ParallelFor(
        outer * blocks,
        [&](int64_t t0, int64_t t1) {
          thread_local std::vector<float> scratch;
          if (static_cast<int64_t>(scratch.size()) < kCols * len) scratch.resize(static_cast<size_t>(kCols * len));
          float* buf = scratch.data();
          for (int64_t t = t0; t < t1; ++t) {
            const int64_t o = t / blocks, c0 = (t % blocks) * kCols, cols = std::min(kCols, inner - c0);
            const float* src = x + o * len * inner + c0;
            float* dst = y + o * len * inner + c0;
            for (int64_t l = 0; l < len; ++l)
              for (int64_t c = 0; c < cols; ++c) buf[c * len + l] = src[l * inner + c];
            for (int64_t c = 0; c < cols; ++c) Row(fns, buf + c * len, buf + c * len, len, log);
            for (int64_t l = 0; l < len; ++l)
              for (int64_t c = 0; c < cols; ++c) dst[l * inner + c] = buf[c * len + l];
          }
        },
        std::max<int64_t>(1, 8192 / (len * kCols)));
    if (!bound.empty()) {
      runtime::ParallelFor(a.size(), [&](int64_t b, int64_t e) { bound.Apply(y, b, e - b); }, 16384);
    }
  });
}

TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.softmax", MakeSoftmax, false);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.nn.log_softmax", MakeSoftmax, true);

TVMLITE_REGISTER_OP_KERNEL("nn.softmax", "topi.nn.softmax");
TVMLITE_REGISTER_OP_KERNEL("nn.log_softmax", "topi.nn.log_softmax");

}  // namespace
}  // namespace softmax
}  // namespace topi
}  // namespace tvmlite
