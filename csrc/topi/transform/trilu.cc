/*!
 * \file trilu.cc
 * \brief topi.trilu (relay trilu; ONNX Trilu): the upper (lower) triangle of each matrix in the last two dims, the
 * diagonal shifted by k; the rest zeros.
 *
 *   topi.trilu({"upper": 1})     run(data, k, [epilogue inputs], out)      k: int32/int64, 0-d or one element
 *
 * Element (i, j) of an M x N matrix stays when j - i >= k (upper) or j - i <= k (lower): numpy's triu / tril. Any
 * 1/2/4/8-byte dtype (zero is all-zero bytes for each); out has data's shape and dtype. Each output row is one run
 * of zeros and one copied run, so rows (batch * M of them) go to the thread pool.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

TVMLITE_REGISTER_GLOBAL("topi.trilu").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.trilu";
  KernelAttrs attrs(kName, attrs_in);
  const bool upper = attrs.GetInt("upper", 1) != 0;
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 3 + epi.num_inputs(), [upper, epi](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), k_arg = args.Input(1, "k"), out = args.Output();
    TVMLITE_CHECK_KIND(data.ndim() >= 2, ValueError)
        << kName << ": data must have rank >= 2, got shape " << runtime::ShapeTuple(data.shape());
    std::vector<int64_t> ks = injective::IntValues(k_arg, kName);
    TVMLITE_CHECK_KIND(ks.size() == 1, ValueError) << kName << ": k must hold one value, got " << ks.size();
    injective::CheckSameDType(data, out, kName);
    out.CheckShape(data.shape());
    const int esize = injective::ElemBytes(out, kName);
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 2);
    const int nd = data.ndim();
    const int64_t m = data.dim(nd - 2), n = data.dim(nd - 1), rows = data.size() / std::max<int64_t>(n, 1);
    if (data.size() == 0) return;
    // Clamped so that i + k cannot overflow; beyond these bounds every row is all kept or all zero anyway.
    const int64_t k = std::clamp<int64_t>(ks[0], -m - 1, n + 1);
    const char* src = injective::Bytes(data);
    char* dst = injective::Bytes(out);
    injective::ForRows(rows, n, esize, out, bound, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r % m;
        // columns [keep0, keep1) are kept: upper j >= i + k, lower j <= i + k
        const int64_t keep0 = upper ? std::clamp<int64_t>(i + k, 0, n) : 0;
        const int64_t keep1 = upper ? n : std::clamp<int64_t>(i + k + 1, 0, n);
        const int64_t row = r * n * esize;
        std::memset(dst + row, 0, static_cast<size_t>(keep0 * esize));
        if (keep1 > keep0) {
          std::memmove(dst + row + keep0 * esize, src + row + keep0 * esize,  // out may alias data
                       static_cast<size_t>((keep1 - keep0) * esize));
        }
        std::memset(dst + row + keep1 * esize, 0, static_cast<size_t>((n - keep1) * esize));
      }
    });
  });
});

// run(data, k, [epilogue inputs], out): data of rank >= 2 and out its dtype, k a 0-d or 1-d int32/int64.
std::string TriluAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 2));
  TVMLITE_ACCEPTS_CHECK(MinRankReason(k, "data", t[0], 2));
  TVMLITE_ACCEPTS_CHECK(IndexReason(k, "k", t[1].dtype));
  if (t[1].ndim > 1) return k + ": k must be 0-d or 1-d";
  return injective::MovedDTypeReason(k, t[0].dtype, t.back().dtype);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.trilu", TriluAccepts);

TVMLITE_REGISTER_OP_KERNEL("trilu", "topi.trilu");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
