/*!
 * \file fuse_ops.cc
 * \brief FuseOps: group each anchor op with the elementwise ops after it, TVM's post-dominator fusion.
 *
 * What a group is (docs/compiler.md "Fused groups"): a Function{"Primitive": 1} called once from its enclosing
 * function, whose body is
 *   - an *anchor* (a call of an op of pattern kInjective or above, or an elementwise/broadcast op the backend
 *     has no epilogue for) followed by *epilogue ops* (pattern <= kBroadcast, an "FTVMLiteEpilogue" attribute,
 *     a float32 tensor result) that each depend on the anchor, directly or through other members; or
 *   - no anchor: a DAG of epilogue ops, the first of which is the root.
 * A group has one output. Inputs of members that are not members are the group's parameters (fresh Vars typed
 * as the arguments); Constants, Vars, Tuples, TupleGetItems, Functions and kOpaque ops are never members
 * (opaque ops stay bare calls). A group holds at most max_depth ops (32 by default; the PassContext config
 * "relay.FuseOps.max_depth", TVM's key).
 *
 * Algorithm (TVM's, over the dataflow graph of one function; nested Function bodies are not entered):
 *   1. Indexed forward graph: every node of the body in topological order (producers first), each with its
 *      consumers. A node is *external* when something beyond the graph uses it: it is the body, or a nested
 *      Function's body refers to it (such a Function gets an edge from it, so it orders after it).
 *   2. Post-dominator tree: walking in reverse topological order, ipdom(n) is the lowest common ancestor, in the
 *      tree built so far, of n's consumers (the virtual sink when n is external). Every path from n to the
 *      outputs passes through ipdom(n).
 *
 *          conv ----> sigmoid ---> multiply          ipdom(conv) = multiply: the paths conv -> multiply are
 *            \____________________/                  {sigmoid, multiply}, all epilogue ops: one group (silu)
 *
 *   3. Grouping: in topological order, each op not yet grouped that may start a group (any op but an opaque
 *      one) roots one. The group grows from its current sink s: with d = ipdom(s), if every node on the paths
 *      from s to d (d included) is an epilogue op not yet grouped and the group stays within max_depth ops, they
 *      all join and d becomes the sink; otherwise the group is complete. Since d post-dominates s, every
 *      consumer of a node strictly between s and d is itself on those paths, so only the sink's value leaves
 *      the group (one output) and no outside node lies between two members (no cycle between groups).
 *      A conv whose output feeds two later convs has ipdom beyond them, and a conv is no epilogue op, so it
 *      stays alone; a residual add joins the first of its two producers' groups.
 *   4. Rewrite: rebuild the body in topological order; a group's output becomes the call of its Function with
 *      the outside values of its parameters; nested Functions are rewritten with the enclosing graph's new
 *      nodes. Then the module is typed again.
 * fuse_opt_level 0 turns fusion off: the module comes back as it is (typed); the lowering takes bare op calls.
 */
#include <tvmlite/relay/op_facts.h>
#include <tvmlite/relay/type_rel.h>
#include <tvmlite/runtime/registry.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pass_util.h"

namespace tvmlite {
namespace relay {

namespace {

/*! \brief The dataflow graph of one function body, in topological order, with consumer lists. */
struct IndexedGraph {
  std::vector<Expr> nodes;                       // producers before consumers
  std::unordered_map<const Object*, int> index;  // node -> position
  std::vector<std::vector<int>> consumers;       // distinct consumer positions
  std::vector<bool> external;                    // used beyond the graph (the body itself, nested functions)

  /*! \brief The graph's edges of node: its inputs (a Call's callee when it is not an Op, its args; Tuple fields;
   * the tuple of a TupleGetItem; the outer nodes a nested Function's body refers to). */
  std::vector<Expr> Inputs(const Expr& node) const {
    std::vector<Expr> in;
    if (const auto* call = node.as<CallNode>()) {
      if (!call->op.as<OpNode>()) in.push_back(call->op);
      for (const Expr& a : call->args) in.push_back(a);
    } else if (const auto* t = node.as<TupleNode>()) {
      for (const Expr& f : t->fields) in.push_back(f);
    } else if (const auto* g = node.as<TupleGetItemNode>()) {
      in.push_back(g->tuple);
    } else if (node.as<FunctionNode>()) {
      auto it = captures.find(node.get());
      if (it != captures.end()) in = it->second;
    }
    return in;
  }

