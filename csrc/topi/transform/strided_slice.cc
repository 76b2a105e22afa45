/*!
 * \file strided_slice.cc
 * \brief topi.strided_slice (relay strided_slice): data[begin:end:strides] on the listed axes, numpy's rules.
 *
 *   topi.strided_slice({"begin": [1], "end": [-1], "strides": [2], "axes": [2], "slice_mode": "end"})
 *   run(data, [epilogue inputs], out)
 *
 * axes absent or None: the first len(begin) axes; strides empty: 1, one value: every axis. slice_mode "size":
 * end is a length (-1: to the end), the step 1, and a negative begin counts from the end (as the reference). Each
 * sliced axis becomes (start, step, length) as Python's slice.indices does; the output's shape must be the
 * lengths; the copy walks data with strides step * stride (negative for reversed slices).
 *
 * topi.slice_like (relay slice_like) slices data from 0 to shape_like's dims on its axes:
 *   run(data, shape_like, [epilogue inputs], out)
 *
 * topi.dyn.strided_slice (relay dyn.strided_slice) takes the bounds as int tensors, read per call:
 *   outs = run(data, begin, end, strides, axes)    // returns [out]: its shape depends on those values
 * It allocates its output (a node whose outputs it returns, graph_executor.cc).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/topi/slice_range.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

/*! \brief A slice of data: the output's shape, the first element's byte offset and each dim's step in bytes. */
struct SlicePlan {
  std::vector<int64_t> shape, step_bytes;
  int64_t offset = 0;
};

/*!
 * \brief The plan of slicing data on axes (normalised, distinct) with begin/end/strides (strides empty: 1, one
 * value: every axis); size_mode: end is a length (-1: to the end) and the step 1.
 */
SlicePlan PlanSlice(const std::string& kName, const TensorArg& data, int esize, const std::vector<int64_t>& axes,
                    const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                    const std::vector<int64_t>& strides, bool size_mode) {
  const int nd = data.ndim();
  SlicePlan plan;
  plan.shape = data.shape();
  std::vector<int64_t> in_stride(nd);
  for (int64_t d = nd - 1, s = esize; d >= 0; --d) in_stride[d] = s, s *= plan.shape[d];
  plan.step_bytes = in_stride;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t d = axes[i], dim = plan.shape[d];
    int64_t step = size_mode || strides.empty() ? 1 : strides[strides.size() == 1 ? 0 : i];
    TVMLITE_CHECK_KIND(step != 0, ValueError) << kName << ": step 0 for sliced axis " << i;
    int64_t b = begin[i], e = end[i];
    if (size_mode) {
      TVMLITE_CHECK_KIND(e >= -1, ValueError) << kName << ": size " << e << " on axis " << d;
      e = SizeModeEnd(dim, b, e);
    }
    const SliceRange range = SliceIndices(dim, b, e, step);
    plan.shape[d] = range.length;
    if (range.length > 0) plan.offset += range.start * in_stride[d];
    plan.step_bytes[d] = step * in_stride[d];
  }
  return plan;
}

/*!
 * \brief The static kernels' call: out (its shape checked) = data sliced as PlanSlice says, then the epilogue, its
 * inputs from args[first_extra].
 */
void SliceInto(const std::string& kName, const TensorArg& data, const TensorArg& out, const std::vector<int64_t>& axes,
               const std::vector<int64_t>& begin, const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
               bool size_mode, const Epilogue& epi, const KernelArgs& args, int first_extra) {
  const int esize = injective::ElemBytes(out, kName);
  SlicePlan plan = PlanSlice(kName, data, esize, axes, begin, end, strides, size_mode);
  out.CheckShape(plan.shape);
  BoundEpilogue bound = injective::BindEpilogue(epi, out, args, first_extra);
  if (out.size() == 0) return;
  injective::StridedCopy(out, injective::Bytes(data) + plan.offset, plan.shape, plan.step_bytes, esize, bound);
}

/*! \brief Each of n axes normalised against rank nd, none twice. */
std::vector<int64_t> SliceAxes(const std::string& kName, size_t n, int nd, const std::vector<int64_t>* given) {
  std::vector<int64_t> axes(n);
  std::vector<bool> seen(nd, false);
  for (size_t i = 0; i < n; ++i) {
    TVMLITE_CHECK_KIND(given != nullptr || static_cast<int>(i) < nd, ValueError)
        << kName << ": " << n << " bounds for data of rank " << nd;
    axes[i] = given != nullptr ? injective::NormalizeAxis((*given)[i], nd, kName) : static_cast<int64_t>(i);
    TVMLITE_CHECK_KIND(!seen[axes[i]], ValueError) << kName << ": axis " << axes[i] << " is sliced twice";
    seen[axes[i]] = true;
  }
  return axes;
}

