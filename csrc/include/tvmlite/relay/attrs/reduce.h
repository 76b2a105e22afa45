/*!
 * \file tvmlite/relay/attrs/reduce.h
 * \brief Attrs of the reductions (sum, mean, max, min, prod, logsumexp, log_sum, l1_norm, l2_norm, sum_square,
 * argmax, argmin) and of their dyn.* variants, whose axes come as a tensor input known only at run time.
 *
 *   sum(data, axis=[1], keepdims=false)   (2, 3, 4) -> (2, 4)
 *   sum(data, axis=None)                  every axis -> ()
 *   sum(data, axis=[])                    no axis: the op's elementwise part only (sum_square -> square, log_sum ->
 * log) dyn.sum(data, axes (k,))              keepdims: rank kept, reduced dims unknown; else rank - k dims, unknown
 */
#ifndef TVMLITE_RELAY_ATTRS_REDUCE_H_
#define TVMLITE_RELAY_ATTRS_REDUCE_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

namespace tvmlite {
namespace relay {

using runtime::Array;
using runtime::Optional;

/*! \brief A reduction over a static axis list. */
struct ReduceAttrs : public ir::AttrsNode {
  /*! \brief The axes (negative counts from the end); None: every axis; []: none. */
  Optional<Array<int64_t>> axis;
  /*! \brief Keep reduced axes as dims of size 1. */
  bool keepdims = false;
  /*! \brief Reduce every axis except those listed. */
  bool exclude = false;

  TVMLITE_DECLARE_ATTRS(ReduceAttrs, "relay.attrs.ReduceAttrs");
};

/*! \brief argmax / argmin: a ReduceAttrs plus which of equal extremes wins. Output int64 indices. */
struct ArgReduceAttrs : public ir::AttrsNode {
  Optional<Array<int64_t>> axis;
  bool keepdims = false;
  bool exclude = false;
  /*! \brief Index of the last extreme instead of the first. */
  bool select_last_index = false;

  TVMLITE_DECLARE_ATTRS(ArgReduceAttrs, "relay.attrs.ArgReduceAttrs");
};

/*! \brief dyn.<reduction>(data, axes): axes is a 1-D integer tensor read at run time. */
struct DynReduceAttrs : public ir::AttrsNode {
  bool keepdims = false;
  /*! \brief An empty axes tensor reduces nothing (true) or every axis (false), ONNX's noop_with_empty_axes. */
  bool noop_with_empty_axes = false;

  TVMLITE_DECLARE_ATTRS(DynReduceAttrs, "relay.attrs.DynReduceAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_REDUCE_H_
