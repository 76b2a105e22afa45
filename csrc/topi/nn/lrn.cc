/*!
 * \file lrn.cc
 * \brief topi.nn.lrn (relay nn.lrn): local response normalisation across `size` neighbours along `axis`.
 *
 *   run(data, epi..., out)     attrs: size (5), axis (1), bias (2), alpha (1e-4), beta (0.75), epilogue
 *
 * With data viewed as (outer, C, inner) around axis, as the reference (tvmlite/relay/op/nn/_norm.py), in float32:
 *   y[c] = x[c] / (bias + alpha / size * total[c])^beta,   total[c] = sum of x[c']^2 over c' in [c - lo, c + hi]
 *   within [0, C), lo = (size - 1) / 2, hi = size - 1 - lo (an even size looks one channel further ahead).
 * A task takes a tile of up to kTile inner positions of one outer index: for each channel a contiguous row segment,
 * so every loop runs along inner and vectorises; the epilogue runs on each segment as it is written.
 *
 * Window sums: up to kDirect channels are added in channel order from the tile's squares, as the reference adds
 * them (the same float32 totals). Wider windows use van Herk / Gil-Werman's sums: the zero-padded channel sequence
 * is cut into segments of the window's length, and a window is one segment's suffix sum plus the next one's prefix
 * sum, two adds per output whatever the size, without a running sum's subtractions (its drift, and inf - inf).
 *
 * The power: beta 0.75 (AlexNet, GoogLeNet), 0.5 and 0.25 as square roots and a product, 1 and 0 directly, others
 * exp(beta * log(b)). Square roots, log and exp are the epilogue interpreter's loops (tvmlite/topi/epilogue.h) of
 * the ISA picked when the kernel is made, so they run on vectors although this file is plain C++.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/isa.h>
#include <tvmlite/topi/kernel.h>
#include <tvmlite/topi/scratch.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tvmlite {
namespace topi {
namespace {

constexpr int64_t kTile = 256;
constexpr int64_t kDirect = 16;

enum class Power { kZero, kQuarter, kHalf, kThreeQuarters, kOne, kOther };

Power PowerOf(float beta) {
  if (beta == 0.0f) return Power::kZero;
  if (beta == 0.25f) return Power::kQuarter;
  if (beta == 0.5f) return Power::kHalf;
  if (beta == 0.75f) return Power::kThreeQuarters;
  if (beta == 1.0f) return Power::kOne;
  return Power::kOther;
}

using EpiLoop = void (*)(const EpiInstr&, float*, const float*, const float*, int64_t);

struct Params {
  float bias, k, beta;  // k = alpha / size
  Power power;
  EpiLoop loop;  // the epilogue interpreter's loops of the ISA picked when the kernel was made: vector sqrt, log, exp
  bool vector;
};

void Unary(const Params& p, EpiOp op, float* y, const float* a, int64_t n) {
  p.loop(EpiInstr{op, 0, {}, {}, 0, 0}, y, a, a, n);
}

/*!
 * \brief y[i] = x[i] / (bias + k * total[i])^beta over n values; tmp holds 2 * n floats. The square-root forms add
 * 0.0f to the base: -0 becomes +0, whose root is +0 as pow's is. Other betas: exp(beta * log(b)) on vector ISAs
 * (log and exp within ~1 ulp), pow itself for bases <= 0 (an integral beta has real powers of negative bases) and on
 * the scalar path.
 */
