/*!
 * \file alter_op_layout.h
 * \brief What the AlterOpLayout pass (alter_op_layout.cc) and the ops' rules (alter_op_layout_rules.cc) share: the
 * "FTVMLiteAlterOpLayout" op attribute, the context a rule reads, and the helpers both build with.
 *
 *   Function rule = OpAttrMap<Function>("FTVMLiteAlterOpLayout")[op];
 *   Any out = rule(call, context);  // call: the original typed call, its inputs already rewritten; context: an
 *                                   // AlterOpLayoutContext -> [expr, block, padded], or None
 *
 * [expr, block, padded] is the call's rewrite: expr in NCHW{block}c (block 0: its original layout), its channels
 * padded to `padded` (0: not padded; alter_op_layout.cc, "Padded channels"). None: the pass tries the elementwise
 * rewrite (chosen by TOpPattern), else keeps the call in NCHW. A rule returning anything else is a TypeError naming
 * the op, a block other than 0, 1, 2, 4, 8, 16 or a negative padding a ValueError.
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_ALTER_OP_LAYOUT_H_
#define TVMLITE_RELAY_TRANSFORMS_ALTER_OP_LAYOUT_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/relay/op_facts.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pass_util.h"

namespace tvmlite {
namespace relay {
namespace alter_layout {

/*! \brief The largest of 16, 8, 4, 2, 1 that divides channels and is <= max_block. */
int64_t BlockSize(int64_t channels, int64_t max_block);

/*! \brief The rank of a node's tensor type (0 when it is not a tensor). */
size_t RankOf(const ir::RelayExprNode* e);

/*! \brief Whether a tensor of this rank can be blocked: NCHW, NCDHW. */
inline bool BlockableRank(size_t rank) { return rank == 4 || rank == 5; }

/*! \brief The layout of a tensor of this rank with this block (0: plain): NCHW{c}c, NCDHW{c}c. */
std::string FormLayout(size_t rank, int64_t block);

/*!
 * \brief The static shape of a node's tensor type, or nullopt (not a tensor, or a symbolic dim): for the operands
 * whose every dim a rule reads (weights, biases).
 */
std::optional<std::vector<int64_t>> StaticShape(const ir::RelayExprNode* e);
inline std::optional<std::vector<int64_t>> StaticShape(const Expr& e) { return StaticShape(e.get()); }

/*!
 * \brief Dim i of a node's tensor type when it is static; nullopt when it is symbolic (a SizeVar), beyond the rank,
 * or the node is no tensor. Activations are read through it, and only the dims a rule decides on (channels; the
 * output plane of the Winograd choice): a symbolic batch or spatial dim does not stop a rewrite that does not use
 * its value, and the ops built carry it through (layout_transform, the blocked convs, pools and slices keep the
 * same SizeVar).
 */
std::optional<int64_t> StaticDim(const ir::RelayExprNode* e, size_t i);
inline std::optional<int64_t> StaticDim(const Expr& e, size_t i) { return StaticDim(e.get(), i); }

/*! \brief The channels of a value that is, or is being, padded: static, as only a static count is ever padded. */
int64_t PaddedChannels(const Expr& e);

bool IsFloat32(const Expr& e);

Expr MakeLayoutTransform(const Expr& data, const std::string& src, const std::string& dst);

Expr MakeExpandDims(const Expr& data, int64_t axis, int64_t num_newaxis);

/*!
 * \brief Attrs of op's type with the fields named in values set and the others at their defaults: for an op whose
 * attrs struct lives elsewhere (nn.contrib_dense_pack), so this file assumes its field names, not their order.
 */
Attrs MakeAttrsByName(const Op& op, const std::map<std::string, Any>& values);

/*! \brief n rounded up to a multiple of m. */
inline int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/*! \brief data (of rank `rank`) padded with zeros after the end of the given axes: (axis, how many). */
Expr PadWithZeros(const Expr& data, size_t rank, const std::vector<std::pair<size_t, int64_t>>& axis_extra);

/*! \brief The first n entries of axis 1: channels, or the channel blocks of a blocked tensor. */
Expr LeadingChannels(const Expr& data, int64_t n);

/*!
 * \brief A node's rewritten expression and its layout: block 0 is the original layout, c > 0 NCHW{c}c; padded > 0:
 * the blocked tensor has `padded` channels, the node's own ones followed by finite filler (docs/compiler.md).
 */
struct Value {
  Expr expr;
  int64_t block = 0;
  int64_t padded = 0;
};

}  // namespace alter_layout

/*!
 * \brief The pass's state a rule reads and extends: the values of the nodes rewritten so far (producers first), the
 * shared transforms into and out of the blocked layouts, the largest block. It owns them and the function they
 * belong to, so a context kept past the pass (by a rule set from Python) stays valid.
 */
class AlterOpLayoutContextNode : public Object {
 public:
  using Value = alter_layout::Value;

  /*! \brief The largest block (1, 2, 4, 8 or 16). */
  int64_t max_block = 8;
  OpFacts facts;
  /*! \brief The function being rewritten: the nodes the values are keyed by stay alive. */
  Expr root;

  /*! \brief old's value; a ValueError when old is no node rewritten in this context. */
  const Value& ValueOf(const Expr& old) const;
  void SetValue(const Expr& old, Value v) { values_[old.get()] = std::move(v); }

  /*! \brief old's rewritten expression in its original layout (one shared transform back when it is blocked). */
  Expr Plain(const Expr& old);

  /*!
   * \brief old (a 4-D NCHW or 5-D NCDHW tensor) blocked by `block`, its channels padded with zeros to `padded` (0:
   * not padded): as it is, or through one shared transform (a padded value elsewhere goes by its plain form).
   */
  Expr Blocked(const Expr& old, int64_t block, int64_t padded = 0);

  TVMLITE_DECLARE_FINAL_OBJECT("relay.AlterOpLayoutContext", AlterOpLayoutContextNode, Object);

 private:
  std::unordered_map<const Object*, Value> values_;
  std::unordered_map<const Object*, Expr> plain_;
  std::map<std::tuple<const Object*, int64_t, int64_t>, Expr> blocked_;
};

class AlterOpLayoutContext : public ObjectRef {
 public:
  TVMLITE_DEFINE_MUTABLE_OBJECT_REF_METHODS(AlterOpLayoutContext, ObjectRef, AlterOpLayoutContextNode);
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_ALTER_OP_LAYOUT_H_
