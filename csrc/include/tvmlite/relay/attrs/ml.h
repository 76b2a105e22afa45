/*!
 * \file tvmlite/relay/attrs/ml.h
 * \brief Attrs of the classical-ML ops (ONNX ai.onnx.ml): ml.binarizer, ml.tree_ensemble.
 */
#ifndef TVMLITE_RELAY_ATTRS_ML_H_
#define TVMLITE_RELAY_ATTRS_ML_H_

#include <tvmlite/ir/attrs.h>

namespace tvmlite {
namespace relay {

using runtime::Array;

struct BinarizerAttrs : public ir::AttrsNode {
  double threshold = 0.0;

  TVMLITE_DECLARE_ATTRS(BinarizerAttrs, "relay.attrs.BinarizerAttrs");
};

/*!
 * \brief A forest (ONNX TreeEnsemble): interior nodes as parallel arrays (nodes_*), leaves as parallel arrays
 * (leaf_*); a branch is a leaf index when its *leafs flag is set, else a node index.
 */
struct TreeEnsembleAttrs : public ir::AttrsNode {
  int64_t n_targets = 1;
  int64_t aggregate_function = 1;  // 0 average, 1 sum, 2 min, 3 max
  int64_t post_transform = 0;      // 0 none, 1 softmax, 2 logistic, 3 softmax_zero, 4 probit
  Array<int64_t> tree_roots;
  Array<int64_t> nodes_featureids;
  Array<int64_t> nodes_modes;  // 0 <=, 1 <, 2 >=, 3 >, 4 ==, 5 !=, 6 member
  Array<double> nodes_splits;
  Array<int64_t> nodes_truenodeids;
  Array<int64_t> nodes_trueleafs;
  Array<int64_t> nodes_falsenodeids;
  Array<int64_t> nodes_falseleafs;
  Array<int64_t> nodes_missing_value_tracks_true;
  Array<double> membership_values;  // the sets of the member nodes, in node order, separated by NaN
  Array<int64_t> leaf_targetids;
  Array<double> leaf_weights;

  TVMLITE_DECLARE_ATTRS(TreeEnsembleAttrs, "relay.attrs.TreeEnsembleAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_ML_H_
