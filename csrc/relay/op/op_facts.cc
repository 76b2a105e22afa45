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
      is_view_("TIsView") {}

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
TVMLITE_REGISTER_GLOBAL("relay.OpDeterministic").set_body_typed([](ir::Op op) {
  return OpFacts().Deterministic(op);
});

}  // namespace relay
}  // namespace tvmlite
