/*!
 * \file depthwise_chain.h
 * \brief What the files of topi.nn.depthwise_chain_nchwc share (its overview, usage and shapes: depthwise_chain.cc):
 * the stages' config its factory parses, one call's tensors and checked dims, and the two paths that compute the
 * stages fused, each with the policy the lowering asks too: the banded path (depthwise_chain_banded.cc,
 * topi.nn.depthwise_chain_band) and the channel-split path (depthwise_chain_split.cc, topi.nn.depthwise_chain_split).
 *
 *   const ChainShape s = CheckShapes(cfg, a);                         // per call, in depthwise_chain.cc's Run
 *   if (!RunBanded(cfg, a, s) && !RunSplit(cfg, a, s)) RunStages(cfg, a, s);
 *
 * A path that does not apply returns false before it writes out; the stage kernels then run whole (RunStages).
 */
#ifndef TVMLITE_TOPI_NN_DEPTHWISE_CHAIN_H_
#define TVMLITE_TOPI_NN_DEPTHWISE_CHAIN_H_

#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/fused_tail.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/conv2d.h>

#include <cstdint>
#include <string>
#include <vector>

#include "window_attrs.h"

namespace tvmlite {
namespace topi {
namespace chain {

inline const std::string kName = "topi.nn.depthwise_chain_nchwc";
enum Stage { kExpand = 0, kDepthwise = 1, kProject = 2 };

/*! \brief The stages and their attrs, read once by the factory (ParseConfig). */
struct ChainConfig {
  bool has[3] = {false, true, false};
  relay::Window<2> window;         // the depthwise's
  relay::Window<2> expand_window;  // the expand's (stride 1, no padding for a 1x1 expansion)
  Epilogue epilogue[3];
  Function kernel[3];  // the stage kernels, for the unbanded path
};

/*! \brief One call's tensors (checked float32, contiguous): per stage its weight and epilogue inputs. */
struct ChainArgs {
  NDArray data, out;
  NDArray weight[3];
  std::vector<NDArray> epi_inputs[3];
  const float* x;  // the data pointers (byte offsets applied)
  float* y;
  const float* w[3];
};

/*! \brief The dims of one call, every tensor checked against the others. */
struct ChainShape {
  int64_t N, CB, XH, XW, ic;  // data
  int64_t EKH, EKW;           // the expand's kernel (1 x 1 without expand)
  int64_t H, W;               // the depthwise's input: the expand's output (data's without expand)
  int64_t EB, ec;             // the depthwise's channel blocks
  int64_t KH, KW, OH, OW;
  int64_t OB, oc;  // out's channel blocks (EB, ec without project)
};

// The paths' policies, which the lowering asks too (csrc/backend/fuse_depthwise_chains.cc).

/*!
 * \brief Output rows per band, or 0 when the banded path does not take the chain: channel blocks of `block` it has no
 * rows for (AVX-512 takes 16, its vectors; AVX2 8 or 16, one or two ymm a pixel; no other ISA any), or banding does
 * not pay (intermediates that fit L2). reach: the input rows a depthwise output row spans minus one,
 * (KH - 1) * dilation_h.
 */
int64_t DepthwiseChainBand(int64_t channels, int64_t block, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                           int64_t reach, int64_t stride_h, bool expand, bool project);

/*!
 * \brief Expand channel blocks (of 16) per group of the channel-split path (stages "expand,depthwise", the expand a
 * 1x1 conv with stride 1 and no padding), or 0 when it does not apply: not AVX-512, channels not in blocks of 16, an
 * expanded tensor that banding takes (DepthwiseChainBand: 1 MB or more), or a plane too large for one block's
 * scratch.
 */
int64_t DepthwiseChainSplit(int64_t in_channels, int64_t channels, int64_t h, int64_t w);

// The paths: each computes the stages fused where it applies, else returns false before writing out.

/*! \brief The banded path, when it applies (false: the caller runs the stages whole). */
bool RunBanded(const ChainConfig& cfg, const ChainArgs& a, const ChainShape& s);

/*!
 * \brief Stages "expand,depthwise" over planes below banding's threshold (DepthwiseChainSplit), when it applies
 * (false: the caller runs the stages whole).
 */
bool RunSplit(const ChainConfig& cfg, const ChainArgs& a, const ChainShape& s);

// What both paths use.

/*! \brief A 1x1 conv over `rows` rows of width `width`: a window of rows of a taller tensor (plane strides). */
inline Conv2DWorkload PointwiseRows(int64_t in_channels, int64_t ic, int64_t out_channels, int64_t oc, int64_t rows,
                                    int64_t width, int64_t in_plane, int64_t out_plane) {
  Conv2DWorkload wl;
  wl.batch = 1;
  wl.in_channels = in_channels, wl.in_block = ic, wl.in_height = rows, wl.in_width = width;
  wl.out_channels = out_channels, wl.out_block = oc, wl.out_height = rows, wl.out_width = width;
  wl.in_plane_stride = in_plane, wl.out_plane_stride = out_plane;
  return wl;
}

/*!
 * \brief A stage's epilogue as a register tail of out_shape: *tail stays empty (act identity, no adds) for the empty
 * program; false when the registers cannot run it.
 */
bool StageTail(const Epilogue& program, const std::vector<NDArray>& inputs, const std::vector<int64_t>& out_shape,
               FusedTail* tail);

/*! \brief Whether every epilogue input is constant over the batch, rows and columns (right-aligned to rank 5). */
bool PerChannel(const std::vector<NDArray>& inputs);

}  // namespace chain
}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_DEPTHWISE_CHAIN_H_
