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
  TVMLITE_DECLARE_ATTRS(QuantizeAttrs, "relay.attrs.QuantizeAttrs");
};

struct DequantizeAttrs : public ir::AttrsNode {
  int64_t axis = 1;
  int64_t block_size = 0;
  runtime::DataType out_dtype = runtime::DataType::Float(32);
  TVMLITE_DECLARE_ATTRS(DequantizeAttrs, "relay.attrs.DequantizeAttrs");
};

struct QLinearConvAttrs : public ir::AttrsNode {
  runtime::Array<int64_t> strides;
  runtime::Array<int64_t> padding;  // begin..., end...
  runtime::Array<int64_t> dilation;
  int64_t groups = 1;
  TVMLITE_DECLARE_ATTRS(QLinearConvAttrs, "relay.attrs.QLinearConvAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_QNN_H_
