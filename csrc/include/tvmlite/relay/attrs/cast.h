/*!
 * \file tvmlite/relay/attrs/cast.h
 * \brief Attrs of the dtype conversions: cast, cast_like, reinterpret.
 *
 *   cast(data, dtype="float8_e4m3fn", saturate=true)   same shape, the new dtype
 *   cast_like(data, like)                               same shape, like's dtype
 *   reinterpret(data, dtype="int32")                    the same bits seen as another type of the same width
 */
#ifndef TVMLITE_RELAY_ATTRS_CAST_H_
#define TVMLITE_RELAY_ATTRS_CAST_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

#include <string>

namespace tvmlite {
namespace relay {

using runtime::DataType;

/*! \brief cast / reinterpret (only dtype applies to reinterpret). */
struct CastAttrs : public ir::AttrsNode {
  DataType dtype = DataType::Float(32);
  /*!
   * \brief To a float8 type: out-of-range values (and infinities) clamp to the largest finite value; false: they
   * become inf, or NaN for the types without inf (ONNX Cast's saturate).
   */
  bool saturate = true;
  /*! \brief Rounding to float8_e8m0fnu: "up" (away from zero), "down" (toward zero) or "nearest" (ties up). */
  std::string round_mode = "up";

  TVMLITE_DECLARE_ATTRS(CastAttrs, "relay.attrs.CastAttrs");
};

/*! \brief cast_like: the target dtype is the second input's. */
struct CastLikeAttrs : public ir::AttrsNode {
  bool saturate = true;
  std::string round_mode = "up";

  TVMLITE_DECLARE_ATTRS(CastLikeAttrs, "relay.attrs.CastLikeAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_CAST_H_
