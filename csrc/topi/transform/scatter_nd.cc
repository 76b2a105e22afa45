/*!
 * \file scatter_nd.cc
 * \brief topi.scatter_nd (relay scatter_nd, ONNX ScatterND without reduction): out = data, then each index tuple's
 * slice replaced by its updates slice. Any dtype (bytes are moved). Swin's shifted-window masks and T5's decoder
 * build small tensors this way.
 *
 *   topi.scatter_nd({"mode": "update"})   run(data, indices, updates, out)   indices (..., k), int32 / int64
 *
 * Indices may be negative (counted from the end, as the reference); out of range is a ValueError naming the
 * kernel. Duplicate indices: the last write wins (ONNX leaves it undefined).
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

TVMLITE_REGISTER_GLOBAL("topi.scatter_nd").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.scatter_nd";
  KernelAttrs attrs(kName, attrs_in);
  // Reductions accumulate in the data's type: the reference runs them (a TypeError here sends them there).
  TVMLITE_CHECK_KIND(attrs.GetString("mode", "update") == "update", TypeError)
      << kName << ": only mode 'update' runs natively";
  attrs.CheckNoEpilogue();
  return MakeKernel(kName, 4, [](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), idx = args.Input(1, "indices"), upd = args.Input(2, "updates");
    TensorArg out = args.Output();
    injective::CheckSameDType(data, out, kName);
    injective::CheckSameDType(data, upd, kName);
    out.CheckShape(data.shape());
    const bool wide = injective::WideIndices(idx, kName);
    TVMLITE_CHECK_KIND(idx.ndim() >= 1, ValueError) << kName << ": indices must have a last dim (k)";
    const int64_t k = idx.dim(idx.ndim() - 1);
    TVMLITE_CHECK_KIND(k >= 0 && k <= data.ndim(), ValueError)
        << kName << ": index tuples of " << k << " for data of rank " << data.ndim();
    // updates: indices.shape[:-1] + data.shape[k:]
    const std::vector<int64_t> idx_shape = idx.shape();
    std::vector<int64_t> want(idx_shape.begin(), idx_shape.end() - 1);
    for (int d = static_cast<int>(k); d < data.ndim(); ++d) want.push_back(data.dim(d));
    TVMLITE_CHECK_KIND(upd.shape() == want, ValueError)
        << kName << ": updates have shape " << runtime::ShapeTuple(upd.shape()) << ", expected "
        << runtime::ShapeTuple(want);
    const int esize = injective::ElemBytes(data, kName);
    int64_t slice = 1;
    for (int d = static_cast<int>(k); d < data.ndim(); ++d) slice *= data.dim(d);
    char* y = injective::Bytes(out);
    std::memcpy(y, injective::Bytes(data), data.size() * esize);
    int64_t tuples = 1;
    for (int d = 0; d + 1 < idx.ndim(); ++d) tuples *= idx.dim(d);
    const char* ip = injective::Bytes(idx);
    const char* up = injective::Bytes(upd);
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t at = 0;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t n = data.dim(static_cast<int>(j));
        int64_t v =
            wide ? reinterpret_cast<const int64_t*>(ip)[t * k + j] : reinterpret_cast<const int32_t*>(ip)[t * k + j];
        TVMLITE_CHECK_KIND(v >= -n && v < n, ValueError)
            << kName << ": index " << v << " is out of range for a dim of " << n;
        at = at * n + (v < 0 ? v + n : v);
      }
      std::memcpy(y + at * slice * esize, up + t * slice * esize, slice * esize);
    }
  });
});

// run(data, indices, updates, out) in mode "update": data, updates and out one dtype, indices int32/int64 of rank
// >= 1.
std::string ScatterNdAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (attrs.GetString("mode", "update") != "update") return k + ": only mode 'update' runs natively";
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 3));
  TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[0].dtype, t.back().dtype));
  TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[0].dtype, t[2].dtype));
  TVMLITE_ACCEPTS_CHECK(IndexReason(k, "indices", t[1].dtype));
  TVMLITE_ACCEPTS_CHECK(MinRankReason(k, "indices", t[1], 1));
  return ByteScalarReason(k, t[0].dtype);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.scatter_nd", ScatterNdAccepts);

}  // namespace

TVMLITE_REGISTER_OP_KERNEL("scatter_nd", "topi.scatter_nd");

}  // namespace topi
}  // namespace tvmlite
