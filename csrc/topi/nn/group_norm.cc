/*!
 * \file group_norm.cc
 * \brief topi.nn.group_norm and topi.nn.instance_norm (relay nn.group_norm / nn.instance_norm) on data
 * (N, C, d1, ..., dk), k >= 0, with per-channel gamma and beta of shape (C,). Instance norm is group norm with one
 * channel per group.
 *
 *   run(data, gamma, beta, epi..., out)    group_norm:    num_groups (1), epsilon (1e-5), stash_type, epilogue
 *                                          instance_norm: epsilon (1e-5), epilogue
 *
 * A group is L = (C / num_groups) * d1 * ... * dk contiguous values (a group's channels are adjacent). As the
 * references (tvmlite/relay/op/nn/_norm.py): mean, var = mean((x - mean)^2) over the group, then per channel c
 *   y = (x - mean) / sqrt(var + epsilon) * gamma[c] + beta[c],   computed as (x - mean) * s[c] + beta[c] with
 *   s[c] = gamma[c] / sqrt(var + epsilon).
 * stash_type "float64" normalises in double and rounds to float32 before the affine, as the reference does; every
 * other stash type is float32 for float32 data (the reference's rule: a stash type narrower than the data is not used).
 *
 * Statistics: each chunk of kChunk values is read twice while it is in L1, summing in 16 float lanes: its mean m,
 * then sum(x - m) and sum((x - m)^2) (the corrected two-pass algorithm: no E[x^2] - E[x]^2 cancellation, and m's
 * rounding is corrected). Chunks merge in double with Chan et al.'s pairwise update, always in chunk order, so the
 * result does not depend on the thread count or on the path below. A NaN or inf makes its whole group NaN, as in the
 * reference (its variance is NaN).
 *
 * Parallel: with several groups per thread a task takes whole groups (statistics, normalisation, epilogue while the
 * group is in cache); with fewer (one image, few groups) all groups' chunks run in parallel in two rounds:
 * statistics, then normalisation + epilogue.
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

constexpr int64_t kChunk = 1024;

/*! \brief Count, mean and sum of squared deviations of some values. */
struct Moments {
  double n = 0, mean = 0, m2 = 0;
};

/*! \brief a becomes the moments of a's values and b's (Chan, Golub & LeVeque). */
void Merge(Moments* a, const Moments& b) {
  if (a->n == 0) {
    *a = b;
    return;
  }
  const double n = a->n + b.n, delta = b.mean - a->mean;
  a->mean += delta * (b.n / n);
  a->m2 += b.m2 + delta * delta * (a->n * b.n / n);
  a->n = n;
}

/*! \brief Partial sums per pass: 4 SSE registers, enough independent adds to hide their latency. */
constexpr int kLanes = 16;

float ReduceLanes(const float* p, float tail) {
  float v[kLanes];
  std::copy(p, p + kLanes, v);
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) v[l] += v[l + w];
  }
  return v[0] + tail;
}

/*! \brief The moments of x[0, n), n >= 1, by the corrected two-pass algorithm in float lanes. */
Moments ChunkMoments(const float* x, int64_t n) {
  float s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) s[l] += x[i + l];
  }
  float tail = 0;
  for (; i < n; ++i) tail += x[i];
  const float m = ReduceLanes(s, tail) / static_cast<float>(n);
  float r[kLanes] = {}, q[kLanes] = {};
  for (i = 0; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float d = x[i + l] - m;
      r[l] += d;
      q[l] += d * d;
    }
  }
  float r_tail = 0, q_tail = 0;
  for (; i < n; ++i) {
    const float d = x[i] - m;
    r_tail += d;
    q_tail += d * d;
  }
  const double rs = ReduceLanes(r, r_tail), qs = ReduceLanes(q, q_tail), dn = static_cast<double>(n);
  return {dn, m + rs / dn, qs - rs * rs / dn};
}

Moments RowMoments(const float* x, int64_t len) {
  Moments m;
  for (int64_t b = 0; b < len; b += kChunk) Merge(&m, ChunkMoments(x + b, std::min(kChunk, len - b)));
  return m;
}

/*! \brief A group's mean and 1 / sqrt(var + epsilon). */
struct Stats {
  double mean, inv_std;
};

Stats Finish(const Moments& m, double epsilon) {
  double var = m.m2 / m.n;
  if (var < 0) var = 0;  // rounding; a NaN stays NaN
  return {m.mean, 1.0 / std::sqrt(var + epsilon)};
}

/*! \brief What one call normalises: the group rows of data and the per-channel parameters. */
struct Plan {
  const float* x;
  float* y;
  const float* gamma;
  const float* beta;
  int64_t groups, per_group, plane, len;  // len = per_group * plane values per row (n, group)
  bool stash64;
};

/*! \brief y = normalised x over [begin, end) of row r (offsets within the row); a span may cross channels. */
void Normalize(const Plan& p, int64_t r, const Stats& st, int64_t begin, int64_t end) {
  const float* x = p.x + r * p.len;
  float* y = p.y + r * p.len;
  const int64_t c0 = (r % p.groups) * p.per_group;
  for (int64_t i = begin; i < end;) {
    const int64_t c = i / p.plane, stop = std::min(end, (c + 1) * p.plane);
    const float g = p.gamma[c0 + c], b = p.beta[c0 + c];
    if (p.stash64) {
      const double mean = st.mean, inv = st.inv_std;
      for (int64_t j = i; j < stop; ++j) y[j] = static_cast<float>((x[j] - mean) * inv) * g + b;
    } else {
      const float mean = static_cast<float>(st.mean), s = static_cast<float>(st.inv_std * g);
      for (int64_t j = i; j < stop; ++j) y[j] = (x[j] - mean) * s + b;
    }
    i = stop;
  }
}

