/*!
 * \file fuse_depthwise_chains.h
 * \brief A lowering step after the groups become kernel nodes: a depthwise conv node and the pointwise (1x1) conv
 * nodes around it become one topi.nn.depthwise_chain_nchwc node, which computes them band by band of rows (an
 * expand and a depthwise over a small plane: group by group of channel blocks) so that the wide tensors between them
 * stay in cache (MobileNet's expand -> depthwise -> project).
 *
 *   FuseDepthwiseChains(&nodes, &arg_nodes, &input_nodes, &heads);   // before the memory plan
 *
 * A neighbour joins when it is a native topi.nn.conv2d_nchwc node on blocked data, of one group (before the
 * depthwise: a 1x1 expansion or the network's strided stem) or a 1x1 kernel with stride 1 and no padding (after it),
 * and the tensor between it and the depthwise has no other reader (and is no output of the graph). The chain forms
 * where topi.nn.depthwise_chain_band says banding pays (AVX-512 or AVX2, an intermediate larger than L2), or, over
 * smaller planes, as a 1x1 expand and the depthwise only (the project stays a node) where
 * topi.nn.depthwise_chain_split takes them (AVX-512, 16-channel blocks: computed by groups of channel blocks, the
 * expanded tensor never written);
 * and only where the chain kernel's factory accepts the stages' attrs. Node ids are renumbered.
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
