/*!
 * \file tvmlite/relay/attrs/nn.h
 * \brief Attrs of the nn op family: convolution, transposed convolution, pooling, dense/matmul and einsum.
 *
 *   // relay.op.nn._make.conv2d(data, weight, strides, padding, dilation, groups, channels, kernel_size,
 *   //                          data_layout, kernel_layout, out_layout, out_dtype)
 *   const Conv2DAttrs* a = AttrsAs<Conv2DAttrs>(call->attrs);
 *
 * The windowed ops are templated over the spatial rank N (1, 2, 3); each rank has its own type key (TVM's names:
 * relay.attrs.Conv2DAttrs, relay.attrs.MaxPool3DAttrs, ...). Invariants the relations check (never assume):
 *   strides, dilation:   empty (all 1), one value (every dim) or N values, each >= 1;
 *   padding:             empty (all 0), one value, N values (begin = end) or 2N values (begin..., end...), >= 0;
 *   layouts:             the channel-first ones only (NCW/NCHW/NCDHW data, OIW/OIHW/OIDHW weights,
 *                        IOW/IOHW/IODHW transposed-conv weights); others are NotImplementedError;
 *   out_dtype:           None means the input's dtype.
 */
#ifndef TVMLITE_RELAY_ATTRS_NN_H_
#define TVMLITE_RELAY_ATTRS_NN_H_

#include <tvmlite/ir/attrs.h>

#include <string>

namespace tvmlite {
namespace relay {

using ir::AttrsNode;
using runtime::Array;
using runtime::DataType;
using runtime::Optional;

/*! \brief The channel-first data layout of spatial rank N ("NCW", "NCHW", "NCDHW"). */
constexpr const char* ChannelFirstLayout(int n) { return n == 1 ? "NCW" : n == 2 ? "NCHW" : "NCDHW"; }
/*! \brief The conv weight layout of spatial rank N ("OIW", "OIHW", "OIDHW"). */
constexpr const char* ConvKernelLayout(int n) { return n == 1 ? "OIW" : n == 2 ? "OIHW" : "OIDHW"; }
/*! \brief The transposed-conv weight layout of spatial rank N ("IOW", "IOHW", "IODHW"). */
constexpr const char* ConvTransposeKernelLayout(int n) { return n == 1 ? "IOW" : n == 2 ? "IOHW" : "IODHW"; }

/*!
 * \brief nn.conv{N}d: data (B, C, *S) NC..., weight (O, C / groups, *K) OI...; out (B, O, *S_out) with
 * S_out[i] = (S[i] + pad_begin[i] + pad_end[i] - dilation[i] * (K[i] - 1) - 1) / strides[i] + 1.
 */
template <int N>
struct ConvAttrs : public AttrsNode {
  Array<int64_t> strides;
  Array<int64_t> padding;
  Array<int64_t> dilation;
  int64_t groups = 1;
  Optional<int64_t> channels;  // O, when given (checked against the weight)
  Array<int64_t> kernel_size;  // K, when given (checked against the weight)
  std::string data_layout = ChannelFirstLayout(N);
  std::string kernel_layout = ConvKernelLayout(N);
  std::string out_layout = "";
  Optional<DataType> out_dtype;

  TVMLITE_DECLARE_ATTRS(ConvAttrs, N == 1   ? "relay.attrs.Conv1DAttrs"
                                   : N == 2 ? "relay.attrs.Conv2DAttrs"
                                            : "relay.attrs.Conv3DAttrs");
};
using Conv1DAttrs = ConvAttrs<1>;
using Conv2DAttrs = ConvAttrs<2>;
using Conv3DAttrs = ConvAttrs<3>;

/*!
 * \brief nn.contrib_conv2d_winograd_weight_transform: F(tile_size x tile_size, 3 x 3)'s filter transform; stride 2:
 * the polyphase F(tile_size x tile_size, 2 x 2)'s (tvmlite/topi/nn/winograd.h).
 */
struct ConvWinogradWeightTransformAttrs : public AttrsNode {
  int64_t tile_size = 4;
  int64_t stride = 1;

  TVMLITE_DECLARE_ATTRS(ConvWinogradWeightTransformAttrs, "relay.attrs.ConvWinogradWeightTransformAttrs");
};

/*!
 * \brief nn.contrib_conv2d_winograd_without_weight_transform: Conv2DAttrs and the tile size; data NCHW{ic}c,
 * weight HWOI{oc}o (the transformed filters, (alpha, alpha, O / oc, C, oc)), output NCHW{oc}c.
 */
struct Conv2DWinogradAttrs : public AttrsNode {
  int64_t tile_size = 4;
  Array<int64_t> strides;
  Array<int64_t> padding;
  Array<int64_t> dilation;
  int64_t groups = 1;
  Optional<int64_t> channels;
  Array<int64_t> kernel_size;
  std::string data_layout = "NCHW16c";
  std::string kernel_layout = "HWOI16o";
  std::string out_layout = "";
  Optional<DataType> out_dtype;

