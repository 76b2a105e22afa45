/*!
 * \file shape_rewrites.h
 * \brief Result dims named from shape values (private to csrc/relay/transforms; DynamicToStatic's helpers).
 *
 *   ShapeValueEvaluator shapes;
 *   Expr named = NameResultDims(&shapes, node);   // node itself, or node under a reshape_like naming its dims
 *
 * Why. A relation that cannot name a result dim mints a fresh "?": concatenating the past keys with the new ones
 * (past + seq), arange(past, past + seq) (seq), arange(0, shape_of(keys)[2]). Every "?" is a different unknown,
 * so a mask built from them does not broadcast against the scores by type: the add gets a fresh "?" again, the
 * reshapes after it stay dynamic, and nothing fuses. The shape values know those lengths as sums of dims:
 *   concatenate(xs, axis)       its dim at axis is the sum of the inputs'. The first such tensor is the sum's
 *                               place (ShapeValueEvaluator::NoteSum); a later one with the same sum (the next
 *                               layer's keys, the values) becomes reshape_like(it, place) on that axis, so every
 *                               tensor of length past + seq has one dim.
 *   arange(start, stop, 1)      its length is stop - start when that is a sum never negative (dims are not);
 *                               reshape_like(it, y) at y's axis holding that sum (a dim read by a shape_of, or a
 *                               noted sum), or a static reshape when the length is an int.
 * reshape_like is a view (no copy) that checks the element count at run time, so a wrong proof would fail loudly,
 * never read out of bounds.
 */
#ifndef TVMLITE_RELAY_TRANSFORMS_SHAPE_REWRITES_H_
#define TVMLITE_RELAY_TRANSFORMS_SHAPE_REWRITES_H_

#include "shape_value.h"

namespace tvmlite {
namespace relay {

/*! \brief node (typed) with its "?" result dims named where the shape values prove them (above); node itself
 * otherwise. The result is typed. */
Expr NameResultDims(ShapeValueEvaluator* shapes, const Expr& node);

/*! \brief reshape_like(x, like) replacing x's dims [axis, axis + 1) with like's [like_axis, like_axis + 1). */
Expr ReshapeAxisLike(const Expr& x, int64_t axis, const Expr& like, int64_t like_axis);

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_TRANSFORMS_SHAPE_REWRITES_H_
