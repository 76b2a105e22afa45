/*!
 * \file per_shape.cc
 * \brief GroupLeafUse (per_shape.h).
 */
#include "./per_shape.h"

#include <tvmlite/ir/op.h>

#include <unordered_set>

namespace tvmlite {
namespace backend {

using namespace ir;  // NOLINT(*)

LeafUse GroupLeafUse(const Expr& root, const std::unordered_map<const runtime::Object*, size_t>& leaf_index,
                     const relay::OpFacts& facts) {
  LeafUse use;
  use.value_read.assign(leaf_index.size(), 0);
  use.shape_value_read.assign(leaf_index.size(), 1);
  if (const auto* c = root.as<CallNode>(); c && c->op.as<OpNode>()) {
    use.shape_value_read.assign(leaf_index.size(), 0);
    const Op op = Downcast<Op>(c->op);
    for (size_t i = 0; i < c->args.size(); ++i) {
      auto it = leaf_index.find(c->args[i].get());
      if (it != leaf_index.end() && facts.ShapeReadsValue(op, i)) use.shape_value_read[it->second] = 1;
    }
  }
  std::vector<Expr> stack{root};
  std::unordered_set<const runtime::Object*> seen;
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (!seen.insert(e.get()).second) continue;
    if (auto it = leaf_index.find(e.get()); it != leaf_index.end()) {
      use.value_read[it->second] = 1;
    } else if (const auto* c = e.as<CallNode>()) {
      if (!c->op.as<OpNode>()) return use;  // a function
      const Op op = Downcast<Op>(c->op);
      if (!facts.Deterministic(op)) return use;
      for (size_t i = 0; i < c->args.size(); ++i) {
        // A leaf at a position the op reads only the shape of is not a value read (a computed argument there is
        // still computed: walked as a value).
        if (leaf_index.count(c->args[i].get()) && facts.ReadsOnlyShape(op, i)) continue;
        stack.push_back(c->args[i]);
      }
    } else if (const auto* t = e.as<TupleNode>()) {
      for (const Expr& f : t->fields) stack.push_back(f);
    } else if (const auto* g = e.as<TupleGetItemNode>()) {
      stack.push_back(g->tuple);
    } else if (!e.as<ConstantNode>() && !e.as<OpNode>()) {
      return use;  // a variable bound elsewhere, a function: not known to be pure
    }
  }
  use.pure = true;
  return use;
}

}  // namespace backend
}  // namespace tvmlite
