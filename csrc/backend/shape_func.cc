/*!
 * \file shape_func.cc
 * \brief MakeShapeFunc / EvalShapeFunc (shape_func.h).
 */
#include "./shape_func.h"

#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/ir/op.h>

#include <unordered_map>

namespace tvmlite {
namespace backend {

using namespace ir;  // NOLINT(*)
using runtime::Array;

namespace {

/*! \brief Leaves -> params, constants -> typed free variables. */
class ShapeFuncBuilder : public ExprMutator {
 public:
  explicit ShapeFuncBuilder(const std::unordered_map<const Object*, Expr>& leaves) : leaves_(leaves) {}

 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& children) override {
    auto it = leaves_.find(original.get());
    if (it != leaves_.end()) return it->second;
    if (original.as<ConstantNode>()) return Var("k", original->checked_type());
    return ExprMutator::Rewrite(original, children);
  }

 private:
  const std::unordered_map<const Object*, Expr>& leaves_;
};

}  // namespace

Function MakeShapeFunc(const std::vector<Expr>& leaves, const Expr& root) {
  std::unordered_map<const Object*, Expr> subst;
  Array<Var> params;
  for (const Expr& leaf : leaves) {
    Var p("s" + std::to_string(params.size()), leaf->checked_type());
    params.push_back(p);
    subst[leaf.get()] = p;
  }
  return Function(params, ShapeFuncBuilder(subst).Mutate(root), Optional<Type>());
}

Type EvalShapeFunc(const Function& f, const std::vector<Type>& args) {
  TVMLITE_CHECK_KIND(f->params.size() == args.size(), ValueError)
      << "shape function: takes " << f->params.size() << " arguments, got " << args.size();
  static const OpAttrMapBase relations("FTypeRelation");
  std::unordered_map<const Object*, Type> type_of;
  for (size_t i = 0; i < args.size(); ++i) type_of[f->params[i].get()] = args[i];
  // Iterative post-order: a node is typed once all its children are.
  std::vector<std::pair<Expr, bool>> stack{{f->body, false}};
  auto typed = [&](const Expr& e) -> const Type& {
    auto it = type_of.find(e.get());
    TVMLITE_CHECK_KIND(it != type_of.end(), ValueError) << "shape function: a value is used before it is typed";
    return it->second;
  };
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (type_of.count(e.get())) continue;
    if (const auto* v = e.as<VarNode>()) {
      TVMLITE_CHECK_KIND(v->type_annotation.has_value(), ValueError)
          << "shape function: %" << v->name_hint << " has no type";
      type_of[e.get()] = *v->type_annotation;
      continue;
    }
    std::vector<Expr> children;
    if (const auto* c = e.as<CallNode>()) {
      TVMLITE_CHECK_KIND(c->op.as<OpNode>() != nullptr, ValueError) << "shape function: calls a non-op";
      for (const Expr& a : c->args) children.push_back(a);
    } else if (const auto* t = e.as<TupleNode>()) {
      for (const Expr& a : t->fields) children.push_back(a);
    } else if (const auto* g = e.as<TupleGetItemNode>()) {
      children.push_back(g->tuple);
    } else {
      TVMLITE_THROW(ValueError) << "shape function: cannot type a " << e->GetTypeKey();
    }
    if (!expanded) {
      stack.push_back({e, true});
      for (const Expr& ch : children) {
        if (!type_of.count(ch.get())) stack.push_back({ch, false});
      }
      continue;
    }
    if (const auto* c = e.as<CallNode>()) {
      Op op = runtime::Downcast<Op>(c->op);
      const Any* rel = relations.Find(op);
      TVMLITE_CHECK_KIND(rel != nullptr, ValueError) << "shape function: op " << op->name << " has no type relation";
      std::vector<Type> arg_types;
      for (const Expr& a : children) arg_types.push_back(typed(a));
      Type out = (*rel).cast<runtime::Function>()(Array<Type>(arg_types), c->attrs).cast<Type>();
      TVMLITE_CHECK_KIND(out.defined(), ValueError) << "shape function: " << op->name << "'s relation returned None";
      type_of[e.get()] = out;
    } else if (e.as<TupleNode>()) {
      std::vector<Type> fields;
      for (const Expr& a : children) fields.push_back(typed(a));
      type_of[e.get()] = TupleType(Array<Type>(fields));
    } else {
      const auto* g = e.as<TupleGetItemNode>();
      const auto* tt = typed(children[0]).as<TupleTypeNode>();
      TVMLITE_CHECK_KIND(tt != nullptr && g->index >= 0 && g->index < static_cast<int64_t>(tt->fields.size()),
                         ValueError)
          << "shape function: field " << g->index << " of a value that has none";
      type_of[e.get()] = tt->fields[g->index];
    }
  }
  return type_of.at(f->body.get());
}

std::vector<std::vector<int64_t>> ConcreteShapes(const Type& t) {
  std::vector<std::vector<int64_t>> out;
  std::vector<Type> stack{t};
  while (!stack.empty()) {
    Type x = stack.back();
    stack.pop_back();
    if (const auto* tt = x.as<TupleTypeNode>()) {
      for (size_t k = tt->fields.size(); k-- > 0;) stack.push_back(tt->fields[k]);
      continue;
    }
    const auto* tensor = x.as<TensorTypeNode>();
    TVMLITE_CHECK_KIND(tensor != nullptr, ValueError) << "shape function: an output is not a tensor";
    std::optional<std::vector<int64_t>> s = tensor->static_shape();
    TVMLITE_CHECK_KIND(s.has_value(), ValueError)
        << "shape function: an output shape is still symbolic given concrete inputs (" << TypeToString(x) << ")";
    out.push_back(*s);
  }
  return out;
}

}  // namespace backend
}  // namespace tvmlite
