/*!
 * \file conv2d_winograd.cc
 * \brief topi.nn.conv2d_winograd_nchwc: a 3x3, stride-1 convolution by Winograd's F(m x m, 3 x 3) over blocked data,
 * the kernel of relay's nn.contrib_conv2d_winograd_without_weight_transform (the weights arrive transformed, folded
 * at build time). Also topi.nn.winograd_matrices (the transforms' matrices, for the relay references) and
 * topi.nn.conv2d_winograd_tile (when AlterOpLayout should choose it).
 *
 *   f = topi.nn.conv2d_winograd_nchwc({"tile_size": 4, "padding": [1, 1], "epilogue": "add r0 r0 in0"})
 *   f(data, weight, bias, out)
 *
 * Shapes: data (N, C / cb, H, W, cb); weight (alpha, alpha, O / ob, C, ob) ("HWOI{ob}o" of the transformed
 * (alpha, alpha, O, C)), alpha = tile_size + 2; out (N, O / ob, OH, OW, ob), OH = H + pad_top + pad_bottom - 2.
 *
 * Algorithm (tvmlite/topi/nn/winograd.h): input transform per (image, channel block, tile row) into V
 * [alpha^2][tiles][C]; alpha^2 GEMMs M[xi] = V[xi] U[xi], U[xi] being a packed (C, O) panel set as the GEMM driver
 * takes it (csrc/topi/nn/gemm.cc); output transform per (image, output block, tile row), then the epilogue over
 * those rows while they are in cache. The three phases run on the pool; V and M live in the calling thread's scratch.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/nn/gemm.h>
#include <tvmlite/topi/nn/winograd.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "window_attrs.h"

namespace tvmlite {
namespace topi {
namespace winograd {

#define TVMLITE_WINOGRAD_INPUT InputTransform
#define TVMLITE_WINOGRAD_OUTPUT OutputTransform
#include "winograd_transform.inc"

}  // namespace winograd

namespace {

const char kName[] = "topi.nn.conv2d_winograd_nchwc";

struct WinogradConfig {
  int64_t m;
  relay::Window<2> window;
  Epilogue epilogue;
};

/*! \brief Work items of about 2^16 floats touched: one launch per phase, enough items for every thread. */
int64_t MinItems(int64_t floats_per_item) {
  return std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, floats_per_item));
}

