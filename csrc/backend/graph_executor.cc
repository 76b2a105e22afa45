/*!
 * \file graph_executor.cc
 * \brief The graph executor: runs the graph LowerToGraph made, one bound kernel call per node.
 *
 *   graph = graph_executor.parse(graph_json)                 // the lowering's JSON text -> Map (runtime/json.h)
 *   graph_executor.check(graph, params, py_factories)     // validate only: what load_module runs on a file
 *   ex = graph_executor.create(graph, params, device, py_factories)
 *   graph_executor.set_input(ex, "x", array); graph_executor.run(ex); y = graph_executor.get_output(ex, 0)
 *   graph_executor.bind_input(ex, 0, array)                // zero-copy: runs read array itself (the C API's)
 *   graph_executor.describe(graph, params, py_factories)  // {inputs, outputs: [name, dtype, shape]}
 *   graph_executor.fallbacks(graph)         // {fallbacks: the reference nodes [{name, reason}], op_nodes: count}
 *
 * At creation: storages of the memory plan are allocated (NDArray: 64-byte aligned), each planned entry is a view
 * of its storage with its own shape and dtype, static inputs get their own buffers, params are the NDArrays of the
 * params map (shared read-only by every executor made from one factory), and each node's factory is resolved by
 * func_name once and called with its kernel_attrs: the bound kernel. "__nop" nodes (views) alias their input's
 * memory; made once at creation when the input's buffer is fixed, else at run time.
 *
 * A graph is input (load_module reads it from a file): every malformed part is a ValueError, never a crash. A
 * node's func_name may name only a kernel factory: one C++ registered with set_kernel_factory()
 * (Registry::GetKernelFactory), or one of py_factories (name -> Function, or None: the Python kernel factories
 * that runtime.executor_factory.register_kernel_factory recorded, relay.backend.reference among them) that is
 * still the function registered under its name. No other registered function is ever called. Params must be
 * entries the graph names, with the graph's dtype and shape.
 *
 * If. Nodes of an If's branches carry a "guard" ([[node, index, 0|1], ...]: bool scalars and the value each must
 * hold); a node whose guard fails is skipped (profile() lists only the nodes that ran). A "__select" node after the
 * branches reads (cond, then-values..., else-values...) and its outputs become the taken branch's values: the
 * lowering keeps those alive (the memory plan pins them).
 *
 * Loop and Scan. A "__loop" / "__scan" node (graph_codegen.cc, LowerLoop) carries its body's graph in attrs.body
 * and in kernel_attrs how to read its inputs: (trip count if has_trip_count, cond if has_cond, num_carried values)
 * or (num_states states, num_scan_inputs scan inputs), then num_outer outer values, then the body's params
 * (body_params: their names in the body; params of this graph). At creation the node makes a child executor of the
 * body (checked the same way; bound kernels share the thread pool); each run iterates as the numpy references do
 * (tvmlite/relay/op/_control.py: _loop, _scan, with their error messages), feeding each iteration's results to the
 * next (copies of what the body rewrites in place), and returns the final values and the stacked scan outputs.
 *
 * Symbolic shapes. A node whose outputs have symbolic dims (-1 in the graph; a native kernel or a view) carries
 * "shape_func" (its group as a function of its leaves, saved IR: shape_func.h) and "shape_args" (each leaf's
 * entries). Before the node runs, the executor types that function with the leaves' concrete shapes: the output
 * shapes, cached per node by the leaves' shapes (the last shape is checked first: a server repeating one shape
 * pays a compare). A kernel's dynamic outputs live in storages the memory plan shares among dynamic entries by
 * liveness; a storage grows (never shrinks) when an entry placed in it needs more, so after the largest shape has
 * run once a run allocates nothing. The kernels take their shapes per call.
 *
 * Per shape. A node marked "per_shape" (graph_codegen.cc, per_shape.h) computes values that follow from the graph
 * inputs' shapes alone (a shifted-window mask, relative-position buckets, index arithmetic over shape_of). Its
 * outputs get storage of their own, and it runs only when the inputs' shapes (the signature) differ from those it
 * last ran with: otherwise its outputs still hold their values. A run that fails keeps what its per_shape nodes
 * finished; inside an If's branch such a node runs when its branch is taken and its values are stale (profile()
 * lists only the nodes that ran).
 *
 * run() calls each bound kernel through its Function with (inputs..., outputs...). A reference node, and a kernel
 * node marked "returns" (its output shape depends on input values: dyn.reshape, arange), instead returns its
 * outputs (an Array, one value per output entry: NDArrays of any shape, sequences, None), which are
 * stored in the entries. profile() runs once timing each node.
 *
 * Threads. Separate executors share nothing mutable (params are read only): they run in parallel, no lock in
 * common. One executor may be shared by threads: set_input, run, profile, get_input and get_output take the
 * executor's mutex, so each call sees and leaves a consistent executor (one call at a time; a sequence of calls
 * from one thread is not atomic: another thread's set_input may come between your set_input and run). get_output
 * and get_input return a copy of a tensor the executor rewrites in place (a snapshot no later call changes). All
 * five are long-running (bindings release the GIL before they lock), and nothing waits for the mutex while
 * holding the GIL: a reference node (Python) takes the GIL while run holds the mutex, so a caller that held the
 * GIL while waiting would deadlock. A run stays interruptible as before: Ctrl-C raises in the next reference node
 * (a Python callback), else when run returns; a run waiting for the mutex waits for the call holding it.
 */
#include "./graph_executor.h"

#include <tvmlite/runtime/json.h>

