/*!
 * \file dynamic_to_static.cc
 * \brief DynamicToStatic: a dyn.* op whose shape-like inputs are constants becomes its static op (TVM's pass).
 *
 * Why. The ONNX frontend makes a dyn.* op (result dims "?") whenever a shape-like input (Reshape's shape, Slice's
 * bounds, Pad's pads, ...) is not a constant at import time, which is the case for every initializer kept as a
 * param. Once build binds the params (BindParams) and FoldConstant folds the shape arithmetic on them, those inputs
 * are Constants; the static op then has typed dims, and the native backend its fast paths.
 *
 * Algorithm. Type the module, then one mutator walk, children first, keeping every node typed as it goes (a
 * rebuilt node is typed by InferTypeExpr, which stops at the typed children: only the new node costs). A shape
 * computation whose entries are all static becomes a constant. A call whose op has an "FTVMLiteDynamicToStatic"
 * rule (dynamic_to_static.h; the rules, each registered with its op, in dynamic_to_static_rules.cc) is what the
 * rule returns, given the call and the pass's context (the function's shape values). The rules rebuild a dyn.*
 * call whose shape-like inputs are all Constants (integer, or float for what ONNX lets be float, read on the CPU)
 * as the static op with the values as attrs, with exactly the dyn op's semantics (its numpy reference,
 * tvmlite/relay/op/_transform.py, _reduce.py, _algorithm.py):
 *   dyn.reshape(x, s)                 -> reshape(x, newshape=s, allowzero kept)   (0 copies / -1 infers as ONNX)
 *   dyn.squeeze(x, a)                 -> squeeze(x, axis=a)
 *   dyn.expand_dims(x, a)             -> expand_dims(x, p, 1) for each output position p of a, ascending
 *                                        (positions normalised against rank(x) + len(a), as the Unsqueeze
 *                                        converter does); x itself when a is empty
 *   dyn.broadcast_to(x, s)            -> broadcast_to(x, shape=s)
 *   dyn.tile(x, r)                    -> tile(x, reps=r)
 *   dyn.strided_slice(x, b, e, s, a)  -> strided_slice(x, begin=b, end=e, strides=s, axes=a, slice_mode="end")
 *   dyn.one_hot(i, on, off, d)        -> one_hot(i, on, off, depth=int(d[0]), axis, dtype kept)
 *   dyn.topk(x, k)                    -> topk(x, k=int(k), other attrs kept)
 *   dyn.cumsum / dyn.cumprod(x, a)    -> cumsum / cumprod(x, axis=int(a), other attrs kept)
 *   dyn.<reduce>(x, a)                -> <reduce>(x, axis=a, keepdims kept); an empty a is [] (reduce nothing)
 *                                        under noop_with_empty_axes, else None (every axis)
 *   dyn.nn.pad(x, p, v, a)            -> nn.pad(x, v, pad_width): axis a[i] gets (p[i], p[i + len(a)]), others 0
 *   dyn.full(v, s)                    -> full(v, shape=s, dtype kept)
 *   dyn.nn.col2im(x, i, b)            -> nn.col2im(x, image_shape=i, block_shape=b, window attrs kept)
 *   dyn.nn.max_unpool{N}d(x, i, s)    -> nn.max_unpool{N}d(x, i, output_size=s[2:], window attrs kept)
 *   image.resize(x, roi, scales, sizes) with constant roi/scales/sizes and no output_size: output_size set by
 *                                        topi::ResizeStaticOutputSize (tvmlite/topi/resize_geometry.h)
 * The candidate is typed with the static op's relation; when that fails (an axis out of range, a shape that does
 * not fit the data: the values the dyn op would reject at run time) the dyn call stays, so the pass never turns a
 * graph that builds into one that does not. A dyn call with an input that is not constant stays too. The module
 * is typed again at the end; FoldConstant after this pass folds what became computable (a full of a constant).
 * This file names no op.
 */
#include <tvmlite/runtime/registry.h>

#include <optional>
#include <vector>

#include "dynamic_to_static.h"
#include "shape_rewrites.h"

namespace tvmlite {
namespace relay {

TVMLITE_REGISTER_OBJECT_TYPE(DynamicToStaticContextNode);

namespace {

class DynamicToStaticMutator : public ExprMutator {
 public:
  DynamicToStaticMutator() : context_(make_object<DynamicToStaticContextNode>()), rules_("FTVMLiteDynamicToStatic") {}

 protected:
  Expr Rewrite(const Expr& original, const Array<Expr>& new_children) override {
    Expr node = ExprMutator::Rewrite(original, new_children);
    if (!node->checked_type_.defined() && !node.as<OpNode>()) node = InferTypeExpr(node);
    node = NameResultDims(&context_->shapes, node);
    if (Expr folded = StaticShapeValue(node); folded.defined()) return folded;
    const auto* call = node.as<CallNode>();
    if (call == nullptr || call->op.as<OpNode>() == nullptr) return node;
    const Op op = runtime::Downcast<Op>(call->op);
    if (!rules_.count(op)) return node;
    const Any candidate = rules_[op](node, context_);
    if (candidate.is_none()) return node;
    std::optional<Expr> expr = candidate.as<Expr>();
    TVMLITE_CHECK_KIND(expr.has_value(), TypeError)
        << "FTVMLiteDynamicToStatic of " << op->name << " must return an Expr or None, got "
        << runtime::AnyTypeStr(*candidate.raw());
    try {
      return InferTypeExpr(*expr);  // the static relation: values the dyn op would reject keep it dynamic
    } catch (const runtime::Error&) {
      return node;
    }
  }

 private:
  DynamicToStaticContext context_;
  OpAttrMap<runtime::Function> rules_;

  /*! \brief A shape computation whose entries are all static (the head size of (batch, seq, 12, 64)) as a
   * constant, or an undefined Expr. */
  Expr StaticShapeValue(const Expr& node) {
    if (!node.as<CallNode>()) return Expr();
    const ShapeValue* v = context_->shapes.Eval(node);
    std::optional<std::vector<int64_t>> values = v ? v->StaticValues() : std::nullopt;
    if (!values) return Expr();
    DataType dtype = TensorTypeOf(node)->dtype;
    std::vector<int64_t> shape;
    if (!v->scalar) shape.push_back(static_cast<int64_t>(values->size()));
    NDArray a = NDArray::Empty(shape, dtype);
    char* p = static_cast<char*>(a->tensor.data);
    for (size_t i = 0; i < values->size(); ++i) {
      int64_t x = (*values)[i];
      switch (dtype.bits()) {  // integer entries of the node's own dtype (a cast kept them in range)
        case 8: reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(x); break;
        case 16: reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(x); break;
        case 32: reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(x); break;
        case 64: reinterpret_cast<int64_t*>(p)[i] = x; break;
        default: return Expr();
      }
    }
    return InferTypeExpr(Constant(a));
  }
};

}  // namespace

IRModule DynamicToStatic(const IRModule& mod) {
  IRModule typed = InferType(mod);
  // One mutator per function: the tensors its shape values name dims by live in that function.
  return MapFunctions(typed, [](const Function& f) {
    DynamicToStaticMutator mutator;
    return runtime::Downcast<Function>(mutator.Mutate(f));
  });
}

TVMLITE_REGISTER_GLOBAL("relay._transform.DynamicToStatic").set_body_typed([](IRModule mod) {
  return DynamicToStatic(mod);
});

}  // namespace relay
}  // namespace tvmlite
