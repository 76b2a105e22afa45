/*!
 * \file op_facts.cc
 * \brief OpFacts (tvmlite/relay/op_facts.h): the attribute lookups behind each fact.
 */
#include <tvmlite/relay/op_facts.h>
#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace tvmlite {
namespace relay {

OpFacts::OpFacts()
    : nondeterministic_("TNonDeterministic"),
      shape_only_args_("TShapeOnlyArgs"),
      shape_data_dependent_("TShapeDataDependent"),
      axis_semantics_("TAxisSemantics"),
      keeps_finite_("TKeepsFinite"),
      is_view_("TIsView"),
      broadcasts_first_input_("TBroadcastsFirstInput"),
      keeps_finite_rule_("FTVMLiteKeepsFinite"),
      is_view_rule_("FTVMLiteIsView") {}

namespace {
bool Lists(const runtime::Any* args, int64_t arg) {
  for (int64_t a : args->cast<runtime::Array<int64_t>>()) {
    if (a == arg) return true;
  }
  return false;
}
}  // namespace

bool OpFacts::Flag(const ir::OpAttrMapBase& attr, const ir::Op& op) {
  const runtime::Any* flag = attr.Find(op);
  return flag != nullptr && flag->cast<bool>();
}

bool OpFacts::AskRule(const ir::OpAttrMapBase& attr, const char* name, const ir::Call& call) {
  const ir::Op op = runtime::Downcast<ir::Op>(call->op);
  const runtime::Any* rule = attr.Find(op);
  if (rule == nullptr) return false;
  runtime::Any out = rule->cast<runtime::Function>()(call);
  std::optional<bool> b = out.type_index() == kTVMLiteBool ? out.as<bool>() : std::nullopt;
  TVMLITE_CHECK_KIND(b.has_value(), TypeError)
      << name << " of " << op->name << ": expected a bool, got a value of type "
      << (out.object() ? out.object()->GetTypeKey() : "index " + std::to_string(out.type_index()));
  return *b;
}

bool OpFacts::KeepsFinite(const ir::Call& call) const {
  if (call->op.as<ir::OpNode>() == nullptr) return false;
  return KeepsFinite(runtime::Downcast<ir::Op>(call->op)) || AskRule(keeps_finite_rule_, "FTVMLiteKeepsFinite", call);
}

bool OpFacts::IsView(const ir::Call& call) const {
  if (call->op.as<ir::OpNode>() == nullptr) return false;
  return IsView(runtime::Downcast<ir::Op>(call->op)) || AskRule(is_view_rule_, "FTVMLiteIsView", call);
}

bool OpFacts::Deterministic(const ir::Op& op) const {
  if (Flag(nondeterministic_, op)) return false;
  std::string name = op->name;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"random", "multinomial", "bernoulli"}) {
    if (name.find(word) != std::string::npos) return false;
  }
  return true;
}

bool OpFacts::ReadsOnlyShape(const ir::Op& op, int64_t arg) const {
  const runtime::Any* args = shape_only_args_.Find(op);
  return args != nullptr && Lists(args, arg);
}

bool OpFacts::ShapeReadsValue(const ir::Op& op, int64_t arg) const {
  const runtime::Any* args = shape_data_dependent_.Find(op);
  return args == nullptr || Lists(args, arg);
}

// The ONNX importer's folding (frontend/onnx/fold.py) asks this rather than restating the rule.
TVMLITE_REGISTER_GLOBAL("relay.OpDeterministic").set_body_typed([](ir::Op op) { return OpFacts().Deterministic(op); });

}  // namespace relay
}  // namespace tvmlite
