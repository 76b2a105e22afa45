/*!
 * \file tvmlite/relay/attrs/qnn.h
 * \brief Attrs of the quantization ops (qnn.quantize, qnn.dequantize, qnn.qlinear_conv).
 *
 * Scale and zero point are per tensor (scalars), per axis (1-D of the axis' length) or blocked (block_size > 0:
 * the scale has the input's shape with dim `axis` divided by block_size, rounded up).
 */
#ifndef TVMLITE_RELAY_ATTRS_QNN_H_
#define TVMLITE_RELAY_ATTRS_QNN_H_

#include <tvmlite/ir/attrs.h>

namespace tvmlite {
namespace relay {

struct QuantizeAttrs : public ir::AttrsNode {
  int64_t axis = 1;
  int64_t block_size = 0;
  runtime::DataType out_dtype = runtime::DataType::UInt(8);
  bool saturate = true;  // float8 targets: clamp to the finite range
  static constexpr const char* _type_key = "relay.attrs.QuantizeAttrs";
  TVMLITE_DECLARE_ATTRS(QuantizeAttrs);
};

struct DequantizeAttrs : public ir::AttrsNode {
  int64_t axis = 1;
  int64_t block_size = 0;
  runtime::DataType out_dtype = runtime::DataType::Float(32);
  static constexpr const char* _type_key = "relay.attrs.DequantizeAttrs";
  TVMLITE_DECLARE_ATTRS(DequantizeAttrs);
};

struct QLinearConvAttrs : public ir::AttrsNode {
  runtime::Array<int64_t> strides;
  runtime::Array<int64_t> padding;  // begin..., end...
  runtime::Array<int64_t> dilation;
  int64_t groups = 1;
  static constexpr const char* _type_key = "relay.attrs.QLinearConvAttrs";
  TVMLITE_DECLARE_ATTRS(QLinearConvAttrs);
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_QNN_H_
