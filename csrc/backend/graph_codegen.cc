/*!
 * \file graph_codegen.cc
 * \brief relay.backend.LowerToGraph: a typed module whose main is a dataflow graph -> TVM's graph JSON + params.
 *
 *   res = LowerToGraph(mod, depthwise_chains)   // {"graph_json": str, "params": {"p0": NDArray, ...}}
 *
 * Algorithm. Walk main's body in post-order (not into functions); every value becomes a list of graph entries (a
 * tuple-typed value one per field, flattened; any other value one):
 *   Var             an input node ("null", its name)            Constant   a param node p0, p1, ...
 *   Tuple           the fields' entries                         TupleGetItem  the field's slice of them
 *   Call of a Function with attrs["Primitive"] == 1 (a FuseOps group), or of an op (a group of one): one node.
 * A group becomes, in this order of preference:
 *   "__nop"              only reshape/squeeze/expand_dims/nn.batch_flatten/reshape_like of a static tensor: the
 *                        output aliases the input's storage with the new shape (TVM does the same);
 *   the anchor's kernel  one op without an "FTVMLiteEpilogue" rule (the anchor) reading only group inputs and
 *                        constants, with a "FTVMLiteKernel" name, and every other op an epilogue rule (float32);
 *                        kernel_attrs = the anchor's attrs fields (by reflection: bools as 0/1, dtypes and types
 *                        as strings, None fields left out; other values mean the reference) + "epilogue",
 *                        the program of the other ops (r0 = the anchor's value; intermediates in r1..r7, freed
 *                        after their last use; in<k> = group inputs and non-scalar constants the epilogue reads, in
 *                        first-use order; scalar float constants are immediates; nn.bias_add's bias, which
 *                        broadcasts along its axis, is read as (C, 1, ..., 1): a view of the param or a "__nop"
 *                        view of the input). Inputs: the anchor's (a tuple argument, e.g. concatenate's, one per
 *                        field; constants become params), then in<k>.
 *                        The factory is called at build with these attrs: raising means the reference instead.
 *                        Then the kernel's declared check "<kernel>.accepts"(attrs, dtypes, ranks of its tensor
 *                        arguments) (topi/kernel_accepts.h): a reason means the reference, with it; a kernel
 *                        without one takes float32 tensors only. Nothing runs at build;
 *   topi.elemwise        no anchor: the same program, r0 written by the root op;
 *   relay.backend.reference  anything else (no kernel, other dtypes, dynamic shapes, tuples, sequences, control
 *                        flow): kernel_attrs {"func": SaveJSON(the group as a Function)} (one op's non-scalar
 *                        constant arguments become params: weights stay out of the JSON); the Python factory
 *                        (tvmlite/relay/backend/reference_kernel.py) evaluates it with the ops' references and
 *                        returns its outputs (the flattened list), which the executor stores.
 * With depthwise_chains, depthwise nodes then merge with their 1x1 conv neighbours (fuse_depthwise_chains.h).
 * Then the memory plan (memory_plan.h) gives native outputs storage ids.
 *
 * Graph JSON (TVM's): nodes [{op: "null"|"tvm_op", name, inputs: [[node, index, 0]...], attrs: {func_name,
 * num_inputs, num_outputs, flatten_data: "0", kernel_attrs: {...}}}], arg_nodes, heads, node_row_ptr, attrs:
 * {shape, dltype, storage_id, static (1: a tensor of static shape), planned_bytes, intermediate_bytes}, and
 * input_nodes (the arg_nodes that are main's inputs, in main's order; the others are params). Dynamic dims are -1; a
 * non-tensor entry (sequence, optional) has dltype "object"; storage_id -1: not in the pool (inputs, params, values
 * reference nodes return). Nodes are named in TVM's style: tvmlite_fused_nn_conv2d_add_nn_relu_0.
 */
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

#include "./fuse_depthwise_chains.h"
#include "./graph_nodes.h"
#include "./memory_plan.h"
#include "./per_shape.h"
#include "./shape_func.h"

