/*!
 * \file tvmlite/topi/nn/conv2d.h
 * \brief The blocked conv2d (topi.nn.conv2d_nchwc): its workload and the ISA entry points it dispatches to.
 *
 *   Conv2DWorkload wl = ...;                             // built and checked per call by conv2d_nchwc.cc
 *   Conv2DPlan plan = PlanConv2D(wl, 16, 32, 2);         // the register tile and the parallel grid
 *   ... on the pool, items claimed in batches:  Conv2DNCHWcAVX512(wl, plan, io, begin, end);
 *
 * Layouts (shapes as the kernel reads them; 4-D NCHW / OIHW tensors are the same with blocks of 1):
 *   data    (N, C / ic, H, W, ic)                    NCHW{ic}c
 *   weight  (O / oc, C / groups / ic, KH, KW, ic, oc) OIHW{ic}i{oc}o
 *   out     (N, O / oc, OH, OW, oc)                  NCHW{oc}c
 * with OH = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) / stride_h + 1 (OW likewise). Group g reads
 * input channels [g * C / groups, (g + 1) * C / groups) and writes output channels [g * O / groups, ...); C / groups
 * is a multiple of ic and O / groups of oc, so a channel block never straddles two groups.
 *
 * A 3-D convolution (topi.nn.conv3d) is the same workload with a depth, every plane above one depth slice:
 *   data    (N, C / ic, D, H, W, ic)                     NCDHW{ic}c
 *   weight  (O / oc, C / groups / ic, KD, KH, KW, ic, oc) OIDHW{ic}i{oc}o
 *   out     (N, O / oc, OD, OH, OW, oc)                  NCDHW{oc}c
 * Output slice od is the sum over kd of the 2-D convs of input slice od * stride_d - pad_front + kd * dilation_d
 * with weight slice kd: the register tiles walk kd as one more loop around kh, so the sum stays in registers and
 * the fused tail is applied once. A 2-D conv has depth 1 (the defaults).
 *
 * The ISA entry points compute items [begin, end) of plan's grid; their inner loops never test a border. Depth
 * padding is never copied: each output slice runs only the kd whose input slice is inside. For a conv that pads H
 * or W, the caller hands the AVX2 and ymm paths a zero-padded copy of the input (one pass over it, against
 * O * KD * KH * KW multiply-adds per input value) and the unpadded workload over it. The AVX-512 path reads a
 * padded workload's input in place instead (plan.pad_in_kernel): the output columns whose window is inside the
 * input's width ("interior", [col_lo, col_hi)) skip the kernel rows that fall in the top or bottom padding (as the
 * depth taps in the front / back padding), and the few border columns read io.edge, a zero-padded copy of only the
 * input columns they reach:
 *   edge    (N, C / ic, D, H + pad_top + pad_bottom, edge_left + edge_right, ic): columns [0, edge_left) and
 *           [edge_right_start, edge_right_start + edge_right) of the zero-padded input (padded column p holds input
 *           column p - pad_left); D = 1 for a 2-D conv.
 * A copy of the whole input, written by one core and read by both, cost 4-11% of ResNet-18's stride-2 convs at two
 * threads (the lines moving between the cores' L2s); the edge strips are 2-15% of it. The entry points hold no
 * state.
 */
#ifndef TVMLITE_TOPI_NN_CONV2D_H_
#define TVMLITE_TOPI_NN_CONV2D_H_

#include <tvmlite/topi/fused_tail.h>
#include <tvmlite/topi/isa.h>

#include <cstdint>