  std::unordered_map<const Object*, std::vector<Expr>> captures;  // nested Function -> outer nodes it uses
};

/*! \brief Post-order over body with Functions as leaves (their captures as inputs, once known). */
template <typename InputsFn>
std::vector<Expr> TopoOrder(const Expr& body, InputsFn inputs) {
  std::vector<Expr> order;
  std::unordered_set<const Object*> seen{body.get()};
  struct Frame {
    Expr node;
    std::vector<Expr> in;
    size_t next;
  };
  std::vector<Frame> stack;
  stack.push_back({body, inputs(body), 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.in.size()) {
      Expr child = top.in[top.next++];
      if (seen.insert(child.get()).second) {
        std::vector<Expr> in = inputs(child);
        stack.push_back({std::move(child), std::move(in), 0});
      }
      continue;
    }
    order.push_back(std::move(top.node));
    stack.pop_back();
  }
  return order;
}

/*! \brief The outer nodes body refers to: a walk of body (nested functions included) that stops at them. */
std::vector<Expr> OuterNodesUsed(const Expr& body, const std::unordered_set<const Object*>& outer) {
  std::vector<Expr> used;
  std::unordered_set<const Object*> seen{body.get()};
  std::vector<Expr> stack{body};
  while (!stack.empty()) {
    Expr node = stack.back();
    stack.pop_back();
    if (outer.count(node.get())) {
      used.push_back(node);
      continue;
    }
    for (const Expr& c : ExprChildren(node)) {
      if (seen.insert(c.get()).second) stack.push_back(c);
    }
  }
  return used;
}

IndexedGraph BuildGraph(const Expr& body) {
  IndexedGraph g;
  // Pass 1: the body's nodes with nested Functions as plain leaves; pass 2 orders each Function after the outer
  // nodes its body uses.
  std::vector<Expr> first = TopoOrder(body, [&g](const Expr& n) { return g.Inputs(n); });
  std::unordered_set<const Object*> outer;
  for (const Expr& n : first) outer.insert(n.get());
  bool nested = false;
  for (const Expr& n : first) {
    const auto* f = n.as<FunctionNode>();
    if (f == nullptr) continue;
    std::vector<Expr> used = OuterNodesUsed(f->body, outer);
    if (!used.empty()) nested = true;
    g.captures[n.get()] = std::move(used);
  }
  g.nodes = nested ? TopoOrder(body, [&g](const Expr& n) { return g.Inputs(n); }) : std::move(first);
  for (size_t i = 0; i < g.nodes.size(); ++i) g.index[g.nodes[i].get()] = static_cast<int>(i);
  g.consumers.assign(g.nodes.size(), {});
  g.external.assign(g.nodes.size(), false);
  g.external[g.index.at(body.get())] = true;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::unordered_set<int> distinct;
    for (const Expr& in : g.Inputs(g.nodes[i])) {
      int j = g.index.at(in.get());
      if (distinct.insert(j).second) g.consumers[j].push_back(static_cast<int>(i));
      if (g.nodes[i].as<FunctionNode>()) g.external[j] = true;
    }
  }
  return g;
}

/*! \brief ipdom of every node (the sink is -1), by LCA over consumers in reverse topological order. */
std::vector<int> PostDominators(const IndexedGraph& g) {
  int n = static_cast<int>(g.nodes.size());
  std::vector<int> parent(n, -1), depth(n, 0);
  auto depth_of = [&depth](int v) { return v < 0 ? 0 : depth[v]; };
  for (int v = n - 1; v >= 0; --v) {
    int lca = -1;
    if (!g.external[v] && !g.consumers[v].empty()) {
      lca = g.consumers[v][0];
      for (size_t k = 1; k < g.consumers[v].size() && lca >= 0; ++k) {
        int b = g.consumers[v][k];
        while (lca != b) {
          if (depth_of(lca) < depth_of(b)) std::swap(lca, b);
          lca = parent[lca];
          if (lca < 0) break;
        }
      }
    }
    parent[v] = lca;
    depth[v] = depth_of(lca) + 1;
  }
  return parent;
}

class Fuser {
 public:
  explicit Fuser(size_t max_depth) : max_depth_(max_depth), patterns_("TOpPattern"), epilogue_("FTVMLiteEpilogue") {}