  TVMLITE_DECLARE_ATTRS(Conv2DWinogradAttrs, "relay.attrs.Conv2DWinogradAttrs");
};

/*!
 * \brief nn.deformable_conv2d(data, offset, weight) and nn.modulated_deformable_conv2d(data, offset, weight, mask)
 * (ONNX DeformConv): conv2d whose kernel taps sample data bilinearly at positions moved by offset (zero outside).
 *   data (B, C, H, W), weight (O, C / groups, KH, KW),
 *   offset (B, deformable_groups * 2 * KH * KW, OH, OW): (dy, dx) per tap, per group of C / deformable_groups
 *   channels; mask (B, deformable_groups * KH * KW, OH, OW) scales each tap's sample (DCNv2).
 */
struct DeformableConv2DAttrs : public AttrsNode {
  Array<int64_t> strides;
  Array<int64_t> padding;
  Array<int64_t> dilation;
  int64_t deformable_groups = 1;
  int64_t groups = 1;
  Optional<int64_t> channels;
  Array<int64_t> kernel_size;
  std::string data_layout = "NCHW";
  std::string kernel_layout = "OIHW";
  std::string out_layout = "";
  Optional<DataType> out_dtype;

  TVMLITE_DECLARE_ATTRS(DeformableConv2DAttrs, "relay.attrs.DeformableConv2DAttrs");
};

/*!
 * \brief nn.conv{N}d_transpose: data (B, C, *S), weight (C, O / groups, *K) IO...; out (B, O, *S_out) with
 * S_out[i] = (S[i] - 1) * strides[i] - pad_begin[i] - pad_end[i] + dilation[i] * (K[i] - 1) + 1
 *            + output_padding[i].
 */
template <int N>
struct ConvTransposeAttrs : public AttrsNode {
  Array<int64_t> strides;
  Array<int64_t> padding;
  Array<int64_t> dilation;
  Array<int64_t> output_padding;  // empty (all 0), one value or N values, each >= 0: zeros appended at the end
  int64_t groups = 1;
  Optional<int64_t> channels;
  Array<int64_t> kernel_size;
  std::string data_layout = ChannelFirstLayout(N);
  std::string kernel_layout = ConvTransposeKernelLayout(N);
  std::string out_layout = "";
  Optional<DataType> out_dtype;

  TVMLITE_DECLARE_ATTRS(ConvTransposeAttrs, N == 1   ? "relay.attrs.Conv1DTransposeAttrs"
                                            : N == 2 ? "relay.attrs.Conv2DTransposeAttrs"
                                                     : "relay.attrs.Conv3DTransposeAttrs");
};

/*! \brief Which pooling a windowed pool op computes; selects the attrs fields it has. */
enum class PoolKind { kMax, kMaxArgmax, kAvg, kLp };

/*!
 * \brief nn.{max,avg,lp}_pool{N}d and nn.max_pool{N}d_with_argmax: data (B, C, *S) -> (B, C, *S_out) with
 * S_out[i] = floor_or_ceil((S[i] + pad_begin[i] + pad_end[i] - dilation[i] * (pool_size[i] - 1) - 1)
 *                          / strides[i]) + 1,
 * where with ceil_mode a last window starting past the input and its begin padding is dropped (ONNX, PyTorch).
 * Fields by kind: count_include_pad (avg, lp), p (lp), storage_order (argmax: 0 row-major, 1 column-major
 * flat indices).
 */
template <PoolKind K, int N>
struct PoolAttrs : public AttrsNode {
  Array<int64_t> pool_size;
  Array<int64_t> strides;
  Array<int64_t> dilation;
  Array<int64_t> padding;
  std::string layout = ChannelFirstLayout(N);
  std::string out_layout = "";
  bool ceil_mode = false;
  bool count_include_pad = false;  // avg and lp only
  double p = 2.0;                  // lp only
  int64_t storage_order = 0;       // argmax only

