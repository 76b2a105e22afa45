/*!
 * \file graph_builder.h
 * \brief The lowering's builder (relay.backend.LowerToGraph), shared by its two files: graph_codegen.cc makes the
 * graph (walks main, inputs, params, If, Loop and Scan, the JSON), group_lowering.cc lowers one fused group to its
 * node (a view, a native kernel with its epilogue program, or the reference). graph_codegen.cc's comment describes
 * the whole.
 */
#ifndef TVMLITE_BACKEND_GRAPH_BUILDER_H_
#define TVMLITE_BACKEND_GRAPH_BUILDER_H_

#include <tvmlite/ir/expr_functor.h>
#include <tvmlite/ir/module.h>
#include <tvmlite/ir/op.h>
#include <tvmlite/relay/attrs/control.h>
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/relay/layout.h>
#include <tvmlite/relay/op_facts.h>
#include <tvmlite/relay/transform.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/json.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/serialization.h>
#include <tvmlite/runtime/structural.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "./graph_nodes.h"
#include "./shape_func.h"

namespace tvmlite {
namespace backend {

using namespace ir;  // NOLINT(*)
using runtime::Array;
using runtime::Map;
using runtime::NDArray;
using runtime::Registry;

inline constexpr const char* kReference = "relay.backend.reference";
inline constexpr const char* kNop = "__nop";

void FlattenType(const Type& t, std::vector<Type>* out);

size_t FlatCount(const Type& t);

/*! \brief The static shape of a tensor type, or nullopt (dynamic, or not a tensor). */
std::optional<std::vector<int64_t>> StaticShape(const Type& t);

int64_t TensorBytes(const Type& t);

/*! \brief A group input a kernel reads with another shape (nn.bias_add's bias): a view node, made on success. */
struct PendingView {
  Entry source;
  Type type;
};

/*! \brief A group to lower: its root expression and its leaves (inputs), each with its graph entries. */
struct Group {
  Expr root;
  std::vector<Expr> leaves;                              // group params (Vars) or, for one op, its args
  std::vector<std::vector<Entry>> leaf_entries;          // per leaf
  std::unordered_map<const Object*, size_t> leaf_index;  // leaf -> position
  Function func;                                         // for the reference path
  std::string name;                                      // the node's name
};

class GraphBuilder {
 public:
  GraphBuilder(const IRModule& mod, bool depthwise_chains)
      : main_(mod->Lookup("main")), depthwise_chains_(depthwise_chains) {}

  Map<String, Any> Run();

 private:
  // -- walking main --------------------------------------------------------------------------------------------
  std::vector<Entry> Lower(const Expr& root);

  /*!
   * \brief The tuple-valued calls of main read only as TupleGetItem(call, 0) (nn.layer_norm's mean and inv_std
   * unused): a kernel computing field 0 alone can run them.
   */
  void FindFirstFieldOnly(const Expr& body);

  /*! \brief The values a node of main reads (nested functions are part of their caller's group). */
  std::vector<Expr> DataChildren(const Expr& e);

  /*! \brief The entries of a lowered value; a constant becomes a param node on first use. */
  std::vector<Entry> EntriesOf(const Expr& e);

  static bool IsPrimitive(const Expr& e);

  std::vector<Entry> LowerNode(const Expr& e);

  int64_t AddNode(GNode n, bool is_input = false);

  /*!
   * \brief The param node of a constant: one per array, and one per content. An If's branches are optimised as
   * graphs of their own, so each folds (packs, pads) its own copy of every weight it reads; equal arrays share a
   * param, so a merged decoder holds its weights once, as decoder_with_past does (Whisper-tiny: 310 -> 198 MB).
   */
  int64_t AddParam(const NDArray& data, const Type& type);

  /*! \brief Whether a constant's bytes are its value: contiguous, whole bytes per element, not strings. */
  static bool Comparable(const NDArray& a);

  /*! \brief The param node already holding an array of a's dtype, shape and bytes, else -1. */
  int64_t EqualParam(const NDArray& a);

  // -- groups --------------------------------------------------------------------------------------------------
  std::vector<Entry> LowerCall(const Call& call, const CallNode* c);

  std::vector<Entry> LowerGroup(const Group& g, const Call& call);

  /*!
   * \brief Mark the nodes made for group g (ids from first on) per_shape when their values follow from the graph
   * inputs' shapes alone (per_shape.h), and note what follows from those shapes for the groups after it.
   */
  void MarkPerShape(const Group& g, size_t first);

