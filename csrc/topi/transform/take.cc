/*!
 * \file take.cc
 * \brief topi.take (relay take, ONNX Gather): rows of data picked by integer indices along axis.
 *
 *   topi.take({"axis": 0, "batch_dims": 0, "mode": "fast"})     run(data, indices, [epilogue inputs], out)
 *
 * out.shape = data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis+1:], the first batch_dims dims of
 * data and indices shared. With B = prod(data.shape[:batch_dims]), O = prod(data.shape[batch_dims:axis]),
 * I = prod(indices.shape[batch_dims:]) and R = prod(data.shape[axis+1:]): out[b, o, i, :] = data[b, o, j, :] with
 * j = indices[b, i]. Modes as the reference: "fast" counts a negative index from the end and raises IndexError for
 * one out of range; "clip" clamps to [0, n - 1]; "wrap" takes it modulo n. indices are int32 or int64.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

enum class Mode { kFast, kClip, kWrap };

int64_t Resolve(int64_t j, int64_t n, Mode mode) {
  if (mode == Mode::kClip) return j < 0 ? 0 : (j >= n ? n - 1 : j);
  if (mode == Mode::kWrap) return ((j % n) + n) % n;
  TVMLITE_CHECK_KIND(j >= -n && j < n, IndexError) << "topi.take: index " << j << " is out of range for a dim of " << n;
  return j < 0 ? j + n : j;
}

TVMLITE_REGISTER_GLOBAL("topi.take").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.take";
  KernelAttrs attrs(kName, attrs_in);
  int64_t axis_attr = attrs.GetInt("axis", 0), batch_attr = attrs.GetInt("batch_dims", 0);
  std::string mode_name = attrs.GetString("mode", "fast");
  TVMLITE_CHECK_KIND(mode_name == "fast" || mode_name == "clip" || mode_name == "wrap", ValueError)
      << kName << ": mode '" << mode_name << "' (expected fast, clip or wrap)";
  Mode mode = mode_name == "clip" ? Mode::kClip : mode_name == "wrap" ? Mode::kWrap : Mode::kFast;
  Epilogue epi = attrs.GetEpilogue();
  return injective::MakeIndexingKernel(
      kName, epi,
      [=](const KernelArgs& args, const TensorArg& data, const TensorArg& indices, const TensorArg& out, bool wide) {
        const int nd = data.ndim(), id = indices.ndim();
        TVMLITE_CHECK_KIND(nd >= 1, ValueError) << kName << ": data must have at least one dimension";
        const int axis = injective::NormalizeAxis(axis_attr, nd, kName);
        int64_t bd = batch_attr < 0 ? batch_attr + id : batch_attr;
        TVMLITE_CHECK_KIND(bd >= 0 && bd <= id && bd <= axis, ValueError)
            << kName << ": batch_dims " << batch_attr << " must be in [0, min(rank(indices), axis)] = [0, "
            << std::min(id, axis) << "]";
        std::vector<int64_t> dshape = data.shape(), ishape = indices.shape(), want;
        injective::CheckBatchDims(dshape, ishape, bd, kName);
        want.insert(want.end(), dshape.begin(), dshape.begin() + axis);
        want.insert(want.end(), ishape.begin() + bd, ishape.end());
        want.insert(want.end(), dshape.begin() + axis + 1, dshape.end());
        out.CheckShape(want);
        BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 2);
        const int esize = injective::ElemBytes(out, kName);
        const int64_t n = dshape[axis], O = injective::Product(dshape, bd, axis);
        const int64_t I = injective::Product(ishape, bd, id), R = injective::Product(dshape, axis + 1, nd);
        const int64_t rows = injective::Product(dshape, 0, bd) * O * I;
        if (rows == 0 || R == 0) return;
        TVMLITE_CHECK_KIND(n > 0, IndexError) << kName << ": cannot take from an empty axis " << axis;
        const char* x = injective::Bytes(data);
        const char* idx = injective::Bytes(indices);
        char* y = injective::Bytes(out);
        const int64_t row_bytes = R * esize;
        injective::ForRows(rows, R, esize, out, bound, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            int64_t i = r % I, bo = r / I, b = bo / O;
            int64_t k = b * I + i;
            int64_t j = wide ? reinterpret_cast<const int64_t*>(idx)[k] : reinterpret_cast<const int32_t*>(idx)[k];
            j = Resolve(j, n, mode);
            std::memcpy(y + r * row_bytes, x + (bo * n + j) * row_bytes, row_bytes);
          }
        });
      });
});

// run(data, indices, [epilogue inputs], out): the body's dtype checks, and data's rank >= 1.
std::string TakeAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  TVMLITE_ACCEPTS_CHECK(injective::IndexingReason(attrs, t));
  return MinRankReason(attrs.kernel(), "data", t[0], 1);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.take", TakeAccepts);

TVMLITE_REGISTER_OP_KERNEL("take", "topi.take");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
