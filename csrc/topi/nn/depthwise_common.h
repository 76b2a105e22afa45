/*!
 * \file depthwise_common.h
 * \brief What topi.nn.depthwise_conv2d_nchwc (depthwise_conv2d.cc) and topi.nn.depthwise_conv3d_ncdhwc
 * (depthwise_conv3d.cc) share: their attrs (templated over the spatial rank), and, compiled once
 * (depthwise_common.cc), the checks of data and weight against them and the epilogue read as the rows' register
 * tail. Each file keeps its own window attrs, data_layout parser, output sizes and row loop.
 *
 *   DepthwiseConfig<3> cfg = ReadDepthwiseConfig<3>(attrs, window, DataBlock);   // in the factory
 *   DepthwiseCall call = ReadDepthwiseCall(kName, cfg, args);                      // per call: x, weight, y, dims
 *   DepthwiseOutput o = BindDepthwiseOutput(kName, cfg.epilogue, args, call.d, {OD, OH, OW});
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
  cfg.epilogue = attrs.GetEpilogue();
  return cfg;
}

/*! \brief The dims of one call's data and weight. */
struct DepthwiseDims {
  bool blocked;         // NC{S}{c}c, else plain (c = 1)
  int64_t N, CB, c, C;  // C = CB * c
  int64_t in[3];        // the input's spatial dims S (the first dims of them)
  int64_t kernel[3];    // the kernel's K
};

/*!
 * \brief data and weight of a dims-D depthwise convolution checked against each other and the attrs; ValueError
 * naming kernel. Compiled once (depthwise_common.cc): the messages are built on the error paths only.
 */
DepthwiseDims CheckDepthwiseInputs(const char* kernel, int dims, int64_t groups,
                                   const std::vector<int64_t>& kernel_size, int64_t data_block, const TensorArg& data,
                                   const TensorArg& weight);

/*! \brief One call's float32 tensors (args: data, weight, epilogue inputs..., out) and their checked dims. */
struct DepthwiseCall {
  const float* x;
  const float* weight;
  float* y;
  DepthwiseDims d;
};

template <int kDims>
DepthwiseCall ReadDepthwiseCall(const char* kernel, const DepthwiseConfig<kDims>& cfg, const KernelArgs& args) {
  static_assert(kDims == 2 || kDims == 3, "depthwise convolutions are 2-D or 3-D");
  TensorArg data = args.Input(0, "data"), weight = args.Input(1, "weight"), out = args.Output();
  DepthwiseCall call{data.Data<float>(), weight.Data<float>(), out.Data<float>(), {}};
  call.d = CheckDepthwiseInputs(kernel, kDims, cfg.groups, cfg.kernel_size, cfg.data_block, data, weight);
  return call;
}

/*! \brief A call's output, checked, and its epilogue: bound, and where it can, as the rows' register tail. */
struct DepthwiseOutput {
  std::vector<int64_t> shape;  // (N, C/c, S'..., c) or (N, C, S'...), S' the output's spatial dims
  BoundEpilogue bound;         // for the rows that do not run it in registers (all of them unless fused)
  bool fused;                  // the epilogue is a per-channel bias then relu / clip, run in the rows' registers:
  const float* bias;           //   the bias (C floats) or nullptr,
  float lo, hi;                //   the clamp (-inf / inf unless fused). The rows clamp as min(hi, max(lo, x)),
};  //   the interpreter's clip only when lo <= hi (DepthwiseRowTail checks).

/*!
 * \brief out checked to be out_spatial's output (blocked as the data), the epilogue bound to its inputs (args after
 * data and weight), and read as the rows' register tail when it is a per-channel bias then relu / clip
 * (MatchFusedTail, DepthwiseRowTail). ValueError naming kernel.
 */
DepthwiseOutput BindDepthwiseOutput(const char* kernel, const Epilogue& epilogue, const KernelArgs& args,
                                    const DepthwiseDims& d, const std::vector<int64_t>& out_spatial);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_DEPTHWISE_COMMON_H_
