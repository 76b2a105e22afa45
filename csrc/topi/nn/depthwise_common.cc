/*!
 * \file depthwise_common.cc
 * \brief The per-call checks and register tail the depthwise kernels share (depthwise_common.h), compiled once.
 */
#include "depthwise_common.h"

#include <tvmlite/runtime/shape.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include "match_fused_tail.h"

namespace tvmlite {
namespace topi {

namespace {

[[noreturn]] void FailShape(const char* kernel, const char* what, const std::vector<int64_t>& shape,
                            const std::string& expected) {
  std::ostringstream os;
  os << kernel << ": " << what << " has shape " << runtime::ShapeTuple(shape) << ", expected " << expected;
  TVMLITE_THROW(ValueError) << os.str();
}

}  // namespace

DepthwiseDims CheckDepthwiseInputs(const char* kernel, int dims, int64_t groups,
                                   const std::vector<int64_t>& kernel_size, int64_t data_block, const TensorArg& data,
                                   const TensorArg& weight) {
  // The dims' names in the messages: data (N, C/c, D, H, W, c), weight (C/c, 1, KD, KH, KW, 1, c).
  const char* spatial = dims == 3 ? "D, H, W" : "H, W";
  const char* taps = dims == 3 ? "KD, KH, KW" : "KH, KW";
  DepthwiseDims d{};
  d.blocked = data.ndim() == dims + 3;
  if (data.ndim() != dims + 2 && !d.blocked) {
    data.Fail(std::string("must be (N, C/c, ") + spatial + ", c) or (N, C, " + spatial + "), got rank " +
              std::to_string(data.ndim()));
  }
  d.N = data.dim(0), d.CB = data.dim(1);
  for (int i = 0; i < dims; ++i) d.in[i] = data.dim(2 + i);
  d.c = d.blocked ? data.dim(dims + 2) : 1;
  d.C = d.CB * d.c;
  const int64_t CB = d.CB, c = d.c, C = d.C;
  if (data_block >= 0 && data_block != (d.blocked ? c : 0)) {
    data.Fail("does not match data_layout (block " + std::to_string(data_block) + "): its shape is " +
              std::to_string(data.ndim()) + "-D" + (d.blocked ? " with block " + std::to_string(c) : ""));
  }
  const std::vector<int64_t> ws = weight.shape();
  if (static_cast<int>(ws.size()) != (d.blocked ? dims + 4 : dims + 2)) {
    FailShape(kernel, "weight", ws,
              d.blocked ? std::string("(C/c, 1, ") + taps + ", 1, c) for blocked data"
                        : std::string("(C, 1, ") + taps + ") for " + (dims == 3 ? "NCDHW" : "NCHW") + " data");
  }
  const int64_t out_channels = d.blocked ? ws[0] * ws.back() : ws[0];
  if (out_channels != C && C > 0 && out_channels % C == 0 && ws[1] == 1) {
    TVMLITE_THROW(ValueError) << kernel << ": channel multiplier " << out_channels / C
                              << " is not supported (weight has " << out_channels << " output channels for " << C
                              << " input channels; only multiplier 1)";
  }
  if (ws[0] != CB || ws[1] != 1 || (d.blocked && (ws[dims + 2] != 1 || ws[dims + 3] != c))) {
    FailShape(kernel, "weight", ws,
              d.blocked ? "(" + std::to_string(CB) + ", 1, " + taps + ", 1, " + std::to_string(c) + ")"
                        : "(" + std::to_string(C) + ", 1, " + taps + ")");
  }
  for (int i = 0; i < dims; ++i) d.kernel[i] = ws[2 + i];
  if (groups >= 0 && groups != C) {
    TVMLITE_THROW(ValueError) << kernel << ": groups = " << groups << " must equal the channels (" << C
                              << ") of a depthwise convolution";
  }
  const bool kernel_matches =
      kernel_size.size() == static_cast<size_t>(dims) && std::equal(d.kernel, d.kernel + dims, kernel_size.begin());
  if (!kernel_size.empty() && !kernel_matches) {
    std::ostringstream os;
    os << "kernel_size " << runtime::ShapeTuple(kernel_size);
    FailShape(kernel, "weight", ws, os.str());
  }
  return d;
}

DepthwiseOutput BindDepthwiseOutput(const char* kernel, const Epilogue& epilogue, const KernelArgs& args,
                                    const DepthwiseDims& d, const std::vector<int64_t>& out_spatial) {
  DepthwiseOutput o;
  o.shape = {d.N, d.blocked ? d.CB : d.C};
  o.shape.insert(o.shape.end(), out_spatial.begin(), out_spatial.end());
  if (d.blocked) o.shape.push_back(d.c);
  args.Output().CheckShape(o.shape);
  const std::vector<runtime::NDArray> inputs = args.Rest(2);
  o.bound = epilogue.Bind(o.shape, inputs, kernel);  // checks the epilogue's inputs
  o.bias = nullptr;
  o.lo = -std::numeric_limits<float>::infinity(), o.hi = std::numeric_limits<float>::infinity();
  std::vector<int64_t> channel_shape(o.shape.size(), 1);  // (1, C/c, 1.., c) or (1, C, 1..)
  channel_shape[1] = o.shape[1];
  if (d.blocked) channel_shape.back() = o.shape.back();
  FusedTail tail;
  o.fused =
      MatchFusedTail(epilogue, inputs, o.shape, channel_shape, &tail) && DepthwiseRowTail(tail, &o.bias, &o.lo, &o.hi);
  return o;
}

}  // namespace topi
}  // namespace tvmlite
