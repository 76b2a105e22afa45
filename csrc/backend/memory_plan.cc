/*!
 * \file memory_plan.cc
 * \brief PlanMemory (memory_plan.h): storage ids by liveness, best-fit reuse. Also the global
 * relay.backend._PlanMemory, the planner on plain lists, for its unit tests.
 */
#include "./memory_plan.h"

#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/error.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>

namespace tvmlite {
namespace backend {

namespace {

/*! \brief A storage is reused for an entry of `bytes` only up to this many times larger (TVM's match_range). */
constexpr int64_t kMatchRange = 16;

int64_t RootOf(const PlanInput& in, int64_t e) {
  for (size_t steps = 0; in.entries[e].alias_of >= 0; ++steps) {
    TVMLITE_CHECK_KIND(steps <= in.entries.size(), ValueError) << "PlanMemory: a cycle of views at entry " << e;
    e = in.entries[e].alias_of;
  }
  return e;
}

}  // namespace

MemoryPlan PlanMemory(const PlanInput& in) {
  const int64_t num_entries = static_cast<int64_t>(in.entries.size());
  auto check = [&](int64_t e) {
    TVMLITE_CHECK_KIND(e >= 0 && e < num_entries, ValueError) << "PlanMemory: entry " << e << " out of range";
  };
  std::vector<int64_t> root(num_entries);
  for (int64_t e = 0; e < num_entries; ++e) {
    if (in.entries[e].alias_of >= 0) check(in.entries[e].alias_of);
    root[e] = RootOf(in, e);
  }
  // last_use[r]: the last node reading the root entry r or a view of it (-1: none yet); pinned: a graph output.
  std::vector<int64_t> last_use(num_entries, -1);
  std::vector<bool> pinned(num_entries, false);
  for (size_t n = 0; n < in.nodes.size(); ++n) {
    for (int64_t e : in.nodes[n].inputs) check(e), last_use[root[e]] = static_cast<int64_t>(n);
    for (int64_t e : in.nodes[n].outputs) check(e), last_use[root[e]] = std::max<int64_t>(last_use[root[e]], n);
  }
  for (int64_t e : in.outputs) check(e), pinned[root[e]] = true;

  MemoryPlan plan;
  plan.storage_id.assign(num_entries, -1);
  std::vector<int64_t> free_list, free_dynamic;  // storage ids
  // Entries whose storage is released after node n.
  std::vector<std::vector<int64_t>> release(in.nodes.size());
  for (int64_t e = 0; e < num_entries; ++e) {
    if (root[e] == e && in.entries[e].planned && !pinned[e] && last_use[e] >= 0) release[last_use[e]].push_back(e);
  }
  for (size_t n = 0; n < in.nodes.size(); ++n) {
    for (int64_t e : in.nodes[n].outputs) {
      if (root[e] != e || !in.entries[e].planned || plan.storage_id[e] >= 0) continue;
      if (in.entries[e].dynamic) {
        if (free_dynamic.empty()) {
          plan.storage_id[e] = static_cast<int64_t>(plan.storage_bytes.size());
          plan.storage_bytes.push_back(0);
          plan.storage_dynamic.push_back(true);
        } else {
          plan.storage_id[e] = free_dynamic.back();
          free_dynamic.pop_back();
        }
        continue;
      }
      const int64_t bytes = std::max<int64_t>(in.entries[e].bytes, 1);
      plan.intermediate_bytes += in.entries[e].bytes;
      // Best fit: the smallest free storage in [bytes, bytes * kMatchRange]; else the largest smaller one, grown.
      // Among equal sizes the most recently freed (free_list is in release order): its lines are likeliest still in
      // cache, since the node that last read it ran just before.
      auto best = free_list.end(), grow = free_list.end();
      for (auto it = free_list.begin(); it != free_list.end(); ++it) {
        int64_t size = plan.storage_bytes[*it];
        if (size >= bytes && size / kMatchRange <= bytes) {
          if (best == free_list.end() || size <= plan.storage_bytes[*best]) best = it;
        } else if (size < bytes) {
          if (grow == free_list.end() || size >= plan.storage_bytes[*grow]) grow = it;
        }
      }
      auto pick = best != free_list.end() ? best : grow;
      int64_t sid;
      if (pick != free_list.end()) {
        sid = *pick;
        free_list.erase(pick);
        plan.storage_bytes[sid] = std::max(plan.storage_bytes[sid], bytes);
      } else {
        sid = static_cast<int64_t>(plan.storage_bytes.size());
        plan.storage_bytes.push_back(bytes);
        plan.storage_dynamic.push_back(false);
      }
      plan.storage_id[e] = sid;
    }
    for (int64_t e : release[n]) {
      const int64_t sid = plan.storage_id[e];
      if (sid >= 0) (plan.storage_dynamic[sid] ? free_dynamic : free_list).push_back(sid);
    }
  }
  for (int64_t e = 0; e < num_entries; ++e) {
    if (root[e] != e) plan.storage_id[e] = plan.storage_id[root[e]];
  }
  for (int64_t b : plan.storage_bytes) plan.planned_bytes += b;
  return plan;
}

namespace {

std::vector<int64_t> Ints(const runtime::Array<int64_t>& a) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < a.size(); ++i) out.push_back(a[i]);
  return out;
}

TVMLITE_REGISTER_GLOBAL("relay.backend._PlanMemory")
    .set_body_typed([](runtime::Array<int64_t> bytes, runtime::Array<int64_t> alias_of, runtime::Array<int64_t> planned,
                       runtime::Array<runtime::Array<int64_t>> node_inputs,
                       runtime::Array<runtime::Array<int64_t>> node_outputs, runtime::Array<int64_t> outputs) {
      TVMLITE_CHECK_KIND(bytes.size() == alias_of.size() && bytes.size() == planned.size(), ValueError)
          << "_PlanMemory: bytes, alias_of and planned differ in length";
      TVMLITE_CHECK_KIND(node_inputs.size() == node_outputs.size(), ValueError)
          << "_PlanMemory: node_inputs and node_outputs differ in length";
      PlanInput in;
      for (size_t e = 0; e < bytes.size(); ++e) in.entries.push_back({bytes[e], alias_of[e], planned[e] != 0});
      for (size_t n = 0; n < node_inputs.size(); ++n) {
        in.nodes.push_back({Ints(node_inputs[n]), Ints(node_outputs[n])});
      }
      in.outputs = Ints(outputs);
      MemoryPlan plan = PlanMemory(in);
      return runtime::Array<runtime::Any>{runtime::Array<int64_t>(plan.storage_id),
                                          runtime::Array<int64_t>(plan.storage_bytes), plan.planned_bytes,
                                          plan.intermediate_bytes};
    });

}  // namespace
}  // namespace backend
}  // namespace tvmlite
