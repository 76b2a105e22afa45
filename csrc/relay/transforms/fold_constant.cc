/*!
 * \file fold_constant.cc
 * \brief FoldConstant: every call computable from constants alone is evaluated once and becomes a Constant.
 *
 * Algorithm. Type the module, then one mutator walk, children first, so a call's arguments are already folded
 * when the call is seen. A value is *constant* when it is a Constant or a Tuple of constant values. A call is
 * folded when
 *  - its callee is an Op (calls of functions, and control flow, whose inputs include a Function, never are),
 *  - every argument is constant,
 *  - the op is deterministic (OpFacts::Deterministic, tvmlite/relay/op_facts.h),
 *  - its type is static (tensors, or tuples of tensors, of known shape),
 *  - and the result is not much bigger than its inputs: a result of more than kMaxLazyElements (2^24, 16M)
 *    elements that is also more than kMaxGrowth (4) times the elements of all its inputs stays a lazy call
 *    (a broadcast_to / full of a scalar to a huge shape is cheaper to compute at run time than to carry).
 * The call is evaluated by the global "relay.backend.eval_const" (tvmlite/relay/backend/const_eval.py: the
 * ops' numpy references, the debug executor's machinery), which returns an NDArray, an Array of NDArrays for
 * a tuple-typed op, or None when the op cannot be evaluated (no reference, a dtype NDArray cannot hold); then
 * the call stays. A tuple result becomes a Tuple of Constants, and TupleGetItem of a Tuple whose projected
 * field is a constant becomes that field. The result is typed again. Running the pass twice changes nothing the second
 * time.
 */
#include <tvmlite/relay/op_facts.h>
#include <tvmlite/runtime/registry.h>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

constexpr int64_t kMaxLazyElements = int64_t{1} << 24;
constexpr int64_t kMaxGrowth = 4;

bool IsConstantValue(const Expr& e) {
  if (e.as<ConstantNode>()) return true;
  if (const auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (!IsConstantValue(f)) return false;
    }
    return true;
  }
  return false;
}

int64_t ConstantElements(const Expr& e) {
  if (const auto* c = e.as<ConstantNode>()) return c->data.NumElements();
  int64_t n = 0;
  if (const auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) n += ConstantElements(f);
  }
  return n;
}

/*! \brief Elements of a static type (tensor or tuple of them), or -1 when some dim is not static. */
int64_t StaticElements(const Type& type) {
  if (const auto* tt = type.as<TensorTypeNode>()) {
    std::optional<std::vector<int64_t>> shape = tt->static_shape();
    if (!shape.has_value()) return -1;
    int64_t n = 1;
    for (int64_t d : *shape) n *= d;
    return n;
  }
  if (const auto* tt = type.as<TupleTypeNode>()) {
    int64_t n = 0;
    for (const Type& f : tt->fields) {
      int64_t k = StaticElements(f);
      if (k < 0) return -1;
      n += k;
    }
    return n;
  }
  return -1;
}

class ConstantFolder : public ExprMutator {
 public:
  ConstantFolder() {
    eval_ = runtime::Registry::Get("relay.backend.eval_const");
    TVMLITE_CHECK_KIND(eval_.defined(), RuntimeError)
        << "FoldConstant: the evaluator relay.backend.eval_const is not registered (import tvmlite.relay)";
  }

 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    if (original.as<TupleGetItemNode>()) {
      const auto* t = new_children[0].as<TupleNode>();
      int64_t index = original.as<TupleGetItemNode>()->index;
      if (t != nullptr && IsConstantValue(t->fields[index])) return t->fields[index];
    }
    Expr node = ExprMutator::Rewrite(original, new_children);
    const auto* call = original.as<CallNode>();
    if (call == nullptr || !Foldable(call, new_children)) return node;
    // Arguments changed to constants of the same types: the call keeps its type.
    Expr typed = WithFieldsAndType(original, new_children, original->checked_type_);
    Any result = eval_(typed);
    if (result.is_none()) return node;
    if (auto arr = result.as<NDArray>()) return Constant(*arr);
    Array<Any> fields = result.cast<Array<Any>>();
    std::vector<Expr> consts;
    for (const Any& f : fields) consts.push_back(Constant(f.cast<NDArray>()));
    return Tuple(Array<Expr>(consts));
  }

 private:
  bool Foldable(const CallNode* call, const Array<Expr>& children) const {
    const auto* op = call->op.as<OpNode>();
    if (op == nullptr || !call->checked_type_.defined()) return false;
    for (size_t i = 1; i < children.size(); ++i) {
      if (!IsConstantValue(children[i])) return false;
    }
    if (!facts_.Deterministic(runtime::Downcast<Op>(call->op))) return false;
    int64_t out = StaticElements(call->checked_type_);
    if (out < 0) return false;
    int64_t in = 0;
    for (size_t i = 1; i < children.size(); ++i) in += ConstantElements(children[i]);
    return !(out > kMaxLazyElements && out > kMaxGrowth * in);
  }

  runtime::Function eval_;
  OpFacts facts_;
};

}  // namespace

IRModule FoldConstant(const IRModule& mod) {
  IRModule typed = InferType(mod);
  ConstantFolder folder;  // one memo for the module: a subgraph shared by two functions is evaluated once
  return MapFunctions(typed, [&folder](const Function& f) { return runtime::Downcast<Function>(folder.Mutate(f)); });
}

TVMLITE_REGISTER_GLOBAL("relay._transform.FoldConstant").set_body_typed([](IRModule mod) { return FoldConstant(mod); });

}  // namespace relay
}  // namespace tvmlite
