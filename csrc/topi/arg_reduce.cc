/*!
 * \file arg_reduce.cc
 * \brief topi.argmax / topi.argmin (relay argmax, argmin with ArgReduceAttrs; ONNX ArgMax / ArgMin): the int64
 * position of the extreme over the reduced dims, row-major over several of them.
 *
 *   attrs: axis (list of ints; absent = every axis), keepdims, exclude, select_last_index
 *   argmax (2, 3, 4) axis [1, 2]     -> (2,)          index in [0, 12): i1 * 4 + i2 of the maximum
 *
 * Ties go to the first position, or the last with select_last_index. NaN is the extreme of both (numpy's argmax and
 * argmin stop at the first NaN): the first NaN wins, the last one with select_last_index. A reduction over no
 * elements (a reduced dim of 0 at run time) is a ValueError, as numpy's. Any 1/2/4/8-byte int or uint, bool,
 * float32 or float64 input; other dtypes (float16, bfloat16) are a TypeError, which sends the node to the
 * reference at build.
 *
 * Algorithm: the reductions' plan (reduce_plan.h) merges adjacent kept / reduced dims. When the last group is
 * reduced, each output scans red_count contiguous runs of inner values (position r * inner + j); when it is kept,
 * each output row of inner values folds red_count input rows elementwise into a (best value, best position) row.
 * Outputs (and column chunks, for one output row) run in parallel.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/kernel_accepts.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "./reduce_plan.h"

namespace tvmlite {
namespace topi {
namespace {

using reduce::Offset;
using reduce::Plan;

/*!
 * \brief Whether v (at a later position) replaces best: strictly more extreme (kMax: greater), or equal with kLast,
 * or NaN over a number; a NaN best stays unless kLast and v is NaN too.
 */
template <typename T, bool kMax, bool kLast>
inline bool Better(T v, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (best != best) return kLast && v != v;
    if (v != v) return true;
  }
  if constexpr (kLast) return kMax ? v >= best : v <= best;
  return kMax ? v > best : v < best;
}

template <typename T, bool kMax, bool kLast>
void ArgRun(const Plan& p, const T* x, int64_t* y) {
  if (p.inner_reduced) {
    // one output per kept index: scan red_count runs of inner contiguous values
    const int64_t per_output = std::max<int64_t>(1, p.red_count * p.inner);
    runtime::ParallelFor(
        p.kept_count,
        [&](int64_t o0, int64_t o1) {
          for (int64_t o = o0; o < o1; ++o) {
            const T* base = x + Offset(o, p.kept_dims, p.kept_strides);
            T best = base[0];
            int64_t at = 0;
            for (int64_t r = 0; r < p.red_count; ++r) {
              const T* run = base + Offset(r, p.red_dims, p.red_strides);
              for (int64_t j = 0; j < p.inner; ++j) {
                if (Better<T, kMax, kLast>(run[j], best)) best = run[j], at = r * p.inner + j;
              }
            }
            y[o] = at;
          }
        },
        std::max<int64_t>(1, 16384 / per_output));
    return;
  }
  // output rows of inner values: fold red_count input rows; tasks are (row, column chunk)
  constexpr int64_t kChunk = 512;
  runtime::ParallelTiles(
      p.kept_count, p.inner, kChunk,
      [&](int64_t o, int64_t c0, int64_t c1) {
        T best[kChunk];
        const int64_t w = c1 - c0;
        const T* base = x + Offset(o, p.kept_dims, p.kept_strides) + c0;
        int64_t* at = y + o * p.inner + c0;
        std::copy(base, base + w, best);  // reduced index 0 is at offset 0
        std::fill(at, at + w, int64_t(0));
        for (int64_t r = 1; r < p.red_count; ++r) {
          const T* row = base + Offset(r, p.red_dims, p.red_strides);
          for (int64_t j = 0; j < w; ++j) {
            if (Better<T, kMax, kLast>(row[j], best[j])) best[j] = row[j], at[j] = r;
          }
        }
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, p.red_count * kChunk)));
}

