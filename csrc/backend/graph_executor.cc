/*!
 * \file graph_executor.cc
 * \brief The graph executor: runs the graph LowerToGraph made, one bound kernel call per node.
 *
 *   ex = graph_executor.create(graph, params, device)   // graph: the parsed graph JSON (a Map)
 *   graph_executor.set_input(ex, "x", array); graph_executor.run(ex); y = graph_executor.get_output(ex, 0)
 *
 * At creation: storages of the memory plan are allocated (NDArray: 64-byte aligned), each planned entry is a view
 * of its storage with its own shape and dtype, static inputs get their own buffers, params are the NDArrays of the
 * params map (shared read-only by every executor made from one factory), and each node's factory is resolved by
 * func_name in the global registry once and called with its kernel_attrs: the bound kernel. "__nop" nodes (views)
 * alias their input's memory; made once at creation when the input's buffer is fixed, else at run time.
 *
 * run() calls each bound kernel through its Function with (inputs..., outputs...). A reference node instead
 * returns its outputs (an Array, one value per output entry: NDArrays of any shape, sequences, None), which are
 * stored in the entries. run() is long-running (Python releases the GIL); executors share nothing mutable, so
 * concurrent run() calls on different executors are safe. profile() runs once timing each node.
 */
#include <tvmlite/runtime/array.h>
#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/map.h>
#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/runtime/registry.h>
#include <tvmlite/runtime/shape.h>

#include <chrono>
#include <unordered_map>
#include <unordered_set>

namespace tvmlite {
namespace backend {

using runtime::Any;
using runtime::AnyView;
using runtime::Array;
using runtime::DataType;
using runtime::Function;
using runtime::Map;
using runtime::NDArray;
using runtime::Object;
using runtime::ObjectRef;
using runtime::String;

namespace {

/*! \brief A view of base's memory (from its start) with another shape and dtype; base must be large enough. */
NDArray ViewOf(const NDArray& base, const std::vector<int64_t>& shape, DLDataType dtype) {
  const DLTensor& src = base->tensor;
  DLTensor t{src.data, src.device, static_cast<int32_t>(shape.size()), dtype, const_cast<int64_t*>(shape.data()),
             nullptr, src.byte_offset};
  auto* owner = new NDArray(base);
  return NDArray::FromExternal(t, owner, [](void* p) { delete static_cast<NDArray*>(p); }, 0);
}

int64_t NumBytes(const std::vector<int64_t>& shape, DLDataType dtype) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n * DataType(dtype).bytes();  // as NDArray lays it out: whole bytes per element
}

std::string ShapeStr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

template <typename T>
T Get(const Map<String, Any>& m, const char* key) {
  const Any* v = m.get()->Find(Any(String(key)));
  TVMLITE_CHECK_KIND(v != nullptr, ValueError) << "graph executor: the graph has no '" << key << "'";
  std::optional<T> t = v->as<T>();
  TVMLITE_CHECK_KIND(t.has_value(), ValueError) << "graph executor: the graph's '" << key << "' is malformed";
  return *t;
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

/*! \brief graph["attrs"][key] = ["list_...", [...]]: the list. */
Array<Any> AttrList(const Map<String, Any>& attrs, const char* key, size_t n) {
  Array<Any> pair = Get<Array<Any>>(attrs, key);
  TVMLITE_CHECK_KIND(pair.size() == 2, ValueError) << "graph executor: attrs." << key << " is malformed";
  std::optional<Array<Any>> list = pair[1].as<Array<Any>>();
  TVMLITE_CHECK_KIND(list && list->size() == n, ValueError)
      << "graph executor: attrs." << key << " must list " << n << " entries";
  return *list;
}

}  // namespace

class GraphExecutorObj : public Object {
 public:
  enum Kind { kInput, kParam, kKernel, kReference, kNop };
  struct Node {
    Kind kind;
    std::string name, func_name;
    Function fn;
    std::vector<int64_t> inputs, outputs;  // entry ids
    bool view_fixed = false;               // kNop: made at creation
  };

