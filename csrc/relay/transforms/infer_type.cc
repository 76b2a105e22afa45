/*!
 * \file infer_type.cc
 * \brief InferType: a type for every expression, driven by each op's forward type relation.
 *
 * Algorithm. The graph is a DAG whose leaves carry their types (a Var its annotation, a Constant its data's
 * shape), so one post-order walk types it: a Call of an op runs the op's "FTypeRelation" (argument types, attrs)
 * -> result type; a Tuple's type is the tuple of its fields' types; a projection picks a field; a Function's type
 * is fn(param types) -> body type; a call of a Function checks its arguments against the params. The walk is the
 * ExprMutator's (iterative, each shared node once), and a node gets its type by being rebuilt with it: nodes stay
 * immutable, and a node already typed whose children did not change is kept, so running it again is cheap.
 *
 * Relations are forward (arguments -> result), not TVM's unifying solver: every ONNX graph input is typed, so
 * forward inference always has what it needs, and it is one call per node.
 */
#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/relay/transform.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/structural.h>

#include <sstream>

namespace tvmlite {
namespace relay {

namespace {

/*! \brief "nn.conv2d(data: Tensor[...], weight: Tensor[...])": a call, its inputs' types and its attrs. */
std::string DescribeCall(const CallNode* call, const std::vector<Type>& arg_types) {
  std::ostringstream os;
  const auto* op = call->op.as<OpNode>();
  os << (op ? op->name : std::string("<function>")) << "(";
  for (size_t i = 0; i < arg_types.size(); ++i) {
    os << (i ? ", " : "");
    if (op && i < op->arguments.size()) os << op->arguments[i].as<OpArgumentNode>()->name << ": ";
    os << TypeToString(arg_types[i]);
  }
  os << ")";
  return os.str();
}

class TypeInferencer : public ExprMutator {
 public:
  TypeInferencer() : relations_("FTypeRelation") {}

 protected:
  // A typed node was made by InferType, so everything below it is typed too (leaves carry theirs).
  bool IsFinal(const Expr& e) override { return e->checked_type_.defined() || e.as<OpNode>(); }

  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    Array<Expr> old_children = ExprChildren(original);
    bool changed = false;
    for (size_t i = 0; i < old_children.size() && !changed; ++i) changed = !old_children[i].same_as(new_children[i]);
    // Same children, so the same type: a typed node (or a leaf, typed at construction) is kept as it is.
    if (!changed && (original->checked_type_.defined() || original.as<OpNode>())) return original;
    Type type = Infer(original, new_children);
    if (!changed && original.as<VarNode>()) return original;
    return WithFieldsAndType(original, new_children, type);
  }

 private:
  static Type TypeOf(const Expr& e) {
    if (e.as<OpNode>()) {
      TVMLITE_THROW(TypeError) << "op " << e.as<OpNode>()->name << " is used as a value; ops can only be called";
    }
    return e->checked_type();
  }

