/*!
 * \file conv2d_winograd.cc
 * \brief topi.nn.conv2d_winograd_nchwc: a 3x3 convolution by Winograd's F(m x m, 3 x 3) over blocked data (stride 2:
 * F(m x m, 2 x 2) over the input's four parity phases, tvmlite/topi/nn/winograd.h),
 * the kernel of relay's nn.contrib_conv2d_winograd_without_weight_transform (the weights arrive transformed, folded
 * at build time). Also topi.nn.winograd_matrices (the transforms' matrices, for the relay references) and
 * topi.nn.conv2d_winograd_tile (when AlterOpLayout should choose it) and topi.nn.conv2d_winograd_tiles (the tiles a
 * conv whose output plane is known only at run time may take: tvmlite/topi/nn/winograd_tile.h).
 *
 *   f = topi.nn.conv2d_winograd_nchwc({"tile_size": 4, "padding": [1, 1], "epilogue": "add r0 r0 in0"})
 *   f(data, weight, bias, out)
 *
 * Shapes: data (N, C / cb, H, W, cb); weight (alpha, alpha, O / ob, C, ob) ("HWOI{ob}o" of the transformed
 * (alpha, alpha, O, C)), alpha = tile_size + 2; out (N, O / ob, OH, OW, ob), OH = H + pad_top + pad_bottom - 2.
 * Stride 2: alpha = tile_size + 1, weight (alpha, alpha, O / ob, 4C, ob), OH = (H + pad_top + pad_bottom - 3) / 2 + 1.
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
#include <tvmlite/topi/nn/winograd_tile.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "window_attrs.h"

namespace tvmlite {
namespace topi {
namespace winograd {

#define TVMLITE_WINOGRAD_INPUT InputTransform
#define TVMLITE_WINOGRAD_INPUT_S2 InputTransformS2
#define TVMLITE_WINOGRAD_OUTPUT OutputTransform
#include "winograd_transform.inc"

}  // namespace winograd

namespace {

const char kName[] = "topi.nn.conv2d_winograd_nchwc";

struct WinogradConfig {
  int64_t m;
  int64_t stride;  // 1: F(m x m, 3 x 3); 2: the polyphase F(m x m, 2 x 2)
  relay::Window<2> window;
  Epilogue epilogue;
};

using TransformFn = void (*)(const winograd::Geometry&, const float*, float*, int64_t, int64_t);

/*! \brief The CPU's build of the three transforms (winograd.h). */
struct Transforms {
  TransformFn input, input_s2, output;
};

Transforms TransformsFor(Isa isa) {
  using namespace winograd;  // NOLINT - the nine entry points
  if (isa == Isa::kAVX512) return {InputTransformAVX512, InputTransformS2AVX512, OutputTransformAVX512};
  if (isa == Isa::kAVX2) return {InputTransformAVX2, InputTransformS2AVX2, OutputTransformAVX2};
  return {InputTransform, InputTransformS2, OutputTransform};
}

/*! \brief Work items of about 2^16 floats touched: one launch per phase, enough items for every thread. */
int64_t MinItems(int64_t floats_per_item) {
  return std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, floats_per_item));
}

/*!
 * \brief Stride 2: M[ij] = V[ij] U[ij] for the alpha^2 elements, K = C x the element's phases (4, 2 or 1; U[ij]'s
 * first rows). The work is dealt out in units of one phase of 8 tiles (a register tile's rows) of one element, so
 * threads get equal multiply-adds though the elements differ 4:1; a thread's units of an element run as one GEMM.
 */