TVMLITE_REGISTER_GLOBAL("topi.strided_slice").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.strided_slice";
  KernelAttrs attrs(kName, attrs_in);
  std::vector<int64_t> begin = attrs.GetInts("begin"), end = attrs.GetInts("end");
  std::vector<int64_t> strides = attrs.GetInts("strides", {});
  bool has_axes = attrs.HasValue("axes");
  std::vector<int64_t> axes_attr = has_axes ? attrs.GetInts("axes") : std::vector<int64_t>{};
  std::string slice_mode = attrs.GetString("slice_mode", "end");
  const size_t n = begin.size();
  TVMLITE_CHECK_KIND(end.size() == n, ValueError) << kName << ": begin has " << n << " entries, end has " << end.size();
  TVMLITE_CHECK_KIND(strides.empty() || strides.size() == 1 || strides.size() == n, ValueError)
      << kName << ": strides has " << strides.size() << " entries for " << n << " sliced axes";
  TVMLITE_CHECK_KIND(!has_axes || axes_attr.size() == n, ValueError)
      << kName << ": axes has " << axes_attr.size() << " entries, begin has " << n;
  TVMLITE_CHECK_KIND(slice_mode == "end" || slice_mode == "size", ValueError)
      << kName << ": slice_mode '" << slice_mode << "' (expected 'end' or 'size')";
  const bool size_mode = slice_mode == "size";
  for (size_t i = 0; i < n && !size_mode; ++i) {
    TVMLITE_CHECK_KIND(strides.empty() || strides[strides.size() == 1 ? 0 : i] != 0, ValueError)
        << kName << ": step 0 for sliced axis " << i;
  }
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 2 + epi.num_inputs(), [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), out = args.Output();
    injective::CheckSameDType(data, out, kName);
    std::vector<int64_t> axes = SliceAxes(kName, n, data.ndim(), has_axes ? &axes_attr : nullptr);
    SliceInto(kName, data, out, axes, begin, end, strides, size_mode, epi, args, 1);
  });
});

// slice_like: data[0:like.shape[a]] on axes; like's dims are read per call (its values never).
TVMLITE_REGISTER_GLOBAL("topi.slice_like").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.slice_like";
  KernelAttrs attrs(kName, attrs_in);
  std::vector<int64_t> axes_attr = attrs.GetInts("axes", {});
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 3 + epi.num_inputs(), [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), like = args.Input(1, "shape_like"), out = args.Output();
    injective::CheckSameDType(data, out, kName);
    std::vector<int64_t> axes;
    if (axes_attr.empty()) {
      TVMLITE_CHECK_KIND(like.ndim() <= data.ndim(), ValueError)
          << kName << ": shape_like has rank " << like.ndim() << ", data " << data.ndim();
      for (int i = 0; i < like.ndim(); ++i) axes.push_back(i);
    } else {
      axes = SliceAxes(kName, axes_attr.size(), data.ndim(), &axes_attr);
    }
    std::vector<int64_t> begin(axes.size(), 0), end;
    for (int64_t a : axes) {
      TVMLITE_CHECK_KIND(a < like.ndim(), ValueError)
          << kName << ": axis " << a << " is out of range for shape_like of rank " << like.ndim();
      TVMLITE_CHECK_KIND(like.shape()[a] <= data.shape()[a], ValueError)
          << kName << ": shape_like's dim " << like.shape()[a] << " exceeds data's " << data.shape()[a] << " on axis "
          << a;
      end.push_back(like.shape()[a]);
    }
    SliceInto(kName, data, out, axes, begin, end, {}, false, epi, args, 2);
  });
});

TVMLITE_REGISTER_GLOBAL("topi.dyn.strided_slice").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.dyn.strided_slice";
  KernelAttrs attrs(kName, attrs_in);
  TVMLITE_CHECK_KIND(attrs.GetString("slice_mode", "end") == "end", ValueError)
      << kName << ": only slice_mode 'end' is supported";
  return MakeReturningKernel(kName, 5, [](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data");
    std::vector<int64_t> begin = injective::IntValues(args.Input(1, "begin"), kName);
    std::vector<int64_t> end = injective::IntValues(args.Input(2, "end"), kName);
    std::vector<int64_t> strides = injective::IntValues(args.Input(3, "strides"), kName);
    std::vector<int64_t> given = injective::IntValues(args.Input(4, "axes"), kName);
    const size_t n = begin.size();
    TVMLITE_CHECK_KIND(end.size() == n && strides.size() == n && given.size() == n, ValueError)
        << kName << ": begin, end, strides and axes must have one entry per sliced axis, got " << n << ", "
        << end.size() << ", " << strides.size() << ", " << given.size();
    std::vector<int64_t> axes = SliceAxes(kName, n, data.ndim(), &given);
    const int esize = injective::ElemBytes(data, kName);
    SlicePlan plan = PlanSlice(kName, data, esize, axes, begin, end, strides, false);
    NDArray out = NDArray::Empty(plan.shape, data.dtype());
    TensorArg out_arg(out, &kName, "out");
    if (out_arg.size() > 0) {
      injective::StridedCopy(out_arg, injective::Bytes(data) + plan.offset, plan.shape, plan.step_bytes, esize,
                             BoundEpilogue());
    }
    return out;
  });
});

// strided_slice: run(data, [epilogue inputs], out); slice_like: run(data, shape_like, [epilogue inputs], out)
// (shape_like of any dtype: only its dims are read); dyn.strided_slice: [out] = run(data, begin, end, strides, axes),
// the last four 0-d or 1-d int32/int64 (injective::IntValues).
std::string SliceAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (k == "topi.dyn.strided_slice") {
    TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 5, /*has_out=*/false));
    for (int i = 1; i < 5; ++i) {
      TVMLITE_ACCEPTS_CHECK(IndexReason(k, "a shape or bounds input", t[i].dtype));
      if (t[i].ndim > 1) return k + ": a shape or bounds input must be 0-d or 1-d";
    }
    return ByteScalarReason(k, t[0].dtype);
  }
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, k == "topi.slice_like" ? 2 : 1));
  return injective::MovedDTypeReason(k, t[0].dtype, t.back().dtype);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.strided_slice", SliceAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.slice_like", SliceAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.dyn.strided_slice", SliceAccepts);

TVMLITE_REGISTER_OP_KERNEL("strided_slice", "topi.strided_slice");
TVMLITE_REGISTER_OP_KERNEL("slice_like", "topi.slice_like");
TVMLITE_REGISTER_OP_KERNEL("dyn.strided_slice", "topi.dyn.strided_slice").set_attr<bool>("TVMLiteReturnsOutputs", true);

}  // namespace
}  // namespace topi
}  // namespace tvmlite