namespace tvmlite {
namespace backend {

std::string ShapeStr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> IntList(const Any& v, const char* what) {
  std::optional<Array<Any>> a = v.as<Array<Any>>();
  TVMLITE_CHECK_KIND(a.has_value(), ValueError) << "graph executor: " << what << " must be a list of ints";
  std::vector<int64_t> out;
  for (const Any& x : *a) {
    std::optional<int64_t> i = x.type_index() == kTVMLiteInt ? x.as<int64_t>() : std::nullopt;
    TVMLITE_CHECK_KIND(i.has_value(), ValueError) << "graph executor: " << what << " must be a list of ints";
    out.push_back(*i);
  }
  return out;
}

namespace {

/*! \brief A view of base's memory (from its start) with another shape and dtype; base must be large enough. */
NDArray ViewOf(const NDArray& base, const std::vector<int64_t>& shape, DLDataType dtype) {
  const DLTensor& src = base->tensor;
  DLTensor t{src.data, src.device,     static_cast<int32_t>(shape.size()), dtype, const_cast<int64_t*>(shape.data()),
             nullptr,  src.byte_offset};
  auto* owner = new NDArray(base);
  return NDArray::FromExternal(t, owner, [](void* p) { delete static_cast<NDArray*>(p); }, 0);
}

int64_t NumBytes(const std::vector<int64_t>& shape, DLDataType dtype) {
  int64_t n = DataType(dtype).bytes();  // as NDArray lays it out: whole bytes per element
  for (int64_t d : shape) {
    TVMLITE_CHECK_KIND(d >= 0 && !__builtin_mul_overflow(n, d, &n), ValueError)
        << "graph executor: an entry of shape " << ShapeStr(shape) << " does not fit in memory";
  }
  return n;
}

/*! \brief graph["attrs"][key] = ["list_...", [...]]: the list. */
Array<Any> AttrList(const Map<String, Any>& attrs, const char* key, size_t n) {
  Array<Any> pair = GraphField<Array<Any>>(attrs, key);
  TVMLITE_CHECK_KIND(pair.size() == 2, ValueError) << "graph executor: attrs." << key << " is malformed";
  std::optional<Array<Any>> list = pair[1].as<Array<Any>>();
  TVMLITE_CHECK_KIND(list && list->size() == n, ValueError)
      << "graph executor: attrs." << key << " must list " << n << " entries";
  return *list;
}

/*! \brief The factory func_name names: a C++ kernel factory, or one of py_factories still registered under it. */
Function ResolveFactory(const std::string& func_name, const std::string& node, const Map<String, Any>* py_factories,
                        bool is_reference) {
  if (Function f = runtime::Registry::GetKernelFactory(func_name); f.defined()) return f;
  Function registered = runtime::Registry::Get(func_name);
  if (py_factories != nullptr) {
    if (const Any* p = py_factories->get()->Find(Any(String(func_name)))) {
      std::optional<Function> f = p->as<Function>();
      if (f && registered.same_as(*f)) return *f;
    }
  }
  TVMLITE_CHECK_KIND(registered.defined(), ValueError)
      << "graph executor: no kernel factory '" << func_name << "' is registered (node " << node
      << (is_reference ? "; import tvmlite.relay.backend.reference_kernel" : "") << ")";
  TVMLITE_THROW(ValueError) << "graph executor: node " << node << " names '" << func_name
                            << "', a registered function that is not a kernel factory";
}

}  // namespace

void GraphExecutorObj::Init(const Map<String, Any>& graph, const Map<String, Any>& params,
                            const Map<String, Any>* py_factories, bool check_only) {
  Array<Any> jnodes = GraphField<Array<Any>>(graph, "nodes");
  std::vector<int64_t> row_ptr = IntList(GraphField<Array<Any>>(graph, "node_row_ptr"), "node_row_ptr");
  TVMLITE_CHECK_KIND(row_ptr.size() == jnodes.size() + 1 && row_ptr[0] == 0, ValueError)
      << "graph executor: node_row_ptr does not match the nodes";
  for (size_t i = 1; i < row_ptr.size(); ++i) {
    TVMLITE_CHECK_KIND(row_ptr[i] >= row_ptr[i - 1], ValueError) << "graph executor: node_row_ptr decreases";
  }
  const size_t num_entries = static_cast<size_t>(row_ptr.back());
  Map<String, Any> attrs = GraphField<Map<String, Any>>(graph, "attrs");
  Array<Any> jshape = AttrList(attrs, "shape", num_entries);
  Array<Any> jdtype = AttrList(attrs, "dltype", num_entries);
  std::vector<int64_t> sids = IntList(AttrList(attrs, "storage_id", num_entries), "storage_id");
  storage_of_ = sids;
  std::vector<int64_t> stat = IntList(AttrList(attrs, "static", num_entries), "static");
  values_.assign(num_entries, Any());
  in_place.assign(num_entries, false);
  for (size_t e = 0; e < num_entries; ++e) {
    shapes.push_back(IntList(jshape[e], "shape"));
    std::optional<String> dt = jdtype[e].as<String>();
    TVMLITE_CHECK_KIND(dt.has_value(), ValueError) << "graph executor: dltype must be strings";
    // Entries NDArray cannot hold (sequences, optionals: "object"; string tensors) carry any value.
    bool obj = std::string(*dt) == "object" || DataType(std::string(*dt)).is_string();
    is_object.push_back(obj);
    dtypes.push_back(obj ? DLDataType{kDLOpaqueHandle, 0, 0} : DLDataType(DataType(std::string(*dt))));
    is_static.push_back(stat[e] != 0 && !obj);
    if (is_static.back()) NumBytes(shapes.back(), dtypes.back());  // dims >= 0, size without overflow
  }
  // Storages: as large as the largest static entry placed in each; one holding dynamic entries (symbolic
  // shapes: a tensor, not an object) holds only such and is sized at run time.
  std::vector<int64_t> storage_bytes;
  std::vector<int> storage_kind;  // 0: unused, 1: static, 2: dynamic
  for (size_t e = 0; e < num_entries; ++e) {
    if (sids[e] < 0) continue;
    TVMLITE_CHECK_KIND(!is_object[e] && sids[e] < static_cast<int64_t>(num_entries) * 2 + 1, ValueError)
        << "graph executor: storage_id " << sids[e] << " of entry " << e << " is invalid";
    if (static_cast<size_t>(sids[e]) >= storage_bytes.size()) {
      storage_bytes.resize(sids[e] + 1, 0);
      storage_kind.resize(sids[e] + 1, 0);
    }
    const int kind = is_static[e] ? 1 : 2;
    TVMLITE_CHECK_KIND(storage_kind[sids[e]] == 0 || storage_kind[sids[e]] == kind, ValueError)
        << "graph executor: storage " << sids[e] << " holds entries of static and of symbolic shape";
    storage_kind[sids[e]] = kind;
    if (is_static[e]) storage_bytes[sids[e]] = std::max(storage_bytes[sids[e]], NumBytes(shapes[e], dtypes[e]));
  }
  for (size_t sid = 0; sid < storage_bytes.size(); ++sid) {
    storage_dynamic.push_back(storage_kind[sid] == 2);
    if (check_only) continue;
    storages.push_back(storage_kind[sid] == 2
                           ? NDArray()
                           : NDArray::Empty({std::max<int64_t>(storage_bytes[sid], 1)}, DataType::UInt(8)));
  }

  std::unordered_set<std::string> param_nodes;
  std::unordered_set<int64_t> param_entries;
  for (size_t i = 0; i < jnodes.size(); ++i) {
    std::optional<Map<String, Any>> jn = jnodes[i].as<Map<String, Any>>();
    TVMLITE_CHECK_KIND(jn.has_value(), ValueError) << "graph executor: node " << i << " is not an object";
    Node n;
    n.name = std::string(GraphField<String>(*jn, "name"));
    std::string op = std::string(GraphField<String>(*jn, "op"));
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e) n.outputs.push_back(e);
    for (const Any& in : GraphField<Array<Any>>(*jn, "inputs")) {
      std::vector<int64_t> ref = IntList(in, "a node input");
      TVMLITE_CHECK_KIND(ref.size() >= 2 && ref[0] >= 0 && ref[0] < static_cast<int64_t>(i) && ref[1] >= 0 &&
                             ref[1] < row_ptr[ref[0] + 1] - row_ptr[ref[0]],
                         ValueError)
          << "graph executor: node " << n.name << " reads an entry that is not computed before it";
      n.inputs.push_back(row_ptr[ref[0]] + ref[1]);
    }
    if (op == "null") {
      TVMLITE_CHECK_KIND(n.outputs.size() == 1, ValueError)
          << "graph executor: input " << n.name << " has " << n.outputs.size() << " outputs";
      int64_t e = n.outputs[0];
      const Any* p = params.get()->Find(Any(String(n.name)));
      if (p != nullptr) {
        n.kind = kParam;
        CheckParam(n.name, e, *p);
        param_nodes.insert(n.name);
        param_entries.insert(e);
        values_[e] = *p;
      } else {
        n.kind = kInput;
        input_index[n.name] = static_cast<int64_t>(input_nodes.size());
        input_nodes.push_back(static_cast<int64_t>(i));
        if (is_static[e]) {
          in_place[e] = true;  // set_input copies into it
          if (!check_only) values_[e] = NDArray::Empty(shapes[e], dtypes[e]);
        }
      }
    } else {
      TVMLITE_CHECK_KIND(op == "tvm_op", ValueError) << "graph executor: unknown node op '" << op << "'";
      Map<String, Any> nattrs = GraphField<Map<String, Any>>(*jn, "attrs");
      n.func_name = std::string(GraphField<String>(nattrs, "func_name"));
      ParseShapeFunc(nattrs, row_ptr, i, &n);
      ParseGuard(nattrs, row_ptr, i, &n);
      ParsePerShape(nattrs, &n);
      if (n.func_name == "__loop" || n.func_name == "__scan") {
        n.kind = kLoop;
        const Any* r = nattrs.get()->Find(Any(String("returns")));
        TVMLITE_CHECK_KIND(r && r->as<String>() && *r->as<String>() == "outputs" && !n.per_shape, ValueError)
            << "graph executor: " << n.name << " must say \"returns\": \"outputs\" and not be per_shape";
        ParseLoop(nattrs, sids, param_entries, py_factories, check_only, &n);
      } else if (n.func_name == "__select") {
        n.kind = kSelect;
        TVMLITE_CHECK_KIND(!n.outputs.empty() && n.inputs.size() == 1 + 2 * n.outputs.size(), ValueError)
            << "graph executor: select " << n.name << " must read a condition and two values per output";
        TVMLITE_CHECK_KIND(!n.per_shape, ValueError)
            << "graph executor: select " << n.name << " cannot be per_shape (its values are the branch's)";
        for (int64_t e : n.outputs) {
          TVMLITE_CHECK_KIND(sids[e] < 0, ValueError)
              << "graph executor: select " << n.name << "'s outputs are its inputs': they have no storage";
          in_place[e] = true;
        }
      } else if (n.func_name == "__nop") {
        n.kind = kNop;
        TVMLITE_CHECK_KIND(n.inputs.size() == 1 && n.outputs.size() == 1 && !is_object[n.outputs[0]] &&
                               (is_static[n.outputs[0]] || n.shape_func.defined()),
                           ValueError)
            << "graph executor: view " << n.name << " must have one input and one tensor output, static or with a "
            << "shape_func";
        in_place[n.outputs[0]] = true;
      } else {
        n.kind = n.func_name == kReferenceFactory ? kReference : kKernel;
        if (const Any* r = nattrs.get()->Find(Any(String("returns")))) {
          std::optional<String> how = r->as<String>();
          TVMLITE_CHECK_KIND(n.kind == kKernel && how && (*how == "outputs" || *how == "view"), ValueError)
              << "graph executor: node " << n.name << "'s 'returns' must be \"outputs\" or \"view\" on a kernel";
          n.kind = kReturns;
        }
        n.factory = ResolveFactory(n.func_name, n.name, py_factories, n.kind == kReference);
        n.kernel_attrs = GraphField<Map<String, Any>>(nattrs, "kernel_attrs");
        if (n.kind == kReturns) {
          for (int64_t e : n.outputs) {
            TVMLITE_CHECK_KIND(sids[e] < 0, ValueError)
                << "graph executor: node " << n.name << " returns its outputs: they have no storage";
            in_place[e] = true;  // may be a view of memory the executor rewrites: get_output copies
          }
        } else if (n.kind == kReference) {
          const Any* func = n.kernel_attrs.get()->Find(Any(String("func")));
          TVMLITE_CHECK_KIND(func != nullptr && func->as<String>().has_value(), ValueError)
              << "graph executor: reference node " << n.name << " has no 'func' (the saved function) string";
        } else {
          for (int64_t e : n.outputs) {
            TVMLITE_CHECK_KIND(sids[e] >= 0, ValueError)
                << "graph executor: kernel node " << n.name << " has an output without storage";
            TVMLITE_CHECK_KIND(is_static[e] || n.shape_func.defined(), ValueError)
                << "graph executor: kernel node " << n.name << " has an output of symbolic shape and no shape_func";
            in_place[e] = true;
            if (n.per_shape) GivePrivateStorage(e, check_only);
            if (!check_only && is_static[e]) values_[e] = ViewOf(storages[storage_of_[e]], shapes[e], dtypes[e]);
          }
        }
      }
    }
    if (n.kind == kNop && !check_only && is_static[n.outputs[0]]) {
      const Any& in = values_[n.inputs[0]];
      if (std::optional<NDArray> a = in.as<NDArray>(); a && is_static[n.inputs[0]]) {
        values_[n.outputs[0]] = MakeView(n, *a, shapes[n.outputs[0]]);
        n.view_fixed = true;
      }
    }
    nodes.push_back(std::move(n));
  }
  for (const auto& kv : params) {
    TVMLITE_CHECK_KIND(param_nodes.count(std::string(kv.first)), ValueError)
        << "graph executor: param '" << std::string(kv.first) << "' is no input of the graph";
  }
  for (const Any& h : GraphField<Array<Any>>(graph, "heads")) {
    std::vector<int64_t> ref = IntList(h, "a head");
    TVMLITE_CHECK_KIND(ref.size() >= 2 && ref[0] >= 0 && ref[0] < static_cast<int64_t>(nodes.size()) && ref[1] >= 0 &&
                           ref[1] < row_ptr[ref[0] + 1] - row_ptr[ref[0]],
                       ValueError)
        << "graph executor: a head names no entry";
    heads.push_back(row_ptr[ref[0]] + ref[1]);
  }
  shape_cache_.resize(nodes.size());
  for (const Node& n : nodes) has_per_shape_ = has_per_shape_ || n.per_shape;
  computed_at_.assign(nodes.size(), 0);
  if (check_only) return;
  // Bound last, once the whole graph is known good: a file's kernel_attrs reach only kernel factories.
  for (Node& n : nodes) {
    if (!n.factory.defined()) continue;
    n.fn = n.factory(n.kernel_attrs).cast<Function>();
    // A kernel that returns its outputs, called as one writing them (or the reverse), would take an input for
    // its output: the file's "returns" must say what the kernel is.
    const bool returns = (n.fn.get()->cell.flags & kTVMLiteFunctionReturnsOutputs) != 0;
    TVMLITE_CHECK_KIND(n.kind == kReference || returns == (n.kind == kReturns), ValueError)
        << "graph executor: node " << n.name << "'s kernel " << n.func_name
        << (returns ? " returns its outputs: the node must say \"returns\""
                    : " writes its outputs: the node "
                      "must not say \"returns\"");
  }
}

void GraphExecutorObj::GivePrivateStorage(int64_t e, bool check_only) {
  storage_of_[e] = static_cast<int64_t>(storage_dynamic.size());
  storage_dynamic.push_back(!is_static[e]);
  if (check_only) return;
  storages.push_back(is_static[e]
                         ? NDArray::Empty({std::max<int64_t>(NumBytes(shapes[e], dtypes[e]), 1)}, DataType::UInt(8))
                         : NDArray());
}

void GraphExecutorObj::ParsePerShape(const Map<String, Any>& nattrs, Node* n) {
  const Any* p = nattrs.get()->Find(Any(String("per_shape")));
  if (p == nullptr) return;
  std::optional<int64_t> v = p->type_index() == kTVMLiteInt ? p->as<int64_t>() : std::nullopt;
  TVMLITE_CHECK_KIND(v && (*v == 0 || *v == 1), ValueError)
      << "graph executor: node " << n->name << "'s per_shape must be 0 or 1";
  n->per_shape = *v == 1;
}

void GraphExecutorObj::CheckParam(const std::string& name, int64_t e, const Any& value) const {
  if (is_object[e]) return;
  std::optional<NDArray> a = value.as<NDArray>();
  TVMLITE_CHECK_KIND(a.has_value(), ValueError) << "graph executor: param '" << name << "' is not a tensor";
  DataType want(dtypes[e]), got(a->dtype());
  TVMLITE_CHECK_KIND(want == got, ValueError)
      << "graph executor: param '" << name << "' is " << got.str() << ", the graph's entry is " << want.str();
  bool same = a->Shape().size() == shapes[e].size();
  for (size_t d = 0; same && d < shapes[e].size(); ++d) same = shapes[e][d] < 0 || shapes[e][d] == a->Shape()[d];
  TVMLITE_CHECK_KIND(same, ValueError) << "graph executor: param '" << name << "' has shape " << ShapeStr(a->Shape())
                                       << ", the graph's entry " << ShapeStr(shapes[e]);
}

NDArray GraphExecutorObj::MakeView(const Node& n, const NDArray& in, const std::vector<int64_t>& shape) const {
  int64_t out = n.outputs[0];
  TVMLITE_CHECK_KIND(in.IsContiguous() && in.NBytes() == static_cast<size_t>(NumBytes(shape, dtypes[out])), ValueError)
      << n.name << ": cannot view " << ShapeStr(in.Shape()) << " as " << ShapeStr(shape);
  return ViewOf(in, shape, dtypes[out]);
}

void GraphExecutorObj::ParseShapeFunc(const Map<String, Any>& nattrs, const std::vector<int64_t>& row_ptr, size_t i,
                                      Node* n) {
  const Any* f = nattrs.get()->Find(Any(String("shape_func")));
  const Any* a = nattrs.get()->Find(Any(String("shape_args")));
  if (f == nullptr && a == nullptr) return;
  TVMLITE_CHECK_KIND(f != nullptr && a != nullptr && f->as<String>().has_value(), ValueError)
      << "graph executor: node " << n->name << " needs both shape_func (a string) and shape_args";
  std::optional<ir::Function> func;
  try {
    func = runtime::LoadJSON(std::string(f->cast<String>())).as<ir::Function>();
  } catch (const runtime::Error& err) {
    TVMLITE_THROW(ValueError) << "graph executor: node " << n->name << "'s shape_func: " << err.message();
  }
  TVMLITE_CHECK_KIND(func.has_value(), ValueError)
      << "graph executor: node " << n->name << "'s shape_func is not a function";
  std::optional<Array<Any>> args = a->as<Array<Any>>();
  TVMLITE_CHECK_KIND(args && args->size() == (*func)->params.size(), ValueError)
      << "graph executor: node " << n->name << "'s shape_args must list one entry list per shape_func param";
  for (size_t k = 0; k < args->size(); ++k) {
    std::optional<Array<Any>> refs = (*args)[k].as<Array<Any>>();
    TVMLITE_CHECK_KIND(refs.has_value(), ValueError)
        << "graph executor: node " << n->name << "'s shape_args are malformed";
    std::vector<int64_t> entries;
    for (const Any& r : *refs) {
      std::vector<int64_t> ref = IntList(r, "a shape arg");
      TVMLITE_CHECK_KIND(ref.size() >= 2 && ref[0] >= 0 && ref[0] < static_cast<int64_t>(i) && ref[1] >= 0 &&
                             ref[1] < row_ptr[ref[0] + 1] - row_ptr[ref[0]],
                         ValueError)
          << "graph executor: node " << n->name << "'s shape_args read an entry that is not computed before it";
      entries.push_back(row_ptr[ref[0]] + ref[1]);
    }
    const ir::Var& p = (*func)->params[k];
    TVMLITE_CHECK_KIND(p->type_annotation.has_value(), ValueError)
        << "graph executor: node " << n->name << "'s shape_func has an untyped param";
    n->shape_args.push_back(std::move(entries));
  }
  n->shape_func = *func;
}

void GraphExecutorObj::ParseGuard(const Map<String, Any>& nattrs, const std::vector<int64_t>& row_ptr, size_t i,
                                  Node* n) {
  const Any* g = nattrs.get()->Find(Any(String("guard")));
  if (g == nullptr) return;
  std::optional<Array<Any>> list = g->as<Array<Any>>();
  TVMLITE_CHECK_KIND(list.has_value(), ValueError) << "graph executor: node " << n->name << "'s guard is malformed";
  for (const Any& item : *list) {
    std::vector<int64_t> ref = IntList(item, "a guard");
    TVMLITE_CHECK_KIND(ref.size() == 3 && ref[0] >= 0 && ref[0] < static_cast<int64_t>(i) && ref[1] >= 0 &&
                           ref[1] < row_ptr[ref[0] + 1] - row_ptr[ref[0]] && (ref[2] == 0 || ref[2] == 1),
                       ValueError)
        << "graph executor: node " << n->name << "'s guard must name entries computed before it, each with 0 or 1";
    n->guard.push_back({row_ptr[ref[0]] + ref[1], ref[2] == 1});
  }
}

bool GraphExecutorObj::Truth(int64_t e, const Node& n) const {
  std::optional<NDArray> a = values_[e].as<NDArray>();
  TVMLITE_CHECK_KIND(a && a->NumElements() == 1, ValueError)
      << n.name << ": the condition must be a tensor of one element";
  const DLTensor& t = (*a)->tensor;
  const char* p = static_cast<const char*>(t.data) + t.byte_offset;
  TVMLITE_CHECK_KIND(t.dtype.code == kDLBool || t.dtype.code == kDLInt || t.dtype.code == kDLUInt, TypeError)
      << n.name << ": the condition must be bool or an integer";
  for (int b = 0; b < (t.dtype.bits + 7) / 8; ++b) {
    if (p[b] != 0) return true;
  }
  return false;
}

ir::Type GraphExecutorObj::ConcreteType(const ir::Type& declared, const std::vector<NDArray>& arrays, size_t* pos) {
  if (const auto* tt = declared.as<ir::TupleTypeNode>()) {
    std::vector<ir::Type> fields;
    for (const ir::Type& f : tt->fields) fields.push_back(ConcreteType(f, arrays, pos));
    return ir::TupleType(Array<ir::Type>(fields));
  }
  TVMLITE_CHECK_KIND(*pos < arrays.size(), ValueError) << "shape function: fewer entries than its params take";
  const NDArray& a = arrays[(*pos)++];
  return ir::TensorType(a.Shape(), a.dtype());
}

const std::vector<std::vector<int64_t>>& GraphExecutorObj::OutShapes(size_t id, const Node& n) {
  ShapeCache& cache = shape_cache_[id];
  key_.clear();
  for (const auto& entries : n.shape_args) {
    for (int64_t e : entries) {
      std::optional<NDArray> a = values_[e].as<NDArray>();
      TVMLITE_CHECK_KIND(a.has_value(), ValueError) << n.name << ": an input of its shape function is not a tensor";
      const DLTensor& t = (*a)->tensor;
      key_.push_back(t.ndim);
      key_.insert(key_.end(), t.shape, t.shape + t.ndim);
    }
  }
  if (cache.last != nullptr && cache.last_key == key_) return *cache.last;
  auto it = cache.all.find(key_);
  if (it == cache.all.end()) {
    std::vector<ir::Type> args;
    for (size_t k = 0; k < n.shape_args.size(); ++k) {
      std::vector<NDArray> arrays;
      for (int64_t e : n.shape_args[k]) arrays.push_back(values_[e].cast<NDArray>());
      size_t pos = 0;
      args.push_back(ConcreteType(*n.shape_func->params[k]->type_annotation, arrays, &pos));
      TVMLITE_CHECK_KIND(pos == arrays.size(), ValueError) << n.name << ": its shape_args do not match its params";
    }
    std::vector<std::vector<int64_t>> out = ConcreteShapes(EvalShapeFunc(n.shape_func, args));
    TVMLITE_CHECK_KIND(out.size() == n.outputs.size(), ValueError)
        << n.name << ": its shape function gives " << out.size() << " shapes for " << n.outputs.size() << " outputs";
    for (size_t k = 0; k < out.size(); ++k) {
      const auto& declared = shapes[n.outputs[k]];
      bool fits = declared.empty() || declared.size() == out[k].size();
      for (size_t d = 0; fits && d < declared.size(); ++d) fits = declared[d] < 0 || declared[d] == out[k][d];
      TVMLITE_CHECK_KIND(fits, ValueError) << n.name << ": output " << k << " would have shape " << ShapeStr(out[k])
                                           << ", the graph says " << ShapeStr(declared);
      NumBytes(out[k], dtypes[n.outputs[k]]);  // fits in memory
    }
    if (cache.all.size() >= kMaxShapesPerNode) cache.all.clear();  // a bound on what odd callers can grow
    it = cache.all.emplace(key_, std::move(out)).first;
  }
  cache.last_key = key_;
  cache.last = &it->second;
  return it->second;
}

void GraphExecutorObj::BindDynamicOutput(int64_t e, int64_t sid, const std::vector<int64_t>& shape) {
  const int64_t bytes = NumBytes(shape, dtypes[e]);
  NDArray& storage = storages[sid];
  if (!storage.defined() || static_cast<int64_t>(storage.NBytes()) < bytes) {
    const int64_t old = storage.defined() ? static_cast<int64_t>(storage.NBytes()) : 0;
    storage = NDArray::Empty({std::max<int64_t>(std::max<int64_t>(bytes, old + old / 4), 1)}, DataType::UInt(8));
  }
  if (std::optional<NDArray> v = values_[e].as<NDArray>()) {
    if ((*v)->tensor.data == storage->tensor.data && v->Shape() == shape) return;
  }
  values_[e] = ViewOf(storage, shape, dtypes[e]);
}

void GraphExecutorObj::Run() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckInputsSet();
  has_run_ = false;  // until this run completes: a failed one leaves no outputs to read
  NoteSignature();
  std::vector<AnyView> args;
  for (size_t i = 0; i < nodes.size(); ++i) RunNode(i, &args);
  has_run_ = true;
}

