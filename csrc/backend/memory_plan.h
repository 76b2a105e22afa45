/*!
 * \file memory_plan.h
 * \brief The graph executor's memory plan: which intermediate tensors share a storage buffer.
 *
 *   PlanInput in;                 // one entry per tensor value, nodes in execution order
 *   in.entries = {{bytes, alias_of, planned}, ...};
 *   in.nodes = {{inputs, outputs}, ...};
 *   in.outputs = {head entries};
 *   MemoryPlan plan = PlanMemory(in);   // plan.storage_id[e], plan.storage_bytes[s]
 *
 * Algorithm (TVM's graph memory planner, by liveness): walk the nodes in order; each planned output gets the free
 * storage that fits it best (the smallest one at least its size; failing that, the largest free one, grown), or a
 * new one. A storage is freed once every reader of its tenant has run: a view (alias_of >= 0) shares its base's
 * storage and its readers count as readers of the base. Outputs of the graph (and their bases) are never freed.
 * A node's outputs are placed before its inputs are released, so no kernel writes over its own inputs.
 *
 * Invariants the unit test checks by simulation: two entries live at the same time never share a storage, and each
 * storage is at least as large as every entry placed in it. Unplanned entries (inputs, params, values a reference
 * node returns) get storage id -1.
 *
 * Entries of symbolic shape (dynamic) have no size at build: they share storages among themselves by liveness alone
 * (the most recently freed first), never with static entries, and their storages are planned at 0 bytes: the
 * executor grows one when an entry placed in it needs more at run time (no tenant is live then, by liveness).
 */
#ifndef TVMLITE_BACKEND_MEMORY_PLAN_H_
#define TVMLITE_BACKEND_MEMORY_PLAN_H_

#include <cstdint>
#include <vector>

namespace tvmlite {
namespace backend {

struct PlanEntry {
  int64_t bytes = 0;
  int64_t alias_of = -1;  // a view: the entry whose storage it shares (-1: none)
  bool planned = false;   // true: a native node's output that needs a storage (ignored for views)
  bool dynamic = false;   // a symbolic shape: bytes unknown until run time
};

struct PlanNode {
  std::vector<int64_t> inputs;   // entry ids read
  std::vector<int64_t> outputs;  // entry ids written
};

struct PlanInput {
  std::vector<PlanEntry> entries;
  std::vector<PlanNode> nodes;   // in execution order
  std::vector<int64_t> outputs;  // entries the graph returns
};

struct MemoryPlan {
  std::vector<int64_t> storage_id;     // per entry; a view has its base's; -1: not in the pool
  std::vector<int64_t> storage_bytes;  // per storage (0 for a dynamic one)
  std::vector<bool> storage_dynamic;   // per storage: holds dynamic entries (sized at run time)
  int64_t planned_bytes = 0;           // sum of storage_bytes
  int64_t intermediate_bytes = 0;      // sum of the planned entries' bytes (what no sharing would take)
};

MemoryPlan PlanMemory(const PlanInput& input);

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_MEMORY_PLAN_H_
