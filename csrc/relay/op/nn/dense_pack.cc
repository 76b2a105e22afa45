/*!
 * \file dense_pack.cc
 * \brief nn.contrib_dense_pack: nn.dense with its weight pre-packed into panels for the GEMM kernel.
 *
 *   nn.contrib_dense_pack  data (..., K), weight (ceil(N / nb), K, nb)  -> (..., N)
 *   weight[p, k, j] = W[p * nb + j, k] for nn.dense's W (N, K): layout "NK{nb}n" (layout_transform "NK" -> "NK16n"),
 *   zero past N when nb does not divide N (W padded with zero rows first)
 *
 * The layout pass rewrites nn.dense(x, W) with a constant W into this op on layout_transform(W), which FoldConstant
 * evaluates at build, so the weight is packed once (topi.nn.dense_pack_width gives nb). `units`, when set, is N: the
 * packed columns, or fewer when the last panel is padded (within it: ((panels - 1) nb, panels nb]); unset, N is
 * all the packed columns. `weight_layout` names the packing and must agree with the weight's last dim when both are
 * known.
 */
#include <tvmlite/runtime/reflection.h>

#include "op_common.h"
#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

/*! \brief Attrs of nn.contrib_dense_pack (TVM's DensePackAttrs). */
struct DensePackAttrs : public AttrsNode {
  Optional<int64_t> units;
  Optional<DataType> out_dtype;
  std::string weight_layout = "NK16n";

  TVMLITE_DECLARE_ATTRS(DensePackAttrs, "relay.attrs.DensePackAttrs");
};

namespace {

/*! \brief nb in "NK{nb}n", or 0 when the string is not of that form. */
int64_t LayoutBlock(const std::string& layout) {
  if (layout.size() < 4 || layout.compare(0, 2, "NK") != 0 || layout.back() != 'n') return 0;
  int64_t nb = 0;
  for (size_t i = 2; i + 1 < layout.size(); ++i) {
    if (layout[i] < '0' || layout[i] > '9' || nb > (int64_t(1) << 40)) return 0;
    nb = nb * 10 + (layout[i] - '0');
  }
  return nb;
}

Type DensePackRel(const Array<Type>& args, const DensePackAttrs& attr) {
  const TensorTypeNode* data = TensorArg(args, 0);
  const TensorTypeNode* weight = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(data->ndim() >= 1, ValueError) << "data must have rank >= 1, got a scalar";
  CheckRank(weight, 3, "weight (N / nb, K, nb)");
  int64_t nb = LayoutBlock(attr.weight_layout);
  TVMLITE_CHECK_KIND(nb >= 1, ValueError)
      << "weight_layout must be NK{nb}n with nb >= 1, got '" << attr.weight_layout << "'";
  TVMLITE_CHECK_KIND(weight->shape[2].type_index() != kTVMLiteInt || DimIs(weight->shape[2], nb), ValueError)
      << "weight " << ShapeToString(weight->shape) << " does not match weight_layout '" << attr.weight_layout
      << "' (its last dim must be " << nb << ")";
  TVMLITE_CHECK_KIND(data->dtype == weight->dtype || attr.out_dtype.has_value(), TypeError)
      << "operand dtypes differ (" << data->dtype.str() << " vs " << weight->dtype.str()
      << "); set out_dtype to mix them";
  const Any& kd = data->shape[data->ndim() - 1];
  const Any& kw = weight->shape[1];
  TVMLITE_CHECK_KIND(kd.type_index() != kTVMLiteInt || kw.type_index() != kTVMLiteInt || DimEqual(kd, kw), ValueError)
      << "reduction dims disagree: data " << ShapeToString(data->shape) << " and weight "
      << ShapeToString(weight->shape) << " (K is weight dim 1)";
  Any units = DimMulChecked(weight->shape[0], Any(nb));
  if (attr.units.has_value()) {
    // N that no panel width divides: the last panel is zero-padded, so units is in ((panels - 1) nb, panels nb].
    std::optional<int64_t> u = units.as<int64_t>();
    const int64_t want = *attr.units;
    TVMLITE_CHECK_KIND(want >= 0 && (!u || (want <= *u && want > *u - nb)), ValueError)
        << "units = " << want << " disagrees with packed weight " << ShapeToString(weight->shape)
        << (u ? " (its " + std::to_string(*u) + " columns in panels of " + std::to_string(nb) + " hold units in (" +
                    std::to_string(*u - nb) + ", " + std::to_string(*u) + "])"
              : std::string());
    units = Any(want);
  }
  std::vector<Any> out = ToVector(data->shape);
  out.back() = units;
  return TensorType(Array<Any>(out), OutDtype(attr.out_dtype, data->dtype));
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(DensePackAttrs, units, out_dtype, weight_layout); });

TVMLITE_REGISTER_OP("nn.contrib_dense_pack")
    .describe(
        "nn.dense with a pre-packed weight: data (..., K), weight (ceil(N / nb), K, nb) (\"NK{nb}n\") -> "
        "(..., N).")
    .add_argument("data", "Tensor", "The input, (..., K).")
    .add_argument("weight", "Tensor", "The packed weights, (ceil(N / nb), K, nb), zero past N.")
    .add_type_rel("DensePack", DensePackRel)
    .set_attr<TOpPattern>("TOpPattern", kOutEWiseFusable);

}  // namespace relay
}  // namespace tvmlite