void PhaseGemms(const winograd::Geometry& g, const float* v, const float* u, float* mm) {
  constexpr int64_t kRows = 8;
  const int64_t chunks = (g.tiles + kRows - 1) / kRows, c = g.in_channels, o = g.out_channels;
  const int64_t unit_flops = 2 * kRows * c * o;
  const BoundEpilogue none;
  const int alpha = static_cast<int>(g.alpha);
  runtime::ParallelFor(
      winograd::PhaseElements(alpha) * chunks,
      [&](int64_t u0, int64_t u1) {
        for (int e = 0; e < alpha * alpha; ++e) {
          const int64_t phases = winograd::PhasesOfElement(e / alpha, e % alpha, alpha), k = phases * c;
          const int64_t before = winograd::PhasesBefore(e, alpha), first = before * chunks;  // element e's first unit
          // chunk r of element e is this piece's when its first unit, first + r * phases, is in [u0, u1)
          const int64_t r0 = std::clamp<int64_t>((u0 - first + phases - 1) / phases, 0, chunks);
          const int64_t r1 = std::clamp<int64_t>((u1 - first + phases - 1) / phases, 0, chunks);
          if (r0 < r1) {
            const int64_t t0 = r0 * kRows, rows = std::min(r1 * kRows, g.tiles) - t0;
            gemm::GemmPackedPrefix(v + before * g.tiles * c + t0 * k, k, u + e * o * 4 * c, g.out_block,
                                   4 * c * g.out_block, rows, o, k, mm + (e * g.tiles + t0) * o, o, none, 0);
          }
        }
      },
      std::max<int64_t>(1, (int64_t(1) << 19) / unit_flops));
}

