/*!
 * \file tvmlite/ir/expr.h
 * \brief The graph IR's expressions: Var, Constant, Call, Tuple, TupleGetItem, Function (and Op, in op.h).
 *
 *   Var x("x", TensorType({1, 3}, DataType::Float(32)));
 *   Call y(Op::Get("nn.relu"), {x});                       // relay.nn.relu(x)
 *   Function f({x}, y);                                    // fn (%x: Tensor[(1, 3), float32]) { nn.relu(%x) }
 *
 * Invariants:
 *  - Nodes are immutable once made, so graphs are DAGs shared freely, also across threads.
 *  - checked_type_ is set only when a node is made (by InferType, which rebuilds what lacks a type); an
 *    expression's checked_type() throws ValueError when type inference has not run.
 *  - A Var is identified by its object: Function params are definition fields, so structural equality binds
 *    them (fn (%x) { %x } equals fn (%y) { %y }); name hints are not compared.
 */
#ifndef TVMLITE_IR_EXPR_H_
#define TVMLITE_IR_EXPR_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/ndarray.h>

namespace tvmlite {
namespace ir {

using runtime::NDArray;

/*! \brief Base of every expression. */
class RelayExprNode : public Object {
 public:
  /*! \brief The type InferType found; null before (not a reflected field: JSON and equality ignore it). */
  Type checked_type_;

  /*! \brief checked_type_ (a Var's annotation), or ValueError when the expression has no type yet. */
  Type checked_type() const;

  static constexpr const char* _type_key = "ir.RelayExpr";
  TVMLITE_DYNAMIC_TYPE_INDEX;
  static constexpr int32_t _type_child_slots = 16;
  static constexpr bool _type_child_slots_can_overflow = true;
  TVMLITE_DECLARE_BASE_OBJECT_INFO(RelayExprNode, Object);
};

class Expr : public ObjectRef {
 public:
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Expr, ObjectRef, RelayExprNode);
};

/*! \brief A variable: a function parameter or a graph input. */
class VarNode : public RelayExprNode {
 public:
  std::string name_hint;
  /*! \brief The declared type; none for a variable whose type comes from its binding (a loop carry). */
  Optional<Type> type_annotation;

  VarNode() = default;
  VarNode(std::string name_hint, Optional<Type> type_annotation);

  TVMLITE_DECLARE_FINAL_OBJECT("relay.Var", VarNode, RelayExprNode);
};

class Var : public Expr {
 public:
  Var(std::string name_hint, Optional<Type> type_annotation);
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Var, Expr, VarNode);
};

/*! \brief A constant tensor (weights, folded shapes). Its type is known from the data. */
class ConstantNode : public RelayExprNode {
 public:
  NDArray data;

  ConstantNode() = default;
  explicit ConstantNode(NDArray data);

  TVMLITE_DECLARE_FINAL_OBJECT("relay.Constant", ConstantNode, RelayExprNode);
};

class Constant : public Expr {
 public:
  explicit Constant(NDArray data);
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Constant, Expr, ConstantNode);
};

/*! \brief op(args...) with attrs; op is an Op, a Function or a Var of function type. */
class CallNode : public RelayExprNode {
 public:
  Expr op;
  Array<Expr> args;
  Attrs attrs;

  CallNode() = default;
  CallNode(Expr op, Array<Expr> args, Optional<Attrs> attrs);

  TVMLITE_DECLARE_FINAL_OBJECT("relay.Call", CallNode, RelayExprNode);
};

class Call : public Expr {
 public:
  Call(Expr op, Array<Expr> args, Attrs attrs = Attrs());
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Call, Expr, CallNode);
};

/*! \brief A tuple of values (an op's several outputs, a concatenate's inputs). */
class TupleNode : public RelayExprNode {
 public:
  Array<Expr> fields;

  TupleNode() = default;
  explicit TupleNode(Array<Expr> fields);

  TVMLITE_DECLARE_FINAL_OBJECT("relay.Tuple", TupleNode, RelayExprNode);
};

class Tuple : public Expr {
 public:
  explicit Tuple(Array<Expr> fields);
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Tuple, Expr, TupleNode);
};

/*! \brief Field index of a tuple-typed expression. */
class TupleGetItemNode : public RelayExprNode {
 public:
  Expr tuple;
  int64_t index = 0;

  TupleGetItemNode() = default;
  TupleGetItemNode(Expr tuple, int64_t index);

  TVMLITE_DECLARE_FINAL_OBJECT("relay.TupleGetItem", TupleGetItemNode, RelayExprNode);
};

class TupleGetItem : public Expr {
 public:
  TupleGetItem(Expr tuple, int64_t index);
  TVMLITE_DEFINE_OBJECT_REF_METHODS(TupleGetItem, Expr, TupleGetItemNode);
};

/*!
 * \brief A function: params (bound in body), body, an optional declared return type and attrs (TVM's: FuseOps marks
 * its groups with "Primitive" = 1).
 */
class FunctionNode : public RelayExprNode {
 public:
  Array<Var> params;
  Expr body;
  Optional<Type> ret_type;  // none: InferType finds it
  Map<String, Any> attrs;

  FunctionNode() = default;
  FunctionNode(Array<Var> params, Expr body, Optional<Type> ret_type, Map<String, Any> attrs = Map<String, Any>());
  /*! \brief attrs[key], or None. */
  Any GetAttr(const std::string& key) const;

  TVMLITE_DECLARE_FINAL_OBJECT("relay.Function", FunctionNode, RelayExprNode);
};

class Function : public Expr {
 public:
  Function(Array<Var> params, Expr body, Optional<Type> ret_type = Optional<Type>(),
           Map<String, Any> attrs = Map<String, Any>());
  TVMLITE_DEFINE_OBJECT_REF_METHODS(Function, Expr, FunctionNode);
};

/*! \brief A copy of func with attrs[key] = value (types kept). */
Function WithAttr(const Function& func, const std::string& key, Any value);

/*!
 * \brief A copy of node (a Call, Tuple, TupleGetItem, Function or Constant) with the given children and type.
 * The mutator and InferType make every node through it, so a type is only ever set on a new node.
 */
Expr WithFieldsAndType(const Expr& node, const Array<Expr>& children, const Type& type);

}  // namespace ir
}  // namespace tvmlite
#endif  // TVMLITE_IR_EXPR_H_