  std::vector<Node> nodes;
  std::vector<Any> values;  // per entry
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DLDataType> dtypes;
  std::vector<bool> is_static, is_object;
  std::vector<NDArray> storages;
  std::vector<int64_t> heads;
  std::vector<int64_t> input_nodes;  // node ids of the inputs, in order
  std::unordered_map<std::string, int64_t> input_index;
  bool has_run = false;

  static constexpr const char* _type_key = "runtime.GraphExecutor";
  TVMLITE_DYNAMIC_TYPE_INDEX;
  TVMLITE_DECLARE_FINAL_OBJECT_INFO(GraphExecutorObj, Object);

  void Init(const Map<String, Any>& graph, const Map<String, Any>& params) {
    Array<Any> jnodes = Get<Array<Any>>(graph, "nodes");
    std::vector<int64_t> row_ptr = IntList(Get<Array<Any>>(graph, "node_row_ptr"), "node_row_ptr");
    TVMLITE_CHECK_KIND(row_ptr.size() == jnodes.size() + 1 && row_ptr[0] == 0, ValueError)
        << "graph executor: node_row_ptr does not match the nodes";
    for (size_t i = 1; i < row_ptr.size(); ++i) {
      TVMLITE_CHECK_KIND(row_ptr[i] >= row_ptr[i - 1], ValueError) << "graph executor: node_row_ptr decreases";
    }
    const size_t num_entries = static_cast<size_t>(row_ptr.back());
    Map<String, Any> attrs = Get<Map<String, Any>>(graph, "attrs");
    Array<Any> jshape = AttrList(attrs, "shape", num_entries);
    Array<Any> jdtype = AttrList(attrs, "dltype", num_entries);
    std::vector<int64_t> sids = IntList(AttrList(attrs, "storage_id", num_entries), "storage_id");
    std::vector<int64_t> stat = IntList(AttrList(attrs, "static", num_entries), "static");
    values.assign(num_entries, Any());
    for (size_t e = 0; e < num_entries; ++e) {
      shapes.push_back(IntList(jshape[e], "shape"));
      std::optional<String> dt = jdtype[e].as<String>();
      TVMLITE_CHECK_KIND(dt.has_value(), ValueError) << "graph executor: dltype must be strings";
      // Entries NDArray cannot hold (sequences, optionals: "object"; string tensors) carry any value.
      bool obj = std::string(*dt) == "object" || DataType(std::string(*dt)).is_string();
      is_object.push_back(obj);
      dtypes.push_back(obj ? DLDataType{kDLOpaqueHandle, 0, 0} : DLDataType(DataType(std::string(*dt))));
      is_static.push_back(stat[e] != 0 && !obj);
      if (is_static.back()) {
        for (int64_t d : shapes.back()) {
          TVMLITE_CHECK_KIND(d >= 0, ValueError) << "graph executor: a static entry has dim " << d;
        }
      }
    }
    // Storages: as large as the largest entry placed in each.
    std::vector<int64_t> storage_bytes;
    for (size_t e = 0; e < num_entries; ++e) {
      if (sids[e] < 0) continue;
      TVMLITE_CHECK_KIND(is_static[e] && sids[e] < static_cast<int64_t>(num_entries) * 2 + 1, ValueError)
          << "graph executor: storage_id " << sids[e] << " of entry " << e << " is invalid";
      if (static_cast<size_t>(sids[e]) >= storage_bytes.size()) storage_bytes.resize(sids[e] + 1, 0);
      storage_bytes[sids[e]] = std::max(storage_bytes[sids[e]], NumBytes(shapes[e], dtypes[e]));
    }
    for (int64_t b : storage_bytes) storages.push_back(NDArray::Empty({std::max<int64_t>(b, 1)}, DataType::UInt(8)));

    for (size_t i = 0; i < jnodes.size(); ++i) {
      std::optional<Map<String, Any>> jn = jnodes[i].as<Map<String, Any>>();
      TVMLITE_CHECK_KIND(jn.has_value(), ValueError) << "graph executor: node " << i << " is not an object";
      Node n;
      n.name = std::string(Get<String>(*jn, "name"));
      std::string op = std::string(Get<String>(*jn, "op"));
      for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e) n.outputs.push_back(e);
      for (const Any& in : Get<Array<Any>>(*jn, "inputs")) {
        std::vector<int64_t> ref = IntList(in, "a node input");
        TVMLITE_CHECK_KIND(ref.size() >= 2 && ref[0] >= 0 && ref[0] < static_cast<int64_t>(i) && ref[1] >= 0 &&
                               ref[1] < row_ptr[ref[0] + 1] - row_ptr[ref[0]],
                           ValueError)
            << "graph executor: node " << n.name << " reads an entry that is not computed before it";
        n.inputs.push_back(row_ptr[ref[0]] + ref[1]);
      }
      if (op == "null") {
        TVMLITE_CHECK_KIND(n.outputs.size() == 1, ValueError) << "graph executor: input " << n.name << " has "
                                                              << n.outputs.size() << " outputs";
        int64_t e = n.outputs[0];
        const Any* p = params.get()->Find(Any(String(n.name)));
        if (p != nullptr) {
          n.kind = kParam;
          values[e] = *p;
        } else {
          n.kind = kInput;
          input_index[n.name] = static_cast<int64_t>(input_nodes.size());
          input_nodes.push_back(static_cast<int64_t>(i));
          if (is_static[e]) values[e] = NDArray::Empty(shapes[e], dtypes[e]);
        }
      } else {
        TVMLITE_CHECK_KIND(op == "tvm_op", ValueError) << "graph executor: unknown node op '" << op << "'";
        Map<String, Any> nattrs = Get<Map<String, Any>>(*jn, "attrs");
        n.func_name = std::string(Get<String>(nattrs, "func_name"));
        if (n.func_name == "__nop") {
          n.kind = kNop;
          TVMLITE_CHECK_KIND(n.inputs.size() == 1 && n.outputs.size() == 1 && is_static[n.outputs[0]], ValueError)
              << "graph executor: view " << n.name << " must have one input and one static output";
        } else {
          n.kind = n.func_name == "relay.backend.reference" ? kReference : kKernel;
          Function factory = runtime::Registry::Get(n.func_name);
          TVMLITE_CHECK_KIND(factory.defined(), ValueError)
              << "graph executor: no kernel factory '" << n.func_name << "' is registered (node " << n.name
              << (n.kind == kReference ? "; import tvmlite.relay.backend.reference_kernel" : "") << ")";
          n.fn = factory(Get<Map<String, Any>>(nattrs, "kernel_attrs")).cast<Function>();
          if (n.kind == kKernel) {
            for (int64_t e : n.outputs) {
              TVMLITE_CHECK_KIND(sids[e] >= 0, ValueError)
                  << "graph executor: kernel node " << n.name << " has an output without storage";
              values[e] = ViewOf(storages[sids[e]], shapes[e], dtypes[e]);
            }
          }
        }
      }
      if (n.kind == kNop) {
        const Any& in = values[n.inputs[0]];
        if (std::optional<NDArray> a = in.as<NDArray>(); a && is_static[n.inputs[0]]) {
          values[n.outputs[0]] = MakeView(n, *a);
          n.view_fixed = true;
        }
      }
      nodes.push_back(std::move(n));
    }
    for (const Any& h : Get<Array<Any>>(graph, "heads")) {
      std::vector<int64_t> ref = IntList(h, "a head");
      TVMLITE_CHECK_KIND(ref.size() >= 2 && ref[0] >= 0 && ref[0] < static_cast<int64_t>(nodes.size()) &&
                             ref[1] >= 0 && ref[1] < row_ptr[ref[0] + 1] - row_ptr[ref[0]],
                         ValueError)
          << "graph executor: a head names no entry";
      heads.push_back(row_ptr[ref[0]] + ref[1]);
    }
  }