void Run(const WinogradConfig& cfg, const KernelArgs& args) {
  TensorArg data = args.Input(0, "data"), weight = args.Input(1, "weight"), out = args.Output();
  data.CheckNDim(5);
  weight.CheckNDim(5);
  const int64_t alpha = cfg.m + 2;
  winograd::Geometry g{};
  g.m = cfg.m, g.alpha = alpha;
  g.batch = data.dim(0), g.in_block = data.dim(4), g.in_channels = data.dim(1) * g.in_block;
  g.height = data.dim(2), g.width = data.dim(3);
  g.out_block = weight.dim(4), g.out_channels = weight.dim(2) * g.out_block;
  if (weight.dim(0) != alpha || weight.dim(1) != alpha || weight.dim(3) != g.in_channels || g.out_block < 1) {
    weight.Fail("must be (" + std::to_string(alpha) + ", " + std::to_string(alpha) + ", O / ob, " +
                std::to_string(g.in_channels) + ", ob) for tile_size " + std::to_string(cfg.m) + " and data " +
                "with " + std::to_string(g.in_channels) + " channels");
  }
  if (g.in_block > 64) data.Fail("has a channel block of " + std::to_string(g.in_block) + "; at most 64");
  if (g.out_block > 64) weight.Fail("has an output block of " + std::to_string(g.out_block) + "; at most 64");
  const relay::Window<2>& w = cfg.window;
  g.pad_top = w.pad_begin[0], g.pad_left = w.pad_begin[1];
  g.out_height = g.height + w.pad_begin[0] + w.pad_end[0] - 2;
  g.out_width = g.width + w.pad_begin[1] + w.pad_end[1] - 2;
  if (g.out_height < 1 || g.out_width < 1) {
    data.Fail("is too small for a 3x3 kernel with this padding (" + std::to_string(g.height) + "x" +
              std::to_string(g.width) + ")");
  }
  const std::vector<int64_t> want{g.batch, g.out_channels / g.out_block, g.out_height, g.out_width, g.out_block};
  out.CheckShape(want);
  BoundEpilogue bound = cfg.epilogue.Bind(want, args.Rest(2), kName);
  if (out.size() == 0 || g.in_channels == 0) {
    std::fill(out.Data<float>(), out.Data<float>() + out.size(), 0.0f);
    bound.Apply(out.Data<float>(), 0, out.size());
    return;
  }
  // V holds ~(alpha / m)^2 floats per padded input value: padding far beyond the input would make it the cost
  // (and an allocation of any size a caller asks for), as in conv2d_nchwc's padded copy.
  const __int128 padded = static_cast<__int128>(g.batch * g.in_channels) * (g.out_height + 2) * (g.out_width + 2);
  if (padded > 4 * static_cast<__int128>(data.size()) + (1 << 20)) {
    data.Fail("is padded far beyond its size (" + std::to_string(g.height) + "x" + std::to_string(g.width) +
              " to " + std::to_string(g.out_height + 2) + "x" + std::to_string(g.out_width + 2) +
              "); Winograd needs the padded input to stay within 4x the input");
  }
  g.tiles_h = (g.out_height + cfg.m - 1) / cfg.m, g.tiles_w = (g.out_width + cfg.m - 1) / cfg.m;
  g.tiles = g.batch * g.tiles_h * g.tiles_w;

  static thread_local std::vector<float> scratch;  // the calling thread's V and M, kept: the same convs every run
  const int64_t v_size = alpha * alpha * g.tiles * g.in_channels, m_size = alpha * alpha * g.tiles * g.out_channels;
  float* v = AlignedScratch(&scratch, v_size + m_size);  // M's rows (the GEMM's stores) on cache lines
  float* mm = v + v_size;
  const bool avx512 = CpuIsa() == Isa::kAVX512;
  const float* x = data.Data<float>();
  const float* u = weight.Data<float>();
  float* y = out.Data<float>();

  const int64_t in_items = g.batch * (g.in_channels / g.in_block) * g.tiles_h;
  runtime::ParallelFor(in_items, [&](int64_t b, int64_t e) {
    (avx512 ? winograd::InputTransformAVX512 : winograd::InputTransform)(g, x, v, b, e);
  }, MinItems(alpha * alpha * g.tiles_w * g.in_block));

  const BoundEpilogue none;
  const int64_t panel_set = g.out_channels * g.in_channels;  // floats of one U[xi]
  // Tile positions in parallel, each GEMM on one thread; small convs (a few us of GEMM) stay on the caller.
  const int64_t gemm_flops = 2 * g.tiles * g.in_channels * g.out_channels;
  runtime::ParallelFor(alpha * alpha, [&](int64_t b, int64_t e) {
    for (int64_t xi = b; xi < e; ++xi) {
      gemm::GemmPacked(v + xi * g.tiles * g.in_channels, g.in_channels, u + xi * panel_set, g.out_block, g.tiles,
                       g.out_channels, g.in_channels, mm + xi * g.tiles * g.out_channels, g.out_channels, none, 0);
    }
  }, std::max<int64_t>(1, (int64_t(1) << 19) / std::max<int64_t>(1, gemm_flops)));

  const int64_t out_items = g.batch * (g.out_channels / g.out_block) * g.tiles_h;
  const int64_t row_floats = g.out_width * g.out_block;
  runtime::ParallelFor(out_items, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      (avx512 ? winograd::OutputTransformAVX512 : winograd::OutputTransform)(g, mm, y, item, item + 1);
      if (bound.empty()) continue;
      const int64_t ty = item % g.tiles_h, plane = item / g.tiles_h;
      const int64_t rows = std::min(cfg.m, g.out_height - ty * cfg.m);
      bound.Apply(y, (plane * g.out_height + ty * cfg.m) * row_floats, rows * row_floats);
    }
  }, MinItems(alpha * alpha * g.tiles_w * g.out_block));
}

runtime::Array<Any> MatrixOf(const float* values, int rows, int cols) {
  runtime::Array<Any> out;
  for (int i = 0; i < rows; ++i) {
    runtime::Array<Any> row;
    for (int j = 0; j < cols; ++j) row.push_back(Any(static_cast<double>(values[i * cols + j])));
    out.push_back(Any(row));
  }
  return out;
}

