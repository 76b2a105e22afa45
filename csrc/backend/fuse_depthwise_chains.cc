/*!
 * \file fuse_depthwise_chains.cc
 * \brief Depthwise conv nodes and their pointwise neighbours -> topi.nn.depthwise_chain_nchwc nodes (see the header).
 *
 * Per depthwise node: its expand (the producer) and project (the consumer) neighbours that may join; the chain of
 * all of them where topi.nn.depthwise_chain_band says banding pays; else, over smaller planes, the chain of a 1x1
 * expand and the depthwise alone where topi.nn.depthwise_chain_split takes them (the kernel's channel-split path:
 * the same policies the kernel runs by, so a chain forms exactly where one of its paths will run).
 * The chain node takes the first stage's data, then per stage its weight and epilogue inputs (each stage node's
 * inputs after its data); its attrs are the stages' kernel attrs prefixed "expand.", "depthwise.", "project.", and
 * "stages". It replaces the last stage's node (so readers of that output are unchanged); the others are dropped.
 */
#include "./fuse_depthwise_chains.h"

#include <tvmlite/runtime/error.h>
#include <tvmlite/runtime/registry.h>

#include <optional>
#include <string>

namespace tvmlite {
namespace backend {
namespace {

using runtime::Any;
using runtime::Array;
using runtime::Map;
using runtime::String;

const char kConv[] = "topi.nn.conv2d_nchwc";
const char kDepthwise[] = "topi.nn.depthwise_conv2d_nchwc";
const char kChain[] = "topi.nn.depthwise_chain_nchwc";

std::vector<int64_t> ShapeOf(const ir::Type& t) {
  const auto* tt = t.as<ir::TensorTypeNode>();
  if (tt == nullptr) return {};
  return tt->static_shape().value_or(std::vector<int64_t>{});
}

/*! \brief An int-list attr (or one int) as ints; fallback when absent, nullopt when it is something else. */
std::optional<std::vector<int64_t>> Ints(const Map<String, Any>& attrs, const char* key,
                                         std::vector<int64_t> fallback) {
  const Any* v = attrs.get()->Find(Any(String(key)));
  if (v == nullptr) return fallback;
  if (auto i = v->as<int64_t>()) return std::vector<int64_t>{*i};
  auto arr = v->as<Array<Any>>();
  if (!arr) return std::nullopt;
  std::vector<int64_t> out;
  for (const Any& x : *arr) {
    auto i = x.as<int64_t>();
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

bool AllEqual(const std::optional<std::vector<int64_t>>& v, int64_t value) {
  if (!v) return false;
  for (int64_t x : *v) {
    if (x != value) return false;
  }
  return true;
}

/*! \brief The data, weight and output shapes of a conv node: (N, C/c, H, W, c), 6-D, 5-D; empty when not. */
bool BlockedShapes(const std::vector<GNode>& nodes, const GNode& n, std::vector<int64_t>* data,
                   std::vector<int64_t>* weight, std::vector<int64_t>* out) {
  if (!n.native || n.inputs.size() < 2 || n.out_types.size() != 1) return false;
  const Entry d = n.inputs[0], w = n.inputs[1];
  *data = ShapeOf(nodes[d.node].out_types[d.index]);
  *weight = ShapeOf(nodes[w.node].out_types[w.index]);
  *out = ShapeOf(n.out_types[0]);
  return data->size() == 5 && weight->size() == 6 && out->size() == 5;
}

/*! \brief A 1x1 conv with stride 1, no padding, dilation 1 and one group, on blocked tensors. */
bool IsPointwise(const std::vector<GNode>& nodes, const GNode& n) {
  std::vector<int64_t> data, weight, out;
  if (n.func_name != kConv || !BlockedShapes(nodes, n, &data, &weight, &out)) return false;
  const Map<String, Any>& a = n.kernel_attrs;
  return weight[2] == 1 && weight[3] == 1 && AllEqual(Ints(a, "strides", {1}), 1) &&
         AllEqual(Ints(a, "padding", {0}), 0) && AllEqual(Ints(a, "dilation", {1}), 1) &&
         AllEqual(Ints(a, "groups", {1}), 1);
}

/*!
 * \brief Whether a stage's epilogue inputs (its inputs after data and weight) are constant over the batch, rows and
 * columns: the chain kernel runs an expand or (before a project) depthwise epilogue on its row scratch only then.
 */
bool PerChannelEpilogue(const std::vector<GNode>& nodes, const GNode& n) {
  for (size_t i = 2; i < n.inputs.size(); ++i) {
    const std::vector<int64_t> shape = ShapeOf(nodes[n.inputs[i].node].out_types[n.inputs[i].index]);
    const size_t rank = shape.size();
    for (size_t axis : {0, 2, 3}) {  // N, H, W of (N, C/c, H, W, c), right-aligned
      if (rank + axis >= 5 && shape[rank + axis - 5] != 1) return false;
    }
  }
  return true;
}

/*! \brief The channel block of a node's (5-D) output, 0 when it has none. */
int64_t OutBlock(const GNode& n) {
  const std::vector<int64_t> shape = ShapeOf(n.out_types[0]);
  return shape.size() == 5 ? shape[4] : 0;
}

/*! \brief A conv of one group on blocked tensors: a 1x1 expansion, or a network's stem before its first depthwise. */
bool IsExpand(const std::vector<GNode>& nodes, const GNode& n) {
  std::vector<int64_t> data, weight, out;
  return n.func_name == kConv && BlockedShapes(nodes, n, &data, &weight, &out) &&
         AllEqual(Ints(n.kernel_attrs, "groups", {1}), 1);
}

/*! \brief The chain's attrs: "stages" and each stage's attrs under its prefix. */
Map<String, Any> ChainAttrs(const std::vector<std::pair<std::string, const GNode*>>& stages) {
  Map<String, Any> attrs;
  std::string names;
  for (const auto& [name, node] : stages) {
    names += (names.empty() ? "" : ",") + name;
    for (const auto& kv : node->kernel_attrs) attrs.Set(String(name + "." + std::string(kv.first)), kv.second);
  }
  attrs.Set(String("stages"), String(names));
  return attrs;
}

}  // namespace

void FuseDepthwiseChains(std::vector<GNode>* nodes_ptr, std::vector<int64_t>* arg_nodes,
                         std::unordered_set<int64_t>* input_nodes, std::vector<Entry>* heads) {
  std::vector<GNode>& nodes = *nodes_ptr;
  runtime::Function band_policy = runtime::Registry::Get("topi.nn.depthwise_chain_band");
  runtime::Function split_policy = runtime::Registry::Get("topi.nn.depthwise_chain_split");
  runtime::Function factory = runtime::Registry::Get(kChain);
  if (!band_policy.defined() || !split_policy.defined() || !factory.defined()) return;
  // Readers of each node's outputs (graph outputs count as readers that are no node: -1).
  std::vector<int64_t> uses(nodes.size(), 0), reader(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const Entry& e : nodes[i].inputs) {
      ++uses[e.node];
      reader[e.node] = static_cast<int64_t>(i);
    }
  }
  for (const Entry& e : *heads) uses[e.node] += 2;  // never a chain's inner tensor
  std::vector<bool> removed(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GNode& dw = nodes[i];
    std::vector<int64_t> data, weight, out;
    // Blocked tensors (the channel blocks the banded path takes: its policy's answer below), 8 or 16 channels out
    // of a project.
    if (dw.func_name != kDepthwise || !BlockedShapes(nodes, dw, &data, &weight, &out)) continue;
    const int64_t producer = dw.inputs[0].node;
    const bool expand = uses[producer] == 1 && IsExpand(nodes, nodes[producer]) && !removed[producer] &&
                        PerChannelEpilogue(nodes, nodes[producer]);
    const int64_t consumer = uses[i] == 1 ? reader[i] : -1;
    bool project = consumer >= 0 && nodes[consumer].inputs[0].node == static_cast<int64_t>(i) &&
                   IsPointwise(nodes, nodes[consumer]) && PerChannelEpilogue(nodes, dw) &&
                   OutBlock(nodes[consumer]) % 8 == 0 && OutBlock(nodes[consumer]) <= 16;
    if (!expand && !project) continue;
    const auto strides = Ints(dw.kernel_attrs, "strides", {1});
    const auto dilation = Ints(dw.kernel_attrs, "dilation", {1});
    if (!strides || !dilation || strides->empty() || dilation->empty()) continue;
    const int64_t reach = (weight[2] - 1) * dilation->front();
    const int64_t band = band_policy(data[1] * data[4], data[4], data[2], data[3], out[2], out[3], reach,
                                     strides->front(), expand, project)
                             .cast<int64_t>();
    if (band <= 0) {
      // Banding does not pay (the intermediates fit L2): the channel-split chain of a 1x1 expand and the depthwise,
      // where its policy takes the plane. The project stays its own node: it reads every channel of each pixel.
      std::vector<int64_t> x, w, e;
      if (!expand || !IsPointwise(nodes, nodes[producer]) || !BlockedShapes(nodes, nodes[producer], &x, &w, &e) ||
          split_policy(x[1] * x[4], data[1] * data[4], data[2], data[3]).cast<int64_t>() <= 0) {
        continue;
      }
      project = false;
    }
    std::vector<std::pair<std::string, const GNode*>> stages;
    if (expand) stages.push_back({"expand", &nodes[producer]});
    stages.push_back({"depthwise", &dw});
    if (project) stages.push_back({"project", &nodes[consumer]});
    GNode chain;
    chain.is_op = true;
    chain.native = true;
    chain.func_name = kChain;
    chain.kernel_attrs = ChainAttrs(stages);
    try {
      factory(chain.kernel_attrs);
    } catch (const runtime::Error&) {
      continue;  // stages the chain kernel does not take stay apart
    }
    chain.inputs = {stages.front().second->inputs[0]};
    for (const auto& stage : stages) {
      chain.inputs.insert(chain.inputs.end(), stage.second->inputs.begin() + 1, stage.second->inputs.end());
    }
    const std::string& last_name = stages.back().second->name;
    chain.name = "tvmlite_chain_" + (last_name.rfind("tvmlite_", 0) == 0 ? last_name.substr(8) : last_name);
    chain.out_types = stages.back().second->out_types;
    const int64_t last = project ? consumer : static_cast<int64_t>(i);
    if (expand) removed[producer] = true;
    if (project) removed[i] = true;
    nodes[last] = std::move(chain);
  }
  // Drop the removed nodes and renumber.
  std::vector<int64_t> new_id(nodes.size(), -1);
  std::vector<GNode> kept;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (removed[i]) continue;
    new_id[i] = static_cast<int64_t>(kept.size());
    kept.push_back(std::move(nodes[i]));
  }
  if (kept.size() == nodes.size()) {
    nodes = std::move(kept);
    return;
  }
  auto remap = [&](Entry* e) {
    TVMLITE_ICHECK(new_id[e->node] >= 0) << "FuseDepthwiseChains: a dropped node is still read";
    e->node = new_id[e->node];
  };
  for (GNode& n : kept) {
    for (Entry& e : n.inputs) remap(&e);
  }
  for (Entry& e : *heads) remap(&e);
  for (int64_t& a : *arg_nodes) a = new_id[a];
  std::unordered_set<int64_t> inputs;
  for (int64_t a : *input_nodes) inputs.insert(new_id[a]);
  *input_nodes = std::move(inputs);
  nodes = std::move(kept);
}

}  // namespace backend
}  // namespace tvmlite
