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
 * The evaluator follows shape_of through the integer ops exporters use on shapes, each by its op's
 * "FTVMLiteShapeValue" rule (shape_value_rule.h; the rules in shape_value_rules.cc): take / expand_dims / squeeze
 * / reshape / concatenate / strided_slice / cast to an integer type, and elementwise add, subtract, multiply,
 * floor_divide, maximum, minimum (computed where the operands are static; x + 0, x * 1, x // 1 keep a symbolic
 * x), negative, equal and where (a dim is never negative: where(shape == -1, 1, shape), torch's expand, keeps the
 * shape). An entry it cannot know (batch * 12) is unknown; a tensor it cannot follow (an op without a rule) has no
 * value (nullptr). This file names no op.
 *
 * Sums. Each entry also carries its value as a sum c + k1 d1 + k2 d2 + ... over dims (an Affine): past + seq (a
 * decoder's key length) stays known through add and subtract, so (past + seq) - past is seq again, a dim with a
 * place to read it. A "?" dim (a concatenation's past + seq) is a sum once the evaluator has been told so
 * (NoteSum); Locate finds a tensor and axis holding a sum (shape_rewrites.h names result dims with it).
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

// A shape value is short (a shape, a few indices): longer tensors are not followed.
constexpr size_t kMaxShapeValueEntries = 64;

/*! \brief Whether e is typed as a rank-0 or rank-1 integer tensor of at most kMaxShapeValueEntries entries: a
 * tensor the evaluator follows. */
bool IsShapeValueTensor(const Expr& e);

/*! \brief A dim's value when it is an int. */
inline std::optional<int64_t> StaticOf(const Any& dim) {
  return dim.type_index() == kTVMLiteInt ? std::optional<int64_t>(dim.cast<int64_t>()) : std::nullopt;
}

/*! \brief Whether a dim is a SizeVar: a tensor's dim, never negative. */
inline bool IsDimVar(const Any& dim) { return dim.as<SizeVar>().has_value(); }

/*! \brief The values of a constant integer (or, with allow_float, float: truncated as Python's int()) CPU tensor,
 * flattened; nullopt when e is not such a constant. */
std::optional<std::vector<int64_t>> ConstInts(const Expr& e, bool allow_float = false);

/*! \brief Where a shape value's entry was read: dim `axis` of `tensor` (a shape_of's input), or nowhere. */
struct DimSource {
  Expr tensor;
  int64_t axis = -1;
};

/*! \brief c + sum of k * d over dims d (SizeVars, compared as DimEqual does): an entry's exact value. */
struct Affine {
  int64_t c = 0;
  std::vector<std::pair<Any, int64_t>> terms;  // no zero coefficient, no dim twice

  static Affine Const(int64_t v) { return Affine{v, {}}; }
  /*! \brief The dim itself (a SizeVar) or its value (an int); nullopt for an unknown dim. */
  static std::optional<Affine> OfDim(const Any& dim);
  /*! \brief a + k b; nullopt on overflow. */
  static std::optional<Affine> AddScaled(const Affine& a, const Affine& b, int64_t k);
  bool IsConst() const { return terms.empty(); }
  /*! \brief Whether it is never negative (c >= 0 and every k >= 0: dims are never negative). */
  bool NonNegative() const;
  /*! \brief The dim when the sum is exactly one dim (1 * d). */
  std::optional<Any> SingleDim() const;
  bool operator==(const Affine& o) const;
};

/*! \brief A rank-0 or rank-1 integer tensor's entries as dims: an int, a SizeVar, or undefined (unknown). */
struct ShapeValue {
  bool scalar = false;
  std::vector<Any> dims;
  std::vector<DimSource> sources;           // one per entry
  std::vector<std::optional<Affine>> sums;  // one per entry: its exact value when known

  void Push(const Any& dim, DimSource source = DimSource(), std::optional<Affine> sum = std::nullopt) {
    if (!sum) sum = Affine::OfDim(dim);
    dims.push_back(dim);
    sources.push_back(std::move(source));
    sums.push_back(std::move(sum));
  }
  void Push(const ShapeValue& v, size_t i) { Push(v.dims[i], v.sources[i], v.sums[i]); }

  /*! \brief The entries as ints, or nullopt when one is symbolic or unknown. */
  std::optional<std::vector<int64_t>> StaticValues() const;
};

/*! \brief EvalShapeValue with a memo over the (typed) expressions of one pass. */
class ShapeValueEvaluator {
 public:
  ShapeValueEvaluator();

  /*! \brief e's value as dims, or nullptr when e is not a shape computation it follows. */
  const ShapeValue* Eval(const Expr& e);

  /*! \brief A dim's exact value: a "?" told to be a sum (NoteSum) is that sum. */
  std::optional<Affine> SumOf(const Any& dim) const;
  /*! \brief Whether entry i of v is exactly dim (the same SizeVar, int or sum). */
  bool Same(const ShapeValue& v, size_t i, const Any& dim) const;
  /*! \brief Whether two dims are exactly equal (as Same). */
  bool SameDims(const Any& a, const Any& b) const;
  /*! \brief Where a value is a tensor's dim: a dim read by a shape_of, or a sum noted with NoteSum. */
  std::optional<DimSource> Locate(const Affine& sum) const;
  /*! \brief The dim to hold for a sum: the int, the SizeVar of a one-dim sum or of a noted sum; else unknown. */
  Any DimFor(const Affine& sum) const;
  /*! \brief Dim `axis` of tensor (a "?") is sum: later shape values see the sum (SumOf that "?"), Locate finds
   * it at the first tensor noted for it (its place, returned). */
  DimSource NoteSum(const Expr& tensor, int64_t axis, const Affine& sum);

  // For the ops' rules (shape_value_rules.cc):
  /*! \brief dim was read as dim `source.axis` of `source.tensor` (a shape_of): Locate finds it there. */
  void NoteSource(const Any& dim, const DimSource& source);
  /*! \brief Pushes a computed sum: its dim (DimFor) and place (Locate). */
  void PushSum(ShapeValue* out, const std::optional<Affine>& sum) const;

 private:
  /*! \brief e's value: a constant's, or what its op's rule computes. */
  std::optional<ShapeValue> Compute(const Expr& e);
  OpAttrMap<runtime::Function> rules_;  // "FTVMLiteShapeValue", as set when the evaluator was made
  // Keyed by node; the Expr keeps the node alive (and its address unique) as long as the memo.
  std::unordered_map<const Object*, std::pair<Expr, std::optional<ShapeValue>>> memo_;
  // Where each dim (by DimEqual) was read, and each noted sum's place and dim; short lists, searched in order.
  std::vector<std::pair<Any, DimSource>> dim_sources_;
  std::vector<std::pair<Affine, std::pair<DimSource, Any>>> sums_;
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_SHAPE_VALUE_H_
