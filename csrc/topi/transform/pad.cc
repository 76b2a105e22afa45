/*!
 * \file pad.cc
 * \brief topi.nn.pad (relay nn.pad): data padded, or cropped by negative widths, with pad_mode constant (the
 * pad_value input: a one-element tensor of data's dtype), edge, reflect or wrap (numpy's modes).
 *
 *   topi.nn.pad({"pad_width": [0, 0, 0, 0, 1, 1, 2, 2], "pad_mode": "constant"})
 *   run(data, pad_value, [epilogue inputs], out)             pad_width: (before, after) per axis, flattened
 *
 * topi.dyn.nn.pad (relay dyn.nn.pad) reads its widths from tensors per call and returns its output:
 *   outs = run(data, pads, pad_value, axes)                   pads: the begins, then the ends, of the listed axes
 *
 * Each axis gets a map from output index to source index (-1: the pad value), so every mode is one lookup; an
 * output row whose outer indices are all inside copies its interior with one memcpy and looks up only the edges.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include "injective.h"

namespace tvmlite {
namespace topi {
namespace {

enum class PadMode { kConstant, kEdge, kReflect, kWrap };

PadMode ParseMode(const std::string& kName, const std::string& mode_name) {
  if (mode_name == "constant") return PadMode::kConstant;
  if (mode_name == "edge") return PadMode::kEdge;
  if (mode_name == "reflect") return PadMode::kReflect;
  TVMLITE_CHECK_KIND(mode_name == "wrap", ValueError)
      << kName << ": pad_mode '" << mode_name << "' (expected constant, reflect, edge or wrap)";
  return PadMode::kWrap;
}

/*! \brief Per axis: the output dim, the copied interior [lo, hi) and the map output index -> source index. */
struct PadPlan {
  std::vector<int64_t> shape, in_stride, lo, hi;
  std::vector<std::vector<int64_t>> map;
};

PadPlan PlanPad(const std::string& kName, const std::vector<int64_t>& widths, PadMode mode,
                const std::string& mode_name, const TensorArg& data) {
  const int nd = data.ndim();
  TVMLITE_CHECK_KIND(static_cast<int>(widths.size()) == 2 * nd, ValueError)
      << kName << ": pad_width has " << widths.size() << " values, expected 2 per axis of "
      << runtime::ShapeTuple(data.shape());
  PadPlan p;
  p.shape.resize(nd), p.in_stride.resize(nd), p.lo.resize(nd), p.hi.resize(nd), p.map.resize(nd);
  for (int64_t d = nd - 1, s = 1; d >= 0; --d) p.in_stride[d] = s, s *= data.dim(d);
  for (int d = 0; d < nd; ++d) {
    const int64_t before = widths[2 * d], after = widths[2 * d + 1];
    TVMLITE_CHECK_KIND(std::abs(before) <= (int64_t{1} << 40) && std::abs(after) <= (int64_t{1} << 40), ValueError)
        << kName << ": pad_width (" << before << ", " << after << ") is too large";
    const int64_t crop = std::max<int64_t>(-before, 0);
    const int64_t n = data.dim(d) - crop - std::max<int64_t>(-after, 0);
    TVMLITE_CHECK_KIND(n >= 0, ValueError) << kName << ": pad_width (" << before << ", " << after
                                           << ") crops more than axis " << d << " of " << data.dim(d) << " holds";
    const int64_t pb = std::max<int64_t>(before, 0);
    p.shape[d] = n + pb + std::max<int64_t>(after, 0);
    TVMLITE_CHECK_KIND(n > 0 || mode == PadMode::kConstant || p.shape[d] == 0, ValueError)
        << kName << ": pad_mode " << mode_name << " cannot pad the empty axis " << d;
    p.lo[d] = pb, p.hi[d] = pb + n;
    p.map[d].resize(p.shape[d]);
    for (int64_t o = 0; o < p.shape[d]; ++o) {
      int64_t j = o - pb;
      if (j < 0 || j >= n) {
        if (mode == PadMode::kConstant) {
          j = -1;
        } else if (mode == PadMode::kEdge) {
          j = j < 0 ? 0 : n - 1;
        } else if (mode == PadMode::kWrap) {
          j = ((j % n) + n) % n;
        } else if (n == 1) {
          j = 0;
        } else {
          int64_t period = 2 * (n - 1);
          j = ((j % period) + period) % period;
          if (j >= n) j = period - j;
        }
      }
      p.map[d][o] = j < 0 ? -1 : j + crop;
    }
  }
  return p;
}

