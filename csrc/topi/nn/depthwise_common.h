/*!
 * \file depthwise_common.h
 * \brief What topi.nn.depthwise_conv2d_nchwc (depthwise_conv2d.cc) and topi.nn.depthwise_conv3d_ncdhwc
 * (depthwise_conv3d.cc) share: their attrs (templated over the spatial rank), and, compiled once
 * (depthwise_common.cc), the checks of data and weight against them and the epilogue read as the rows' register
 * tail. Each file keeps its own window attrs, data_layout parser, output sizes and row loop.
 *
 *   DepthwiseConfig<3> cfg = ReadDepthwiseConfig<3>(attrs, window, DataBlock);   // in the factory
 *   DepthwiseDims d = CheckDepthwiseInputs(kName, cfg, data, weight);              // per call: N, CB, c, D, H, W, KD..
 *
 * Shapes, with S the spatial dims ((H, W) or (D, H, W)) and K the kernel's ((KH, KW) or (KD, KH, KW)):
 *   data   (N, C/c, S..., c)      or (N, C, S...)   (plain: c = 1)
 *   weight (C/c, 1, K..., 1, c)   or (C, 1, K...)   (channel multiplier 1)
 */
#ifndef TVMLITE_TOPI_NN_DEPTHWISE_COMMON_H_
#define TVMLITE_TOPI_NN_DEPTHWISE_COMMON_H_

#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/depthwise.h>

#include <vector>

#include "window_attrs.h"

namespace tvmlite {
namespace topi {

/*! \brief A depthwise kernel's attrs, validated once by its factory. */
template <int kDims>
struct DepthwiseConfig {
  relay::Window<kDims> window;
  int64_t groups;  // -1: not given
  std::vector<int64_t> kernel_size;
  int64_t data_block;  // from data_layout: -1 not given, 0 plain, else the block
  Isa isa;
  Epilogue epilogue;
};

/*!
 * \brief The config of attrs, the window already read (the 3-D kernel also takes a single int per attr): groups,
 * kernel_size, data_layout (read by data_block, which names the layouts it takes), out_dtype and the epilogue.
 */
template <int kDims>
DepthwiseConfig<kDims> ReadDepthwiseConfig(const KernelAttrs& attrs, const relay::Window<kDims>& window,
                                           int64_t (*data_block)(const KernelAttrs&)) {
  DepthwiseConfig<kDims> cfg;
  cfg.window = window;
  cfg.groups = attrs.GetInt("groups", -1);
  TVMLITE_CHECK_KIND(cfg.groups == -1 || cfg.groups >= 1, ValueError)
      << attrs.kernel() << ": groups = " << cfg.groups << " must be >= 1";
  cfg.kernel_size = attrs.GetInts("kernel_size", {});
  cfg.data_block = data_block(attrs);
  CheckFloat32OutDtype(attrs);
  cfg.isa = CpuIsa();
  cfg.epilogue = Epilogue::Parse(attrs.GetString("epilogue", ""), attrs.kernel());
  return cfg;
}

/*! \brief The dims of one call's data and weight. */
struct DepthwiseDims {
  bool blocked;          // NC{S}{c}c, else plain (c = 1)
  int64_t N, CB, c, C;   // C = CB * c
  int64_t in[3];         // the input's spatial dims S (the first dims of them)
  int64_t kernel[3];     // the kernel's K
};

/*!
 * \brief data and weight of a dims-D depthwise convolution checked against each other and the attrs; ValueError
 * naming kernel. Compiled once (depthwise_common.cc): the messages are built on the error paths only.
 */
DepthwiseDims CheckDepthwiseInputs(const char* kernel, int dims, int64_t groups,
                                   const std::vector<int64_t>& kernel_size, int64_t data_block,
                                   const TensorArg& data, const TensorArg& weight);

template <int kDims>
DepthwiseDims CheckDepthwiseInputs(const char* kernel, const DepthwiseConfig<kDims>& cfg, const TensorArg& data,
                                   const TensorArg& weight) {
  static_assert(kDims == 2 || kDims == 3, "depthwise convolutions are 2-D or 3-D");
  return CheckDepthwiseInputs(kernel, kDims, cfg.groups, cfg.kernel_size, cfg.data_block, data, weight);
}

/*!
 * \brief The epilogue, bound to the call's inputs, as the rows' register tail when it is a per-channel bias then
 * relu / clip (MatchFusedTail, DepthwiseRowTail): then true, *bias (C floats, or nullptr), *lo and *hi. False: the
 * interpreter runs it on each finished row, and *bias is nullptr, *lo / *hi -inf / inf.
 */
bool DepthwiseFusedTail(const Epilogue& epilogue, const std::vector<runtime::NDArray>& inputs,
                        const std::vector<int64_t>& out_shape, bool blocked, const float** bias, float* lo,
                        float* hi);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_DEPTHWISE_COMMON_H_