namespace tvmlite {
namespace topi {

/*! \brief One convolution's parameters, every value normalised (plain data: no std:: types cross ISA files). */
struct Conv2DWorkload {
  int64_t batch = 0;
  int64_t in_channels = 0, in_height = 0, in_width = 0, in_block = 1;      // C, H, W, ic
  int64_t out_channels = 0, out_height = 0, out_width = 0, out_block = 1;  // O, OH, OW, oc
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t groups = 1;
  // The depth of a 3-D conv (1 / 0 for a 2-D one). pad_front / pad_back stay in the workload the ISA paths get.
  int64_t in_depth = 1, out_depth = 1, kernel_d = 1, stride_d = 1, dilation_d = 1, pad_front = 0, pad_back = 0;
  // Floats between consecutive channel-block planes, when the tensor is a window of a larger one (a band of rows
  // of a taller image: the depthwise chain's stages); 0: dense, H * W * ic (input) and OH * OW * oc (output).
  int64_t in_plane_stride = 0, out_plane_stride = 0;
};

/*! \brief Run on out[begin, begin + n) (a flat index into the output) after it is written: the fused epilogue. */
using Conv2DEpilogueFn = void (*)(void* ctx, float* out, int64_t begin, int64_t n);

/*! \brief The tensors of one call. */
struct Conv2DTensors {
  const float* data;
  const float* weight;
  float* out;
  Conv2DEpilogueFn epilogue;  // null when there is none (or when tail does all of it)
  void* epilogue_ctx;
  const FusedTail* tail = nullptr;  // the epilogue in registers (fast paths), or null
  const float* edge = nullptr;      // the border columns' input when plan.pad_in_kernel (layout above)
  // Weights the caller's next call reads (next_weight_floats of them: the depthwise chain's next group of expand
  // blocks), fetched into L2 over this call's items as the kernel fetches its own next block group's (a model's late
  // layers' weights come from L3 or memory). The AVX-512 path's unchunked plans; null: none.
  const float* next_weight = nullptr;
  int64_t next_weight_floats = 0;
};

/*!
 * \brief How a fast path cuts the work: items are (n, group of out_blocks_per_item output blocks, output depth
 * slice, tile_rows output rows) with the rows fastest, so a thread's consecutive items reuse the same weights. A 1x1
 * stride-1 unpadded conv is a GEMM over pixels: its "rows" are runs of row_length pixels of the flattened OH * OW
 * plane.
 * A register tile covers OB blocks x tile_rows rows x T columns (T <= tile_width; a row's tiles are balanced).
 */
struct Conv2DPlan {
  int64_t out_blocks_per_item = 1;  // OB: output channel blocks one register tile covers
  int64_t tile_width = 1;           // T: the widest tile (output columns)
  int64_t tile_rows = 1;            // output rows one register tile covers (2 for narrow maps: 7x7)
  bool flat_pixels = false;         // 1x1, stride 1, no padding: rows are runs of the flattened plane
  // Narrow maps on the 8-lane paths with tiles of at most 8 columns (7 columns: tiles of 4 + 3 of 6): rows are runs
  // of the flattened plane too, each tile T consecutive pixels of it, however many output rows they span, each with
  // the address of its own input window.
  bool gather_pixels = false;
  int64_t rows = 0;        // rows per (n, block group): OH, or ceil(OH * OW / row_length)
  int64_t row_length = 0;  // OW, or the run length when flat_pixels or gather_pixels
  int64_t num_items = 0;   // batch * block groups * OD * ceil(rows / tile_rows)
  // Input channel blocks per pass. Below the group's count, a small map whose weights overflow L1 is computed in
  // passes over the input channels (partial sums in out), each item a (n, block group, od) plane or a part of its
  // rows (plane_parts of them: at least 16 items, so two threads' last items balance), so one pass's weights serve
  // the item's rows from L1. Then num_items = batch * block groups * OD * plane_parts.
  int64_t cb_chunk = 0;
  int64_t plane_parts = 1;
  // A workload padded in H or W read in place (borders: the AVX-512 path), when at least one output column's window
  // is inside the input's width: columns [col_lo, col_hi) read the input, the others io.edge, edge_left + edge_right
  // columns wide (layout above). Otherwise (and on a workload unpadded in H and W) col_lo = 0, col_hi = out_width,
  // no edge.
  bool pad_in_kernel = false;
  int64_t col_lo = 0, col_hi = 0;
  int64_t edge_left = 0, edge_right = 0, edge_right_start = 0;
};

/*!
 * \brief The plan for a fast path whose vector registers hold `lanes` floats and that has `num_regs` of them;
 * max_tile_rows: 2 when the path has two-row tiles; borders: the path reads a padded workload's input in place
 * (else the workload must be unpadded in H and W: the caller pads the input and plans the unpadded conv over the
 * copy); threads: the threads that will share the items (a flat 1x1 conv's runs are cut so that they balance).
 */
Conv2DPlan PlanConv2D(const Conv2DWorkload& wl, int lanes, int num_regs, int max_tile_rows, bool borders = false,
                      int64_t threads = 1);

/*!
 * \brief The floats of wl's zero-padded input (the fast paths' input), or -1 when the padding reaches so far beyond
 * the input that the copy would be the cost (the portable path runs then).
 */
int64_t Conv2DPaddedSize(const Conv2DWorkload& wl);
/*!
 * \brief Copy data into dst (Conv2DPaddedSize(wl) floats) zero-padded, in parallel when large; the workload of the
 * unpadded conv over it (wl itself, nothing copied, when wl does not pad).
 */
Conv2DWorkload PadConv2DInput(const Conv2DWorkload& wl, const float* data, float* dst);

/*! \brief AVX-512 path: out_block 16, any in_block; H / W padding read in place when plan.pad_in_kernel (above). */
void Conv2DNCHWcAVX512(const Conv2DWorkload& wl, const Conv2DPlan& plan, const Conv2DTensors& io, int64_t begin,
                       int64_t end);
/*! \brief AVX2 + FMA path: out_block 8 or 16 (two ymm halves), any in_block; no padding; tile_rows 1; up to 3 output
 * blocks per tile (of 8 channels). */
void Conv2DNCHWcAVX2(const Conv2DWorkload& wl, const Conv2DPlan& plan, const Conv2DTensors& io, int64_t begin,
                     int64_t end);
/*! \brief The AVX2 path compiled for 1x1 kernels (x86/avx2/conv2d_nchwc_1x1.cc: the same tiles, scheduled for register
 * pressure); any workload the AVX2 path takes. */
void Conv2DNCHWcAVX2Pointwise(const Conv2DWorkload& wl, const Conv2DPlan& plan, const Conv2DTensors& io, int64_t begin,
                              int64_t end);
/*!
 * \brief AVX-512VL path for out_block 8 (or 16 as two ymm halves): the AVX2 path's ymm tiles with 32 registers
 * (plan for 8 lanes, 32 registers, tile_rows 1), up to 3 output blocks per tile; any in_block; no padding.
 */
void Conv2DNCHWcAVX512Ymm(const Conv2DWorkload& wl, const Conv2DPlan& plan, const Conv2DTensors& io, int64_t begin,
                          int64_t end);

using Conv2DFn = void (*)(const Conv2DWorkload&, const Conv2DPlan&, const Conv2DTensors&, int64_t, int64_t);

/*! \brief An ISA entry point and the PlanConv2D arguments it takes. */
struct Conv2DFastPath {
  Conv2DFn fn = nullptr;  // null: no vector path takes this output block on this ISA
  int lanes = 0, regs = 0, max_tile_rows = 1;
  bool borders = false;  // reads a padded workload's input in place (PlanConv2D's borders)
};

/*!
 * \brief The vector path for output blocks of out_block channels under isa (fn null when there is none); pointwise:
 * the conv's kernel is 1x1 (1x1x1), which AVX2 runs from its build for 1x1 kernels.
 */
Conv2DFastPath PickConv2DFastPath(int64_t out_block, Isa isa, bool pointwise);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_CONV2D_H_
