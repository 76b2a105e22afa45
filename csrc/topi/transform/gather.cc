/*!
 * \file gather.cc
 * \brief topi.gather (relay gather, ONNX GatherElements): out[i] = data[i with i[axis] replaced by indices[i]];
 * and topi.gather_nd (relay gather_nd, ONNX GatherND), below.
 *
 *   topi.gather({"axis": 1})     run(data, indices, [epilogue inputs], out)       out.shape == indices.shape
 *
 * indices (int32 or int64) has data's rank and may be smaller than data on any dim; a negative index counts from
 * the end, one out of [-n, n) is an IndexError (as the reference). Each output row (the last dim) reads data at
 * base + c * stride_last + j * stride_axis, base holding every other dim's part.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

template <typename T, typename I>
void GatherRow(T* dst, const char* base, const I* idx, int64_t n, int64_t cols, int64_t col_stride,
               int64_t axis_stride) {
  for (int64_t c = 0; c < cols; ++c) {
    int64_t j = idx[c];
    TVMLITE_CHECK_KIND(j >= -n && j < n, IndexError)
        << "topi.gather: index " << j << " is out of range for a dim of " << n;
    if (j < 0) j += n;
    std::memcpy(dst + c, base + c * col_stride + j * axis_stride, sizeof(T));
  }
}

template <typename I>
void GatherRowBytes(char* dst, const char* base, const I* idx, int64_t n, int64_t cols, int64_t cs, int64_t as,
                    int esize) {
  switch (esize) {
    case 1: return GatherRow(reinterpret_cast<uint8_t*>(dst), base, idx, n, cols, cs, as);
    case 2: return GatherRow(reinterpret_cast<uint16_t*>(dst), base, idx, n, cols, cs, as);
    case 4: return GatherRow(reinterpret_cast<uint32_t*>(dst), base, idx, n, cols, cs, as);
    default: return GatherRow(reinterpret_cast<uint64_t*>(dst), base, idx, n, cols, cs, as);
  }
}

TVMLITE_REGISTER_GLOBAL("topi.gather").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.gather";
  KernelAttrs attrs(kName, attrs_in);
  int64_t axis_attr = attrs.GetInt("axis", 0);
  Epilogue epi = attrs.GetEpilogue();
  return injective::MakeIndexingKernel(
      kName, epi,
      [=](const KernelArgs& args, const TensorArg& data, const TensorArg& indices, const TensorArg& out, bool wide) {
        const int nd = data.ndim();
        TVMLITE_CHECK_KIND(nd >= 1 && indices.ndim() == nd, ValueError)
            << kName << ": indices " << runtime::ShapeTuple(indices.shape()) << " must have the rank of data "
            << runtime::ShapeTuple(data.shape()) << " (>= 1)";
        const int axis = injective::NormalizeAxis(axis_attr, nd, kName);
        for (int d = 0; d < nd; ++d) {
          TVMLITE_CHECK_KIND(d == axis || indices.dim(d) <= data.dim(d), ValueError)
              << kName << ": indices " << runtime::ShapeTuple(indices.shape()) << " is larger than data "
              << runtime::ShapeTuple(data.shape()) << " on dim " << d;
        }
        out.CheckShape(indices.shape());
        BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 2);
        if (out.size() == 0) return;
        const int esize = injective::ElemBytes(out, kName);
        std::vector<int64_t> shape = indices.shape(), stride(nd);
        for (int64_t d = nd - 1, s = esize; d >= 0; --d) stride[d] = s, s *= data.dim(d);
        const int64_t n = data.dim(axis), cols = shape[nd - 1];
        const int64_t col_stride = axis == nd - 1 ? 0 : stride[nd - 1];
        const char* x = injective::Bytes(data);
        const char* idx = injective::Bytes(indices);
        char* y = injective::Bytes(out);
        injective::ForRows(out.size() / cols, cols, esize, out, bound, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            int64_t rest = r, base = 0;
            for (int d = nd - 2; d >= 0; --d) {
              if (d != axis) base += (rest % shape[d]) * stride[d];
              rest /= shape[d];
            }
            if (wide) {
              GatherRowBytes(y + r * cols * esize, x + base, reinterpret_cast<const int64_t*>(idx) + r * cols, n, cols,
                             col_stride, stride[axis], esize);
            } else {
              GatherRowBytes(y + r * cols * esize, x + base, reinterpret_cast<const int32_t*>(idx) + r * cols, n, cols,
                             col_stride, stride[axis], esize);
            }
          }
        });
      });
});

/*
 * topi.gather_nd (relay gather_nd, ONNX GatherND): indices (..., k) address the k dims of data after its batch_dims
 * first ones (shared with indices); out = indices.shape[:-1] + data.shape[batch_dims + k:]. Each output row is one
 * slice of data, prod(data.shape[batch_dims + k:]) values, copied whole.
 *
 *   topi.gather_nd({"batch_dims": 0})     run(data, indices, [epilogue inputs], out)
 */
