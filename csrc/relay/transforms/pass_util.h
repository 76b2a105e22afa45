/*!
 * \file pass_util.h
 * \brief Small helpers the optimisation passes share (private to csrc/relay/transforms).
 *
 *   Expr y = MakeCall("multiply", {x, scale});
 *   IRModule out = MapFunctions(mod, [](const Function& f) { return Rewritten(f); });
 *
 * Every pass takes a typed or untyped module and returns a typed one (it re-runs InferType on what it built).
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_PASS_UTIL_H_
#define TVMLITE_RELAY_TRANSFORMS_PASS_UTIL_H_

#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/ir/module.h>
#include <tvmlite/relay/transform.h>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace tvmlite {
namespace relay {

using namespace ir;  // NOLINT(build/namespaces): the passes speak the IR's vocabulary

/*! \brief op_name(args) with attrs (an attrs struct made with make_object, or none). */
inline Expr MakeCall(const std::string& op_name, Array<Expr> args, Attrs attrs = Attrs()) {
  return Call(Op::Get(op_name), std::move(args), std::move(attrs));
}

/*!
 * \brief A call of op_name with attrs of the op's type, the named fields set (checked as the op's maker checks them)
 * and the others at their defaults: MakeCall("squeeze", {x}, {{"axis", axes}}).
 */
inline Expr MakeCall(const std::string& op_name, Array<Expr> args, const std::map<std::string, Any>& fields) {
  Op op = Op::Get(op_name);
  Attrs attrs = WithAttrFields(MakeAttrs(op->attrs_type_index, nullptr, 0, op_name), fields, op_name);
  return Call(op, std::move(args), std::move(attrs));
}

/*! \brief Whether expr is a call of the op named op_name. */
inline const CallNode* AsOpCall(const Expr& expr, const std::string& op_name) {
  const auto* call = expr.as<CallNode>();
  if (call == nullptr) return nullptr;
  const auto* op = call->op.as<OpNode>();
  return op != nullptr && op->name == op_name ? call : nullptr;
}

/*! \brief The value of a float32 constant of one element, or nullopt. */
inline std::optional<float> ScalarConstant(const Expr& e) {
  const auto* c = e.as<ConstantNode>();
  if (c == nullptr || DataType(c->data->tensor.dtype) != DataType::Float(32)) return std::nullopt;
  if (!c->data.IsContiguous() || c->data.NBytes() != sizeof(float)) return std::nullopt;
  return *reinterpret_cast<const float*>(static_cast<const char*>(c->data->tensor.data) + c->data->tensor.byte_offset);
}

/*! \brief The tensor type InferType gave expr, or nullptr (untyped, or not a tensor). */
inline const TensorTypeNode* TensorTypeOf(const Expr& expr) {
  return expr->checked_type_.defined() ? expr->checked_type_.as<TensorTypeNode>() : nullptr;
}

/*! \brief A new module with fn applied to every function (insertion order kept), then typed. */
template <typename F>
IRModule MapFunctions(const IRModule& mod, F fn) {
  Map<String, Function> functions;
  for (const auto& kv : mod->functions.get()->items()) {
    functions.Set(kv.first.cast<String>(), fn(kv.second.cast<Function>()));
  }
  return InferType(IRModule(functions));
}

/*! \brief A mutator that starts with some nodes already replaced (old -> new): nested functions rewritten after
 * their enclosing graph see the enclosing graph's new nodes. */
class SeededMutator : public ExprMutator {
 public:
  void Seed(const Expr& old_expr, const Expr& new_expr) {
    memo_[old_expr.get()] = new_expr;
    visited_.insert(old_expr.get());
  }
};

/*! \brief Consumers of every node of a function (its body counts one: the function's result). */
class UseCounter : public ExprVisitor {
 public:
  std::unordered_map<const Object*, int> uses;

 protected:
  void VisitExpr_(const CallNode* n) override {
    if (!n->op.as<OpNode>()) ++uses[n->op.get()];
    for (const Expr& a : n->args) ++uses[a.get()];
  }
  void VisitExpr_(const TupleNode* n) override {
    for (const Expr& f : n->fields) ++uses[f.get()];
  }
  void VisitExpr_(const TupleGetItemNode* n) override { ++uses[n->tuple.get()]; }
  void VisitExpr_(const FunctionNode* n) override { ++uses[n->body.get()]; }
};

/*! \brief mod typed, each function rewritten by a Rewriter made from its users' counts (UseCounter::uses). */
template <typename Rewriter>
IRModule RewriteWithUses(const IRModule& mod) {
  return MapFunctions(InferType(mod), [](const Function& f) {
    UseCounter counter;
    counter.VisitExpr(f);
    return runtime::Downcast<Function>(Rewriter(std::move(counter.uses)).Mutate(f));
  });
}

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_PASS_UTIL_H_