void GraphExecutorObj::NoteSignature() {
  if (!has_per_shape_) return;
  signature_.clear();
  for (int64_t id : input_nodes) {
    const int64_t e = nodes[id].outputs[0];
    if (is_static[e]) continue;
    if (std::optional<NDArray> a = values_[e].as<NDArray>()) {
      signature_.push_back(static_cast<int64_t>(a->Shape().size()));
      for (int64_t d : a->Shape()) signature_.push_back(d);
    } else {
      signature_.push_back(-1);
    }
  }
  if (generation_ > 0 && signature_ == last_signature_) return;
  ++generation_;
  last_signature_.swap(signature_);
}

bool GraphExecutorObj::Taken(const Node& n) const {
  for (const auto& [e, want] : n.guard) {
    if (Truth(e, n) != want) return false;
  }
  return true;
}

Array<Any> GraphExecutorObj::Profile() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckInputsSet();
  has_run_ = false;
  NoteSignature();
  std::vector<AnyView> args;
  std::vector<Any> records;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    auto t0 = std::chrono::steady_clock::now();
    const bool ran = RunNode(i, &args);
    auto t1 = std::chrono::steady_clock::now();
    if (n.kind == kInput || n.kind == kParam || !ran) continue;
    Map<String, Any> r;
    r.Set(String("name"), String(n.name));
    r.Set(String("func_name"), String(n.func_name));
    std::vector<int64_t> shape;
    if (std::optional<NDArray> a = values_[n.outputs.empty() ? 0 : n.outputs[0]].as<NDArray>()) shape = a->Shape();
    r.Set(String("shape"), Array<int64_t>(shape));
    r.Set(String("time_ms"), std::chrono::duration<double, std::milli>(t1 - t0).count());
    records.push_back(r);
  }
  has_run_ = true;
  return Array<Any>(records);
}