  static bool AllStatic(const std::vector<Type>& types);

  /*!
   * \brief if_call(cond, (args...), then, else) (relay/backend/control_flow.py): each branch's body lowered with its
   * params bound to the args' entries and its nodes guarded by cond (the executor skips the branch not taken),
   * then a "__select" node whose outputs are the taken branch's. A branch's values live only in that branch: what
   * it lowers is forgotten after it (main lowers again what it needs itself).
   */
  std::vector<Entry> LowerIf(const Call& call, const CallNode* c);

  /*!
   * \brief loop(M, cond, (v...), body) / scan((s...), (xs...), body): one "__loop" / "__scan" node running its body
   * as a graph of its own (graph_executor.cc, "Loop and Scan"). The body is lowered by a nested GraphBuilder, with
   * its own params (i, cond, v... / s..., x...) then one param per outer value it reads: the maximal loop-invariant
   * expressions of the body (main's values, computed once by main's nodes). The body's constants become params of
   * this graph, read by the node after its operands and the outer values (kernel_attrs.body_params names them in
   * the body). The outputs are returned (their shapes are known after the last iteration). What the node cannot
   * take (values other than tensors, a body the lowering refuses) stays on the reference, with the reason why.
   */
  std::vector<Entry> LowerLoop(const Call& call, const CallNode* c);

  std::optional<std::vector<Entry>> TryLoop(const Call& call, const CallNode* c, std::string* why);

  /*!
   * \brief The outer values a loop body reads: its maximal sub-expressions (vars, calls, field reads; not tuples,
   * constants or functions) that read none of the variables bound inside it (its params, those of functions nested
   * in it) and call no op that draws random numbers (one computed once would repeat its draw every iteration), in
   * first-found order. Primitive functions are closed: not entered, except to look for such ops.
   */
  static std::vector<Expr> LoopInvariantLeaves(const Function& body, const relay::OpFacts& facts);

  static Any LoweredField(const Map<String, Any>& m, const char* key);

  static void AddLeaf(Group* g, const Expr& leaf, const std::vector<Entry>& entries);

  /*!
   * \brief TVM's style of kernel name: the ops of the group in post-order, "fused_" when there are several
   * (tvmlite_fused_nn_conv2d_add_nn_relu_0), numbered per name.
   */
  std::string GroupName(const Group& g);

  /*! \brief The group's calls in post-order (stopping at leaves and constants); nullopt for other node kinds. */
  std::optional<std::vector<Call>> GroupCalls(const Group& g);

  // -- views ---------------------------------------------------------------------------------------------------

  /*!
   * \brief When c (not the group's root) is a reshape-like op or broadcast_to of a group input (one entry, float32,
   * static), that input as the epilogue reads c's value: a view of it of c's type (a reshape), or the input itself
   * (broadcast_to: numpy broadcasting against the output does the rest). LayerScale's reshape(gamma) * x, a squeezed
   * attention scale. nullopt otherwise.
   */
  std::optional<PendingView> LeafView(const Group& g, const CallNode* c);

  std::optional<std::vector<Entry>> TryView(const Group& g);

  /*! \brief Give n (whose output is value) the group's shape function and the leaves' entries. */
  void SetShapeFunc(const Group& g, const Expr& value, GNode* n);

  // -- native kernels ------------------------------------------------------------------------------------------
  std::optional<std::vector<Entry>> TryNative(const Group& g, bool first_field_only);

  /*!
   * \brief A node whose kernel makes and returns its outputs (their shape depends on input values: dyn.reshape,
   * arange; MakeReturningKernel): the anchor alone, its tensor arguments its inputs only.
   */
  std::optional<std::vector<Entry>> ReturningNode(const Group& g, const std::vector<Call>& calls,
                                                  const CallNode* anchor, const std::string& kernel,
                                                  const Map<String, Any>& attrs, const std::vector<Entry>& inputs);

  /*! \brief No native kernel for the group, and why (the reference node made next carries it). */
  std::nullopt_t Refuse(std::string why);

  bool AnchorInput(const Group& g, const Expr& a, std::vector<Entry>* inputs, std::vector<Type>* types);

  /*! \brief The type of a made node's output entry e. */
  const Type& EntryType(const Entry& e) const { return nodes_[e.node].out_types[e.index]; }