  NDArray MakeView(const Node& n, const NDArray& in) const {
    int64_t out = n.outputs[0];
    TVMLITE_CHECK_KIND(in.IsContiguous() && in.NBytes() == static_cast<size_t>(NumBytes(shapes[out], dtypes[out])),
                       ValueError)
        << n.name << ": cannot view " << ShapeStr(in.Shape()) << " as " << ShapeStr(shapes[out]);
    return ViewOf(in, shapes[out], dtypes[out]);
  }

  void RunNode(const Node& n, std::vector<AnyView>* args) {
    switch (n.kind) {
      case kInput: case kParam: return;
      case kNop:
        if (!n.view_fixed) {
          std::optional<NDArray> a = values[n.inputs[0]].as<NDArray>();
          TVMLITE_CHECK_KIND(a.has_value(), ValueError) << n.name << ": the input of a view is not a tensor";
          values[n.outputs[0]] = MakeView(n, *a);
        }
        return;
      case kKernel: {
        args->clear();
        for (int64_t e : n.inputs) args->push_back(AnyView(values[e]));
        for (int64_t e : n.outputs) args->push_back(AnyView(values[e]));
        Any rv;
        n.fn.CallPacked(runtime::PackedArgs(args->data(), static_cast<int32_t>(args->size())), &rv);
        return;
      }
      case kReference: {
        args->clear();
        for (int64_t e : n.inputs) args->push_back(AnyView(values[e]));
        Any rv;
        n.fn.CallPacked(runtime::PackedArgs(args->data(), static_cast<int32_t>(args->size())), &rv);
        std::optional<Array<Any>> outs = rv.as<Array<Any>>();
        TVMLITE_CHECK_KIND(outs && outs->size() == n.outputs.size(), ValueError)
            << n.name << ": the reference kernel must return a list of " << n.outputs.size() << " values";
        for (size_t k = 0; k < n.outputs.size(); ++k) values[n.outputs[k]] = (*outs)[k];
        return;
      }
    }
  }