  Type Infer(const Expr& node, const Array<Expr>& children) {
    if (const auto* v = node.as<VarNode>()) {
      TVMLITE_CHECK_KIND(v->type_annotation.has_value(), TypeError)
          << "variable %" << v->name_hint << " has no type annotation";
      return *v->type_annotation;
    }
    if (const auto* c = node.as<ConstantNode>()) return TensorType(c->data.Shape(), c->data.dtype());
    if (node.as<OpNode>()) return Type();
    if (const auto* call = node.as<CallNode>()) return InferCall(call, children);
    if (node.as<TupleNode>()) {
      std::vector<Type> fields;
      for (const Expr& c : children) fields.push_back(TypeOf(c));
      return TupleType(Array<Type>(fields));
    }
    if (const auto* g = node.as<TupleGetItemNode>()) {
      Type t = TypeOf(children[0]);
      const auto* tt = t.as<TupleTypeNode>();
      TVMLITE_CHECK_KIND(tt != nullptr, TypeError)
          << "InferType: TupleGetItem ." << g->index << " of a non-tuple value of type " << TypeToString(t);
      TVMLITE_CHECK_KIND(g->index < static_cast<int64_t>(tt->fields.size()), IndexError)
          << "InferType: TupleGetItem ." << g->index << " of a tuple of " << tt->fields.size() << " fields ("
          << TypeToString(t) << ")";
      return tt->fields[g->index];
    }
    if (const auto* f = node.as<FunctionNode>()) {
      std::vector<Type> params;
      for (const Var& p : f->params) params.push_back(TypeOf(p));
      Type body = TypeOf(children[0]);
      if (f->ret_type.has_value()) {
        TVMLITE_CHECK_KIND(runtime::StructuralEqual(Any(*f->ret_type), Any(body)), TypeError)
            << "InferType: the function is declared to return " << TypeToString(*f->ret_type)
            << " but its body has type " << TypeToString(body);
      }
      return FuncType(Array<Type>(params), body);
    }
    TVMLITE_THROW(TypeError) << "InferType: unknown expression type " << node->GetTypeKey();
  }

  Type InferCall(const CallNode* call, const Array<Expr>& children) {
    std::vector<Type> arg_types;
    for (size_t i = 1; i < children.size(); ++i) arg_types.push_back(TypeOf(children[i]));
    const Expr& callee = children[0];
    if (const auto* op = callee.as<OpNode>()) {
      Op op_ref = runtime::Downcast<Op>(callee);
      const Any* rel = relations_.Find(op_ref);
      TVMLITE_CHECK_KIND(rel != nullptr, NotImplementedError)
          << "InferType: op " << op->name << " has no type relation";
      try {
        Type out = (*rel).cast<runtime::Function>()(Array<Type>(arg_types), call->attrs).cast<Type>();
        TVMLITE_CHECK_KIND(out.defined(), TypeError) << "the type relation returned None";
        return out;
      } catch (const runtime::Error& err) {
        throw runtime::Error(err.kind(), "InferType: " + op->name + ": " + err.message() + "\n  in call " +
                                             DescribeCall(call, arg_types));
      }
    }
    Type ft_ref = TypeOf(callee);
    const auto* ft = ft_ref.as<FuncTypeNode>();
    TVMLITE_CHECK_KIND(ft != nullptr, TypeError)
        << "InferType: calling a value of type " << TypeToString(ft_ref) << ", which is not a function";
    TVMLITE_CHECK_KIND(ft->arg_types.size() == arg_types.size(), TypeError)
        << "InferType: the function takes " << ft->arg_types.size() << " arguments, got " << arg_types.size();
    for (size_t i = 0; i < arg_types.size(); ++i) {
      TVMLITE_CHECK_KIND(runtime::StructuralEqual(Any(ft->arg_types[i]), Any(arg_types[i])), TypeError)
          << "InferType: argument " << i << " has type " << TypeToString(arg_types[i]) << ", the function expects "
          << TypeToString(ft->arg_types[i]);
    }
    return ft->ret_type;
  }

  OpAttrMapBase relations_;
};

}  // namespace

Expr InferTypeExpr(const Expr& expr) { return TypeInferencer().Mutate(expr); }

IRModule InferType(const IRModule& mod) {
  TypeInferencer inferencer;  // shared across functions: a node used by two functions is typed once
  Map<String, Function> functions;
  for (const auto& kv : mod->functions.get()->items()) {
    functions.Set(kv.first.cast<String>(), runtime::Downcast<Function>(inferencer.Mutate(kv.second.cast<Function>())));
  }
  return IRModule(functions);
}

TVMLITE_REGISTER_GLOBAL("relay._transform.InferType").set_body_typed([](IRModule mod) { return InferType(mod); });
TVMLITE_REGISTER_GLOBAL("relay._transform.InferTypeExpr").set_body_typed([](Expr expr) { return InferTypeExpr(expr); });

}  // namespace relay
}  // namespace tvmlite