/*! \brief The bound kernel: groups_attr 0 means one group per channel (instance norm). */
Function MakeNormKernel(const std::string& name, int64_t groups_attr, double epsilon, bool stash64, Epilogue epi) {
  return MakeKernel(name, 4 + epi.num_inputs(), [=](const KernelArgs& args) {
    TVMLITE_CHECK_KIND(args.size() == 4 + epi.num_inputs(), TypeError)
        << args.kernel() << ": expected " << 4 + epi.num_inputs() << " tensor arguments (data, gamma, beta, "
        << epi.num_inputs() << " epilogue inputs, out), got " << args.size();
    TensorArg data = args.Input(0, "data"), gamma = args.Input(1, "gamma"), beta = args.Input(2, "beta");
    TensorArg out = args.Output();
    Plan p;
    p.x = data.Data<float>();
    p.gamma = gamma.Data<float>();
    p.beta = beta.Data<float>();
    p.y = out.Data<float>();
    p.stash64 = stash64;
    const std::vector<int64_t> shape = data.shape();
    if (shape.size() < 2) {
      std::ostringstream os;
      os << "must have rank >= 2 (N, C, ...), got shape " << runtime::ShapeTuple(shape);
      data.Fail(os.str());
    }
    const int64_t channels = shape[1];
    TVMLITE_CHECK_KIND(groups_attr == 0 || channels % groups_attr == 0, ValueError)
        << args.kernel() << ": the " << channels << " channels of data " << runtime::ShapeTuple(shape)
        << " do not split into " << groups_attr << " groups";
    gamma.CheckShape({channels});
    beta.CheckShape({channels});
    out.CheckShape(shape);
    BoundEpilogue bound = epi.Bind(shape, args.Rest(3), args.kernel());
    if (data.size() == 0) return;
    p.groups = groups_attr ? groups_attr : channels;
    p.per_group = channels / p.groups;
    p.plane = 1;
    for (size_t i = 2; i < shape.size(); ++i) p.plane *= shape[i];
    p.len = p.per_group * p.plane;
    const int64_t rows = shape[0] * p.groups;
    if (rows >= 4 * runtime::NumThreads() || rows * p.len <= 2 * kChunk) {
      runtime::ParallelFor(
          rows,
          [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
              Normalize(p, r, Finish(RowMoments(p.x + r * p.len, p.len), epsilon), 0, p.len);
              bound.Apply(p.y, r * p.len, p.len);
            }
          },
          std::max<int64_t>(1, 16384 / p.len));
      return;
    }
    // Few large groups: every chunk of every group in parallel, then the same merges in the same order.
    const int64_t chunks = (p.len + kChunk - 1) / kChunk, items = rows * chunks;
    std::vector<Moments> parts(static_cast<size_t>(items));
    runtime::ParallelTiles(
        rows, p.len, kChunk,
        [&](int64_t r, int64_t b, int64_t e) {
          parts[r * chunks + b / kChunk] = ChunkMoments(p.x + r * p.len + b, e - b);
        },
        16);
    std::vector<Stats> stats;
    for (int64_t r = 0; r < rows; ++r) {
      Moments m;
      for (int64_t k = 0; k < chunks; ++k) Merge(&m, parts[r * chunks + k]);
      stats.push_back(Finish(m, epsilon));
    }
    runtime::ParallelTiles(
        rows, p.len, kChunk,
        [&](int64_t r, int64_t b, int64_t e) {
          Normalize(p, r, stats[r], b, e);
          bound.Apply(p.y, r * p.len + b, e - b);
        },
        16);
  });
}

double Epsilon(const KernelAttrs& attrs) {
  const double epsilon = attrs.GetFloat("epsilon", 1e-5);
  TVMLITE_CHECK_KIND(epsilon >= 0, ValueError) << attrs.kernel() << ": epsilon must be >= 0, got " << epsilon;
  return epsilon;
}

TVMLITE_REGISTER_GLOBAL("topi.nn.group_norm").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.nn.group_norm";
  KernelAttrs attrs(kName, attrs_in);
  const int64_t groups = attrs.GetInt("num_groups", 1);
  TVMLITE_CHECK_KIND(groups > 0, ValueError) << kName << ": num_groups must be positive, got " << groups;
  const double epsilon = Epsilon(attrs);
  const std::string stash = attrs.GetString("stash_type", "float32");
  TVMLITE_CHECK_KIND(
      stash.empty() || stash == "float32" || stash == "float64" || stash == "float16" || stash == "bfloat16",
      ValueError)
      << kName << ": stash_type must be float16, bfloat16, float32, float64 or empty, got '" << stash << "'";
  const bool stash64 = stash == "float64";
  // The reference adds epsilon in the stash type: float32 unless float64.
  return MakeNormKernel(kName, groups, stash64 ? epsilon : static_cast<float>(epsilon), stash64, attrs.GetEpilogue());
});

TVMLITE_REGISTER_GLOBAL("topi.nn.instance_norm").set_kernel_factory().set_body_typed([](Map<String, Any> attrs_in) {
  static const std::string kName = "topi.nn.instance_norm";
  KernelAttrs attrs(kName, attrs_in);
  const double epsilon = Epsilon(attrs);
  return MakeNormKernel(kName, 0, static_cast<float>(epsilon), false, attrs.GetEpilogue());
});

TVMLITE_REGISTER_OP_KERNEL("nn.group_norm", "topi.nn.group_norm");
TVMLITE_REGISTER_OP_KERNEL("nn.instance_norm", "topi.nn.instance_norm");

}  // namespace
}  // namespace topi
}  // namespace tvmlite
