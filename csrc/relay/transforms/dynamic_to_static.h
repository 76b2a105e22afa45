/*!
 * \file dynamic_to_static.h
 * \brief What the DynamicToStatic pass (dynamic_to_static.cc) and the ops' rules (dynamic_to_static_rules.cc)
 * share: the "FTVMLiteDynamicToStatic" op attribute and the context a rule reads.
 *
 *   Function rule = OpAttrMap<Function>("FTVMLiteDynamicToStatic")[op];
 *   Any out = rule(call, context);  // call: typed, its args typed; context: a DynamicToStaticContext
 *                                   // -> the static replacement Expr, or None to keep the call
 *
 * A rule builds the static form of a call whose shape-like inputs are known (constants, or shape values: dims of
 * the function's tensors, context->shapes). The pass types the replacement with the static op's relation; when
 * that fails (values the dynamic op would reject at run time) the call stays, so a rule may build a candidate
 * without checking everything the relation checks. A rule returning anything but an Expr or None is a TypeError
 * naming the op.
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_DYNAMIC_TO_STATIC_H_
#define TVMLITE_RELAY_TRANSFORMS_DYNAMIC_TO_STATIC_H_

#include "shape_value.h"

namespace tvmlite {
namespace relay {

/*! \brief The pass's state a rule may read: the shape values of the function being rewritten. It owns them, so a
 * context kept past the pass (by a rule set from Python) stays valid. */
class DynamicToStaticContextNode : public Object {
 public:
  /*! \brief Memoised shape values; mutable: evaluating fills the memo, it changes no value. */
  mutable ShapeValueEvaluator shapes;

  TVMLITE_DECLARE_FINAL_OBJECT("relay.DynamicToStaticContext", DynamicToStaticContextNode, Object);
};

class DynamicToStaticContext : public ObjectRef {
 public:
  TVMLITE_DEFINE_OBJECT_REF_METHODS(DynamicToStaticContext, ObjectRef, DynamicToStaticContextNode);
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_DYNAMIC_TO_STATIC_H_
