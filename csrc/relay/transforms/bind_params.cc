/*!
 * \file bind_params.cc
 * \brief BindParams: parameters of a function named in a map of arrays become Constants of its body.
 *
 * Algorithm. Check every name of the map names exactly one parameter (unknown names are one ValueError listing
 * them all; two parameters sharing a bound name are ambiguous, a ValueError) and that each array fits its
 * parameter's annotated type (dtype and static shape). Then one mutator walk replaces each bound Var by a
 * Constant of its array; the remaining parameters keep their order. Nested functions see the Constants too
 * (a Var is one object wherever it is used). This is TVM's bind_params_by_name; FoldConstant then evaluates
 * what the weights made constant.
 */
#include <tvmlite/runtime/registry.h>

#include <sstream>
#include <unordered_map>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

std::string ShapeStr(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

/*! \brief ValueError unless data can stand for var (dtype and every static dim agree). */
void CheckFits(const Var& var, const NDArray& data) {
  if (!var->type_annotation.has_value()) return;
  const auto* tt = (*var->type_annotation).as<TensorTypeNode>();
  TVMLITE_CHECK_KIND(tt != nullptr, ValueError)
      << "BindParams: parameter %" << var->name_hint << " has type " << TypeToString(*var->type_annotation)
      << ", which is not a tensor: it cannot be bound to an array";
  std::vector<int64_t> shape = data.Shape();
  bool fits = tt->dtype == data.dtype() && tt->ndim() == shape.size();
  for (size_t i = 0; fits && i < shape.size(); ++i) {
    std::optional<int64_t> d = tt->static_dim(i);
    fits = !d.has_value() || *d == shape[i];
  }
  TVMLITE_CHECK_KIND(fits, ValueError) << "BindParams: parameter %" << var->name_hint << " is "
                                       << TypeToString(*var->type_annotation) << ", the array bound to it is "
                                       << ShapeStr(shape) << " " << runtime::DataType(data.dtype());
}

class Binder : public ExprMutator {
 public:
  explicit Binder(std::unordered_map<const Object*, Expr> bound) : bound_(std::move(bound)) {}

 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    auto it = bound_.find(original.get());
    if (it != bound_.end()) return it->second;
    return ExprMutator::Rewrite(original, new_children);
  }

 private:
  std::unordered_map<const Object*, Expr> bound_;
};

}  // namespace

Function BindParams(const Function& func, const Map<String, NDArray>& params) {
  std::unordered_map<std::string, Var> by_name;
  std::unordered_map<std::string, int> count;
  for (const Var& p : func->params) {
    by_name[p->name_hint] = p;
    ++count[p->name_hint];
  }
  std::vector<std::string> unknown;
  std::unordered_map<const Object*, Expr> bound;
  for (const auto& kv : params.get()->items()) {
    std::string name = kv.first.cast<String>();
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      unknown.push_back(name);
      continue;
    }
    TVMLITE_CHECK_KIND(count[name] == 1, ValueError)
        << "BindParams: " << count[name] << " parameters are named '" << name << "': binding by name is ambiguous";
    NDArray data = kv.second.cast<NDArray>();
    CheckFits(it->second, data);
    bound[it->second.get()] = Constant(data);
  }
  if (!unknown.empty()) {
    std::ostringstream os;
    for (size_t i = 0; i < unknown.size(); ++i) os << (i ? ", " : "") << "'" << unknown[i] << "'";
    std::ostringstream names;
    for (size_t i = 0; i < func->params.size(); ++i) names << (i ? ", " : "") << func->params[i]->name_hint;
    TVMLITE_THROW(ValueError) << "BindParams: no parameter of the function is named " << os.str()
                              << " (parameters: " << names.str() << ")";
  }
  if (bound.empty()) return func;
  std::vector<Var> kept;
  for (const Var& p : func->params) {
    if (!bound.count(p.get())) kept.push_back(p);
  }
  Expr body = Binder(std::move(bound)).Mutate(func->body);
  return Function(Array<Var>(kept), body, func->ret_type, func->attrs);
}

TVMLITE_REGISTER_GLOBAL("relay._transform.BindParams").set_body_typed([](Function func, Map<String, NDArray> params) {
  return BindParams(func, params);
});

}  // namespace relay
}  // namespace tvmlite