  Function Run(const Function& func) {
    IndexedGraph g = BuildGraph(func->body);
    std::vector<int> ipdom = PostDominators(g);
    int n = static_cast<int>(g.nodes.size());
    std::vector<int> group_of(n, -1);
    std::vector<std::vector<int>> groups;  // members in topological order
    for (int v = 0; v < n; ++v) {
      if (group_of[v] >= 0 || !CanRoot(g.nodes[v])) continue;
      int id = static_cast<int>(groups.size());
      std::vector<int> members{v};
      group_of[v] = id;
      // An anchor's epilogue runs in place on its output, so it may not broadcast wider (x - mean(x) is two
      // kernels); a group of elementwise ops only computes over its output's index space, so it may.
      const bool anchored = !IsEpilogue(g.nodes[v]);
      const TensorTypeNode* anchor = TensorTypeOf(g.nodes[v]);
      for (int sink = v; ipdom[sink] >= 0;) {
        std::vector<int> path = PathTo(g, sink, ipdom[sink]);
        bool ok = members.size() + path.size() <= max_depth_;
        for (size_t k = 0; ok && k < path.size(); ++k) {
          ok = group_of[path[k]] < 0 && IsEpilogue(g.nodes[path[k]]) &&
               (!anchored || SameShape(TensorTypeOf(g.nodes[path[k]]), anchor));
        }
        if (!ok) break;
        for (int p : path) group_of[p] = id;
        members.insert(members.end(), path.begin(), path.end());
        sink = ipdom[sink];
      }
      std::sort(members.begin(), members.end());
      groups.push_back(std::move(members));
    }
    return Rewrite(func, g, group_of, groups);
  }

 private:
  int PatternOf(const CallNode* call) const {
    const Any* p = patterns_.Find(runtime::Downcast<Op>(call->op));
    return p ? static_cast<int>(p->cast<int64_t>()) : kOpaque;
  }

  /*! \brief Whether node is an op call that may root a group (anything but an opaque op). */
  bool CanRoot(const Expr& node) const {
    const auto* call = node.as<CallNode>();
    if (call == nullptr || !call->op.as<OpNode>()) return false;
    for (const Expr& a : call->args) {
      if (a.as<FunctionNode>()) return false;  // control flow, whatever pattern it declares
    }
    int pattern = PatternOf(call);
    return pattern != kOpaque && pattern != kTuple && !IsSymbolicView(call);
  }

  /*!
   * \brief A view op ("TIsView": a reshape) over symbolic dims. Static, a group reads it as a view of its input
   * (group_lowering.cc, LeafView); symbolic, its shape is known at run time only, so it stays a group of its own (a
   * view the executor shapes per run) and its consumers group without it.
   */
  bool IsSymbolicView(const CallNode* call) const {
    if (!facts_.IsView(runtime::Downcast<Op>(call->op)) || call->args.empty()) return false;
    const TensorTypeNode* in = TensorTypeOf(call->args[0]);
    const TensorTypeNode* out = call->checked_type_.defined() ? call->checked_type_.as<TensorTypeNode>() : nullptr;
    return in == nullptr || out == nullptr || !in->static_shape() || !out->static_shape();
  }

  /*! \brief Whether node may follow an anchor inside a group: elementwise/broadcast, float32, with an epilogue. */
  bool IsEpilogue(const Expr& node) const {
    const auto* call = node.as<CallNode>();
    if (call == nullptr || !call->op.as<OpNode>() || PatternOf(call) > kBroadcast) return false;
    if (!epilogue_.count(runtime::Downcast<Op>(call->op))) return false;
    const TensorTypeNode* t = TensorTypeOf(node);
    return t != nullptr && t->dtype == DataType::Float(32);
  }

  /*!
   * \brief Whether an epilogue op's result b has the anchor's shape a, so the epilogue can run in place on the
   * anchor's output: dim by dim equal ints or the same SizeVar (a conv's (N, 64, 56, 56) and its bias add's), or b's
   * dim symbolic where a's is a static other than 1 (b is a's broadcast with something: it can only be a's). Two
   * different symbolic dims may differ at run time (DistilBERT's position embeddings, (?, ?, 768) from a sliced
   * buffer with 1 at run time, added to (batch, seq, 768)): not the same, as in the lowering (group_lowering.cc,
   * SameDims).
   */
  static bool SameShape(const TensorTypeNode* b, const TensorTypeNode* a) {
    if (a == nullptr || b == nullptr || a->shape.size() != b->shape.size()) return false;
    for (size_t i = 0; i < a->shape.size(); ++i) {
      const bool sa = a->shape[i].type_index() != kTVMLiteInt, sb = b->shape[i].type_index() != kTVMLiteInt;
      if (DimEqual(a->shape[i], b->shape[i]) || (!sa && sb && !DimIs(a->shape[i], 1))) continue;
      return false;
    }
    return true;
  }

