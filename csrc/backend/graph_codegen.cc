/*!
 * \file graph_codegen.cc
 * \brief relay.backend.LowerToGraph: a typed module whose main is a dataflow graph -> TVM's graph JSON + params.
 * This file makes the graph (walks main; inputs, params, If, Loop and Scan; the JSON); group_lowering.cc lowers each
 * fused group to its node (a view, a native kernel and its epilogue program, or the reference); graph_builder.h
 * declares the builder both share.
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
#include "./fuse_depthwise_chains.h"
#include "./graph_builder.h"
#include "./memory_plan.h"
#include "./per_shape.h"

namespace tvmlite {
namespace backend {

namespace {
const char* kSelect = "__select";
}  // namespace

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

Map<String, Any> GraphBuilder::Run() {
  FindFirstFieldOnly(main_->body);
  for (const Var& p : main_->params) main_params_.insert(p.get());
  for (const Var& p : main_->params) Lower(p);  // inputs first, in main's order (unused ones too)
  std::vector<Entry> heads = Lower(main_->body);
  if (depthwise_chains_) FuseDepthwiseChains(&nodes_, &arg_nodes_, &input_nodes_, &heads);
  return Finish(heads);
}

// ---------------------------------------------------------------------------------------------------------------
// Walking main
// ---------------------------------------------------------------------------------------------------------------

std::vector<Entry> GraphBuilder::Lower(const Expr& root) {
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

void GraphBuilder::FindFirstFieldOnly(const Expr& body) {
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

std::vector<Expr> GraphBuilder::DataChildren(const Expr& e) {
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

std::vector<Entry> GraphBuilder::EntriesOf(const Expr& e) {
  if (const auto* c = e.as<ConstantNode>()) return {{AddParam(c->data, e->checked_type()), 0}};
  return memo_.at(e.get());
}

bool GraphBuilder::IsPrimitive(const Expr& e) {
  const auto* f = e.as<FunctionNode>();
  if (f == nullptr) return false;
  Any p = f->GetAttr("Primitive");
  return !p.is_none() && p.as<int64_t>().value_or(0) == 1;
}

std::vector<Entry> GraphBuilder::LowerNode(const Expr& e) {
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

int64_t GraphBuilder::AddNode(GNode n, bool is_input) {
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

int64_t GraphBuilder::AddParam(const NDArray& data, const Type& type) {
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

bool GraphBuilder::Comparable(const NDArray& a) {
  DataType t = a.dtype();
  return a.IsContiguous() && !t.is_string() && (t.bits() * t.lanes()) % 8 == 0;
}

int64_t GraphBuilder::EqualParam(const NDArray& a) {
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

// ---------------------------------------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------------------------------------

std::vector<Entry> GraphBuilder::LowerCall(const Call& call, const CallNode* c) {
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

std::vector<Entry> GraphBuilder::LowerGroup(const Group& g, const Call& call) {
  Type out_type = g.root->checked_type();
  if (auto r = TryView(g)) return *r;
  reason_.clear();
  if (auto r = TryNative(g, first_field_only_.count(call.get()) != 0)) return *r;
  return LowerReference(g, call, out_type);
}

void GraphBuilder::MarkPerShape(const Group& g, size_t first) {
  LeafUse use = GroupLeafUse(g.root, g.leaf_index, facts_);
  bool leaf_shapes_fixed = true, returned_shape_fixed = true;
  for (size_t k = 0; k < g.leaf_entries.size(); ++k) {
    for (const Entry& e : g.leaf_entries[k]) {
      leaf_shapes_fixed = leaf_shapes_fixed && shape_fixed_[e.node];
      returned_shape_fixed =
          returned_shape_fixed && (use.shape_value_read[k] ? value_fixed_[e.node] : shape_fixed_[e.node]);
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

bool GraphBuilder::AllStatic(const std::vector<Type>& types) {
  for (const Type& t : types) {
    const auto* tt = t.as<TensorTypeNode>();
    if (tt == nullptr || !tt->static_shape()) return false;
  }
  return true;
}

std::vector<Entry> GraphBuilder::LowerIf(const Call& call, const CallNode* c) {
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
      << "LowerToGraph: an if_call's branches give " << then_out.size() << " and " << else_out.size() << " values for "
      << n.out_types.size() << " outputs";
  n.inputs = cond;
  n.inputs.insert(n.inputs.end(), then_out.begin(), then_out.end());
  n.inputs.insert(n.inputs.end(), else_out.begin(), else_out.end());
  int64_t id = AddNode(std::move(n));
  std::vector<Entry> out;
  for (size_t i = 0; i < nodes_[id].out_types.size(); ++i) out.push_back({id, static_cast<int64_t>(i)});
  return out;
}

std::vector<Entry> GraphBuilder::LowerLoop(const Call& call, const CallNode* c) {
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

std::optional<std::vector<Entry>> GraphBuilder::TryLoop(const Call& call, const CallNode* c, std::string* why) {
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
    for (size_t i = c->args[0]->checked_type().as<TupleTypeNode>()->fields.size(); i < ret_fields->fields.size(); ++i) {
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

std::vector<Expr> GraphBuilder::LoopInvariantLeaves(const Function& body, const relay::OpFacts& facts) {
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

Any GraphBuilder::LoweredField(const Map<String, Any>& m, const char* key) {
  const Any* v = m.get()->Find(Any(String(key)));
  TVMLITE_ICHECK(v != nullptr) << "LowerToGraph: no " << key;
  return *v;
}

void GraphBuilder::AddLeaf(Group* g, const Expr& leaf, const std::vector<Entry>& entries) {
  g->leaf_index[leaf.get()] = g->leaves.size();
  g->leaves.push_back(leaf);
  g->leaf_entries.push_back(entries);
}

std::string GraphBuilder::GroupName(const Group& g) {
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

std::optional<std::vector<Call>> GraphBuilder::GroupCalls(const Group& g) {
  std::vector<Call> calls;
  std::unordered_set<const Object*> seen;
  bool ok = true;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (!ok || seen.count(e.get()) || g.leaf_index.count(e.get())) return;
    seen.insert(e.get());
    if (e.as<ConstantNode>()) return;
    const auto* c = e.as<CallNode>();
    if (c == nullptr || !c->op.as<OpNode>()) {
      ok = false;
      return;
    }
    for (const Expr& a : c->args) {
      if (g.leaf_index.count(a.get())) continue;
      if (const auto* t = a.as<TupleNode>()) {
        // A tuple argument (concatenate's inputs; () an omitted input) of group inputs and constants.
        for (const Expr& f : t->fields) {
          if (!g.leaf_index.count(f.get()) && !f.as<ConstantNode>()) {
            ok = false;
            return;
          }
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

// ---------------------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------------------

Map<String, Any> GraphBuilder::Finish(const std::vector<Entry>& heads) {
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
          j += (k ? ",[" : "[") + std::to_string(n.guard[k].first.node) + "," + std::to_string(n.guard[k].first.index) +
               "," + (n.guard[k].second ? "1" : "0") + "]";
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

TVMLITE_REGISTER_GLOBAL("relay.backend.LowerToGraph").set_body_typed([](IRModule mod, bool depthwise_chains) {
  return GraphBuilder(mod, depthwise_chains).Run();
});

}  // namespace backend
}  // namespace tvmlite
