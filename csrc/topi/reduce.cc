/*!
 * \file reduce.cc
 * \brief topi.sum, topi.mean, topi.max, topi.min: relay's reductions with ReduceAttrs (axis, keepdims, exclude).
 *
 *   attrs: axis (list of ints; absent or None = every axis; [] = none), keepdims, exclude, epilogue
 *   sum  (2, 3, 4) axis [1]          -> (2, 4)        mean of an empty set is NaN; max / min of one: -inf / inf
 *
 * Algorithm: adjacent dims that are both reduced or both kept merge (reduce_plan.h), so the input is a short
 * alternation of kept and reduced groups. The last group decides the inner loop:
 *   last reduced (rows):    each output is one reduction of contiguous runs of length L (8 partial lanes);
 *   last kept (columns):    each output row of L values accumulates whole input rows elementwise (vector adds).
 * The groups before it are walked as (kept index, reduced index) pairs: their offsets add, since each dim's
 * stride is the input's. Outputs are cut into parallel chunks (columns too when there is one output row).
 * Sums accumulate in float within a run and in double across runs.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>

#include "./reduce_plan.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tvmlite {
namespace topi {
namespace {

enum class Reducer { kSum, kMean, kMax, kMin };

inline float Combine(Reducer op, float acc, float v) {
  if (op == Reducer::kMax) return (v > acc || v != v) ? v : acc;  // NaN wins, and stays
  if (op == Reducer::kMin) return (v < acc || v != v) ? v : acc;
  return acc + v;
}

float Identity(Reducer op) { return op == Reducer::kMax ? -HUGE_VALF : op == Reducer::kMin ? HUGE_VALF : 0.0f; }

/*! \brief The reduction of x[0:n] (contiguous). */
float ReduceRun(Reducer op, const float* x, int64_t n) {
  float part[8];
  const float id = Identity(op);
  for (float& p : part) p = id;
  int64_t i = 0;
  if (op == Reducer::kSum || op == Reducer::kMean) {
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) part[l] += x[i + l];
  } else {
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) part[l] = Combine(op, part[l], x[i + l]);
  }
  float acc = id;
  for (; i < n; ++i) acc = Combine(op, acc, x[i]);
  for (float p : part) acc = Combine(op, acc, p);
  return acc;
}

using reduce::Offset;
using reduce::Plan;

void Run(Reducer op, const Plan& p, const float* x, float* y) {
  const float scale = op == Reducer::kMean ? 1.0f / static_cast<float>(p.reduce_size) : 1.0f;
  const bool sum = op == Reducer::kSum || op == Reducer::kMean;
  if (p.inner_reduced) {
    // one output per kept index: the reduction of red_count runs of length inner
    runtime::ParallelFor(
        p.kept_count,
        [&](int64_t o0, int64_t o1) {
          for (int64_t o = o0; o < o1; ++o) {
            const float* base = x + Offset(o, p.kept_dims, p.kept_strides);
            double total = 0;
            float acc = Identity(op);
            for (int64_t r = 0; r < p.red_count; ++r) {
              float v = ReduceRun(op, base + Offset(r, p.red_dims, p.red_strides), p.inner);
              if (sum) total += v;
              else acc = Combine(op, acc, v);
            }
            y[o] = sum ? static_cast<float>(total * scale) : acc;
          }
        },
        std::max<int64_t>(1, 16384 / std::max<int64_t>(1, p.red_count * p.inner)));
    return;
  }
  // output rows of inner values: elementwise over red_count input rows; tasks are (row, column chunk)
  constexpr int64_t kChunk = 512;
  runtime::ParallelTiles(
      p.kept_count, p.inner, kChunk,
      [&](int64_t o, int64_t c0, int64_t c1) {
        const int64_t w = c1 - c0;
        const float* base = x + Offset(o, p.kept_dims, p.kept_strides) + c0;
        float* dst = y + o * p.inner + c0;
        float acc[kChunk];
        std::fill(acc, acc + w, Identity(op));
        for (int64_t r = 0; r < p.red_count; ++r) {
          const float* row = base + Offset(r, p.red_dims, p.red_strides);
          if (sum) {
            for (int64_t j = 0; j < w; ++j) acc[j] += row[j];
          } else {
            for (int64_t j = 0; j < w; ++j) acc[j] = Combine(op, acc[j], row[j]);
          }
        }
        for (int64_t j = 0; j < w; ++j) dst[j] = acc[j] * scale;
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, p.red_count * kChunk)));
}

Function MakeReduce(const std::string& name, Map<String, Any> attrs_in, Reducer op) {
  KernelAttrs attrs(name, attrs_in);
  const bool all = !attrs.HasValue("axis");
  const std::vector<int64_t> axes = all ? std::vector<int64_t>() : attrs.GetInts("axis");
  const bool keepdims = attrs.GetInt("keepdims", 0) != 0;
  const bool exclude = attrs.GetInt("exclude", 0) != 0;
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(name, 2 + epi.num_inputs(), [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), out = args.Output();
    const float* x = data.Data<float>();
    float* y = out.Data<float>();
    const std::vector<int64_t> shape = data.shape();
    Plan plan = reduce::MakePlan(shape, reduce::ReducedDims(args.kernel(), shape, all, axes, exclude), keepdims);
    out.CheckShape(plan.out_shape);
    BoundEpilogue bound = epi.Bind(plan.out_shape, args.Rest(1), args.kernel());
    const int64_t n_out = out.size();
    if (n_out == 0) return;
    if (data.size() == 0) {  // an empty reduction: the identity (NaN for mean)
      std::fill(y, y + n_out, op == Reducer::kMean ? NAN : Identity(op));
    } else {
      Run(op, plan, x, y);
    }
    if (!bound.empty()) {
      runtime::ParallelFor(n_out, [&](int64_t b, int64_t e) { bound.Apply(y, b, e - b); }, 16384);
    }
  });
}

TVMLITE_REGISTER_KERNEL_FACTORY("topi.sum", MakeReduce, Reducer::kSum);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.mean", MakeReduce, Reducer::kMean);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.max", MakeReduce, Reducer::kMax);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.min", MakeReduce, Reducer::kMin);

TVMLITE_REGISTER_OP_KERNEL("sum", "topi.sum");
TVMLITE_REGISTER_OP_KERNEL("mean", "topi.mean");
TVMLITE_REGISTER_OP_KERNEL("max", "topi.max");
TVMLITE_REGISTER_OP_KERNEL("min", "topi.min");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