  /*! \brief Nodes on the paths from s (excluded) to d (included), in topological order. */
  static std::vector<int> PathTo(const IndexedGraph& g, int s, int d) {
    std::vector<int> out, stack{s};
    std::unordered_set<int> seen{s};
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      for (int c : g.consumers[v]) {
        if (!seen.insert(c).second) continue;
        out.push_back(c);
        if (c != d) stack.push_back(c);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Function Rewrite(const Function& func, const IndexedGraph& g, const std::vector<int>& group_of,
                   const std::vector<std::vector<int>>& groups) {
    int n = static_cast<int>(g.nodes.size());
    std::vector<Expr> rebuilt(n);
    auto input_of = [&](const Expr& e) { return rebuilt[g.index.at(e.get())]; };
    std::vector<int> output_of(groups.size(), -1);
    for (size_t id = 0; id < groups.size(); ++id) output_of[id] = groups[id].back();
    for (int v = 0; v < n; ++v) {
      const Expr& node = g.nodes[v];
      int id = group_of[v];
      if (id >= 0) {
        if (output_of[id] == v) rebuilt[v] = GroupCall(g, groups[id], input_of);
        continue;  // an inner member: nothing outside the group uses it
      }
      if (node.as<FunctionNode>()) {  // a nested function: its body sees the new outer nodes it refers to
        SeededMutator m;
        for (const Expr& c : g.Inputs(node)) m.Seed(c, input_of(c));
        rebuilt[v] = m.Mutate(node);
        continue;
      }
      Array<Expr> children = ExprChildren(node);
      if (children.empty()) {
        rebuilt[v] = node;
        continue;
      }
      std::vector<Expr> new_children;
      bool changed = false;
      for (const Expr& c : children) {
        Expr nc = c.as<OpNode>() ? c : input_of(c);
        changed = changed || !nc.same_as(c);
        new_children.push_back(nc);
      }
      rebuilt[v] = changed ? WithFieldsAndType(node, Array<Expr>(new_children), Type()) : node;
    }
    Expr body = rebuilt[g.index.at(func->body.get())];
    if (body.same_as(func->body)) return func;
    return Function(func->params, body, func->ret_type, func->attrs);
  }

  /*! \brief Call(Function{Primitive}(params, members rebuilt), outside values) for one group. */
  template <typename InputOf>
  static Expr GroupCall(const IndexedGraph& g, const std::vector<int>& members, InputOf input_of) {
    std::unordered_map<const Object*, Expr> inside;  // old member / outside value -> expr in the body
    std::vector<Var> params;
    std::vector<Expr> args;
    Expr last;
    for (int v : members) {
      const auto* call = g.nodes[v].as<CallNode>();
      std::vector<Expr> new_args;
      for (const Expr& a : call->args) {
        auto it = inside.find(a.get());
        if (it == inside.end()) {
          Var p("p" + std::to_string(params.size()), a->checked_type_);
          params.push_back(p);
          args.push_back(input_of(a));
          it = inside.emplace(a.get(), p).first;
        }
        new_args.push_back(it->second);
      }
      last = Call(call->op, Array<Expr>(new_args), call->attrs);
      inside[g.nodes[v].get()] = last;
    }
    Map<String, Any> attrs;
    attrs.Set("Primitive", Any(int64_t{1}));
    return Call(Function(Array<Var>(params), last, Optional<Type>(), attrs), Array<Expr>(args));
  }

  size_t max_depth_;
  OpAttrMapBase patterns_;
  OpAttrMapBase epilogue_;
  OpFacts facts_;
};

}  // namespace

IRModule FuseOps(const IRModule& mod, int fuse_opt_level, int max_depth) {
  TVMLITE_CHECK_KIND(max_depth >= 1, ValueError) << "FuseOps: max_depth must be >= 1, got " << max_depth;
  IRModule typed = InferType(mod);
  if (fuse_opt_level <= 0) return typed;
  Fuser fuser(static_cast<size_t>(max_depth));
  return MapFunctions(typed, [&fuser](const Function& f) { return fuser.Run(f); });
}

TVMLITE_REGISTER_GLOBAL("relay._transform.FuseOps")
    .set_body_typed([](IRModule mod, int64_t fuse_opt_level, int64_t max_depth) {
      return FuseOps(mod, static_cast<int>(fuse_opt_level), static_cast<int>(max_depth));
    });

}  // namespace relay
}  // namespace tvmlite