/*! \brief Write data padded by plan p (from widths) into out, with value for the constant mode's pads. */
void RunPad(PadPlan p, const std::vector<int64_t>& widths, const TensorArg& data, const TensorArg& value,
            const TensorArg& out, const BoundEpilogue& bound, const std::string& kName) {
  const int nd = data.ndim();
  const int esize = injective::ElemBytes(out, kName);
  std::vector<int64_t>& shape = p.shape;
  auto& map = p.map;
  if (out.size() == 0) return;
  // Trailing axes with no padding join the axis before them (a blocked layout's channel block: rows of 16 values
  // became rows of W * 16), so the interior of each row is one copy of the whole run.
  int nd_rows = nd;
  while (nd_rows >= 2 && widths[2 * (nd_rows - 1)] == 0 && widths[2 * (nd_rows - 1) + 1] == 0) {
    const int d = nd_rows - 2;
    const int64_t m = shape[d + 1];
    std::vector<int64_t> merged(shape[d] * m);
    for (int64_t o = 0; o < shape[d]; ++o) {
      for (int64_t k = 0; k < m; ++k) merged[o * m + k] = map[d][o] < 0 ? -1 : map[d][o] * m + k;
    }
    map[d] = std::move(merged);
    shape[d] *= m;
    p.lo[d] *= m;
    p.hi[d] *= m;
    --nd_rows;
  }
  const char* x = injective::Bytes(data);
  const char* v = injective::Bytes(value);
  char* y = injective::Bytes(out);
  const int64_t inner = nd ? shape[nd_rows - 1] : 1;
  const std::vector<int64_t>* last = nd ? &map[nd_rows - 1] : nullptr;
  const int64_t lo = nd ? p.lo[nd_rows - 1] : 0, hi = nd ? p.hi[nd_rows - 1] : 0;
  injective::ForRows(out.size() / inner, inner, esize, out, bound, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      char* dst = y + r * inner * esize;
      int64_t rest = r, off = 0;
      bool inside = true;
      for (int d = nd_rows - 2; d >= 0; --d) {
        int64_t j = map[d][rest % shape[d]];
        rest /= shape[d];
        inside = inside && j >= 0;
        off += j * p.in_stride[d];
      }
      if (nd == 0) {
        std::memcpy(dst, x, esize);
        continue;
      }
      const char* src = x + off * esize;
      for (int64_t o = 0; o < inner; ++o) {
        if (inside && o == lo && hi > o) {  // the interior: one copy
          std::memcpy(dst + o * esize, src + (*last)[o] * esize, (hi - o) * esize);
          o = hi - 1;
          continue;
        }
        int64_t j = (*last)[o];
        std::memcpy(dst + o * esize, inside && j >= 0 ? src + j * esize : v, esize);
      }
    }
  });
}

void CheckValue(const TensorArg& data, const TensorArg& value, const std::string& kName) {
  injective::CheckSameDType(value, data, kName);
  TVMLITE_CHECK_KIND(value.size() == 1, ValueError)
      << kName << ": pad_value must hold one value, got shape " << runtime::ShapeTuple(value.shape());
}