void Run(const WinogradConfig& cfg, const KernelArgs& args) {
  TensorArg data = args.Input(0, "data"), weight = args.Input(1, "weight"), out = args.Output();
  data.CheckNDim(5);
  weight.CheckNDim(5);
  const int64_t alpha = winograd::AlphaOf(cfg.m, cfg.stride);
  const int64_t phases = cfg.stride * cfg.stride;  // U's rows: C per phase
  winograd::Geometry g{};
  g.m = cfg.m, g.alpha = alpha;
  g.batch = data.dim(0), g.in_block = data.dim(4), g.in_channels = data.dim(1) * g.in_block;
  g.height = data.dim(2), g.width = data.dim(3);
  g.out_block = weight.dim(4), g.out_channels = weight.dim(2) * g.out_block;
  if (weight.dim(0) != alpha || weight.dim(1) != alpha || weight.dim(3) != phases * g.in_channels || g.out_block < 1) {
    weight.Fail("must be (" + std::to_string(alpha) + ", " + std::to_string(alpha) + ", O / ob, " +
                std::to_string(phases * g.in_channels) + ", ob) for tile_size " + std::to_string(cfg.m) + ", stride " +
                std::to_string(cfg.stride) + " and data with " + std::to_string(g.in_channels) + " channels");
  }
  if (g.in_block > 64) data.Fail("has a channel block of " + std::to_string(g.in_block) + "; at most 64");
  if (g.out_block > 64) weight.Fail("has an output block of " + std::to_string(g.out_block) + "; at most 64");
  const relay::Window<2>& w = cfg.window;
  g.pad_top = w.pad_begin[0], g.pad_left = w.pad_begin[1];
  const int64_t padded_h = g.height + w.pad_begin[0] + w.pad_end[0], padded_w = g.width + w.pad_begin[1] + w.pad_end[1];
  g.out_height = padded_h < 3 ? 0 : (padded_h - 3) / cfg.stride + 1;
  g.out_width = padded_w < 3 ? 0 : (padded_w - 3) / cfg.stride + 1;
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
  const __int128 padded = static_cast<__int128>(g.batch * g.in_channels) * padded_h * padded_w;
  if (padded > 4 * static_cast<__int128>(data.size()) + (1 << 20)) {
    data.Fail("is padded far beyond its size (" + std::to_string(g.height) + "x" + std::to_string(g.width) + " to " +
              std::to_string(padded_h) + "x" + std::to_string(padded_w) +
              "); Winograd needs the padded input to stay within 4x the input");
  }
  g.tiles_h = (g.out_height + cfg.m - 1) / cfg.m, g.tiles_w = (g.out_width + cfg.m - 1) / cfg.m;
  g.tiles = g.batch * g.tiles_h * g.tiles_w;

  static thread_local std::vector<float> scratch;  // the calling thread's V and M, kept: the same convs every run
  // V: alpha^2 elements of (tiles, C); stride 2, the phases' (2 alpha - 1)^2 (winograd::PhaseElements)
  const int64_t v_elements = cfg.stride == 2 ? winograd::PhaseElements(static_cast<int>(alpha)) : alpha * alpha;
  const int64_t v_size = v_elements * g.tiles * g.in_channels;
  const int64_t m_size = alpha * alpha * g.tiles * g.out_channels;
  float* v = AlignedScratch(&scratch, v_size + m_size);  // M's rows (the GEMM's stores) on cache lines
  float* mm = v + v_size;
  const Transforms transforms = TransformsFor(CpuIsa());
  const float* x = data.Data<float>();
  const float* u = weight.Data<float>();
  float* y = out.Data<float>();

  const int64_t in_items = g.batch * (g.in_channels / g.in_block) * g.tiles_h;
  const TransformFn input = cfg.stride == 2 ? transforms.input_s2 : transforms.input;
  runtime::ParallelFor(
      in_items, [&](int64_t b, int64_t e) { input(g, x, v, b, e); }, MinItems(v_elements * g.tiles_w * g.in_block));

  if (cfg.stride == 2) {
    PhaseGemms(g, v, u, mm);
  } else {
    const BoundEpilogue none;
    const int64_t panel_set = g.out_channels * g.in_channels;  // floats of one U[xi]
    // Tile positions in parallel, each GEMM on one thread; small convs (a few us of GEMM) stay on the caller.
    const int64_t gemm_flops = 2 * g.tiles * g.in_channels * g.out_channels;
    runtime::ParallelFor(
        alpha * alpha,
        [&](int64_t b, int64_t e) {
          for (int64_t xi = b; xi < e; ++xi) {
            gemm::GemmPacked(v + xi * g.tiles * g.in_channels, g.in_channels, u + xi * panel_set, g.out_block, g.tiles,
                             g.out_channels, g.in_channels, mm + xi * g.tiles * g.out_channels, g.out_channels, none,
                             0);
          }
        },
        std::max<int64_t>(1, (int64_t(1) << 19) / std::max<int64_t>(1, gemm_flops)));
  }

  const int64_t out_items = g.batch * (g.out_channels / g.out_block) * g.tiles_h;
  const int64_t row_floats = g.out_width * g.out_block;
  runtime::ParallelFor(
      out_items,
      [&](int64_t b, int64_t e) {
        for (int64_t item = b; item < e; ++item) {
          transforms.output(g, mm, y, item, item + 1);
          if (bound.empty()) continue;
          const int64_t ty = item % g.tiles_h, plane = item / g.tiles_h;
          const int64_t rows = std::min(cfg.m, g.out_height - ty * cfg.m);
          bound.Apply(y, (plane * g.out_height + ty * cfg.m) * row_floats, rows * row_floats);
        }
      },
      MinItems(alpha * alpha * g.tiles_w * g.out_block));
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

TVMLITE_REGISTER_GLOBAL("topi.nn.conv2d_winograd_nchwc")
    .set_kernel_factory()
    .set_body_typed([](Map<String, Any> attrs_in) {
      static const std::string kKernel = kName;
      KernelAttrs attrs(kKernel, attrs_in);
      WinogradConfig cfg;
      cfg.m = attrs.GetInt("tile_size", 4);
      TVMLITE_CHECK_KIND(cfg.m == 2 || cfg.m == 4, ValueError)
          << kKernel << ": tile_size must be 2 or 4, got " << cfg.m;
      cfg.window = KernelWindow(attrs);
      const relay::Window<2>& w = cfg.window;
      TVMLITE_CHECK_KIND(w.stride[0] == w.stride[1] && (w.stride[0] == 1 || w.stride[0] == 2) && w.dilation[0] == 1 &&
                             w.dilation[1] == 1,
                         ValueError)
          << kKernel << ": Winograd needs strides of 1 or 2 (the same in both axes) and dilation of 1";
      cfg.stride = w.stride[0];
      const std::vector<int64_t> ks = attrs.GetInts("kernel_size", {3, 3});
      TVMLITE_CHECK_KIND(ks == std::vector<int64_t>({3, 3}), ValueError) << kKernel << ": kernel_size must be (3, 3)";
      TVMLITE_CHECK_KIND(attrs.GetInt("groups", 1) == 1, ValueError) << kKernel << ": groups must be 1";
      CheckFloat32OutDtype(attrs);
      cfg.epilogue = attrs.GetEpilogue();
      return MakeKernel(kKernel, cfg.epilogue.num_inputs() + 3, [cfg](const KernelArgs& args) { Run(cfg, args); });
    });

TVMLITE_REGISTER_GLOBAL("topi.nn.winograd_matrices").set_body_typed([](int64_t tile_size, int64_t stride) {
  TVMLITE_CHECK_KIND(tile_size == 2 || tile_size == 4, ValueError)
      << "topi.nn.winograd_matrices: tile_size must be 2 or 4, got " << tile_size;
  TVMLITE_CHECK_KIND(stride == 1 || stride == 2, ValueError)
      << "topi.nn.winograd_matrices: stride must be 1 or 2, got " << stride;
  if (stride == 2 && tile_size == 4) {
    return runtime::Array<Any>{Any(MatrixOf(&winograd::kAT4S2[0][0], 4, 5)),
                               Any(MatrixOf(&winograd::kBT4S2[0][0], 5, 5)),
                               Any(MatrixOf(&winograd::kG4S2[0][0], 5, 2))};
  }
  if (stride == 2) {
    return runtime::Array<Any>{Any(MatrixOf(&winograd::kAT2S2[0][0], 2, 3)),
                               Any(MatrixOf(&winograd::kBT2S2[0][0], 3, 3)),
                               Any(MatrixOf(&winograd::kG2S2[0][0], 3, 2))};
  }
  if (tile_size == 4) {
    return runtime::Array<Any>{Any(MatrixOf(&winograd::kAT4[0][0], 4, 6)), Any(MatrixOf(&winograd::kBT4[0][0], 6, 6)),
                               Any(MatrixOf(&winograd::kG4[0][0], 6, 3))};
  }
  return runtime::Array<Any>{Any(MatrixOf(&winograd::kAT2[0][0], 2, 4)), Any(MatrixOf(&winograd::kBT2[0][0], 4, 4)),
                             Any(MatrixOf(&winograd::kG2[0][0], 4, 3))};
});

/*!
 * \brief The tile size AlterOpLayout should use for a 3x3 conv of this stride and sizes, or 0 for the direct conv,
 * with the blocks AlterOpLayout gives: 16 channels on AVX-512, 8 on AVX2 (none on the portable build). Measured on
 * each ISA against its direct conv, at one and two threads (docs/compiler.md):
 *
 * AVX-512, stride 1: F(4x4) from a 14x14 output plane (2-3x the direct conv at 56x56 .. 14x14), F(2x2) for smaller
 * planes of at least 7x7 with 128 or more input channels (1.2-1.5x; with fewer the GEMMs are too small).
 * AVX2, stride 1: F(4x4) from a 14x14 plane with 32 or more input channels (1.6-2.6x; 16 lost at two threads);
 * at 7x7 .. 13x13 with 64 or more, F(4x4) while its transformed weights (36 C O floats) stay within 9.4 MB
 * (256 -> 256 at 7x7: 2x the direct conv, F(2x2) 1.6x), else F(2x2) (512 -> 512: 1.6x, F(4x4) 1.5x).
 * Both, stride 2: the polyphase transform from a 14x14 output plane with 64 or more input channels (AVX-512: 0.9x
 * with 16, and 32 lost at two threads; at 7x7 a quarter of F(2x2)'s tile outputs fall past the edge: 0.8-0.95x,
 * AVX2 1.16x at one thread and 0.91x at two), F(4x4, 2x2) where its multiplies, whole tiles counted, are under 0.9
 * of F(2x2, 2x2)'s (28x28 and 56x56 planes: 1.12-1.2x F(2x2, 2x2), which is 1.2-1.35x the direct conv; its larger
 * input transform ate the gain at 30x30).
 */
int64_t WinogradTile(int64_t in_channels, int64_t out_channels, int64_t out_height, int64_t out_width, int64_t stride) {
  const Isa isa = CpuIsa();
  const int64_t block = isa == Isa::kAVX512 ? 16 : isa == Isa::kAVX2 ? 8 : 0;
  if (block == 0 || in_channels % block != 0 || out_channels % block != 0) return 0;
  if (out_height < 1 || out_width < 1) return 0;
  // In double: any int64 sizes (the registry takes them from anywhere) without overflow
  const double plane = static_cast<double>(out_height) * static_cast<double>(out_width);
  if (stride == 2) {
    if (plane < 14 * 14 || in_channels < 64) return 0;
    auto tiles = [&](int64_t m) {
      return static_cast<double>(out_height / m + (out_height % m != 0)) *
             static_cast<double>(out_width / m + (out_width % m != 0));
    };
    const double f4 = winograd::PhaseElements(5) * tiles(4), f2 = winograd::PhaseElements(3) * tiles(2);
    return f4 < 0.9 * f2 ? 4 : 2;
  }
  if (stride != 1) return 0;
  if (isa == Isa::kAVX512) {
    if (plane >= 14 * 14) return 4;
    return plane >= 7 * 7 && in_channels >= 128 ? 2 : 0;
  }
  if (plane >= 14 * 14) return in_channels >= 32 ? 4 : 0;
  if (plane < 7 * 7 || in_channels < 64) return 0;
  return static_cast<double>(in_channels) * static_cast<double>(out_channels) <= 256.0 * 256.0 ? 4 : 2;
}

std::vector<int64_t> WinogradTilesOfAnyPlane(int64_t in_channels, int64_t out_channels, int64_t stride) {
  // The rules above change with the plane only below 14x14 and through whole tiles' rounding (periods 2 and 4):
  // every plane up to 64x64 and one far larger see each tile they can give.
  bool seen[5] = {false, false, false, false, false};
  auto note = [&](int64_t tile) {
    if (tile > 0 && tile < 5) seen[tile] = true;
  };
  for (int64_t h = 1; h <= 64; ++h) {
    for (int64_t w = 1; w <= 64; ++w) note(WinogradTile(in_channels, out_channels, h, w, stride));
  }
  note(WinogradTile(in_channels, out_channels, 1 << 20, 1 << 20, stride));
  std::vector<int64_t> tiles;
  for (int64_t tile = 4; tile >= 1; --tile) {
    if (seen[tile]) tiles.push_back(tile);
  }
  return tiles;
}

TVMLITE_REGISTER_GLOBAL("topi.nn.conv2d_winograd_tile").set_body_typed(WinogradTile);
TVMLITE_REGISTER_GLOBAL("topi.nn.conv2d_winograd_tiles")
    .set_body_typed([](int64_t in_channels, int64_t out_channels, int64_t stride) {
      std::vector<int64_t> tiles = WinogradTilesOfAnyPlane(in_channels, out_channels, stride);
      return runtime::Array<int64_t>(tiles.begin(), tiles.end());
    });

TVMLITE_REGISTER_OP_KERNEL("nn.contrib_conv2d_winograd_without_weight_transform", "topi.nn.conv2d_winograd_nchwc");

}  // namespace topi
}  // namespace tvmlite
