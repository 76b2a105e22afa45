/*!
 * \file group_lowering.cc
 * \brief One fused group to its graph node (graph_builder.h's GraphBuilder, the group half; graph_codegen.cc's
 * comment describes the choice): a "__nop" view, the anchor's native kernel with the epilogue program of the other
 * ops, topi.elemwise, a returning kernel, or the reference node with the reason no kernel took the group.
 */
#include <tvmlite/runtime/serialization.h>

#include <cmath>
#include <cstdio>

#include "./graph_builder.h"

namespace tvmlite {
namespace backend {

namespace {

/*!
 * \brief An attrs field value as a kernel attr: bools become ints, dtypes and types their text; nullopt when not
 * expressible.
 */
std::optional<Any> KernelAttrValue(const Any& v) {
  switch (v.type_index()) {
    case kTVMLiteNone:
    case kTVMLiteInt:
    case kTVMLiteFloat:
    case kTVMLiteString: return v;
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

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------------------------------

std::optional<PendingView> GraphBuilder::LeafView(const Group& g, const CallNode* c) {
  const auto* op = c->op.as<OpNode>();
  if (op == nullptr || c == g.root.get() || c->args.empty()) return std::nullopt;
  const bool broadcast = facts_.BroadcastsFirstInput(Downcast<Op>(c->op));
  if (!broadcast && !facts_.IsView(Downcast<Op>(c->op))) return std::nullopt;
  auto li = g.leaf_index.find(c->args[0].get());
  if (li == g.leaf_index.end() || g.leaf_entries[li->second].size() != 1) return std::nullopt;
  const Type& in_type = c->args[0]->checked_type();
  if (!IsF32(in_type) || !IsF32(c->checked_type_)) return std::nullopt;
  // A reshape of a symbolic input (its shape known at run time only) is not a view the lowering can make.
  if (!broadcast && (!StaticShape(in_type) || !StaticShape(c->checked_type_))) return std::nullopt;
  return PendingView{g.leaf_entries[li->second][0], broadcast ? in_type : c->checked_type_};
}

std::optional<std::vector<Entry>> GraphBuilder::TryView(const Group& g) {
  Expr e = g.root;
  Type out_type = e->checked_type();
  while (!g.leaf_index.count(e.get())) {
    const auto* c = e.as<CallNode>();
    if (c == nullptr) return std::nullopt;
    const auto* op = c->op.as<OpNode>();
    if (op == nullptr || c->args.empty()) return std::nullopt;
    if (!facts_.IsView(Downcast<Call>(e))) return std::nullopt;  // a reshape, or a transform keeping the order
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

void GraphBuilder::SetShapeFunc(const Group& g, const Expr& value, GNode* n) {
  n->shape_func = MakeShapeFunc(g.leaves, value);
  n->shape_args = g.leaf_entries;
}

// ---------------------------------------------------------------------------------------------------------------
// Native kernels
// ---------------------------------------------------------------------------------------------------------------

std::optional<std::vector<Entry>> GraphBuilder::TryNative(const Group& g, bool first_field_only) {
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

std::optional<std::vector<Entry>> GraphBuilder::ReturningNode(const Group& g, const std::vector<Call>& calls,
                                                              const CallNode* anchor, const std::string& kernel,
                                                              const Map<String, Any>& attrs,
                                                              const std::vector<Entry>& inputs) {
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

std::nullopt_t GraphBuilder::Refuse(std::string why) {
  reason_ = std::move(why);
  return std::nullopt;
}

bool GraphBuilder::AnchorInput(const Group& g, const Expr& a, std::vector<Entry>* inputs, std::vector<Type>* types) {
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

std::optional<std::string> GraphBuilder::KernelRefuses(const std::string& kernel, const Map<String, Any>& attrs,
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

bool GraphBuilder::ShapesFollowTypes(const GNode& n) {
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

Type GraphBuilder::BiasType(const CallNode* call) {
  const auto* data = call->args[0]->checked_type().as<TensorTypeNode>();
  const auto* bias = call->args[1]->checked_type().as<TensorTypeNode>();
  const int64_t ndim = static_cast<int64_t>(data->ndim());
  int64_t axis = call->attrs.as<relay::BiasAddAttrs>()->axis;
  if (axis < 0) axis += ndim;
  std::vector<Any> shape{bias->shape[0]};
  for (int64_t i = axis + 1; i < ndim; ++i) shape.push_back(Any(int64_t(1)));
  return TensorType(Array<Any>(shape), bias->dtype);
}

std::optional<Entry> GraphBuilder::BiasInput(const Group& g, const CallNode* call, std::vector<PendingView>* views) {
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

std::optional<std::string> GraphBuilder::BuildProgram(const Group& g, const std::vector<Call>& calls,
                                                      const CallNode* anchor, const Type& out_type,
                                                      std::vector<Entry>* epi_inputs, std::vector<PendingView>* views) {
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
      if (reg_free[r]) {
        reg_free[r] = false;
        return r;
      }
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
      if (it != src.end()) {
        srcs.push_back(it->second);
        continue;
      }
      if (const auto* t = a.as<TupleNode>(); t && t->fields.empty()) {
        srcs.push_back("()");
        continue;
      }
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

// ---------------------------------------------------------------------------------------------------------------
// The reference path
// ---------------------------------------------------------------------------------------------------------------

std::vector<Entry> GraphBuilder::LowerReference(Group g, const Call& call, const Type& out_type) {
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

Expr GraphBuilder::Substitute(const Expr& e, const std::unordered_map<const Object*, Expr>& map) {
  return Substituter(map).Mutate(e);
}

}  // namespace backend
}  // namespace tvmlite