  /*!
   * \brief Why kernel does not take tensor arguments of these types (inputs, epilogue inputs, then out; a kernel
   * returning its outputs: its inputs), or nullopt when it does. The factory is called first (it validates the
   * attrs); then the kernel's declared check "<kernel>.accepts" (tvmlite/topi/kernel_accepts.h) is asked with the
   * dtypes and ranks: nothing runs at build. A kernel without one takes float32 only.
   */
  std::optional<std::string> KernelRefuses(const std::string& kernel, const Map<String, Any>& attrs,
                                           const std::vector<Type>& types);

  /*!
   * \brief Whether the shape function of n gives concrete output shapes from concrete input shapes (stand-ins: every
   * symbolic dim 1). An output whose shape depends on input values (resize by a scales tensor) is "?" even then:
   * no shape function of types can give it. A relation that refuses the stand-ins proves nothing: true.
   */
  static bool ShapesFollowTypes(const GNode& n);

  /*! \brief nn.bias_add's bias (C,) as the epilogue reads it: (C, 1, ..., 1), a 1 for each data dim after axis. */
  static Type BiasType(const CallNode* call);

  /*!
   * \brief nn.bias_add adds its bias along `axis`, not along numpy's last dim: the epilogue reads it as BiasType,
   * a param of that shape (a view of the constant's data) or a view of the group input, a "__nop" node made once
   * the kernel takes the group: Entry{-1, k} stands for views[k] until then. nullopt when the bias is neither.
   */
  std::optional<Entry> BiasInput(const Group& g, const CallNode* call, std::vector<PendingView>* views);

  /*!
   * \brief The epilogue text of the group's calls other than anchor (r0 = anchor's value), appending the entries
   * of in<k> to epi_inputs; nullopt when some op cannot be written as instructions or registers run out.
   */
  std::optional<std::string> BuildProgram(const Group& g, const std::vector<Call>& calls, const CallNode* anchor,
                                          const Type& out_type, std::vector<Entry>* epi_inputs,
                                          std::vector<PendingView>* views);

  static constexpr int topi_num_regs = 8;

  // -- the reference path --------------------------------------------------------------------------------------
  std::vector<Entry> LowerReference(Group g, const Call& call, const Type& out_type);

  static Expr Substitute(const Expr& e, const std::unordered_map<const Object*, Expr>& map);

  // -- output --------------------------------------------------------------------------------------------------
  Map<String, Any> Finish(const std::vector<Entry>& heads);

  Function main_;
  bool depthwise_chains_;
  // Snapshots taken per lowering: attributes registered later (a test's kernel) are seen by the next build.
  OpAttrMap<runtime::Function> epilogue_rules_{"FTVMLiteEpilogue"};
  OpAttrMap<String> kernels_{"FTVMLiteKernel"};
  OpAttrMap<bool> returns_outputs_{"TVMLiteReturnsOutputs"};
  OpAttrMap<bool> returns_view_{"TVMLiteReturnsView"};
  const Op bias_add_op_ = Op::Get("nn.bias_add");
  std::unordered_set<const Object*> main_params_;
  std::unordered_map<const Object*, std::vector<Entry>> memo_;
  std::unordered_map<const Object*, int64_t> param_of_;
  // (dtype, shape) -> the params of that type whose bytes EqualParam compares
  std::map<std::pair<std::string, std::vector<int64_t>>, std::vector<std::pair<NDArray, int64_t>>> params_by_shape_;
  std::unordered_map<std::string, int> name_counter_;
  std::string reason_;  // why the last group tried is not native
  relay::OpFacts facts_;
  // Per node (ids before FuseDepthwiseChains, which merges only nodes of neither kind): its outputs' values, or
  // their shapes, follow from the graph inputs' shapes alone (MarkPerShape).
  std::vector<char> value_fixed_, shape_fixed_;
  const Op if_call_op_ = Op::Get("if_call");
  const Op loop_op_ = Op::Get("loop"), scan_op_ = Op::Get("scan");
  const CallNode* loop_fallback_ = nullptr;    // a loop or scan call LowerLoop gives the group path
  std::vector<std::pair<Entry, bool>> guard_;  // the conditions of the branches being lowered
  std::vector<Entry> branch_outputs_;          // kept alive until the select nodes have read them
  std::vector<GNode> nodes_;
  std::vector<int64_t> arg_nodes_;
  std::unordered_set<int64_t> input_nodes_;
  std::unordered_set<const Object*> first_field_only_;  // tuple-valued calls read only as field 0
  Map<String, Any> params_;
};

}  // namespace backend
}  // namespace tvmlite
#endif  // TVMLITE_BACKEND_GRAPH_BUILDER_H_
