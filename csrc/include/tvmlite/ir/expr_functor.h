/*!
 * \file tvmlite/ir/expr_functor.h
 * \brief ExprVisitor and ExprMutator: walk or rewrite a graph, children before parents, without recursion.
 *
 *   class CountCalls : public ExprVisitor {
 *     void VisitExpr_(const CallNode* call) override { ++count; }
 *     int count = 0;
 *   };
 *
 * Both walk with an explicit stack (a graph many thousands of nodes deep does not overflow the C stack) and visit
 * each shared node once. Children of a node: a Call's op and args, a Tuple's fields, a TupleGetItem's tuple, a
 * Function's body (its params are leaves). The mutator rebuilds a node only when a child changed (or when
 * Rewrite_ returns something else), so an unchanged graph comes back as the same objects.
 */
#ifndef TVMLITE_IR_EXPR_FUNCTOR_H_
#define TVMLITE_IR_EXPR_FUNCTOR_H_

#include <tvmlite/ir/op.h>

#include <unordered_map>
#include <unordered_set>

namespace tvmlite {
namespace ir {

/*! \brief The children of a node in the order the walkers use. */
Array<Expr> ExprChildren(const Expr& expr);

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  /*! \brief Visit expr and everything below it, each node once, children first. */
  void VisitExpr(const Expr& expr);

 protected:
  /*! \brief Called once per node after its children; dispatches to the typed hooks below. */
  virtual void Visit(const Expr& expr);
  virtual void VisitExpr_(const VarNode*) {}
  virtual void VisitExpr_(const ConstantNode*) {}
  virtual void VisitExpr_(const CallNode*) {}
  virtual void VisitExpr_(const TupleNode*) {}
  virtual void VisitExpr_(const TupleGetItemNode*) {}
  virtual void VisitExpr_(const FunctionNode*) {}
  virtual void VisitExpr_(const OpNode*) {}

  std::unordered_set<const Object*> visited_;
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  /*! \brief The rewritten expr (memoized: a shared node is rewritten once). */
  Expr Mutate(const Expr& expr);

 protected:
  /*!
   * \brief Rewrite one node whose children are already rewritten (new_children, in ExprChildren order).
   * The default rebuilds the node when a child changed and keeps it otherwise.
   */
  virtual Expr Rewrite(const Expr& original, const Array<Expr>& new_children);
  /*!
   * \brief Whether expr is final as it is: the walk then neither descends below it nor rewrites it (InferType
   * stops at typed nodes, so typing a graph grown node by node costs only the new nodes).
   */
  virtual bool IsFinal(const Expr& /*expr*/) { return false; }

  std::unordered_map<const Object*, Expr> memo_;
  std::unordered_set<const Object*> visited_;
};

}  // namespace ir
}  // namespace tvmlite
#endif  // TVMLITE_IR_EXPR_FUNCTOR_H_
