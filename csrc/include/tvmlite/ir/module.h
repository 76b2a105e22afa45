/*!
 * \file tvmlite/ir/module.h
 * \brief IRModule: the named functions of a program ("main" is the entry point).
 *
 *   IRModule mod = IRModule::FromExpr(func);   // {"main": func}; a non-function body is wrapped with its free vars
 *
 * Functions keep their insertion order (the printer and JSON follow it). A module is immutable; passes return new
 * modules.
 */
#ifndef TVMLITE_IR_MODULE_H_
#define TVMLITE_IR_MODULE_H_

#include <tvmlite/ir/expr.h>

namespace tvmlite {
namespace ir {

class IRModuleNode : public Object {
 public:
  Map<String, Function> functions;

  /*! \brief The function named name; KeyError naming the module's functions when absent. */
  Function Lookup(const std::string& name) const;

  TVMLITE_DECLARE_FINAL_OBJECT("ir.IRModule", IRModuleNode, Object);
};

class IRModule : public ObjectRef {
 public:
  explicit IRModule(Map<String, Function> functions);
  /*! \brief A module whose "main" is expr (a Function as it is; another expression over its free variables). */
  static IRModule FromExpr(const Expr& expr);
  TVMLITE_DEFINE_OBJECT_REF_METHODS(IRModule, ObjectRef, IRModuleNode);
};

/*! \brief The free variables of expr in first-use order (variables no enclosing Function binds). */
Array<Var> FreeVars(const Expr& expr);

}  // namespace ir
}  // namespace tvmlite
#endif  // TVMLITE_IR_MODULE_H_
