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
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include <limits>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

/*! \brief Python's slice(begin, end, step).indices(n): the first index and the length. */
void SliceIndices(int64_t n, int64_t begin, int64_t end, int64_t step, int64_t* start, int64_t* len) {
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v = v < -n ? lo : v + n;
    return std::min(std::max(v, lo), hi);
  };
  __int128 l;
  if (step > 0) {
    int64_t b = clamp(begin, 0, n), e = clamp(end, 0, n);
    *start = b;
    l = e > b ? (static_cast<__int128>(e) - b + step - 1) / step : 0;
  } else {
    int64_t b = clamp(begin, -1, n - 1), e = clamp(end, -1, n - 1);
    __int128 s = -static_cast<__int128>(step);
    *start = b;
    l = b > e ? (static_cast<__int128>(b) - e + s - 1) / s : 0;
  }
  *len = static_cast<int64_t>(l);
}

TVMLITE_REGISTER_GLOBAL("topi.strided_slice").set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.strided_slice";
  KernelAttrs attrs(kName, attrs_in);
  std::vector<int64_t> begin = attrs.GetInts("begin"), end = attrs.GetInts("end");
  std::vector<int64_t> strides = attrs.GetInts("strides", {});
  bool has_axes = injective::HasValue(attrs, "axes");
  std::vector<int64_t> axes_attr = has_axes ? attrs.GetInts("axes") : std::vector<int64_t>{};
  std::string slice_mode = attrs.GetString("slice_mode", "end");
  const size_t n = begin.size();
  TVMLITE_CHECK_KIND(end.size() == n, ValueError)
      << kName << ": begin has " << n << " entries, end has " << end.size();
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
  Epilogue epi = injective::ParseEpilogue(attrs);
  return MakeKernel(kName, 2 + epi.num_inputs(), [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), out = args.Output();
    injective::CheckSameDType(data, out, kName);
    const int nd = data.ndim();
    std::vector<int64_t> axes(n);
    std::vector<bool> seen(nd, false);
    for (size_t i = 0; i < n; ++i) {
      TVMLITE_CHECK_KIND(has_axes || static_cast<int>(i) < nd, ValueError)
          << kName << ": " << n << " bounds for data of rank " << nd;
      axes[i] = has_axes ? injective::NormalizeAxis(axes_attr[i], nd, kName) : static_cast<int64_t>(i);
      TVMLITE_CHECK_KIND(!seen[axes[i]], ValueError) << kName << ": axis " << axes[i] << " is sliced twice";
      seen[axes[i]] = true;
    }
    const int esize = injective::ElemBytes(out, kName);
    std::vector<int64_t> shape = data.shape(), step_bytes(nd), in_stride(nd);
    for (int64_t d = nd - 1, s = esize; d >= 0; --d) in_stride[d] = s, s *= shape[d];
    step_bytes = in_stride;
    int64_t offset = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t d = axes[i], dim = shape[d];
      int64_t step = size_mode || strides.empty() ? 1 : strides[strides.size() == 1 ? 0 : i];
      int64_t b = begin[i], e = end[i];
      if (size_mode) {
        TVMLITE_CHECK_KIND(e >= -1, ValueError) << kName << ": size " << e << " on axis " << d;
        if (b < 0) b = std::max<int64_t>(b + dim, 0);
        e = e == -1 || b > std::numeric_limits<int64_t>::max() - e ? std::numeric_limits<int64_t>::max() : b + e;
      }
      int64_t start, len;
      SliceIndices(dim, b, e, step, &start, &len);
      shape[d] = len;
      if (len > 0) offset += start * in_stride[d];
      step_bytes[d] = step * in_stride[d];
    }
    out.CheckShape(shape);
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 1);
    if (out.size() == 0) return;
    injective::StridedCopy(out, injective::Bytes(data) + offset, shape, step_bytes, esize, bound);
  });
}).set_kernel_factory();

TVMLITE_REGISTER_OP("strided_slice")
    .set_attr<runtime::String>("FTVMLiteKernel", runtime::String("topi.strided_slice"));

}  // namespace
}  // namespace topi
}  // namespace tvmlite
