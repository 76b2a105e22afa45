/*!
 * \file layer_norm.cc
 * \brief topi.nn.layer_norm: relay nn.layer_norm's first output, normalising over the trailing axes [axis, ndim).
 *
 *   run(data, gamma, beta, epi..., out)     attrs: axis (-1), epsilon (1e-5), stash_type, epilogue;
 *                                           scale = 0 drops gamma, center = 0 drops beta (relay's absent beta `()`)
 * Without a "center" attr the argument count decides: the lowering flattens relay's absent beta `()` to no tensor,
 * so (data, gamma, epi..., out) is layer_norm without beta.
 * gamma and beta broadcast to data.shape[axis:] (numpy rules, towards the data). Per row of D = prod(shape[axis:])
 * values, as the reference: mean, var = mean((x - mean)^2) (two passes, no E[x^2] - E[x]^2 cancellation),
 * y = (x - mean) * (1 / sqrt(var + epsilon)) * gamma + beta, then the epilogue on the row while it is in cache.
 * Rows run in parallel; statistics accumulate in 8 float partial sums per pass. The relay op's other outputs
 * (mean, inv_std_dev) are not produced: a graph that reads them runs the reference.
 */
#include <tvmlite/ir/op.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>
#include <tvmlite/runtime/threading.h>
#include <tvmlite/topi/epilogue.h>
#include <tvmlite/topi/kernel.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace tvmlite {
namespace topi {
namespace {

float Sum8(const float* x, int64_t n, float shift, bool square) {
  float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int l = 0; l < 8; ++l) {
      float d = x[i + l] - shift;
      part[l] += square ? d * d : d;
    }
  }
  float tail = 0;
  for (; i < n; ++i) {
    float d = x[i] - shift;
    tail += square ? d * d : d;
  }
  return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7])) + tail;
}

/*!
 * \brief The parameter p broadcast to tail (its D values, row-major) into out; ValueError naming the kernel and p
 * when p does not broadcast to tail.
 */
void ExpandParam(const TensorArg& p, const std::vector<int64_t>& tail, float* out) {
  const std::vector<int64_t> ps = p.shape();
  bool ok = ps.size() <= tail.size();
  for (size_t i = 0; ok && i < ps.size(); ++i) {
    int64_t want = tail[tail.size() - ps.size() + i];
    ok = ps[i] == want || ps[i] == 1;
  }
  if (!ok) {
    std::ostringstream os;
    os << "of shape " << runtime::ShapeTuple(ps) << " does not broadcast to the normalized shape "
       << runtime::ShapeTuple(tail);
    p.Fail(os.str());
  }
  const float* src = p.Data<float>();
  int64_t d = 1;
  for (int64_t t : tail) d *= t;
  for (int64_t i = 0; i < d; ++i) {  // unravel i over tail, ravel over p's (right-aligned, broadcast) shape
    int64_t rest = i, off = 0, stride = 1;
    for (size_t j = tail.size(); j-- > 0;) {
      int64_t idx = rest % tail[j];
      rest /= tail[j];
      size_t back = tail.size() - 1 - j;
      if (back < ps.size()) {
        int64_t dim = ps[ps.size() - 1 - back];
        if (dim != 1) off += idx * stride;
        stride *= dim;
      }
    }
    out[i] = src[off];
  }
}

TVMLITE_REGISTER_GLOBAL("topi.nn.layer_norm").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.nn.layer_norm";
  KernelAttrs attrs(kName, attrs_in);
  const int64_t axis_attr = attrs.GetInt("axis", -1);
  const double epsilon = attrs.GetFloat("epsilon", 1e-5);
  TVMLITE_CHECK_KIND(epsilon >= 0, ValueError) << kName << ": epsilon must be >= 0, got " << epsilon;
  const std::string stash = attrs.GetString("stash_type", "float32");
  TVMLITE_CHECK_KIND(stash.empty() || stash == "float32", ValueError)
      << kName << ": stash_type must be float32 for float32 data, got '" << stash << "'";
  const bool scale = attrs.GetInt("scale", 1) != 0;
  const bool center_given = attrs.Has("center"), center_attr = attrs.GetInt("center", 1) != 0;
  Epilogue epi = attrs.GetEpilogue();
  const int min_in = 1 + scale + (center_given && center_attr);
  return MakeKernel(kName, min_in + 1 + epi.num_inputs(), [=](const KernelArgs& args) {
    const bool center = center_given ? center_attr : args.size() - 1 - epi.num_inputs() > 1 + scale;
    const int num_in = 1 + scale + center;
    TVMLITE_CHECK_KIND(args.size() == num_in + 1 + epi.num_inputs(), TypeError)
        << args.kernel() << ": expected " << num_in + 1 + epi.num_inputs() << " tensor arguments (data"
        << (scale ? ", gamma" : "") << (center ? ", beta" : "") << ", " << epi.num_inputs()
        << " epilogue inputs, out), got " << args.size();
    const AxisWise a = ReadAxisWise(args, axis_attr);
    const float* x = a.x;
    float* y = a.y;
    const std::vector<int64_t>& shape = a.shape;
    const std::vector<int64_t> tail(shape.begin() + a.axis, shape.end());
    const int64_t rows = a.outer, d = a.len * a.inner;
    // gamma then beta, each D values (expanded when they broadcast)
    std::vector<float> params;
    const float* gamma = nullptr;
    const float* beta = nullptr;
    int next = 1;
    for (int which = 0; which < 2; ++which) {
      if (!(which == 0 ? scale : center)) continue;
      TensorArg p = args.Input(next++, which == 0 ? "gamma" : "beta");
      const float* ptr;
      if (p.shape() == tail) {
        ptr = p.Data<float>();
      } else {
        params.resize(static_cast<size_t>(2 * d));
        ExpandParam(p, tail, params.data() + which * d);
        ptr = params.data() + which * d;
      }
      (which == 0 ? gamma : beta) = ptr;
    }
    BoundEpilogue bound = epi.Bind(shape, args.Rest(num_in), args.kernel());
    if (a.size() == 0) return;
    const float eps = static_cast<float>(epsilon);
    runtime::ParallelFor(
        rows,
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const float* xr = x + r * d;
            float* yr = y + r * d;
            const float mean = Sum8(xr, d, 0.0f, false) / static_cast<float>(d);
            const float var = Sum8(xr, d, mean, true) / static_cast<float>(d);
            const float inv_std = 1.0f / std::sqrt(var + eps);
            if (gamma && beta) {
              for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - mean) * inv_std * gamma[i] + beta[i];
            } else if (gamma) {
              for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - mean) * inv_std * gamma[i];
            } else if (beta) {
              for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - mean) * inv_std + beta[i];
            } else {
              for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - mean) * inv_std;
            }
            bound.Apply(y, r * d, d);
          }
        },
        std::max<int64_t>(1, 8192 / d));
  });
});

TVMLITE_REGISTER_OP_KERNEL("nn.layer_norm", "topi.nn.layer_norm");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