  void CheckInputsSet() const {
    std::string missing;
    for (int64_t id : input_nodes) {
      int64_t e = nodes[id].outputs[0];
      if (!input_set_.count(e)) missing += (missing.empty() ? "" : ", ") + nodes[id].name;
    }
    TVMLITE_CHECK_KIND(missing.empty(), ValueError) << "run: inputs not set: " << missing;
  }

  void Run() {
    CheckInputsSet();
    std::vector<AnyView> args;
    for (const Node& n : nodes) RunNode(n, &args);
    has_run = true;
  }

  Array<Any> Profile() {
    CheckInputsSet();
    std::vector<AnyView> args;
    std::vector<Any> records;
    for (const Node& n : nodes) {
      auto t0 = std::chrono::steady_clock::now();
      RunNode(n, &args);
      auto t1 = std::chrono::steady_clock::now();
      if (n.kind == kInput || n.kind == kParam) continue;
      Map<String, Any> r;
      r.Set(String("name"), String(n.name));
      r.Set(String("func_name"), String(n.func_name));
      std::vector<int64_t> shape;
      if (std::optional<NDArray> a = values[n.outputs.empty() ? 0 : n.outputs[0]].as<NDArray>()) shape = a->Shape();
      r.Set(String("shape"), Array<int64_t>(shape));
      r.Set(String("time_ms"), std::chrono::duration<double, std::milli>(t1 - t0).count());
      records.push_back(r);
    }
    has_run = true;
    return Array<Any>(records);
  }

