/*!
 * \file concatenate.cc
 * \brief topi.concatenate (relay concatenate): N inputs joined along axis.
 *
 *   topi.concatenate({"axis": 1})     run(x_0, ..., x_{N-1}, [epilogue inputs], out)
 *
 * N is what the call passes: every tensor but out and the epilogue's extra inputs. The output, seen as rows of
 * prod(out.shape[axis:]) elements, is each input's row in turn; the walk goes over flat output ranges (so axis 0,
 * one big row, still splits across threads), each range copied as the few input pieces it overlaps.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include <sstream>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

TVMLITE_REGISTER_GLOBAL("topi.concatenate").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.concatenate";
  KernelAttrs attrs(kName, attrs_in);
  int64_t axis_attr = attrs.GetInt("axis", 0);
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 2 + epi.num_inputs(), [epi, axis_attr](const KernelArgs& args) {
    const int n_in = args.size() - 1 - epi.num_inputs();
    TensorArg out = args.Output();
    const int nd = out.ndim();
    TVMLITE_CHECK_KIND(nd >= 1, ValueError) << kName << ": out must have at least one dimension";
    const int axis = injective::NormalizeAxis(axis_attr, nd, kName);
    const int esize = injective::ElemBytes(out, kName);
    std::vector<int64_t> shape = out.shape();
    std::vector<const char*> src(n_in);
    std::vector<int64_t> begin(n_in + 1, 0);  // where input k starts in an output row (elements)
    const int64_t inner = injective::Product(shape, axis + 1, nd);
    int64_t along = 0;
    for (int k = 0; k < n_in; ++k) {
      TensorArg x = args.Input(k, "input");
      injective::CheckSameDType(x, out, kName);
      bool ok = x.ndim() == nd;
      for (int d = 0; ok && d < nd; ++d) ok = d == axis || x.dim(d) == shape[d];
      if (!ok) {
        std::ostringstream os;
        os << "input " << k << " of shape " << runtime::ShapeTuple(x.shape()) << " does not concatenate on axis "
           << axis << " into out " << runtime::ShapeTuple(shape);
        TVMLITE_THROW(ValueError) << kName << ": " << os.str();
      }
      along += x.dim(axis);
      begin[k + 1] = begin[k] + x.dim(axis) * inner;
      src[k] = injective::Bytes(x);
    }
    TVMLITE_CHECK_KIND(along == shape[axis], ValueError)
        << kName << ": the inputs have " << along << " along axis " << axis << ", out " << shape[axis];
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, n_in);
    const int64_t row = begin[n_in];
    if (row == 0 || out.size() == 0) return;
    char* y = injective::Bytes(out);
    injective::ForFlat(out.size(), esize, out, bound, [&](int64_t b, int64_t e) {
      int64_t pos = b;
      int k = 0;
      while (pos < e) {
        int64_t r = pos / row, col = pos % row;
        if (col < begin[k]) k = 0;
        while (begin[k + 1] <= col) ++k;
        int64_t len = std::min(e - pos, begin[k + 1] - col);
        int64_t width = begin[k + 1] - begin[k];
        std::memcpy(y + pos * esize, src[k] + (r * width + col - begin[k]) * esize, len * esize);
        pos += len;
      }
    });
  });
});

// run(x_0, ..., x_{N-1}, [epilogue inputs], out): every input out's dtype and rank (>= 1).
std::string ConcatenateAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  const int n_in = static_cast<int>(t.size()) - 1 - EpilogueInputs(attrs);
  if (n_in < 1) return k + ": expected at least one input";
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, n_in));
  TVMLITE_ACCEPTS_CHECK(MinRankReason(k, "out", t.back(), 1));
  TVMLITE_ACCEPTS_CHECK(ByteScalarReason(k, t.back().dtype));
  for (int i = 0; i < n_in; ++i) {
    TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[i].dtype, t.back().dtype));
    if (t[i].ndim != t.back().ndim) return k + ": input " + std::to_string(i) + " must have out's rank";
  }
  return "";
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.concatenate", ConcatenateAccepts);

TVMLITE_REGISTER_OP_KERNEL("concatenate", "topi.concatenate");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