void Scale(const Params& p, const float* x, const float* total, float* y, int64_t n, float* tmp) {
  if (p.power == Power::kZero) {  // b^0 is 1 for every b, NaN included
    std::copy(x, x + n, y);
    return;
  }
  float* b = tmp;
  float* t = tmp + n;
  const float bias = p.bias, k = p.k;
  switch (p.power) {
    case Power::kQuarter:
    case Power::kHalf:
    case Power::kThreeQuarters:
      for (int64_t i = 0; i < n; ++i) b[i] = bias + k * total[i] + 0.0f;
      Unary(p, EpiOp::kSqrt, b, b, n);
      if (p.power == Power::kHalf) break;
      Unary(p, EpiOp::kSqrt, t, b, n);
      if (p.power == Power::kQuarter) {
        std::copy(t, t + n, b);
      } else {
        for (int64_t i = 0; i < n; ++i) b[i] *= t[i];
      }
      break;
    case Power::kOne:
      for (int64_t i = 0; i < n; ++i) b[i] = bias + k * total[i];
      break;
    default:
      for (int64_t i = 0; i < n; ++i) b[i] = bias + k * total[i];
      if (p.vector) {
        Unary(p, EpiOp::kLog, t, b, n);
        for (int64_t i = 0; i < n; ++i) t[i] *= p.beta;
        Unary(p, EpiOp::kExp, t, t, n);
        for (int64_t i = 0; i < n; ++i) b[i] = b[i] > 0.0f || b[i] != b[i] ? t[i] : std::pow(b[i], p.beta);
      } else {
        for (int64_t i = 0; i < n; ++i) b[i] = std::pow(b[i], p.beta);
      }
      break;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / b[i];
}

TVMLITE_REGISTER_GLOBAL("topi.nn.lrn").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.nn.lrn";
  KernelAttrs attrs(kName, attrs_in);
  const int64_t size = attrs.GetInt("size", 5);
  TVMLITE_CHECK_KIND(size > 0, ValueError) << kName << ": size must be positive, got " << size;
  const int64_t axis_attr = attrs.GetInt("axis", 1);
  Params prm;
  prm.bias = static_cast<float>(attrs.GetFloat("bias", 2.0));
  prm.k = static_cast<float>(attrs.GetFloat("alpha", 1e-4) / static_cast<double>(size));
  prm.beta = static_cast<float>(attrs.GetFloat("beta", 0.75));
  prm.power = PowerOf(prm.beta);
  const Isa isa = CpuIsa();
  prm.loop = isa == Isa::kAVX512 ? EpiRunAVX512 : isa == Isa::kAVX2 ? EpiRunAVX2 : EpiRun;
  prm.vector = isa != Isa::kScalar;
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 2 + epi.num_inputs(), [=](const KernelArgs& args) {
    TVMLITE_CHECK_KIND(args.size() == 2 + epi.num_inputs(), TypeError)
        << args.kernel() << ": expected " << 2 + epi.num_inputs() << " tensor arguments (data, " << epi.num_inputs()
        << " epilogue inputs, out), got " << args.size();
    const AxisWise a = ReadAxisWise(args, axis_attr);
    const float* x = a.x;
    float* y = a.y;
    BoundEpilogue bound = epi.Bind(a.shape, args.Rest(1), args.kernel());
    if (a.size() == 0) return;
    const int64_t outer = a.outer, channels = a.len, inner = a.inner;
    // The window [c - lo, c + hi], its reach clamped to the channels (size may be any positive int64).
    const int64_t lo = std::min((size - 1) / 2, channels - 1), hi = std::min(size - 1 - (size - 1) / 2, channels - 1);
    const int64_t width = lo + hi + 1, padded = channels + lo + hi;
    const bool direct = width <= kDirect;
    // van Herk's prefix and suffix sums take 2 * padded * tile floats: tiles narrow as the channels grow.
    const int64_t tile = std::min(inner, direct ? kTile : std::max<int64_t>(8, std::min(kTile, 8192 / padded)));
    // (outer, tile) items, not runtime::ParallelTiles: the scratch is set up once per piece of tiles (per tile, the
    // kernel measured ~20% slower at 1x96x55x55).
    const int64_t tiles = (inner + tile - 1) / tile;
    runtime::ParallelFor(
        outer * tiles,
        [&](int64_t t0, int64_t t1) {
          // The thread's buffer, kept across calls (scratch.h): every float is written before it is read.
          static thread_local std::vector<float> scratch;
          float* total = AlignedScratch(&scratch, (direct ? 3 + channels : 2 * padded + 3) * tile);
          float* tmp = total + tile;         // Scale's 2 * tile
          float* pre = tmp + 2 * tile;       // direct: [C][tile] squares; van Herk: [padded][tile] prefix sums
          float* suf = pre + padded * tile;  // van Herk: suffix sums (within segments)
          for (int64_t t = t0; t < t1; ++t) {
            const int64_t o = t / tiles, i0 = (t % tiles) * tile, w = std::min(tile, inner - i0);
            const int64_t base = o * channels * inner + i0;  // element (o, 0, i0)
            const float* xt = x + base;
            if (direct) {
              for (int64_t c = 0; c < channels; ++c) {
                const float* row = xt + c * inner;
                float* sq = pre + c * tile;
                for (int64_t i = 0; i < w; ++i) sq[i] = row[i] * row[i];
              }
            } else {
              // padded position j is channel j - lo (zero outside the channels)
              auto square = [&](int64_t j, int64_t i) {
                const int64_t c = j - lo;
                if (c < 0 || c >= channels) return 0.0f;
                const float v = xt[c * inner + i];
                return v * v;
              };
              for (int64_t j = 0; j < padded; ++j) {
                float* pj = pre + j * tile;
                if (j % width == 0) {
                  for (int64_t i = 0; i < w; ++i) pj[i] = square(j, i);
                } else {
                  for (int64_t i = 0; i < w; ++i) pj[i] = pj[i - tile] + square(j, i);
                }
              }
              for (int64_t j = padded; j-- > 0;) {
                float* sj = suf + j * tile;
                if ((j + 1) % width == 0 || j + 1 == padded) {
                  for (int64_t i = 0; i < w; ++i) sj[i] = square(j, i);
                } else {
                  for (int64_t i = 0; i < w; ++i) sj[i] = sj[i + tile] + square(j, i);
                }
              }
            }
            for (int64_t c = 0; c < channels; ++c) {
              if (direct) {
                const int64_t first = std::max<int64_t>(0, c - lo), last = std::min(channels - 1, c + hi);
                for (int64_t i = 0; i < w; ++i) total[i] = 0.0f;
                for (int64_t k = first; k <= last; ++k) {
                  const float* sq = pre + k * tile;
                  for (int64_t i = 0; i < w; ++i) total[i] += sq[i];
                }
              } else if (c % width == 0) {  // the window [c, c + width) of padded positions is one segment
                std::copy(suf + c * tile, suf + c * tile + w, total);
              } else {
                const float* s = suf + c * tile;
                const float* q = pre + (c + width - 1) * tile;
                for (int64_t i = 0; i < w; ++i) total[i] = s[i] + q[i];
              }
              Scale(prm, xt + c * inner, total, y + base + c * inner, w, tmp);
              bound.Apply(y, base + c * inner, w);
            }
          }
        },
        std::max<int64_t>(1, 16384 / (channels * tile)));
  });
});

TVMLITE_REGISTER_OP_KERNEL("nn.lrn", "topi.nn.lrn");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