TVMLITE_REGISTER_GLOBAL("topi.nn.pad").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.nn.pad";
  KernelAttrs attrs(kName, attrs_in);
  std::vector<int64_t> widths = attrs.GetInts("pad_width");
  std::string mode_name = attrs.GetString("pad_mode", "constant");
  PadMode mode = ParseMode(kName, mode_name);
  Epilogue epi = attrs.GetEpilogue();
  return MakeKernel(kName, 3 + epi.num_inputs(), [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), value = args.Input(1, "pad_value"), out = args.Output();
    injective::CheckSameDType(data, out, kName);
    CheckValue(data, value, kName);
    PadPlan p = PlanPad(kName, widths, mode, mode_name, data);
    out.CheckShape(p.shape);
    BoundEpilogue bound = injective::BindEpilogue(epi, out, args, 2);
    RunPad(std::move(p), widths, data, value, out, bound, kName);
  });
});

TVMLITE_REGISTER_GLOBAL("topi.dyn.nn.pad").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.dyn.nn.pad";
  KernelAttrs attrs(kName, attrs_in);
  std::string mode_name = attrs.GetString("pad_mode", "constant");
  PadMode mode = ParseMode(kName, mode_name);
  return MakeReturningKernel(kName, 4, [=](const KernelArgs& args) {
    TensorArg data = args.Input(0, "data"), value = args.Input(2, "pad_value");
    CheckValue(data, value, kName);
    std::vector<int64_t> pads = injective::IntValues(args.Input(1, "pads"), kName);
    std::vector<int64_t> axes = injective::IntValues(args.Input(3, "axes"), kName);
    TVMLITE_CHECK_KIND(pads.size() == 2 * axes.size(), ValueError)
        << kName << ": pads must hold a begin and an end per axis, got " << pads.size() << " for " << axes.size();
    std::vector<int64_t> widths(2 * data.ndim(), 0);
    std::vector<bool> seen(data.ndim(), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int a = injective::NormalizeAxis(axes[i], data.ndim(), kName);
      TVMLITE_CHECK_KIND(!seen[a], ValueError) << kName << ": axis " << a << " is padded twice";
      seen[a] = true;
      widths[2 * a] = pads[i], widths[2 * a + 1] = pads[i + axes.size()];
    }
    PadPlan p = PlanPad(kName, widths, mode, mode_name, data);
    NDArray out = NDArray::Empty(p.shape, data.dtype());
    TensorArg out_arg(out, &kName, "out");
    RunPad(std::move(p), widths, data, value, out_arg, BoundEpilogue(), kName);
    return out;
  });
});

// nn.pad: run(data, pad_value, [epilogue inputs], out); dyn.nn.pad: [out] = run(data, pads, pad_value, axes), pads
// and axes 0-d or 1-d int32/int64. pad_value has data's dtype.
std::string PadAccepts(const KernelAttrs& attrs, const std::vector<TensorSig>& t) {
  const std::string& k = attrs.kernel();
  if (k == "topi.dyn.nn.pad") {
    TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 4, /*has_out=*/false));
    TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[2].dtype, t[0].dtype));
    for (int i : {1, 3}) {
      TVMLITE_ACCEPTS_CHECK(IndexReason(k, "a shape or bounds input", t[i].dtype));
      if (t[i].ndim > 1) return k + ": a shape or bounds input must be 0-d or 1-d";
    }
    return ByteScalarReason(k, t[0].dtype);
  }
  TVMLITE_ACCEPTS_CHECK(CheckArity(attrs, t, 2));
  TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[0].dtype, t.back().dtype));
  TVMLITE_ACCEPTS_CHECK(SameDTypeReason(k, t[1].dtype, t[0].dtype));
  return ByteScalarReason(k, t.back().dtype);
}
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.nn.pad", PadAccepts);
TVMLITE_REGISTER_KERNEL_ACCEPTS("topi.dyn.nn.pad", PadAccepts);

TVMLITE_REGISTER_OP_KERNEL("nn.pad", "topi.nn.pad");
TVMLITE_REGISTER_OP_KERNEL("dyn.nn.pad", "topi.dyn.nn.pad").set_attr<bool>("TVMLiteReturnsOutputs", true);

}  // namespace
}  // namespace topi
}  // namespace tvmlite