int64_t GraphExecutorObj::InputEntry(const Any& key) const {
  if (std::optional<String> s = key.as<String>()) {
    auto it = input_index.find(std::string(*s));
    if (it == input_index.end()) {
      std::string names;
      for (int64_t id : input_nodes) names += (names.empty() ? "" : ", ") + nodes[id].name;
      TVMLITE_THROW(KeyError) << "set_input: the model has no input '" << std::string(*s) << "' (inputs: " << names
                              << ")";
    }
    return nodes[input_nodes[it->second]].outputs[0];
  }
  std::optional<int64_t> i = key.type_index() == kTVMLiteInt ? key.as<int64_t>() : std::nullopt;
  TVMLITE_CHECK_KIND(i.has_value(), TypeError) << "set_input: the key must be an input name or index";
  TVMLITE_CHECK_KIND(*i >= 0 && *i < static_cast<int64_t>(input_nodes.size()), IndexError)
      << "set_input: input index " << *i << " out of range for " << input_nodes.size() << " inputs";
  return nodes[input_nodes[*i]].outputs[0];
}

void GraphExecutorObj::SetInput(const Any& key, const Any& value, bool borrow) {
  int64_t e = InputEntry(key);
  const std::string& name = EntryName(e);
  if (is_object[e]) {
    std::lock_guard<std::mutex> lock(mu_);
    values_[e] = value;
    input_set_.insert(e);
    return;
  }
  std::optional<NDArray> a = value.as<NDArray>();
  if (!a.has_value()) {
    std::string got =
        value.object() ? value.object()->GetTypeKey() : "a value of type index " + std::to_string(value.type_index());
    TVMLITE_THROW(TypeError) << "set_input: input '" << name << "' is a tensor, got " << got;
  }
  DataType want(dtypes[e]), got(a->dtype());
  TVMLITE_CHECK_KIND(want == got, TypeError)
      << "set_input: input '" << name << "' is " << want.str() << ", got dtype " << got.str();
  if (is_static[e]) {
    TVMLITE_CHECK_KIND(a->Shape() == shapes[e], ValueError)
        << "set_input: input '" << name << "' has shape " << ShapeStr(shapes[e]) << ", got shape "
        << ShapeStr(a->Shape());
    std::lock_guard<std::mutex> lock(mu_);
    if (borrow) {
      values_[e] = *a;
      RemakeFixedViews(e);
    } else {
      if (bound_.erase(e)) {  // back from a borrowed array to the executor's own buffer
        values_[e] = NDArray::Empty(shapes[e], dtypes[e]);
        RemakeFixedViews(e);
      }
      values_[e].cast<NDArray>().CopyFrom(*a);
    }
    if (borrow) bound_.insert(e);
    input_set_.insert(e);
    return;
  }
  const auto& want_shape = shapes[e];
  TVMLITE_CHECK_KIND(want_shape.empty() || a->Shape().size() == want_shape.size(), ValueError)
      << "set_input: input '" << name << "' has rank " << want_shape.size() << ", got shape " << ShapeStr(a->Shape());
  for (size_t d = 0; d < want_shape.size(); ++d) {
    TVMLITE_CHECK_KIND(want_shape[d] < 0 || want_shape[d] == a->Shape()[d], ValueError)
        << "set_input: input '" << name << "' has shape " << ShapeStr(want_shape) << " (-1: any), got shape "
        << ShapeStr(a->Shape());
  }
  NDArray copy = *a;
  if (!borrow) {
    copy = NDArray::Empty(a->Shape(), a->dtype());  // copied before the lock: a new array each time
    copy.CopyFrom(*a);
  }
  std::lock_guard<std::mutex> lock(mu_);
  values_[e] = copy;
  input_set_.insert(e);
}

