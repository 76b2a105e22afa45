/*!
 * \file expr.cc
 * \brief Expression nodes: construction checks, reflection (fields, constructors) and typed copies.
 */
#include <tvmlite/ir/expr.h>
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/reflection.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/structural.h>

#include <unordered_set>

namespace tvmlite {
namespace ir {

namespace refl = runtime::refl;

Type RelayExprNode::checked_type() const {
  if (checked_type_.defined()) return checked_type_;
  if (IsInstance<VarNode>()) {
    const auto* var = static_cast<const VarNode*>(this);
    if (var->type_annotation.has_value()) return *var->type_annotation;
  }
  TVMLITE_THROW(ValueError) << "the type of this " << GetTypeKey()
                            << " is not known yet: run relay.transform.InferType() first";
}

VarNode::VarNode(std::string name, Optional<Type> annotation)
    : name_hint(std::move(name)), type_annotation(std::move(annotation)) {
  if (type_annotation.has_value()) checked_type_ = *type_annotation;
}
Var::Var(std::string name_hint, Optional<Type> type_annotation)
    : Expr(make_object<VarNode>(std::move(name_hint), std::move(type_annotation))) {}

ConstantNode::ConstantNode(NDArray array) : data(std::move(array)) {
  const DLTensor* t = data.mutable_tensor();
  TVMLITE_CHECK_KIND(t->device.device_type == kDLCPU, ValueError) << "Constant: data must be on the CPU";
  checked_type_ = TensorType(data.Shape(), data.dtype());
}
Constant::Constant(NDArray data) : Expr(make_object<ConstantNode>(std::move(data))) {}

CallNode::CallNode(Expr op_in, Array<Expr> args_in, Optional<Attrs> attrs_in)
    : op(std::move(op_in)), args(std::move(args_in)), attrs(attrs_in.value_or(Attrs())) {}
Call::Call(Expr op, Array<Expr> args, Attrs attrs)
    : Expr(make_object<CallNode>(std::move(op), std::move(args), std::move(attrs))) {}

TupleNode::TupleNode(Array<Expr> fields_in) : fields(std::move(fields_in)) {}
Tuple::Tuple(Array<Expr> fields) : Expr(make_object<TupleNode>(std::move(fields))) {}

TupleGetItemNode::TupleGetItemNode(Expr tuple_in, int64_t index_in) : tuple(std::move(tuple_in)), index(index_in) {
  TVMLITE_CHECK_KIND(index >= 0, IndexError) << "TupleGetItem: index " << index << " is negative";
}
TupleGetItem::TupleGetItem(Expr tuple, int64_t index) : Expr(make_object<TupleGetItemNode>(std::move(tuple), index)) {}

FunctionNode::FunctionNode(Array<Var> params_in, Expr body_in, Optional<Type> ret, Map<String, Any> attrs_in)
    : params(std::move(params_in)), body(std::move(body_in)), ret_type(std::move(ret)), attrs(std::move(attrs_in)) {
  std::unordered_set<const Object*> seen;
  for (const Var& v : params) {
    TVMLITE_CHECK_KIND(seen.insert(v.get()).second, ValueError)
        << "Function: parameter %" << v->name_hint << " is listed twice";
  }
}
Any FunctionNode::GetAttr(const std::string& key) const {
  const Any* v = attrs.get()->Find(Any(String(key)));
  return v ? *v : Any();
}

Function::Function(Array<Var> params, Expr body, Optional<Type> ret_type, Map<String, Any> attrs)
    : Expr(make_object<FunctionNode>(std::move(params), std::move(body), std::move(ret_type), std::move(attrs))) {}

Function WithAttr(const Function& func, const std::string& key, Any value) {
  Map<String, Any> attrs = func->attrs;
  attrs.Set(String(key), std::move(value));
  auto out = make_object<FunctionNode>(func->params, func->body, func->ret_type, std::move(attrs));
  out->checked_type_ = func->checked_type_;
  return Function(std::move(out));
}

Expr WithFieldsAndType(const Expr& node, const Array<Expr>& children, const Type& type) {
  ObjectPtr<RelayExprNode> out;
  if (const auto* n = node.as<CallNode>()) {
    TVMLITE_ICHECK(!children.empty());
    std::vector<Expr> args;
    for (size_t i = 1; i < children.size(); ++i) args.push_back(children[i]);
    out = make_object<CallNode>(children[0], Array<Expr>(args), Optional<Attrs>(n->attrs));
  } else if (node.as<TupleNode>()) {
    out = make_object<TupleNode>(children);
  } else if (const auto* n = node.as<TupleGetItemNode>()) {
    out = make_object<TupleGetItemNode>(children[0], n->index);
  } else if (const auto* n = node.as<FunctionNode>()) {
    out = make_object<FunctionNode>(n->params, children[0], n->ret_type, n->attrs);
  } else if (const auto* n = node.as<ConstantNode>()) {
    // Made with its type; one without (load_json fills fields after construction) is remade.
    return n->checked_type_.defined() ? node : Expr(make_object<ConstantNode>(n->data));
  } else {
    return node;  // Var (its annotation is its type) and Op: identity matters, never copied
  }
  out->checked_type_ = type;
  return Expr(std::move(out));
}

TVMLITE_STATIC_INIT_BLOCK({
  refl::ObjectDef<RelayExprNode>();
  refl::ObjectDef<VarNode>()
      .def_ro("name_hint", &VarNode::name_hint, kTVMLiteFieldNoCompare)
      .def_ro("type_annotation", &VarNode::type_annotation)
      .def(refl::init<std::string, Optional<Type>>());
  runtime::MarkVarType(VarNode::RuntimeTypeIndex());
  TVMLITE_REFLECT_FIELDS(ConstantNode, data).def(refl::init<NDArray>());
  TVMLITE_REFLECT_FIELDS(CallNode, op, args, attrs).def(refl::init<Expr, Array<Expr>, Optional<Attrs>>());
  TVMLITE_REFLECT_FIELDS(TupleNode, fields).def(refl::init<Array<Expr>>());
  refl::ObjectDef<TupleGetItemNode>()
      .def_ro("tuple_value", &TupleGetItemNode::tuple)
      .def_ro("index", &TupleGetItemNode::index)
      .def(refl::init<Expr, int64_t>());
  refl::ObjectDef<FunctionNode>()
      .def_ro("params", &FunctionNode::params, runtime::kFieldDefinition)
      .def_ro("body", &FunctionNode::body)
      .def_ro("ret_type", &FunctionNode::ret_type)
      .def_ro("attrs", &FunctionNode::attrs)
      .def(refl::init<Array<Var>, Expr, Optional<Type>, Map<String, Any>>());
});

TVMLITE_REGISTER_GLOBAL("relay.FunctionWithAttr").set_body_typed([](Function f, String key, Any value) {
  return WithAttr(f, key, std::move(value));
});
TVMLITE_REGISTER_GLOBAL("ir.ExprCheckedType").set_body_typed([](Expr e) { return e->checked_type(); });
TVMLITE_REGISTER_GLOBAL("ir.ExprHasType").set_body_typed([](Expr e) {
  return e->checked_type_.defined() || (e.as<VarNode>() && e.as<VarNode>()->type_annotation.has_value());
});

}  // namespace ir
}  // namespace tvmlite