TVMLITE_REGISTER_GLOBAL("topi.gather_nd").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.gather_nd";
  KernelAttrs attrs(kName, attrs_in);
  int64_t b = attrs.GetInt("batch_dims", 0);
  Epilogue epi = attrs.GetEpilogue();
  return injective::MakeIndexingKernel(
      kName, epi,
      [=](const KernelArgs& args, const TensorArg& data, const TensorArg& indices, const TensorArg& out, bool wide) {
        const int r = data.ndim(), q = indices.ndim();
        TVMLITE_CHECK_KIND(q >= 1, ValueError) << kName << ": indices must have rank >= 1, got a scalar";
        const int64_t k = indices.dim(q - 1);
        TVMLITE_CHECK_KIND(b >= 0 && b < q && b < r, ValueError)
            << kName << ": batch_dims " << b << " must be in [0, min(rank(data) " << r << ", rank(indices) " << q
            << "))";
        TVMLITE_CHECK_KIND(k <= r - b, ValueError)
            << kName << ": indices " << runtime::ShapeTuple(indices.shape()) << " address " << k << " dims of data "
            << runtime::ShapeTuple(data.shape()) << " after " << b << " batch dims";
        std::vector<int64_t> dshape = data.shape(), ishape = indices.shape(), want(ishape.begin(), ishape.end() - 1);
        injective::CheckBatchDims(dshape, ishape, b, kName);
        want.insert(want.end(), dshape.begin() + b + k, dshape.end());
        out.CheckShape(want);
        BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 2);
        const int esize = injective::ElemBytes(out, kName);
        const int64_t slice = injective::Product(dshape, b + k, r);      // values per output row
        const int64_t per_batch = injective::Product(ishape, b, q - 1);  // rows per batch
        const int64_t rows = injective::Product(ishape, 0, b) * per_batch;
        if (rows == 0 || slice == 0) return;
        std::vector<int64_t> stride(r);  // in elements
        for (int64_t d = r - 1, s = 1; d >= 0; --d) stride[d] = s, s *= dshape[d];
        const int64_t batch_stride = b > 0 ? stride[b - 1] : 0;
        const char* x = injective::Bytes(data);
        const char* idx = injective::Bytes(indices);
        char* y = injective::Bytes(out);
        injective::ForRows(rows, slice, esize, out, bound, [&](int64_t r0, int64_t r1) {
          for (int64_t row = r0; row < r1; ++row) {
            int64_t off = (row / per_batch) * batch_stride;
            for (int64_t j = 0; j < k; ++j) {
              int64_t at = row * k + j, n = dshape[b + j];
              int64_t v = wide ? reinterpret_cast<const int64_t*>(idx)[at] : reinterpret_cast<const int32_t*>(idx)[at];
              TVMLITE_CHECK_KIND(v >= -n && v < n, IndexError)
                  << kName << ": index " << v << " is out of range for a dim of " << n;
              off += (v < 0 ? v + n : v) * stride[b + j];
            }
            std::memcpy(y + row * slice * esize, x + off * esize, slice * esize);
          }
        });
      });
});

// run(data, indices, [epilogue inputs], out): the body's dtype checks; gather's indices have data's rank (>= 1),
// gather_nd's rank >= 1.
std::string GatherAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  TVMLITE_ACCEPTS_CHECK(injective::IndexingReason(attrs, t));
  if (k == "topi.gather_nd") return MinRankReason(k, "indices", t[1], 1);
  TVMLITE_ACCEPTS_CHECK(MinRankReason(k, "data", t[0], 1));
  if (t[1].ndim != t[0].ndim) return k + ": indices must have the rank of data";
  return "";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.gather", GatherAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.gather_nd", GatherAccepts);

TVMLITE_REGISTER_OP_KERNEL("gather", "topi.gather");
TVMLITE_REGISTER_OP_KERNEL("gather_nd", "topi.gather_nd");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