void GraphExecutorObj::RemakeFixedViews(int64_t e) {
  std::unordered_set<int64_t> changed{e};
  for (const Node& n : nodes) {
    if (n.kind != kNop || !n.view_fixed || !changed.count(n.inputs[0])) continue;
    values_[n.outputs[0]] = MakeView(n, values_[n.inputs[0]].cast<NDArray>(), shapes[n.outputs[0]]);
    changed.insert(n.outputs[0]);
  }
}

Map<String, Any> GraphExecutorObj::Describe() const {
  auto row = [&](const std::string& name, int64_t e) {
    std::string dtype = is_object[e] ? "object" : DataType(dtypes[e]).str();
    return Array<Any>({Any(String(name)), Any(String(dtype)), Any(Array<int64_t>(shapes[e]))});
  };
  std::vector<Any> inputs, outputs;
  for (int64_t id : input_nodes) inputs.push_back(row(nodes[id].name, nodes[id].outputs[0]));
  for (size_t i = 0; i < heads.size(); ++i) outputs.push_back(row("output" + std::to_string(i), heads[i]));
  Map<String, Any> out;
  out.Set(String("inputs"), Array<Any>(inputs));
  out.Set(String("outputs"), Array<Any>(outputs));
  return out;
}

const std::string& GraphExecutorObj::EntryName(int64_t e) const {
  for (int64_t id : input_nodes) {
    if (nodes[id].outputs[0] == e) return nodes[id].name;
  }
  static const std::string unknown = "?";
  return unknown;
}

