/*!
 * \file injective.cc
 * \brief The injective kernels' shared helpers (injective.h): element sizes, the epilogue hookup, strided copies.
 */
#include "injective.h"

#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/shape.h>

namespace tvmlite {
namespace topi {
namespace injective {

std::vector<int64_t> IntValues(const TensorArg& t, const std::string& kernel) {
  TVMLITE_CHECK_KIND(t.ndim() <= 1, ValueError)
      << kernel << ": a shape or bounds input must be 0-d or 1-d, got rank " << t.ndim();
  const DLDataType dt = t.dtype();
  TVMLITE_CHECK_KIND(IsIndexDType(dt), TypeError) << kernel << ": a shape or bounds input must be int32 or int64";
  std::vector<int64_t> out(t.size());
  const char* p = Bytes(t);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = dt.bits == 64 ? reinterpret_cast<const int64_t*>(p)[i] : reinterpret_cast<const int32_t*>(p)[i];
  }
  return out;
}

int ElemBytes(const TensorArg& t, const std::string& kernel) {
  const std::string reason = ByteScalarReason(kernel, t.dtype());
  TVMLITE_CHECK_KIND(reason.empty(), TypeError) << reason;
  return t.dtype().bits / 8;
}

void CheckSameDType(const TensorArg& a, const TensorArg& b, const std::string& kernel) {
  const std::string reason = SameDTypeReason(kernel, a.dtype(), b.dtype());
  TVMLITE_CHECK_KIND(reason.empty(), TypeError) << reason;
}

bool WideIndices(const TensorArg& indices, const std::string& kernel) {
  const std::string reason = IndexReason(kernel, "indices", indices.dtype());
  TVMLITE_CHECK_KIND(reason.empty(), TypeError) << reason;
  return indices.dtype().bits == 64;
}

void CheckBatchDims(const std::vector<int64_t>& data_shape, const std::vector<int64_t>& indices_shape,
                    int64_t batch_dims, const std::string& kernel) {
  for (int64_t d = 0; d < batch_dims; ++d) {
    TVMLITE_CHECK_KIND(data_shape[d] == indices_shape[d], ValueError)
        << kernel << ": batch dim " << d << " differs: data " << runtime::ShapeTuple(data_shape) << ", indices "
        << runtime::ShapeTuple(indices_shape);
  }
}

std::string MovedDTypeReason(const std::string& kernel, DLDataType in, DLDataType out) {
  TVMLITE_ACCEPTS_CHECK(SameDTypeReason(kernel, in, out));
  return ByteScalarReason(kernel, out);
}

std::string IndexingReason(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 2));
  TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[0].dtype, t.back().dtype));
  TVMLITE_ACCEPTS_CHECK(IndexReason(k, "indices", t[1].dtype));
  return ByteScalarReason(k, t.back().dtype);
}

int NormalizeAxis(int64_t axis, int ndim, const std::string& kernel, const char* what) {
  TVMLITE_CHECK_KIND(axis >= -ndim && axis < ndim, ValueError)
      << kernel << ": " << what << " " << axis << " is out of range for rank " << ndim;
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

BoundEpilogue BindEpilogue(const Epilogue& epi, const TensorArg& out, const KernelArgs& args, int first_extra) {
  if (epi.empty()) return BoundEpilogue();
  out.Data<float>();  // a TypeError naming the kernel unless out is float32: the epilogue computes in float32
  return epi.Bind(out.shape(), args.Rest(first_extra), args.kernel());
}

std::vector<int64_t> BroadcastStrides(const TensorArg& t, const std::vector<int64_t>& out_shape,
                                      const std::string& kernel, const char* name) {
  const int nd = static_cast<int>(out_shape.size()), td = t.ndim();
  std::vector<int64_t> strides(nd, 0);
  bool ok = td <= nd;
  int64_t stride = 1;
  for (int d = td - 1; ok && d >= 0; --d) {
    int64_t n = t.dim(d), want = out_shape[nd - td + d];
    ok = n == want || n == 1;
    strides[nd - td + d] = n == 1 ? 0 : stride;
    stride *= n;
  }
  TVMLITE_CHECK_KIND(ok, ValueError) << kernel << ": " << name << " of shape " << runtime::ShapeTuple(t.shape())
                                     << " does not broadcast to the output's " << runtime::ShapeTuple(out_shape);
  return strides;
}

bool CollapseDims(std::vector<int64_t>* shape, std::vector<std::vector<int64_t>*> strides) {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> st(strides.size());
  for (size_t d = 0; d < shape->size(); ++d) {
    int64_t n = (*shape)[d];
    if (n == 0) return false;
    if (n == 1) continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < strides.size() && merge; ++k) {
      int64_t outer = st[k].back(), inner = (*strides[k])[d];
      merge = (outer == 0 && inner == 0) || (inner != 0 && outer == inner * n);
    }
    if (merge) {
      dims.back() *= n;
      for (size_t k = 0; k < strides.size(); ++k) st[k].back() = (*strides[k])[d];
    } else {
      dims.push_back(n);
      for (size_t k = 0; k < strides.size(); ++k) st[k].push_back((*strides[k])[d]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (auto& s : st) s.push_back(0);
  }
  *shape = std::move(dims);
  for (size_t k = 0; k < strides.size(); ++k) *strides[k] = std::move(st[k]);
  return true;
}

namespace {
template <typename T>
void GatherTyped(char* dst, const char* src, int64_t n, int64_t stride) {
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i, src + i * stride, sizeof(T));
}
}  // namespace

void GatherElems(char* dst, const char* src, int64_t n, int64_t src_stride, int esize) {
  if (src_stride == esize) {
    std::memcpy(dst, src, n * esize);
    return;
  }
  switch (esize) {
    case 1: return GatherTyped<uint8_t>(dst, src, n, src_stride);
    case 2: return GatherTyped<uint16_t>(dst, src, n, src_stride);
    case 4: return GatherTyped<uint32_t>(dst, src, n, src_stride);
    default: return GatherTyped<uint64_t>(dst, src, n, src_stride);
  }
}

void StridedCopy(const TensorArg& out, const char* src, std::vector<int64_t> shape, std::vector<int64_t> strides,
                 int esize, const BoundEpilogue& epi) {
  if (!CollapseDims(&shape, {&strides})) return;
  const int nd = static_cast<int>(shape.size());
  const int64_t inner = shape[nd - 1], inner_stride = nd == 1 && inner == 1 ? esize : strides[nd - 1];
  char* dst = Bytes(out);
  ForRows(Product(shape, 0, nd - 1), inner, esize, out, epi, [&](int64_t r0, int64_t r1) {
    // The source offset of row r0, then an odometer over the outer dims (no divisions per row).
    std::vector<int64_t> idx(nd, 0);
    int64_t off = 0;
    for (int64_t d = nd - 2, rest = r0; d >= 0; --d) {
      idx[d] = rest % shape[d], rest /= shape[d];
      off += idx[d] * strides[d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      GatherElems(dst + r * inner * esize, src + off, inner, inner_stride, esize);
      for (int d = nd - 2; d >= 0; --d) {
        off += strides[d];
        if (++idx[d] < shape[d]) break;
        off -= idx[d] * strides[d];
        idx[d] = 0;
      }
    }
  });
}

}  // namespace injective
}  // namespace topi
}  // namespace tvmlite
