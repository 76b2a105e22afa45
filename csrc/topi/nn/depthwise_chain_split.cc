/*!
 * \file depthwise_chain_split.cc
 * \brief topi.nn.depthwise_chain_nchwc's channel-split path (RunSplit, depthwise_chain.h) and its policy,
 * DepthwiseChainSplit (topi.nn.depthwise_chain_split for the lowering).
 *
 * AVX-512; stages "expand,depthwise" with a 1x1 expand into blocks of 16, over a plane whose expanded tensor banding
 * leaves alone (DepthwiseChainSplit). Each image's expand channel blocks are dealt into groups of (at most) 2, each
 * thread takes a run of groups (see RunSplit) and, per group:
 *   1. expand: the group's output blocks over the whole plane, into the thread's scratch (25 KB at 14x14), the next
 *      group's weights fetched into L2 meanwhile;
 *   2. depthwise: the group's rows, from that scratch into out.
 * The expanded tensor is never written to memory, and no core reads lines of it the other wrote (as three nodes at
 * two threads, the depthwise read the expand's output across the cores). The project, which reads every channel of
 * each pixel, stays its own node.
 */
#include "depthwise_chain.h"

#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/nn/conv2d.h>
#include <tvmlite/topi/nn/depthwise.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <vector>

namespace tvmlite {
namespace topi {
namespace chain {
namespace {

/*!
 * \brief The scratch one item of the channel-split path may take: its expanded planes and the expand weights that
 * make them. A quarter of a 1 MB L2: the expand's input (every item reads the image's, up to ~100 KB at 14x14) and
 * the depthwise's output rows stream through the rest.
 */
constexpr int64_t kSplitBytes = int64_t(256) << 10;

}  // namespace

// A group's blocks are expanded over the whole h x w plane into per-thread scratch and their depthwise rows run from
// there: the expanded tensor is never written to memory, and no core reads lines of it the other wrote. Two blocks,
// as the expand conv's own register tile takes them (two weight vectors per broadcast input value), when their
// planes and weights fit kSplitBytes: 25 KB + 12 KB at 14x14 (the planes L1-hot for the depthwise), 100 KB at 28x28;
// else one. Balance over the threads is RunSplit's (balanced runs of blocks: an odd count costs at most one block).
// Groups of 3 to 18 blocks measured the same within 1% on MobileNetV2 at one and two threads.
int64_t DepthwiseChainSplit(int64_t in_channels, int64_t channels, int64_t h, int64_t w) {
  if (CpuIsa() != Isa::kAVX512 || in_channels <= 0 || channels <= 0 || channels % 16 != 0 || h <= 0 || w <= 0) {
    return 0;
  }
  // Banding's test for an expand without project reads only the expanded tensor's size.
  if (DepthwiseChainBand(channels, 16, h, w, h, w, 0, 1, true, false) > 0) return 0;
  using Wide = __int128;
  const Wide block_bytes = (Wide(h) * w + in_channels) * 16 * 4;  // one block's plane and its expand weights
  for (int64_t blocks : {2, 1}) {
    if (blocks * block_bytes <= kSplitBytes) return blocks;
  }
  return 0;
}

namespace {

/*! \brief Whether the expand is a 1x1 conv with stride 1, no padding and dilation 1. */
bool PointwiseExpand(const ChainConfig& cfg, const ChainShape& s) {
  const relay::Window<2>& ew = cfg.expand_window;
  for (int d = 0; d < 2; ++d) {
    if (ew.stride[d] != 1 || ew.dilation[d] != 1 || ew.pad_begin[d] != 0 || ew.pad_end[d] != 0) return false;
  }
  return s.EKH == 1 && s.EKW == 1;
}

/*! \brief What every group of one call of the channel-split path shares. */
struct Split {
  const ChainConfig* cfg;
  const ChainArgs* a;
  ChainShape s;
  int64_t group;                      // expand blocks per group
  FusedTail expand_tail;              // the expand's register tail (per-channel inputs from channel 0)
  const BoundEpilogue* expand_bound;  // or its program on each plane of the scratch; null when in registers
  DepthwiseRow row;                   // the depthwise rows' shape, bias and clamp
  const BoundEpilogue* dw_bound;      // the depthwise's program on out's rows when not in registers, or null
};

/*!
 * \brief Expand blocks [g0, g0 + blocks) of image n over the whole plane into exp (this thread's scratch), then
 * their depthwise rows from there into out; next: the expand weights of this thread's next group (next_blocks
 * blocks), fetched into L2 meanwhile, or null.
 */
void RunGroup(const Split& sp, float* exp, int64_t n, int64_t g0, int64_t blocks, const float* next,
              int64_t next_blocks) {
  const ChainShape& s = sp.s;
  const ChainArgs& a = *sp.a;
  const relay::Window<2>& win = sp.cfg->window;
  const int64_t L = 16, plane = s.H * s.W * L, out_plane = s.OH * s.OW * L, w_block = s.CB * s.ic * L;
  // 1. A 1x1 conv of `blocks` output blocks on their weights, the tail's per-channel inputs read from channel g0 * 16.
  const Conv2DWorkload wl = PointwiseRows(s.CB * s.ic, s.ic, blocks * L, L, s.H, s.W, 0, 0);
  const Conv2DPlan plan = PlanConv2D(wl, 16, 32, 2);
  FusedTail tail = sp.expand_tail;
  for (int k = 0; k < 2; ++k) {
    if (tail.add_kind[k] == FusedTail::kChannel) tail.add[k] += g0 * L;
  }
  const bool in_registers = sp.expand_bound == nullptr && !sp.cfg->epilogue[kExpand].empty();
  Conv2DTensors io{a.x + n * s.CB * s.H * s.W * s.ic, a.w[kExpand] + g0 * w_block, exp, nullptr, nullptr,
                   in_registers ? &tail : nullptr};
  io.next_weight = next, io.next_weight_floats = next_blocks * w_block;
  Conv2DNCHWcAVX512(wl, plan, io, 0, plan.num_items);
  for (int64_t p = 0; p < blocks && sp.expand_bound != nullptr; ++p) {
    sp.expand_bound->ApplyTo(exp + p * plane, (g0 + p) * plane, plane);  // at the expanded tensor's indices
  }
  // 2. Their depthwise rows, from the scratch (L1 / L2) into out.
  for (int64_t p = 0; p < blocks; ++p) {
    DepthwiseRow row = sp.row;
    row.in = exp + p * plane;
    row.weight = a.w[kDepthwise] + (g0 + p) * s.KH * s.KW * L;
    if (row.bias != nullptr) row.bias += (g0 + p) * L;
    float* out = a.y + (n * s.EB + g0 + p) * out_plane;
    for (int64_t oh = 0; oh < s.OH; ++oh) {
      row.ih0 = oh * win.stride[0] - win.pad_begin[0];
      row.out = out + oh * s.OW * L;
      DepthwiseRowAVX512(row);
    }
    if (sp.dw_bound != nullptr) sp.dw_bound->Apply(a.y, (n * s.EB + g0 + p) * out_plane, out_plane);
  }
}

}  // namespace

// Each thread takes a run of groups of (at most `group`) expand channel blocks and walks it a group at a time
// (RunGroup): their expand over the whole plane into its scratch, then their depthwise rows into out. Every value is
// computed by the stage kernels' own loops, in their order, with their epilogues: the output is theirs, bit for bit.
bool RunSplit(const ChainConfig& cfg, const ChainArgs& a, const ChainShape& s) {
  if (!cfg.has[kExpand] || cfg.has[kProject] || s.ec != 16 || !PointwiseExpand(cfg, s)) return false;
  Split sp{};
  sp.cfg = &cfg, sp.a = &a, sp.s = s;
  sp.group = DepthwiseChainSplit(s.CB * s.ic, s.EB * 16, s.H, s.W);
  if (sp.group == 0) return false;
  // The expand's epilogue in registers, or the interpreter on each expanded plane (inputs constant over the rows
  // and columns only: the scratch holds a few planes of one image).
  BoundEpilogue expand_bound, dw_bound;
  if (!StageTail(cfg.epilogue[kExpand], a.epi_inputs[kExpand], {s.N, s.EB, s.H, s.W, 16}, &sp.expand_tail) ||
      sp.expand_tail.add_kind[0] == FusedTail::kFull || sp.expand_tail.add_kind[1] == FusedTail::kFull) {
    if (!PerChannel(a.epi_inputs[kExpand])) return false;
    expand_bound = cfg.epilogue[kExpand].Bind({1, s.EB, s.H, s.W, 16}, a.epi_inputs[kExpand], kName);
    sp.expand_bound = &expand_bound;
  }
  // The depthwise's: the rows' bias and clamp, or the interpreter on out's rows.
  const relay::Window<2>& win = cfg.window;
  sp.row = DepthwiseRowShape(s.H, s.W, 16, s.OW, s.KH, s.KW, win.stride[1], win.dilation[0], win.dilation[1],
                             win.pad_begin[1]);
  const std::vector<int64_t> dw_shape{s.N, s.EB, s.OH, s.OW, 16};
  FusedTail dw_tail;
  if (!StageTail(cfg.epilogue[kDepthwise], a.epi_inputs[kDepthwise], dw_shape, &dw_tail) ||
      !DepthwiseRowTail(dw_tail, &sp.row.bias, &sp.row.lo, &sp.row.hi)) {
    sp.row.bias = nullptr;
    dw_bound = cfg.epilogue[kDepthwise].Bind(dw_shape, a.epi_inputs[kDepthwise], kName);
    sp.dw_bound = &dw_bound;
  }
  // Items: (image, group of blocks), each image's blocks dealt into balanced groups of at most `group` (36 blocks
  // in groups of at most 5: four of 4, four of 5). The pool gives each thread a contiguous range of them, in pieces
  // it runs in order, and lets a thread that is done take the last pieces of another's range.
  const int64_t groups = (s.EB + sp.group - 1) / sp.group;
  const int64_t w_block = s.CB * s.ic * 16;
  runtime::ParallelFor(s.N * groups, [&](int64_t begin, int64_t end) {
    // This thread's scratch, grown as needed and kept: the executor runs the same chains every run.
    static thread_local std::vector<float> split_scratch;
    float* exp = AlignedScratch(&split_scratch, sp.group * s.H * s.W * 16);  // 64-byte aligned: a pixel a line
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / groups, g = item % groups;
      const int64_t b0 = s.EB * g / groups, b1 = s.EB * (g + 1) / groups;
      // The next group's expand weights are prefetched while this one runs, when this thread runs it next.
      const bool next = item + 1 < end && g + 1 < groups;
      const int64_t next_blocks = next ? s.EB * (g + 2) / groups - b1 : 0;
      RunGroup(sp, exp, n, b0, b1 - b0, next ? a.w[kExpand] + b1 * w_block : nullptr, next_blocks);
    }
  });
  return true;
}

}  // namespace chain
}  // namespace topi
}  // namespace tvmlite