Any GraphExecutorObj::GetOutput(int64_t i) {
  TVMLITE_CHECK_KIND(i >= 0 && i < static_cast<int64_t>(heads.size()), IndexError)
      << "get_output: index " << i << " out of range for " << heads.size() << " outputs";
  std::lock_guard<std::mutex> lock(mu_);
  TVMLITE_CHECK_KIND(has_run_, ValueError) << "get_output: run() has not been called (or the last run failed)";
  return Snapshot(heads[i]);
}

Any GraphExecutorObj::GetInput(const Any& key) {
  int64_t e = InputEntry(key);
  std::lock_guard<std::mutex> lock(mu_);
  return Snapshot(e);
}

Any GraphExecutorObj::Snapshot(int64_t e) const {
  if (in_place[e]) {
    if (std::optional<NDArray> a = values_[e].as<NDArray>()) {
      NDArray copy = NDArray::Empty(a->Shape(), a->dtype());
      copy.CopyFrom(*a);
      return copy;
    }
  }
  return values_[e];
}

bool GraphExecutorObj::RunNode(size_t id, std::vector<AnyView>* args) {
  const Node& n = nodes[id];
  if (!n.guard.empty() && !Taken(n)) return false;
  if (!n.per_shape) return Execute(id, n, args);
  if (computed_at_[id] == generation_) return false;
  Execute(id, n, args);
  computed_at_[id] = generation_;
  return true;
}

