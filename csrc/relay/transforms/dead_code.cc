/*!
 * \file dead_code.cc
 * \brief DeadCodeElimination for a dataflow IR: indirections through tuples, and functions nothing calls.
 *
 * The IR has no Let: a node nothing uses is not in the graph, so TVM's "drop unused bindings" has nothing to
 * do. What is left to remove:
 *  - TupleGetItem(Tuple(f0, f1, ...), i) -> f_i (one mutator walk, children first, so chains collapse); the
 *    other fields are no longer computed when nothing else uses them;
 *  - module functions other than "main" that main does not reach (there is no GlobalVar: a function is
 *    reachable only when main's graph holds that Function object itself).
 * main's parameters stay as they are (they are the model's inputs, used or not).
 */
#include <tvmlite/runtime/registry.h>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

class TupleForwarder : public ExprMutator {
 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    if (const auto* get = original.as<TupleGetItemNode>()) {
      if (const auto* t = new_children[0].as<TupleNode>()) return t->fields[get->index];
    }
    return ExprMutator::Rewrite(original, new_children);
  }
};

class Reached : public ExprVisitor {
 public:
  bool Contains(const Object* node) const { return visited_.count(node) != 0; }
};

}  // namespace

IRModule DeadCodeElimination(const IRModule& mod) {
  TupleForwarder forwarder;
  Map<String, Function> rewritten;
  for (const auto& kv : mod->functions.get()->items()) {
    rewritten.Set(kv.first.cast<String>(), runtime::Downcast<Function>(forwarder.Mutate(kv.second.cast<Function>())));
  }
  Optional<Function> main = rewritten.Get("main");
  if (!main.has_value()) return InferType(IRModule(rewritten));
  Reached reached;
  reached.VisitExpr(*main);
  Map<String, Function> kept;
  for (const auto& kv : mod->functions.get()->items()) {
    String name = kv.first.cast<String>();
    Function new_f = rewritten[name];
    // A function main reaches is reached as its original object (or as the rewritten one, when main's copy
    // changed the same way).
    if (name == "main" || reached.Contains(kv.second.cast<Function>().get()) || reached.Contains(new_f.get())) {
      kept.Set(name, new_f);
    }
  }
  return InferType(IRModule(kept));
}

TVMLITE_REGISTER_GLOBAL("relay._transform.DeadCodeElimination").set_body_typed([](IRModule mod) {
  return DeadCodeElimination(mod);
});

}  // namespace relay
}  // namespace tvmlite
