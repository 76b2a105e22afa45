/*!
 * \file expr_functor.cc
 * \brief Iterative post-order walks: an explicit stack of (node, next child) frames instead of recursion.
 */
#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/ir/module.h>

#include <utility>
#include <vector>

namespace tvmlite {
namespace ir {

Array<Expr> ExprChildren(const Expr& expr) {
  if (const auto* n = expr.as<CallNode>()) {
    std::vector<Expr> c;
    c.reserve(n->args.size() + 1);
    c.push_back(n->op);
    for (const Expr& a : n->args) c.push_back(a);
    return Array<Expr>(c);
  }
  if (const auto* n = expr.as<TupleNode>()) return n->fields;
  if (const auto* n = expr.as<TupleGetItemNode>()) return Array<Expr>({n->tuple});
  if (const auto* n = expr.as<FunctionNode>()) return Array<Expr>({n->body});
  return Array<Expr>();
}

namespace {
/*!
 * \brief Post-order over the DAG below root, each node once: on_node(node, children) runs after all of its
 * children have run. visited is shared with the caller so repeated walks skip what they saw.
 */
template <typename F>
void PostOrder(const Expr& root, std::unordered_set<const Object*>* visited, F on_node) {
  PostOrder(root, visited, on_node, [](const Expr&) { return false; });
}

/*! \brief As above; a node for which is_final holds is passed to on_node without a walk below it. */
template <typename F, typename Final>
void PostOrder(const Expr& root, std::unordered_set<const Object*>* visited, F on_node, Final is_final) {
  struct Frame {
    Expr node;
    Array<Expr> children;
    size_t next = 0;
  };
  if (!root.defined() || visited->count(root.get())) return;
  if (is_final(root)) {
    visited->insert(root.get());
    on_node(root, Array<Expr>());
    return;
  }
  std::vector<Frame> stack;
  stack.push_back({root, ExprChildren(root), 0});
  visited->insert(root.get());
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      Expr child = top.children[top.next++];
      TVMLITE_CHECK_KIND(child.defined(), ValueError)
          << "the graph has a null expression below a " << top.node->GetTypeKey();
      if (visited->insert(child.get()).second) {
        if (is_final(child)) {
          on_node(child, Array<Expr>());
          continue;
        }
        Array<Expr> grandchildren = ExprChildren(child);
        stack.push_back({std::move(child), std::move(grandchildren), 0});
      }
      continue;
    }
    Frame done = std::move(top);
    stack.pop_back();
    on_node(done.node, done.children);
  }
}
}  // namespace

void ExprVisitor::VisitExpr(const Expr& expr) {
  PostOrder(expr, &visited_, [this](const Expr& node, const Array<Expr>&) { Visit(node); });
}

void ExprVisitor::Visit(const Expr& expr) {
  if (const auto* n = expr.as<VarNode>()) return VisitExpr_(n);
  if (const auto* n = expr.as<ConstantNode>()) return VisitExpr_(n);
  if (const auto* n = expr.as<CallNode>()) return VisitExpr_(n);
  if (const auto* n = expr.as<TupleNode>()) return VisitExpr_(n);
  if (const auto* n = expr.as<TupleGetItemNode>()) return VisitExpr_(n);
  if (const auto* n = expr.as<FunctionNode>()) return VisitExpr_(n);
  if (const auto* n = expr.as<OpNode>()) return VisitExpr_(n);
  TVMLITE_THROW(TypeError) << "ExprVisitor: unknown expression type " << expr->GetTypeKey();
}

Expr ExprMutator::Mutate(const Expr& expr) {
  auto it = memo_.find(expr.get());
  if (it != memo_.end()) return it->second;
  try {
    PostOrder(
        expr, &visited_,
        [this](const Expr& node, const Array<Expr>& children) {
          if (children.empty() && IsFinal(node)) {
            memo_[node.get()] = node;
            return;
          }
          std::vector<Expr> new_children;
          new_children.reserve(children.size());
          for (const Expr& c : children) new_children.push_back(memo_.at(c.get()));
          memo_[node.get()] = Rewrite(node, Array<Expr>(new_children));
        },
        [this](const Expr& node) { return IsFinal(node); });
  } catch (...) {
    visited_.clear();  // nodes entered but never finished would otherwise be skipped by the next walk
    memo_.clear();
    throw;
  }
  return memo_.at(expr.get());
}

Expr ExprMutator::Rewrite(const Expr& original, const Array<Expr>& new_children) {
  Array<Expr> old_children = ExprChildren(original);
  bool changed = false;
  for (size_t i = 0; i < old_children.size() && !changed; ++i) {
    changed = !old_children[i].same_as(new_children[i]);
  }
  if (!changed) return original;
  return WithFieldsAndType(original, new_children, Type());
}

}  // namespace ir
}  // namespace tvmlite