bool GraphExecutorObj::Execute(size_t id, const Node& n, std::vector<AnyView>* args) {
  switch (n.kind) {
    case kInput:
    case kParam: return true;
    case kSelect: {
      const size_t k = n.outputs.size();
      const size_t from = Truth(n.inputs[0], n) ? 1 : 1 + k;
      for (size_t i = 0; i < k; ++i) values_[n.outputs[i]] = values_[n.inputs[from + i]];
      return true;
    }
    case kNop:
      if (!n.view_fixed) {
        std::optional<NDArray> a = values_[n.inputs[0]].as<NDArray>();
        TVMLITE_CHECK_KIND(a.has_value(), ValueError) << n.name << ": the input of a view is not a tensor";
        values_[n.outputs[0]] = MakeView(n, *a, n.shape_func.defined() ? OutShapes(id, n)[0] : shapes[n.outputs[0]]);
      }
      return true;
    case kKernel: {
      if (n.shape_func.defined()) {
        const auto& out_shapes = OutShapes(id, n);
        for (size_t k = 0; k < n.outputs.size(); ++k) {
          const int64_t e = n.outputs[k];
          if (!is_static[e]) BindDynamicOutput(e, storage_of_[e], out_shapes[k]);
        }
      }
      args->clear();
      for (int64_t e : n.inputs) args->push_back(AnyView(values_[e]));
      for (int64_t e : n.outputs) args->push_back(AnyView(values_[e]));
      Any rv;
      n.fn.CallPacked(runtime::PackedArgs(args->data(), static_cast<int32_t>(args->size())), &rv);
      return true;
    }
    case kLoop:
      if (n.loop->is_loop) RunLoop(n);
      else RunScan(n);
      return true;
    case kReference:
    case kReturns: {
      args->clear();
      for (int64_t e : n.inputs) args->push_back(AnyView(values_[e]));
      Any rv;
      n.fn.CallPacked(runtime::PackedArgs(args->data(), static_cast<int32_t>(args->size())), &rv);
      std::optional<Array<Any>> outs = rv.as<Array<Any>>();
      TVMLITE_CHECK_KIND(outs && outs->size() == n.outputs.size(), ValueError)
          << n.name << ": the reference kernel must return a list of " << n.outputs.size() << " values";
      for (size_t k = 0; k < n.outputs.size(); ++k) values_[n.outputs[k]] = (*outs)[k];
      return true;
    }
  }
  return true;
}

void GraphExecutorObj::CheckInputsSet() const {
  std::string missing;
  for (int64_t id : input_nodes) {
    int64_t e = nodes[id].outputs[0];
    if (!input_set_.count(e)) missing += (missing.empty() ? "" : ", ") + nodes[id].name;
  }
  TVMLITE_CHECK_KIND(missing.empty(), ValueError) << "run: inputs not set: " << missing;
}

