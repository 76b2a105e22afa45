/*!
 * \file fuse_depthwise_chains.h
 * \brief A lowering step after the groups become kernel nodes: a depthwise conv node and the pointwise (1x1) conv
 * nodes around it become one topi.nn.depthwise_chain_nchwc node, which computes them band by band of rows so that
 * the wide tensors between them stay in cache (MobileNet's expand -> depthwise -> project).
 *
 *   FuseDepthwiseChains(&nodes, &arg_nodes, &input_nodes, &heads);   // before the memory plan
 *
 * A neighbour joins when it is a native topi.nn.conv2d_nchwc node on blocked data, of one group (before the
 * depthwise: a 1x1 expansion or the network's strided stem) or a 1x1 kernel with stride 1 and no padding (after it),
 * and the tensor between it and the depthwise has no other reader (and is no output of the graph). The chain forms only where topi.nn.depthwise_chain_band says banding pays (AVX-512, an intermediate
 * larger than L2) and the chain kernel's factory accepts the stages' attrs. Node ids are renumbered.
 */
#ifndef TVMLITE_BACKEND_FUSE_DEPTHWISE_CHAINS_H_
#define TVMLITE_BACKEND_FUSE_DEPTHWISE_CHAINS_H_

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "./graph_nodes.h"

namespace tvmlite {
namespace backend {

void FuseDepthwiseChains(std::vector<GNode>* nodes, std::vector<int64_t>* arg_nodes,
                         std::unordered_set<int64_t>* input_nodes, std::vector<Entry>* heads);

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_FUSE_DEPTHWISE_CHAINS_H_
