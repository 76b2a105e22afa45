/*!
 * \file tvmlite/relay/layout.h
 * \brief TVM's data layouts: a tensor's axes named by a string, with blocked (split) axes, and the mapping between
 * two layouts of the same tensor.
 *
 *   Layout src("NCHW"), dst("NCHW16c");                    // ValueError on a malformed string
 *   std::vector<int64_t> s = TransformShape(src, dst, {1, 32, 7, 7});   // {1, 2, 7, 7, 16}
 *   LayoutIndexMap map(src, dst, {1, 32, 7, 7});            // dst index -> src flat offset (the kernel's plan)
 *
 * Grammar: a layout is a sequence of axes. A primal axis is one uppercase letter (N, C, H, W, O, I, D, K, ...); a
 * sub-axis is `<factor><lowercase letter>` ("16c"): the inner `factor` part of its primal axis ("C"), which then
 * counts blocks of `factor`. "NCHW16c" is (N, C / 16, H, W, 16) with logical C = c_outer * 16 + c_inner;
 * "OIHW16i16o" is (O / 16, I / 16, KH, KW, 16, 16).
 * Invariants (checked by the constructor, ValueError naming the layout otherwise): only letters and digits; every
 * sub-axis has a factor > 0 and its primal axis somewhere in the layout; no axis (primal or sub) twice; a factor
 * is followed by a lowercase letter. Two layouts are convertible when they have the same primal axes.
 *
 * TransformShape and LayoutIndexMap check the shape: its rank is the source layout's, each sub-axis dim equals its
 * factor, and the destination's factors divide the logical dims (ValueError naming both layouts otherwise).
 */
#ifndef TVMLITE_RELAY_LAYOUT_H_
#define TVMLITE_RELAY_LAYOUT_H_

#include <tvmlite/ir/attrs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tvmlite {
namespace relay {

/*! \brief One axis of a layout: a primal axis ('C', factor 0) or a sub-axis ('c', factor 16). */
struct LayoutAxis {
  char name;
  int64_t factor;  // 0 for a primal axis
  bool primal() const { return factor == 0; }
  /*! \brief The primal axis this axis belongs to ('C' for both "C" and "16c"). */
  char primal_name() const { return primal() ? name : static_cast<char>(name - 'a' + 'A'); }
};

class Layout {
 public:
  /*! \brief Parse name; ValueError (naming the layout and the problem) when it is malformed. */
  explicit Layout(std::string name);
  const std::string& name() const { return name_; }
  size_t ndim() const { return axes_.size(); }
  const std::vector<LayoutAxis>& axes() const { return axes_; }
  const LayoutAxis& operator[](size_t i) const { return axes_[i]; }
  /*! \brief Position of the axis named axis ('C' or 'c'), or -1. */
  int IndexOf(char axis) const;
  /*! \brief The factor of primal's sub-axis ("NCHW16c", 'C' -> 16), or 0 when it is not split. */
  int64_t FactorOf(char primal) const;
  /*! \brief The primal axes, in order of appearance ("NCHW16c" -> "NCHW"). */
  std::string PrimalAxes() const;
  bool operator==(const Layout& other) const { return name_ == other.name_; }

 private:
  std::string name_;
  std::vector<LayoutAxis> axes_;
};

/*! \brief ValueError unless src and dst have the same primal axes (names both layouts). */
void CheckConvertible(const Layout& src, const Layout& dst);

/*!
 * \brief The logical (unblocked) extent of each primal axis of a tensor of `shape` in `layout`, in the order of
 * layout.PrimalAxes(); -1 for a symbolic dim (shape value < 0). ValueError when a sub-axis dim is not its factor.
 */
std::vector<int64_t> LogicalExtents(const Layout& layout, const std::vector<int64_t>& shape);

/*!
 * \brief The shape in dst of a tensor of shape `shape` in src (dims < 0 are symbolic and stay so where they
 * matter). ValueError when the layouts are not convertible, the rank differs or a factor does not divide.
 */
std::vector<int64_t> TransformShape(const Layout& src, const Layout& dst, const std::vector<int64_t>& shape);

/*!
 * \brief Where each element of the dst tensor comes from in the src tensor (static shapes), as per-primal-axis
 * offset tables, so an index maps with additions only:
 *
 *   src_offset(dst index) = sum over primal axes X of  table[X][logical_X(dst index)]
 *   logical_X(dst index)  = outer_X * dst_factor_X + inner_X           (outer_X alone when X is not split in dst)
 *   table[X][l]           = (l / src_factor_X) * src_stride(X) + (l % src_factor_X) * src_stride(x)
 */
class LayoutIndexMap {
 public:
  LayoutIndexMap(const Layout& src, const Layout& dst, const std::vector<int64_t>& src_shape);
  const std::vector<int64_t>& dst_shape() const { return dst_shape_; }
  /*! \brief For each dst axis: its primal axis (an index into tables()) and what one step of it adds to the
   * primal's logical coordinate (dst factor for a split outer axis, else 1). */
  const std::vector<int>& dst_primal() const { return dst_primal_; }
  const std::vector<int64_t>& dst_step() const { return dst_step_; }
  const std::vector<std::vector<int64_t>>& tables() const { return tables_; }
  /*! \brief The src flat offset of a dst index (tests and the slow path). */
  int64_t SrcOffset(const std::vector<int64_t>& dst_index) const;

 private:
  std::vector<int64_t> dst_shape_;
  std::vector<int> dst_primal_;
  std::vector<int64_t> dst_step_;
  std::vector<std::vector<int64_t>> tables_;
};

/*!
 * \brief layout_transform(data, src_layout, dst_layout) (TVM's attrs): the same tensor in another layout, e.g.
 * NCHW (1, 32, 7, 7) -> NCHW16c (1, 2, 7, 7, 16), OIHW -> OIHW16i16o, NCHW16c -> NCHW.
 */
struct LayoutTransformAttrs : public ir::AttrsNode {
  std::string src_layout;
  std::string dst_layout;

  TVMLITE_DECLARE_ATTRS(LayoutTransformAttrs, "relay.attrs.LayoutTransformAttrs");
};

/*! \brief "NCHW{c}c" for c > 0, "NCHW" for c == 0: the blocked activation layouts of the cpu target. */
std::string BlockedNCHW(int64_t block);
/*!
 * \brief The block of a blocked NCHW layout: "NCHW16c" -> 16, "NCHW" -> 0; -1 when the layout is neither
 * (another axis order or another split).
 */
int64_t NCHWBlockOf(const std::string& layout);

/*!
 * \brief The same for any channel-first plain layout (NCW, NCHW, NCDHW): "NCDHW" + 16 -> "NCDHW16c" (block 0: plain
 * itself), and back: ChannelFirstBlockOf("NCDHW16c", "NCDHW") -> 16, of plain -> 0, of anything else -> -1.
 */
std::string BlockedChannelFirst(const std::string& plain, int64_t block);
int64_t ChannelFirstBlockOf(const std::string& layout, const std::string& plain);

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_LAYOUT_H_