runtime::Array<Any> MatrixOf(const double* values, int rows, int cols) {
  runtime::Array<Any> out;
  for (int i = 0; i < rows; ++i) {
    runtime::Array<Any> row;
    for (int j = 0; j < cols; ++j) row.push_back(Any(values[i * cols + j]));
    out.push_back(Any(row));
  }
  return out;
}

}  // namespace

TVMLITE_REGISTER_GLOBAL("topi.nn.conv2d_winograd_nchwc").set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kKernel = kName;
  KernelAttrs attrs(kKernel, attrs_in);
  WinogradConfig cfg;
  cfg.m = attrs.GetInt("tile_size", 4);
  TVMLITE_CHECK_KIND(cfg.m == 2 || cfg.m == 4, ValueError)
      << kKernel << ": tile_size must be 2 or 4, got " << cfg.m;
  cfg.window = KernelWindow(attrs);
  TVMLITE_CHECK_KIND(cfg.window.stride[0] == 1 && cfg.window.stride[1] == 1 && cfg.window.dilation[0] == 1 &&
                         cfg.window.dilation[1] == 1, ValueError)
      << kKernel << ": Winograd needs strides and dilation of 1";
  const std::vector<int64_t> ks = attrs.GetInts("kernel_size", {3, 3});
  TVMLITE_CHECK_KIND(ks == std::vector<int64_t>({3, 3}), ValueError)
      << kKernel << ": kernel_size must be (3, 3)";
  TVMLITE_CHECK_KIND(attrs.GetInt("groups", 1) == 1, ValueError) << kKernel << ": groups must be 1";
  CheckFloat32OutDtype(attrs);
  cfg.epilogue = Epilogue::Parse(attrs.GetString("epilogue", ""), kKernel);
  return MakeKernel(kKernel, cfg.epilogue.num_inputs() + 3, [cfg](const KernelArgs& args) { Run(cfg, args); });
});

TVMLITE_REGISTER_GLOBAL("topi.nn.winograd_matrices").set_body_typed([](int64_t tile_size) {
  TVMLITE_CHECK_KIND(tile_size == 2 || tile_size == 4, ValueError)
      << "topi.nn.winograd_matrices: tile_size must be 2 or 4, got " << tile_size;
  if (tile_size == 4) {
    return runtime::Array<Any>{Any(MatrixOf(&winograd::kAT4[0][0], 4, 6)), Any(MatrixOf(&winograd::kBT4[0][0], 6, 6)),
                               Any(MatrixOf(&winograd::kG4[0][0], 6, 3))};
  }
  return runtime::Array<Any>{Any(MatrixOf(&winograd::kAT2[0][0], 2, 4)), Any(MatrixOf(&winograd::kBT2[0][0], 4, 4)),
                             Any(MatrixOf(&winograd::kG2[0][0], 4, 3))};
});

/*!
 * \brief The tile size AlterOpLayout should use for a 3x3 stride-1 conv of these sizes, or 0 for the direct conv:
 * on AVX-512 with 16-channel blocks, F(4x4) from a 14x14 output plane (2-3x the direct conv at 56x56 .. 14x14), F(2x2)
 * for smaller planes of at least 7x7 with 128 or more input channels (1.2-1.5x; with fewer the GEMMs are too small).
 */
TVMLITE_REGISTER_GLOBAL("topi.nn.conv2d_winograd_tile")
    .set_body_typed([](int64_t in_channels, int64_t out_channels, int64_t out_height, int64_t out_width) -> int64_t {
      if (CpuIsa() != Isa::kAVX512 || in_channels % 16 != 0 || out_channels % 16 != 0) return 0;
      const int64_t plane = out_height * out_width;
      if (plane >= 14 * 14) return 4;
      return plane >= 7 * 7 && in_channels >= 128 ? 2 : 0;
    });

TVMLITE_REGISTER_OP("nn.contrib_conv2d_winograd_without_weight_transform")
    .set_attr<runtime::String>("FTVMLiteKernel", runtime::String("topi.nn.conv2d_winograd_nchwc"));

}  // namespace topi
}  // namespace tvmlite
