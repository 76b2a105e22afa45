/*!
 * \file transpose.cc
 * \brief topi.transpose (relay transpose): out[i_0, ..., i_{n-1}] = data[...] with out dim d = data dim axes[d].
 *
 *   topi.transpose({"axes": [0, 2, 3, 1]})     run(data, [epilogue inputs], out)      axes [] = reversed
 *
 * After merging the dims that stay together, a permutation that keeps the innermost dim is a strided row copy.
 * One that moves it is, for each index of the other dims, a 2-D transpose out[k, c] = data[c, k]; it runs in
 * kBlock x kBlock tiles so both the reads and the writes stay within a few cache lines per tile, the tasks being
 * kBlock output rows each (a flat output range, so the epilogue runs on it right after).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

constexpr int64_t kBlock = 16;

/*!
 * \brief dst[k * dst_row + c] = src[k + c * src_col] for k < rows (<= kBlock), c < cols (strides in elements).
 * Through a kBlock x kBlock buffer: each source line is read whole, then each destination line written whole.
 * Writing kBlock rows element by element instead would keep kBlock lines 4 KB apart (for power-of-two widths) in
 * flight, more than an L1 set holds: every store would evict.
 */
template <typename T>
void Transpose2D(T* dst, int64_t dst_row, const T* src, int64_t src_col, int64_t rows, int64_t cols) {
  T buf[kBlock][kBlock];
  for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
    const int64_t n = std::min(kBlock, cols - c0);
    for (int64_t c = 0; c < n; ++c) std::memcpy(buf[c], src + (c0 + c) * src_col, rows * sizeof(T));
    for (int64_t k = 0; k < rows; ++k) {
      T* d = dst + k * dst_row + c0;
      for (int64_t c = 0; c < n; ++c) d[c] = buf[c][k];
    }
  }
}

void Transpose2DBytes(char* dst, int64_t dst_row, const char* src, int64_t src_col, int64_t rows, int64_t cols,
                      int esize) {
  switch (esize) {
    case 1:
      return Transpose2D(reinterpret_cast<uint8_t*>(dst), dst_row, reinterpret_cast<const uint8_t*>(src), src_col, rows,
                         cols);
    case 2:
      return Transpose2D(reinterpret_cast<uint16_t*>(dst), dst_row, reinterpret_cast<const uint16_t*>(src), src_col,
                         rows, cols);
    case 4:
      return Transpose2D(reinterpret_cast<uint32_t*>(dst), dst_row, reinterpret_cast<const uint32_t*>(src), src_col,
                         rows, cols);
    default:
      return Transpose2D(reinterpret_cast<uint64_t*>(dst), dst_row, reinterpret_cast<const uint64_t*>(src), src_col,
                         rows, cols);
  }
}

TVMLITE_REGISTER_GLOBAL("topi.transpose").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.transpose";
  KernelAttrs attrs(kName, attrs_in);
  std::vector<int64_t> axes_attr = attrs.HasValue("axes") ? attrs.GetInts("axes") : std::vector<int64_t>{};
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 2 + epi.num_inputs(), [epi, axes_attr](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), out = args.Output();
    injective::CheckSameDType(data, out, kName);
    const int nd = data.ndim();
    std::vector<int> axes(nd);
    if (axes_attr.empty()) {
      for (int d = 0; d < nd; ++d) axes[d] = nd - 1 - d;
    } else {
      TVMLITE_CHECK_KIND(static_cast<int>(axes_attr.size()) == nd, ValueError)
          << kName << ": axes has " << axes_attr.size() << " entries for data of rank " << nd;
      std::vector<bool> seen(nd, false);
      for (int d = 0; d < nd; ++d) {
        axes[d] = injective::NormalizeAxis(axes_attr[d], nd, kName);
        TVMLITE_CHECK_KIND(!seen[axes[d]], ValueError) << kName << ": axis " << axes[d] << " repeats in axes";
        seen[axes[d]] = true;
      }
    }
    const int esize = injective::ElemBytes(out, kName);
    std::vector<int64_t> in_stride(nd), shape(nd), strides(nd);
    int64_t s = esize;
    for (int d = nd - 1; d >= 0; --d) in_stride[d] = s, s *= data.dim(d);
    for (int d = 0; d < nd; ++d) shape[d] = data.dim(axes[d]), strides[d] = in_stride[axes[d]];
    out.CheckShape(shape);
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 1);
    const char* x = injective::Bytes(data);
    if (!injective::CollapseDims(&shape, {&strides})) return;
    const int m = static_cast<int>(shape.size());
    // The dim that is innermost in data (stride esize) when it is not innermost in out: a 2-D transpose.
    if (m < 2 || strides[m - 1] == esize || strides[m - 2] != esize) {
      injective::StridedCopy(out, x, shape, strides, esize, bound);
      return;
    }
    const int64_t rows = shape[m - 2], cols = shape[m - 1], src_col = strides[m - 1] / esize;
    const int64_t outer = injective::Product(shape, 0, m - 2);
    char* y = injective::Bytes(out);
    float* yf = bound.empty() ? nullptr : reinterpret_cast<float*>(y);
    runtime::ParallelTiles(
        outer, rows, kBlock,
        [&](int64_t o, int64_t k0, int64_t k1) {
          int64_t rest = o, off = 0;
          for (int d = m - 3; d >= 0; --d) off += (rest % shape[d]) * strides[d], rest /= shape[d];
          int64_t first = o * rows + k0;  // the first output row of the task
          Transpose2DBytes(y + first * cols * esize, cols, x + off + k0 * esize, src_col, k1 - k0, cols, esize);
          if (yf) bound.Apply(yf, first * cols, (k1 - k0) * cols);
        },
        /*min_chunk=*/std::max<int64_t>(1, 65536 / (kBlock * cols * esize)));
  });
});

// run(data, [epilogue inputs], out): out data's dtype and rank; as many axes (when given) as data has dims.
std::string TransposeAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 1));
  TVMLITE_ACCEPTS_CHECK(injective::MovedDTypeReason(k, t[0].dtype, t.back().dtype));
  if (t[0].ndim != t.back().ndim) return k + ": out must have data's rank";
  // No axes (or none given: an empty list) reverses the dims.
  const size_t n = attrs.HasValue("axes") ? attrs.GetInts("axes").size() : 0;
  if (n != 0 && static_cast<int64_t>(n) != t[0].ndim) {
    return k + ": axes has " + std::to_string(n) + " entries for data of rank " + std::to_string(t[0].ndim);
  }
  return "";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.transpose", TransposeAccepts);

TVMLITE_REGISTER_OP_KERNEL("transpose", "topi.transpose");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
