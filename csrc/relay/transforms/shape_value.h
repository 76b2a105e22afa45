/*!
 * \file shape_value.h
 * \brief ShapeValue: the dims a small integer tensor computed from shapes holds, known at build time (private to
 * csrc/relay/transforms).
 *
 *   ShapeValueEvaluator shapes;
 *   const ShapeValue* v = shapes.Eval(concat);   // concat((shape_of(x)[0], shape_of(x)[1], 12, 64)):
 *                                                 // dims (batch, seq, 12, 64) for x : (batch, seq, 768)
 *
 * Why. Exporters compute shapes in the graph (Shape -> Gather -> Unsqueeze -> Concat -> Reshape). With symbolic
 * dims that tensor is no constant, so the reshape stays dynamic: its result dims are "?", nothing around it
 * fuses, and the shape arithmetic runs as kernels. Its entries are known all the same, as dims of the graph's
 * tensors: DynamicToStatic turns such a reshape into a static one (a dim of the input at its own position is
 * "0", copy; one other is "-1", inferred) whose result keeps the input's named dims, and a value whose entries
 * are all static into a constant (the head size in sqrt(head_size)).
 *
 * EvalShapeValue follows shape_of through the integer ops exporters use on shapes: take / expand_dims / squeeze
 * / reshape / concatenate / strided_slice / cast to an integer type, and elementwise add, subtract, multiply,
 * floor_divide, maximum, minimum (computed where the operands are static; x + 0, x * 1, x // 1 keep a symbolic
 * x), equal and where (a dim is never negative: where(shape == -1, 1, shape), torch's expand, keeps the shape). An entry it cannot know (batch * 12) is unknown; a tensor it cannot follow has no value (nullptr).
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_SHAPE_VALUE_H_
#define TVMLITE_RELAY_TRANSFORMS_SHAPE_VALUE_H_

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

/*! \brief The values of a constant integer (or, with allow_float, float: truncated as Python's int()) CPU tensor,
 * flattened; nullopt when e is not such a constant. */
std::optional<std::vector<int64_t>> ConstInts(const Expr& e, bool allow_float = false);

/*! \brief Where a shape value's entry was read: dim `axis` of `tensor` (a shape_of's input), or nowhere. */
struct DimSource {
  Expr tensor;
  int64_t axis = -1;
};

/*! \brief A rank-0 or rank-1 integer tensor's entries as dims: an int, a SizeVar, or undefined (unknown). */
struct ShapeValue {
  bool scalar = false;
  std::vector<Any> dims;
  std::vector<DimSource> sources;  // one per entry

  void Push(const Any& dim, DimSource source = DimSource()) {
    dims.push_back(dim);
    sources.push_back(std::move(source));
  }
  void Push(const ShapeValue& v, size_t i) { Push(v.dims[i], v.sources[i]); }

  /*! \brief The entries as ints, or nullopt when one is symbolic or unknown. */
  std::optional<std::vector<int64_t>> StaticValues() const;
};

/*! \brief EvalShapeValue with a memo over the (typed) expressions of one pass. */
class ShapeValueEvaluator {
 public:
  /*! \brief e's value as dims, or nullptr when e is not a shape computation it follows. */
  const ShapeValue* Eval(const Expr& e);

 private:
  std::optional<ShapeValue> Compute(const Expr& e);
  std::optional<ShapeValue> Elementwise(const std::string& op, const Array<Expr>& args);
  std::optional<ShapeValue> Select(const std::string& op, const Array<Expr>& args);
  // Keyed by node; the Expr keeps the node alive (and its address unique) as long as the memo.
  std::unordered_map<const Object*, std::pair<Expr, std::optional<ShapeValue>>> memo_;
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_SHAPE_VALUE_H_
