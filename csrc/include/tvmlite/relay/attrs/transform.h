/*!
 * \file tvmlite/relay/attrs/transform.h
 * \brief Attrs of the shape and data-movement ops (TVM's "transform" family): reshape, slicing, gather/scatter,
 * padding, tiling, ...
 *
 *   // relay.op._make.strided_slice(x, begin, end, strides, axes, slice_mode)
 *   auto* a = AttrsAs<StridedSliceAttrs>(attrs);
 *   for (size_t i = 0; i < a->begin.size(); ++i) ...
 *
 * Field order is the maker's argument order (after the inputs). Conventions shared by the family:
 *  - an axis may be negative (counted from the end) and is normalised by the relation, which raises IndexError
 *    naming the rank when it is out of range;
 *  - a DataType field left at its default (void) means "the input's dtype";
 *  - the "dyn.*" forms take what the static form holds as an attribute (a shape, pads, slice bounds) as a tensor
 *    input instead: their result dims are "?" (the rank comes from the static length of that input).
 */
#ifndef TVMLITE_RELAY_ATTRS_TRANSFORM_H_
#define TVMLITE_RELAY_ATTRS_TRANSFORM_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

#include <string>

namespace tvmlite {
namespace relay {

using ir::AttrsNode;
using runtime::Array;
using runtime::DataType;
using runtime::Optional;

/*!
 * \brief reshape / dyn.reshape. newshape entries: n >= 0 a dim, 0 copies the input dim at that position (unless
 * allowzero, ONNX v14, where 0 is a zero-sized dim), -1 infers one dim from the element count.
 */
struct ReshapeAttrs : public AttrsNode {
  Array<int64_t> newshape;
  bool allowzero = false;
  TVMLITE_DECLARE_ATTRS(ReshapeAttrs, "relay.attrs.ReshapeAttrs");
};

/*!
 * \brief reshape_like (TVM's): data's dims [lhs_begin, lhs_end) replaced by shape_like's dims [rhs_begin, rhs_end)
 * (an end None: the rank; negative: from the end). The element count must not change.
 */
struct ReshapeLikeAttrs : public AttrsNode {
  int64_t lhs_begin = 0;
  Optional<int64_t> lhs_end;
  int64_t rhs_begin = 0;
  Optional<int64_t> rhs_end;
  TVMLITE_DECLARE_ATTRS(ReshapeLikeAttrs, "relay.attrs.ReshapeLikeAttrs");
};

/*! \brief transpose: a permutation of the axes; empty reverses them (numpy's default). */
struct TransposeAttrs : public AttrsNode {
  Array<int64_t> axes;
  TVMLITE_DECLARE_ATTRS(TransposeAttrs, "relay.attrs.TransposeAttrs");
};

/*! \brief concatenate (a Tuple input) along axis. */
struct ConcatenateAttrs : public AttrsNode {
  int64_t axis = 0;
  TVMLITE_DECLARE_ATTRS(ConcatenateAttrs, "relay.attrs.ConcatenateAttrs");
};

/*!
 * \brief split along axis: into `sections` equal parts when sections > 0, else at the (ascending) `indices`
 * (numpy's array_split points). The result is a Tuple.
 */
struct SplitAttrs : public AttrsNode {
  int64_t sections = 0;
  Array<int64_t> indices;
  int64_t axis = 0;
  TVMLITE_DECLARE_ATTRS(SplitAttrs, "relay.attrs.SplitAttrs");
};

/*!
 * \brief strided_slice: python/ONNX slicing of the listed axes (all axes from 0 when axes is None); bounds are
 * clamped as numpy does; slice_mode "size" reads end as a size (-1: to the end).
 */
struct StridedSliceAttrs : public AttrsNode {
  Array<int64_t> begin;
  Array<int64_t> end;
  Array<int64_t> strides;
  Optional<Array<int64_t>> axes;
  std::string slice_mode = "end";
  TVMLITE_DECLARE_ATTRS(StridedSliceAttrs, "relay.attrs.StridedSliceAttrs");
};

/*!
 * \brief slice_like (TVM's): data[0:like.shape[a]] on each of axes (empty: every axis of like), so the result has
 * like's dims there, symbolic ones included; like's dims must not exceed data's (checked at run time).
 */
struct SliceLikeAttrs : public AttrsNode {
  Array<int64_t> axes;
  TVMLITE_DECLARE_ATTRS(SliceLikeAttrs, "relay.attrs.SliceLikeAttrs");
};

/*!
 * \brief take (ONNX Gather): data[..., indices, ...] on axis, the first batch_dims dims of data and indices
 * shared. mode "fast" (ONNX: negative indices count from the end, out of range is an error), "clip", "wrap".
 */
struct TakeAttrs : public AttrsNode {
  int64_t batch_dims = 0;
  int64_t axis = 0;
  std::string mode = "fast";
  TVMLITE_DECLARE_ATTRS(TakeAttrs, "relay.attrs.TakeAttrs");
};

/*! \brief gather (ONNX GatherElements) and scatter_elements: per-element indexing along axis. */
struct GatherAttrs : public AttrsNode {
  int64_t axis = 0;
  TVMLITE_DECLARE_ATTRS(GatherAttrs, "relay.attrs.GatherAttrs");
};

/*!
 * \brief gather_nd in ONNX's layout: indices (..., k) address the leading k dims of data after batch_dims
 * shared leading dims.
 */
struct GatherNDAttrs : public AttrsNode {
  int64_t batch_dims = 0;
  TVMLITE_DECLARE_ATTRS(GatherNDAttrs, "relay.attrs.GatherNDAttrs");
};

/*! \brief scatter_elements: reduction "update" (ONNX "none"), "add", "mul", "min", "max". */
struct ScatterElementsAttrs : public AttrsNode {
  int64_t axis = 0;
  std::string reduction = "update";
  TVMLITE_DECLARE_ATTRS(ScatterElementsAttrs, "relay.attrs.ScatterElementsAttrs");
};

/*! \brief scatter_nd in ONNX's layout (indices (..., k)); mode "update", "add", "mul", "min", "max". */
struct ScatterNDAttrs : public AttrsNode {
  std::string mode = "update";
  TVMLITE_DECLARE_ATTRS(ScatterNDAttrs, "relay.attrs.ScatterNDAttrs");
};

/*! \brief broadcast_to: numpy broadcasting of data's shape with `shape` (ONNX Expand is bidirectional). */
struct BroadcastToAttrs : public AttrsNode {
  Array<int64_t> shape;
  TVMLITE_DECLARE_ATTRS(BroadcastToAttrs, "relay.attrs.BroadcastToAttrs");
};

/*!
 * \brief broadcast_to_like: data broadcast to shape_like's shape (TVM's; axes empty), or, with axes, data's dims
 * axes[j] set to shape_like's dims like_axes[j] (data's dim there 1 or the same).
 */
struct BroadcastToLikeAttrs : public AttrsNode {
  Array<int64_t> axes;
  Array<int64_t> like_axes;
  TVMLITE_DECLARE_ATTRS(BroadcastToLikeAttrs, "relay.attrs.BroadcastToLikeAttrs");
};

/*! \brief tile: numpy.tile (reps shorter than the rank are padded with leading 1s, and vice versa). */
struct TileAttrs : public AttrsNode {
  Array<int64_t> reps;
  TVMLITE_DECLARE_ATTRS(TileAttrs, "relay.attrs.TileAttrs");
};

/*!
 * \brief nn.pad: pad_width holds (before, after) per axis, flattened: [b0, a0, b1, a1, ...]; a negative value
 * crops. pad_mode "constant" (the pad_value input), "reflect", "edge", "wrap".
 */
struct PadAttrs : public AttrsNode {
  Array<int64_t> pad_width;
  std::string pad_mode = "constant";
  TVMLITE_DECLARE_ATTRS(PadAttrs, "relay.attrs.PadAttrs");
};

/*! \brief squeeze: the listed axes (each of size 1), or every dim known to be 1 when axis is None. */
struct SqueezeAttrs : public AttrsNode {
  Optional<Array<int64_t>> axis;
  TVMLITE_DECLARE_ATTRS(SqueezeAttrs, "relay.attrs.SqueezeAttrs");
};

/*! \brief expand_dims: num_newaxis dims of size 1 inserted at axis (in [-rank-1, rank]). */
struct ExpandDimsAttrs : public AttrsNode {
  int64_t axis = 0;
  int64_t num_newaxis = 1;
  TVMLITE_DECLARE_ATTRS(ExpandDimsAttrs, "relay.attrs.ExpandDimsAttrs");
};

/*! \brief nn.depth_to_space / nn.space_to_depth on NCHW; mode "DCR" or "CRD". */
struct SubPixelAttrs : public AttrsNode {
  int64_t block_size = 1;
  std::string layout = "NCHW";
  std::string mode = "DCR";
  TVMLITE_DECLARE_ATTRS(SubPixelAttrs, "relay.attrs.SubPixelAttrs");
};

/*! \brief shape_of, ndarray_size, argwhere, arange, full, eye_like: the result dtype. */
struct DtypeAttrs : public AttrsNode {
  DataType dtype = DataType::Int(64);
  TVMLITE_DECLARE_ATTRS(DtypeAttrs, "relay.attrs.DtypeAttrs");
};

/*! \brief full: fill_value (a scalar input) broadcast to shape, as dtype (void: fill_value's). */
struct FullAttrs : public AttrsNode {
  Array<int64_t> shape;
  DataType dtype;
  TVMLITE_DECLARE_ATTRS(FullAttrs, "relay.attrs.FullAttrs");
};

/*! \brief trilu (the k input shifts the diagonal): the upper or the lower triangle. */
struct TriluAttrs : public AttrsNode {
  bool upper = true;
  TVMLITE_DECLARE_ATTRS(TriluAttrs, "relay.attrs.TriluAttrs");
};

/*! \brief eye_like: ones on diagonal k of a 2-D tensor shaped as the input, as dtype (void: the input's). */
struct EyeLikeAttrs : public AttrsNode {
  int64_t k = 0;
  DataType dtype;
  TVMLITE_DECLARE_ATTRS(EyeLikeAttrs, "relay.attrs.EyeLikeAttrs");
};

/*!
 * \brief one_hot(indices, on_value, off_value): a new axis of size depth; indices in [-depth, depth) select
 * (negative ones count from the end), others give off_value everywhere. dyn.one_hot takes depth as an input.
 */
struct OneHotAttrs : public AttrsNode {
  int64_t depth = 1;
  int64_t axis = -1;
  DataType dtype;
  TVMLITE_DECLARE_ATTRS(OneHotAttrs, "relay.attrs.OneHotAttrs");
};

/*! \brief reverse_sequence: reverse the first seq_lengths[b] items along seq_axis for each b on batch_axis. */
struct ReverseSequenceAttrs : public AttrsNode {
  int64_t seq_axis = 1;
  int64_t batch_axis = 0;
  TVMLITE_DECLARE_ATTRS(ReverseSequenceAttrs, "relay.attrs.ReverseSequenceAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_TRANSFORM_H_
