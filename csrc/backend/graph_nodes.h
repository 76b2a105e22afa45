/*!
 * \file graph_nodes.h
 * \brief The graph the lowering builds (graph_codegen.cc) before it writes TVM's graph JSON: nodes in execution
 * order, each output an Entry. Shared with the steps that rewrite it (fuse_depthwise_chains.h).
 */
#ifndef TVMLITE_BACKEND_GRAPH_NODES_H_
#define TVMLITE_BACKEND_GRAPH_NODES_H_

#include <tvmlite/ir/expr.h>
#include <tvmlite/ir/type.h>
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/string.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tvmlite {
namespace backend {

/*! \brief Output `index` of node `node`. */
struct Entry {
  int64_t node;
  int64_t index;
};

struct GNode {
  bool is_op = false;  // "tvm_op" (else "null": an input or a param)
  std::string name;
  std::string func_name;
  runtime::Map<runtime::String, runtime::Any> kernel_attrs;
  std::vector<Entry> inputs;
  std::vector<ir::Type> out_types;
  bool native = false;        // a topi kernel: its outputs are planned
  std::string reason;         // a reference node: why no native kernel runs the group
  bool returns = false;       // its kernel returns its outputs (MakeReturningKernel): they are not planned
  bool returns_view = false;  // ... a view of its first input's memory (dyn.reshape)
  // Inside If branches: runs only when each entry (a bool scalar) holds the value (graph_executor.cc, "If").
  std::vector<std::pair<Entry, bool>> guard;
  // An output of symbolic shape (a native node or a view): the group as a shape function of its leaves
  // (shape_func.h) and each leaf's entries; the executor computes the output shapes per input shape.
  ir::Function shape_func;
  std::vector<std::vector<Entry>> shape_args;
  // Its outputs follow from the graph inputs' shapes alone (per_shape.h): the executor computes them once per
  // input-shape signature.
  bool per_shape = false;
  // A "__loop" / "__scan" node: its body's graph JSON, written as the node's attrs.body (graph_codegen.cc, LowerLoop).
  std::string body_json;
};

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_GRAPH_NODES_H_