namespace tvmlite {
namespace backend {

using namespace ir;  // NOLINT(*)
using runtime::Array;
using runtime::Map;
using runtime::NDArray;
using runtime::Registry;

namespace {

const char* kReference = "relay.backend.reference";
const char* kNop = "__nop";
const char* kSelect = "__select";


/*!
 * \brief An attrs field value as a kernel attr: bools become ints, dtypes and types their text; nullopt when not
 * expressible.
 */
std::optional<Any> KernelAttrValue(const Any& v) {
  switch (v.type_index()) {
    case kTVMLiteNone: case kTVMLiteInt: case kTVMLiteFloat: case kTVMLiteString: return v;
    case kTVMLiteBool: return Any(v.cast<int64_t>());
    case kTVMLiteDataType: return Any(String(runtime::DataType(v.cast<DLDataType>()).str()));
    case kTVMLiteArray: {
      std::vector<Any> items;
      for (const Any& x : v.cast<Array<Any>>()) {
        std::optional<Any> y = KernelAttrValue(x);
        if (!y) return std::nullopt;
        items.push_back(*y);
      }
      return Any(Array<Any>(items));
    }
    default:
      if (std::optional<Type> t = v.as<Type>()) return Any(String(TypeToString(*t)));  // raise_error's ret_type
      return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------------------------

void FlattenType(const Type& t, std::vector<Type>* out) {
  if (const auto* tt = t.as<TupleTypeNode>()) {
    for (const Type& f : tt->fields) FlattenType(f, out);
  } else {
    out->push_back(t);
  }
}

size_t FlatCount(const Type& t) {
  std::vector<Type> v;
  FlattenType(t, &v);
  return v.size();
}

/*! \brief The static shape of a tensor type, or nullopt (dynamic, or not a tensor). */
std::optional<std::vector<int64_t>> StaticShape(const Type& t) {
  const auto* tt = t.as<TensorTypeNode>();
  if (tt == nullptr) return std::nullopt;
  return tt->static_shape();
}

/*! \brief A float32 tensor type (dims static or symbolic). */
bool IsF32(const Type& t) {
  const auto* tt = t.as<TensorTypeNode>();
  return tt != nullptr && tt->dtype == runtime::DataType::Float(32);
}

/*!
 * \brief Whether an anchor of type a writes the whole group output of type b in place: the same rank and, per dim,
 * the same dim (equal ints, the same SizeVar), or b's symbolic where a's is a static other than 1 (b broadcasts a
 * with something: it can only be a's). An anchor dim that is symbolic may be 1 at run time while b's is not (the
 * broadcast-wider case, x - mean(x), or a batch-1 position embedding added to (batch, seq, C)): refused.
 */
bool SameDims(const Type& a, const Type& b) {
  const auto* x = a.as<TensorTypeNode>();
  const auto* y = b.as<TensorTypeNode>();
  if (x == nullptr || y == nullptr || x->ndim() != y->ndim()) return false;
  for (size_t i = 0; i < x->ndim(); ++i) {
    const bool sx = !x->static_dim(i), sy = !y->static_dim(i);
    if (relay::DimEqual(x->shape[i], y->shape[i]) || (!sx && sy && !relay::DimIs(x->shape[i], 1))) continue;
    return false;
  }
  return true;
}

/*!
 * \brief Whether a tensor of type t may broadcast (numpy rules) to shape out: what an epilogue input must do. Static
 * dims must be 1 or equal; a symbolic one is taken to agree (the epilogue's binding checks every call).
 */
bool BroadcastsTo(const Type& t, const Array<Any>& out) {
  const auto* tt = t.as<TensorTypeNode>();
  if (tt == nullptr || tt->ndim() > out.size()) return false;
  size_t off = out.size() - tt->ndim();
  for (size_t i = 0; i < tt->ndim(); ++i) {
    const Any& d = tt->shape[i];
    const Any& o = out[off + i];
    if (relay::DimIs(d, 1) || relay::DimEqual(d, o)) continue;
    if (d.type_index() == kTVMLiteInt && o.type_index() == kTVMLiteInt) return false;
  }
  return true;
}

/*! \brief t with every symbolic dim set to value (consistent stand-in shapes to evaluate a shape function on). */
Type WithDims(const Type& t, int64_t value) {
  if (const auto* tt = t.as<TupleTypeNode>()) {
    std::vector<Type> fields;
    for (const Type& f : tt->fields) fields.push_back(WithDims(f, value));
    return TupleType(Array<Type>(fields));
  }
  const auto* tt = t.as<TensorTypeNode>();
  if (tt == nullptr || tt->static_shape()) return t;
  std::vector<Any> dims;
  for (size_t i = 0; i < tt->ndim(); ++i) dims.push_back(tt->static_dim(i) ? tt->shape[i] : Any(value));
  return TensorType(Array<Any>(dims), tt->dtype);
}

int64_t TensorBytes(const Type& t) {
  const auto* tt = t.as<TensorTypeNode>();
  auto shape = StaticShape(t);
  if (!shape) return 0;
  int64_t n = tt->dtype.bytes();  // as NDArray lays it out: whole bytes per element (int4 too)
  for (int64_t d : *shape) {
    // A model may declare dims whose product overflows: an error, never undefined behaviour.
    TVMLITE_CHECK_KIND(d >= 0 && !__builtin_mul_overflow(n, d, &n), ValueError)
        << "build: a tensor of " << shape->size() << " dims with a dim of " << d << " does not fit in memory";
  }
  return n;
}

// ---------------------------------------------------------------------------------------------------------------
// The graph
// ---------------------------------------------------------------------------------------------------------------

/*! \brief A group input a kernel reads with another shape (nn.bias_add's bias): a view node, made on success. */
struct PendingView {
  Entry source;
  Type type;
};

/*! \brief A group to lower: its root expression and its leaves (inputs), each with its graph entries. */
struct Group {
  Expr root;
  std::vector<Expr> leaves;                                     // group params (Vars) or, for one op, its args
  std::vector<std::vector<Entry>> leaf_entries;                 // per leaf
  std::unordered_map<const Object*, size_t> leaf_index;         // leaf -> position
  Function func;                                                // for the reference path
  std::string name;                                             // the node's name
};

class GraphBuilder {
 public:
  GraphBuilder(const IRModule& mod, bool depthwise_chains)
      : main_(mod->Lookup("main")), depthwise_chains_(depthwise_chains) {}

  Map<String, Any> Run() {
    FindFirstFieldOnly(main_->body);
    for (const Var& p : main_->params) main_params_.insert(p.get());
    for (const Var& p : main_->params) Lower(p);  // inputs first, in main's order (unused ones too)
    std::vector<Entry> heads = Lower(main_->body);
    if (depthwise_chains_) FuseDepthwiseChains(&nodes_, &arg_nodes_, &input_nodes_, &heads);
    return Finish(heads);
  }

 private:
  // -- walking main --------------------------------------------------------------------------------------------
  std::vector<Entry> Lower(const Expr& root) {
    // Iterative post-order over main's dataflow graph; functions are not entered.
    std::vector<std::pair<Expr, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      if (memo_.count(e.get())) continue;
      if (expanded) {
        memo_[e.get()] = LowerNode(e);
        continue;
      }
      stack.push_back({e, true});
      std::vector<Expr> children = DataChildren(e);
      for (auto it = children.rbegin(); it != children.rend(); ++it) {  // reversed: lowered left to right
        if (!memo_.count(it->get())) stack.push_back({*it, false});
      }
    }
    return memo_.at(root.get());
  }

  /*!
   * \brief The tuple-valued calls of main read only as TupleGetItem(call, 0) (nn.layer_norm's mean and inv_std
   * unused): a kernel computing field 0 alone can run them.
   */
  void FindFirstFieldOnly(const Expr& body) {
    std::unordered_map<const Object*, bool> only_first;  // tuple-typed call -> every use so far is field 0
    std::unordered_set<const Object*> seen;
    std::vector<Expr> stack{body};
    auto use = [&](const Expr& child, bool as_field0) {
      if (child.as<CallNode>() && child->checked_type_.as<TupleTypeNode>()) {
        auto it = only_first.emplace(child.get(), true).first;
        it->second = it->second && as_field0;
      }
    };
    use(body, false);
    while (!stack.empty()) {
      Expr e = stack.back();
      stack.pop_back();
      if (!seen.insert(e.get()).second) continue;
      const auto* g = e.as<TupleGetItemNode>();
      for (const Expr& child : DataChildren(e)) {
        use(child, g != nullptr && g->index == 0);
        stack.push_back(child);
      }
    }
    for (const auto& kv : only_first) {
      if (kv.second) first_field_only_.insert(kv.first);
    }
  }

  /*! \brief The values a node of main reads (nested functions are part of their caller's group). */
  std::vector<Expr> DataChildren(const Expr& e) {
    std::vector<Expr> out;
    if (const auto* c = e.as<CallNode>()) {
      for (const Expr& a : c->args) {
        if (!a.as<FunctionNode>() && !a.as<OpNode>() && !a.as<ConstantNode>()) out.push_back(a);
      }
      if (!c->op.as<OpNode>() && !IsPrimitive(c->op)) {
        TVMLITE_THROW(ValueError) << "LowerToGraph: main calls a " << c->op->GetTypeKey()
                                  << " (only ops and primitive functions can be lowered)";
      }
      for (const Expr& a : c->args) {
        if (a.as<FunctionNode>()) {
          for (const Var& v : FreeVars(a)) out.push_back(v);
        }
      }
    } else if (const auto* t = e.as<TupleNode>()) {
      for (const Expr& f : t->fields) {
        if (!f.as<ConstantNode>()) out.push_back(f);
      }
    } else if (const auto* g = e.as<TupleGetItemNode>()) {
      out.push_back(g->tuple);
    }
    return out;
  }

  /*! \brief The entries of a lowered value; a constant becomes a param node on first use. */
  std::vector<Entry> EntriesOf(const Expr& e) {
    if (const auto* c = e.as<ConstantNode>()) return {{AddParam(c->data, e->checked_type()), 0}};
    return memo_.at(e.get());
  }

  static bool IsPrimitive(const Expr& e) {
    const auto* f = e.as<FunctionNode>();
    if (f == nullptr) return false;
    Any p = f->GetAttr("Primitive");
    return !p.is_none() && p.as<int64_t>().value_or(0) == 1;
  }

  std::vector<Entry> LowerNode(const Expr& e) {
    if (const auto* v = e.as<VarNode>()) {
      TVMLITE_CHECK_KIND(main_params_.count(v), ValueError)
          << "LowerToGraph: %" << v->name_hint << " is not an input of main";
      Type t = e->checked_type();
      TVMLITE_CHECK_KIND(!t.as<TupleTypeNode>(), ValueError)
          << "LowerToGraph: input %" << v->name_hint << " is a tuple; the graph executor takes tensors, sequences "
          << "and optionals as inputs";
      GNode n;
      n.name = v->name_hint;
      n.out_types = {t};
      return {{AddNode(std::move(n), /*is_input=*/true), 0}};
    }
    if (const auto* c = e.as<ConstantNode>()) return {{AddParam(c->data, e->checked_type()), 0}};
    if (const auto* t = e.as<TupleNode>()) {
      std::vector<Entry> out;
      for (const Expr& f : t->fields) {
        std::vector<Entry> fe = EntriesOf(f);
        out.insert(out.end(), fe.begin(), fe.end());
      }
      return out;
    }
    if (const auto* g = e.as<TupleGetItemNode>()) {
      const auto* tt = g->tuple->checked_type().as<TupleTypeNode>();
      TVMLITE_CHECK_KIND(tt != nullptr, ValueError) << "LowerToGraph: TupleGetItem of a non-tuple";
      size_t begin = 0;
      for (int64_t i = 0; i < g->index; ++i) begin += FlatCount(tt->fields[i]);
      size_t count = FlatCount(tt->fields[g->index]);
      std::vector<Entry> te = EntriesOf(g->tuple);
      return std::vector<Entry>(te.begin() + begin, te.begin() + begin + count);
    }
    if (const auto* c = e.as<CallNode>()) return LowerCall(Downcast<Call>(e), c);
    TVMLITE_THROW(ValueError) << "LowerToGraph: cannot lower a " << e->GetTypeKey() << " in main";
  }

  int64_t AddNode(GNode n, bool is_input = false) {
    if (n.is_op) n.guard = guard_;  // inside an If's branch: runs only when the branch is taken
    // Until MarkPerShape says more: a param is fixed; an input's shape is the signature itself (a tensor's); an
    // op's value is not, its shape only when static.
    value_fixed_.push_back(!n.is_op && !is_input);
    shape_fixed_.push_back(n.is_op ? AllStatic(n.out_types) : !is_input || n.out_types[0].as<TensorTypeNode>());
    nodes_.push_back(std::move(n));
    int64_t id = static_cast<int64_t>(nodes_.size()) - 1;
    if (!nodes_.back().is_op) arg_nodes_.push_back(id);
    if (is_input) input_nodes_.insert(id);
    return id;
  }

  /*!
   * \brief The param node of a constant: one per array, and one per content. An If's branches are optimised as
   * graphs of their own, so each folds (packs, pads) its own copy of every weight it reads; equal arrays share a
   * param, so a merged decoder holds its weights once, as decoder_with_past does (Whisper-tiny: 310 -> 198 MB).
   */
  int64_t AddParam(const NDArray& data, const Type& type) {
    auto it = param_of_.find(data.get());
    if (it != param_of_.end()) return it->second;
    int64_t id = EqualParam(data);
    if (id < 0) {
      GNode n;
      n.name = "p" + std::to_string(params_.size());
      n.out_types = {type};
      params_.Set(String(n.name), data);
      id = AddNode(std::move(n));
      if (Comparable(data)) params_by_shape_[{data.dtype().str(), data.Shape()}].push_back({data, id});
    }
    param_of_[data.get()] = id;
    return id;
  }

  /*! \brief Whether a constant's bytes are its value: contiguous, whole bytes per element, not strings. */
  static bool Comparable(const NDArray& a) {
    DataType t = a.dtype();
    return a.IsContiguous() && !t.is_string() && (t.bits() * t.lanes()) % 8 == 0;
  }

  /*! \brief The param node already holding an array of a's dtype, shape and bytes, else -1. */
  int64_t EqualParam(const NDArray& a) {
    if (!Comparable(a)) return -1;
    auto it = params_by_shape_.find({a.dtype().str(), a.Shape()});
    if (it == params_by_shape_.end()) return -1;
    const auto* pa = static_cast<const char*>(a->tensor.data) + a->tensor.byte_offset;
    for (const auto& [b, id] : it->second) {
      const auto* pb = static_cast<const char*>(b->tensor.data) + b->tensor.byte_offset;
      if (pa == pb || std::memcmp(pa, pb, a.NBytes()) == 0) return id;
    }
    return -1;
  }

  // -- groups --------------------------------------------------------------------------------------------------
  std::vector<Entry> LowerCall(const Call& call, const CallNode* c) {
    if (c->op.same_as(if_call_op_)) return LowerIf(call, c);
    if ((c->op.same_as(loop_op_) || c->op.same_as(scan_op_)) && c != loop_fallback_) return LowerLoop(call, c);
    Group g;
    if (IsPrimitive(c->op)) {
      Function f = Downcast<Function>(c->op);
      TVMLITE_CHECK_KIND(f->params.size() == c->args.size(), ValueError)
          << "LowerToGraph: a primitive function takes " << f->params.size() << " arguments, the call gives "
          << c->args.size();
      // Scalar constant and () arguments (FuseOps makes them parameters) go back into the body, where the paths
      // below expect them: scalars become immediates, () an omitted input of the op that reads it.
      std::unordered_map<const Object*, Expr> inlined;
      for (size_t i = 0; i < c->args.size(); ++i) {
        const auto* t = c->args[i].as<TupleNode>();
        const auto* k = c->args[i].as<ConstantNode>();
        if ((k && k->data.NumElements() == 1) || (t && t->fields.empty())) inlined[f->params[i].get()] = c->args[i];
      }
      g.root = inlined.empty() ? f->body : relay::InferTypeExpr(Substitute(f->body, inlined));
      g.func = f;
      for (size_t i = 0; i < c->args.size(); ++i) {
        if (!inlined.count(f->params[i].get())) AddLeaf(&g, f->params[i], EntriesOf(c->args[i]));
      }
    } else {
      g.root = call;
      for (const Expr& a : c->args) {
        if (a.as<FunctionNode>()) {
          for (const Var& v : FreeVars(a)) {
            if (!g.leaf_index.count(v.get())) AddLeaf(&g, v, memo_.at(v.get()));
          }
        } else if (const auto* t = a.as<TupleNode>(); t && t->fields.empty()) {
          continue;  // () (an omitted input) stays in the group
        } else if (!a.as<ConstantNode>() && !g.leaf_index.count(a.get())) {
          AddLeaf(&g, a, memo_.at(a.get()));  // constants stay in the group: immediates or params, as it needs
        }
      }
    }
    g.name = GroupName(g);
    const size_t first = nodes_.size();
    std::vector<Entry> out = LowerGroup(g, call);
    MarkPerShape(g, first);
    return out;
  }

  std::vector<Entry> LowerGroup(const Group& g, const Call& call) {
    Type out_type = g.root->checked_type();
    if (auto r = TryView(g)) return *r;
    reason_.clear();
    if (auto r = TryNative(g, first_field_only_.count(call.get()) != 0)) return *r;
    return LowerReference(g, call, out_type);
  }

  /*!
   * \brief Mark the nodes made for group g (ids from first on) per_shape when their values follow from the graph
   * inputs' shapes alone (per_shape.h), and note what follows from those shapes for the groups after it.
   */
  void MarkPerShape(const Group& g, size_t first) {
    LeafUse use = GroupLeafUse(g.root, g.leaf_index, facts_);
    bool leaf_shapes_fixed = true, returned_shape_fixed = true;
    for (size_t k = 0; k < g.leaf_entries.size(); ++k) {
      for (const Entry& e : g.leaf_entries[k]) {
        leaf_shapes_fixed = leaf_shapes_fixed && shape_fixed_[e.node];
        returned_shape_fixed = returned_shape_fixed && (use.shape_value_read[k] ? value_fixed_[e.node]
                                                                                : shape_fixed_[e.node]);
      }
    }
    bool per_shape = use.pure;
    for (size_t k = 0; per_shape && k < g.leaf_entries.size(); ++k) {
      for (const Entry& e : g.leaf_entries[k]) {
        per_shape = per_shape && (use.value_read[k] ? value_fixed_[e.node] : shape_fixed_[e.node]);
      }
    }
    for (size_t id = first; id < nodes_.size(); ++id) {
      GNode& n = nodes_[id];
      if (!n.is_op) continue;  // a param made for the group: fixed from the start
      n.per_shape = per_shape;
      value_fixed_[id] = per_shape;
      // A kernel's or a view's output shapes come from its shape function of the leaves' shapes; a node returning
      // its outputs shapes them by the values its op names; a reference, by any.
      const bool by_shapes = n.returns ? returned_shape_fixed : leaf_shapes_fixed && n.func_name != kReference;
      shape_fixed_[id] = per_shape || AllStatic(n.out_types) || by_shapes;
    }
  }

  static bool AllStatic(const std::vector<Type>& types) {
    for (const Type& t : types) {
      const auto* tt = t.as<TensorTypeNode>();
      if (tt == nullptr || !tt->static_shape()) return false;
    }
    return true;
  }

  /*!
   * \brief if_call(cond, (args...), then, else) (relay/backend/control_flow.py): each branch's body lowered with its
   * params bound to the args' entries and its nodes guarded by cond (the executor skips the branch not taken),
   * then a "__select" node whose outputs are the taken branch's. A branch's values live only in that branch: what
   * it lowers is forgotten after it (main lowers again what it needs itself).
   */
  std::vector<Entry> LowerIf(const Call& call, const CallNode* c) {
    std::vector<Entry> cond = EntriesOf(c->args[0]);
    const auto* args = c->args[1].as<TupleNode>();
    const auto* then_fn = c->args[2].as<FunctionNode>();
    const auto* else_fn = c->args[3].as<FunctionNode>();
    TVMLITE_CHECK_KIND(cond.size() == 1 && args && then_fn && else_fn, ValueError)
        << "LowerToGraph: if_call takes a condition tensor, a tuple of args and two functions";
    std::vector<std::vector<Entry>> arg_entries;
    for (const Expr& a : args->fields) arg_entries.push_back(EntriesOf(a));
    auto branch = [&](const FunctionNode* fn, bool when) {
      TVMLITE_CHECK_KIND(fn->params.size() == arg_entries.size(), ValueError)
          << "LowerToGraph: an if_call branch takes " << fn->params.size() << " params for " << arg_entries.size()
          << " args";
      auto saved = memo_;
      guard_.push_back({cond[0], when});
      for (size_t i = 0; i < arg_entries.size(); ++i) memo_[fn->params[i].get()] = arg_entries[i];
      FindFirstFieldOnly(fn->body);
      std::vector<Entry> out = Lower(fn->body);
      guard_.pop_back();
      memo_ = std::move(saved);
      branch_outputs_.insert(branch_outputs_.end(), out.begin(), out.end());
      return out;
    };
    std::vector<Entry> then_out = branch(then_fn, true), else_out = branch(else_fn, false);
    GNode n;
    n.is_op = true;
    n.name = "tvmlite_if_" + std::to_string(name_counter_["if"]++);
    n.func_name = kSelect;
    FlattenType(call->checked_type(), &n.out_types);
    TVMLITE_CHECK_KIND(then_out.size() == n.out_types.size() && else_out.size() == n.out_types.size(), ValueError)
        << "LowerToGraph: an if_call's branches give " << then_out.size() << " and " << else_out.size()
        << " values for " << n.out_types.size() << " outputs";
    n.inputs = cond;
    n.inputs.insert(n.inputs.end(), then_out.begin(), then_out.end());
    n.inputs.insert(n.inputs.end(), else_out.begin(), else_out.end());
    int64_t id = AddNode(std::move(n));
    std::vector<Entry> out;
    for (size_t i = 0; i < nodes_[id].out_types.size(); ++i) out.push_back({id, static_cast<int64_t>(i)});
    return out;
  }

  /*!
   * \brief loop(M, cond, (v...), body) / scan((s...), (xs...), body): one "__loop" / "__scan" node running its body
   * as a graph of its own (graph_executor.cc, "Loop and Scan"). The body is lowered by a nested GraphBuilder, with
   * its own params (i, cond, v... / s..., x...) then one param per outer value it reads: the maximal loop-invariant
   * expressions of the body (main's values, computed once by main's nodes). The body's constants become params of
   * this graph, read by the node after its operands and the outer values (kernel_attrs.body_params names them in
   * the body). The outputs are returned (their shapes are known after the last iteration). What the node cannot
   * take (values other than tensors, a body the lowering refuses) stays on the reference, with the reason why.
   */
  std::vector<Entry> LowerLoop(const Call& call, const CallNode* c) {
    std::string why;
    try {
      if (auto r = TryLoop(call, c, &why)) return *r;
    } catch (const runtime::Error& err) {
      why = std::string(c->op.same_as(loop_op_) ? "loop" : "scan") + ": its body cannot be lowered: " + err.message();
    }
    loop_fallback_ = c;  // the group path below, once
    std::vector<Entry> out = LowerCall(call, c);
    loop_fallback_ = nullptr;
    if (!out.empty() && nodes_[out[0].node].func_name == kReference) nodes_[out[0].node].reason = why;
    return out;
  }

  std::optional<std::vector<Entry>> TryLoop(const Call& call, const CallNode* c, std::string* why) {
    const bool is_loop = c->op.same_as(loop_op_);
    const auto* body = c->args.back().as<FunctionNode>();
    TVMLITE_CHECK_KIND(body != nullptr, ValueError) << "LowerToGraph: a loop or scan body must be a function";
    auto tensors_only = [](const Type& t) {
      std::vector<Type> flat;
      FlattenType(t, &flat);
      for (const Type& f : flat) {
        if (!f.as<TensorTypeNode>()) return false;
      }
      return true;
    };
    for (const Var& p : body->params) {
      if (!tensors_only(p->checked_type())) {
        *why = std::string(is_loop ? "loop" : "scan") + ": its body takes a value of type " +
               TypeToString(p->checked_type()) + " (the loop node carries tensors only)";
        return std::nullopt;
      }
    }
    if (!tensors_only(body->body->checked_type()) || !tensors_only(call->checked_type())) {
      *why = std::string(is_loop ? "loop" : "scan") + ": its body returns values other than tensors (" +
             TypeToString(body->body->checked_type()) + "; the loop node carries tensors only)";
      return std::nullopt;
    }
    std::vector<Expr> leaves = LoopInvariantLeaves(Downcast<Function>(c->args.back()), facts_);
    for (const Expr& leaf : leaves) {
      if (!leaf->checked_type().as<TensorTypeNode>()) {
        *why = std::string(is_loop ? "loop" : "scan") + ": its body reads an outer value of type " +
               TypeToString(leaf->checked_type()) + " (the loop node takes tensors only)";
        return std::nullopt;
      }
    }
    // The body with its outer values as parameters, lowered first: a failure leaves this graph as it was.
    Array<Var> params = body->params;
    std::unordered_map<const Object*, Expr> subst;
    for (const Expr& leaf : leaves) {
      Var p("o" + std::to_string(params.size() - body->params.size()), leaf->checked_type());
      params.push_back(p);
      subst[leaf.get()] = p;
    }
    Function fn(params, subst.empty() ? body->body : Substitute(body->body, subst), Optional<Type>());
    fn = Downcast<Function>(relay::InferTypeExpr(fn));
    Map<String, Any> lowered = GraphBuilder(IRModule::FromExpr(fn), depthwise_chains_).Run();
    for (const Expr& leaf : leaves) {
      if (!memo_.count(leaf.get())) Lower(leaf);  // main's values only the body read so far
    }

    GNode n;
    n.is_op = true;
    n.func_name = is_loop ? "__loop" : "__scan";
    n.name = std::string(is_loop ? "tvmlite_loop_" : "tvmlite_scan_") +
             std::to_string(name_counter_[is_loop ? "loop" : "scan"]++);
    n.returns = true;
    n.body_json = std::string(LoweredField(lowered, "graph_json").cast<String>());
    auto operand = [&](const Expr& e) {
      std::vector<Entry> es = EntriesOf(e);
      n.inputs.insert(n.inputs.end(), es.begin(), es.end());
      return static_cast<int64_t>(es.size());
    };
    const Type ret = body->body->checked_type();
    const auto* ret_fields = ret.as<TupleTypeNode>();
    TVMLITE_CHECK_KIND(ret_fields != nullptr, ValueError) << "LowerToGraph: a loop body must return a tuple";
    if (is_loop) {
      const int64_t has_trip = operand(c->args[0]), has_cond = operand(c->args[1]);
      const int64_t carried = operand(c->args[2]);
      TVMLITE_CHECK_KIND(has_trip <= 1 && has_cond <= 1, ValueError)
          << "LowerToGraph: a loop's trip count and cond are one tensor or ()";
      n.kernel_attrs.Set(String("has_trip_count"), has_trip);
      n.kernel_attrs.Set(String("has_cond"), has_cond);
      n.kernel_attrs.Set(String("num_carried"), carried);
      std::vector<Any> scan_types;  // the element types of the scan outputs (an empty loop's message names them)
      for (size_t i = 1 + carried; i < ret_fields->fields.size(); ++i) {
        scan_types.push_back(String(TypeToString(ret_fields->fields[i])));
      }
      n.kernel_attrs.Set(String("scan_types"), Array<Any>(scan_types));
    } else {
      const auto* attrs = call->attrs.as<relay::ScanAttrs>();
      TVMLITE_CHECK_KIND(attrs != nullptr, ValueError) << "LowerToGraph: scan without ScanAttrs";
      n.kernel_attrs.Set(String("num_states"), operand(c->args[0]));
      n.kernel_attrs.Set(String("num_scan_inputs"), operand(c->args[1]));
      auto ints = [](const Array<int64_t>& a) {
        std::vector<Any> v;
        for (int64_t x : a) v.push_back(x);
        return Array<Any>(v);
      };
      n.kernel_attrs.Set(String("scan_input_axes"), ints(attrs->scan_input_axes));
      n.kernel_attrs.Set(String("scan_input_directions"), ints(attrs->scan_input_directions));
      n.kernel_attrs.Set(String("scan_output_axes"), ints(attrs->scan_output_axes));
      n.kernel_attrs.Set(String("scan_output_directions"), ints(attrs->scan_output_directions));
      n.kernel_attrs.Set(String("batched"), static_cast<int64_t>(attrs->batched));
      std::vector<Any> scan_types;
      for (size_t i = c->args[0]->checked_type().as<TupleTypeNode>()->fields.size(); i < ret_fields->fields.size();
           ++i) {
        scan_types.push_back(String(TypeToString(ret_fields->fields[i])));
      }
      n.kernel_attrs.Set(String("scan_types"), Array<Any>(scan_types));
    }
    int64_t outer = 0;
    for (const Expr& leaf : leaves) outer += operand(leaf);
    n.kernel_attrs.Set(String("num_outer"), outer);
    std::vector<Any> body_params;
    for (const auto& kv : LoweredField(lowered, "params").cast<Map<String, Any>>()) {
      NDArray a = kv.second.cast<NDArray>();
      std::vector<Any> dims;
      for (int64_t d : a.Shape()) dims.push_back(d);
      n.inputs.push_back({AddParam(a, TensorType(Array<Any>(dims), a.dtype())), 0});
      body_params.push_back(kv.first);
    }
    n.kernel_attrs.Set(String("body_params"), Array<Any>(body_params));
    FlattenType(call->checked_type(), &n.out_types);
    int64_t id = AddNode(std::move(n));
    std::vector<Entry> out;
    for (size_t i = 0; i < nodes_[id].out_types.size(); ++i) out.push_back({id, static_cast<int64_t>(i)});
    return out;
  }

  /*!
   * \brief The outer values a loop body reads: its maximal sub-expressions (vars, calls, field reads; not tuples,
   * constants or functions) that read none of the variables bound inside it (its params, those of functions nested
   * in it) and call no op that draws random numbers (one computed once would repeat its draw every iteration), in
   * first-found order. Primitive functions are closed: not entered, except to look for such ops.
   */
  static std::vector<Expr> LoopInvariantLeaves(const Function& body, const relay::OpFacts& facts) {
    // Whether call's own op (or an op inside the primitive function it calls) draws random numbers; its arguments
    // are the post-order's business.
    auto draws = [&facts](const CallNode* call) {
      std::vector<Expr> stack{call->op};
      std::unordered_set<const Object*> seen;
      while (!stack.empty()) {
        Expr e = stack.back();
        stack.pop_back();
        if (!seen.insert(e.get()).second) continue;
        if (e.as<OpNode>()) {
          if (!facts.Deterministic(Downcast<Op>(e))) return true;
        } else if (const auto* f = e.as<FunctionNode>()) {
          stack.push_back(f->body);
        } else if (const auto* c = e.as<CallNode>()) {
          stack.push_back(c->op);
          for (const Expr& a : c->args) stack.push_back(a);
        } else if (const auto* t = e.as<TupleNode>()) {
          for (const Expr& x : t->fields) stack.push_back(x);
        } else if (const auto* g = e.as<TupleGetItemNode>()) {
          stack.push_back(g->tuple);
        }
      }
      return false;
    };
    std::unordered_set<const Object*> bound;
    std::unordered_map<const Object*, bool> varies;
    auto kids = [](const Expr& e) {
      std::vector<Expr> out;
      if (const auto* c = e.as<CallNode>()) {
        for (const Expr& a : c->args) out.push_back(a);
      } else if (const auto* t = e.as<TupleNode>()) {
        for (const Expr& f : t->fields) out.push_back(f);
      } else if (const auto* g = e.as<TupleGetItemNode>()) {
        out.push_back(g->tuple);
      } else if (const auto* f = e.as<FunctionNode>(); f && !IsPrimitive(e)) {
        out.push_back(f->body);
      }
      return out;
    };
    // Post-order: whether each expression reads a bound variable.
    std::vector<std::pair<Expr, bool>> stack{{body, false}};
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      if (varies.count(e.get())) continue;
      if (!expanded) {
        if (const auto* f = e.as<FunctionNode>(); f && !IsPrimitive(e)) {
          for (const Var& p : f->params) bound.insert(p.get());
        }
        stack.push_back({e, true});
        for (const Expr& k : kids(e)) stack.push_back({k, false});
        continue;
      }
      bool v = e.as<VarNode>() ? bound.count(e.get()) != 0 : false;
      if (const auto* c = e.as<CallNode>()) v = v || draws(c);
      for (const Expr& k : kids(e)) v = v || varies.at(k.get());
      varies[e.get()] = v;
    }
    std::vector<Expr> leaves;
    std::unordered_set<const Object*> seen;
    std::vector<Expr> walk{body->body};
    while (!walk.empty()) {
      Expr e = walk.back();
      walk.pop_back();
      if (!seen.insert(e.get()).second) continue;
      const bool leaf_kind = e.as<VarNode>() || e.as<CallNode>() || e.as<TupleGetItemNode>();
      if (!varies.at(e.get()) && leaf_kind && !e->checked_type().as<TupleTypeNode>()) {
        leaves.push_back(e);
        continue;
      }
      std::vector<Expr> ks = kids(e);
      for (auto it = ks.rbegin(); it != ks.rend(); ++it) walk.push_back(*it);
    }
    return leaves;
  }

  static Any LoweredField(const Map<String, Any>& m, const char* key) {
    const Any* v = m.get()->Find(Any(String(key)));
    TVMLITE_ICHECK(v != nullptr) << "LowerToGraph: no " << key;
    return *v;
  }

  static void AddLeaf(Group* g, const Expr& leaf, const std::vector<Entry>& entries) {
    g->leaf_index[leaf.get()] = g->leaves.size();
    g->leaves.push_back(leaf);
    g->leaf_entries.push_back(entries);
  }

  /*!
   * \brief TVM's style of kernel name: the ops of the group in post-order, "fused_" when there are several
   * (tvmlite_fused_nn_conv2d_add_nn_relu_0), numbered per name.
   */
  std::string GroupName(const Group& g) {
    const Expr& root = g.root;
    std::vector<std::string> ops;
    std::unordered_set<const Object*> seen;
    std::function<void(const Expr&)> visit = [&](const Expr& e) {
      if (!seen.insert(e.get()).second) return;
      const auto* c = e.as<CallNode>();
      if (c == nullptr) {
        if (const auto* t = e.as<TupleNode>()) {
          for (const Expr& f : t->fields) visit(f);
        }
        return;
      }
      for (const Expr& a : c->args) visit(a);
      if (const auto* op = c->op.as<OpNode>()) ops.push_back(op->name);
    };
    if (!g.func.defined()) {
      ops.push_back(Downcast<Op>(Downcast<Call>(root)->op)->name);  // one op of main: its args are other nodes
    } else {
      visit(root);
    }
    std::string base = ops.size() > 1 ? "fused" : (ops.empty() ? "node" : "");
    for (const std::string& o : ops) {
      if (base.size() > 80) break;
      base += (base.empty() ? "" : "_") + o;
    }
    for (char& ch : base) {
      if (ch == '.') ch = '_';
    }
    return "tvmlite_" + base + "_" + std::to_string(name_counter_[base]++);
  }

  /*! \brief The group's calls in post-order (stopping at leaves and constants); nullopt for other node kinds. */
  std::optional<std::vector<Call>> GroupCalls(const Group& g) {
    std::vector<Call> calls;
    std::unordered_set<const Object*> seen;
    bool ok = true;
    std::function<void(const Expr&)> visit = [&](const Expr& e) {
      if (!ok || seen.count(e.get()) || g.leaf_index.count(e.get())) return;
      seen.insert(e.get());
      if (e.as<ConstantNode>()) return;
      const auto* c = e.as<CallNode>();
      if (c == nullptr || !c->op.as<OpNode>()) { ok = false; return; }
      for (const Expr& a : c->args) {
        if (g.leaf_index.count(a.get())) continue;
        if (const auto* t = a.as<TupleNode>()) {
          // A tuple argument (concatenate's inputs; () an omitted input) of group inputs and constants.
          for (const Expr& f : t->fields) {
            if (!g.leaf_index.count(f.get()) && !f.as<ConstantNode>()) { ok = false; return; }
          }
          continue;
        }
        visit(a);
      }
      calls.push_back(Downcast<Call>(e));
    };
    visit(g.root);
    if (!ok) return std::nullopt;
    return calls;
  }

  // -- views ---------------------------------------------------------------------------------------------------
  /*! \brief A layout_transform that only adds or drops sub-axes of factor 1 (NCHW -> NCHW1c): a reshape. */
  static bool SameMemoryOrder(const CallNode* c) {
    const auto* a = c->attrs.as<relay::LayoutTransformAttrs>();
    if (a == nullptr) return false;
    auto strip = [](const std::string& layout) {
      std::string out;
      for (size_t i = 0; i < layout.size(); ++i) {
        if (layout[i] == '1' && i + 1 < layout.size() && layout[i + 1] >= 'a' && layout[i + 1] <= 'z' &&
            (i == 0 || !(layout[i - 1] >= '0' && layout[i - 1] <= '9'))) {
          ++i;  // "1c": a factor-1 sub-axis
          continue;
        }
        out += layout[i];
      }
      return out;
    };
    return strip(a->src_layout) == strip(a->dst_layout);
  }

  /*!
   * \brief When c (not the group's root) is a reshape-like op or broadcast_to of a group input (one entry, float32,
   * static), that input as the epilogue reads c's value: a view of it of c's type (a reshape), or the input itself
   * (broadcast_to: numpy broadcasting against the output does the rest). LayerScale's reshape(gamma) * x, a squeezed
   * attention scale. nullopt otherwise.
   */
  std::optional<PendingView> LeafView(const Group& g, const CallNode* c) {
    const auto* op = c->op.as<OpNode>();
    if (op == nullptr || c == g.root.get() || c->args.empty()) return std::nullopt;
    const bool broadcast = op->name == "broadcast_to";
    if (!broadcast && !facts_.IsView(Downcast<Op>(c->op))) return std::nullopt;
    auto li = g.leaf_index.find(c->args[0].get());
    if (li == g.leaf_index.end() || g.leaf_entries[li->second].size() != 1) return std::nullopt;
    const Type& in_type = c->args[0]->checked_type();
    if (!IsF32(in_type) || !IsF32(c->checked_type_)) return std::nullopt;
    // A reshape of a symbolic input (its shape known at run time only) is not a view the lowering can make.
    if (!broadcast && (!StaticShape(in_type) || !StaticShape(c->checked_type_))) return std::nullopt;
    return PendingView{g.leaf_entries[li->second][0], broadcast ? in_type : c->checked_type_};
  }

  std::optional<std::vector<Entry>> TryView(const Group& g) {
    Expr e = g.root;
    Type out_type = e->checked_type();
    while (!g.leaf_index.count(e.get())) {
      const auto* c = e.as<CallNode>();
      if (c == nullptr) return std::nullopt;
      const auto* op = c->op.as<OpNode>();
      if (op == nullptr || c->args.empty()) return std::nullopt;
      if (!facts_.IsView(Downcast<Op>(c->op)) && !(op->name == "layout_transform" && SameMemoryOrder(c))) {
        return std::nullopt;
      }
      e = c->args[0];
    }
    auto it = g.leaf_index.find(e.get());
    if (it == g.leaf_index.end() || e.get() == g.root.get()) return std::nullopt;
    const Type& in_type = e->checked_type();
    const auto* a = in_type.as<TensorTypeNode>();
    const auto* b = out_type.as<TensorTypeNode>();
    if (!a || !b || a->dtype != b->dtype) return std::nullopt;
    // Static: the sizes must agree now; symbolic: the executor computes the output shape per run (the chain's type
    // relations) and checks the sizes agree then.
    const bool dynamic = !StaticShape(in_type) || !StaticShape(out_type);
    if (!dynamic && TensorBytes(in_type) != TensorBytes(out_type)) return std::nullopt;
    // Only dtypes an NDArray holds as whole bytes (sub-byte and string tensors are carried boxed).
    if (a->dtype.is_string() || a->dtype.bits() % 8 != 0 || a->dtype.lanes() != 1) return std::nullopt;
    const auto& entries = g.leaf_entries[it->second];
    if (entries.size() != 1) return std::nullopt;
    GNode n;
    n.is_op = true;
    n.name = g.name;
    n.func_name = kNop;
    n.inputs = entries;
    n.out_types = {out_type};
    if (dynamic) {
      SetShapeFunc(g, g.root, &n);
      if (!ShapesFollowTypes(n)) return std::nullopt;  // a view whose shape depends on values: not a view
    }
    int64_t id = AddNode(std::move(n));
    return std::vector<Entry>{{id, 0}};
  }

  /*! \brief Give n (whose output is value) the group's shape function and the leaves' entries. */
  void SetShapeFunc(const Group& g, const Expr& value, GNode* n) {
    n->shape_func = MakeShapeFunc(g.leaves, value);
    n->shape_args = g.leaf_entries;
  }

  // -- native kernels ------------------------------------------------------------------------------------------
  std::optional<std::vector<Entry>> TryNative(const Group& g, bool first_field_only) {
    const auto& epilogue_rules = epilogue_rules_;
    const auto& kernels = kernels_;
    Type out_type = g.root->checked_type();
    // A tuple of which only field 0 is read: a kernel computing that field alone runs it (its one output entry
    // is the tuple's first; nothing reads the others).
    const auto* tuple_out = out_type.as<TupleTypeNode>();
    if (tuple_out && first_field_only && !tuple_out->fields.empty() && FlatCount(tuple_out->fields[0]) == 1) {
      out_type = tuple_out->fields[0];
    }
    // A kernel that makes and returns its outputs may return several (unique's four): its node has them all.
    const auto* root_call = g.root.as<CallNode>();
    const auto* root_op = root_call ? root_call->op.as<OpNode>() : nullptr;
    const bool returns_tuple = tuple_out && root_op && returns_outputs_.get(Downcast<Op>(root_call->op), false);
    if (!out_type.as<TensorTypeNode>() && !returns_tuple) return Refuse("its value is not one tensor");
    const bool dynamic = !StaticShape(out_type);
    auto calls = GroupCalls(g);
    if (!calls || calls->empty()) return Refuse("it holds control flow or a value other than op calls");
    // Every leaf the group reads must be tensors (a tuple of them only as an anchor's argument); their dims may be
    // symbolic: kernels take their shapes per call.
    for (size_t i = 0; i < g.leaves.size(); ++i) {
      std::vector<Type> types;
      FlattenType(g.leaves[i]->checked_type(), &types);
      for (const Type& t : types) {
        if (!t.as<TensorTypeNode>()) return Refuse("an input is not a tensor (" + TypeToString(t) + ")");
      }
    }
    auto epilogue_ok = [&](const CallNode* c) {
      Op op = Downcast<Op>(c->op);
      if (!epilogue_rules.count(op) || !IsF32(c->checked_type_)) return false;
      for (const Expr& a : c->args) {
        if (const auto* t = a.as<TupleNode>(); t && t->fields.empty()) continue;
        if (!IsF32(a->checked_type())) return false;
      }
      return true;
    };
    const CallNode* anchor = nullptr;
    for (const Call& call : *calls) {
      const CallNode* c = call.get();
      if (epilogue_ok(c) || LeafView(g, c)) continue;
      if (anchor != nullptr) {
        return Refuse("two ops need kernels of their own (" + Downcast<Op>(anchor->op)->name + ", " +
                      Downcast<Op>(c->op)->name + ")");
      }
      anchor = c;
    }
    std::string kernel = "topi.elemwise";
    Map<String, Any> attrs;
    std::vector<Entry> inputs;
    std::vector<Type> input_types;
    if (anchor != nullptr) {
      Op op = Downcast<Op>(anchor->op);
      if (!kernels.count(op)) return Refuse("op " + op->name + " has no native kernel");
      kernel = std::string(kernels[op]);
      Type anchor_type = anchor->checked_type_;
      if (tuple_out && anchor == g.root.get()) anchor_type = out_type;
      // The epilogue runs in place on the anchor's output: a group that broadcasts it wider is not one kernel.
      if (!returns_tuple && !SameDims(anchor_type, out_type)) {
        return Refuse("its epilogue broadcasts " + op->name + "'s " + TypeToString(anchor_type) + " to " +
                      TypeToString(out_type));
      }
      // The anchor reads group inputs and constants only.
      for (const Expr& a : anchor->args) {
        const auto* t = a.as<TupleNode>();
        if (t != nullptr && !g.leaf_index.count(a.get())) {
          for (const Expr& f : t->fields) {
            if (!AnchorInput(g, f, &inputs, &input_types)) return Refuse(op->name + " reads a value of its group");
          }
        } else if (!AnchorInput(g, a, &inputs, &input_types)) {
          return Refuse(op->name + " reads a value computed inside its group");
        }
      }
      if (anchor->attrs.defined()) {
        bool ok = true;
        runtime::details::ForEachReflectedField(anchor->attrs->type_index(), [&](const TVMLiteFieldInfo& fi) {
          std::optional<Any> v = KernelAttrValue(runtime::details::ReadField(anchor->attrs.get(), fi));
          if (!v) ok = false;
          else if (!v->is_none()) attrs.Set(String(std::string(fi.name.data, fi.name.size)), *v);
        });
        if (!ok) return Refuse(op->name + " has an attribute a kernel cannot take");
      }
      if (returns_outputs_.get(op, false)) return ReturningNode(g, *calls, anchor, kernel, attrs, inputs);
    }
    // The epilogue program.
    std::vector<Entry> epi_inputs;
    std::vector<PendingView> views;
    auto program = BuildProgram(g, *calls, anchor, out_type, &epi_inputs, &views);
    if (!program) return std::nullopt;  // BuildProgram said why
    if (anchor == nullptr && program->empty()) return Refuse("nothing to compute");
    if (!program->empty() && !IsF32(out_type)) return Refuse("an epilogue on a non-float32 value");
    attrs.Set(String("epilogue"), String(*program));
    inputs.insert(inputs.end(), epi_inputs.begin(), epi_inputs.end());
    // Ask the factory now (one that refuses these attrs means the reference), then the kernel's declared check.
    GNode n;
    if (dynamic) SetShapeFunc(g, tuple_out ? Expr(TupleGetItem(g.root, 0)) : g.root, &n);
    if (dynamic && !ShapesFollowTypes(n)) return Refuse("its output shape depends on input values");
    std::vector<Type> arg_types;
    for (const Entry& e : inputs) arg_types.push_back(e.node < 0 ? views[e.index].type : EntryType(e));
    arg_types.push_back(out_type);
    if (auto why = KernelRefuses(kernel, attrs, arg_types)) return Refuse(*why);
    // The kernel takes the group: its inputs read through views get their "__nop" nodes now.
    for (Entry& e : inputs) {
      if (e.node >= 0) continue;
      const PendingView& v = views[e.index];
      GNode view;
      view.is_op = true;
      view.name = g.name + "_bias_view" + std::to_string(e.index);
      view.func_name = kNop;
      view.inputs = {v.source};
      view.out_types = {v.type};
      e = {AddNode(std::move(view)), 0};
    }
    n.is_op = true;
    n.name = g.name;
    n.func_name = kernel;
    n.kernel_attrs = attrs;
    n.inputs = inputs;
    n.out_types = {out_type};
    n.native = true;
    int64_t id = AddNode(std::move(n));
    return std::vector<Entry>{{id, 0}};
  }

  /*!
   * \brief A node whose kernel makes and returns its outputs (their shape depends on input values: dyn.reshape,
   * arange; MakeReturningKernel): the anchor alone, its tensor arguments its inputs only.
   */
  std::optional<std::vector<Entry>> ReturningNode(const Group& g, const std::vector<Call>& calls,
                                                  const CallNode* anchor, const std::string& kernel,
                                                  const Map<String, Any>& attrs, const std::vector<Entry>& inputs) {
    Op op = Downcast<Op>(anchor->op);
    if (calls.size() != 1) return Refuse(op->name + " makes its own output: it takes no epilogue");
    std::vector<Type> arg_types;
    for (const Entry& e : inputs) arg_types.push_back(EntryType(e));
    if (auto why = KernelRefuses(kernel, attrs, arg_types)) return Refuse(*why);
    GNode n;
    n.is_op = true;
    n.name = g.name;
    n.func_name = kernel;
    n.kernel_attrs = attrs;
    n.inputs = inputs;
    FlattenType(g.root->checked_type(), &n.out_types);
    n.returns = true;
    n.returns_view = returns_view_.get(op, false);
    int64_t id = AddNode(std::move(n));
    std::vector<Entry> out;
    for (size_t i = 0; i < nodes_[id].out_types.size(); ++i) out.push_back({id, static_cast<int64_t>(i)});
    return out;
  }

  /*! \brief No native kernel for the group, and why (the reference node made next carries it). */
  std::nullopt_t Refuse(std::string why) {
    reason_ = std::move(why);
    return std::nullopt;
  }

  bool AnchorInput(const Group& g, const Expr& a, std::vector<Entry>* inputs, std::vector<Type>* types) {
    if (const auto* c = a.as<ConstantNode>()) {
      inputs->push_back({AddParam(c->data, a->checked_type()), 0});
      types->push_back(a->checked_type());
      return true;
    }
    auto it = g.leaf_index.find(a.get());
    if (it == g.leaf_index.end()) return false;
    const auto& entries = g.leaf_entries[it->second];
    inputs->insert(inputs->end(), entries.begin(), entries.end());  // a tuple: one input per field
    FlattenType(a->checked_type(), types);
    return true;
  }

  /*! \brief The type of a made node's output entry e. */
  const Type& EntryType(const Entry& e) const { return nodes_[e.node].out_types[e.index]; }

  /*!
   * \brief Why kernel does not take tensor arguments of these types (inputs, epilogue inputs, then out; a kernel
   * returning its outputs: its inputs), or nullopt when it does. The factory is called first (it validates the
   * attrs); then the kernel's declared check "<kernel>.accepts" (tvmlite/topi/kernel_accepts.h) is asked with the
   * dtypes and ranks: nothing runs at build. A kernel without one takes float32 only.
   */
  std::optional<std::string> KernelRefuses(const std::string& kernel, const Map<String, Any>& attrs,
                                           const std::vector<Type>& types) {
    runtime::Function factory = Registry::Get(kernel);
    if (!factory.defined()) return "kernel " + kernel + " is not registered";
    Array<String> dtypes;
    Array<int64_t> ndims;
    std::string other;  // the first dtype other than float32
    for (const Type& t : types) {
      const auto* tt = t.as<TensorTypeNode>();
      if (tt == nullptr) return kernel + " refused: an argument is not a tensor (" + TypeToString(t) + ")";
      dtypes.push_back(String(tt->dtype.str()));
      ndims.push_back(static_cast<int64_t>(tt->ndim()));
      if (other.empty() && !IsF32(t)) other = tt->dtype.str();
    }
    auto first_line = [](const std::string& m) { return m.substr(0, m.find('\n')); };
    try {
      (void)factory(attrs).cast<runtime::Function>();
      runtime::Function accepts = Registry::Get(kernel + ".accepts");
      if (!accepts.defined()) {
        if (other.empty()) return std::nullopt;
        return kernel + " refused: it takes float32 tensors only (it declares no .accepts), got " + other;
      }
      std::string why = accepts(attrs, dtypes, ndims).cast<String>();
      if (why.empty()) return std::nullopt;
      return kernel + " refused: " + first_line(why);
    } catch (const runtime::Error& err) {
      return kernel + " refused: " + first_line(err.message());
    }
  }

  /*!
   * \brief Whether the shape function of n gives concrete output shapes from concrete input shapes (stand-ins: every
   * symbolic dim 1). An output whose shape depends on input values (resize by a scales tensor) is "?" even then:
   * no shape function of types can give it. A relation that refuses the stand-ins proves nothing: true.
   */
  static bool ShapesFollowTypes(const GNode& n) {
    std::vector<Type> leaf_types;
    for (const Var& v : n.shape_func->params) leaf_types.push_back(WithDims(*v->type_annotation, 1));
    Type out;
    try {
      out = EvalShapeFunc(n.shape_func, leaf_types);
    } catch (const runtime::Error&) {
      return true;
    }
    std::vector<Type> flat;
    FlattenType(out, &flat);
    for (const Type& t : flat) {
      const auto* tt = t.as<TensorTypeNode>();
      if (tt == nullptr || !tt->static_shape()) return false;
    }
    return true;
  }

  /*! \brief nn.bias_add's bias (C,) as the epilogue reads it: (C, 1, ..., 1), a 1 for each data dim after axis. */
  static Type BiasType(const CallNode* call) {
    const auto* data = call->args[0]->checked_type().as<TensorTypeNode>();
    const auto* bias = call->args[1]->checked_type().as<TensorTypeNode>();
    const int64_t ndim = static_cast<int64_t>(data->ndim());
    int64_t axis = call->attrs.as<relay::BiasAddAttrs>()->axis;
    if (axis < 0) axis += ndim;
    std::vector<Any> shape{bias->shape[0]};
    for (int64_t i = axis + 1; i < ndim; ++i) shape.push_back(Any(int64_t(1)));
    return TensorType(Array<Any>(shape), bias->dtype);
  }

  /*!
   * \brief nn.bias_add adds its bias along `axis`, not along numpy's last dim: the epilogue reads it as BiasType,
   * a param of that shape (a view of the constant's data) or a view of the group input, a "__nop" node made once
   * the kernel takes the group: Entry{-1, k} stands for views[k] until then. nullopt when the bias is neither.
   */
  std::optional<Entry> BiasInput(const Group& g, const CallNode* call, std::vector<PendingView>* views) {
    const Expr& bias = call->args[1];
    const Type type = BiasType(call);
    if (const auto* k = bias.as<ConstantNode>()) {
      return Entry{AddParam(k->data.CreateView(*StaticShape(type), k->data->tensor.dtype), type), 0};
    }
    auto li = g.leaf_index.find(bias.get());
    if (li == g.leaf_index.end() || g.leaf_entries[li->second].size() != 1) return std::nullopt;
    views->push_back({g.leaf_entries[li->second][0], type});
    return Entry{-1, static_cast<int64_t>(views->size()) - 1};
  }

  /*!
   * \brief The epilogue text of the group's calls other than anchor (r0 = anchor's value), appending the entries
   * of in<k> to epi_inputs; nullopt when some op cannot be written as instructions or registers run out.
   */
  std::optional<std::string> BuildProgram(const Group& g, const std::vector<Call>& calls, const CallNode* anchor,
                                          const Type& out_type, std::vector<Entry>* epi_inputs,
                                          std::vector<PendingView>* views) {
    const auto& epilogue_rules = epilogue_rules_;
    const Array<Any> out_shape = out_type.as<TensorTypeNode>()->shape;  // the caller checked it is a tensor
    std::unordered_map<const Object*, int> uses;
    for (const Call& c : calls) {
      for (const Expr& a : c->args) uses[a.get()]++;
    }
    std::unordered_map<const Object*, std::string> src;  // value -> register / in<k> / immediate
    std::unordered_map<const Object*, int> reg_of;
    std::vector<bool> reg_free(topi_num_regs, true);
    reg_free[0] = false;
    if (anchor != nullptr) src[anchor] = "r0";
    int next_input = 0;
    auto alloc = [&]() -> int {
      for (int r = 1; r < topi_num_regs; ++r) {
        if (reg_free[r]) { reg_free[r] = false; return r; }
      }
      return -1;
    };
    std::string text;
    auto emit = [&](const std::string& s) { text += (text.empty() ? "" : "; ") + s; };
    for (const Call& call : calls) {
      const CallNode* c = call.get();
      if (c == anchor) continue;
      if (std::optional<PendingView> view = LeafView(g, c)) {  // an input read through a view
        if (!BroadcastsTo(c->checked_type_, out_shape) || !BroadcastsTo(view->type, out_shape)) {
          return Refuse("an input read through a view does not broadcast to the output");
        }
        src[c] = "in" + std::to_string(next_input++);
        if (view->type.same_as(c->args[0]->checked_type())) {
          epi_inputs->push_back(view->source);
        } else {
          views->push_back(*view);
          epi_inputs->push_back(Entry{-1, static_cast<int64_t>(views->size()) - 1});
        }
        continue;
      }
      std::vector<std::string> srcs;
      for (const Expr& a : c->args) {
        if (c->op.same_as(bias_add_op_) && a.same_as(c->args[1])) {
          std::optional<Entry> bias = BroadcastsTo(BiasType(c), out_shape) ? BiasInput(g, c, views) : std::nullopt;
          if (!bias) return Refuse("nn.bias_add's bias is neither a constant nor a group input");
          srcs.push_back("in" + std::to_string(next_input++));
          epi_inputs->push_back(*bias);
          continue;
        }
        auto it = src.find(a.get());
        if (it != src.end()) { srcs.push_back(it->second); continue; }
        if (const auto* t = a.as<TupleNode>(); t && t->fields.empty()) { srcs.push_back("()"); continue; }
        if (const auto* k = a.as<ConstantNode>()) {
          if (k->data.NumElements() == 1 && k->data.dtype() == runtime::DataType::Float(32)) {
            float v;
            std::memcpy(&v, static_cast<const char*>(k->data->tensor.data) + k->data->tensor.byte_offset, 4);
            char buf[40];
            if (std::isnan(v)) std::snprintf(buf, sizeof(buf), "nan");
            else if (std::isinf(v)) std::snprintf(buf, sizeof(buf), v > 0 ? "inf" : "-inf");
            else std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
            src[a.get()] = buf;
          } else {
            if (!BroadcastsTo(a->checked_type(), out_shape)) {
              return Refuse("a constant " + TypeToString(a->checked_type()) + " does not broadcast to the output");
            }
            src[a.get()] = "in" + std::to_string(next_input++);
            epi_inputs->push_back({AddParam(k->data, a->checked_type()), 0});
          }
          srcs.push_back(src[a.get()]);
          continue;
        }
        auto li = g.leaf_index.find(a.get());
        if (li == g.leaf_index.end() || g.leaf_entries[li->second].size() != 1 ||
            !BroadcastsTo(a->checked_type(), out_shape)) {
          return Refuse("an input of " + Downcast<Op>(c->op)->name + " (" + TypeToString(a->checked_type()) +
                        ") does not broadcast to the output " + TypeToString(out_type));
        }
        src[a.get()] = "in" + std::to_string(next_input++);
        epi_inputs->push_back(g.leaf_entries[li->second][0]);
        srcs.push_back(src[a.get()]);
      }
      // Release the registers whose last reader this is, then pick the destination (r0 for the root).
      for (const Expr& a : c->args) {
        auto r = reg_of.find(a.get());
        if (r != reg_of.end() && --uses[a.get()] == 0) reg_free[r->second] = true;
      }
      bool is_root = c == g.root.get();
      int dst = is_root ? 0 : alloc();
      if (dst < 0) return Refuse("the epilogue needs more than 8 registers");
      runtime::Function rule = epilogue_rules[Downcast<Op>(c->op)];
      auto ask = [&](int d) {
        std::vector<Any> args{Any(call), Any(String("r" + std::to_string(d)))};
        for (const std::string& s : srcs) args.push_back(Any(String(s)));
        std::vector<runtime::AnyView> views(args.begin(), args.end());
        Any rv;
        rule.CallPacked(runtime::PackedArgs(views.data(), static_cast<int32_t>(views.size())), &rv);
        return std::string(rv.cast<String>());
      };
      std::string ins = ask(dst);
      if (ins.empty()) {
        // Multi-instruction rules need a destination apart from their sources: a fresh one (then copied).
        int scratch = alloc();
        if (scratch < 0) return Refuse("the epilogue needs more than 8 registers");
        ins = ask(scratch);
        if (ins.empty()) {
          return Refuse("op " + Downcast<Op>(c->op)->name + " has no epilogue instruction for these arguments");
        }
        if (is_root) {
          ins += "; copy r0 r" + std::to_string(scratch);
          reg_free[scratch] = true;
        } else {
          reg_free[dst] = true;
          dst = scratch;
        }
      }
      emit(ins);
      if (!is_root) {
        src[c] = "r" + std::to_string(dst);
        reg_of[c] = dst;
        if (uses[c] == 0) reg_free[dst] = true;
      }
    }
    return text;
  }

  static constexpr int topi_num_regs = 8;

  // -- the reference path --------------------------------------------------------------------------------------
  std::vector<Entry> LowerReference(Group g, const Call& call, const Type& out_type) {
    Function func = g.func;
    if (func.defined() && !func->body.same_as(g.root)) {  // arguments were inlined: the leaves are the params left
      Array<Var> params;
      for (const Expr& leaf : g.leaves) params.push_back(Downcast<Var>(leaf));
      func = Function(params, g.root, Optional<Type>());
    } else if (!func.defined()) {
      // Non-scalar constants are params (weights stay out of the JSON); scalars stay in the function.
      for (const Expr& a : call->args) {
        const auto* k = a.as<ConstantNode>();
        if (k && k->data.NumElements() > 1 && !g.leaf_index.count(a.get())) AddLeaf(&g, a, EntriesOf(a));
      }
      // One op: its leaves (args and the free variables of function args) become fresh parameters.
      std::unordered_map<const Object*, Expr> subst;
      Array<Var> params;
      for (const Expr& leaf : g.leaves) {
        Var p("x" + std::to_string(params.size()), leaf->checked_type());
        params.push_back(p);
        subst[leaf.get()] = p;
      }
      std::vector<Expr> args;
      for (const Expr& a : call->args) {
        auto it = subst.find(a.get());
        args.push_back(it != subst.end() ? it->second : Substitute(a, subst));
      }
      func = Function(params, Call(call->op, Array<Expr>(args), call->attrs), Optional<Type>());
    }
    GNode n;
    n.is_op = true;
    n.name = g.name;
    n.func_name = kReference;
    n.kernel_attrs.Set(String("func"), String(runtime::SaveJSON(Any(func))));
    n.reason = reason_.empty() ? "no native lowering" : reason_;
    for (const auto& le : g.leaf_entries) n.inputs.insert(n.inputs.end(), le.begin(), le.end());
    FlattenType(out_type, &n.out_types);
    int64_t id = AddNode(std::move(n));
    std::vector<Entry> out;
    for (size_t i = 0; i < nodes_[id].out_types.size(); ++i) out.push_back({id, static_cast<int64_t>(i)});
    return out;
  }

  class Substituter : public ExprMutator {
   public:
    explicit Substituter(const std::unordered_map<const Object*, Expr>& map) : map_(map) {}

   protected:
    Expr Rewrite(const Expr& original, const Array<Expr>& children) override {
      auto it = map_.find(original.get());
      return it != map_.end() ? it->second : ExprMutator::Rewrite(original, children);
    }

   private:
    const std::unordered_map<const Object*, Expr>& map_;
  };

  static Expr Substitute(const Expr& e, const std::unordered_map<const Object*, Expr>& map) {
    return Substituter(map).Mutate(e);
  }

  // -- output --------------------------------------------------------------------------------------------------
  Map<String, Any> Finish(const std::vector<Entry>& heads) {
    std::vector<int64_t> row_ptr{0};
    for (const GNode& n : nodes_) row_ptr.push_back(row_ptr.back() + static_cast<int64_t>(n.out_types.size()));
    auto eid = [&](const Entry& e) { return row_ptr[e.node] + e.index; };
    const int64_t num_entries = row_ptr.back();
    // The memory plan.
    PlanInput plan_in;
    plan_in.entries.resize(num_entries);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const GNode& n = nodes_[i];
      for (size_t k = 0; k < n.out_types.size(); ++k) {
        PlanEntry& pe = plan_in.entries[row_ptr[i] + k];
        pe.bytes = TensorBytes(n.out_types[k]);
        pe.planned = n.native;
        pe.dynamic = n.native && !StaticShape(n.out_types[k]);
        if (n.func_name == kNop || n.returns_view) pe.alias_of = eid(n.inputs[0]);
      }
      if (n.is_op) {
        PlanNode pn;
        for (const Entry& e : n.inputs) pn.inputs.push_back(eid(e));
        for (size_t k = 0; k < n.out_types.size(); ++k) pn.outputs.push_back(row_ptr[i] + k);
        plan_in.nodes.push_back(std::move(pn));
      }
    }
    for (const Entry& e : heads) plan_in.outputs.push_back(eid(e));
    for (const Entry& e : branch_outputs_) plan_in.outputs.push_back(eid(e));  // a select's outputs alias them
    MemoryPlan plan = PlanMemory(plan_in);

    std::string j = "{\"nodes\":[";
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const GNode& n = nodes_[i];
      j += i ? ",\n" : "\n";
      j += "{\"op\":";
      runtime::json::WriteString(n.is_op ? "tvm_op" : "null", &j);
      j += ",\"name\":";
      runtime::json::WriteString(n.name, &j);
      j += ",\"inputs\":[";
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        j += (k ? "," : "") + std::string("[") + std::to_string(n.inputs[k].node) + "," +
             std::to_string(n.inputs[k].index) + ",0]";
      }
      j += "]";
      if (n.is_op) {
        j += ",\"attrs\":{\"func_name\":";
        runtime::json::WriteString(n.func_name, &j);
        j += ",\"num_inputs\":\"" + std::to_string(n.inputs.size()) + "\",\"num_outputs\":\"" +
             std::to_string(n.out_types.size()) + "\",\"flatten_data\":\"0\",\"kernel_attrs\":{";
        bool first = true;
        for (const auto& kv : n.kernel_attrs) {
          if (!first) j += ",";
          first = false;
          runtime::json::WriteString(std::string(kv.first), &j);
          j += ":";
          TVMLITE_ICHECK(runtime::json::WritePlain(kv.second, &j)) << "LowerToGraph: a kernel attr is not JSON";
        }
        j += "}";
        if (!n.reason.empty()) {
          j += ",\"reason\":";
          runtime::json::WriteString(n.reason, &j);
        }
        if (!n.body_json.empty()) j += ",\"body\":" + n.body_json;  // a loop's body graph (LowerLoop)
        if (n.returns) j += n.returns_view ? ",\"returns\":\"view\"" : ",\"returns\":\"outputs\"";
        if (n.per_shape) j += ",\"per_shape\":1";
        if (!n.guard.empty()) {
          j += ",\"guard\":[";
          for (size_t k = 0; k < n.guard.size(); ++k) {
            j += (k ? ",[" : "[") + std::to_string(n.guard[k].first.node) + "," +
                 std::to_string(n.guard[k].first.index) + "," + (n.guard[k].second ? "1" : "0") + "]";
          }
          j += "]";
        }
        if (n.shape_func.defined()) {
          j += ",\"shape_func\":";
          runtime::json::WriteString(runtime::SaveJSON(Any(n.shape_func)), &j);
          j += ",\"shape_args\":[";
          for (size_t a = 0; a < n.shape_args.size(); ++a) {
            j += a ? ",[" : "[";
            for (size_t k = 0; k < n.shape_args[a].size(); ++k) {
              j += (k ? ",[" : "[") + std::to_string(n.shape_args[a][k].node) + "," +
                   std::to_string(n.shape_args[a][k].index) + ",0]";
            }
            j += "]";
          }
          j += "]";
        }
        j += "}";
      }
      j += "}";
    }
    j += "\n],\"arg_nodes\":[";
    for (size_t i = 0; i < arg_nodes_.size(); ++i) j += (i ? "," : "") + std::to_string(arg_nodes_[i]);
    j += "],\"input_nodes\":[";
    bool first = true;
    for (int64_t a : arg_nodes_) {
      if (!input_nodes_.count(a)) continue;
      j += (first ? "" : ",") + std::to_string(a);
      first = false;
    }
    j += "],\"heads\":[";
    for (size_t i = 0; i < heads.size(); ++i) {
      j += (i ? "," : "") + std::string("[") + std::to_string(heads[i].node) + "," + std::to_string(heads[i].index) +
           ",0]";
    }
    j += "],\"node_row_ptr\":[";
    for (size_t i = 0; i < row_ptr.size(); ++i) j += (i ? "," : "") + std::to_string(row_ptr[i]);
    j += "],\"attrs\":{\"shape\":[\"list_shape\",[";
    std::string dltype = "[\"list_str\",[", storage = "[\"list_int\",[", is_static = "[\"list_int\",[";
    int64_t e = 0;
    for (const GNode& n : nodes_) {
      for (const Type& t : n.out_types) {
        const char* sep = e ? "," : "";
        j += sep + std::string("[");
        if (const auto* tt = t.as<TensorTypeNode>()) {
          for (size_t d = 0; d < tt->ndim(); ++d) {
            auto dim = tt->static_dim(d);
            j += (d ? "," : "") + std::to_string(dim ? *dim : -1);
          }
        }
        j += "]";
        dltype += sep;
        if (const auto* tt = t.as<TensorTypeNode>()) runtime::json::WriteString(tt->dtype.str(), &dltype);
        else if (const auto* dt = t.as<DynTensorTypeNode>()) runtime::json::WriteString(dt->dtype.str(), &dltype);
        else dltype += "\"object\"";
        // A returned view shares its input's storage in the plan (liveness), but the kernel makes the view.
        storage += sep + std::to_string(n.returns ? -1 : plan.storage_id[e]);
        is_static += sep + std::string(StaticShape(t) ? "1" : "0");
        ++e;
      }
    }
    j += "]],\"dltype\":" + dltype + "]],\"storage_id\":" + storage + "]],\"static\":" + is_static + "]]";
    j += ",\"planned_bytes\":" + std::to_string(plan.planned_bytes) +
         ",\"intermediate_bytes\":" + std::to_string(plan.intermediate_bytes) + "}}";
    Map<String, Any> out;
    out.Set(String("graph_json"), String(j));
    out.Set(String("params"), params_);
    return out;
  }

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
  const CallNode* loop_fallback_ = nullptr;  // a loop or scan call LowerLoop gives the group path
  std::vector<std::pair<Entry, bool>> guard_;  // the conditions of the branches being lowered
  std::vector<Entry> branch_outputs_;          // kept alive until the select nodes have read them
  std::vector<GNode> nodes_;
  std::vector<int64_t> arg_nodes_;
  std::unordered_set<int64_t> input_nodes_;
  std::unordered_set<const Object*> first_field_only_;  // tuple-valued calls read only as field 0
  Map<String, Any> params_;
};

TVMLITE_REGISTER_GLOBAL("relay.backend.LowerToGraph").set_body_typed([](IRModule mod, bool depthwise_chains) {
  return GraphBuilder(mod, depthwise_chains).Run();
});

}  // namespace
}  // namespace backend
}  // namespace tvmlite