  static constexpr const char* KeyOf() {
    if constexpr (K == PoolKind::kMax) {
      return N == 1   ? "relay.attrs.MaxPool1DAttrs"
             : N == 2 ? "relay.attrs.MaxPool2DAttrs"
                      : "relay.attrs.MaxPool3DAttrs";
    } else if constexpr (K == PoolKind::kMaxArgmax) {
      return N == 1   ? "relay.attrs.MaxPool1DArgmaxAttrs"
             : N == 2 ? "relay.attrs.MaxPool2DArgmaxAttrs"
                      : "relay.attrs.MaxPool3DArgmaxAttrs";
    } else if constexpr (K == PoolKind::kAvg) {
      return N == 1   ? "relay.attrs.AvgPool1DAttrs"
             : N == 2 ? "relay.attrs.AvgPool2DAttrs"
                      : "relay.attrs.AvgPool3DAttrs";
    } else {
      return N == 1 ? "relay.attrs.LPPool1DAttrs" : N == 2 ? "relay.attrs.LPPool2DAttrs" : "relay.attrs.LPPool3DAttrs";
    }
  }
  TVMLITE_DECLARE_ATTRS(PoolAttrs, KeyOf());
};

/*!
 * \brief nn.global_{avg,max,lp}_pool: data (B, C, *S) of any spatial rank >= 1 -> (B, C, 1, ..., 1).
 * p is read by the lp pool only.
 */
struct GlobalPoolAttrs : public AttrsNode {
  std::string layout = "";  // "" or the channel-first layout of the input's rank
  double p = 2.0;

  TVMLITE_DECLARE_ATTRS(GlobalPoolAttrs, "relay.attrs.GlobalPoolAttrs");
};

/*!
 * \brief nn.max_unpool{N}d(data, indices): the inverse of max pooling (ONNX MaxUnpool). data and indices
 * (B, C, *S); every value is written at its flat index into a zero tensor of (B, C, *inferred) with
 * inferred[i] = (S[i] - 1) * strides[i] - pad_begin[i] - pad_end[i] + pool_size[i], which is then placed in the
 * top-left corner of (B, C, *output_size) when output_size is given (each >= inferred).
 */
template <int N>
struct MaxUnpoolAttrs : public AttrsNode {
  Array<int64_t> pool_size;
  Array<int64_t> strides;
  Array<int64_t> padding;
  Array<int64_t> output_size;  // empty: the inferred size; else N values

  TVMLITE_DECLARE_ATTRS(MaxUnpoolAttrs, N == 1   ? "relay.attrs.MaxUnpool1DAttrs"
                                        : N == 2 ? "relay.attrs.MaxUnpool2DAttrs"
                                                 : "relay.attrs.MaxUnpool3DAttrs");
};

/*!
 * \brief nn.col2im(data) (ONNX Col2Im): data (B, C * prod(block_shape), L) of sliding-block columns -> the image
 * (B, C, *image_shape), overlapping blocks summed. L must be the number of blocks, prod over dims of
 * (image_shape[i] + pads - dilation[i] * (block_shape[i] - 1) - 1) / strides[i] + 1. Rank N = len(image_shape), 1-3.
 */
struct Col2ImAttrs : public AttrsNode {
  Array<int64_t> image_shape;
  Array<int64_t> block_shape;
  Array<int64_t> strides;
  Array<int64_t> dilation;
  Array<int64_t> padding;

  TVMLITE_DECLARE_ATTRS(Col2ImAttrs, "relay.attrs.Col2ImAttrs");
};

/*! \brief nn.dense: data (..., K), weight (units, K) -> (..., units). */
struct DenseAttrs : public AttrsNode {
  Optional<int64_t> units;
  Optional<DataType> out_dtype;

  TVMLITE_DECLARE_ATTRS(DenseAttrs, "relay.attrs.DenseAttrs");
};

/*!
 * \brief nn.matmul (numpy matmul: batch dims broadcast, a 1-D operand is a vector) and nn.batch_matmul
 * (x (B, M, K), y (B, N, K) with transpose_b, the batch broadcast when one side is 1). transpose_a / transpose_b
 * swap an operand's last two dims first (no effect on a 1-D operand).
 */
struct MatmulAttrs : public AttrsNode {
  Optional<DataType> out_dtype;
  bool transpose_a = false;
  bool transpose_b = false;

  TVMLITE_DECLARE_ATTRS(MatmulAttrs, "relay.attrs.MatmulAttrs");
};

struct BatchMatmulAttrs : public AttrsNode {
  Optional<DataType> out_dtype;
  bool transpose_a = false;
  bool transpose_b = true;

  TVMLITE_DECLARE_ATTRS(BatchMatmulAttrs, "relay.attrs.BatchMatmulAttrs");
};

/*! \brief nn.bias_add: data (..., C at axis, ...) plus bias (C,) broadcast along axis. */
struct BiasAddAttrs : public AttrsNode {
  int64_t axis = 1;

  TVMLITE_DECLARE_ATTRS(BiasAddAttrs, "relay.attrs.BiasAddAttrs");
};

/*! \brief einsum(Tuple of tensors): numpy's einsum equation, explicit ("ij,jk->ik") or implicit ("ij,jk"). */
struct EinsumAttrs : public AttrsNode {
  std::string equation;

  TVMLITE_DECLARE_ATTRS(EinsumAttrs, "relay.attrs.EinsumAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_NN_H_
