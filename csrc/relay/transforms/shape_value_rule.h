/*!
 * \file shape_value_rule.h
 * \brief The "FTVMLiteShapeValue" op attribute: how a call of the op computes its shape value from its inputs'.
 * ShapeValueEvaluator (shape_value.h) asks the op; the rules, each registered with its op, are in
 * shape_value_rules.cc.
 *
 *   Function rule = OpAttrMap<Function>("FTVMLiteShapeValue")[op];
 *   Any v = rule(call, context);  // call: typed as a shape value tensor (IsShapeValueTensor); context: a
 *                                 // ShapeValueContext, live during the call -> a ShapeValue object, or None
 *
 * A rule reads its inputs' values through the context's evaluator, so a rule set from Python can reuse another
 * op's: copy.set_attr("FTVMLiteShapeValue", lambda call, ctx: cast_rule(call, ctx)). A context kept after its
 * rule returned is refused (ValueError), never read; a rule returning anything but a ShapeValue or None is a
 * TypeError naming the op.
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_SHAPE_VALUE_RULE_H_
#define TVMLITE_RELAY_TRANSFORMS_SHAPE_VALUE_RULE_H_

#include <optional>

#include "shape_value.h"

namespace tvmlite {
namespace relay {

/*! \brief What a rule reads: the evaluator asking, set only while the rule runs. */
class ShapeValueContextNode : public Object {
 public:
  ShapeValueEvaluator* shapes = nullptr;

  TVMLITE_DECLARE_FINAL_OBJECT("relay.ShapeValueContext", ShapeValueContextNode, Object);
};

class ShapeValueContext : public ObjectRef {
 public:
  TVMLITE_DEFINE_OBJECT_REF_METHODS(ShapeValueContext, ObjectRef, ShapeValueContextNode);
};

/*! \brief A rule's result: a call's shape value. */
class ShapeValueObj : public Object {
 public:
  ShapeValue value;

  TVMLITE_DECLARE_FINAL_OBJECT("relay.ShapeValue", ShapeValueObj, Object);
};

class ShapeValueRef : public ObjectRef {
 public:
  TVMLITE_DEFINE_OBJECT_REF_METHODS(ShapeValueRef, ObjectRef, ShapeValueObj);
};

/*! \brief call's value by op's rule, asked with a context live for the call; nullopt when the rule returns None. */
std::optional<ShapeValue> ApplyShapeValueRule(const runtime::Function& rule, const Op& op, const Expr& call,
                                              ShapeValueEvaluator* shapes);

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_SHAPE_VALUE_RULE_H_
