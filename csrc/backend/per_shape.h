/*!
 * \file per_shape.h
 * \brief Which graph nodes compute values that follow from the graph inputs' shapes alone ("per_shape" nodes).
 *
 * Exporters compute masks, position ids and index arithmetic from `Shape` (Swin's shifted-window mask, T5's
 * relative-position buckets, a causal mask's slice): with symbolic dims none of it folds at build, yet none of it
 * reads an input's values. The lowering marks such nodes and the executor computes them once per input-shape
 * signature (graph_executor.cc, "Per shape").
 *
 * A group's value is per-shape when every op in it is deterministic (OpFacts) and each of its leaves is either a
 * per-shape value or read only for its shape (OpFacts::ReadsOnlyShape: shape_of's data, a *_like op's shape_like)
 * by a tensor whose shape follows from the inputs' shapes. A node's output *shape* follows from the inputs' shapes
 * when its value does, when it is static, when a shape function of its leaves' shapes gives it, or when the values
 * its shape depends on (dyn.reshape's newshape) are per-shape. This file answers, for one group, what it reads.
 */
#ifndef TVMLITE_BACKEND_PER_SHAPE_H_
#define TVMLITE_BACKEND_PER_SHAPE_H_

#include <tvmlite/ir/expr.h>
#include <tvmlite/relay/op_facts.h>

#include <cstddef>
#include <unordered_map>
#include <vector>

namespace tvmlite {
namespace backend {

/*! \brief How a group reads its leaves. */
struct LeafUse {
  bool pure = false;             // only deterministic op calls, tuples and constants between the root and its leaves
  std::vector<char> value_read;  // per leaf: its values are read (else only its shape and dtype)
  // Per leaf: the group's output shape may depend on its values (only a group of one op that shapes its output by
  // values, e.g. dyn.reshape's newshape, says which: OpFacts::ShapeReadsValue; any other group: every leaf).
  std::vector<char> shape_value_read;
};

/*! \brief Walk the group from root down to its leaves (leaf_index: leaf expression -> position). */
LeafUse GroupLeafUse(const ir::Expr& root, const std::unordered_map<const runtime::Object*, size_t>& leaf_index,
                     const relay::OpFacts& facts);

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_PER_SHAPE_H_
