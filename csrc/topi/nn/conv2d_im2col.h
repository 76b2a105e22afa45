/*!
 * \file conv2d_im2col.h
 * \brief The im2col of a blocked 2-D conv's input, in the blocked layout, so that the conv runs as a 1x1 conv:
 *
 *   Im2ColCopy copy(wl, data, dst);       // dst: Im2ColCopy::Size(wl) floats
 *   copy.Copy(0, copy.rows);              // or its rows in batches from several threads (ParallelItems)
 *   Conv2DWorkload pointwise = copy.Pointwise();  // the 1x1 conv over dst, with wl's weights as they are
 *
 * Input channel block cb's kernel tap (kh, kw) becomes channel block (cb * KH + kh) * KW + kw of an OH x OW map:
 * the order of the blocked weights' (C / ic, KH, KW) axes, so the weights need no repacking, and the 1x1 conv's
 * multiply-adds run in the direct conv's order (the same sums, bit for bit). Padding is written as zeros.
 */
#ifndef TVMLITE_TOPI_NN_CONV2D_IM2COL_H_
#define TVMLITE_TOPI_NN_CONV2D_IM2COL_H_

#include <tvmlite/topi/nn/conv2d.h>

#include <algorithm>
#include <cstdint>

namespace tvmlite {
namespace topi {

struct Im2ColCopy {
  const Conv2DWorkload* wl = nullptr;  // a 2-D conv (in_depth == kernel_d == 1), padded or not
  const float* data = nullptr;
  float* dst = nullptr;
  int64_t rows = 0;   // (n, new channel block, oh): OW * ic floats each
  int64_t batch = 1;  // rows per claim: ~32 KB

  Im2ColCopy() = default;
  Im2ColCopy(const Conv2DWorkload& w, const float* src, float* out) : wl(&w), data(src), dst(out) {
    rows = w.batch * (w.in_channels / w.in_block) * w.kernel_h * w.kernel_w * w.out_height;
    batch = std::max<int64_t>(1, (int64_t(1) << 13) / std::max<int64_t>(1, w.out_width * w.in_block));
  }

  /*! \brief The floats of the copy of w's input. */
  static int64_t Size(const Conv2DWorkload& w) {
    return w.batch * w.in_channels * w.kernel_h * w.kernel_w * w.out_height * w.out_width;
  }

  /*! \brief The 1x1 conv over the copy: the same output, groups and weights. */
  Conv2DWorkload Pointwise() const {
    Conv2DWorkload p = *wl;
    p.in_channels = wl->in_channels * wl->kernel_h * wl->kernel_w;
    p.in_height = wl->out_height, p.in_width = wl->out_width;
    p.kernel_h = p.kernel_w = 1;
    p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 0;
    p.in_plane_stride = 0;
    return p;
  }

  void Copy(int64_t begin, int64_t end) const {
    if (begin >= end) return;
    const int64_t ic = wl->in_block, H = wl->in_height, W = wl->in_width, OH = wl->out_height, OW = wl->out_width;
    const int64_t KH = wl->kernel_h, KW = wl->kernel_w;
    const int64_t plane = wl->in_plane_stride ? wl->in_plane_stride : H * W * ic;
    // The row's (block, kh, kw, oh) are stepped, not divided out per row: a row is only OW * ic floats (7 x 8 for
    // ResNet's 7x7 maps), and four divisions a row took longer than its copy.
    int64_t oh = begin % OH, tap = begin / OH % (KH * KW), block = begin / OH / (KH * KW);  // block: n * C / ic + cb
    int64_t kh = tap / KW, kw = tap % KW;
    for (int64_t r = begin; r < end; ++r) {
      CopyRow(dst + r * OW * ic, data + block * plane, oh, kh, kw);
      if (++oh < OH) continue;
      oh = 0;
      if (++kw < KW) continue;
      kw = 0;
      if (++kh < KH) continue;
      kh = 0;
      ++block;
    }
  }

 private:
  /*! \brief Output row oh of tap (kh, kw) of one input channel block (src) into row. */
  void CopyRow(float* row, const float* src, int64_t oh, int64_t kh, int64_t kw) const {
    const int64_t ic = wl->in_block, H = wl->in_height, W = wl->in_width, OW = wl->out_width, sw = wl->stride_w;
    const int64_t ih = oh * wl->stride_h - wl->pad_top + kh * wl->dilation_h;
    if (ih < 0 || ih >= H) {
      std::fill(row, row + OW * ic, 0.0f);
      return;
    }
    src += ih * W * ic;
    // Output columns [lo, hi) read input column ow * sw + off; the others are padding.
    const int64_t off = kw * wl->dilation_w - wl->pad_left;
    const int64_t lo = std::min(OW, off >= 0 ? 0 : (-off + sw - 1) / sw);
    const int64_t hi = std::max(lo, std::min(OW, W - off <= 0 ? 0 : (W - off + sw - 1) / sw));
    std::fill(row, row + lo * ic, 0.0f);
    std::fill(row + hi * ic, row + OW * ic, 0.0f);
    if (sw == 1) {
      std::copy(src + (lo + off) * ic, src + (hi + off) * ic, row + lo * ic);
    } else if (ic == 8) {  // one vector move a pixel, not a call
      for (int64_t ow = lo; ow < hi; ++ow) {
        const float* s = src + (ow * sw + off) * 8;
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) row[ow * 8 + i] = s[i];
      }
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) std::copy_n(src + (ow * sw + off) * ic, ic, row + ow * ic);
    }
  }
};

}  // namespace topi
}  // namespace tvmlite

#endif  // TVMLITE_TOPI_NN_CONV2D_IM2COL_H_