/*! \brief run(tag) with a null T* for data's dtype dt; false (nothing run) for a dtype the kernels do not take. */
template <typename F>
bool ByDType(DLDataType dt, F run) {
  if (dt.lanes != 1) return false;
  if (dt.code == kDLFloat && dt.bits == 32) return run(static_cast<float*>(nullptr)), true;
  if (dt.code == kDLFloat && dt.bits == 64) return run(static_cast<double*>(nullptr)), true;
  if (dt.code == kDLInt && dt.bits == 64) return run(static_cast<int64_t*>(nullptr)), true;
  if (dt.code == kDLInt && dt.bits == 32) return run(static_cast<int32_t*>(nullptr)), true;
  if (dt.code == kDLInt && dt.bits == 16) return run(static_cast<int16_t*>(nullptr)), true;
  if (dt.code == kDLInt && dt.bits == 8) return run(static_cast<int8_t*>(nullptr)), true;
  if (dt.code == kDLUInt && dt.bits == 64) return run(static_cast<uint64_t*>(nullptr)), true;
  if (dt.code == kDLUInt && dt.bits == 32) return run(static_cast<uint32_t*>(nullptr)), true;
  if (dt.code == kDLUInt && dt.bits == 16) return run(static_cast<uint16_t*>(nullptr)), true;
  if ((dt.code == kDLUInt || dt.code == kDLBool) && dt.bits == 8) return run(static_cast<uint8_t*>(nullptr)), true;
  return false;
}

// run(data, out): data of a dtype ByDType takes (the body's own dispatch), out int64.
std::string ArgReduceAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (t.size() != 2) return k + ": expected 2 tensor arguments (data, out), got " + std::to_string(t.size());
  if (!IsDType(t[1].dtype, kDLInt, 64)) return k + ": out must be int64, got " + DTypeName(t[1].dtype);
  if (!ByDType(t[0].dtype, [](auto*) {})) return k + ": dtype " + DTypeName(t[0].dtype) + " is not supported";
  return "";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.argmax", ArgReduceAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.argmin", ArgReduceAccepts);

template <bool kMax>
Function MakeArgReduce(const std::string& name, Map<String, Any> attrs_in) {
  KernelAttrs attrs(name, attrs_in);
  const bool all = !attrs.HasValue("axis");
  const std::vector<int64_t> axes = all ? std::vector<int64_t>() : attrs.GetInts("axis");
  const bool keepdims = attrs.GetInt("keepdims", 0) != 0;
  const bool exclude = attrs.GetInt("exclude", 0) != 0;
  const bool last = attrs.GetInt("select_last_index", 0) != 0;
  attrs.CheckNoEpilogue();
  return MakeKernel(name, 2, [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), out = args.Output();
    const std::vector<int64_t> shape = data.shape();
    Plan plan = reduce::MakePlan(shape, reduce::ReducedDims(args.kernel(), shape, all, axes, exclude), keepdims);
    int64_t* y = out.Data<int64_t>();
    out.CheckShape(plan.out_shape);
    const DLDataType dt = data.dtype();
    auto run = [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      TVMLITE_CHECK_KIND(plan.reduce_size > 0, ValueError)
          << args.kernel() << ": cannot take the arg-extreme of no elements (input shape " << runtime::ShapeTuple(shape)
          << ")";
      if (out.size() == 0) return;
      const T* x = reinterpret_cast<const T*>(static_cast<const char*>(data.array()->tensor.data) +
                                              data.array()->tensor.byte_offset);
      if (last) ArgRun<T, kMax, true>(plan, x, y);
      else ArgRun<T, kMax, false>(plan, x, y);
    };
    if (ByDType(dt, run)) return;
    TVMLITE_THROW(TypeError) << args.kernel() << ": dtype " << runtime::DataType(dt).str() << " is not supported";
  });
}

}  // namespace

TVMLITE_REGISTER_KERNEL_FACTORY("topi.argmax", MakeArgReduce<true>);
TVMLITE_REGISTER_KERNEL_FACTORY("topi.argmin", MakeArgReduce<false>);

TVMLITE_REGISTER_OP_KERNEL("argmax", "topi.argmax");
TVMLITE_REGISTER_OP_KERNEL("argmin", "topi.argmin");

}  // namespace topi
}  // namespace tvmlite
