/*!
 * \file rule_args.h
 * \brief The argument checks the op rules registered by the passes (FTVMLiteDynamicToStatic, FTVMLiteShapeValue,
 * FTVMLiteAlterOpLayout) share: every rule is a (call, context) function callable from Python, so a wrong call is a
 * TypeError / ValueError naming the rule, never a crash.
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_RULE_ARGS_H_
#define TVMLITE_RELAY_TRANSFORMS_RULE_ARGS_H_

#include <tvmlite/ir/expr.h>
#include <tvmlite/runtime/function.h>

#include <optional>
#include <string>
#include <utility>

namespace tvmlite {
namespace relay {

/*!
 * \brief The (call, context) the rule `attr` of op_name was called with: two arguments, a Call and a Context (named
 * context_name in the error); a TypeError naming the rule otherwise.
 */
template <typename Context>
std::pair<ir::Call, Context> RuleArgs(const char* attr, const std::string& op_name, const char* context_name,
                                      runtime::PackedArgs args) {
  TVMLITE_CHECK_KIND(args.size() == 2, TypeError)
      << attr << " of " << op_name << ": expected (call, context), got " << args.size() << " arguments";
  std::optional<ir::Call> call = args[0].as<ir::Call>();
  std::optional<Context> context = args[1].as<Context>();
  TVMLITE_CHECK_KIND(call.has_value() && context.has_value(), TypeError)
      << attr << " of " << op_name << ": expected (Call, " << context_name << "), got ("
      << runtime::AnyTypeStr(*args[0].raw()) << ", " << runtime::AnyTypeStr(*args[1].raw()) << ")";
  return {*call, *context};
}

/*! \brief Check that call is a call of op_name with as many args as the op takes; a ValueError naming the rule. */
inline void CheckRuleCallOf(const char* attr, const std::string& op_name, const ir::Call& call) {
  const auto* op = call->op.as<ir::OpNode>();
  const size_t n = call->args.size();
  TVMLITE_CHECK_KIND(op != nullptr && op->name == op_name && (op->num_inputs < 0 || n == size_t(op->num_inputs)),
                     ValueError)
      << attr << " of " << op_name << ": expected a call of it, got one of "
      << (op != nullptr ? op->name : "a function") << " with " << n << " args";
}

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_RULE_ARGS_H_