  int64_t InputEntry(const Any& key) const {
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

  void SetInput(const Any& key, const Any& value) {
    int64_t e = InputEntry(key);
    const std::string& name = EntryName(e);
    if (is_object[e]) {
      values[e] = value;
      input_set_.insert(e);
      return;
    }
    std::optional<NDArray> a = value.as<NDArray>();
    if (!a.has_value()) {
      std::string got = value.object() ? value.object()->GetTypeKey()
                                       : "a value of type index " + std::to_string(value.type_index());
      TVMLITE_THROW(TypeError) << "set_input: input '" << name << "' is a tensor, got " << got;
    }
    DataType want(dtypes[e]), got(a->dtype());
    TVMLITE_CHECK_KIND(want == got, TypeError) << "set_input: input '" << name << "' is " << want.str()
                                               << ", got dtype " << got.str();
    if (is_static[e]) {
      TVMLITE_CHECK_KIND(a->Shape() == shapes[e], ValueError) << "set_input: input '" << name << "' has shape "
                                                              << ShapeStr(shapes[e]) << ", got shape "
                                                              << ShapeStr(a->Shape());
      values[e].cast<NDArray>().CopyFrom(*a);
    } else {
      const auto& want_shape = shapes[e];
      TVMLITE_CHECK_KIND(want_shape.empty() || a->Shape().size() == want_shape.size(), ValueError)
          << "set_input: input '" << name << "' has rank " << want_shape.size() << ", got shape "
          << ShapeStr(a->Shape());
      for (size_t d = 0; d < want_shape.size(); ++d) {
        TVMLITE_CHECK_KIND(want_shape[d] < 0 || want_shape[d] == a->Shape()[d], ValueError)
            << "set_input: input '" << name << "' has shape " << ShapeStr(want_shape) << " (-1: any), got shape "
            << ShapeStr(a->Shape());
      }
      NDArray copy = NDArray::Empty(a->Shape(), a->dtype());
      copy.CopyFrom(*a);
      values[e] = copy;
    }
    input_set_.insert(e);
  }

  const std::string& EntryName(int64_t e) const {
    for (int64_t id : input_nodes) {
      if (nodes[id].outputs[0] == e) return nodes[id].name;
    }
    static const std::string unknown = "?";
    return unknown;
  }

  Any GetOutput(int64_t i) const {
    TVMLITE_CHECK_KIND(has_run, ValueError) << "get_output: run() has not been called";
    TVMLITE_CHECK_KIND(i >= 0 && i < static_cast<int64_t>(heads.size()), IndexError)
        << "get_output: index " << i << " out of range for " << heads.size() << " outputs";
    return values[heads[i]];
  }

 private:
  std::unordered_set<int64_t> input_set_;
};

TVMLITE_REGISTER_OBJECT_TYPE(GraphExecutorObj);

namespace {

GraphExecutorObj* Self(const ObjectRef& ex) {
  auto* p = const_cast<GraphExecutorObj*>(ex.as<GraphExecutorObj>());
  TVMLITE_CHECK_KIND(p != nullptr, TypeError) << "expected a graph executor, got " << ex->GetTypeKey();
  return p;
}

TVMLITE_REGISTER_GLOBAL("graph_executor.create")
    .set_body_typed([](Map<String, Any> graph, Map<String, Any> params, DLDevice device) {
      TVMLITE_CHECK_KIND(device.device_type == kDLCPU, ValueError)
          << "graph executor: only cpu devices are supported, got device type " << device.device_type;
      auto n = runtime::make_object<GraphExecutorObj>();
      n->Init(graph, params);
      return ObjectRef(n);
    });
TVMLITE_REGISTER_GLOBAL("graph_executor.set_input").set_body_typed([](ObjectRef ex, Any key, Any value) {
  Self(ex)->SetInput(key, value);
});
TVMLITE_REGISTER_GLOBAL("graph_executor.run").set_body_typed([](ObjectRef ex) { Self(ex)->Run(); }).set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.profile")
    .set_body_typed([](ObjectRef ex) { return Self(ex)->Profile(); })
    .set_long_running();
TVMLITE_REGISTER_GLOBAL("graph_executor.get_output").set_body_typed([](ObjectRef ex, int64_t i) {
  return Self(ex)->GetOutput(i);
});
TVMLITE_REGISTER_GLOBAL("graph_executor.get_num_outputs").set_body_typed([](ObjectRef ex) {
  return static_cast<int64_t>(Self(ex)->heads.size());
});
TVMLITE_REGISTER_GLOBAL("graph_executor.get_input").set_body_typed([](ObjectRef ex, Any key) {
  GraphExecutorObj* self = Self(ex);
  return self->values[self->InputEntry(key)];
});
TVMLITE_REGISTER_GLOBAL("graph_executor.get_input_names").set_body_typed([](ObjectRef ex) {
  GraphExecutorObj* self = Self(ex);
  std::vector<String> names;
  for (int64_t id : self->input_nodes) names.push_back(String(self->nodes[id].name));
  return Array<String>(names);
});

}  // namespace
}  // namespace backend
}  // namespace tvmlite
