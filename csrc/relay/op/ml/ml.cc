/*!
 * \file ml.cc
 * \brief Classical-ML ops (ONNX ai.onnx.ml):
 *
 *   ml.binarizer(x)                      -> x's type: 1 where x > threshold, else 0
 *   ml.array_feature_extractor(x, idx)   -> x's shape with the last dim replaced by idx's count (rank 1 input:
 *                                           (1, count), as ONNX specifies)
 *   ml.tree_ensemble(x: (N, F))          -> (N, n_targets), x's dtype
 */
#include <tvmlite/relay/attrs/ml.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/reflection.h>

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

TVMLITE_STATIC_INIT_BLOCK({
  TVMLITE_REFLECT_FIELDS(BinarizerAttrs, threshold);
  TVMLITE_REFLECT_FIELDS(TreeEnsembleAttrs, n_targets, aggregate_function, post_transform, tree_roots, nodes_featureids,
                         nodes_modes, nodes_splits, nodes_truenodeids, nodes_trueleafs, nodes_falsenodeids,
                         nodes_falseleafs, nodes_missing_value_tracks_true, membership_values, leaf_targetids,
                         leaf_weights);
});

namespace {

Type BinarizerRel(const Array<Type>& args, const BinarizerAttrs&) {
  const TensorTypeNode* x = TensorArg(args, 0);
  return TensorType(x->shape, x->dtype);
}

Type ArrayFeatureExtractorRel(const Array<Type>& args, const Attrs&) {
  const TensorTypeNode* x = TensorArg(args, 0);
  const TensorTypeNode* idx = TensorArg(args, 1);
  TVMLITE_CHECK_KIND(idx->dtype == DataType::Int(64), TypeError) << "the indices must be int64";
  TVMLITE_CHECK_KIND(x->ndim() >= 1, ValueError) << "the input must have rank >= 1";
  std::vector<Any> count;
  for (const Any& d : idx->shape) count.push_back(d);
  Any n = DimProduct(count);
  std::vector<Any> out;
  if (x->ndim() == 1) out.push_back(Any(int64_t(1)));
  for (size_t i = 0; i + 1 < x->ndim(); ++i) out.push_back(x->shape[i]);
  out.push_back(n);
  return TensorType(Array<Any>(out), x->dtype);
}

Type TreeEnsembleRel(const Array<Type>& args, const TreeEnsembleAttrs& a) {
  const TensorTypeNode* x = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(x->ndim() == 2, ValueError) << "the input must be (N, F), got " << ShapeToString(x->shape);
  TVMLITE_CHECK_KIND(x->dtype.is_float(), TypeError) << "the input must be floating point";
  TVMLITE_CHECK_KIND(a.n_targets >= 1, ValueError) << "n_targets must be at least 1, got " << a.n_targets;
  TVMLITE_CHECK_KIND(a.aggregate_function >= 0 && a.aggregate_function <= 3, ValueError)
      << "aggregate_function must be 0..3, got " << a.aggregate_function;
  TVMLITE_CHECK_KIND(a.post_transform >= 0 && a.post_transform <= 4, ValueError)
      << "post_transform must be 0..4, got " << a.post_transform;
  size_t n = a.nodes_featureids.size();
  for (const Array<int64_t>& v :
       {a.nodes_modes, a.nodes_truenodeids, a.nodes_trueleafs, a.nodes_falsenodeids, a.nodes_falseleafs}) {
    TVMLITE_CHECK_KIND(v.size() == n, ValueError) << "every nodes_* attribute must have " << n << " entries";
  }
  TVMLITE_CHECK_KIND(a.nodes_splits.size() == n, ValueError) << "nodes_splits must have " << n << " entries";
  TVMLITE_CHECK_KIND(a.leaf_targetids.size() == a.leaf_weights.size(), ValueError)
      << "leaf_targetids and leaf_weights differ in length";
  return TensorType(Array<Any>{x->shape[0], Any(a.n_targets)}, x->dtype);
}

}  // namespace

TVMLITE_REGISTER_OP("ml.binarizer")
    .describe("1 where the input exceeds the threshold, else 0 (ONNX ai.onnx.ml Binarizer).")
    .add_argument("data", "Tensor", "The input.")
    .add_type_rel("Binarizer", BinarizerRel)
    .set_attr<TOpPattern>("TOpPattern", kElemWise);

TVMLITE_REGISTER_OP("ml.array_feature_extractor")
    .describe("Elements of the last axis at the given indices (ONNX ai.onnx.ml ArrayFeatureExtractor).")
    .add_argument("data", "Tensor", "The input.")
    .add_argument("indices", "Tensor", "int64 indices into the last axis.")
    .add_type_rel("ArrayFeatureExtractor", ArrayFeatureExtractorRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

TVMLITE_REGISTER_OP("ml.tree_ensemble")
    .describe("A forest of decision trees: one score per target (ONNX ai.onnx.ml TreeEnsemble).")
    .add_argument("data", "Tensor", "(N, F) features.")
    .add_type_rel("TreeEnsemble", TreeEnsembleRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
