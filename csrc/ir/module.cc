/*!
 * \file module.cc
 * \brief IRModule and FreeVars.
 */
#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/ir/module.h>
#include <tvmlite/runtime/reflection.h>

#include <sstream>
#include <unordered_set>

namespace tvmlite {
namespace ir {

namespace refl = runtime::refl;

Function IRModuleNode::Lookup(const std::string& name) const {
  const Any* f = functions.get()->Find(Any(String(name)));
  if (f == nullptr) {
    std::ostringstream names;
    for (const auto& kv : functions.get()->items()) names << (names.tellp() ? ", " : "") << kv.first.cast<String>();
    TVMLITE_THROW(KeyError) << "the module has no function '" << name << "' (it has: " << names.str() << ")";
  }
  return f->cast<Function>();
}

IRModule::IRModule(Map<String, Function> functions) {
  ObjectPtr<IRModuleNode> n = make_object<IRModuleNode>();
  n->functions = std::move(functions);
  data_ = std::move(n);
}

IRModule IRModule::FromExpr(const Expr& expr) {
  Function f = expr.as<FunctionNode>() ? Downcast<Function>(expr) : Function(FreeVars(expr), expr);
  return IRModule(Map<String, Function>({{String("main"), f}}));
}

Array<Var> FreeVars(const Expr& expr) {
  // Vars bound by any Function below are not free; the graph is a DAG, so collect both kinds and subtract.
  std::vector<Var> used;
  std::unordered_set<const Object*> bound;
  class Collector : public ExprVisitor {
   public:
    Collector(std::vector<Var>* used, std::unordered_set<const Object*>* bound) : used_(used), bound_(bound) {}
    void VisitExpr_(const VarNode* v) override { used_->push_back(GetRef(v)); }
    void VisitExpr_(const FunctionNode* f) override {
      for (const Var& p : f->params) bound_->insert(p.get());
    }
    static Var GetRef(const VarNode* v) {
      return Var(runtime::ObjectPtr<Object>::CopyFromRaw(const_cast<VarNode*>(v)));
    }
    std::vector<Var>* used_;
    std::unordered_set<const Object*>* bound_;
  } collector(&used, &bound);
  collector.VisitExpr(expr);
  std::vector<Var> free;
  for (const Var& v : used) {
    if (!bound.count(v.get())) free.push_back(v);
  }
  return Array<Var>(free);
}

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(IRModuleNode, functions); });

TVMLITE_REGISTER_GLOBAL("ir.IRModule").set_body_typed([](Map<String, Function> functions) {
  return IRModule(std::move(functions));
});
TVMLITE_REGISTER_GLOBAL("ir.IRModule_FromExpr").set_body_typed([](Expr expr) { return IRModule::FromExpr(expr); });
TVMLITE_REGISTER_GLOBAL("ir.IRModule_Lookup").set_body_typed([](IRModule mod, std::string name) {
  return mod->Lookup(name);
});
TVMLITE_REGISTER_GLOBAL("ir.FreeVars").set_body_typed([](Expr expr) { return FreeVars(expr); });

}  // namespace ir
}  // namespace tvmlite