TVMLITE_REGISTER_OBJECT_TYPE(GraphExecutorObj);

namespace {

GraphExecutorObj* Self(const ObjectRef& ex) {
  auto* p = const_cast<GraphExecutorObj*>(ex.as<GraphExecutorObj>());
  TVMLITE_CHECK_KIND(p != nullptr, TypeError) << "expected a graph executor, got " << ex->GetTypeKey();
  return p;
}

const Map<String, Any>* OrNull(const runtime::Optional<Map<String, Any>>& m) { return m ? &*m : nullptr; }

/*! \brief The reference nodes of graph (loop bodies' too, named "<loop node>/<body node>"), in execution order:
 * {name, reason} (reason: why no native kernel took the node; "" in graphs from older files); counts op nodes. */
void CollectFallbacks(const Map<String, Any>& graph, const std::string& prefix, std::vector<Any>* out,
                      int64_t* op_nodes) {
  const Any* nodes = graph.get()->Find(Any(String("nodes")));
  std::optional<Array<Any>> list = nodes ? nodes->as<Array<Any>>() : std::nullopt;
  if (!list) return;
  for (const Any& item : *list) {
    std::optional<Map<String, Any>> node = item.as<Map<String, Any>>();
    const Any* attrs_any = node ? node->get()->Find(Any(String("attrs"))) : nullptr;
    std::optional<Map<String, Any>> attrs = attrs_any ? attrs_any->as<Map<String, Any>>() : std::nullopt;
    if (!attrs) continue;
    auto text = [](const Map<String, Any>& m, const char* key) {
      const Any* v = m.get()->Find(Any(String(key)));
      std::optional<String> s = v ? v->as<String>() : std::nullopt;
      return s ? std::string(*s) : std::string();
    };
    if (text(*node, "op") == "null") continue;
    ++*op_nodes;
    const std::string name = prefix + (text(*node, "name").empty() ? "?" : text(*node, "name"));
    if (text(*attrs, "func_name") == "relay.backend.reference") {
      Map<String, Any> r;
      r.Set(String("name"), String(name));
      r.Set(String("reason"), String(text(*attrs, "reason")));
      out->push_back(r);
    }
    const Any* body = attrs->get()->Find(Any(String("body")));
    if (std::optional<Map<String, Any>> b = body ? body->as<Map<String, Any>>() : std::nullopt) {
      CollectFallbacks(*b, name + "/", out, op_nodes);
    }
  }
}

// The graph JSON is parsed here, by the executor (Python's ExecutorFactoryModule and the C API both call it).
TVMLITE_REGISTER_GLOBAL("graph_executor.parse").set_body_typed([](std::string text) {
  Any graph = runtime::json::ParsePlain(text, "graph executor", true, 512);
  std::optional<Map<String, Any>> m = graph.as<Map<String, Any>>();
  TVMLITE_CHECK_KIND(m.has_value(), ValueError) << "graph executor: the graph JSON must be an object";
  return *m;
});
TVMLITE_REGISTER_GLOBAL("graph_executor.fallbacks").set_body_typed([](Map<String, Any> graph) {
  std::vector<Any> records;
  int64_t op_nodes = 0;
  CollectFallbacks(graph, "", &records, &op_nodes);
  Map<String, Any> out;
  out.Set(String("fallbacks"), Array<Any>(records));
  out.Set(String("op_nodes"), op_nodes);
  return out;
});
TVMLITE_REGISTER_GLOBAL("graph_executor.describe")
    .set_body_typed([](Map<String, Any> graph, Map<String, Any> params,
                       runtime::Optional<Map<String, Any>> py_factories) {
      auto n = runtime::make_object<GraphExecutorObj>();
      n->Init(graph, params, OrNull(py_factories), true);
      return n->Describe();
    });
TVMLITE_REGISTER_GLOBAL("graph_executor.check")
    .set_body_typed([](Map<String, Any> graph, Map<String, Any> params,
                       runtime::Optional<Map<String, Any>> py_factories) {
      runtime::make_object<GraphExecutorObj>()->Init(graph, params, OrNull(py_factories), true);
    });
TVMLITE_REGISTER_GLOBAL("graph_executor.create")
    .set_body_typed([](Map<String, Any> graph, Map<String, Any> params, DLDevice device,
                       runtime::Optional<Map<String, Any>> py_factories) {
      TVMLITE_CHECK_KIND(device.device_type == kDLCPU, ValueError)
          << "graph executor: only cpu devices are supported, got device type " << device.device_type;
      auto n = runtime::make_object<GraphExecutorObj>();
      n->Init(graph, params, OrNull(py_factories), false);
      return ObjectRef(n);
    });
// Every call that takes the executor's mutex is long-running: the GIL is released before it locks (see above).
TVMLITE_REGISTER_GLOBAL("graph_executor.set_input")
    .set_body_typed([](ObjectRef ex, Any key, Any value) { Self(ex)->SetInput(key, value); })
    .set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.bind_input")
    .set_body_typed([](ObjectRef ex, Any key, Any value) { Self(ex)->SetInput(key, value, true); })
    .set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.run").set_body_typed([](ObjectRef ex) { Self(ex)->Run(); }).set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.profile")
    .set_body_typed([](ObjectRef ex) { return Self(ex)->Profile(); })
    .set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.get_output")
    .set_body_typed([](ObjectRef ex, int64_t i) { return Self(ex)->GetOutput(i); })
    .set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.get_num_outputs").set_body_typed([](ObjectRef ex) {
  return static_cast<int64_t>(Self(ex)->heads.size());
});
TVMLITE_REGISTER_GLOBAL("graph_executor.get_input")
    .set_body_typed([](ObjectRef ex, Any key) { return Self(ex)->GetInput(key); })
    .set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.get_input_names").set_body_typed([](ObjectRef ex) {
  GraphExecutorObj* self = Self(ex);
  std::vector<String> names;
  for (int64_t id : self->input_nodes) names.push_back(String(self->nodes[id].name));
  return Array<String>(names);
});

}  // namespace
}  // namespace backend
}  // namespace tvmlite
