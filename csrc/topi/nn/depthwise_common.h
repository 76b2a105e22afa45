/*!
 * \file depthwise_common.h
 * \brief What topi.nn.depthwise_conv2d_nchwc (depthwise_conv2d.cc) and topi.nn.depthwise_conv3d_ncdhwc
 * (depthwise_conv3d.cc) share, templated over the spatial rank: their attrs, the checks of data and weight against
 * them, and the epilogue read as the rows' register tail. Each file keeps its own window attrs, data_layout
 * parser, output sizes and row loop.
 *
 *   DepthwiseConfig<3> cfg = ReadDepthwiseConfig<3>(attrs, window, DataBlock);   // in the factory
 *   DepthwiseDims<3> d = CheckDepthwiseInputs(kName, cfg, data, weight);           // per call: N, CB, c, D, H, W, KD..
 *
 * Shapes, with S the spatial dims ((H, W) or (D, H, W)) and K the kernel's ((KH, KW) or (KD, KH, KW)):
 *   data   (N, C/c, S..., c)      or (N, C, S...)   (plain: c = 1)
 *   weight (C/c, 1, K..., 1, c)   or (C, 1, K...)   (channel multiplier 1)
 */
#ifndef TVMLITE_TOPI_NN_DEPTHWISE_COMMON_H_
#define TVMLITE_TOPI_NN_DEPTHWISE_COMMON_H_

#include <tvmlite/runtime/shape.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/depthwise.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "match_fused_tail.h"
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

[[noreturn]] inline void DepthwiseFailShape(const char* kernel, const char* what, const std::vector<int64_t>& shape,
                                            const std::string& expected) {
  std::ostringstream os;
  os << kernel << ": " << what << " has shape " << runtime::ShapeTuple(shape) << ", expected " << expected;
  TVMLITE_THROW(ValueError) << os.str();
}

/*! \brief The dims of one call's data and weight. */
template <int kDims>
struct DepthwiseDims {
  bool blocked;            // NC{S}{c}c, else plain (c = 1)
  int64_t N, CB, c, C;     // C = CB * c
  int64_t in[kDims];       // the input's spatial dims S
  int64_t kernel[kDims];   // the kernel's K
};

/*! \brief data and weight checked against each other and cfg; ValueError naming kernel. */
template <int kDims>
DepthwiseDims<kDims> CheckDepthwiseInputs(const char* kernel, const DepthwiseConfig<kDims>& cfg,
                                          const TensorArg& data, const TensorArg& weight) {
  static_assert(kDims == 2 || kDims == 3, "depthwise convolutions are 2-D or 3-D");
  const std::string spatial = kDims == 3 ? "D, H, W" : "H, W", taps = kDims == 3 ? "KD, KH, KW" : "KH, KW";
  const char* plain = kDims == 3 ? "NCDHW" : "NCHW";
  DepthwiseDims<kDims> d;
  d.blocked = data.ndim() == kDims + 3;
  if (data.ndim() != kDims + 2 && !d.blocked) {
    data.Fail("must be (N, C/c, " + spatial + ", c) or (N, C, " + spatial + "), got rank " +
              std::to_string(data.ndim()));
  }
  d.N = data.dim(0), d.CB = data.dim(1);
  for (int i = 0; i < kDims; ++i) d.in[i] = data.dim(2 + i);
  d.c = d.blocked ? data.dim(kDims + 2) : 1;
  d.C = d.CB * d.c;
  const int64_t CB = d.CB, c = d.c, C = d.C;
  if (cfg.data_block >= 0 && cfg.data_block != (d.blocked ? c : 0)) {
    data.Fail("does not match data_layout (block " + std::to_string(cfg.data_block) + "): its shape is " +
              std::to_string(data.ndim()) + "-D" + (d.blocked ? " with block " + std::to_string(c) : ""));
  }
  const std::vector<int64_t> ws = weight.shape();
  if (static_cast<int>(ws.size()) != (d.blocked ? kDims + 4 : kDims + 2)) {
    DepthwiseFailShape(kernel, "weight", ws,
                       d.blocked ? "(C/c, 1, " + taps + ", 1, c) for blocked data"
                                 : "(C, 1, " + taps + ") for " + plain + " data");
  }
  const int64_t out_channels = d.blocked ? ws[0] * ws.back() : ws[0];
  if (out_channels != C && C > 0 && out_channels % C == 0 && ws[1] == 1) {
    TVMLITE_THROW(ValueError) << kernel << ": channel multiplier " << out_channels / C
                              << " is not supported (weight has " << out_channels << " output channels for " << C
                              << " input channels; only multiplier 1)";
  }
  if (ws[0] != CB || ws[1] != 1 || (d.blocked && (ws[kDims + 2] != 1 || ws[kDims + 3] != c))) {
    DepthwiseFailShape(kernel, "weight", ws,
                       d.blocked ? "(" + std::to_string(CB) + ", 1, " + taps + ", 1, " + std::to_string(c) + ")"
                                 : "(" + std::to_string(C) + ", 1, " + taps + ")");
  }
  for (int i = 0; i < kDims; ++i) d.kernel[i] = ws[2 + i];
  if (cfg.groups >= 0 && cfg.groups != C) {
    TVMLITE_THROW(ValueError) << kernel << ": groups = " << cfg.groups << " must equal the channels (" << C
                              << ") of a depthwise convolution";
  }
  if (!cfg.kernel_size.empty() &&
      (cfg.kernel_size.size() != static_cast<size_t>(kDims) || !std::equal(d.kernel, d.kernel + kDims, cfg.kernel_size.begin()))) {
    std::ostringstream os;
    os << "kernel_size " << runtime::ShapeTuple(cfg.kernel_size);
    DepthwiseFailShape(kernel, "weight", ws, os.str());
  }
  return d;
}

/*!
 * \brief The epilogue, bound to the call's inputs, as the rows' register tail when it is a per-channel bias then
 * relu / clip (MatchFusedTail, DepthwiseRowTail): then true, *bias (C floats, or nullptr), *lo and *hi. False: the
 * interpreter runs it on each finished row, and *bias is nullptr, *lo / *hi -inf / inf.
 */
inline bool DepthwiseFusedTail(const Epilogue& epilogue, const std::vector<runtime::NDArray>& inputs,
                               const std::vector<int64_t>& out_shape, bool blocked, const float** bias, float* lo,
                               float* hi) {
  *bias = nullptr;
  *lo = -std::numeric_limits<float>::infinity(), *hi = std::numeric_limits<float>::infinity();
  std::vector<int64_t> channel_shape(out_shape.size(), 1);  // (1, C/c, 1.., c) or (1, C, 1..)
  channel_shape[1] = out_shape[1];
  if (blocked) channel_shape.back() = out_shape.back();
  FusedTail tail;
  return MatchFusedTail(epilogue, inputs, out_shape, channel_shape, &tail) && DepthwiseRowTail(tail, bias, lo, hi);
}

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_DEPTHWISE_COMMON_H_
